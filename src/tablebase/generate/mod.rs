//! Building tables by retrograde analysis, slice pair by slice pair, in parts.
//!
//! A job builds a slice and its twin (same material, the other side to move) together. Its
//! positions are split by the placement of the men (`index::levels`): men never move back,
//! so the placements are solved level by level from the most advanced, each level reading only
//! itself, the level above and the slices that captures and crownings lead to. A level is
//! solved in units in parallel (rayon), each unit by one thread in a small array
//! (`solve`); a finished level is packed into a temporary file once the level below is
//! solved, and the files are written from there in index order (`output`). So a job holds
//! two levels at a time, two bytes a position, not its slices.

mod capture_memo;
mod kept;
mod known_preds;
mod output;
mod packing;
mod rules;
mod solve;
mod unit;

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::rules::{Geometry, Governing, RuleSet, Rules};
use crate::tablebase::format::TableFile;
use crate::tablebase::format::{FileKind, TableError, rule_set_byte};
use crate::tablebase::index::SliceIndex;
use crate::tablebase::index::levels::{Level, Placements};
use crate::tablebase::index::material::{Material, SliceJob};
use crate::tablebase::probe::{ProbeError, Tablebase, derivable};
use crate::tablebase::store::Contents;

use known_preds::KEPT_BYTES;
use output::Stream;
pub use output::{DTW_BLOCK, WDL_BLOCK};
use packing::Packing;

/// Decoded input blocks a build caches (`damka generate` opens its inputs with it): inputs
/// are read often, and a large slice fills it.
pub const BUILD_CACHE_BYTES: usize = 1 << 30;

/// Bytes a build holds per position of the levels it keeps: the value (2), and the key and
/// place of each block of positions (16 bytes a block) with its slot (8 bytes a placement of
/// the level's advancement, overlapping men included). A solved level's distances to
/// conversion and rule results are held compressed, then as many bytes again while they
/// are packed (see [`estimate`]).
pub const LEVEL_BYTES_PER_POSITION: u64 = 2;
/// Bytes a build keeps per block of positions of a level: its key and place, and its slot.
pub const LEVEL_BYTES_PER_BLOCK: u64 = 24;
/// Positions whose distances to conversion and rule results, compressed, take at most a
/// byte: those of the level being solved, as each batch of units is solved, and the rule
/// results of the level above where the level below cannot derive its own (English
/// 2211+1122: 0.17 bytes a position for the two). A level of at most
/// `packing::STORED_LEVEL_POSITIONS` positions holds them as they are, 2 bytes a value.
pub const PACKED_POSITIONS_PER_BYTE: u64 = 4;

/// Bytes a build holds besides its levels and the cache: code, threads, input maps, the
/// buffers that write the files, the units' scratch, each thread's memo of the outcomes
/// after captures (512 KiB, `capture_memo`). Calibrated by the peak RSS of a whole
/// build, whose cache is full by its last jobs (benches/notes/dtc-rules.md, "Distance to
/// conversion"): English up to 6 pieces with distances to conversion and rule results
/// peaked at 1.369 GiB, above the 1.23 GiB its largest job was planned at with a base of
/// 128 MiB.
pub const BUILD_BASE_BYTES: u64 = 320 << 20;

/// What building one job is expected to cost.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Indices of the job's slices.
    pub positions: u64,
    /// Peak memory, bytes: the largest level being solved with the level above it (or with
    /// its own distances to conversion, as it is packed), a full input cache, the
    /// predecessors the threads keep and the base.
    pub memory_bytes: u64,
    /// Seconds on one core.
    pub core_seconds: f64,
}

impl Estimate {
    /// The peak memory of the job itself, beside what the jobs of one build share (the input
    /// cache, the kept predecessors and the base): what a second job run at the same time
    /// adds.
    pub fn own_memory_bytes(&self) -> u64 {
        self.memory_bytes
            .saturating_sub(BUILD_CACHE_BYTES as u64 + BUILD_BASE_BYTES + KEPT_BYTES)
    }
}

