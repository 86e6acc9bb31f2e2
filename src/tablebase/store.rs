//! A tables directory (`DIR/VARIANT/KEY.EXT`): the one place that knows where a slice's
//! files lie, which variants and slices are there, which rule set the rules files hold and
//! whether a job is built, who builds a variant's tables now ([`Store::lock_build`]), and
//! that writes files whole or not at all. Its files are read through a [`Filesystem`], the
//! operating system's unless a test serves them from memory.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::format::{Access, FileKind, TableError, TableFile, rule_set_byte};
use super::fs::{Filesystem, LockMode, LockedFile, Opened, Os};
use super::index::material::{Material, SliceJob};
use crate::Variant;
use crate::rules::RuleSet;

/// A tables directory, read and written through a filesystem.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
    fs: Arc<dyn Filesystem>,
}

/// The files of one variant in a store: for each slice with any file, the kinds present.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    kinds: BTreeMap<Material, [bool; FileKind::ALL.len()]>,
}

impl Listing {
    /// Whether the store holds the file of `kind` of slice `material`.
    pub fn has(&self, material: Material, kind: FileKind) -> bool {
        self.kinds
            .get(&material)
            .is_some_and(|kinds| kinds[kind.slot()])
    }

    /// The slices that have a file of every kind of `kinds`, by piece count, then key.
    pub fn slices_with(&self, kinds: &[FileKind]) -> Vec<Material> {
        let mut slices: Vec<Material> = self
            .kinds
            .iter()
            .filter(|(_, present)| kinds.iter().all(|k| present[k.slot()]))
            .map(|(&m, _)| m)
            .collect();
        slices.sort_by_key(|m| (m.pieces(), *m));
        slices
    }
}

/// What a build that takes a variant's lock ([`Store::lock_build`]) builds, and so which
/// builds may run beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builder {
    /// Every slice up to a piece count (`damka generate --pieces`): no other build of the
    /// variant in the directory beside it.
    Whole,
    /// One slice job (`damka generate --slice`, as each cluster job runs): other slice jobs
    /// beside it (they build other slices, each under its own temporary names), no whole
    /// build.
    Slice,
}

/// The lock of a variant's builds in a tables directory, held until dropped (or until the
/// process ends, however it ends). A whole build writes who it is into the lock file (its
/// process id, host and command line) and clears it when dropped.
#[derive(Debug)]
pub struct BuildLock {
    file: LockedFile,
    path: PathBuf,
    taken_over: Option<String>,
}

impl BuildLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Who held the lock before and ended without releasing it (a process killed, or a
    /// machine that stopped), as its lock file said: `pid 4242 on host h (damka generate
    /// ...)`. `None` where the lock was free.
    pub fn taken_over(&self) -> Option<&str> {
        self.taken_over.as_deref()
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        if self.file.mode() == LockMode::Exclusive {
            let _ = self.file.set_text("");
        }
    }
}

/// Why a variant's build lock was not taken.
#[derive(Debug)]
pub enum LockError {
    /// Another build holds it: who (its lock file's record, or the slice builds that share
    /// it).
    Held {
        /// The lock file.
        path: PathBuf,
        /// The variant.
        variant: Variant,
        /// Who holds it: `pid 4242 on host h (damka generate ...)`, or slice builds.
        holder: String,
    },
    /// The filesystem takes no locks (a Lustre mounted without `flock`, files in memory):
    /// whether another build runs cannot be told.
    Unsupported(PathBuf, io::Error),
    /// The lock file cannot be created or read.
    Io(PathBuf, io::Error),
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Held {
                path,
                variant,
                holder,
            } => write!(
                f,
                "the {variant} tables in {} are being built by {holder}: wait for it to end, \
                 or stop it (lock file {})",
                path.parent().unwrap_or(Path::new(".")).display(),
                path.display()
            ),
            LockError::Unsupported(path, e) => write!(
                f,
                "{}: the filesystem takes no file locks ({e}), so another build of these \
                 tables would not be seen",
                path.display()
            ),
            LockError::Io(path, e) => write!(f, "{}: {e}", path.display()),
        }
    }
}

impl std::error::Error for LockError {}

/// What a lock file holds while slice builds share it: nothing, so they are named thus.
const SLICE_BUILDERS: &str = "slice builds (`damka generate --slice`, as cluster jobs run them)";

/// This process as a lock file records it: `pid 4242 on host h (damka generate ...)`.
fn this_process() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "an unknown host".to_string());
    let command: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    format!(
        "pid {} on host {host} ({})",
        std::process::id(),
        command.join(" ")
    )
}

impl Store {
    /// The tables directory `dir` of the operating system's files.
    pub fn new(dir: impl Into<PathBuf>) -> Store {
        Store::with_filesystem(dir, Arc::new(Os))
    }

