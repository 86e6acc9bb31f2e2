//! [`Tablebase`]: a directory of tables, opened lazily, probed from any thread.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::capture::{Captures, Window, best_after, resolve_by};
use crate::Variant;
use crate::rules::{
    Color, Counters, LegalMove, Move, Position, RuleSet, Rules, Unreachable, captures, legal_moves,
    may_capture, sort_moves, with_moves,
};
use crate::tablebase::format::{Access, BlockCache, TableFile};
use crate::tablebase::format::{FileKind, RuleValue, TableError};
use crate::tablebase::index::material::Material;
use crate::tablebase::index::{MoverFrame, SliceIndex};
use crate::tablebase::store::Store;
use crate::tablebase::unread::{converts_at_once, even_rows, forced_exchange};
use crate::tablebase::value::quiet_used;
use crate::tablebase::value::{Moves, RuleCategory, RuleResult};
use crate::tablebase::value::{Outcome, Wdl};

/// Why a probe has no answer.
#[derive(Debug)]
pub enum ProbeError {
    /// A table the position needs cannot be used (missing, damaged, of another variant...).
    Table(TableError),
    /// The position is outside what tables can hold.
    NotCovered(String),
    /// No game reaches the position: the side not to move has no pieces. Every probe
    /// refuses it; a side to move without pieces or moves is a loss at distance 0.
    Unreachable(Unreachable),
    /// The tables hold no results under the rule set asked for (said why).
    NoRuleResults(String),
    /// The tables directory does not exist, or is a file.
    NoDirectory {
        /// The path given as the directory.
        dir: PathBuf,
        /// Whether it is a file.
        is_file: bool,
    },
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::Table(e) => e.fmt(f),
            ProbeError::NotCovered(why) => write!(f, "position not in the tables: {why}"),
            ProbeError::Unreachable(e) => e.fmt(f),
            ProbeError::NoRuleResults(why) => write!(f, "no rule results: {why}"),
            ProbeError::NoDirectory { dir, is_file } => match is_file {
                true => write!(f, "{}: a file, not a tables directory", dir.display()),
                false => write!(f, "{}: no such tables directory", dir.display()),
            },
        }
    }
}

impl std::error::Error for ProbeError {}

impl From<TableError> for ProbeError {
    fn from(e: TableError) -> Self {
        ProbeError::Table(e)
    }
}

impl From<Unreachable> for ProbeError {
    fn from(e: Unreachable) -> Self {
        ProbeError::Unreachable(e)
    }
}

/// A legal move with the result it leads to, from the point of view of the side playing it.
#[derive(Clone, Debug)]
pub struct RatedMove {
    /// The move.
    pub mv: LegalMove,
    /// The result for the side that plays it, with the distance to the end counted from
    /// before it where the tables hold distances to the end ([`Tablebase::has_dtw`]), else
    /// 0.
    pub outcome: Outcome,
    /// For a move that wins or loses, the plies to the next conversion through it for the
    /// side that plays it: 1 where the move converts (a capture or a man's move), else one
    /// more than the position it leads to ([`Tablebase::probe_dtc`]). `None` for a draw.
    pub dtc: Option<u16>,
}

/// A legal move with its result under a rule set, from the point of view of the side
/// playing it.
#[derive(Clone, Debug)]
pub struct RuleMove {
    /// The move, with its plain result.
    pub rated: RatedMove,
    /// The counters after it.
    pub counters: Counters,
    /// Its category under the rules.
    pub category: RuleCategory,
    /// For a win or loss under the rules, the plies of the governing count still needed
    /// after it (see [`RuleResult::plies`]); 0 when the move starts the count again.
    pub plies: u16,
}

/// Default cache size for probing: 256 MiB of decoded blocks.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// Slice keys are four digits (docs/FORMAT.md): a material with a count of 10 or more has
/// no file.
const MATERIALS: usize = 10_000;

/// Where a table sits in its variant's row of [`Tablebase::tables`], if it can exist.
#[inline(always)]
fn table_slot(m: Material, kind: FileKind) -> Option<usize> {
    let (a, b, c, d) = (m.mover_men, m.mover_kings, m.other_men, m.other_kings);
    if a.max(b).max(c).max(d) >= 10 {
        return None;
    }
    let material = ((a as usize * 10 + b as usize) * 10 + c as usize) * 10 + d as usize;
    Some(match kind {
        FileKind::Wdl => material,
        FileKind::Dtw => MATERIALS + material,
        FileKind::Dtc => 2 * MATERIALS + material,
        FileKind::Rules => 3 * MATERIALS + material,
    })
}

