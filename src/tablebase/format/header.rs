//! The on-disk layout of a table file, written by hand as little-endian fields
//! (documented for other languages in `docs/FORMAT.md`).
//!
//! A file is a 128-byte header, a block table (block start offsets, then a CRC-32 of each
//! compressed block) and the blocks, each a zstd frame holding a fixed number of positions.

use std::fmt;
use std::path::{Path, PathBuf};

use super::le_words::le_bytes;
use crate::rules::{Governing, RuleSet};
use crate::tablebase::index::SliceIndex;
use crate::tablebase::index::material::Material;
use crate::{Variant, with_rules};

/// First eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"DAMKATB\x1a";
/// The format version this code writes and reads (5: each block bound to its number,
/// [`block_crc`]; statistics in the header, [`Stats`]).
pub const VERSION: u16 = 5;
/// The oldest version `damka compact --upgrade` converts to [`VERSION`] (2: one side to
/// move, [`Header::searched`]; a version 2 file is a version 4 file with bytes 83 and 84
/// zero, a version 3 file one with byte 84 zero; a version 4 file is a version 5 file whose
/// blocks are bare zstd frames checked by their CRC alone, without statistics).
pub const OLDEST_VERSION: u16 = 2;
/// Bytes of the block number that starts each stored block (from version 5).
pub const BLOCK_NUMBER_BYTES: usize = 4;
/// The index scheme of `index.rs` (men, then kings, combinatorial number system).
pub const INDEX_SCHEME: u8 = 1;
/// Size of the header in bytes.
pub const HEADER_SIZE: usize = 128;
/// Offset of the statistics fields ([`Stats`]; byte 85 says whether they are there).
const STATS_AT: usize = 88;
/// The index a distance file's statistics hold where no position is won or lost.
const NO_INDEX: u64 = u64::MAX;
/// Offset of the header's own checksum.
const HEADER_CRC_AT: usize = 124;
/// The largest decompressed block a reader accepts (16 MiB): a header asking for more is
/// refused before anything is allocated.
pub const MAX_BLOCK_BYTES: usize = 1 << 24;

/// What a table file holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// Win, draw or loss, 2 bits a position.
    Wdl = 1,
    /// Distance in plies to the end of the game, 1 or 2 bytes a position.
    Dtw = 2,
    /// Distance in plies to the next conversion (capture or man move), 1 or 2 bytes a
    /// position.
    Dtc = 3,
    /// The result under a rule set's move counts ([`crate::tablebase::value::RuleResult`]'s
    /// code), 1 or 2 bytes a position, capture positions included.
    Rules = 4,
}

impl FileKind {
    /// Every kind, in the order of their numbers (byte 10 of the header).
    pub const ALL: [FileKind; 4] = [FileKind::Wdl, FileKind::Dtw, FileKind::Dtc, FileKind::Rules];

    /// The files every build writes for every slice: win/draw/loss and distance to
    /// conversion. The distance to the end ([`FileKind::Dtw`]) is built where asked for
    /// (`damka generate --dtw`), the rules file where the rule set has counts.
    pub const BUILT: [FileKind; 2] = [FileKind::Wdl, FileKind::Dtc];

    /// The kind's place in [`FileKind::ALL`], for arrays with a value per kind.
    pub const fn slot(self) -> usize {
        self as usize - 1
    }

    /// The kind whose file name extension is `extension`.
    pub fn of(extension: &str) -> Option<FileKind> {
        FileKind::ALL
            .into_iter()
            .find(|k| k.extension() == extension)
    }

    /// The file name extension.
    pub const fn extension(self) -> &'static str {
        match self {
            FileKind::Wdl => "wdl",
            FileKind::Dtw => "dtw",
            FileKind::Dtc => "dtc",
            FileKind::Rules => "rules",
        }
    }
}