    /// The tables directory `dir` of filesystem `fs`.
    pub fn with_filesystem(dir: impl Into<PathBuf>, fs: Arc<dyn Filesystem>) -> Store {
        Store {
            dir: dir.into(),
            fs,
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The filesystem the files are read from and written to.
    pub fn filesystem(&self) -> &dyn Filesystem {
        &*self.fs
    }

    /// Whether the directory exists.
    pub fn exists(&self) -> bool {
        self.fs.is_dir(&self.dir)
    }

    /// The path of the file of `kind` of slice `material` of `variant` under `dir`:
    /// `DIR/VARIANT/KEY.EXT`, the layout of every tables directory.
    pub fn path_in(dir: &Path, variant: Variant, material: Material, kind: FileKind) -> PathBuf {
        dir.join(variant.name())
            .join(format!("{material}.{}", kind.extension()))
    }

    /// The path of the file of `kind` of slice `material` of `variant`.
    pub fn path(&self, variant: Variant, material: Material, kind: FileKind) -> PathBuf {
        Store::path_in(&self.dir, variant, material, kind)
    }

    /// The variants with a directory in the store, in [`Variant::ALL`]'s order.
    pub fn variants(&self) -> Vec<Variant> {
        Variant::ALL
            .into_iter()
            .filter(|v| self.fs.is_dir(&self.dir.join(v.name())))
            .collect()
    }

    /// The files of `variant`: an empty listing where the store has no directory for it,
    /// an error where the directory cannot be read.
    pub fn listing(&self, variant: Variant) -> io::Result<Listing> {
        let names = match self.fs.names(&self.dir.join(variant.name())) {
            Ok(names) => names,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Listing::default()),
            Err(e) => return Err(e),
        };
        let mut listing = Listing::default();
        for name in names {
            let Some((key, ext)) = name.split_once('.') else {
                continue;
            };
            let (Ok(material), Some(kind)) = (key.parse::<Material>(), FileKind::of(ext)) else {
                continue;
            };
            listing.kinds.entry(material).or_default()[kind.slot()] = true;
        }
        Ok(listing)
    }

    /// Opens and checks the file of `kind` of slice `material` of `variant`
    /// ([`TableFile::open_in`]), `id` naming it in a block cache.
    pub fn open(
        &self,
        variant: Variant,
        material: Material,
        kind: FileKind,
        id: u32,
        access: Access,
    ) -> Result<TableFile, TableError> {
        let path = self.path(variant, material, kind);
        TableFile::open_in(&*self.fs, &path, kind, variant, material, id, access)
    }

    /// The rule set whose results the rules files of `variant` hold (they hold one: the
    /// first slice's header says which), `None` where there are none; an error where that
    /// file cannot be read.
    pub fn rule_set(&self, variant: Variant) -> Result<Option<&'static RuleSet>, TableError> {
        let listing = self
            .listing(variant)
            .map_err(|e| TableError::Io(self.dir.join(variant.name()), e))?;
        let Some(&m) = listing.slices_with(&[FileKind::Rules]).first() else {
            return Ok(None);
        };
        let table = self.open(variant, m, FileKind::Rules, 0, Access::Read)?;
        Ok(RuleSet::numbered(variant, table.header().rule_set))
    }

    /// Whether every slice of `job` is built as `contents` asks: its files
    /// ([`FileKind::BUILT`], the distance file where `contents.dtw`, and the rules file of
    /// `contents.rules` where the rule set has counts) exist and pass their checks, the
    /// rules files holding that rule set.
    pub fn job_done(&self, variant: Variant, job: &SliceJob, contents: Contents) -> bool {
        let rule_set = rule_set_byte(contents.rules);
        job.slices.iter().all(|&m| {
            let good = |kind| {
                self.open(variant, m, kind, 0, Access::Read)
                    .and_then(|t| t.check_blocks().map(|()| t.header().rule_set))
            };
            FileKind::BUILT.iter().all(|&kind| good(kind).is_ok())
                && (!contents.dtw || good(FileKind::Dtw).is_ok())
                && rule_set.is_none_or(|r| good(FileKind::Rules).is_ok_and(|held| held == r))
        })
    }

    /// The files `job` reads that are not there: the win/draw/loss files of its inputs,
    /// and their distance files where the job builds distances to the end (`dtw`).
    pub fn missing_inputs(&self, variant: Variant, job: &SliceJob, dtw: bool) -> Vec<PathBuf> {
        let kinds: &[FileKind] = match dtw {
            true => &[FileKind::Wdl, FileKind::Dtw],
            false => &[FileKind::Wdl],
        };
        job.inputs
            .iter()
            .flat_map(|&m| kinds.iter().map(move |&k| (m, k)))
            .map(|(m, k)| self.path(variant, m, k))
            .filter(|p| !self.fs.is_file(p))
            .collect()
    }

