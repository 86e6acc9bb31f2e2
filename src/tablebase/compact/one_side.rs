//! One side to move (Kingsrow's): of a slice and its twin (the same material, the other side
//! to move), only the side whose win/draw/loss file is smaller keeps its win/draw/loss and
//! distance files (to the end, to conversion); the other's become searched files
//! ([`Header::searched`]: a header and no values), and a probe answers its positions by a
//! search of one ply into the twin. Its rules file stays. Win/draw/loss files take about
//! half the bytes (benches/notes/compression.md, "Compression study"). Then
//! [`leave_unread`] re-encodes the files that hold values without their forced exchanges
//! ([`forced_exchange`]), which a probe answers by a search of one ply ending in capture
//! searches (Kingsrow leaves every position with a capture threat to the engine's search;
//! these are the ones a search of one ply settles without coming back to the slice pair);
//! the distance-to-conversion files without their distances of 1
//! ([`converts_at_once`](crate::tablebase::converts_at_once)),
//! and where every quiet move takes one piece one row ([`rows_alternate`]: English,
//! Italian), those of the kept slices (and if asked, their distance-to-the-end files)
//! without the positions whose side to move's rows add up to an even number
//! ([`even_rows`]), which a probe answers by a search of two plies through the twin: about
//! half the distance bytes again, for distance probes several times slower
//! (benches/notes/compression.md, "Distances on even rows", "Distances to conversion").
//!
//! Safe to run again (pairs done are skipped) and to stop at any point: each file is
//! written to a temporary name and renamed into place.

use std::fs;
use std::path::Path;

use rayon::prelude::*;

use crate::Variant;
use crate::rules::{Color, Rules, may_capture};
use crate::tablebase::format::TableFile;
use crate::tablebase::format::encode::{compress, fill_runs};
use crate::tablebase::format::{FileKind, Header, TableError, assemble, pack, unpack};
use crate::tablebase::index::SliceIndex;
use crate::tablebase::index::material::Material;
use crate::tablebase::store::Store;
use crate::tablebase::unread::{even_rows, forced_exchange, rows_alternate};
use crate::with_rules;

/// The files one side to move kept of a slice pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OneSide {
    /// The slice whose files hold the values.
    pub kept: Material,
    /// The slice answered by a search of one ply into `kept`.
    pub searched: Material,
    /// Bytes of the pair's win/draw/loss and distance files before.
    pub bytes_before: u64,
    /// And after.
    pub bytes_after: u64,
}

/// The files made searched by one side to move: the win/draw/loss file first.
const KINDS: [FileKind; 3] = [FileKind::Wdl, FileKind::Dtw, FileKind::Dtc];