/// The header of a table file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// WDL or DTW.
    pub kind: FileKind,
    /// The variant.
    pub variant: Variant,
    /// The slice.
    pub material: Material,
    /// Bits per stored value: 2 (WDL), 8 or 16 (the others).
    pub value_bits: u8,
    /// The longest distance in the slice (the largest code, in a rules file).
    pub max_dtw: u16,
    /// Positions (indices) per block.
    pub block_positions: u32,
    /// Number of indices in the slice.
    pub positions: u64,
    /// Number of blocks.
    pub blocks: u32,
    /// CRC-32 of the block table.
    pub table_crc: u32,
    /// Positions won by the side to move.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Positions lost by the side to move.
    pub losses: u64,
    /// Indices whose stored value means nothing: capture positions (resolved by search)
    /// and indices that hold no position.
    pub unused: u64,
    /// In a rules file, 1 + the place of its rule set among the variant's
    /// ([`crate::rules::RuleSet::all`]); 0 in the others.
    pub rule_set: u8,
    /// In a rules file, the positions (among the draws) won or lost without the counts:
    /// cursed wins and blessed losses; 0 in the others.
    pub drawn_by_rules: u64,
    /// The file holds no values (no blocks): every position of the slice is answered by a
    /// search of one ply into its twin (the same material, the other side to move), whose
    /// files hold them. Only win/draw/loss and distance (to the end, to conversion) files;
    /// the counts are the slice's.
    pub searched: bool,
    /// The file's forced exchanges hold no value (a meaningless one): positions where the
    /// side not to move could capture now and after every move that does not crown
    /// ([`crate::tablebase::forced_exchange`]), which a probe answers by a search of one ply
    /// (ending in capture searches). Only win/draw/loss and distance files that hold values.
    pub forced_searched: bool,
    /// The distance file holds no distance for the positions whose side to move's pieces
    /// stand on rows that add up to an even number (counted from its own back rank): a
    /// probe searches two plies for them, to positions of the same slice whose rows add up
    /// to an odd number ([`crate::tablebase::even_rows`]). Only distance files that hold
    /// values, of a slice whose twin is searched, in a variant where every quiet move takes
    /// one piece one row ([`crate::tablebase::rows_alternate`]).
    pub even_rows_searched: bool,
    /// The distance-to-conversion file holds no distance for the won or lost positions at
    /// distance 1 (their side to move converts at once: a win with a man's move that keeps
    /// it, a loss whose every move is a man's): a probe tells them by their moves
    /// ([`crate::tablebase::converts_at_once`]). Only distance-to-conversion files that
    /// hold values and leave their forced exchanges unread.
    pub ones_searched: bool,
    /// Which results the rules file derives from the positions' win/draw/loss values and
    /// distances to conversion ([`crate::tablebase::value::RuleResult::derived`]) instead of
    /// holding them ([`crate::tablebase::compact::derive_rules`]). Only rules files of slices governed by a
    /// quiet count alone.
    pub rules_derived: RulesDerived,
    /// The slice's statistics this file holds (bytes 85-111): `None` where it holds none (a
    /// rules file, or a file converted from an older version by `damka compact --upgrade`).
    pub stats: Option<Stats>,
}

/// Statistics of a slice in its files' headers, which a reader shows without reading a
/// block (`damka stats`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stats {
    /// In a win/draw/loss file: the capture positions (not stored, counted as unused) won,
    /// drawn and lost by the side to move once their captures are resolved.
    Captures {
        /// Won capture positions.
        wins: u64,
        /// Drawn capture positions.
        draws: u64,
        /// Lost capture positions.
        losses: u64,
    },
    /// In a distance file: the first index (in index order) of a stored won or lost
    /// position at the longest distance (the header's), `None` where no stored position is
    /// won or lost.
    LongestAt(Option<u64>),
}

/// The checksum the block table holds for block number `b` whose zstd frame is `frame`: the
/// CRC-32 of its stored bytes ([`stored_block`]), its number as 4 bytes little-endian, then
/// the frame.
pub fn block_crc(b: u32, frame: &[u8]) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    crc.update(&b.to_le_bytes());
    crc.update(frame);
    crc.finalize()
}

/// The bytes of block number `b` as a file stores them: `b` as 4 bytes little-endian, then
/// its zstd frame `frame`. A block moved to another place in the file names the wrong
/// number, so a reader refuses it even where its checksum was recomputed.
pub fn stored_block(b: u32, frame: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(BLOCK_NUMBER_BYTES + frame.len());
    out.extend_from_slice(&b.to_le_bytes());
    out.extend_from_slice(frame);
    out
}

/// The fewest pieces of a slice whose rules file derives its results where it may: smaller
/// slices are probed most and take little room, so their probes stay one lookup (the
/// generator writes such files so, and `damka compact` re-encodes them by default).
pub const DERIVED_FROM_PIECES: u32 = 5;

