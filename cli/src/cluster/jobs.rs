//! Building tables on a Slurm cluster: the build plan becomes a graph of batch jobs, one per
//! slice job, each waiting (`afterok`) for the jobs that build its inputs, and a last job
//! that verifies every table.
//!
//! This module is pure: the job graph ([`submission`]), the `sbatch` command lines
//! ([`Context`]), the state file that remembers the job ids ([`JobsFile`]), and what a slice's
//! files and Slurm's answers say about it ([`SliceStatus`]). [`super::slurm`] runs the Slurm
//! commands.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use damka::Variant;
use damka::tablebase::generate::{BUILD_BASE_BYTES, BUILD_CACHE_BYTES, Estimate};
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;
use damka::tablebase::{Material, SliceJob};

/// A Slurm job id.
pub type JobId = u64;

/// CPUs a job asks for at most, unless told otherwise.
pub const DEFAULT_MAX_CPUS: u32 = 16;

/// The wall time a job aims at: a job gets one CPU per this many seconds of one-core work
/// (up to the maximum), so that no job holds the graph up for hours when CPUs are free.
pub const TARGET_SECONDS: f64 = 1800.0;

/// What is known of one slice job before a submission.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Known {
    /// Its files are in the tables directory.
    Done,
    /// A job of an earlier submission builds it (pending or running).
    Queued(JobId),
    /// It must be submitted.
    Build,
}

/// A job a new job waits for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum After {
    /// The job of `Submission::slices[i]`, submitted in the same submission.
    Planned(usize),
    /// A job already in Slurm's queue.
    Queued(JobId),
}

/// CPUs and memory asked of Slurm for one job.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// `--cpus-per-task`.
    pub cpus: u32,
    /// `--mem`, in MiB.
    pub memory_mib: u64,
}

impl Request {
    /// The request for a job expected to peak at `memory_bytes` and to take `core_seconds`
    /// on one core: one CPU per [`TARGET_SECONDS`] of work, from 1 to `max_cpus`.
    pub fn for_work(memory_bytes: u64, core_seconds: f64, max_cpus: u32) -> Request {
        let cpus = (core_seconds / TARGET_SECONDS).ceil().max(1.0);
        Request {
            cpus: (cpus.min(max_cpus.max(1) as f64)) as u32,
            memory_mib: memory_bytes.div_ceil(1 << 20),
        }
    }
}

/// One slice job to submit.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedSlice {
    /// The slices it builds and the ones it reads.
    pub job: SliceJob,
    /// Its expected size, memory and one-core time.
    pub estimate: Estimate,
    /// What it asks of Slurm.
    pub request: Request,
    /// The jobs building its inputs that it waits for (inputs already built need none).
    pub after: Vec<After>,
}

/// The closing job that runs `damka verify` once every slice job has succeeded.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedVerify {
    /// What it asks of Slurm.
    pub request: Request,
    /// Every slice job of the build still to finish.
    pub after: Vec<After>,
}

/// The jobs one `damka cluster submit` sends, in an order where each job's dependencies
/// come before it.
#[derive(Clone, Debug, PartialEq)]
pub struct Submission {
    /// The slice jobs to submit.
    pub slices: Vec<PlannedSlice>,
    /// The verify job; none when there is no slice job to submit.
    pub verify: Option<PlannedVerify>,
}

/// Why a submission cannot be made.
#[derive(Debug)]
pub enum ClusterError {
    /// The state file cannot be read or written.
    State(PathBuf, String),
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::State(path, e) => write!(f, "{}: {e}", path.display()),
        }
    }
}

impl std::error::Error for ClusterError {}

