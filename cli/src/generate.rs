//! `damka generate`: build tables, print the build plan, or build one slice.

use std::path::PathBuf;
use std::time::Instant;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use damka::rules::Rules;
use damka::tablebase::format::DERIVED_FROM_PIECES;
use damka::tablebase::generate::BUILD_CACHE_BYTES;
use damka::tablebase::{Contents, FileKind, Store, compact};
use damka::tablebase::{
    Estimate, Material, Progress, SliceIndex, SliceJob, SliceReport, build_job, estimate, plan,
};
use damka::{Variant, with_rules};

use super::tables::{MOST_PIECES, human_bytes, human_seconds, open, slice_fits, tables_dir};
use super::{CliError, print_out};

/// The test hook: `damka generate --slice KEY` fails at once when this variable names the
/// slice or its twin, so that tests can make one job of a cluster build fail.
pub const FAIL_SLICE_VAR: &str = "DAMKA_FAIL_SLICE";

/// Arguments of `damka generate`.
#[derive(clap::Args)]
pub struct Args {
    /// Variant: english, italian, spanish, russian, brazilian, international, turkish.
    #[arg(long)]
    variant: Variant,
    /// Build every slice with at most this many pieces.
    #[arg(long, required_unless_present = "slice", value_parser = clap::value_parser!(u32).range(2..=MOST_PIECES as i64))]
    pieces: Option<u32>,
    /// Build only this slice and its twin (four digits: mover's men, kings, other's men,
    /// kings), reading its inputs from the tables directory.
    #[arg(long, conflicts_with_all = ["pieces", "plan"])]
    slice: Option<Material>,
    /// Print the slices in build order with their sizes and inputs; build nothing.
    #[arg(long)]
    plan: bool,
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// No progress bars and no per-slice lines.
    #[arg(long)]
    quiet: bool,
    /// The draw rules whose results the rules files hold (default: the variant's first, as
    /// `docs/RULES.md`). A directory holds one rule set's: build another into its own.
    #[arg(long, value_name = "NAME")]
    rules: Option<String>,
    /// Also write each slice's distance to the end of the game (`.dtw`, which took three
    /// quarters of the bytes of English up to 6). Every command works without it; a build
    /// with it needs its inputs built with it.
    #[arg(long)]
    dtw: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    with_rules!(args.variant, R => build::<R>(&args))
}

fn jobs_of<R: Rules>(args: &Args) -> Vec<SliceJob> {
    match (args.slice, args.pieces) {
        (Some(m), _) => vec![SliceJob::for_slice(m)],
        (None, Some(n)) => plan(n, R::MEN),
        (None, None) => Vec::new(),
    }
}