/// Positions a build solves per second on one core, measured with one thread (files
/// written) on this project's 2-core machine, shared with other work
/// (benches/notes/generation.md): about 1.6 M/s for English 1211+1112, with men; slices of
/// kings only are slower, 1.1 M/s for English 0402+0204 (short kings) and 0.5 M/s for
/// International 0401+0104 (flying kings walk long rays). The figures used are rounded
/// down.
pub fn positions_per_core_second<R: Rules>(job: &SliceJob) -> f64 {
    if job.key().men() > 0 {
        1.5e6
    } else if R::FLYING_KINGS {
        0.5e6
    } else {
        1.1e6
    }
}

/// The expected memory and one-core time of building `job` (with the rule results of the
/// variant's default rule set).
pub fn estimate<R: Rules>(job: &SliceJob) -> Estimate {
    let positions: u64 = job
        .slices
        .iter()
        .map(|&m| SliceIndex::<R>::new(m).size())
        .sum();
    let placements = Placements::<R>::new(&job.slices);
    let sizes: Vec<u64> = (0..placements.levels())
        .map(|l| placements.level_size_bound(l))
        .collect();
    // Levels are solved from the highest down: level `l` is solved while level `l + 1` is
    // read, then packed with its distances to conversion and rule results, which are held
    // compressed while it is solved. Under the variant's default rules a job reads the rule
    // results of the level above too (kept compressed where a unit fills a batch) and
    // walks its units for them, unless a quiet count governs it and neither its inputs nor
    // its levels hold a result drawn by the counts (then it derives its own). Only the
    // build finds that out: a job with men is counted as walking (English 2212+1222 does:
    // its inputs hold cursed wins); a job of kings only under a quiet count as deriving (its
    // inputs are kings only too, and every such job of English up to 7 pieces derives; one
    // that walks needs 14 bytes a position more). The units being solved (a placement and
    // its twin each; kings only: the whole slice pair) hold their distances to conversion
    // and rule results uncompressed, 4 bytes a position (a level that derives its rule
    // results holds none: counted all the same), the rule walk's scratch (moves left, the
    // positions whose best exit wins or loses and those resolved at each ply: 14 bytes
    // more; where two counts run, what the exits give, two layers and the successors of
    // the king moves instead) and, with men, the positions whose best exit wins or loses
    // (8 bytes each); counted here in values of 2 bytes.
    let rule_set = RuleSet::default_for(R::VARIANT);
    let [a, b] = job.key().sides();
    let governing = rule_set.governing(a, b);
    let reads_rules = rule_set_byte(rule_set).is_some()
        && (job.key().men() > 0 || !matches!(governing, Governing::Quiet(Some(_))));
    let exits = if job.key().men() > 0 { 4 } else { 0 };
    // Where two counts run, the walk lists the successors of each position's king moves:
    // counted as four a king, more than twice the most a unit of Russian 1302+0213 (three
    // kings) lists, so that the two units two threads walk at once are covered.
    let walk_values = match governing {
        Governing::Both { .. } => {
            let kings = job.key().mover_kings.max(job.key().other_kings);
            rules::layered_bytes_per_position(kings.into()).div_ceil(2)
        }
        _ => 7,
    };
    let unit_values = if reads_rules { 2 + walk_values } else { 2 } + exits;
    let kings = placements.kings_per_placement();
    // The level above's rule results are kept decompressed where a batch holds many units;
    // where they are packed, the frames a unit's men's steps read are kept unpacked.
    let plain_rules = reads_rules && !kept::KeptRules::packed(kings);
    let unpacked = match reads_rules && !plain_rules {
        true => kept::RulesAbove::frame_values(job.key().men(), kings),
        false => 0,
    };
    let in_flight = unit_values * 2 * kings + unpacked;
    // Bytes of the packed batches of a level of `n` positions, `values` a position (2: its
    // distances to conversion and rule results; 1: the level above's rule results).
    let packed = |n: u64, values: u64| match Packing::for_job(positions).for_level(n) {
        Packing::Stored => values * n * LEVEL_BYTES_PER_POSITION,
        Packing::Compressed => n.div_ceil(PACKED_POSITIONS_PER_BYTE),
    };
    // The bytes held with `kept` values kept and `packed` bytes of packed batches.
    let held = |kept: u64, packed: u64| {
        let kept = kept.min(3 * positions + in_flight);
        let blocks = kept.div_ceil(kings.max(1));
        kept * LEVEL_BYTES_PER_POSITION + blocks * LEVEL_BYTES_PER_BLOCK + packed
    };
    let peak = sizes
        .windows(2)
        .map(|w| {
            let above = if plain_rules { 2 * w[1] } else { w[1] };
            let packed_above = if reads_rules && !plain_rules {
                packed(w[1], 1)
            } else {
                0
            };
            held(
                w[0] + (above + in_flight).max(w[0]),
                packed(w[0], 2) + packed_above,
            )
        })
        .chain(
            sizes
                .last()
                .map(|&s| held(s + in_flight.max(s), packed(s, 2))),
        )
        .max()
        .unwrap_or(0);
    Estimate {
        positions,
        memory_bytes: peak + BUILD_CACHE_BYTES as u64 + BUILD_BASE_BYTES + KEPT_BYTES,
        core_seconds: positions as f64 / positions_per_core_second::<R>(job),
    }
}