/// The jobs to submit for `jobs` (a plan, in build order, with their `estimates`), given what
/// is `known` of each: every job to build waits for the jobs that build its inputs, whether
/// submitted now or queued before; the verify job waits for all of them.
pub fn submission(
    jobs: &[SliceJob],
    estimates: &[Estimate],
    known: &[Known],
    max_cpus: u32,
) -> Submission {
    let job_of: HashMap<Material, usize> = jobs
        .iter()
        .enumerate()
        .flat_map(|(i, j)| j.slices.iter().map(move |&m| (m, i)))
        .collect();
    // Where the job building each plan job is, if it is not done.
    let mut pending: Vec<Option<After>> = vec![None; jobs.len()];
    let mut slices = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        match known[i] {
            Known::Done => {}
            Known::Queued(id) => pending[i] = Some(After::Queued(id)),
            Known::Build => {
                let after = sorted(
                    job.inputs
                        .iter()
                        .filter_map(|m| job_of.get(m))
                        .filter_map(|&j| pending[j]),
                );
                let e = estimates[i];
                slices.push(PlannedSlice {
                    job: job.clone(),
                    estimate: e,
                    request: Request::for_work(e.memory_bytes, e.core_seconds, max_cpus),
                    after,
                });
                pending[i] = Some(After::Planned(slices.len() - 1));
            }
        }
    }
    let verify = (!slices.is_empty()).then(|| {
        // `damka verify` reads a slice pair level by level as the build does: the largest
        // job's memory, with the probing cache of a default `Tablebase` for the build's.
        let largest = estimates.iter().map(|e| e.memory_bytes).max().unwrap_or(0);
        let seconds: f64 = estimates.iter().map(|e| e.core_seconds).sum();
        let memory = (largest + DEFAULT_CACHE_BYTES as u64)
            .saturating_sub(BUILD_CACHE_BYTES as u64)
            .max(BUILD_BASE_BYTES);
        PlannedVerify {
            request: Request::for_work(memory, seconds, max_cpus),
            after: sorted(pending.iter().flatten().copied()),
        }
    });
    Submission { slices, verify }
}

/// Jobs already queued first (by id), then those of the submission (in its order); once each.
fn sorted(after: impl Iterator<Item = After>) -> Vec<After> {
    let mut after: Vec<After> = after.collect();
    after.sort_by_key(|a| match a {
        After::Queued(id) => (0, *id),
        After::Planned(n) => (1, *n as u64),
    });
    after.dedup();
    after
}

/// Where and how the jobs of a build run: the variant, the damka binary the jobs run, the
/// tables directory (both absolute: jobs run on other machines, in other directories), and
/// what is passed to every `sbatch`.
#[derive(Clone, Debug)]
pub struct Context {
    /// The variant built.
    pub variant: Variant,
    /// The damka binary the jobs run.
    pub damka: PathBuf,
    /// The tables directory, on a filesystem every node sees.
    pub tables: PathBuf,
    /// `--partition`, if any.
    pub partition: Option<String>,
    /// `--account`, if any.
    pub account: Option<String>,
    /// More `sbatch` arguments, passed as they are (`--time=4:00:00`, `--qos=long`).
    pub extra: Vec<String>,
}

impl Context {
    /// The Slurm job name of a slice job (`damka-english-2101`), or of the verify job
    /// (`damka-english-verify`) when `key` is `None`.
    pub fn job_name(&self, key: Option<Material>) -> String {
        format!("damka-{}-{}", self.variant.name(), job_label(key))
    }

    /// The log file of a slice job, or of the verify job when `key` is `None`.
    pub fn log_path(&self, key: Option<Material>) -> PathBuf {
        log_path(&self.tables, self.variant, key)
    }

    /// The `sbatch` arguments of a slice job; `after` names the jobs it waits for.
    pub fn slice_args(&self, slice: &PlannedSlice, after: &[String]) -> Vec<String> {
        let key = slice.job.key();
        let command = vec![
            self.damka.display().to_string(),
            "generate".to_string(),
            "--variant".to_string(),
            self.variant.name().to_string(),
            "--slice".to_string(),
            key.to_string(),
            "--tables".to_string(),
            self.tables.display().to_string(),
            "--threads".to_string(),
            slice.request.cpus.to_string(),
        ];
        self.sbatch_args(Some(key), slice.request, after, &command)
    }

    /// The `sbatch` arguments of the verify job; `after` names the jobs it waits for.
    pub fn verify_args(&self, verify: &PlannedVerify, after: &[String]) -> Vec<String> {
        let command = vec![
            self.damka.display().to_string(),
            "verify".to_string(),
            "--variant".to_string(),
            self.variant.name().to_string(),
            "--tables".to_string(),
            self.tables.display().to_string(),
        ];
        self.sbatch_args(None, verify.request, after, &command)
    }

