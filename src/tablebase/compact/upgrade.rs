//! Converting table files of older format versions to the current one ([`upgrade`]).

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;

use crate::Variant;
use crate::files::AtomicFile;
use crate::tablebase::format::{FileKind, Header, TableError, TableFile, VERSION, assemble};
use crate::tablebase::index::material::Material;
use crate::tablebase::store::Store;

/// A file [`upgrade`] converted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upgraded {
    /// The slice.
    pub material: Material,
    /// The file's kind.
    pub kind: FileKind,
    /// The version it had.
    pub from: u16,
    /// Its bytes before.
    pub bytes_before: u64,
    /// And after.
    pub bytes_after: u64,
}

/// Converts every file of the slices `materials` of `variant` under `dir` whose format
/// version is older than [`VERSION`] (from [`crate::tablebase::format::OLDEST_VERSION`]):
/// opens it by its version's rules and checks every block (checksum, decoding, values),
/// then writes it as [`VERSION`] with the same zstd frames, each block stored with its
/// number, and a header that says it holds no statistics (only a build finds them). The new
/// file is written to a temporary name, checked whole, and renamed into place. Files of the
/// current version are left as they are; the first file that fails a check stops the
/// conversion with its error, that file and those after it unchanged.
pub fn upgrade(
    dir: &Path,
    variant: Variant,
    materials: &[Material],
) -> Result<Vec<Upgraded>, TableError> {
    let mut done = Vec::new();
    for &m in materials {
        for kind in FileKind::ALL {
            let path = Store::path_in(dir, variant, m, kind);
            if !path.is_file() {
                continue;
            }
            let old = TableFile::open_to_convert(&path, kind, variant, m)?;
            if old.version() == VERSION {
                continue;
            }
            let frames: Vec<Vec<u8>> = (0..old.header().blocks)
                .into_par_iter()
                .map(|b| {
                    old.decode_block(b)?;
                    old.with_frame(b, <[u8]>::to_vec)
                })
                .collect::<Result<_, TableError>>()?;
            let header = Header {
                stats: None,
                ..old.header().clone()
            };
            let bytes_before = std::fs::metadata(&path)
                .map_err(|e| TableError::Io(path.clone(), e))?
                .len();
            let bytes = assemble(header, &frames);
            write_checked(&path, &bytes, (kind, variant, m))?;
            done.push(Upgraded {
                material: m,
                kind,
                from: old.version(),
                bytes_before,
                bytes_after: bytes.len() as u64,
            });
        }
    }
    Ok(done)
}

/// Writes `bytes` to a temporary file next to `path`, opens it as the table `expected`
/// (kind, variant, slice) and checks every block, and only then renames it to `path`.
fn write_checked(
    path: &Path,
    bytes: &[u8],
    (kind, variant, m): (FileKind, Variant, Material),
) -> Result<(), TableError> {
    let io = |e| TableError::Io(path.to_path_buf(), e);
    let mut file = AtomicFile::create(path).map_err(io)?;
    file.write_all(bytes).map_err(io)?;
    file.flush().map_err(io)?;
    TableFile::open(file.temp_path(), kind, variant, m, 0)?.check_blocks()?;
    file.commit().map_err(io)
}