    /// The lock file of `variant`'s builds: `DIR/.VARIANT.lock`, beside the variant's
    /// directory so that the directory holds table files only.
    pub fn lock_path(&self, variant: Variant) -> PathBuf {
        self.dir.join(format!(".{}.lock", variant.name()))
    }

    /// Takes the lock of `variant`'s builds in the directory, without waiting, for a build
    /// of kind `builder`: a whole build holds it alone, slice builds share it. Another build
    /// holding it is [`LockError::Held`], naming it (for a whole build, its process id, host
    /// and command line). A lock whose holder ended without releasing it (killed) is free:
    /// it is taken, and [`BuildLock::taken_over`] says whose it was. The lock is the
    /// operating system's (`flock`), so it is released however a build ends, and is seen
    /// from every machine where the filesystem shares locks (NFS, Lustre mounted with
    /// `flock`); where it takes none, [`LockError::Unsupported`].
    pub fn lock_build(&self, variant: Variant, builder: Builder) -> Result<BuildLock, LockError> {
        let path = self.lock_path(variant);
        let mode = match builder {
            Builder::Whole => LockMode::Exclusive,
            Builder::Slice => LockMode::Shared,
        };
        let locked = self.fs.try_lock(&path, mode).map_err(|e| match e.kind() {
            io::ErrorKind::Unsupported => LockError::Unsupported(path.clone(), e),
            _ => LockError::Io(path.clone(), e),
        })?;
        let io_error = |e| LockError::Io(path.clone(), e);
        let Some(mut file) = locked else {
            let holder = self.lock_holder(&path).map_err(io_error)?;
            return Err(LockError::Held {
                path,
                variant,
                holder,
            });
        };
        // Only a whole build writes a record, and clears it when it ends: one left while the
        // lock is free is of a build that ended without clearing it.
        let record = file.text().map_err(io_error)?;
        let taken_over = Some(record.trim().to_string()).filter(|r| !r.is_empty());
        match builder {
            Builder::Whole => file.set_text(&this_process()),
            Builder::Slice if taken_over.is_some() => file.set_text(""),
            Builder::Slice => Ok(()),
        }
        .map_err(io_error)?;
        Ok(BuildLock {
            file,
            path,
            taken_over,
        })
    }

    /// Who holds the lock file `path`: the whole build its record names, or slice builds
    /// (which write none). A whole build writes its record just after it takes the lock, so
    /// an empty file is read again a moment later before it is taken for slice builds.
    fn lock_holder(&self, path: &Path) -> io::Result<String> {
        let read = || -> io::Result<String> {
            let bytes: Vec<u8> = match self.fs.open(path)? {
                Opened::File(mut file) => {
                    let mut bytes = Vec::new();
                    file.read_to_end(&mut bytes)?;
                    bytes
                }
                Opened::Bytes(bytes) => bytes.to_vec(),
            };
            Ok(String::from_utf8_lossy(&bytes).trim().to_string())
        };
        let mut record = read()?;
        if record.is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(200));
            record = read()?;
        }
        Ok(match record.is_empty() {
            true => SLICE_BUILDERS.to_string(),
            false => record,
        })
    }

    /// Writes `bytes` as the whole of `path`, atomically ([`Filesystem::write_atomically`]).
    pub fn write_atomically(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.fs.write_atomically(path, bytes)
    }
}

/// What a build writes besides the win/draw/loss and distance-to-conversion files.
#[derive(Copy, Clone, Debug)]
pub struct Contents {
    /// The rule set whose results the rules files hold (none where it has no counts).
    pub rules: &'static RuleSet,
    /// Whether to write the distance to the end (`.dtw`): the inputs must hold theirs.
    pub dtw: bool,
}