    fn sbatch_args(
        &self,
        key: Option<Material>,
        request: Request,
        after: &[String],
        command: &[String],
    ) -> Vec<String> {
        let mut args = vec![
            "--parsable".to_string(),
            // Held until the whole graph is in, then released: no job can finish (or fail)
            // before the jobs that wait for it name it.
            "--hold".to_string(),
            format!("--job-name={}", self.job_name(key)),
            format!("--output={}", self.log_path(key).display()),
            format!("--cpus-per-task={}", request.cpus),
            format!("--mem={}M", request.memory_mib),
            "--kill-on-invalid-dep=yes".to_string(),
        ];
        if !after.is_empty() {
            args.push(format!("--dependency=afterok:{}", after.join(":")));
        }
        if let Some(p) = &self.partition {
            args.push(format!("--partition={p}"));
        }
        if let Some(a) = &self.account {
            args.push(format!("--account={a}"));
        }
        args.extend(self.extra.iter().cloned());
        let words: Vec<String> = command.iter().map(|w| shell_quote(w)).collect();
        args.push(format!("--wrap=exec {}", words.join(" ")));
        args
    }

    /// A shell script that makes the submission: what `--dry-run` prints. Jobs of this
    /// submission are shell variables (`$J1`), set from `sbatch --parsable`; the last line
    /// releases them.
    pub fn script(&self, sub: &Submission) -> String {
        let name = |a: &After| match a {
            After::Planned(i) => format!("$J{}", i + 1),
            After::Queued(id) => id.to_string(),
        };
        let mut out = format!(
            "#!/bin/sh\n# damka cluster submit --dry-run: {} jobs for {} (tables {})\nset -e\n",
            sub.slices.len() + usize::from(sub.verify.is_some()),
            self.variant.name(),
            self.tables.display()
        );
        let mut vars = Vec::new();
        for (i, s) in sub.slices.iter().enumerate() {
            let after: Vec<String> = s.after.iter().map(name).collect();
            let var = format!("J{}", i + 1);
            out.push_str(&format!(
                "{var}=$(sbatch {})\n",
                script_words(&self.slice_args(s, &after))
            ));
            vars.push(format!("${var}"));
        }
        if let Some(v) = &sub.verify {
            let after: Vec<String> = v.after.iter().map(name).collect();
            out.push_str(&format!(
                "V=$(sbatch {})\n",
                script_words(&self.verify_args(v, &after))
            ));
            vars.push("$V".to_string());
        }
        if !vars.is_empty() {
            out.push_str(&format!("scontrol release \"{}\"\n", vars.join(",")));
        }
        out
    }
}

fn job_label(key: Option<Material>) -> String {
    key.map_or("verify".to_string(), |k| k.to_string())
}

/// The directory of the jobs' logs: `logs/` in the tables directory.
pub fn logs_dir(tables: &Path) -> PathBuf {
    tables.join("logs")
}

/// The log of a slice job of `variant` (`logs/english-2101.log`), or of the verify job when
/// `key` is `None` (`logs/english-verify.log`).
pub fn log_path(tables: &Path, variant: Variant, key: Option<Material>) -> PathBuf {
    logs_dir(tables).join(format!("{}-{}.log", variant.name(), job_label(key)))
}

/// Quotes `word` for a POSIX shell (unchanged when it needs no quotes).
pub fn shell_quote(word: &str) -> String {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b);
    if !word.is_empty() && word.bytes().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The words of an `sbatch` line of the dry-run script: quoted, except that a dependency on
