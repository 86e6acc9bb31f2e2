//! One side to move (Kingsrow's): of a slice and its twin (the same material, the other side
//! to move), only the side whose win/draw/loss file is smaller keeps its win/draw/loss and
//! distance files; the other's become searched files ([`Header::searched`]: a header and no
//! values), and a probe answers its positions by a search of one ply into the twin. Its
//! distance-to-conversion and rules files stay. Win/draw/loss files take about half the
//! bytes (benches/README.md, "Compression study").
//!
//! Safe to run again (pairs done are skipped) and to stop at any point: each file is
//! written to a temporary name and renamed into place.

use std::fs;
use std::io::Write;
use std::path::Path;

use super::format::{FileKind, Header, TableError, assemble};
use super::material::Material;
use super::probe::Tablebase;
use super::table::TableFile;
use crate::Variant;

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

/// The files made searched by one side to move.
const KINDS: [FileKind; 2] = [FileKind::Wdl, FileKind::Dtw];

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
        let side = |s: Material| {
            KINDS
                .iter()
                .map(|&kind| {
                    let path = Tablebase::path_in(dir, variant, s, kind);
                    TableFile::open(&path, kind, variant, s, 0)
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
/// counts, no values. Written to a temporary name, synced, then renamed over the file (and
/// the directory synced).
fn write_searched(table: &TableFile) -> Result<(), TableError> {
    let path = table.path();
    let io = |e: std::io::Error| TableError::Io(path.to_path_buf(), e);
    let header = Header {
        searched: true,
        ..table.header().clone()
    };
    let bytes = assemble(header, &[]);
    let tmp = path.with_extension(format!(
        "{}.tmp",
        path.extension().and_then(|x| x.to_str()).unwrap_or("table")
    ));
    let mut file = fs::File::create(&tmp).map_err(io)?;
    file.write_all(&bytes).map_err(io)?;
    file.sync_all().map_err(io)?;
    fs::rename(&tmp, path).map_err(io)?;
    match path.parent() {
        Some(dir) => fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io),
        None => Ok(()),
    }
}