/// The header byte of the rules files under `rules`: `None` when slices have no rule
/// results (the rule set has no count: the plain results are its results).
pub fn rule_set_byte(rules: &RuleSet) -> Option<u8> {
    let counts = rules.quiet.is_some() || !rules.material.is_empty();
    counts.then(|| rules.number())
}

/// Which results a rules file derives (byte 84).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RulesDerived {
    /// None: it holds every result.
    None = 0,
    /// All: it holds no values.
    All = 1,
    /// Those whose stored value is the mark ([`Header::derived_mark`], also the file's
    /// largest code): the others are the results.
    Marked = 2,
}

/// What a rules file says of a position ([`Header::rule_value`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RuleValue {
    /// The code of its result ([`crate::tablebase::value::RuleResult::from_code`]).
    Code(u16),
    /// Its result is derived under a quiet count of these plies.
    Derived(u32),
}

/// Why a table file cannot be used. Every variant names the file.
#[derive(Debug)]
pub enum TableError {
    /// The file is not there.
    Missing(PathBuf),
    /// The file cannot be read.
    Io(PathBuf, std::io::Error),
    /// Not a damka table (bad magic).
    NotATable(PathBuf),
    /// A format version this build does not read.
    Version(PathBuf, u16),
    /// The header's checksum does not match.
    HeaderChecksum(PathBuf),
    /// The header describes another table than the one asked for.
    Mismatch(PathBuf, String),
    /// The file is shorter than its header says, or became shorter while open.
    Truncated(PathBuf),
    /// A block's checksum does not match, or it does not decompress.
    Block(PathBuf, u32),
    /// A block passes its checksum but its content does not fit the header: the wrong
    /// decoded length, or a value the file cannot hold.
    BadBlock(PathBuf, u32, String),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Missing(p) => write!(f, "{}: table file missing", p.display()),
            TableError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            TableError::NotATable(p) => write!(f, "{}: not a damka table file", p.display()),
            TableError::Version(p, v) => {
                write!(f, "{}: format version {v}, ", p.display())?;
                match *v {
                    v if v > VERSION => write!(
                        f,
                        "written by a newer damka (this one reads version {VERSION})"
                    ),
                    OLDEST_VERSION.. => write!(
                        f,
                        "whose blocks are not bound to their places (this damka reads version \
                         {VERSION}): convert it with `damka compact --upgrade --tables {}`, or \
                         rebuild it with `damka generate`",
                        tables_dir_of(p).display()
                    ),
                    _ => write!(
                        f,
                        "too old to convert (this damka reads version {VERSION}): rebuild it \
                         with `damka generate`"
                    ),
                }
            }
            TableError::HeaderChecksum(p) => {
                write!(
                    f,
                    "{}: header checksum mismatch (file damaged)",
                    p.display()
                )
            }
            TableError::Mismatch(p, what) => write!(f, "{}: {what}", p.display()),
            TableError::Truncated(p) => write!(f, "{}: file truncated", p.display()),
            TableError::Block(p, b) => write!(
                f,
                "{}: block {b} damaged (checksum mismatch or not a zstd frame of its size)",
                p.display()
            ),
            TableError::BadBlock(p, b, what) => {
                write!(f, "{}: block {b} damaged: {what}", p.display())
            }
        }
    }
}

impl std::error::Error for TableError {}

