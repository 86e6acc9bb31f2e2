//! Where table files come from: the operating system's files ([`Os`]), or files held in
//! memory ([`Memory`], for tests and fuzzing), behind one small trait ([`Filesystem`]).

pub use crate::files::{LockMode, LockedFile};

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// A file opened for reading.
#[derive(Debug)]
pub enum Opened {
    /// A file of the operating system: read with positioned reads or mapped.
    File(File),
    /// A file's whole content, already in memory.
    Bytes(Arc<[u8]>),
}

/// The files a tables directory is read from and written to: what the store and the table
/// reader need of a filesystem, and no more.
pub trait Filesystem: fmt::Debug + Send + Sync {
    /// Opens `path` for reading; a missing file is an error of kind `NotFound`.
    fn open(&self, path: &Path) -> io::Result<Opened>;

    /// The names of the entries of directory `dir`, in no order; a missing directory is an
    /// error of kind `NotFound`.
    fn names(&self, dir: &Path) -> io::Result<Vec<String>>;

    /// Whether `path` is a directory.
    fn is_dir(&self, path: &Path) -> bool;

    /// Whether `path` is a file.
    fn is_file(&self, path: &Path) -> bool;

    /// Writes `bytes` as the whole of `path`, which then holds either its old content or
    /// the new one, never part of it (see [`crate::files::write_atomically`]).
    fn write_atomically(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;

    /// Opens `path` (created empty if missing) and locks it in `mode` without waiting, as
    /// [`LockedFile::try_lock`]: `Ok(None)` where another process holds it; an error of
    /// kind `Unsupported` where the filesystem takes no locks.
    fn try_lock(&self, path: &Path, mode: LockMode) -> io::Result<Option<LockedFile>>;
}

/// The operating system's files.
#[derive(Clone, Copy, Debug, Default)]
pub struct Os;

impl Filesystem for Os {
    fn open(&self, path: &Path) -> io::Result<Opened> {
        File::open(path).map(Opened::File)
    }

    fn names(&self, dir: &Path) -> io::Result<Vec<String>> {
        Ok(std::fs::read_dir(dir)?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect())
    }

    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }

    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn write_atomically(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        crate::files::write_atomically(path, bytes)
    }

    fn try_lock(&self, path: &Path, mode: LockMode) -> io::Result<Option<LockedFile>> {
        LockedFile::try_lock(path, mode)
    }
}

/// Files held in memory, by path: a directory exists where a file lies below it.
#[derive(Debug, Default)]
pub struct Memory {
    files: RwLock<BTreeMap<PathBuf, Arc<[u8]>>>,
}

impl Memory {
    /// An empty filesystem.
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Puts `bytes` at `path`, replacing what was there.
    pub fn insert(&self, path: impl Into<PathBuf>, bytes: impl Into<Arc<[u8]>>) {
        self.files
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path.into(), bytes.into());
    }

    /// The bytes at `path`, if a file is there.
    pub fn get(&self, path: &Path) -> Option<Arc<[u8]>> {
        let files = self.files.read().unwrap_or_else(|e| e.into_inner());
        files.get(path).cloned()
    }
}

impl Filesystem for Memory {
    fn open(&self, path: &Path) -> io::Result<Opened> {
        self.get(path)
            .map(Opened::Bytes)
            .ok_or_else(|| io::Error::new(ErrorKind::NotFound, "no such file in memory"))
    }

    fn names(&self, dir: &Path) -> io::Result<Vec<String>> {
        let files = self.files.read().unwrap_or_else(|e| e.into_inner());
        let mut names: Vec<String> = files
            .keys()
            .filter_map(|p| p.strip_prefix(dir).ok()?.components().next())
            .filter_map(|c| c.as_os_str().to_str().map(str::to_owned))
            .collect();
        names.dedup();
        match names.is_empty() {
            true => Err(io::Error::new(
                ErrorKind::NotFound,
                "no such directory in memory",
            )),
            false => Ok(names),
        }
    }

    fn is_dir(&self, path: &Path) -> bool {
        let files = self.files.read().unwrap_or_else(|e| e.into_inner());
        files.keys().any(|p| p != path && p.starts_with(path))
    }

    fn is_file(&self, path: &Path) -> bool {
        self.get(path).is_some()
    }

    fn write_atomically(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.insert(path, bytes);
        Ok(())
    }

    /// Files in memory belong to one process and take no locks (nothing builds tables into
    /// memory).
    fn try_lock(&self, _path: &Path, _mode: LockMode) -> io::Result<Option<LockedFile>> {
        Err(io::Error::new(
            ErrorKind::Unsupported,
            "files in memory take no locks",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_lists_directories_and_reads_files_back() {
        let fs = Memory::new();
        fs.insert("t/english/0101.wdl", vec![1u8, 2, 3]);
        fs.insert("t/english/0101.dtw", vec![4u8]);
        fs.insert("t/russian/0200.wdl", vec![5u8]);
        let mut names = fs.names(Path::new("t/english")).expect("a directory");
        names.sort();
        assert_eq!(names, ["0101.dtw", "0101.wdl"]);
        let mut variants = fs.names(Path::new("t")).expect("a directory");
        variants.sort();
        assert_eq!(variants, ["english", "russian"]);
        assert!(fs.is_dir(Path::new("t/russian")));
        assert!(!fs.is_dir(Path::new("t/russian/0200.wdl")));
        assert!(fs.is_file(Path::new("t/russian/0200.wdl")));
        assert!(!fs.is_file(Path::new("t/russian")));
        assert!(!fs.is_dir(Path::new("t/italian")));
        let Ok(Opened::Bytes(bytes)) = fs.open(Path::new("t/english/0101.wdl")) else {
            panic!("the file's bytes");
        };
        assert_eq!(&bytes[..], [1, 2, 3]);
        let missing = fs
            .open(Path::new("t/english/0202.wdl"))
            .expect_err("no such file");
        assert_eq!(missing.kind(), ErrorKind::NotFound);
        assert_eq!(
            fs.names(Path::new("t/italian")).expect_err("none").kind(),
            ErrorKind::NotFound
        );
        fs.write_atomically(Path::new("t/english/0101.wdl"), &[9])
            .expect("written");
        assert_eq!(
            &fs.get(Path::new("t/english/0101.wdl")).expect("there")[..],
            [9]
        );
    }
}