/// jobs of the script stays open to the shell (`"--dependency=afterok:$J1:$J2"`).
fn script_words(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if a.starts_with("--dependency=") && a.contains('$') {
                format!("\"{a}\"")
            } else {
                shell_quote(a)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The state a build on the cluster leaves in the tables directory: which job builds each
/// slice job, and the verify job. `damka cluster submit` writes it, `damka cluster status`
/// reads it.
///
/// One file per variant, `cluster-VARIANT.jobs`, lines of words:
/// `variant english`, `pieces 4`, `slice 2101 17` (a slice job's key and job id),
/// `verify 31`; `#` starts a comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobsFile {
    /// The variant built.
    pub variant: Variant,
    /// The most pieces submitted.
    pub pieces: u32,
    /// The last job submitted for each slice job, by key.
    pub slices: BTreeMap<Material, JobId>,
    /// The last verify job.
    pub verify: Option<JobId>,
}

impl JobsFile {
    /// An empty state.
    pub fn new(variant: Variant, pieces: u32) -> JobsFile {
        JobsFile {
            variant,
            pieces,
            slices: BTreeMap::new(),
            verify: None,
        }
    }

    /// The state file of `variant` in `tables`.
    pub fn path(tables: &Path, variant: Variant) -> PathBuf {
        tables.join(format!("cluster-{}.jobs", variant.name()))
    }

    /// Reads a state file's text.
    pub fn parse(text: &str) -> Result<JobsFile, String> {
        let mut variant = None;
        let mut pieces = None;
        let mut slices = BTreeMap::new();
        let mut verify = None;
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let bad = || format!("line {}: cannot read '{line}'", n + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["variant", v] => variant = Some(v.parse::<Variant>().map_err(|_| bad())?),
                ["pieces", p] => pieces = Some(p.parse::<u32>().map_err(|_| bad())?),
                ["slice", key, id] => {
                    let key: Material = key.parse().map_err(|_| bad())?;
                    slices.insert(key, id.parse().map_err(|_| bad())?);
                }
                ["verify", id] => verify = Some(id.parse().map_err(|_| bad())?),
                _ => return Err(bad()),
            }
        }
        Ok(JobsFile {
            variant: variant.ok_or("no 'variant' line")?,
            pieces: pieces.ok_or("no 'pieces' line")?,
            slices,
            verify,
        })
    }

    /// The state file's text.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "# damka cluster jobs: written by `damka cluster submit`, read by `status`\n\
             variant {}\npieces {}\n",
            self.variant.name(),
            self.pieces
        );
        for (key, id) in &self.slices {
            out.push_str(&format!("slice {key} {id}\n"));
        }
        if let Some(id) = self.verify {
            out.push_str(&format!("verify {id}\n"));
        }
        out
    }

    /// Reads the state file of `variant` in `tables`; `None` when there is none.
    pub fn load(tables: &Path, variant: Variant) -> Result<Option<JobsFile>, ClusterError> {
        let path = JobsFile::path(tables, variant);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ClusterError::State(path, e.to_string())),
        };
        let state = JobsFile::parse(&text).map_err(|e| ClusterError::State(path.clone(), e))?;
        if state.variant != variant {
            return Err(ClusterError::State(
                path,
                format!("holds the jobs of {}, not {variant}", state.variant),
            ));
        }
        Ok(Some(state))
    }

    /// Writes the state file into `tables`: to a temporary name, then renamed over the old.
    pub fn save(&self, tables: &Path) -> Result<(), ClusterError> {
        let path = JobsFile::path(tables, self.variant);
        damka::files::write_atomically(&path, self.to_text().as_bytes())
            .map_err(|e| ClusterError::State(path.clone(), e.to_string()))
    }
}

/// What Slurm says of one job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobInfo {
    /// `PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, ...
    pub state: String,
    /// Why it is pending or how it ended (`Dependency`, `NonZeroExitCode`, ...).
    pub reason: String,
    /// `ExitCode` from `scontrol show job` (`1:0`: exit status 1, no signal), for jobs that
    /// ended badly.
    pub exit_code: Option<String>,
}

impl JobInfo {
    /// Whether the job has ended (in any way).
    pub fn is_finished(&self) -> bool {
        const ENDED: [&str; 10] = [
            "COMPLETED",
            "FAILED",
            "CANCELLED",
            "TIMEOUT",
            "NODE_FAIL",
            "PREEMPTED",
            "BOOT_FAIL",
            "DEADLINE",
            "OUT_OF_MEMORY",
            "REVOKED",
        ];
        ENDED.contains(&self.state.as_str())
    }

    /// Whether the job waits to start.
    pub fn is_pending(&self) -> bool {
        self.state == "PENDING" || self.state.starts_with("REQUEUE")
    }
}

/// Reads `squeue -h -o '%i|%T|%r'` output: one job a line, id, state and reason.
pub fn parse_squeue(text: &str) -> HashMap<JobId, JobInfo> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.trim().splitn(3, '|');
            let id = parts.next()?.trim().parse().ok()?;
            let state = parts.next()?.trim().to_string();
            let reason = parts.next().unwrap_or("").trim().to_string();
            Some((
                id,
                JobInfo {
                    state,
                    reason,
                    exit_code: None,
                },
            ))
        })
        .collect()
}