/// The tables directory of the file `path` (`DIR/VARIANT/KEY.EXT`).
fn tables_dir_of(path: &Path) -> &Path {
    path.parent()
        .and_then(Path::parent)
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

impl Header {
    /// The header as its 128 bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_SIZE] {
        let mut b = [0u8; HEADER_SIZE];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..10].copy_from_slice(&VERSION.to_le_bytes());
        b[10] = self.kind as u8;
        b[11] = self.variant.game_type();
        let m = self.material;
        b[12..16].copy_from_slice(&[m.mover_men, m.mover_kings, m.other_men, m.other_kings]);
        b[16] = INDEX_SCHEME;
        b[17] = self.value_bits;
        b[18..20].copy_from_slice(&self.max_dtw.to_le_bytes());
        b[20..24].copy_from_slice(&self.block_positions.to_le_bytes());
        b[24..32].copy_from_slice(&self.positions.to_le_bytes());
        b[32..36].copy_from_slice(&self.blocks.to_le_bytes());
        b[36..40].copy_from_slice(&self.table_crc.to_le_bytes());
        b[40..48].copy_from_slice(&self.wins.to_le_bytes());
        b[48..56].copy_from_slice(&self.draws.to_le_bytes());
        b[56..64].copy_from_slice(&self.losses.to_le_bytes());
        b[64..72].copy_from_slice(&self.unused.to_le_bytes());
        b[72] = self.rule_set;
        b[73..81].copy_from_slice(&self.drawn_by_rules.to_le_bytes());
        b[81] = u8::from(self.searched);
        b[82] = u8::from(self.forced_searched);
        b[83] = u8::from(self.even_rows_searched);
        b[86] = u8::from(self.ones_searched);
        b[84] = self.rules_derived as u8;
        if let Some(stats) = self.stats {
            b[85] = 1;
            let fields = match stats {
                Stats::Captures {
                    wins,
                    draws,
                    losses,
                } => vec![wins, draws, losses],
                Stats::LongestAt(at) => vec![at.unwrap_or(NO_INDEX)],
            };
            for (at, field) in (STATS_AT..).step_by(8).zip(fields) {
                b[at..at + 8].copy_from_slice(&field.to_le_bytes());
            }
        }
        let crc = crc32fast::hash(&b[..HEADER_CRC_AT]);
        b[HEADER_CRC_AT..].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Reads a header and checks what it says of itself: magic, version ([`VERSION`]),
    /// checksum, known kind, variant and index scheme. [`Header::check`] checks the rest.
    pub fn from_bytes(path: &Path, b: &[u8]) -> Result<Header, TableError> {
        match Header::from_bytes_of_any_version(path, b)? {
            (header, VERSION) => Ok(header),
            (_, version) => Err(TableError::Version(path.to_path_buf(), version)),
        }
    }

    /// [`Header::from_bytes`] for a file of any version from [`OLDEST_VERSION`] to
    /// [`VERSION`] (one to convert), with its version. An older version's header has no
    /// statistics.
    pub fn from_bytes_of_any_version(path: &Path, b: &[u8]) -> Result<(Header, u16), TableError> {
        if b.len() < HEADER_SIZE {
            return Err(if b.len() >= 8 && b[..8] == MAGIC {
                TableError::Truncated(path.to_path_buf())
            } else {
                TableError::NotATable(path.to_path_buf())
            });
        }
        if b[..8] != MAGIC {
            return Err(TableError::NotATable(path.to_path_buf()));
        }
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let version = u16_at(8);
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(TableError::Version(path.to_path_buf(), version));
        }
        if crc32fast::hash(&b[..HEADER_CRC_AT]) != u32_at(HEADER_CRC_AT) {
            return Err(TableError::HeaderChecksum(path.to_path_buf()));
        }
        let bad = |what: &str| TableError::Mismatch(path.to_path_buf(), what.to_string());
        let kind = FileKind::ALL
            .into_iter()
            .find(|&k| k as u8 == b[10])
            .ok_or_else(|| bad("unknown file kind"))?;
        let variant = Variant::from_game_type(b[11]).ok_or_else(|| bad("unknown variant"))?;
        if b[16] != INDEX_SCHEME {
            return Err(bad("unknown index scheme"));
        }
        let header = Header {
            kind,
            variant,
            material: Material::new(b[12], b[13], b[14], b[15]),
            value_bits: b[17],
            max_dtw: u16_at(18),
            block_positions: u32_at(20),
            positions: u64_at(24),
            blocks: u32_at(32),
            table_crc: u32_at(36),
            wins: u64_at(40),
            draws: u64_at(48),
            losses: u64_at(56),
            unused: u64_at(64),
            rule_set: b[72],
            drawn_by_rules: u64_at(73),
            searched: match b[81] {
                0 => false,
                1 => true,
                _ => return Err(bad("byte 81 (searched) is neither 0 nor 1")),
            },
            forced_searched: match b[82] {
                0 => false,
                1 => true,
                _ => {
                    return Err(bad(
                        "byte 82 (forced exchanges searched) is neither 0 nor 1",
                    ));
                }
            },
            even_rows_searched: match b[83] {
                0 => false,
                1 => true,
                _ => return Err(bad("byte 83 (even rows searched) is neither 0 nor 1")),
            },
            ones_searched: match b[86] {
                0 => false,
                1 => true,
                _ => return Err(bad("byte 86 (distances of 1 unread) is neither 0 nor 1")),
            },
            rules_derived: match b[84] {
                0 => RulesDerived::None,
                1 => RulesDerived::All,
                2 => RulesDerived::Marked,
                _ => return Err(bad("byte 84 (rules derived) is not 0, 1 or 2")),
            },
            stats: match (version, b[85], kind) {
                (..VERSION, _, _) | (_, 0, _) => None,
                (_, 1, FileKind::Wdl) => Some(Stats::Captures {
                    wins: u64_at(STATS_AT),
                    draws: u64_at(STATS_AT + 8),
                    losses: u64_at(STATS_AT + 16),
                }),
                (_, 1, FileKind::Dtw | FileKind::Dtc) => Some(Stats::LongestAt(
                    Some(u64_at(STATS_AT)).filter(|&at| at != NO_INDEX),
                )),
                _ => {
                    return Err(bad(
                        "byte 85 (statistics) is neither 0 nor 1, or 1 in a rules file",
                    ));
                }
            },
        };
        Ok((header, version))
    }

    /// Checks every field against what the file is expected to be (its kind, variant and
    /// slice, from its name) and what its length allows: the position count against the
    /// slice's index size, the value bits against the kind and the longest distance, the
    /// block size, the block count against the positions, the counts adding up to the
    /// positions, and the block table fitting in the file. Each mismatch names its field.
    pub fn check(
        &self,
        path: &Path,
        kind: FileKind,
        variant: Variant,
        material: Material,
        file_len: u64,
    ) -> Result<(), TableError> {
        let bad = |field: &str, what: String| {
            TableError::Mismatch(path.to_path_buf(), format!("header field {field}: {what}"))
        };
        if self.kind != kind {
            return Err(bad(
                "kind (byte 10)",
                format!("holds {:?} values, expected {kind:?}", self.kind),
            ));
        }
        if self.variant != variant {
            return Err(bad(
                "variant (byte 11)",
                format!("a {} table, expected {variant}", self.variant),
            ));
        }
        if self.material != material {
            return Err(bad(
                "material (bytes 12-15)",
                format!("slice {}, expected {material}", self.material),
            ));
        }
        let size = with_rules!(variant, R => SliceIndex::<R>::new(material).size());
        if self.positions != size {
            return Err(bad(
                "positions (bytes 24-31)",
                format!(
                    "{}, but slice {material} has {size} indices",
                    self.positions
                ),
            ));
        }
        let expected = match kind {
            FileKind::Wdl => 2,
            FileKind::Dtw | FileKind::Dtc | FileKind::Rules if self.max_dtw <= u8::MAX as u16 => 8,
            FileKind::Dtw | FileKind::Dtc | FileKind::Rules => 16,
        };
        let bits_ok = self.value_bits == expected;
        if !bits_ok {
            return Err(bad(
                "value bits (byte 17)",
                format!(
                    "{} for a {kind:?} file whose longest distance is {} (expected {})",
                    self.value_bits, self.max_dtw, expected
                ),
            ));
        }
        let bp = self.block_positions;
        if bp == 0 || !bp.is_multiple_of(8) || self.block_bytes() > MAX_BLOCK_BYTES {
            return Err(bad(
                "positions per block (bytes 20-23)",
                format!(
                    "{bp}: not a multiple of 8 from 8 to {} bytes a block",
                    MAX_BLOCK_BYTES
                ),
            ));
        }
        let holds_outcomes = matches!(kind, FileKind::Wdl | FileKind::Dtw | FileKind::Dtc);
        if self.searched && !holds_outcomes {
            return Err(bad(
                "searched (byte 81)",
                format!("set in a {kind:?} file (only win/draw/loss and distance files)"),
            ));
        }
        if self.forced_searched && (self.searched || !holds_outcomes) {
            return Err(bad(
                "forced exchanges searched (byte 82)",
                "set in a file that holds no values or is not a win/draw/loss or distance file"
                    .into(),
            ));
        }
        if self.even_rows_searched
            && (self.searched
                || !matches!(kind, FileKind::Dtw | FileKind::Dtc)
                || !with_rules!(variant, R => crate::tablebase::unread::rows_alternate::<R>()))
        {
            return Err(bad(
                "even rows searched (byte 83)",
                format!(
                    "set in a file that holds no values, is not a distance file, or is of \
                     {variant}, where a quiet move may keep its rows' sum's parity"
                ),
            ));
        }
        if self.ones_searched && (kind != FileKind::Dtc || !self.forced_searched) {
            return Err(bad(
                "distances of 1 unread (byte 86)",
                "set in a file that is not a distance-to-conversion file leaving its forced \
                 exchanges unread"
                    .into(),
            ));
        }
        let derives = self.rules_derived != RulesDerived::None;
        if derives && (kind != FileKind::Rules || self.derived_limit().is_none()) {
            return Err(bad(
                "rules derived (byte 84)",
                format!(
                    "set in a {kind:?} file whose slice is not governed by a quiet count alone \
                     (only rules files of such slices)"
                ),
            ));
        }
        if self.rules_derived == RulesDerived::Marked && self.max_dtw != self.derived_mark() {
            return Err(bad(
                "largest code (bytes 18-19)",
                format!(
                    "{}, but a rules file with marks (byte 84 = 2) has its mark, {}",
                    self.max_dtw,
                    self.derived_mark()
                ),
            ));
        }
        let holds_none = self.searched || self.rules_derived == RulesDerived::All;
        let blocks = if holds_none {
            0
        } else {
            self.positions.div_ceil(bp as u64)
        };
        if self.blocks as u64 != blocks {
            return Err(bad(
                "blocks (bytes 32-35)",
                match holds_none {
                    true => format!("{}, but a file without values holds none", self.blocks),
                    false => format!(
                        "{}, but {} positions in blocks of {bp} make {blocks}",
                        self.blocks, self.positions
                    ),
                },
            ));
        }
        let counted = [self.wins, self.draws, self.losses, self.unused]
            .into_iter()
            .try_fold(0u64, u64::checked_add);
        if counted != Some(self.positions) {
            return Err(bad(
                "counts (bytes 40-71)",
                format!(
                    "wins {}, draws {}, losses {} and unused {} do not add up to the {} positions",
                    self.wins, self.draws, self.losses, self.unused, self.positions
                ),
            ));
        }
        self.check_stats()
            .map_err(|what| bad("statistics (bytes 85-111)", what))?;
        if (HEADER_SIZE + self.table_size()) as u64 > file_len {
            return Err(TableError::Truncated(path.to_path_buf()));
        }
        Ok(())
    }

    /// Checks the statistics against the kind and the counts: capture positions no more
    /// than the unused indices, an example index inside the slice, none only where the
    /// longest distance is 0.
    fn check_stats(&self) -> Result<(), String> {
        match (self.stats, self.kind) {
            (None, _) => Ok(()),
            (
                Some(Stats::Captures {
                    wins,
                    draws,
                    losses,
                }),
                FileKind::Wdl,
            ) => {
                let captures = [wins, draws, losses]
                    .into_iter()
                    .try_fold(0u64, u64::checked_add);
                match captures.is_some_and(|c| c <= self.unused) {
                    true => Ok(()),
                    false => Err(format!(
                        "capture positions won {wins}, drawn {draws} and lost {losses}: more \
                         than the {} unused indices",
                        self.unused
                    )),
                }
            }
            (Some(Stats::LongestAt(Some(at))), FileKind::Dtw | FileKind::Dtc) => {
                match at < self.positions {
                    true => Ok(()),
                    false => Err(format!(
                        "the longest distance at index {at}, past the {} positions",
                        self.positions
                    )),
                }
            }
            (Some(Stats::LongestAt(None)), FileKind::Dtw | FileKind::Dtc) => match self.max_dtw {
                0 => Ok(()),
                longest => Err(format!(
                    "no position at the longest distance, which is {longest}"
                )),
            },
            (Some(stats), kind) => Err(format!("{stats:?} in a {kind:?} file")),
        }
    }

    /// The plies of the quiet count that governs the slice alone under the file's rule set
    /// (byte 72), `None` where another count (or none) governs it or the rule set is not
    /// one of the variant's: where a file's rule results may be derived
    /// ([`Header::rules_derived`]).
    pub fn derived_limit(&self) -> Option<u32> {
        let [a, b] = self.material.sides();
        match RuleSet::numbered(self.variant, self.rule_set)?.governing(a, b) {
            Governing::Quiet(limit) => limit,
            _ => None,
        }
    }

    /// Where the file derives some or all of its rule results ([`Header::rules_derived`]),
    /// the plies of the quiet count they are derived under.
    pub fn derived_rules(&self) -> Option<u32> {
        match self.rules_derived {
            RulesDerived::None => None,
            _ => self.derived_limit(),
        }
    }

    /// The value that marks a derived result in a rules file with marks: the largest its
    /// value bits hold.
    pub fn derived_mark(&self) -> u16 {
        ((1u32 << self.value_bits.min(16)) - 1) as u16
    }

    /// What the file says of a position whose stored value `read` reads (`read` is not
    /// called where the file holds no values).
    #[inline]
    pub fn rule_value<E>(&self, read: impl FnOnce() -> Result<u16, E>) -> Result<RuleValue, E> {
        let limit = self.derived_rules();
        if let (RulesDerived::All, Some(limit)) = (self.rules_derived, limit) {
            return Ok(RuleValue::Derived(limit));
        }
        let v = read()?;
        Ok(match limit {
            Some(limit) if v == self.derived_mark() => RuleValue::Derived(limit),
            _ => RuleValue::Code(v),
        })
    }

    /// Positions held by block `b` (the last one may hold fewer).
    pub fn positions_in_block(&self, b: u32) -> u64 {
        let bp = self.block_positions as u64;
        bp.min(self.positions.saturating_sub(b as u64 * bp))
    }

    /// Decompressed bytes of block `b`: its positions' values, rounded up to a byte.
    pub fn block_len(&self, b: u32) -> usize {
        (self.positions_in_block(b) as usize * self.value_bits as usize).div_ceil(8)
    }

    /// Raw (decompressed) bytes of a full block.
    pub fn block_bytes(&self) -> usize {
        self.block_positions as usize * self.value_bits as usize / 8
    }

    /// Size of the block table: start offsets (blocks + 1), then block checksums.
    pub fn table_size(&self) -> usize {
        (self.blocks as usize + 1) * 8 + self.blocks as usize * 4
    }
}

