//! Files written whole or not at all: each is written under a temporary name beside its
//! target (`.NAME.PID.tmp`: hidden, and never shared by two processes), synced, and renamed
//! over the target, then the directory is synced. The one way the project writes a file
//! that a reader may find: tables, rules files, job lists, PDN and report outputs.
//!
//! The temporary files being written are listed, so that a front end that catches SIGINT or
//! SIGTERM can remove them before the process ends ([`remove_temporaries`]; the library
//! installs no signal handler). Also here: files held under an advisory lock of the
//! operating system ([`LockedFile`]), released however the process ends.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The temporary files of this process's [`AtomicFile`]s not yet committed or dropped, and
/// whether the process is ending (no more may be started then).
struct Live {
    paths: Vec<PathBuf>,
    ending: bool,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    paths: Vec::new(),
    ending: false,
});

fn live() -> MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Takes `temp` off the list of temporary files being written.
fn forget(temp: &Path) {
    let mut live = live();
    if let Some(i) = live.paths.iter().position(|p| p == temp) {
        live.paths.swap_remove(i);
    }
}

/// Removes the temporary file of every [`AtomicFile`] of this process not yet committed or
/// dropped, and makes every later [`AtomicFile::create`] fail; returns how many it removed.
/// For a front end's signal handler to call just before it ends the process (on its own
/// thread: it takes a lock, so it is not for the signal handler itself).
pub fn remove_temporaries() -> usize {
    let mut live = live();
    live.ending = true;
    let mut removed = 0;
    for path in live.paths.drain(..) {
        if std::fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

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
/// A target that exists and is not a regular file (`/dev/null`, a named pipe, a terminal) is
/// written as it is, never renamed over.
#[derive(Debug)]
pub struct AtomicFile {
    file: Option<File>,
    temp: PathBuf,
    target: PathBuf,
    /// Whether the target itself is written (it is not a regular file).
    direct: bool,
}

impl AtomicFile {
    /// Starts writing `target` (created, or replaced when committed).
    /// Fails once [`remove_temporaries`] has run: the process is ending.
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        if std::fs::metadata(target).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            return Ok(AtomicFile {
                file: Some(OpenOptions::new().write(true).open(target)?),
                temp: target.to_path_buf(),
                target: target.to_path_buf(),
                direct: true,
            });
        }
        let temp = temporary_path(target);
        let mut live = live();
        if live.ending {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "the process is ending (interrupted)",
            ));
        }
        let file = File::create(&temp)?;
        live.paths.push(temp.clone());
        drop(live);
        Ok(AtomicFile {
            file: Some(file),
            temp,
            target: target.to_path_buf(),
            direct: false,
        })
    }

    /// The file being written, for positioned writes and seeks.
    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("an uncommitted file is open")
    }

    /// The path being written: the temporary one (the target itself where that is not a
    /// regular file).
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// The path the file is renamed to.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Syncs the file and renames it over its target, then syncs the directory.
    pub fn commit(mut self) -> io::Result<()> {
        if self.direct {
            return self.file().flush();
        }
        self.file().sync_all()?;
        self.file = None;
        let renamed = std::fs::rename(&self.temp, &self.target);
        if renamed.is_err() {
            let _ = std::fs::remove_file(&self.temp);
        }
        forget(&self.temp);
        renamed?;
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
        if self.file.take().is_some() && !self.direct {
            let _ = std::fs::remove_file(&self.temp);
            forget(&self.temp);
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

/// How a [`LockedFile`] is held: by one process alone, or shared with others that hold it
/// shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockMode {
    /// No other process holds the file locked.
    Exclusive,
    /// Other processes may hold it shared too, none exclusive.
    Shared,
}

/// A file held under an advisory lock of the operating system (`flock` on Unix, on NFS too),
/// released when dropped or when the process ends, however it ends.
#[derive(Debug)]
pub struct LockedFile {
    file: File,
    mode: LockMode,
}

impl LockedFile {
    /// Opens `path` (created empty if missing) and locks it in `mode` without waiting:
    /// `Ok(None)` where another process holds it in a mode that excludes this one. A
    /// filesystem that takes no locks is an error of kind `Unsupported`.
    pub fn try_lock(path: &Path, mode: LockMode) -> io::Result<Option<LockedFile>> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let locked = match mode {
            LockMode::Exclusive => file.try_lock(),
            LockMode::Shared => file.try_lock_shared(),
        };
        match locked {
            Ok(()) => Ok(Some(LockedFile { file, mode })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// The mode it is held in.
    pub fn mode(&self) -> LockMode {
        self.mode
    }

    /// The file's text (lossy UTF-8).
    pub fn text(&mut self) -> io::Result<String> {
        let mut bytes = Vec::new();
        self.file.seek(SeekFrom::Start(0))?;
        self.file.read_to_end(&mut bytes)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Replaces the file's text (empty to clear it).
    pub fn set_text(&mut self, text: &str) -> io::Result<()> {
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(text.as_bytes())?;
        self.file.sync_data()
    }
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

    #[test]
    fn an_exclusive_lock_excludes_every_other_a_shared_one_only_exclusive_ones() {
        let dir = std::env::temp_dir().join(format!("damka-locks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let path = dir.join(".lock");
        let mut one = LockedFile::try_lock(&path, LockMode::Exclusive)
            .expect("lockable")
            .expect("free");
        // flock locks belong to the open file: a second open of the same file is another
        // holder, as another process would be.
        for mode in [LockMode::Exclusive, LockMode::Shared] {
            assert!(
                LockedFile::try_lock(&path, mode)
                    .expect("lockable")
                    .is_none()
            );
        }
        one.set_text("pid 1").expect("written");
        assert_eq!(one.text().expect("read"), "pid 1");
        drop(one);
        let a = LockedFile::try_lock(&path, LockMode::Shared).expect("lockable");
        let b = LockedFile::try_lock(&path, LockMode::Shared).expect("lockable");
        assert!(a.is_some() && b.is_some(), "shared holders share");
        let excluded = LockedFile::try_lock(&path, LockMode::Exclusive).expect("lockable");
        assert!(excluded.is_none());
        drop((a, b));
        let mut again = LockedFile::try_lock(&path, LockMode::Exclusive)
            .expect("lockable")
            .expect("free once every holder is gone");
        assert_eq!(again.mode(), LockMode::Exclusive);
        assert_eq!(again.text().expect("read"), "pid 1", "the text stays");
        drop(again);
        std::fs::remove_dir_all(&dir).expect("remove the scratch directory");
    }

    /// `-o /dev/null` or `-o PIPE` writes to it: renaming a file over it would replace it.
    #[cfg(unix)]
    #[test]
    fn a_target_that_is_not_a_regular_file_is_written_as_it_is() {
        use std::os::unix::fs::FileTypeExt;
        let dir = std::env::temp_dir().join(format!("damka-pipe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let pipe = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&pipe).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let reading = {
            let pipe = pipe.clone();
            std::thread::spawn(move || std::fs::read(&pipe).expect("the pipe reads"))
        };
        let mut file = AtomicFile::create(&pipe).expect("the pipe opens");
        assert_eq!(file.temp_path(), pipe);
        file.write_all(b"through").expect("written");
        file.commit().expect("committed");
        assert_eq!(reading.join().expect("the reader"), b"through");
        let kind = std::fs::metadata(&pipe).expect("the pipe").file_type();
        assert!(kind.is_fifo(), "still a pipe");
        assert_eq!(std::fs::read_dir(&dir).expect("the directory").count(), 1);
        std::fs::remove_dir_all(&dir).expect("remove the scratch directory");
    }

    #[test]
    fn temporaries_are_listed_until_committed_or_dropped() {
        let dir = std::env::temp_dir().join(format!("damka-live-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let committed = AtomicFile::create(&dir.join("a")).expect("a temporary file");
        let dropped = AtomicFile::create(&dir.join("b")).expect("a temporary file");
        let temps = [committed.temp_path(), dropped.temp_path()].map(Path::to_path_buf);
        assert!(temps.iter().all(|t| live().paths.contains(t)));
        committed.commit().expect("committed");
        drop(dropped);
        assert!(temps.iter().all(|t| !live().paths.contains(t)));
        std::fs::remove_dir_all(&dir).expect("remove the scratch directory");
    }
}
