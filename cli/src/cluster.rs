//! `damka cluster`: build the tables on a Slurm cluster (`submit`) and follow the build
//! (`status`).

mod jobs;
mod slurm;

use std::path::{Path, PathBuf};

use damka::RuleSet;
use damka::rules::Rules;
use damka::tablebase::{Contents, Estimate, SliceJob, Store, estimate, plan};
use damka::{Variant, with_rules};

use super::tables::{MOST_PIECES, human_bytes, human_seconds, tables_dir};
use super::{CliError, print_out};
use jobs::{
    After, Context, DEFAULT_MAX_CPUS, JobId, JobInfo, JobsFile, Known, SliceStatus, Submission,
    Tally, log_path, logs_dir, submission,
};
use slurm::SlurmError;

/// Arguments of `damka cluster`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: ClusterCommand,
}

#[derive(clap::Subcommand)]
enum ClusterCommand {
    /// Submit one Slurm job per slice job still to build, each waiting for the jobs of its
    /// inputs, then a job that verifies every table.
    ///
    /// Slices already built, and those a queued or running job builds, are not submitted
    /// again: after a failure, submit again. The tables directory must be on a filesystem
    /// every node sees; job logs go to its `logs/` directory.
    Submit(SubmitArgs),
    /// Per slice job: done, running, pending, failed, cancelled or missing; then an overall
    /// line.
    Status(StatusArgs),
}

#[derive(clap::Args)]
struct SubmitArgs {
    /// Variant: english, italian, spanish, russian, brazilian, international, turkish.
    #[arg(long)]
    variant: Variant,
    /// Build every slice with at most this many pieces.
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=MOST_PIECES as i64))]
    pieces: u32,
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Slurm partition of every job.
    #[arg(long)]
    partition: Option<String>,
    /// Slurm account charged for every job.
    #[arg(long)]
    account: Option<String>,
    /// Most CPUs one job asks for (a job gets one CPU per half hour of one-core work).
    #[arg(long, default_value_t = DEFAULT_MAX_CPUS, value_parser = clap::value_parser!(u32).range(1..=1024))]
    max_cpus: u32,
    /// One more sbatch argument for every job, as it is (`--sbatch-arg=--time=4:00:00`);
    /// repeat for more.
    #[arg(long = "sbatch-arg", allow_hyphen_values = true)]
    sbatch_args: Vec<String>,
    /// Print the submission as a shell script of sbatch commands; submit nothing.
    #[arg(long)]
    dry_run: bool,
}

#[derive(clap::Args)]
struct StatusArgs {
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Only this variant (default: every variant submitted to this directory).
    #[arg(long)]
    variant: Option<Variant>,
    /// Slices up to this many pieces (default: as submitted).
    #[arg(long, requires = "variant", value_parser = clap::value_parser!(u32).range(2..=MOST_PIECES as i64))]
    pieces: Option<u32>,
}

/// Runs `damka cluster submit` or `damka cluster status`.
pub fn run(args: Args) -> Result<(), CliError> {
    match args.command {
        ClusterCommand::Submit(a) => with_rules!(a.variant, R => submit::<R>(&a)),
        ClusterCommand::Status(a) => status(&a),
    }
}

fn slurm_error(e: SlurmError) -> CliError {
    CliError {
        message: e.to_string(),
        code: 1,
    }
}

fn cluster_error(e: jobs::ClusterError) -> CliError {
    CliError {
        message: e.to_string(),
        code: 1,
    }
}

/// The tables directory, absolute (jobs run elsewhere).
fn absolute(dir: &Path) -> Result<PathBuf, CliError> {
    std::path::absolute(dir).map_err(|e| CliError::input(format!("{}: {e}", dir.display())))
}

/// Whether `job` is built in `dir` as a cluster job builds it (the default files, under
/// the variant's default rules): the store's answer, as for a local build
/// ([`Store::job_done`]).
fn job_built(dir: &Path, variant: Variant, job: &SliceJob) -> bool {
    let contents = Contents {
        rules: RuleSet::default_for(variant),
        dtw: false,
    };
    Store::new(dir).job_done(variant, job, contents)
}

/// Each plan job's status: from its files, the state file and Slurm (asked only about the
/// jobs of slices not built).
fn statuses(
    dir: &Path,
    variant: Variant,
    jobs: &[SliceJob],
    state: Option<&JobsFile>,
    extra: Option<JobId>,
) -> Result<(Vec<SliceStatus>, Option<JobInfo>), SlurmError> {
    let done: Vec<bool> = jobs.iter().map(|j| job_built(dir, variant, j)).collect();
    let ids: Vec<Option<JobId>> = jobs
        .iter()
        .map(|j| state.and_then(|s| s.slices.get(&j.key()).copied()))
        .collect();
    let mut ask: Vec<JobId> = ids
        .iter()
        .zip(&done)
        .filter(|(_, d)| !**d)
        .filter_map(|(id, _)| *id)
        .collect();
    ask.extend(extra);
    let answers = slurm::query(&ask)?;
    let list = ids
        .iter()
        .zip(&done)
        .map(|(id, &d)| SliceStatus::of(d, *id, id.and_then(|i| answers.get(&i))))
        .collect();
    Ok((list, extra.and_then(|id| answers.get(&id).cloned())))
}