impl Contents {
    /// Every kind of file, with the rule results of `rules`.
    pub fn every_kind(rules: &'static RuleSet) -> Contents {
        Contents { rules, dtw: true }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_fen;
    use crate::rules::{English, Rules};
    use crate::tablebase::fs::Memory;
    use crate::tablebase::{Silent, Tablebase, build_job, plan};

    /// A whole build holds a variant's lock alone and names itself; slice builds share it;
    /// a record left by a build that ended without clearing it is taken over and said.
    #[test]
    fn a_build_lock_names_its_holder_and_is_taken_over_when_left() {
        let dir = std::env::temp_dir().join(format!("damka-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let store = Store::new(&dir);
        let english = Variant::English;
        let whole = store
            .lock_build(english, Builder::Whole)
            .expect("a free lock");
        assert_eq!(whole.path(), dir.join(".english.lock"));
        assert_eq!(whole.taken_over(), None);
        let me = format!("pid {} on host ", std::process::id());
        for builder in [Builder::Whole, Builder::Slice] {
            let Err(LockError::Held { holder, .. }) = store.lock_build(english, builder) else {
                panic!("a second build of english is refused");
            };
            assert!(holder.starts_with(&me), "{holder}");
        }
        let other = store
            .lock_build(Variant::Russian, Builder::Whole)
            .expect("another variant's lock is another lock");
        drop((whole, other));
        assert_eq!(
            std::fs::read_to_string(dir.join(".english.lock")).expect("read"),
            ""
        );
        let slices = [Builder::Slice, Builder::Slice].map(|b| store.lock_build(english, b));
        assert!(slices.iter().all(Result::is_ok), "slice builds share");
        let refused = store
            .lock_build(english, Builder::Whole)
            .expect_err("a whole build waits for the slice builds");
        assert!(refused.to_string().contains(SLICE_BUILDERS), "{refused}");
        drop(slices);
        // A build killed while it held the lock leaves its record behind.
        let left = "pid 4242 on host elsewhere (damka generate --variant english --pieces 6)";
        std::fs::write(dir.join(".english.lock"), left).expect("a record");
        let lock = store
            .lock_build(english, Builder::Whole)
            .expect("a lock nobody holds");
        assert_eq!(lock.taken_over(), Some(left));
        drop(lock);
        let memory = Store::with_filesystem(&dir, Arc::new(Memory::new()));
        assert!(matches!(
            memory.lock_build(english, Builder::Whole),
            Err(LockError::Unsupported(..))
        ));
        std::fs::remove_dir_all(&dir).expect("remove the scratch directory");
    }

    /// English tables up to 3 pieces, built into a scratch directory, then copied into
    /// memory: the store lists, checks and serves both alike.
    #[test]
    fn tables_in_memory_answer_as_on_disk() {
        let dir = std::env::temp_dir().join(format!("damka-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let rules = RuleSet::default_for(English::VARIANT);
        let disk = Tablebase::open(&dir).expect("a tables directory");
        let jobs = plan(3, English::MEN);
        let on_disk = Store::new(&dir);
        let contents = Contents::every_kind(rules);
        assert!(!on_disk.job_done(English::VARIANT, &jobs[0], contents));
        for job in &jobs {
            assert!(
                on_disk
                    .missing_inputs(English::VARIANT, job, true)
                    .is_empty()
            );
            build_job::<English>(job, &disk, contents, &Silent).expect("the job builds");
            assert!(on_disk.job_done(English::VARIANT, job, contents));
        }
        let memory = Memory::new();
        let sub = dir.join("english");
        for entry in std::fs::read_dir(&sub).expect("the variant's directory") {
            let path = entry.expect("an entry").path();
            memory.insert(path.clone(), std::fs::read(&path).expect("a table file"));
        }
        std::fs::remove_dir_all(&dir).expect("remove the scratch tables");
        let store = Store::with_filesystem(&dir, Arc::new(memory));
        assert_eq!(store.variants(), [Variant::English]);
        let listing = store.listing(Variant::English).expect("the listing");
        let slices = listing.slices_with(&FileKind::BUILT);
        // Every slice of up to 3 pieces has its three files.
        assert_eq!(slices.len(), Material::all_up_to(3, English::MEN).len());
        assert!(slices.windows(2).all(|w| w[0].pieces() <= w[1].pieces()));
        assert!(listing.has(slices[0], FileKind::Rules));
        assert_eq!(
            store
                .rule_set(Variant::English)
                .expect("readable")
                .map(|r| r.name),
            Some(rules.name)
        );
        assert!(store.job_done(English::VARIANT, &jobs[0], contents));
        assert!(
            store
                .listing(Variant::Russian)
                .expect("none")
                .slices_with(&[])
                .is_empty()
        );
        let tb = Tablebase::in_store(store, 1 << 20, Access::Read).expect("the tables");
        // A king against a king draws; two kings beat one.
        let draw = parse_fen::<English>("W:WK1:BK32").expect("a FEN");
        assert_eq!(
            tb.probe_wdl(&draw).expect("probed"),
            crate::tablebase::Wdl::Draw
        );
        let win = parse_fen::<English>("W:WK1,K5:BK32").expect("a FEN");
        let outcome = tb.probe_dtw(&win).expect("probed");
        assert_eq!(outcome.wdl, crate::tablebase::Wdl::Win);
        assert!(outcome.dtw > 0);
        let line: Vec<_> = tb
            .mainline(&win)
            .collect::<Result<_, _>>()
            .expect("the line");
        assert_eq!(line.len(), usize::from(outcome.dtw));
        for (n, step) in line.iter().enumerate() {
            assert_eq!(step.best().outcome.dtw, outcome.dtw - n as u16);
        }
    }
}