fn build<R: Rules>(args: &Args) -> Result<(), CliError> {
    if let Some(m) = args.slice {
        slice_fits::<R>(m)?;
    }
    let jobs = jobs_of::<R>(args);
    let rules = super::rule_set(R::VARIANT, args.rules.as_deref())?;
    let contents = Contents {
        rules,
        dtw: args.dtw,
    };
    if args.plan {
        return print_out(&plan_text::<R>(&jobs));
    }
    let dir = tables_dir(&args.tables)?;
    std::fs::create_dir_all(&dir).map_err(|e| CliError {
        message: format!("{}: {e}", dir.display()),
        code: 2,
    })?;
    let store = Store::new(&dir);
    let _lock = super::tables::lock_build(&store, R::VARIANT, args.slice)?;
    if args.slice.is_some() {
        fail_on_request(&jobs[0])?;
        let missing = store.missing_inputs(R::VARIANT, &jobs[0], args.dtw);
        if !missing.is_empty() {
            let list: Vec<String> = missing.iter().map(|p| p.display().to_string()).collect();
            return Err(CliError::input(format!(
                "inputs not built yet: {}",
                list.join(" ")
            )));
        }
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = args.threads {
        pool = pool.num_threads(t as usize);
    }
    let pool = pool.build().map_err(|e| CliError {
        message: e.to_string(),
        code: 1,
    })?;
    let tb = open(&dir, BUILD_CACHE_BYTES)?;
    let start = Instant::now();
    let mut reports: Vec<SliceReport> = Vec::new();
    let mut left: Vec<&SliceJob> = Vec::new();
    for job in &jobs {
        if store.job_done(R::VARIANT, job, contents) {
            reports.extend(job.slices.iter().map(|&m| SliceReport {
                material: m,
                positions: SliceIndex::<R>::new(m).size(),
                wdl_bytes: 0,
                dtw_bytes: 0,
                dtc_bytes: 0,
                rules_bytes: 0,
                skipped: true,
            }));
        } else {
            left.push(job);
        }
    }
    let estimates: Vec<Estimate> = left.iter().map(|j| estimate::<R>(j)).collect();
    // Two jobs run at once where they fit together in what the largest job needs alone, so
    // that the plan's peak stays the build's.
    let largest = estimates.iter().map(|e| e.memory_bytes).max().unwrap_or(0);
    let bars = MultiProgress::new();
    if args.quiet {
        bars.set_draw_target(ProgressDrawTarget::hidden());
    }
    // Job `j` of those left, its bar cleared whether it succeeds or fails.
    let build_one = |j: usize| -> Result<Vec<SliceReport>, CliError> {
        let job = left[j];
        let bar = bars.add(progress_bar(job, estimates[j].positions));
        let job_start = Instant::now();
        let built = build_job::<R>(job, &tb, contents, &Bar(bar.clone(), slice_names(job)));
        bar.finish_and_clear();
        bars.remove(&bar);
        let built = built.map_err(|e| CliError {
            message: e.to_string(),
            code: 1,
        })?;
        if !args.quiet {
            let n: u64 = built.iter().map(|r| r.positions).sum();
            eprintln!(
                "built {} {}: {}, {n} positions in {:.2} s",
                R::VARIANT,
                slice_names(job),
                slices_count(built.len()),
                job_start.elapsed().as_secs_f64()
            );
        }
        Ok(built)
    };
    let mut started = vec![false; left.len()];
    let mut built_jobs = 0;
    while let Some(first) = started.iter().position(|s| !s) {
        started[first] = true;
        let partner = partner(first, &started, &estimates, largest, |j| {
            store
                .missing_inputs(R::VARIANT, left[j], args.dtw)
                .is_empty()
        });
        if let Some(j) = partner {
            started[j] = true;
        }
        let (a, b) = pool.install(|| rayon::join(|| build_one(first), || partner.map(build_one)));
        for built in std::iter::once(a).chain(b) {
            reports.extend(built?);
            built_jobs += 1;
        }
    }
    // Compacted once every job is built, so that the jobs read their inputs as built (a
    // search of one ply for each probe of a searched slice would slow them down); a build
    // stopped before this compacts them when it is run again.
    let slices: Vec<Material> = jobs.iter().flat_map(|j| j.slices.iter().copied()).collect();
    pool.install(|| compact(&dir, R::VARIANT, &slices, DERIVED_FROM_PIECES, false))
        .map_err(|e| CliError {
            message: format!("compacting the tables built: {e}"),
            code: 1,
        })?;
    let reports: Vec<SliceReport> = reports
        .into_iter()
        .map(|r| on_disk::<R>(&store, r))
        .collect();
    print_out(&summary(
        &reports,
        built_jobs,
        start.elapsed().as_secs_f64(),
    ))
}

/// `report` (of a slice of `R`) with the bytes of its slice's files as they are now
/// (compacted); a file not written counts 0.
fn on_disk<R: Rules>(store: &Store, report: SliceReport) -> SliceReport {
    let bytes = |kind| {
        let path = store.path(R::VARIANT, report.material, kind);
        std::fs::metadata(path).map_or(0, |m| m.len())
    };
    SliceReport {
        wdl_bytes: bytes(FileKind::Wdl),
        dtw_bytes: bytes(FileKind::Dtw),
        dtc_bytes: bytes(FileKind::Dtc),
        rules_bytes: bytes(FileKind::Rules),
        ..report
    }
}

/// The job to build beside job `first` (both in build order): the first not `started`
/// after it whose inputs are `built` and whose own memory, added to `first`'s, stays within
/// `largest`.
fn partner(
    first: usize,
    started: &[bool],
    estimates: &[Estimate],
    largest: u64,
    built: impl Fn(usize) -> bool,
) -> Option<usize> {
    (first + 1..started.len()).find(|&j| {
        !started[j]
            && estimates[first].memory_bytes + estimates[j].own_memory_bytes() <= largest
            && built(j)
    })
}

/// Honours [`FAIL_SLICE_VAR`] (a test hook).
fn fail_on_request(job: &SliceJob) -> Result<(), CliError> {
    let Some(value) = std::env::var_os(FAIL_SLICE_VAR) else {
        return Ok(());
    };
    let asked = value.to_string_lossy();
    match asked.parse::<Material>() {
        Ok(m) if job.slices.contains(&m) => Err(CliError {
            message: format!("{FAIL_SLICE_VAR}={asked}: failing on purpose (test hook)"),
            code: 1,
        }),
        _ => Ok(()),
    }
}

fn slice_names(job: &SliceJob) -> String {
    job.slices
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join("+")
}

/// A build's progress drawn as an indicatif bar: the slices, the parts (levels of men
/// placements) solved, positions and the time left.
struct Bar(ProgressBar, String);

impl Progress for Bar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
        self.0.set_position(0);
    }
    fn advance(&self, n: u64) {
        self.0.inc(n);
    }
    fn parts(&self, done: u64, total: u64) {
        self.0
            .set_message(format!("{} part {done}/{total}", self.1));
    }
    fn finish(&self) {
        self.0.set_position(self.0.length().unwrap_or(0));
    }
}

/// `1 slice`, `2 slices`.
fn slices_count(n: usize) -> String {
    match n {
        1 => "1 slice".to_string(),
        n => format!("{n} slices"),
    }
}