/// Why a build failed.
#[derive(Debug)]
pub enum GenerateError {
    /// An input table could not be probed.
    Probe(ProbeError),
    /// A file could not be written.
    Io(PathBuf, std::io::Error),
    /// A slice's inputs are not all built.
    MissingInputs(Vec<PathBuf>),
    /// A written file did not pass its check.
    Check(TableError),
    /// The slice is past what the generator's state can hold.
    Limit(String),
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenerateError::Probe(e) => write!(f, "reading an input table: {e}"),
            GenerateError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            GenerateError::MissingInputs(paths) => {
                write!(f, "inputs not built yet:")?;
                for p in paths {
                    write!(f, " {}", p.display())?;
                }
                Ok(())
            }
            GenerateError::Check(e) => write!(f, "written table failed its check: {e}"),
            GenerateError::Limit(what) => write!(f, "beyond the generator's limits: {what}"),
        }
    }
}

impl std::error::Error for GenerateError {}

impl From<ProbeError> for GenerateError {
    fn from(e: ProbeError) -> Self {
        GenerateError::Probe(e)
    }
}

/// What was built (or found built) for one slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceReport {
    /// The slice.
    pub material: Material,
    /// Indices in the slice.
    pub positions: u64,
    /// Bytes of the win/draw/loss file.
    pub wdl_bytes: u64,
    /// Bytes of the distance file.
    pub dtw_bytes: u64,
    /// Bytes of the distance-to-conversion file.
    pub dtc_bytes: u64,
    /// Bytes of the rules file (0 when the slice has none).
    pub rules_bytes: u64,
    /// Whether the files were already there and checked, not built.
    pub skipped: bool,
}

/// Where a build reports how far it has come; the command line draws it as a bar.
pub trait Progress: Sync {
    /// A job of `total` units of work begins.
    fn start(&self, total: u64);
    /// `n` more units are done.
    fn advance(&self, n: u64);
    /// `done` of the job's `total` parts are solved.
    fn parts(&self, done: u64, total: u64);
    /// The job is done (whatever the count says).
    fn finish(&self);
}

/// Progress reported nowhere.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn parts(&self, _done: u64, _total: u64) {}
    fn finish(&self) {}
}

