//! Running the Slurm commands: `sbatch`, `scontrol release`, `squeue`, `scontrol show job`.
//!
//! Every call has a deadline ([`DEADLINE`]): with the controller down a Slurm client waits
//! long before it gives up. A command that is not installed, that fails, that answers
//! nonsense or that does not answer in time is an [`SlurmError`] naming it.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::jobs::{JobId, JobInfo, parse_squeue, scontrol_field};

/// How long one Slurm command may take.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// A Slurm command that did not do its work.
#[derive(Debug)]
pub enum SlurmError {
    /// The command is not installed (not on `PATH`).
    Missing(String),
    /// The command could not be started or read.
    Io(String, std::io::Error),
    /// The command did not end within the deadline (it was killed).
    Timeout(String, Duration),
    /// The command failed: its exit status and the first line of its stderr.
    Failed(String, String),
    /// The command's answer could not be read.
    BadAnswer(String, String),
}

impl fmt::Display for SlurmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SlurmError::Missing(cmd) => write!(
                f,
                "{cmd} not found: run this on a Slurm login node (or use --dry-run)"
            ),
            SlurmError::Io(cmd, e) => write!(f, "{cmd}: {e}"),
            SlurmError::Timeout(cmd, d) => write!(
                f,
                "{cmd} did not answer within {} s (is slurmctld running?)",
                d.as_secs()
            ),
            SlurmError::Failed(cmd, why) => write!(f, "{cmd} failed: {why}"),
            SlurmError::BadAnswer(cmd, answer) => {
                write!(f, "{cmd} answered '{answer}', not what was expected")
            }
        }
    }
}

impl std::error::Error for SlurmError {}

/// Checks that the Slurm commands `programs` are installed (an executable file of that name
/// in a directory of `PATH`), so that a command that needs them fails before it writes
/// anything: the first missing one is [`SlurmError::Missing`].
pub fn require(programs: &[&str]) -> Result<(), SlurmError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<std::path::PathBuf> = std::env::split_paths(&path).collect();
    let installed = |program: &str| {
        dirs.iter().any(|dir| {
            let file = dir.join(program);
            std::fs::metadata(&file).is_ok_and(|m| m.is_file() && executable(&m))
        })
    };
    match programs.iter().find(|p| !installed(p)) {
        Some(missing) => Err(SlurmError::Missing(missing.to_string())),
        None => Ok(()),
    }
}

#[cfg(unix)]
fn executable(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    m.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn executable(_: &std::fs::Metadata) -> bool {
    true
}

/// Runs `program` with `args` and returns its stdout, within `deadline`.
pub fn run(program: &str, args: &[String], deadline: Duration) -> Result<String, SlurmError> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => SlurmError::Missing(program.to_string()),
            _ => SlurmError::Io(program.to_string(), e),
        })?;
    // Read both pipes while waiting: a full pipe would stop the command.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut text);
            }
            text
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SlurmError::Timeout(program.to_string(), deadline));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(SlurmError::Io(program.to_string(), e)),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if !status.success() {
        let why = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .map_or_else(|| status.to_string(), |l| l.trim().to_string());
        return Err(SlurmError::Failed(program.to_string(), why));
    }
    Ok(stdout)
}

/// Submits a batch job (`args` include `--parsable`) and returns its id.
pub fn sbatch(args: &[String]) -> Result<JobId, SlurmError> {
    let out = run("sbatch", args, DEADLINE)?;
    // `--parsable` prints `ID` or `ID;CLUSTER`.
    let answer = out.trim();
    answer
        .split(';')
        .next()
        .and_then(|id| id.trim().parse().ok())
        .ok_or_else(|| SlurmError::BadAnswer("sbatch".to_string(), answer.to_string()))
}

/// Releases held jobs.
pub fn release(ids: &[JobId]) -> Result<(), SlurmError> {
    if ids.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = ids.iter().map(JobId::to_string).collect();
    run(
        "scontrol",
        &["release".to_string(), list.join(",")],
        DEADLINE,
    )
    .map(|_| ())
}

/// What Slurm says of each of `ids` it still lists (finished jobs stay listed for
/// `MinJobAge` seconds): state and reason from `squeue`, and for jobs that ended without
/// completing, their exit code from `scontrol show job`.
pub fn query(ids: &[JobId]) -> Result<HashMap<JobId, JobInfo>, SlurmError> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let list: Vec<String> = ids.iter().map(JobId::to_string).collect();
    let args = [
        "-h".to_string(),
        "-t".to_string(),
        "all".to_string(),
        "-o".to_string(),
        "%i|%T|%r".to_string(),
        "-j".to_string(),
        list.join(","),
    ];
    let mut jobs = match run("squeue", &args, DEADLINE) {
        Ok(out) => parse_squeue(&out),
        // Asked for only jobs it has forgotten, squeue says so and fails.
        Err(SlurmError::Failed(_, why)) if why.contains("Invalid job id") => HashMap::new(),
        Err(e) => return Err(e),
    };
    for (id, info) in jobs.iter_mut() {
        if info.is_finished() && info.state != "COMPLETED" {
            let args = [
                "show".to_string(),
                "job".to_string(),
                "-o".to_string(),
                id.to_string(),
            ];
            // The exit code is a detail: a job forgotten meanwhile just has none.
            if let Ok(out) = run("scontrol", &args, DEADLINE) {
                info.exit_code = scontrol_field(&out, "ExitCode");
            }
        }
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_command_is_named() {
        let e = run("damka-no-such-command", &[], DEADLINE).unwrap_err();
        assert!(matches!(e, SlurmError::Missing(_)));
        assert_eq!(
            e.to_string(),
            "damka-no-such-command not found: run this on a Slurm login node (or use --dry-run)"
        );
    }

    #[test]
    fn a_slow_command_is_stopped_at_the_deadline() {
        let start = Instant::now();
        let e = run("sleep", &["10".to_string()], Duration::from_millis(200)).unwrap_err();
        assert!(matches!(e, SlurmError::Timeout(_, _)), "{e}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_failing_command_says_why() {
        let e = run(
            "sh",
            &[
                "-c".to_string(),
                "echo out; echo 'no such job' >&2; exit 3".to_string(),
            ],
            DEADLINE,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "sh failed: no such job");
        let out = run("sh", &["-c".to_string(), "echo 42".to_string()], DEADLINE).unwrap();
        assert_eq!(out, "42\n");
    }
}