/// Packs one block of values: 2-bit WDL codes (four a byte, lowest bits first) or
/// distances (1 or 2 bytes each, little-endian).
pub fn pack(values: &[u16], value_bits: u8) -> Vec<u8> {
    match value_bits {
        2 => {
            let mut out = vec![0u8; values.len().div_ceil(4)];
            for (i, &v) in values.iter().enumerate() {
                out[i / 4] |= (v as u8 & 3) << (2 * (i % 4));
            }
            out
        }
        8 => values.iter().map(|&v| v as u8).collect(),
        _ => le_bytes(values).into_owned(),
    }
}

/// Reads value `i` of a decompressed block.
#[inline(always)]
pub fn unpack(block: &[u8], value_bits: u8, i: usize) -> u16 {
    match value_bits {
        2 => (block[i / 4] >> (2 * (i % 4)) & 3) as u16,
        8 => block[i] as u16,
        _ => u16::from_le_bytes([block[2 * i], block[2 * i + 1]]),
    }
}

/// The whole file: header, block table, blocks (`frames`, the zstd frame of each block in
/// order, stored with its number: [`stored_block`]).
pub fn assemble(mut header: Header, frames: &[Vec<u8>]) -> Vec<u8> {
    header.blocks = frames.len() as u32;
    let mut table = Vec::with_capacity(header.table_size());
    let mut offset = (HEADER_SIZE + header.table_size()) as u64;
    for frame in frames {
        table.extend_from_slice(&offset.to_le_bytes());
        offset += (BLOCK_NUMBER_BYTES + frame.len()) as u64;
    }
    table.extend_from_slice(&offset.to_le_bytes());
    for (b, frame) in (0..).zip(frames) {
        table.extend_from_slice(&block_crc(b, frame).to_le_bytes());
    }
    header.table_crc = crc32fast::hash(&table);
    let mut out = Vec::with_capacity(offset as usize);
    out.extend_from_slice(&header.to_bytes());
    out.extend_from_slice(&table);
    for (b, frame) in (0..).zip(frames) {
        out.extend_from_slice(&stored_block(b, frame));
    }
    out
}