fn submit<R: Rules>(args: &SubmitArgs) -> Result<(), CliError> {
    let variant = R::VARIANT;
    let dir = absolute(&tables_dir(&args.tables)?)?;
    // Without Slurm nothing is written: no jobs file, no logs directory.
    if !args.dry_run {
        slurm::require(&["sbatch", "scontrol", "squeue"]).map_err(slurm_error)?;
    }
    let damka = std::env::current_exe().map_err(|e| CliError {
        message: format!("cannot find the damka binary the jobs should run: {e}"),
        code: 1,
    })?;
    let jobs = plan(args.pieces, R::MEN);
    let estimates: Vec<Estimate> = jobs.iter().map(estimate::<R>).collect();
    let old = JobsFile::load(&dir, variant).map_err(cluster_error)?;
    let known: Vec<Known> = match statuses(&dir, variant, &jobs, old.as_ref(), None) {
        Ok((list, _)) => list.iter().map(SliceStatus::known).collect(),
        // A dry run needs no Slurm: what Slurm would say of earlier jobs is then unknown.
        Err(e) if args.dry_run => {
            eprintln!("warning: {e}; earlier jobs are taken as not queued");
            jobs.iter()
                .map(|j| match job_built(&dir, variant, j) {
                    true => Known::Done,
                    false => Known::Build,
                })
                .collect()
        }
        Err(e) => return Err(slurm_error(e)),
    };
    let sub = submission(&jobs, &estimates, &known, args.max_cpus);
    let ctx = Context {
        variant,
        damka,
        tables: dir.clone(),
        partition: args.partition.clone(),
        account: args.account.clone(),
        extra: args.sbatch_args.clone(),
    };
    if args.dry_run {
        return print_out(&ctx.script(&sub));
    }
    let logs = logs_dir(&dir);
    std::fs::create_dir_all(&logs).map_err(|e| CliError {
        message: format!("{}: {e}", logs.display()),
        code: 2,
    })?;
    let mut state = old.unwrap_or_else(|| JobsFile::new(variant, args.pieces));
    state.pieces = state.pieces.max(args.pieces);
    let (ids, verify, failure) = send(&ctx, &sub, &mut state);
    state.save(&dir).map_err(cluster_error)?;
    let mut all: Vec<JobId> = ids.clone();
    all.extend(verify);
    let released = slurm::release(&all);
    print_out(&report(&jobs, &known, &sub, &ids, verify, &dir))?;
    if let Some(e) = failure {
        return Err(slurm_error(e));
    }
    released.map_err(|e| CliError {
        message: format!("{e}; the jobs are held: scontrol release {all:?}"),
        code: 1,
    })
}

/// Submits the jobs of `sub` in order, recording each in `state`; stops at the first sbatch
/// that fails. Returns the slice jobs' ids, the verify job's, and the failure if any.
fn send(
    ctx: &Context,
    sub: &Submission,
    state: &mut JobsFile,
) -> (Vec<JobId>, Option<JobId>, Option<SlurmError>) {
    let mut ids: Vec<JobId> = Vec::new();
    let name = |ids: &[JobId], a: &After| match a {
        After::Planned(i) => ids[*i].to_string(),
        After::Queued(id) => id.to_string(),
    };
    for s in &sub.slices {
        let after: Vec<String> = s.after.iter().map(|a| name(&ids, a)).collect();
        match slurm::sbatch(&ctx.slice_args(s, &after)) {
            Ok(id) => {
                state.slices.insert(s.job.key(), id);
                ids.push(id);
            }
            Err(e) => return (ids, None, Some(e)),
        }
    }
    let Some(v) = &sub.verify else {
        return (ids, None, None);
    };
    let after: Vec<String> = v.after.iter().map(|a| name(&ids, a)).collect();
    match slurm::sbatch(&ctx.verify_args(v, &after)) {
        Ok(id) => {
            state.verify = Some(id);
            (ids, Some(id), None)
        }
        Err(e) => (ids, None, Some(e)),
    }
}

fn names(job: &SliceJob) -> String {
    job.slices
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join("+")
}

