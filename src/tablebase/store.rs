//! Atomic file writes: a file is written to `NAME.tmp` beside its final name, synced, and
//! only then renamed into place (and the directory synced), so that a file with its final
//! name is always complete. Whatever fails on the way (a full disk, a check of the written
//! file, a kill between the steps aside) removes the temporary file.
//!
//! ```
//! use damka::tablebase::store::{Pending, commit_all};
//! let dir = std::env::temp_dir().join(format!("damka-store-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let pending = Pending::write(&dir.join("a.wdl"), b"bytes").unwrap();
//! assert!(dir.join("a.wdl.tmp").is_file() && !dir.join("a.wdl").exists());
//! commit_all(vec![pending]).unwrap();
//! assert_eq!(std::fs::read(dir.join("a.wdl")).unwrap(), b"bytes");
//! assert!(!dir.join("a.wdl.tmp").exists());
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A write that failed, with the file it was about.
#[derive(Debug)]
pub struct StoreError {
    /// The file (the temporary name while writing, the final one when renaming).
    pub path: PathBuf,
    /// What went wrong.
    pub error: io::Error,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for StoreError {}

/// The temporary name of `path`: `path` with `.tmp` appended (`2101.wdl.tmp`).
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(".tmp");
    PathBuf::from(name)
}

/// A file written and synced under its temporary name, waiting to be renamed into place by
/// [`Pending::commit`] or [`commit_all`]. Dropped without that, it removes the temporary
/// file: a build that fails after writing leaves nothing behind.
#[derive(Debug)]
pub struct Pending {
    tmp: PathBuf,
    path: PathBuf,
}

impl Pending {
    /// Writes `data` to the temporary name of `path` and syncs it.
    pub fn write(path: &Path, data: &[u8]) -> Result<Pending, StoreError> {
        Pending::write_with(path, |out| out.write_all(data))
    }

    /// Writes the temporary file of `path` with `fill` (through a buffer), then flushes and
    /// syncs it. On any error, `fill`'s included, the temporary file is removed.
    pub fn write_with(
        path: &Path,
        fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
    ) -> Result<Pending, StoreError> {
        let pending = Pending {
            tmp: tmp_path(path),
            path: path.to_path_buf(),
        };
        let written = File::create(&pending.tmp).and_then(|file| {
            let mut out = BufWriter::new(file);
            fill(&mut out)?;
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()
        });
        match written {
            Ok(()) => Ok(pending),
            // Dropping `pending` removes what was written.
            Err(error) => Err(StoreError {
                path: pending.tmp.clone(),
                error,
            }),
        }
    }

    /// The temporary file, to check what was written before committing.
    pub fn tmp(&self) -> &Path {
        &self.tmp
    }

    /// The final name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the file into place and syncs its directory.
    pub fn commit(self) -> Result<(), StoreError> {
        commit_all(vec![self])
    }

    /// Renames the file into place, without syncing the directory.
    fn rename(self) -> Result<PathBuf, StoreError> {
        match fs::rename(&self.tmp, &self.path) {
            Ok(()) => {
                let path = self.path.clone();
                // Renamed: nothing left to remove.
                std::mem::forget(self);
                Ok(path)
            }
            Err(error) => Err(StoreError {
                path: self.path.clone(),
                error,
            }),
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.tmp);
    }
}

/// Renames every file into place, in order, then syncs each directory they are in once. When
/// a rename fails, the files not yet renamed are removed and the error returned.
pub fn commit_all(files: Vec<Pending>) -> Result<(), StoreError> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for file in files {
        let path = file.rename()?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    for dir in dirs {
        File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(|error| StoreError { path: dir, error })?;
    }
    Ok(())
}

/// Writes `data` to `path` atomically: to the temporary name, synced, renamed, directory
/// synced.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<(), StoreError> {
    Pending::write(path, data)?.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("damka-store-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut out: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_full_disk_in_the_middle_leaves_no_tmp_file() {
        let dir = scratch("full");
        let path = dir.join("2101.wdl");
        let err = Pending::write_with(&path, |out| {
            out.write_all(&[7; 100_000])?;
            Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "no space left on device",
            ))
        })
        .unwrap_err();
        assert_eq!(err.path, dir.join("2101.wdl.tmp"));
        assert!(err.to_string().contains("no space left"), "{err}");
        assert!(names(&dir).is_empty(), "{:?}", names(&dir));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_check_before_commit_removes_the_tmp_file() {
        let dir = scratch("check");
        let path = dir.join("a.dtw");
        let pending = Pending::write(&path, b"written").unwrap();
        assert_eq!(fs::read(pending.tmp()).unwrap(), b"written");
        assert_eq!(pending.path(), path);
        drop(pending);
        assert!(names(&dir).is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_rename_removes_the_files_left() {
        let dir = scratch("rename");
        let first = Pending::write(&dir.join("a.wdl"), b"a").unwrap();
        // A directory where the second file should go: its rename fails.
        fs::create_dir_all(dir.join("b.wdl/inside")).unwrap();
        let second = Pending::write(&dir.join("b.wdl"), b"b").unwrap();
        let third = Pending::write(&dir.join("c.wdl"), b"c").unwrap();
        let err = commit_all(vec![first, second, third]).unwrap_err();
        assert_eq!(err.path, dir.join("b.wdl"));
        assert_eq!(names(&dir), ["a.wdl", "b.wdl"]);
        assert_eq!(fs::read(dir.join("a.wdl")).unwrap(), b"a");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_atomic_replaces_the_old_file_whole() {
        let dir = scratch("replace");
        let path = dir.join("state");
        write_atomic(&path, b"old contents").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(names(&dir), ["state"]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
