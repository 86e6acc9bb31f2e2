//! [`Tablebase`]: a directory of tables, opened lazily, probed from any thread.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use super::format::{FileKind, TableError, wdl_code};
use super::index::{MoverFrame, SliceIndex};
use super::material::Material;
use super::outcome::{Outcome, Wdl};
use super::table::{Access, BlockCache, KeyMap, TableFile};
use crate::Variant;
use crate::notation::movetext::sort_moves;
use crate::rules::{LegalMove, MoveList, Position, Rules, captures, legal_moves};

/// Why a probe has no answer.
#[derive(Debug)]
pub enum ProbeError {
    /// A table the position needs cannot be used (missing, damaged, of another variant...).
    Table(TableError),
    /// The position is outside what tables can hold.
    NotCovered(String),
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::Table(e) => e.fmt(f),
            ProbeError::NotCovered(why) => write!(f, "position not in the tables: {why}"),
        }
    }
}

impl std::error::Error for ProbeError {}

impl From<TableError> for ProbeError {
    fn from(e: TableError) -> Self {
        ProbeError::Table(e)
    }
}

/// A legal move with the result it leads to, from the point of view of the side playing it.
#[derive(Clone, Debug)]
pub struct RatedMove {
    /// The move.
    pub mv: LegalMove,
    /// The result for the side that plays it, with the distance counted from before it.
    pub outcome: Outcome,
}

/// Default cache size for probing: 256 MiB of decoded blocks.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// The key of a table in the map of open tables.
fn table_key(variant: Variant, m: Material, kind: FileKind) -> u64 {
    let bytes = [
        m.mover_men,
        m.mover_kings,
        m.other_men,
        m.other_kings,
        kind as u8,
        variant.game_type(),
    ];
    bytes.iter().fold(0, |key, &b| key << 8 | b as u64)
}

/// The tables in a directory (`DIR/VARIANT/KEY.wdl` and `.dtw`), opened on first use.
///
/// ```no_run
/// use damka::notation::parse_fen;
/// use damka::rules::English;
/// use damka::tablebase::{Tablebase, Wdl};
/// let tb = Tablebase::open("tables").unwrap();
/// let first_position = parse_fen::<English>("W:WK19,K23:BK28,12").unwrap();
/// assert_eq!(tb.probe_wdl(&first_position).unwrap(), Wdl::Win);
/// for rated in tb.rated_moves(&first_position).unwrap() {
///     println!("{:?} {}", rated.mv.mv, rated.outcome);
/// }
/// ```
pub struct Tablebase {
    dir: PathBuf,
    cache: BlockCache,
    tables: RwLock<KeyMap<Arc<TableFile>>>,
    next_id: AtomicU32,
    access: Access,
    damage: Mutex<Damage>,
}

/// The table files found damaged, each said once.
#[derive(Default)]
struct Damage {
    seen: std::collections::HashSet<PathBuf>,
    unsaid: Vec<String>,
}