/// The bar of a job of `positions` positions. The generator counts its own units of work
/// (each position once per pass), so the bar shows a share, and the message the positions.
fn progress_bar(job: &SliceJob, positions: u64) -> ProgressBar {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {percent:>3}%, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(format!("{} ({positions} positions)", slice_names(job)));
    bar
}

fn plan_text<R: Rules>(jobs: &[SliceJob]) -> String {
    let mut out = String::new();
    let estimates: Vec<Estimate> = jobs.iter().map(estimate::<R>).collect();
    for (job, e) in jobs.iter().zip(&estimates) {
        let inputs: Vec<String> = job.inputs.iter().map(|m| m.to_string()).collect();
        out.push_str(&format!(
            "{} pieces {} positions {} memory {} one-core {} inputs {}\n",
            slice_names(job),
            job.key().pieces(),
            e.positions,
            human_bytes(e.memory_bytes),
            human_seconds(e.core_seconds),
            if inputs.is_empty() {
                "-".to_string()
            } else {
                inputs.join(",")
            }
        ));
    }
    if let Some(total) = plan_total(jobs, &estimates) {
        out.push_str(&total);
    }
    out
}

/// The closing line of a plan: totals and the job that needs the most memory.
fn plan_total(jobs: &[SliceJob], estimates: &[Estimate]) -> Option<String> {
    let (largest, e) = jobs
        .iter()
        .zip(estimates)
        .max_by_key(|(_, e)| e.memory_bytes)?;
    let positions: u64 = estimates.iter().map(|e| e.positions).sum();
    let seconds: f64 = estimates.iter().map(|e| e.core_seconds).sum();
    let mut line = format!(
        "total jobs {} positions {positions} core-hours {:.1}; largest {} memory {} \
         one-core {}",
        jobs.len(),
        seconds / 3600.0,
        slice_names(largest),
        human_bytes(e.memory_bytes),
        human_seconds(e.core_seconds),
    );
    // What every job's memory holds besides its own levels: why a 2-piece job needs 1.34 GiB.
    let shared = e.memory_bytes - e.own_memory_bytes();
    line.push_str(&format!(
        "\nmemory is each job's peak: {} of it is shared by the jobs that run at once (a {} \
         cache of input blocks, the predecessors kept and the program itself)\n",
        human_bytes(shared),
        human_bytes(BUILD_CACHE_BYTES as u64),
    ));
    Some(line)
}

/// The closing lines of a build: slices (and the jobs that built them, a slice with its twin
/// each), positions, time, bytes.
fn summary(reports: &[SliceReport], jobs: usize, seconds: f64) -> String {
    let built: Vec<&SliceReport> = reports.iter().filter(|r| !r.skipped).collect();
    let positions: u64 = built.iter().map(|r| r.positions).sum();
    let wdl: u64 = built.iter().map(|r| r.wdl_bytes).sum();
    let dtw: u64 = built.iter().map(|r| r.dtw_bytes).sum();
    let dtc: u64 = built.iter().map(|r| r.dtc_bytes).sum();
    let rules: u64 = built.iter().map(|r| r.rules_bytes).sum();
    let all = wdl + dtw + dtc + rules;
    format!(
        "slices {} built in {jobs} jobs, {} already done\npositions {positions}\nseconds \
         {seconds:.2}\n\
         positions per second {:.0}\nbytes {all} (win/draw/loss {wdl}, distance {dtw}, to \
         conversion {dtc}, rules {rules})\n\
         positions per byte {:.1} (win/draw/loss {:.1})\n",
        built.len(),
        reports.len() - built.len(),
        positions as f64 / seconds.max(1e-9),
        positions as f64 / all.max(1) as f64,
        positions as f64 / wdl.max(1) as f64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use damka::rules::English;

    /// A partner is the first later job not started whose inputs are built and whose own
    /// memory fits beside the first job's within the limit.
    #[test]
    fn a_partner_is_built_and_fits_beside() {
        let jobs = plan(5, English::MEN);
        let estimates: Vec<Estimate> = jobs.iter().map(estimate::<English>).collect();
        let largest = estimates.iter().map(|e| e.memory_bytes).max().unwrap();
        let mut started = vec![false; jobs.len()];
        started[0] = true;
        assert_eq!(partner(0, &started, &estimates, largest, |_| true), Some(1));
        started[1] = true;
        assert_eq!(partner(0, &started, &estimates, largest, |_| true), Some(2));
        assert_eq!(
            partner(0, &started, &estimates, largest, |j| j == 7),
            Some(7)
        );
        assert_eq!(partner(0, &started, &estimates, largest, |_| false), None);
        // Exactly room for the next job's own memory, then a byte less.
        let fits = estimates[0].memory_bytes + estimates[2].own_memory_bytes();
        assert!(estimates[2].own_memory_bytes() > 0);
        assert_eq!(partner(0, &started, &estimates, fits, |j| j == 2), Some(2));
        assert_eq!(partner(0, &started, &estimates, fits - 1, |j| j == 2), None);
        // The last job has none after it.
        let last = jobs.len() - 1;
        assert_eq!(
            partner(last, &started, &estimates, u64::MAX, |_| true),
            None
        );
    }
}