/// The value of `field` (`JobState`, `ExitCode`, ...) in `scontrol show job -o` output.
pub fn scontrol_field(text: &str, field: &str) -> Option<String> {
    let prefix = format!("{field}=");
    text.split_whitespace()
        .find_map(|w| w.strip_prefix(prefix.as_str()))
        .map(str::to_string)
}

/// Where one slice job stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SliceStatus {
    /// Its files are there.
    Done,
    /// Its job waits (for its inputs, for CPUs, held).
    Pending {
        /// The job.
        job: JobId,
        /// Slurm's reason.
        reason: String,
    },
    /// Its job runs.
    Running {
        /// The job.
        job: JobId,
    },
    /// Its job ended without its files: failed, cancelled (an input failed), timed out.
    Failed {
        /// The job.
        job: JobId,
        /// What Slurm says of it.
        info: JobInfo,
    },
    /// Its job is no longer known to Slurm and its files are not there.
    Lost {
        /// The job.
        job: JobId,
    },
    /// Never submitted.
    Missing,
}

impl SliceStatus {
    /// The status of a slice job from its files (`done`), the job last submitted for it, and
    /// what Slurm says of that job (`None`: Slurm does not list it).
    pub fn of(done: bool, job: Option<JobId>, info: Option<&JobInfo>) -> SliceStatus {
        match (done, job, info) {
            (true, _, _) => SliceStatus::Done,
            (false, None, _) => SliceStatus::Missing,
            (false, Some(job), None) => SliceStatus::Lost { job },
            (false, Some(job), Some(info)) if info.is_finished() => SliceStatus::Failed {
                job,
                info: info.clone(),
            },
            (false, Some(job), Some(info)) if info.is_pending() => SliceStatus::Pending {
                job,
                reason: info.reason.clone(),
            },
            (false, Some(job), Some(_)) => SliceStatus::Running { job },
        }
    }

    /// One word: `done`, `pending`, `running`, `failed`, `cancelled` or `missing`.
    pub fn word(&self) -> &'static str {
        match self {
            SliceStatus::Done => "done",
            SliceStatus::Pending { .. } => "pending",
            SliceStatus::Running { .. } => "running",
            SliceStatus::Failed { info, .. } if info.state == "CANCELLED" => "cancelled",
            SliceStatus::Failed { .. } | SliceStatus::Lost { .. } => "failed",
            SliceStatus::Missing => "missing",
        }
    }

    /// What a new submission makes of it: done, queued (left alone), or to build.
    pub fn known(&self) -> Known {
        match self {
            SliceStatus::Done => Known::Done,
            SliceStatus::Pending { job, .. } | SliceStatus::Running { job } => Known::Queued(*job),
            _ => Known::Build,
        }
    }
}

impl fmt::Display for SliceStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SliceStatus::Done | SliceStatus::Missing => write!(f, "{}", self.word()),
            SliceStatus::Pending { job, reason } => write!(f, "pending: job {job} ({reason})"),
            SliceStatus::Running { job } => write!(f, "running: job {job}"),
            SliceStatus::Failed { job, info } => {
                write!(f, "{}: job {job} {}", self.word(), info.state)?;
                if !info.reason.is_empty() && info.reason != "None" {
                    write!(f, " ({})", info.reason)?;
                }
                if let Some(code) = info.exit_code.as_deref().filter(|c| *c != "0:0") {
                    write!(f, " exit code {code}")?;
                }
                if info.state == "COMPLETED" {
                    write!(f, " but its tables are not there")?;
                }
                Ok(())
            }
            SliceStatus::Lost { job } => write!(
                f,
                "failed: job {job} ended without its tables (Slurm no longer lists it)"
            ),
        }
    }
}

/// How many slice jobs stand where: the overall line of `damka cluster status`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Built.
    pub done: usize,
    /// Waiting to run.
    pub pending: usize,
    /// Running.
    pub running: usize,
    /// Ended without their files (failed or lost).
    pub failed: usize,
    /// Cancelled (an input failed).
    pub cancelled: usize,
    /// Never submitted.
    pub missing: usize,
}