impl Tablebase {
    /// The tables under `dir`, with the default block cache.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        Tablebase::with_cache(dir, DEFAULT_CACHE_BYTES)
    }

    /// The tables under `dir`, caching at most about `cache_bytes` of decoded blocks.
    pub fn with_cache(dir: impl AsRef<Path>, cache_bytes: usize) -> Result<Tablebase, ProbeError> {
        Tablebase::with_access(dir, cache_bytes, Access::Read)
    }

    /// The tables under `dir`, caching at most about `cache_bytes` of decoded blocks, their
    /// blocks read as `access` says ([`Access::Map`] has a caveat: read it).
    pub fn with_access(
        dir: impl AsRef<Path>,
        cache_bytes: usize,
        access: Access,
    ) -> Result<Tablebase, ProbeError> {
        let dir = dir.as_ref().to_path_buf();
        if !dir.is_dir() {
            return Err(TableError::Missing(dir).into());
        }
        Ok(Tablebase {
            dir,
            cache: BlockCache::new(cache_bytes),
            tables: RwLock::new(KeyMap::default()),
            next_id: AtomicU32::new(0),
            access,
            damage: Mutex::new(Damage::default()),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of a table file under a tables directory.
    pub fn path_in(dir: &Path, variant: Variant, material: Material, kind: FileKind) -> PathBuf {
        dir.join(variant.name())
            .join(format!("{material}.{}", kind.extension()))
    }

    /// The opened file of a table, opening it on first use.
    pub fn table(
        &self,
        variant: Variant,
        material: Material,
        kind: FileKind,
    ) -> Result<Arc<TableFile>, TableError> {
        let key = table_key(variant, material, kind);
        if let Some(t) = self
            .tables
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return Ok(t.clone());
        }
        let mut tables = self.tables.write().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = tables.get(&key) {
            return Ok(t.clone());
        }
        let path = Tablebase::path_in(&self.dir, variant, material, kind);
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let table = TableFile::open_with(&path, kind, variant, material, id, self.access)
            .map_err(|e| self.noted(e))?;
        let table = Arc::new(table);
        tables.insert(key, table.clone());
        Ok(table)
    }

    /// Remembers a damaged file (any error but a missing file), to be said once by
    /// [`Tablebase::take_damage`]; gives the error back.
    fn noted(&self, e: TableError) -> TableError {
        let path = match &e {
            TableError::Missing(_) => return e,
            TableError::Io(p, _)
            | TableError::NotATable(p)
            | TableError::Version(p, _)
            | TableError::HeaderChecksum(p)
            | TableError::Mismatch(p, _)
            | TableError::Truncated(p)
            | TableError::Block(p, _)
            | TableError::BadBlock(p, _, _) => p,
        };
        let mut damage = self.damage.lock().unwrap_or_else(|e| e.into_inner());
        if damage.seen.insert(path.clone()) {
            damage.unsaid.push(e.to_string());
        }
        e
    }

    /// What was found damaged since the last call (an error text per file, each file once
    /// in the life of the `Tablebase`). Probes that need a damaged file fail; a search or an
    /// analysis goes on without it and calls this to say so.
    pub fn take_damage(&self) -> Vec<String> {
        let mut damage = self.damage.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut damage.unsaid)
    }

    /// Win, draw or loss for the side to move. Captures are searched, only the win/draw/loss
    /// files are read.
    pub fn probe_wdl<R: Rules>(&self, pos: &Position<R>) -> Result<Wdl, ProbeError> {
        self.resolve(pos, false).map(|o| o.wdl)
    }

    /// The result with its distance to the end in plies.
    pub fn probe_dtw<R: Rules>(&self, pos: &Position<R>) -> Result<Outcome, ProbeError> {
        self.resolve(pos, true)
    }

    /// Every legal move with its result for the side to move, best first: fastest wins,
    /// then draws, then the slowest losses; equal moves in notation order.
    pub fn rated_moves<R: Rules>(&self, pos: &Position<R>) -> Result<Vec<RatedMove>, ProbeError> {
        let legal = legal_moves(pos);
        let mut ordered: Vec<&LegalMove> = legal.iter().collect();
        sort_moves(R::VARIANT, &mut ordered);
        let mut rated = ordered
            .into_iter()
            .map(|lm| {
                let outcome = self.resolve(&pos.play(&lm.mv), true)?.before_move();
                Ok(RatedMove {
                    mv: lm.clone(),
                    outcome,
                })
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        rated.sort_by_key(|r| std::cmp::Reverse(r.outcome.score()));
        Ok(rated)
    }

    /// The outcome of `pos`, searching captures; with `dtw` false the distance is 0.
    pub fn resolve<R: Rules>(&self, pos: &Position<R>, dtw: bool) -> Result<Outcome, ProbeError> {
        resolve_by(pos, dtw, &|frame| {
            self.stored::<R, _>(
                frame,
                dtw,
                |why| ProbeError::NotCovered(why.into()),
                |material, kind, i| {
                    let table = self.table(R::VARIANT, material, kind)?;
                    Ok(table.value(i, &self.cache).map_err(|e| self.noted(e))?)
                },
            )
        })
    }

    /// Like [`Tablebase::resolve`], but only from tables already open and blocks already
    /// decoded in the cache: `None` when an answer would need a file opened or a block read
    /// and decoded (or a table is missing). Cheap enough for every node of a search.
    pub fn resolve_cached<R: Rules>(&self, pos: &Position<R>, dtw: bool) -> Option<Outcome> {
        let cached = |material, kind, i| {
            let key = table_key(R::VARIANT, material, kind);
            let tables = self.tables.read().unwrap_or_else(|e| e.into_inner());
            let table = tables.get(&key).cloned().ok_or(())?;
            table.cached_value(i, &self.cache).ok_or(())
        };
        resolve_by(pos, dtw, &|frame| {
            self.stored::<R, _>(frame, dtw, |_| (), cached)
        })
        .ok()
    }

    /// The stored outcome of a position with no capture, its values read by `value` (from
    /// the tables of a material, of a kind, at an index); `not_covered` makes the error for a
    /// position the tables cannot hold.
    fn stored<R: Rules, E>(
        &self,
        frame: &MoverFrame,
        dtw: bool,
        not_covered: impl Fn(&str) -> E,
        value: impl Fn(Material, FileKind, u64) -> Result<u16, E>,
    ) -> Result<Outcome, E> {
        if frame.mover == 0 {
            return Ok(Outcome::loss(0));
        }
        if frame.other == 0 {
            return Err(not_covered("the side not to move has no pieces"));
        }
        let material = frame.material();
        let i = SliceIndex::<R>::new(material)
            .rank(frame)
            .ok_or_else(|| not_covered("a man stands where men of its side never can"))?;
        let wdl = match value(material, FileKind::Wdl, i)? as u8 {
            wdl_code::WIN => Wdl::Win,
            wdl_code::LOSS => Wdl::Loss,
            _ => return Ok(Outcome::DRAW),
        };
        let distance = if dtw {
            value(material, FileKind::Dtw, i)?
        } else {
            0
        };
        Ok(Outcome { wdl, dtw: distance })
    }
}

/// The outcome of `pos` with its captures played out (each side takes its best), down to
/// positions without a capture, whose outcome `stored` gives.
fn resolve_by<R: Rules, E>(
    pos: &Position<R>,
    dtw: bool,
    stored: &impl Fn(&MoverFrame) -> Result<Outcome, E>,
) -> Result<Outcome, E> {
    let mut list = MoveList::default();
    captures(pos, &mut list);
    if list.as_slice().is_empty() {
        return stored(&MoverFrame::of(pos));
    }
    let mut best: Option<Outcome> = None;
    for mv in list.as_slice() {
        let o = resolve_by(&pos.play(mv), dtw, stored)?.before_move();
        let o = if dtw {
            o
        } else {
            Outcome { wdl: o.wdl, dtw: 0 }
        };
        best = Some(best.map_or(o, |b| b.max(o)));
    }
    Ok(best.unwrap_or(Outcome::loss(0)))
}