/// What `submit` prints: per plan job, done, queued, or the job submitted with its size and
/// dependencies; then the verify job and a closing line.
fn report(
    jobs: &[SliceJob],
    known: &[Known],
    sub: &Submission,
    ids: &[JobId],
    verify: Option<JobId>,
    dir: &Path,
) -> String {
    let after = |list: &[After]| -> String {
        let words: Vec<String> = list
            .iter()
            .filter_map(|a| match a {
                After::Planned(i) => ids.get(*i).map(JobId::to_string),
                After::Queued(id) => Some(id.to_string()),
            })
            .collect();
        if words.is_empty() {
            String::new()
        } else {
            format!(" after {}", words.join(","))
        }
    };
    let mut out = String::new();
    let mut submitted = sub.slices.iter().zip(ids);
    let mut next = submitted.next();
    for (job, k) in jobs.iter().zip(known) {
        match k {
            Known::Done => out.push_str(&format!("{} done\n", names(job))),
            Known::Queued(id) => out.push_str(&format!("{} queued: job {id}\n", names(job))),
            Known::Build => {
                let Some((s, id)) = next.filter(|(s, _)| s.job == *job) else {
                    out.push_str(&format!("{} not submitted\n", names(job)));
                    continue;
                };
                out.push_str(&format!(
                    "{} positions {} memory {} cpus {} one-core {}: job {id}{}\n",
                    names(job),
                    s.estimate.positions,
                    human_bytes(s.request.memory_mib << 20),
                    s.request.cpus,
                    human_seconds(s.estimate.core_seconds),
                    after(&s.after)
                ));
                next = submitted.next();
            }
        }
    }
    if let (Some(v), Some(id)) = (&sub.verify, verify) {
        out.push_str(&format!("verify: job {id}{}\n", after(&v.after)));
    }
    let done = known.iter().filter(|k| **k == Known::Done).count();
    let queued = known
        .iter()
        .filter(|k| matches!(k, Known::Queued(_)))
        .count();
    out.push_str(&format!(
        "submitted {} slice jobs{}; {done} done, {queued} already queued; logs in {}\n",
        ids.len(),
        if verify.is_some() {
            " and a verify job"
        } else {
            ""
        },
        logs_dir(dir).display()
    ));
    out
}

fn status(args: &StatusArgs) -> Result<(), CliError> {
    let dir = absolute(&tables_dir(&args.tables)?)?;
    let variants: Vec<Variant> = match args.variant {
        Some(v) => vec![v],
        None => Variant::ALL
            .into_iter()
            .filter(|&v| JobsFile::path(&dir, v).is_file())
            .collect(),
    };
    if variants.is_empty() {
        return Err(CliError::input(format!(
            "no cluster build recorded in {} (give --variant and --pieces)",
            dir.display()
        )));
    }
    for variant in variants {
        let state = JobsFile::load(&dir, variant).map_err(cluster_error)?;
        let pieces = match (args.pieces, &state) {
            (Some(p), _) => p,
            (None, Some(s)) => s.pieces,
            (None, None) => {
                return Err(CliError::input(format!(
                    "no cluster build of {variant} recorded in {} (give --pieces)",
                    dir.display()
                )));
            }
        };
        let jobs = with_rules!(variant, R => plan(pieces, R::MEN));
        let verify = state.as_ref().and_then(|s| s.verify);
        let (list, verify_info) =
            statuses(&dir, variant, &jobs, state.as_ref(), verify).map_err(slurm_error)?;
        let mut out = String::new();
        for (job, s) in jobs.iter().zip(&list) {
            out.push_str(&format!("{variant} {} {s}", names(job)));
            if matches!(s, SliceStatus::Failed { .. } | SliceStatus::Lost { .. }) {
                let log = log_path(&dir, variant, Some(job.key()));
                if log.is_file() {
                    out.push_str(&format!(", log {}", log.display()));
                }
            }
            out.push('\n');
        }
        let mut verify_failed = false;
        if let Some(id) = verify {
            let what = verify_info.map_or("no longer listed by Slurm".to_string(), |i| {
                verify_failed = i.is_finished() && !["COMPLETED", "CANCELLED"].contains(&&*i.state);
                match i.exit_code.as_deref().filter(|c| *c != "0:0") {
                    Some(code) => format!("{} exit code {code}", i.state),
                    None => i.state,
                }
            });
            out.push_str(&format!("{variant} verify: job {id} {what}\n"));
        }
        out.push_str(&format!(
            "{variant} up to {pieces} pieces: {}",
            Tally::of(&list)
        ));
        if verify_failed {
            let log = log_path(&dir, variant, None);
            out.push_str(&format!("; verification failed, see {}", log.display()));
        }
        out.push('\n');
        print_out(&out)?;
    }
    Ok(())
}