impl Tally {
    /// Counts `statuses`.
    pub fn of<'a>(statuses: impl IntoIterator<Item = &'a SliceStatus>) -> Tally {
        let mut t = Tally::default();
        for s in statuses {
            match s.word() {
                "done" => t.done += 1,
                "pending" => t.pending += 1,
                "running" => t.running += 1,
                "cancelled" => t.cancelled += 1,
                "missing" => t.missing += 1,
                _ => t.failed += 1,
            }
        }
        t
    }

    /// `complete`, `in progress` (jobs queued), or `incomplete` (nothing queued builds what
    /// is missing: submit again).
    pub fn verdict(&self) -> &'static str {
        if self.pending + self.running > 0 {
            "in progress"
        } else if self.failed + self.cancelled + self.missing > 0 {
            "incomplete"
        } else {
            "complete"
        }
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} jobs: {} done, {} running, {} pending, {} failed, {} cancelled, {} missing: {}",
            self.done + self.pending + self.running + self.failed + self.cancelled + self.missing,
            self.done,
            self.running,
            self.pending,
            self.failed,
            self.cancelled,
            self.missing,
            self.verdict()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damka::rules::{English, Rules};
    use damka::tablebase::{estimate, plan};

    fn english(pieces: u32) -> (Vec<SliceJob>, Vec<Estimate>) {
        let jobs = plan(pieces, English::MEN);
        let e = jobs.iter().map(estimate::<English>).collect();
        (jobs, e)
    }

    fn index_of(jobs: &[SliceJob], key: &str) -> usize {
        let m: Material = key.parse().unwrap();
        jobs.iter().position(|j| j.key() == m).unwrap()
    }

    #[test]
    fn every_job_waits_for_exactly_the_jobs_of_its_unbuilt_inputs() {
        let (jobs, e) = english(4);
        let known = vec![Known::Build; jobs.len()];
        let sub = submission(&jobs, &e, &known, 16);
        assert_eq!(sub.slices.len(), jobs.len());
        for (i, s) in sub.slices.iter().enumerate() {
            assert_eq!(s.job, jobs[i]);
            let mut want: Vec<usize> = s
                .job
                .inputs
                .iter()
                .map(|m| jobs.iter().position(|j| j.slices.contains(m)).unwrap())
                .collect();
            want.sort();
            want.dedup();
            let got: Vec<usize> = s
                .after
                .iter()
                .map(|a| match a {
                    After::Planned(n) => *n,
                    After::Queued(_) => panic!("nothing is queued"),
                })
                .collect();
            assert_eq!(got, want, "{}", s.job.key());
            assert!(got.iter().all(|&n| n < i), "dependencies come first");
        }
        let verify = sub.verify.unwrap();
        assert_eq!(verify.after.len(), jobs.len());
    }

    #[test]
    fn done_inputs_need_no_dependency_and_queued_ones_keep_their_job() {
        let (jobs, e) = english(4);
        // 2101+0121 reads 0101, 0102, 1001, 1002, 1101, 2001 (and others' twins).
        let key = index_of(&jobs, "2101");
        let mut known: Vec<Known> = jobs
            .iter()
            .map(|j| match j.key().pieces() {
                2 => Known::Done,
                3 => Known::Build,
                _ => Known::Done,
            })
            .collect();
        known[key] = Known::Build;
        let q = index_of(&jobs, "2001");
        known[q] = Known::Queued(77);
        let sub = submission(&jobs, &e, &known, 16);
        let three: Vec<&PlannedSlice> = sub
            .slices
            .iter()
            .filter(|s| s.job.key().pieces() == 3)
            .collect();
        assert_eq!(
            three.len(),
            jobs.iter().filter(|j| j.key().pieces() == 3).count() - 1
        );
        // Each job waits for what builds its inputs: nothing for a done one, the queued job,
        // or the job of this submission.
        for s in &sub.slices {
            let mut want: Vec<After> = Vec::new();
            for m in &s.job.inputs {
                let j = jobs.iter().position(|j| j.slices.contains(m)).unwrap();
                match known[j] {
                    Known::Done => {}
                    Known::Queued(id) => want.push(After::Queued(id)),
                    Known::Build => want.push(After::Planned(
                        sub.slices.iter().position(|p| p.job == jobs[j]).unwrap(),
                    )),
                }
            }
            want.sort_by_key(|a| match a {
                After::Queued(id) => (0, *id),
                After::Planned(n) => (1, *n as u64),
            });
            want.dedup();
            assert_eq!(s.after, want, "{}", s.job.key());
        }
        let last = sub.slices.last().unwrap();
        assert_eq!(last.job.key().to_string(), "2101");
        assert!(last.after.contains(&After::Queued(77)));
        assert!(
            last.after.len() >= 2,
            "2101 reads 2001 (queued) and 1101 (planned)"
        );
        let verify = sub.verify.unwrap();
        assert_eq!(verify.after.len(), sub.slices.len() + 1);
        assert!(verify.after.contains(&After::Queued(77)));
    }

    #[test]
    fn built_slices_are_left_out_and_the_rest_verified() {
        let jobs = plan(3, English::MEN);
        let estimates: Vec<_> = jobs.iter().map(estimate::<English>).collect();
        // Every slice of 2 pieces is built already; those of 3 pieces are to build.
        let known: Vec<Known> = jobs
            .iter()
            .map(|j| {
                if j.key().pieces() == 2 {
                    Known::Done
                } else {
                    Known::Build
                }
            })
            .collect();
        let sub = submission(&jobs, &estimates, &known, 16);
        assert!(sub.slices.iter().all(|s| s.job.key().pieces() == 3));
        assert!(sub.verify.is_some());
    }

    #[test]
    fn nothing_to_build_submits_nothing() {
        let (jobs, e) = english(3);
        let mut known = vec![Known::Done; jobs.len()];
        known[0] = Known::Queued(5);
        let sub = submission(&jobs, &e, &known, 16);
        assert!(sub.slices.is_empty());
        assert!(sub.verify.is_none());
    }

    #[test]
    fn requests_grow_with_the_work_up_to_the_cap() {
        let r = Request::for_work(3 << 30, 10.0, 16);
        assert_eq!(
            r,
            Request {
                cpus: 1,
                memory_mib: 3072
            }
        );
        assert_eq!(Request::for_work(1, 3.5 * TARGET_SECONDS, 16).cpus, 4);
        assert_eq!(Request::for_work(1, 100.0 * TARGET_SECONDS, 16).cpus, 16);
        assert_eq!(Request::for_work((1 << 20) + 1, 0.0, 0).memory_mib, 2);
    }

    fn context() -> Context {
        Context {
            variant: Variant::English,
            damka: PathBuf::from("/opt/damka bin/damka"),
            tables: PathBuf::from("/shared/tables"),
            partition: Some("long".to_string()),
            account: None,
            extra: vec!["--time=1:00:00".to_string()],
        }
    }

    #[test]
    fn sbatch_lines_name_the_job_its_log_resources_and_command() {
        let (jobs, e) = english(4);
        let known = vec![Known::Build; jobs.len()];
        let sub = submission(&jobs, &e, &known, 16);
        let i = index_of(&jobs, "2101");
        let s = &sub.slices[i];
        let args = context().slice_args(s, &["12".to_string(), "15".to_string()]);
        let mem = format!("--mem={}M", s.request.memory_mib);
        assert_eq!(
            args,
            vec![
                "--parsable",
                "--hold",
                "--job-name=damka-english-2101",
                "--output=/shared/tables/logs/english-2101.log",
                "--cpus-per-task=1",
                mem.as_str(),
                "--kill-on-invalid-dep=yes",
                "--dependency=afterok:12:15",
                "--partition=long",
                "--time=1:00:00",
                "--wrap=exec '/opt/damka bin/damka' generate --variant english --slice 2101 \
                 --tables /shared/tables --threads 1",
            ]
        );
        // The build's peak: two levels, 1 GiB of cache and the base.
        assert_eq!(
            s.request.memory_mib,
            s.estimate.memory_bytes.div_ceil(1 << 20)
        );
        assert!(s.estimate.memory_bytes > (1 << 30) + BUILD_BASE_BYTES);
    }

    #[test]
    fn the_dry_run_script_chains_jobs_through_shell_variables() {
        let (jobs, e) = english(3);
        let mut known: Vec<Known> = jobs
            .iter()
            .map(|j| match j.key().pieces() {
                2 => Known::Done,
                _ => Known::Build,
            })
            .collect();
        known[index_of(&jobs, "1101")] = Known::Queued(40);
        let sub = submission(&jobs, &e, &known, 16);
        let script = context().script(&sub);
        let lines: Vec<&str> = script.lines().collect();
        assert_eq!(lines[0], "#!/bin/sh");
        assert_eq!(lines[2], "set -e");
        assert!(lines[3].starts_with("J1=$(sbatch --parsable --hold"));
        assert_eq!(lines.len(), 3 + sub.slices.len() + 2);
        let release = format!(
            "scontrol release \"{},$V\"",
            (1..=sub.slices.len())
                .map(|i| format!("$J{i}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert_eq!(*lines.last().unwrap(), release);
        assert!(lines[lines.len() - 2].contains("damka-english-verify"));
        assert!(lines[lines.len() - 2].contains("\"--dependency=afterok:40:$J1"));
        assert!(script.contains("'--wrap=exec '\\''/opt/damka bin/damka'\\'' generate"));
    }

    #[test]
    fn state_files_round_trip_and_reject_garbage() {
        let mut s = JobsFile::new(Variant::International, 5);
        s.slices.insert("2101".parse().unwrap(), 17);
        s.slices.insert("0101".parse().unwrap(), 3);
        s.verify = Some(31);
        let text = s.to_text();
        assert!(text.contains("slice 0101 3\nslice 2101 17\nverify 31\n"));
        assert_eq!(JobsFile::parse(&text).unwrap(), s);
        assert!(JobsFile::parse("variant english\npieces 4\nslice 21 3\n").is_err());
        assert!(JobsFile::parse("pieces 4\n").is_err());
        assert!(JobsFile::parse("variant english\npieces 4\nverify x\n").is_err());
    }

    #[test]
    fn slurm_answers_make_statuses() {
        let jobs = parse_squeue(
            "17|FAILED|NonZeroExitCode\n18|CANCELLED|DependencyNeverSatisfied\n\
             19|PENDING|Dependency\n20|RUNNING|None\n21|COMPLETED|None\n",
        );
        assert_eq!(jobs.len(), 5);
        let mut failed = jobs[&17].clone();
        failed.exit_code = scontrol_field(
            "JobId=17 JobName=damka-english-2101 JobState=FAILED Reason=NonZeroExitCode \
             Dependency=(null) ExitCode=1:0 RunTime=00:00:01",
            "ExitCode",
        );
        assert_eq!(failed.exit_code.as_deref(), Some("1:0"));
        let s = SliceStatus::of(false, Some(17), Some(&failed));
        assert_eq!(s.word(), "failed");
        assert_eq!(
            s.to_string(),
            "failed: job 17 FAILED (NonZeroExitCode) exit code 1:0"
        );
        assert_eq!(s.known(), Known::Build);
        let s = SliceStatus::of(false, Some(18), jobs.get(&18));
        assert_eq!(s.word(), "cancelled");
        let s = SliceStatus::of(false, Some(19), jobs.get(&19));
        assert_eq!(s.to_string(), "pending: job 19 (Dependency)");
        assert_eq!(s.known(), Known::Queued(19));
        let s = SliceStatus::of(false, Some(20), jobs.get(&20));
        assert_eq!(s.known(), Known::Queued(20));
        assert_eq!(
            SliceStatus::of(false, Some(21), jobs.get(&21)).to_string(),
            "failed: job 21 COMPLETED but its tables are not there"
        );
        assert_eq!(
            SliceStatus::of(true, Some(17), Some(&failed)),
            SliceStatus::Done
        );
        assert_eq!(SliceStatus::of(false, None, None), SliceStatus::Missing);
        assert_eq!(
            SliceStatus::of(false, Some(9), None).word(),
            "failed",
            "a job Slurm forgot without files failed"
        );
        let all = [
            SliceStatus::Done,
            SliceStatus::of(false, Some(17), Some(&failed)),
            SliceStatus::of(false, Some(18), jobs.get(&18)),
            SliceStatus::Missing,
        ];
        let t = Tally::of(&all);
        assert_eq!(
            t.to_string(),
            "4 jobs: 1 done, 0 running, 0 pending, 1 failed, 1 cancelled, 1 missing: incomplete"
        );
        assert_eq!(Tally::of(&[SliceStatus::Done]).verdict(), "complete");
    }

    #[test]
    fn quoting_leaves_plain_words_alone() {
        assert_eq!(shell_quote("/a/b-c_d.e"), "/a/b-c_d.e");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