/// Builds one job's slices and writes their files under the tables directory of `tb`.
/// Files are written to a temporary name, checked, and renamed only when all are good; the
/// temporary files are removed if the build fails.
pub fn build_job<R: Rules>(
    job: &SliceJob,
    tb: &Tablebase,
    contents: Contents,
    progress: &dyn Progress,
) -> Result<Vec<SliceReport>, GenerateError> {
    let positions = job.slices.iter().map(|&m| SliceIndex::<R>::new(m).size());
    let packing = Packing::for_job(positions.sum());
    build_packed::<R>(job, tb, contents, progress, packing)
}

/// [`build_job`] with the job's temporary file packed as `packing` says (and its levels'
/// batches, where they are small enough: [`Packing::for_level`]).
fn build_packed<R: Rules>(
    job: &SliceJob,
    tb: &Tablebase,
    contents: Contents,
    progress: &dyn Progress,
    packing: Packing,
) -> Result<Vec<SliceReport>, GenerateError> {
    let dir = tb.dir().join(R::VARIANT.name());
    fs::create_dir_all(&dir).map_err(|e| GenerateError::Io(dir.clone(), e))?;
    build_into::<R>(job, tb, contents, progress, packing, &dir)
}

fn build_into<R: Rules>(
    job: &SliceJob,
    tb: &Tablebase,
    Contents { rules, dtw }: Contents,
    progress: &dyn Progress,
    packing: Packing,
    dir: &Path,
) -> Result<Vec<SliceReport>, GenerateError> {
    let rule_set = rule_set_byte(rules);
    let [a, b] = job.key().sides();
    let governing = rules.governing(a, b);
    if rule_set.is_some() && R::Board::SIDEWAYS != 0 && governing.plies().is_some_and(|l| l > 0) {
        return Err(GenerateError::Limit(
            "rule results with a count through men's sideways steps".into(),
        ));
    }
    let work = unit::Job::<R>::new(job, tb, rule_set.map(|_| rules), governing, packing, dtw);
    let total: u64 = work.index.iter().map(|i| i.size()).sum();
    let levels = work.placements.levels();
    progress.start(2 * total);
    let packed_path = crate::files::temporary_path(&dir.join(format!("{}.levels", job.key())));
    let mut packed = output::Packed::create(packed_path, levels, governing.plies(), work.packing)?;
    let mut counts = [solve::Counts::default(); 2];
    // While no level of the job holds a result drawn by the counts either.
    let inputs_derive = derivable(tb, R::VARIANT, job, governing).is_some();
    let mut above_drawn = false;
    // The level above: its number, values and (when the level below cannot derive its own)
    // rule results.
    let mut above: Option<(usize, Level, Option<kept::KeptRules>)> = None;
    let slices = job.slices.len();
    for (done, level) in (0..levels).rev().enumerate() {
        progress.parts(done as u64, levels as u64);
        let derived = inputs_derive && !above_drawn;
        let solved = solve::solve_level(
            &work,
            level,
            above.as_ref().map(|a| &a.1),
            above.as_ref().and_then(|a| a.2.as_ref()),
            derived,
        )?;
        above_drawn = solved.counts.iter().any(|c| c.rule_drawn > 0);
        let c = solved.counts;
        counts = [counts[0].merge(c[0]), counts[1].merge(c[1])];
        progress.advance(solved.values.positions());
        // The level above is read no more: packed and let go before this level's distances
        // to conversion are decompressed and packed.
        if let Some((n, finished, _)) = above.take() {
            packed.add(n, Stream::Values, &finished, slices)?;
        }
        packed.add(
            level,
            Stream::Dtc,
            &solved.dtc.level(&work.placements),
            slices,
        )?;
        // This level's rule results are packed now, unless it derived them (they are
        // derived again as its files are written); kept, compressed, for the level below
        // only when that one cannot derive its own.
        let mut stored = None;
        if let Some(rules) = solved.rules {
            let unpacked = rules.level(&work.placements);
            packed.add(level, Stream::Rules, &unpacked, slices)?;
            stored = Some((rules, unpacked));
        }
        let derive_again = || {
            let limit = governing.plies();
            kept::PackedBatches::derived(&solved.values, &solved.dtc, limit, work.packing)
        };
        let keeps = work.rules.is_some() && level > 0 && (above_drawn || !inputs_derive);
        let kept = keeps.then(|| match (stored, kept::KeptRules::packed(work.kings())) {
            (Some((rules, _)), true) => kept::KeptRules::Packed(rules),
            (Some((_, unpacked)), false) => kept::KeptRules::Plain(unpacked),
            (None, true) => kept::KeptRules::Packed(derive_again()),
            (None, false) => kept::KeptRules::Plain(derive_again().level(&work.placements)),
        });
        above = Some((level, solved.values, kept));
    }
    if let Some((n, finished, _)) = above.take() {
        packed.add(n, Stream::Values, &finished, slices)?;
    }
    progress.parts(levels as u64, levels as u64);
    let mut written = Vec::new();
    let mut reports = Vec::new();
    for (s, &m) in job.slices.iter().enumerate() {
        let path = |kind: FileKind| tb.store().path(R::VARIANT, m, kind);
        let dtw_path = dtw.then(|| path(FileKind::Dtw));
        let rules_path = rule_set.map(|r| (path(FileKind::Rules), r));
        let header = output::base_header(R::VARIANT, m, work.index[s].size());
        let files = packed.write_slice(
            &work.placements,
            s,
            header,
            counts[s],
            output::SlicePaths {
                wdl: &path(FileKind::Wdl),
                dtw: dtw_path.as_deref(),
                dtc: &path(FileKind::Dtc),
                rules: rules_path.as_ref().map(|(p, r)| (p.as_path(), *r)),
            },
            |n| progress.advance(n),
        )?;
        for (kind, file, _) in &files {
            TableFile::open(file.temp_path(), *kind, R::VARIANT, m, u32::MAX)
                .and_then(|t| t.check_blocks())
                .map_err(GenerateError::Check)?;
        }
        let bytes = |kind| {
            let file = files.iter().find(|(k, ..)| *k == kind);
            file.map_or(0, |(.., bytes)| *bytes)
        };
        reports.push(SliceReport {
            material: m,
            positions: work.index[s].size(),
            wdl_bytes: bytes(FileKind::Wdl),
            dtw_bytes: bytes(FileKind::Dtw),
            dtc_bytes: bytes(FileKind::Dtc),
            rules_bytes: bytes(FileKind::Rules),
            skipped: false,
        });
        written.extend(files);
    }
    drop(packed);
    progress.finish();
    // Committed only once every file of the job is written and checked: a failed build
    // leaves none (each uncommitted file is removed as it is dropped).
    for (_, file, _) in written {
        let target = file.target().to_path_buf();
        file.commit().map_err(|e| GenerateError::Io(target, e))?;
    }
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International, Russian};
    use crate::tablebase::plan;

    /// Builds `R`'s tables up to `pieces` pieces twice, the jobs' levels stored in one
    /// directory and compressed in the other, and compares every file byte by byte: the
    /// packing changes nothing the tables hold. Returns the number of files compared.
    fn both_packings<R: Rules>(pieces: u32) -> usize {
        let scratch = std::env::temp_dir().join(format!(
            "damka-packings-{}-{}",
            R::VARIANT.name(),
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&scratch);
        let rules = RuleSet::default_for(R::VARIANT);
        let packings = [Packing::Stored, Packing::Compressed];
        let dirs = packings.map(|p| scratch.join(format!("{p:?}")));
        for (dir, packing) in dirs.iter().zip(packings) {
            fs::create_dir_all(dir).expect("a scratch directory");
            let tb = Tablebase::open(dir).expect("a tables directory");
            for job in plan(pieces, R::MEN) {
                let contents = Contents::every_kind(rules);
                build_packed::<R>(&job, &tb, contents, &Silent, packing).expect("the job builds");
            }
        }
        let files = |dir: &Path| {
            let mut files: Vec<_> = fs::read_dir(dir.join(R::VARIANT.name()))
                .expect("the variant's directory")
                .map(|e| e.expect("an entry").path())
                .collect();
            files.sort();
            files
        };
        let (stored, compressed) = (files(&dirs[0]), files(&dirs[1]));
        assert_eq!(stored.len(), compressed.len());
        for (a, b) in stored.iter().zip(&compressed) {
            assert_eq!(a.file_name(), b.file_name());
            let bytes = |p: &Path| fs::read(p).expect("a table file");
            assert!(bytes(a) == bytes(b), "{} differs", a.display());
        }
        fs::remove_dir_all(&scratch).expect("remove the scratch tables");
        stored.len()
    }

    /// Builds `R`'s tables up to `pieces` pieces with and without distances to the end:
    /// the win/draw/loss, distance-to-conversion and rules files hold the same values
    /// block for block, and the same headers but the win/draw/loss file's longest distance
    /// (0 without); every slice built without them verifies. Returns the slices compared.
    fn with_and_without_dtw<R: Rules>(pieces: u32) -> usize {
        let scratch = std::env::temp_dir().join(format!(
            "damka-no-dtw-{}-{}",
            R::VARIANT.name(),
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&scratch);
        let rules = RuleSet::default_for(R::VARIANT);
        let dirs = [true, false].map(|dtw| {
            let dir = scratch.join(format!("dtw-{dtw}"));
            fs::create_dir_all(&dir).expect("a scratch directory");
            let tb = Tablebase::open(&dir).expect("a tables directory");
            for job in plan(pieces, R::MEN) {
                let contents = Contents { rules, dtw };
                build_job::<R>(&job, &tb, contents, &Silent).expect("the job builds");
            }
            dir
        });
        let [full, lean] = dirs.map(|d| Tablebase::open(d).expect("the tables"));
        assert!(full.has_dtw(R::VARIANT) && !lean.has_dtw(R::VARIANT));
        let slices = Material::all_up_to(pieces, R::MEN);
        for &m in &slices {
            for kind in [FileKind::Wdl, FileKind::Dtc, FileKind::Rules] {
                let (Ok(a), Ok(b)) = (
                    full.table(R::VARIANT, m, kind),
                    lean.table(R::VARIANT, m, kind),
                ) else {
                    assert!(kind == FileKind::Rules, "{m} {kind:?}: a file missing");
                    continue;
                };
                let (mut ha, hb) = (a.header().clone(), b.header().clone());
                if kind == FileKind::Wdl {
                    assert_eq!(hb.max_dtw, 0, "{m}");
                    ha.max_dtw = 0;
                }
                assert_eq!(ha, hb, "{m} {kind:?}");
                for block in 0..ha.blocks {
                    let decoded = |t: &TableFile| t.decode_block(block).expect("a block");
                    assert!(decoded(&a) == decoded(&b), "{m} {kind:?} block {block}");
                }
            }
            assert!(lean.table(R::VARIANT, m, FileKind::Dtw).is_err(), "{m}");
            let check = crate::tablebase::verify_slice::<R>(&lean, m).expect("verified");
            assert_eq!(check, crate::tablebase::SliceCheck::Ok, "{m}");
        }
        fs::remove_dir_all(&scratch).expect("remove the scratch tables");
        slices.len()
    }

    #[test]
    fn builds_without_distances_to_the_end_hold_the_same_values() {
        assert_eq!(with_and_without_dtw::<English>(4), 41);
        assert_eq!(with_and_without_dtw::<Russian>(4), 41);
        assert_eq!(with_and_without_dtw::<International>(3), 16);
    }

    #[test]
    fn stored_and_compressed_levels_build_the_same_files() {
        // Win/draw/loss, distance, distance to conversion and rules files of each slice.
        assert_eq!(both_packings::<English>(4), 4 * 41);
        assert_eq!(both_packings::<International>(3), 4 * 16);
    }
}
