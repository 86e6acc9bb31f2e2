//! Files written whole or not at all: each is written under a temporary name beside its
//! target (`.NAME.PID.tmp`: hidden, and never shared by two processes), synced, and renamed
//! over the target, then the directory is synced. The one way the project writes a file
//! that a reader may find: tables, rules files, job lists, PDN and report outputs.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The temporary name a file of `target` is written under: `.NAME.PID.tmp` in the same
/// directory, so that the rename stays on one filesystem.
pub fn temporary_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Syncs directory `dir` (`.` for an empty path), so that the renames into it last.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    let dir = match dir.as_os_str().is_empty() {
        true => Path::new("."),
        false => dir,
    };
    File::open(dir)?.sync_all()
}

/// Syncs the directory `path` lies in.
fn sync_parent(path: &Path) -> io::Result<()> {
    sync_dir(path.parent().unwrap_or(Path::new("")))
}

/// A file being written under its [`temporary_path`]: [`AtomicFile::commit`] syncs it and
/// renames it over its target; dropped before, it is removed and the target left as it was.
#[derive(Debug)]
pub struct AtomicFile {
    file: Option<File>,
    temp: PathBuf,
    target: PathBuf,
}

impl AtomicFile {
    /// Starts writing `target` (created, or replaced when committed).
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        let temp = temporary_path(target);
        let file = File::create(&temp)?;
        Ok(AtomicFile {
            file: Some(file),
            temp,
            target: target.to_path_buf(),
        })
    }

    /// The file being written, for positioned writes and seeks.
    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("an uncommitted file is open")
    }

    /// The temporary path being written.
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// The path the file is renamed to.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Syncs the file and renames it over its target, then syncs the directory.
    pub fn commit(mut self) -> io::Result<()> {
        self.file().sync_all()?;
        self.file = None;
        std::fs::rename(&self.temp, &self.target)?;
        sync_parent(&self.target)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file().seek(pos)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Writes `bytes` as the whole of `path` ([`AtomicFile`]), so that `path` holds either its
/// old content or the new one, never part of it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_appears_whole_on_commit_and_not_at_all_before() {
        let dir = std::env::temp_dir().join(format!("damka-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let target = dir.join("out.txt");
        std::fs::write(&target, "old").expect("the old content");
        let mut file = AtomicFile::create(&target).expect("a temporary file");
        let temp = file.temp_path().to_path_buf();
        assert_eq!(temp.parent(), Some(dir.as_path()));
        let name = temp
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        assert!(
            name.starts_with(".out.txt.") && name.ends_with(".tmp"),
            "{name}"
        );
        file.write_all(b"new").expect("written");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "old");
        drop(file);
        assert!(!temp.exists(), "a dropped file leaves no temporary file");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "old");
        write_atomically(&target, b"new").expect("written");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "new");
        assert_eq!(std::fs::read_dir(&dir).expect("the directory").count(), 1);
        std::fs::remove_dir_all(&dir).expect("remove the scratch directory");
    }
}