/// The opened tables of one variant, by [`table_slot`].
type TableRow = Box<[OnceLock<Arc<TableFile>>]>;

/// The tables in a directory (`DIR/VARIANT/KEY.wdl`, `.dtw` and `.dtc`), opened on first use.
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
    store: Store,
    cache: BlockCache,
    /// Per variant, the tables opened so far: found without a lock, never closed.
    tables: [OnceLock<TableRow>; Variant::ALL.len()],
    /// Held while a file is opened; counts the files opened (the next one's cache id).
    opening: Mutex<u32>,
    access: Access,
    damage: Mutex<Damage>,
    /// Per variant, whether every slice holds its distances to the end (found once).
    dtw_held: [OnceLock<bool>; Variant::ALL.len()],
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
        Tablebase::in_store(Store::new(dir.as_ref()), cache_bytes, access)
    }

    /// The tables of `store`, caching at most about `cache_bytes` of decoded blocks, their
    /// blocks read as `access` says.
    pub fn in_store(
        store: Store,
        cache_bytes: usize,
        access: Access,
    ) -> Result<Tablebase, ProbeError> {
        if !store.exists() {
            return Err(ProbeError::NoDirectory {
                dir: store.dir().to_path_buf(),
                is_file: store.filesystem().is_file(store.dir()),
            });
        }
        let cache = BlockCache::new(cache_bytes)
            .map_err(|e| TableError::Io(store.dir().to_path_buf(), e))?;
        Ok(Tablebase {
            store,
            cache,
            tables: [const { OnceLock::new() }; Variant::ALL.len()],
            opening: Mutex::new(0),
            access,
            damage: Mutex::new(Damage::default()),
            dtw_held: [const { OnceLock::new() }; Variant::ALL.len()],
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        self.store.dir()
    }

    /// The tables directory the tables are read from.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Whether the tables of `variant` hold distances to the end (`damka generate --dtw`):
    /// some slice has a win/draw/loss file and each such slice a distance file. Where they
    /// do not, [`Tablebase::probe_dtw`] fails and the moves are rated by their distances to
    /// conversion. Looked up once.
    pub fn has_dtw(&self, variant: Variant) -> bool {
        *self.dtw_held[variant as usize].get_or_init(|| {
            self.store.listing(variant).is_ok_and(|listing| {
                let slices = listing.slices_with(&[FileKind::Wdl]);
                !slices.is_empty() && slices.iter().all(|&m| listing.has(m, FileKind::Dtw))
            })
        })
    }

    /// The place of a table among the opened ones, if it can exist.
    #[inline(always)]
    fn slot(
        &self,
        variant: Variant,
        material: Material,
        kind: FileKind,
    ) -> Option<&OnceLock<Arc<TableFile>>> {
        let row = self.tables[variant as usize]
            .get_or_init(|| (0..4 * MATERIALS).map(|_| OnceLock::new()).collect());
        row.get(table_slot(material, kind)?)
    }

    /// The table if it is open already (no lock, no file access).
    #[inline(always)]
    fn open_table(
        &self,
        variant: Variant,
        material: Material,
        kind: FileKind,
    ) -> Option<&TableFile> {
        let row = self.tables[variant as usize].get()?;
        row.get(table_slot(material, kind)?)?.get().map(|t| &**t)
    }

    /// The opened file of a table, opening it on first use.
    pub fn table(
        &self,
        variant: Variant,
        material: Material,
        kind: FileKind,
    ) -> Result<Arc<TableFile>, TableError> {
        let path = || self.store.path(variant, material, kind);
        let slot = self
            .slot(variant, material, kind)
            .ok_or_else(|| TableError::Missing(path()))?;
        if let Some(t) = slot.get() {
            return Ok(t.clone());
        }
        let mut opened = self.opening.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = slot.get() {
            return Ok(t.clone());
        }
        let table = (self.store)
            .open(variant, material, kind, *opened, self.access)
            .and_then(|t| self.twin_holds_values(t))
            .map_err(|e| self.noted(e))?;
        let table = Arc::new(table);
        *opened += 1;
        Ok(slot.get_or_init(|| table).clone())
    }

    /// `table`, if it holds values or is a searched one whose twin holds them: probes of a
    /// searched slice search one ply into its twin, which must not search back.
    fn twin_holds_values(&self, table: TableFile) -> Result<TableFile, TableError> {
        let h = table.header();
        if !h.searched {
            return Ok(table);
        }
        let twin = h.material.flipped();
        let twin_file = (self.store).open(h.variant, twin, h.kind, u32::MAX, Access::Read)?;
        match twin_file.header().searched {
            false => Ok(table),
            true => Err(TableError::Mismatch(
                table.path().to_path_buf(),
                format!("searched, and so is its twin {twin}: nothing holds the values"),
            )),
        }
    }

    /// A stored value, opening the table and decoding its block as needed.
    #[inline]
    fn value(
        &self,
        variant: Variant,
        material: Material,
        kind: FileKind,
        index: u64,
    ) -> Result<u16, TableError> {
        match self.lookup(variant, material, kind, index)? {
            Lookup::Value(v) => Ok(v),
            Lookup::Unless { .. } | Lookup::Searched => Err(TableError::Mismatch(
                self.store.path(variant, material, kind),
                "holds no values for some positions (a compacted file)".into(),
            )),
        }
    }

    /// A value as [`Tablebase::value`] reads it, with what the file says of it
    /// ([`Lookup`]).
    #[inline]
    fn lookup(
        &self,
        variant: Variant,
        material: Material,
        kind: FileKind,
        index: u64,
    ) -> Result<Lookup, TableError> {
        let read = |table: &TableFile| Lookup::read(table, || table.value(index, &self.cache));
        match self.open_table(variant, material, kind) {
            Some(table) => read(table),
            None => read(&*self.table(variant, material, kind)?),
        }
        .map_err(|e| self.noted(e))
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

    /// The result of `pos` with its distance to the end where the tables of its variant hold
    /// distances to the end ([`Tablebase::has_dtw`]); `None` for a draw or where they do
    /// not.
    pub fn probe_result<R: Rules>(
        &self,
        pos: &Position<R>,
    ) -> Result<(Wdl, Option<u16>), ProbeError> {
        let dtw = self.has_dtw(R::VARIANT);
        let o = self.resolve(pos, dtw)?;
        Ok((o.wdl, (dtw && o.wdl != Wdl::Draw).then_some(o.dtw)))
    }

    /// For a won or lost position, the plies to the next conversion (a capture or a man's
    /// move, or the end of the game) when the winner hastens to one that keeps the win and
    /// the loser delays it (Kingsrow's "moves to conversion", in plies); `None` for a draw.
    /// A position with a capture is at 1, one without a move at 0.
    pub fn probe_dtc<R: Rules>(&self, pos: &Position<R>) -> Result<Option<u16>, ProbeError> {
        Ok(self.wdl_and_dtc(pos)?.1)
    }

    /// The win, draw or loss of `pos` and its distance to conversion
    /// ([`Tablebase::probe_dtc`]).
    fn wdl_and_dtc<R: Rules>(&self, pos: &Position<R>) -> Result<(Wdl, Option<u16>), ProbeError> {
        let wdl = self.resolve(pos, false)?.wdl;
        Ok((wdl, self.dtc_of(pos, wdl)?))
    }

    /// The distance to conversion of `pos`, whose result is `wdl` ([`Tablebase::probe_dtc`]).
    fn dtc_of<R: Rules>(&self, pos: &Position<R>, wdl: Wdl) -> Result<Option<u16>, ProbeError> {
        dtc_by(
            pos,
            wdl,
            &|after: &Position<R>| Ok(self.resolve(after, false)?.wdl),
            &|frame: &MoverFrame| {
                let (material, i) = slice_index::<R>(frame)
                    .ok_or_else(|| ProbeError::NotCovered(MAN_OFF_DOMAIN.into()))?;
                Ok(self.lookup(R::VARIANT, material, FileKind::Dtc, i)?)
            },
        )
    }

    /// [`Tablebase::dtc_of`] from open tables and cached blocks only: `None` for a draw or
    /// where that is not enough.
    fn dtc_cached<R: Rules>(&self, pos: &Position<R>, wdl: Wdl) -> Option<u16> {
        dtc_by(
            pos,
            wdl,
            &|after: &Position<R>| self.resolve_cached(after, false).map(|o| o.wdl).ok_or(()),
            &|frame: &MoverFrame| {
                let (material, i) = slice_index::<R>(frame).ok_or(())?;
                let table = self
                    .open_table(R::VARIANT, material, FileKind::Dtc)
                    .ok_or(())?;
                Lookup::read(table, || table.cached_value(i, &self.cache).ok_or(()))
            },
        )
        .ok()?
    }

    /// The stored rule result of a position seen from its side to move (every position has
    /// one, captures included), from the rules files of the directory.
    pub(crate) fn stored_rule<R: Rules>(
        &self,
        frame: &MoverFrame,
    ) -> Result<RuleResult, ProbeError> {
        if frame.mover == 0 {
            return Ok(RuleResult::NO_MOVE);
        }
        let (material, i) =
            slice_index::<R>(frame).ok_or_else(|| ProbeError::NotCovered(MAN_OFF_DOMAIN.into()))?;
        let table = self.table(R::VARIANT, material, FileKind::Rules)?;
        let read = || self.value(R::VARIANT, material, FileKind::Rules, i);
        match table.header().rule_value(read)? {
            RuleValue::Code(code) => Ok(RuleResult::from_code(code)),
            RuleValue::Derived(limit) => self.derived_rule(&frame.position::<R>(), limit),
        }
    }

    /// The result of `pos` under a quiet count of `limit` plies as it follows from its
    /// win/draw/loss value and distance to conversion ([`RuleResult::derived`]).
    pub(crate) fn derived_rule<R: Rules>(
        &self,
        pos: &Position<R>,
        limit: u32,
    ) -> Result<RuleResult, ProbeError> {
        let (wdl, dtc) = self.wdl_and_dtc(pos)?;
        Ok(RuleResult::derived(wdl, dtc.unwrap_or(0), limit))
    }

    /// The result of `pos` under `rules` with the counters at 0 (just after a conversion, or
    /// as its material count starts): its category and the plies of the governing count a
    /// win or loss needs (of the material count, with the quiet count just started, where
    /// both run). A rule set without counts gives the plain result; otherwise the
    /// directory's rules files must hold `rules` (`generate --rules NAME`). A capture
    /// position of a slice the tables do not hold is answered from its captures, as
    /// [`Tablebase::probe_dtw`] answers it.
    pub fn probe_rule_result<R: Rules>(
        &self,
        pos: &Position<R>,
        rules: &RuleSet,
    ) -> Result<RuleResult, ProbeError> {
        pos.reachable()?;
        if rules.quiet.is_none() && rules.material.is_empty() {
            // No count can run out: the plain result, its plies those to the end where the
            // tables hold them, else those to the next conversion.
            let (wdl, plies) = match self.probe_result(pos)? {
                (wdl, Some(dtw)) => (wdl, dtw),
                (wdl, None) => (wdl, self.dtc_of(pos, wdl)?.unwrap_or(0)),
            };
            return Ok(match wdl {
                Wdl::Win => RuleResult::win(plies),
                Wdl::Loss => RuleResult::loss(plies),
                Wdl::Draw => RuleResult::drawn(Wdl::Draw),
            });
        }
        let frame = MoverFrame::of(pos);
        let [a, b] = frame.material().sides();
        if frame.mover == 0 {
            return self.stored_rule::<R>(&frame);
        }
        let mut list = Captures::default();
        if may_capture(pos) {
            captures(pos, &mut list);
        }
        if slice_index::<R>(&frame).is_some() {
            let material = frame.material();
            match self.table(R::VARIANT, material, FileKind::Rules) {
                Ok(table) => {
                    let held = table.header().rule_set;
                    if held != rules.number() {
                        let name = RuleSet::numbered(R::VARIANT, held)
                            .map_or("an unknown rule set", |r| r.name);
                        return Err(ProbeError::NoRuleResults(format!(
                            "the rules files of {} hold {name}, not {} (build them with \
                             generate --rules {} into another directory)",
                            self.dir().display(),
                            rules.name,
                            rules.name
                        )));
                    }
                    return self.stored_rule::<R>(&frame);
                }
                // A capture of a slice the tables do not hold (a forced exchange into
                // them) is answered from what its captures lead to, as `resolve` answers it.
                Err(TableError::Missing(_)) if !list.as_slice().is_empty() => {}
                Err(e) => return Err(e.into()),
            }
        }
        // A man where the index has no place for it (a Turkish man on its own back rank), or
        // a capture outside the tables: only captures are answered, from what they lead to.
        if list.as_slice().is_empty() {
            return Err(ProbeError::NotCovered(MAN_OFF_DOMAIN.into()));
        }
        let limit = rules.governing(a, b).plies();
        let mut moves = Moves::default();
        for mv in list.as_slice() {
            let after = pos.play(mv);
            let [them, us] = MoverFrame::of(&after).material().sides();
            let carried = rules.carries([a, b], [us, them], true);
            moves.add(
                self.probe_rule_result(&after, rules)?
                    .contribution(carried, limit),
            );
        }
        Ok(moves.result(self.resolve(pos, false)?.wdl))
    }

    /// The result of `pos` under `rules` at counters `counters`, with the plies left of the
    /// count its plies are of ([`RuleSet::result_plies_left`]): the stored result (see
    /// [`Tablebase::probe_rule_result`]), except where a material count runs beside a
    /// quiet count already partly used ([`crate::rules::Governing::Both`]), whose result
    /// follows from the king moves to a conversion ([`crate::tablebase::probe`]'s rules).
    pub fn rule_result_at<R: Rules>(
        &self,
        pos: &Position<R>,
        rules: &RuleSet,
        counters: Counters,
    ) -> Result<(RuleResult, Option<u32>), ProbeError> {
        pos.reachable()?;
        let result = match quiet_used(rules, pos, counters) {
            Some(counts) => self.result_with_quiet_left(pos, rules, counts)?,
            None => self.probe_rule_result(pos, rules)?,
        };
        Ok((result, rules.result_plies_left(pos, counters)))
    }

    /// The category of `pos` under `rules` with the counters `counters` (see
    /// [`Tablebase::rule_result_at`]). Exact for counters a game reaches (a material count is
    /// never behind the quiet count).
    pub fn probe_rules<R: Rules>(
        &self,
        pos: &Position<R>,
        rules: &RuleSet,
        counters: Counters,
    ) -> Result<RuleCategory, ProbeError> {
        let (result, left) = self.rule_result_at(pos, rules, counters)?;
        Ok(result.with_plies_left(left))
    }

    /// Every legal move with its result under `rules` for the side to move at counters
    /// `counters`, best under the rules first: wins under the rules, fastest to convert
    /// first (then by distance to the end); cursed wins, draws and blessed losses each in
    /// the plain order; losses under the rules, slowest first.
    pub fn rule_moves<R: Rules>(
        &self,
        pos: &Position<R>,
        rules: &RuleSet,
        counters: Counters,
    ) -> Result<Vec<RuleMove>, ProbeError> {
        // Where the position has no rule result, its moves have none either.
        self.probe_rule_result(pos, rules)?;
        let mut moves = self
            .rated_moves(pos)?
            .into_iter()
            .map(|rated| {
                let after = pos.play(&rated.mv.mv);
                let c = rules.next(pos, counters, &after);
                let (result, left) = self.rule_result_at(&after, rules, c)?;
                let category = result.with_plies_left(left).flip();
                let restarts = left == rules.result_plies_left(&after, Counters::default());
                Ok(RuleMove {
                    rated,
                    counters: c,
                    category,
                    plies: if restarts { 0 } else { result.plies },
                })
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        // Stable: equal moves keep the plain order.
        moves.sort_by_key(|m| {
            let sooner = match m.category {
                RuleCategory::Win => i32::from(m.plies),
                RuleCategory::Loss => -i32::from(m.plies),
                _ => 0,
            };
            (std::cmp::Reverse(m.category), sooner)
        });
        Ok(moves)
    }

    /// Every legal move with its result for the side to move, best first: wins, then
    /// draws, then losses; wins fastest first and losses slowest first, by the distance to
    /// the end where the tables hold it ([`Tablebase::has_dtw`]), else by the distance to
    /// conversion; equal moves in notation order.
    pub fn rated_moves<R: Rules>(&self, pos: &Position<R>) -> Result<Vec<RatedMove>, ProbeError> {
        pos.reachable()?;
        let dtw = self.has_dtw(R::VARIANT);
        let legal = legal_moves(pos);
        let mut ordered: Vec<&LegalMove> = legal.iter().collect();
        sort_moves(R::VARIANT, &mut ordered);
        let mut rated = ordered
            .into_iter()
            .map(|lm| {
                let after = pos.play(&lm.mv);
                let reached = self.resolve(&after, dtw)?;
                let dtc = self.dtc_of(&after, reached.wdl)?;
                let outcome = match dtw {
                    true => reached.before_move(),
                    false => Outcome {
                        wdl: reached.wdl.negated(),
                        dtw: 0,
                    },
                };
                let converts = lm.mv.is_capture() || !pos.kings().contains(lm.mv.from());
                Ok(RatedMove {
                    mv: lm.clone(),
                    outcome,
                    dtc: dtc.map(|d| if converts { 1 } else { d + 1 }),
                })
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        rated.sort_by_key(|r| {
            let sooner = match (dtw, r.outcome.wdl, r.dtc) {
                (true, ..) | (_, Wdl::Draw, _) | (_, _, None) => 0,
                (false, Wdl::Win, Some(d)) => -i32::from(d),
                (false, Wdl::Loss, Some(d)) => i32::from(d),
            };
            std::cmp::Reverse((r.outcome.score(), sooner))
        });
        Ok(rated)
    }

    /// The outcome of `pos`, searching captures; with `dtw` false the distance is 0.
    pub fn resolve<R: Rules>(&self, pos: &Position<R>, dtw: bool) -> Result<Outcome, ProbeError> {
        // Most probes find their blocks in memory: that path carries no error values.
        if let Some(outcome) = self.resolve_cached(pos, dtw) {
            return Ok(outcome);
        }
        self.resolve_uncached(pos, dtw)
    }

    /// [`Tablebase::resolve`] opening files and reading blocks as needed.
    #[cold]
    #[inline(never)]
    fn resolve_uncached<R: Rules>(
        &self,
        pos: &Position<R>,
        dtw: bool,
    ) -> Result<Outcome, ProbeError> {
        // The cached path answers no unreachable position: it comes here, to be refused.
        pos.reachable()?;
        resolve_by(
            pos,
            dtw,
            &|frame| self.stored_read::<R>(frame, dtw),
            Window::ALL,
        )
    }

    /// Like [`Tablebase::resolve`], but only from tables already open and blocks already
    /// decoded in the cache: `None` when an answer would need a file opened or a block read
    /// and decoded (or a table is missing). Cheap enough for every node of a search.
    pub fn resolve_cached<R: Rules>(&self, pos: &Position<R>, dtw: bool) -> Option<Outcome> {
        resolve_by(
            pos,
            dtw,
            &|frame| self.stored_cached::<R>(frame, dtw),
            Window::ALL,
        )
        .ok()
    }

    /// The outcome of `pos` whose captures (the moves it must choose from) are `captures`,
    /// as [`Tablebase::resolve`] finds it: for a caller that has generated them already.
    pub(crate) fn resolve_captures<R: Rules>(
        &self,
        pos: &Position<R>,
        captures: &[Move],
        dtw: bool,
    ) -> Result<Outcome, ProbeError> {
        let pos = &pos.reread();
        let cached = |frame: &MoverFrame| self.stored_cached::<R>(frame, dtw);
        if let Ok(outcome) = best_after(pos, captures, dtw, false, &cached, Window::ALL) {
            return Ok(outcome);
        }
        let read = |frame: &MoverFrame| self.stored_read::<R>(frame, dtw);
        best_after(pos, captures, dtw, false, &read, Window::ALL)
    }

    /// [`Tablebase::stored`] opening files and reading blocks as needed.
    fn stored_read<R: Rules>(
        &self,
        frame: &MoverFrame,
        dtw: bool,
    ) -> Result<Option<Outcome>, ProbeError> {
        self.stored::<R, _>(
            frame,
            dtw,
            |why| ProbeError::NotCovered(why.into()),
            |material, kind, i| Ok(self.lookup(R::VARIANT, material, kind, i)?),
        )
    }

    /// [`Tablebase::stored`] from open tables and cached blocks only.
    #[inline(always)]
    fn stored_cached<R: Rules>(
        &self,
        frame: &MoverFrame,
        dtw: bool,
    ) -> Result<Option<Outcome>, ()> {
        self.stored::<R, _>(
            frame,
            dtw,
            |_| (),
            // Inlined at both its calls (win/draw/loss and distance): a call here costs
            // more than the lookup's few loads.
            #[inline(always)]
            |material, kind, i| {
                let table = self.open_table(R::VARIANT, material, kind).ok_or(())?;
                Lookup::read(
                    table,
                    #[inline(always)]
                    || table.cached_value(i, &self.cache).ok_or(()),
                )
            },
        )
    }

    /// Like [`Tablebase::rule_result_at`] (the directory's rules files holding `rules` is
    /// the caller's to know), but only from tables already open and blocks already decoded:
    /// `None` when that is not enough, or when the result needs a search of king moves.
    pub fn rule_result_cached<R: Rules>(
        &self,
        pos: &Position<R>,
        rules: &RuleSet,
        counters: Counters,
    ) -> Option<(RuleResult, Option<u32>)> {
        let left = rules.result_plies_left(pos, counters);
        let pos = &pos.reread();
        let frame = MoverFrame::of(pos);
        if frame.other == 0 {
            return None;
        }
        if frame.mover == 0 {
            return Some((RuleResult::NO_MOVE, left));
        }
        if quiet_used(rules, pos, counters).is_some() {
            return None;
        }
        let (material, i) = slice_index::<R>(&frame)?;
        let table = self.open_table(R::VARIANT, material, FileKind::Rules)?;
        let read = || table.cached_value(i, &self.cache).ok_or(());
        let result = match table.header().rule_value(read).ok()? {
            RuleValue::Derived(limit) => {
                // The win/draw/loss value as `resolve_cached` finds it, the captures
                // generated once for it and the distance to conversion.
                let stored = |f: &MoverFrame| self.stored_cached::<R>(f, false);
                let mut list = Captures::default();
                if may_capture(&frame.position::<R>()) {
                    captures(pos, &mut list);
                }
                let (wdl, dtc) = if list.as_slice().is_empty() {
                    let wdl = match stored(&frame).ok()? {
                        Some(o) => o.wdl,
                        None => self.resolve_cached(pos, false)?.wdl,
                    };
                    let dtc = match wdl {
                        Wdl::Draw => 0,
                        _ => self.dtc_cached(pos, wdl)?,
                    };
                    (wdl, dtc)
                } else {
                    let o = best_after(pos, list.as_slice(), false, false, &stored, Window::ALL);
                    (o.ok()?.wdl, 1)
                };
                RuleResult::derived(wdl, dtc, limit)
            }
            RuleValue::Code(code) => RuleResult::from_code(code),
        };
        Some((result, left))
    }

    /// The stored outcome of a position with no capture, its values looked up by `value`
    /// (from the tables of a material, of a kind, at an index), `None` when a table it needs
    /// holds none for it (a searched slice, a forced exchange): the moves say;
    /// `not_covered` makes the error for a position the tables cannot hold.
    fn stored<R: Rules, E>(
        &self,
        frame: &MoverFrame,
        dtw: bool,
        not_covered: impl Fn(&str) -> E,
        value: impl Fn(Material, FileKind, u64) -> Result<Lookup, E>,
    ) -> Result<Option<Outcome>, E> {
        // Unreachable (both sides without pieces too): refused before the loss below.
        if frame.other == 0 {
            return Err(not_covered("the side not to move has no pieces"));
        }
        if frame.mover == 0 {
            return Ok(Some(Outcome::loss(0)));
        }
        let (material, i) = slice_index::<R>(frame).ok_or_else(|| not_covered(MAN_OFF_DOMAIN))?;
        // Whether the position is a forced exchange, found once for both files.
        let forced = std::cell::OnceCell::new();
        let held = |lookup: Lookup| lookup.held::<R>(frame, &forced);
        let Some(code) = held(value(material, FileKind::Wdl, i)?) else {
            return Ok(None);
        };
        let wdl = Wdl::of_code(code);
        // Without distances, no branch on the value: a probe's value is random, and a
        // branch on it (waiting for the value's cache miss) would be mispredicted half the
        // time, throwing away the work done after it (the next probes of a loop).
        if !dtw {
            return Ok(Some(Outcome { wdl, dtw: 0 }));
        }
        let distance = if wdl != Wdl::Draw {
            match held(value(material, FileKind::Dtw, i)?) {
                Some(d) => d,
                None => return Ok(None),
            }
        } else {
            0
        };
        Ok(Some(Outcome { wdl, dtw: distance }))
    }
}

/// A value looked up in a table file, with what the file says of it.
enum Lookup {
    /// The position's value.
    Value(u16),
    /// Its value unless the position is one the file leaves unread: a forced exchange
    /// where `forced` ([`crate::tablebase::format::Header::forced_searched`]), a position on even rows
    /// where `even_rows` ([`crate::tablebase::format::Header::even_rows_searched`]).
    Unless {
        value: u16,
        forced: bool,
        even_rows: bool,
        /// A distance to conversion of 1 ([`crate::tablebase::format::Header::ones_searched`]).
        ones: bool,
    },
    /// The file holds no values (a searched slice).
    Searched,
}

impl Lookup {
    /// Whether the file leaves distances to conversion of 1 unread: a position at 1
    /// ([`converts_at_once`]) holds a meaningless value.
    fn ones_unread(&self) -> bool {
        matches!(self, Lookup::Unless { ones: true, .. })
    }

    /// The value of the position `frame` (seen from its side to move) where the file holds
    /// it, `None` where the file leaves it to a search; `forced` remembers whether the
    /// position is a forced exchange once that is asked.
    #[inline(always)]
    fn held<R: Rules>(self, frame: &MoverFrame, forced: &std::cell::OnceCell<bool>) -> Option<u16> {
        match self {
            Lookup::Value(v) => Some(v),
            Lookup::Unless {
                value,
                forced: forced_unread,
                even_rows: even,
                ..
            } => {
                if even && even_rows::<R>(frame.mover, Color::White) {
                    return None;
                }
                let forced = forced_unread
                    && *forced.get_or_init(|| forced_exchange(&frame.position::<R>()));
                (!forced).then_some(value)
            }
            Lookup::Searched => None,
        }
    }

    /// What `table` holds at an index whose value `read` reads.
    #[inline(always)]
    fn read<E>(table: &TableFile, read: impl FnOnce() -> Result<u16, E>) -> Result<Lookup, E> {
        let h = table.header();
        if h.searched {
            return Ok(Lookup::Searched);
        }
        // One call of `read`, so that it is inlined here.
        let value = read()?;
        Ok(if h.forced_searched || h.even_rows_searched {
            Lookup::Unless {
                value,
                forced: h.forced_searched,
                even_rows: h.even_rows_searched,
                ones: h.ones_searched,
            }
        } else {
            Lookup::Value(value)
        })
    }
}

/// Why a position cannot be in the tables although its material is.
const MAN_OFF_DOMAIN: &str = "a man stands where men of its side never can";

/// The slice and index of a position (seen from its side to move), `None` when a man stands
/// where the index has no place for it (a Turkish man on its own back rank).
#[inline(always)]
fn slice_index<R: Rules>(frame: &MoverFrame) -> Option<(Material, u64)> {
    let material = frame.material();
    Some((
        material,
        SliceIndex::<R>::new(material).rank_for_probes(frame)?,
    ))
}

/// The distance to conversion of `pos`, whose result is `wdl` ([`Tablebase::probe_dtc`]),
/// with the results of the positions its moves reach from `wdl_of` and the distance files'
/// values from `dtc_at`. A position its file leaves unread (a searched slice, a forced
/// exchange, a distance on even rows) is found from its moves: 1 for a conversion (a man's
/// move) that keeps the result, one more than the position reached for a king's move that
/// does; the least of them for a win, the most for a loss, 0 without a move. A king's move
/// reaches the twin slice, whose file holds the value or leaves it to a search that never
/// comes back (docs/FORMAT.md).
fn dtc_by<R: Rules, E>(
    pos: &Position<R>,
    wdl: Wdl,
    wdl_of: &impl Fn(&Position<R>) -> Result<Wdl, E>,
    dtc_at: &impl Fn(&MoverFrame) -> Result<Lookup, E>,
) -> Result<Option<u16>, E> {
    if wdl == Wdl::Draw {
        return Ok(None);
    }
    if may_capture(pos) {
        let mut list = Captures::default();
        captures(pos, &mut list);
        if !list.as_slice().is_empty() {
            return Ok(Some(1));
        }
    }
    let frame = MoverFrame::of(pos);
    if frame.mover == 0 {
        return Ok(Some(0));
    }
    let lookup = dtc_at(&frame)?;
    if lookup.ones_unread() && converts_at_once(pos, wdl, wdl_of)? {
        return Ok(Some(1));
    }
    if let Some(dtc) = lookup.held::<R>(&frame, &std::cell::OnceCell::new()) {
        return Ok(Some(dtc));
    }
    let moves = with_moves(pos, |moves| moves.to_vec());
    let kings = pos.kings();
    let mut best: Option<u16> = None;
    for mv in &moves {
        let after = pos.play(mv);
        let reached = wdl_of(&after)?;
        if reached.negated() != wdl {
            continue;
        }
        let dtc = match mv.is_capture() || !kings.contains(mv.from()) {
            true => 1,
            false => dtc_by(&after, reached, wdl_of, dtc_at)?.map_or(1, |d| d + 1),
        };
        best = Some(match (best, wdl) {
            (None, _) => dtc,
            (Some(b), Wdl::Win) => b.min(dtc),
            (Some(b), _) => b.max(dtc),
        });
        if wdl == Wdl::Win && dtc == 1 {
            break;
        }
    }
    Ok(Some(best.unwrap_or(0)))
}