/// Keeps one side to move of every slice pair among `materials` (the slices of `variant`
/// under `dir`) with at least `min_pieces` pieces and both sides present; a slice that is
/// its own twin keeps its files. Returns what it did to each pair it changed.
pub fn one_side(
    dir: &Path,
    variant: Variant,
    materials: &[Material],
    min_pieces: u32,
) -> Result<Vec<OneSide>, TableError> {
    let mut done = Vec::new();
    for &m in materials {
        let twin = m.flipped();
        if m.pieces() < min_pieces || twin <= m || !materials.contains(&twin) {
            continue;
        }
        // The win/draw/loss file first; the distance file where the slice has one (a build
        // without `--dtw` has none).
        let side = |s: Material| {
            KINDS
                .iter()
                .filter_map(|&kind| match open(dir, variant, s, kind) {
                    Err(TableError::Missing(_)) if kind == FileKind::Dtw => None,
                    file => Some(file),
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let (mine, theirs) = (side(m)?, side(twin)?);
        let searched = |f: &[TableFile]| f.iter().any(|t| t.header().searched);
        // A pair begun by an earlier run is finished; else the side with the larger
        // win/draw/loss file is searched.
        let ((dropped, drop), (kept, keep)) = match (searched(&mine), searched(&theirs)) {
            (true, true) => {
                return Err(TableError::Mismatch(
                    mine[0].path().to_path_buf(),
                    format!("both {m} and its twin {twin} are searched: nothing holds values"),
                ));
            }
            (true, false) => ((m, &mine), (twin, &theirs)),
            (false, true) => ((twin, &theirs), (m, &mine)),
            (false, false) if file_bytes(&mine[0])? >= file_bytes(&theirs[0])? => {
                ((m, &mine), (twin, &theirs))
            }
            (false, false) => ((twin, &theirs), (m, &mine)),
        };
        if drop.iter().all(|t| t.header().searched) {
            continue;
        }
        let pair_bytes =
            || -> Result<u64, TableError> { drop.iter().chain(keep.iter()).map(file_bytes).sum() };
        let before = pair_bytes()?;
        for table in drop.iter().filter(|t| !t.header().searched) {
            write_searched(table)?;
        }
        let after = pair_bytes()?;
        done.push(OneSide {
            kept,
            searched: dropped,
            bytes_before: before,
            bytes_after: after,
        });
    }
    Ok(done)
}

/// The bytes of `table`'s file as it is now.
fn file_bytes(table: &TableFile) -> Result<u64, TableError> {
    fs::metadata(table.path())
        .map(|m| m.len())
        .map_err(|e| TableError::Io(table.path().to_path_buf(), e))
}

/// Replaces `table`'s file by a searched file with its header: the same slice, kind and
/// counts, no values.
fn write_searched(table: &TableFile) -> Result<(), TableError> {
    let header = Header {
        searched: true,
        forced_searched: false,
        even_rows_searched: false,
        ones_searched: false,
        ..table.header().clone()
    };
    write_file(table.path(), &assemble(header, &[]))
}

/// Writes `bytes` as the whole of `path` (a temporary file renamed into place).
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), TableError> {
    crate::files::write_atomically(path, bytes).map_err(|e| TableError::Io(path.to_path_buf(), e))
}

/// Opens and checks the file of slice `m` of `variant` and of `kind` under `dir`.
fn open(
    dir: &Path,
    variant: Variant,
    m: Material,
    kind: FileKind,
) -> Result<TableFile, TableError> {
    TableFile::open(&Store::path_in(dir, variant, m, kind), kind, variant, m, 0)
}

/// What [`leave_unread`] did to a slice's win/draw/loss and distance files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftUnread {
    /// The slice.
    pub material: Material,
    /// Its forced exchanges ([`forced_exchange`]), whose values the files no longer hold.
    pub forced: u64,
    /// Its other positions without a capture whose rows add up to an even number
    /// ([`even_rows`]), whose distances the distance file no longer holds (0 where the
    /// variant's rows do not alternate or the twin holds values).
    pub even_rows: u64,
    /// Bytes of the files re-encoded before.
    pub bytes_before: u64,
    /// And after.
    pub bytes_after: u64,
}

/// zstd level of the re-encoded win/draw/loss blocks: as fast to decode as the generator's
/// level 12, 9 % smaller (benches/notes/compression.md, "Compression study").
const WDL_LEVEL: i32 = 19;
/// zstd level of the re-encoded distance blocks: 8 % fewer bytes than the generator's level
/// 6, decoded about as fast (benches/notes/compression.md, "Distances on even rows").
const DTW_LEVEL: i32 = 19;

/// Re-encodes the win/draw/loss and distance files of every slice among `materials` (the
/// slices of `variant` under `dir`) with at least `min_pieces` pieces that hold values,
/// leaving unread (a meaningless value, the one before it in its block, as for capture
/// positions) their forced exchanges ([`Header::forced_searched`]) and, in the distance to
/// conversion file (with `dtw_even_rows`, the distance to the end file too) of a slice
/// whose twin is searched, where the variant's rows alternate, the positions on even rows
/// ([`Header::even_rows_searched`]). Files that already leave unread what they should are
/// skipped (what is unread stays so). Returns what it did to each slice.
pub fn leave_unread(
    dir: &Path,
    variant: Variant,
    materials: &[Material],
    min_pieces: u32,
    dtw_even_rows: bool,
) -> Result<Vec<LeftUnread>, TableError> {
    let alternate = with_rules!(variant, R => rows_alternate::<R>());
    let mut done = Vec::new();
    for &m in materials.iter().filter(|m| m.pieces() >= min_pieces) {
        let mut report = LeftUnread {
            material: m,
            forced: 0,
            even_rows: 0,
            bytes_before: 0,
            bytes_after: 0,
        };
        for (kind, level) in [
            (FileKind::Wdl, WDL_LEVEL),
            (FileKind::Dtw, DTW_LEVEL),
            (FileKind::Dtc, DTW_LEVEL),
        ] {
            let table = match open(dir, variant, m, kind) {
                Err(TableError::Missing(_)) if kind == FileKind::Dtw => continue,
                table => table?,
            };
            let h = table.header();
            if h.searched {
                continue;
            }
            let twin = m.flipped();
            let even_kind = match kind {
                FileKind::Dtw => dtw_even_rows,
                _ => kind == FileKind::Dtc,
            };
            let even = h.even_rows_searched
                || (even_kind
                    && alternate
                    && twin != m
                    && materials.contains(&twin)
                    && open(dir, variant, twin, kind)?.header().searched);
            let ones = kind == FileKind::Dtc;
            if h.forced_searched && h.even_rows_searched == even && h.ones_searched == ones {
                continue;
            }
            report.bytes_before += file_bytes(&table)?;
            let unread = Unread { even, ones };
            let (blocks, counts) = with_rules!(variant, R => reencode::<R>(&table, unread, level))?;
            [report.forced, report.even_rows] = counts;
            let header = Header {
                forced_searched: true,
                even_rows_searched: even,
                ones_searched: ones,
                ..h.clone()
            };
            write_file(table.path(), &assemble(header, &blocks))?;
            report.bytes_after += file_bytes(&table)?;
        }
        if report.bytes_before > 0 {
            done.push(report);
        }
    }
    Ok(done)
}

/// What [`reencode`] leaves unread beside forced exchanges.
#[derive(Clone, Copy)]
struct Unread {
    /// Positions on even rows.
    even: bool,
    /// Distances of 1 (a distance-to-conversion file): won or lost positions whose side to
    /// move converts at once, and draws whose meaningless value is 1.
    ones: bool,
}

/// `table`'s blocks with its forced exchanges and what `unread` says (and, as before, its
/// capture positions and indices without a position) filled with the value before them,
/// compressed at `level`; and the numbers of forced exchanges and of other positions on
/// even rows left unread.
fn reencode<R: Rules>(
    table: &TableFile,
    unread: Unread,
    level: i32,
) -> Result<(Vec<Vec<u8>>, [u64; 2]), TableError> {
    let h = table.header();
    let index = SliceIndex::<R>::new(h.material);
    let coded: Vec<(Vec<u8>, [u64; 2])> = (0..h.blocks)
        .into_par_iter()
        .map(|b| {
            let data = table.decode_block(b)?;
            let first = b as u64 * h.block_positions as u64;
            let mut counts = [0; 2];
            let read: Vec<Option<u16>> = (0..h.positions_in_block(b))
                .map(|j| {
                    let frame = index.unrank(first + j)?;
                    let pos = frame.position::<R>();
                    if may_capture(&pos) {
                        return None;
                    }
                    if forced_exchange(&pos) {
                        counts[0] += 1;
                        return None;
                    }
                    if unread.even && even_rows::<R>(frame.mover, Color::White) {
                        counts[1] += 1;
                        return None;
                    }
                    let value = unpack(&data, h.value_bits, j as usize);
                    (!unread.ones || value != 1).then_some(value)
                })
                .collect();
            let values = fill_runs(read.into_iter(), |v| v);
            let coded = compress(&pack(&values, h.value_bits), level);
            Ok((coded, counts))
        })
        .collect::<Result<_, TableError>>()?;
    let counts = coded
        .iter()
        .fold([0, 0], |[f, e], (_, [a, b])| [f + a, e + b]);
    Ok((coded.into_iter().map(|(c, _)| c).collect(), counts))
}
