//! A tables directory (`DIR/VARIANT/KEY.EXT`): the one place that knows where a slice's
//! files lie, which variants and slices are there, which rule set the rules files hold and
//! whether a job is built, and that writes files whole or not at all. Its files are read
//! through a [`Filesystem`], the operating system's unless a test serves them from memory.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::format::{Access, FileKind, TableError, TableFile, rule_set_byte};
use super::fs::{Filesystem, Os};
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
