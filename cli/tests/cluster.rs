//! `damka cluster`: the submission a dry run prints (no Slurm needed), one-line errors
//! without Slurm, the test hook of `generate --slice`, and, ignored unless asked for
//! (`-- --ignored`) because it needs a running Slurm (`tools/slurm-start.sh`; `.ci/run`
//! starts one), whole builds on the cluster: English up to 4 pieces built by Slurm jobs
//! byte for byte like a local build; a failing slice job cancels its dependents, `status`
//! says so, and a second `submit` completes the build.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use damka::rules::{English, Rules};
use damka::tablebase::{Material, SliceJob, plan};

const DAMKA: &str = env!("CARGO_BIN_EXE_damka");

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Runs damka with `args`; `env` is set, and the failure hook is unset unless named there.
fn damka_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(DAMKA);
    cmd.args(args).env_remove("DAMKA_FAIL_SLICE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("damka runs")
}

fn damka(args: &[&str]) -> Output {
    damka_env(args, &[])
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("utf-8 stderr")
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "damka failed: {}\n{}",
        stderr(&out),
        stdout(&out)
    );
    stdout(&out)
}

fn build_locally(dir: &Path, pieces: u32) {
    let p = pieces.to_string();
    ok(damka(&[
        "generate",
        "--variant",
        "english",
        "--pieces",
        &p,
        "--tables",
        dir.to_str().unwrap(),
        "--quiet",
    ]));
}

/// The value of `--NAME=` in a line of sbatch words.
fn option<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("--{name}=");
    line.split_whitespace()
        .find_map(|w| w.trim_matches('"').strip_prefix(key.as_str()))
}

#[test]
fn dry_run_submits_the_missing_slices_each_after_the_jobs_of_its_inputs() {
    let dir = scratch("cluster_dry_run");
    build_locally(&dir, 3);
    let tables = dir.to_str().unwrap();
    let script = ok(damka(&[
        "cluster",
        "submit",
        "--variant",
        "english",
        "--pieces",
        "4",
        "--tables",
        tables,
        "--partition",
        "big",
        "--dry-run",
    ]));
    // Nothing is written by a dry run.
    assert!(!dir.join("logs").exists());
    assert!(!dir.join("cluster-english.jobs").exists());

    let four: Vec<SliceJob> = plan(4, English::MEN)
        .into_iter()
        .filter(|j| j.key().pieces() == 4)
        .collect();
    let lines: Vec<&str> = script.lines().collect();
    assert_eq!(lines[0], "#!/bin/sh");
    assert_eq!(
        lines[1],
        format!(
            "# damka cluster submit --dry-run: {} jobs for english (tables {tables})",
            four.len() + 1
        )
    );
    assert_eq!(lines[2], "set -e");
    let jobs = &lines[3..3 + four.len()];
    // The variable of each slice job, by every slice it builds.
    let mut var: HashMap<Material, String> = HashMap::new();
    for (n, (line, job)) in jobs.iter().zip(&four).enumerate() {
        let v = format!("J{}", n + 1);
        assert!(line.starts_with(&format!("{v}=$(sbatch --parsable --hold ")));
        let key = job.key();
        assert_eq!(
            option(line, "job-name"),
            Some(format!("damka-english-{key}").as_str())
        );
        assert_eq!(
            option(line, "output").map(PathBuf::from),
            Some(dir.join("logs").join(format!("english-{key}.log")))
        );
        assert_eq!(option(line, "partition"), Some("big"));
        assert_eq!(option(line, "cpus-per-task"), Some("1"));
        assert!(line.contains(" --kill-on-invalid-dep=yes "));
        assert!(line.ends_with(&format!(
            "'--wrap=exec {DAMKA} generate --variant english --slice {key} --tables {tables} \
             --threads 1')"
        )));
        // Exactly the jobs of this submission that build its inputs: slices of 3 pieces or
        // fewer are on disk and need no dependency.
        let want: BTreeSet<String> = job
            .inputs
            .iter()
            .filter(|m| m.pieces() == 4)
            .map(|m| format!("${}", var[m]))
            .collect();
        let got: BTreeSet<String> = option(line, "dependency")
            .map(|d| {
                d.strip_prefix("afterok:")
                    .expect("afterok")
                    .split(':')
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(got, want, "{key}");
        for m in &job.slices {
            var.insert(*m, v.clone());
        }
    }
    // 2101+0121 reads 0112 (4 pieces: a man crowned) and slices of 3 pieces.
    let j2101 = &var[&"2101".parse::<Material>().unwrap()];
    let j0112 = &var[&"0112".parse::<Material>().unwrap()];
    let line = jobs
        .iter()
        .find(|l| l.starts_with(&format!("{j2101}=")))
        .unwrap();
    assert_eq!(
        option(line, "dependency"),
        Some(format!("afterok:${j0112}").as_str())
    );
    let verify = lines[3 + four.len()];
    assert!(verify.starts_with("V=$(sbatch --parsable --hold --job-name=damka-english-verify "));
    let all: Vec<String> = (1..=four.len()).map(|n| format!("$J{n}")).collect();
    assert_eq!(
        option(verify, "dependency"),
        Some(format!("afterok:{}", all.join(":")).as_str())
    );
    assert!(verify.ends_with(&format!(
        "'--wrap=exec {DAMKA} verify --variant english --tables {tables}')"
    )));
    assert_eq!(
        lines[4 + four.len()],
        format!("scontrol release \"{},$V\"", all.join(","))
    );
    assert_eq!(lines.len(), 5 + four.len());
}

#[test]
fn generate_plan_gives_memory_and_one_core_time() {
    let out = ok(damka(&[
        "generate",
        "--variant",
        "english",
        "--pieces",
        "3",
        "--plan",
    ]));
    let lines: Vec<&str> = out.lines().collect();
    // 0101: 992 positions, 2 bytes each and a block of 16, 1 GiB of cache, 32 MiB of kept
    // predecessors and 320 MiB.
    assert_eq!(
        lines[0],
        "0101 pieces 2 positions 992 memory 1.34 GiB one-core 0.0 s inputs -"
    );
    assert_eq!(lines.len(), plan(3, English::MEN).len() + 2);
    assert!(
        lines[lines.len() - 2].starts_with("total jobs 9 positions "),
        "{out}"
    );
    // Why a job of 992 positions needs 1.34 GiB: the memory every job shares.
    assert_eq!(
        lines.last().copied(),
        Some(
            "memory is each job's peak: 1.34 GiB of it is shared by the jobs that run at once \
             (a 1.00 GiB cache of input blocks, the predecessors kept and the program itself)"
        ),
        "{out}"
    );
    let big = ok(damka(&[
        "generate",
        "--variant",
        "english",
        "--pieces",
        "8",
        "--plan",
    ]));
    assert!(big.contains(
        "2213+1322 pieces 8 positions 25138058400 memory 12.87 GiB one-core 4.7 h inputs"
    ));
    assert!(big.contains(
        "total jobs 210 positions 486933853135 core-hours 90.4; largest 2312+1223 memory \
         12.87 GiB one-core 4.7 h\n"
    ));
}

#[test]
fn the_failure_hook_fails_its_slice_only() {
    let dir = scratch("cluster_hook");
    let tables = dir.to_str().unwrap();
    let args = [
        "generate",
        "--variant",
        "english",
        "--slice",
        "0101",
        "--tables",
        tables,
        "--quiet",
    ];
    let out = damka_env(&args, &[("DAMKA_FAIL_SLICE", "0101")]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: DAMKA_FAIL_SLICE=0101: failing on purpose (test hook)\n"
    );
    // The twin names the job too.
    let out = damka_env(
        &[
            "generate",
            "--variant",
            "english",
            "--slice",
            "2101",
            "--tables",
            tables,
        ],
        &[("DAMKA_FAIL_SLICE", "0121")],
    );
    assert_eq!(out.status.code(), Some(1));
    ok(damka_env(&args, &[("DAMKA_FAIL_SLICE", "1001")]));
    assert!(dir.join("english/0101.wdl").is_file());
}

#[test]
fn without_slurm_submit_and_status_say_so_in_one_line() {
    let dir = scratch("cluster_no_slurm");
    let tables = dir.to_str().unwrap();
    let empty = scratch("cluster_no_slurm_path");
    let path = [("PATH", empty.to_str().unwrap())];
    let out = damka_env(
        &[
            "cluster",
            "submit",
            "--variant",
            "english",
            "--pieces",
            "2",
            "--tables",
            tables,
        ],
        &path,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: sbatch not found: run this on a Slurm login node (or use --dry-run)\n"
    );
    // Refused before anything is written: no report, no jobs file, no logs directory.
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert!(
        std::fs::read_dir(&dir)
            .expect("the directory")
            .next()
            .is_none()
    );
    // A Slurm with sbatch but without scontrol (which releases the held jobs): the same.
    let sbatch = empty.join("sbatch");
    std::fs::write(&sbatch, "#!/bin/sh\necho 1\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let submit = [
        "cluster",
        "submit",
        "--variant",
        "english",
        "--pieces",
        "2",
        "--tables",
        tables,
    ];
    let out = damka_env(&submit, &path);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: scontrol not found: run this on a Slurm login node (or use --dry-run)\n"
    );
    assert!(
        std::fs::read_dir(&dir)
            .expect("the directory")
            .next()
            .is_none()
    );
    std::fs::remove_file(&sbatch).unwrap();
    std::fs::write(
        dir.join("cluster-english.jobs"),
        "variant english\npieces 2\nslice 0101 5\n",
    )
    .unwrap();
    let out = damka_env(&["cluster", "status", "--tables", tables], &path);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: squeue not found: run this on a Slurm login node (or use --dry-run)\n"
    );
    // Nothing to ask Slurm about: a built slice needs no squeue.
    build_locally(&dir, 2);
    let out = ok(damka_env(&["cluster", "status", "--tables", tables], &path));
    assert_eq!(
        out.lines().last().unwrap(),
        "english up to 2 pieces: 3 jobs: 3 done, 0 running, 0 pending, 0 failed, 0 cancelled, \
         0 missing: complete"
    );
    let out = damka(&["cluster", "status", "--tables", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

// ---- On a running Slurm ----

/// The job ids in `submit` output (`...: job 17 after 12,15`, `verify: job 30 ...`).
fn submitted_ids(out: &str) -> Vec<u64> {
    out.lines()
        .filter_map(|l| l.split(": job ").nth(1))
        .filter_map(|rest| rest.split_whitespace().next()?.parse().ok())
        .collect()
}

/// Waits until Slurm lists none of `ids` as pending or running.
fn wait_for(ids: &[u64], deadline: Duration) {
    let list: Vec<String> = ids.iter().map(u64::to_string).collect();
    let start = Instant::now();
    loop {
        let out = Command::new("timeout")
            .args(["10", "squeue", "-h", "-o", "%i", "-j", &list.join(",")])
            .output()
            .expect("squeue runs");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            out.status.success() || err.contains("Invalid job id"),
            "squeue: {err}"
        );
        if text.trim().is_empty() {
            return;
        }
        assert!(
            start.elapsed() < deadline,
            "jobs still queued after {deadline:?}: {text}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn submit(dir: &Path, env: &[(&str, &str)]) -> String {
    ok(damka_env(
        &[
            "cluster",
            "submit",
            "--variant",
            "english",
            "--pieces",
            "4",
            "--tables",
            dir.to_str().unwrap(),
        ],
        env,
    ))
}

/// `status` lines by slice job (`2101+0121` -> `failed: job 17 ...`), and the last line.
fn status(dir: &Path) -> (BTreeMap<String, String>, String) {
    let out = ok(damka(&[
        "cluster",
        "status",
        "--tables",
        dir.to_str().unwrap(),
    ]));
    let mut map = BTreeMap::new();
    for line in out.lines() {
        if let Some(rest) = line.strip_prefix("english ")
            && let Some((key, what)) = rest.split_once(' ')
        {
            map.insert(key.to_string(), what.to_string());
        }
    }
    (map, out.lines().last().unwrap_or("").to_string())
}

/// Every file of `a/english` is in `b/english` with the same bytes, and no more.
fn assert_same_tables(a: &Path, b: &Path) {
    let files = |d: &Path| -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(d.join("english"))
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| {
                (
                    e.file_name().into_string().unwrap(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect()
    };
    let (fa, fb) = (files(a), files(b));
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (name, bytes) in &fa {
        assert!(bytes == &fb[name], "{name} differs");
    }
    assert_eq!(
        fa.len(),
        3 * 41,
        "41 slices of English up to 4 pieces, three files each (wdl, dtc, rules: no dtw)"
    );
}

fn assert_verified(dir: &Path) {
    let log = std::fs::read_to_string(dir.join("logs/english-verify.log")).unwrap();
    assert!(log.ends_with("slices 41, bad 0, missing 0\n"), "{log}");
    let out = ok(damka(&["verify", "--tables", dir.to_str().unwrap()]));
    assert!(out.ends_with("slices 41, bad 0, missing 0\n"));
}

#[test]
#[ignore = "needs a running Slurm: .ci/run starts one and runs it with --ignored"]
fn slurm_builds_english_4_like_a_local_build_and_recovers_from_a_failed_slice() {
    let deadline = Duration::from_secs(180);
    let local = scratch("cluster_slurm_local");
    build_locally(&local, 4);
    let jobs = plan(4, English::MEN);
    let name = |j: &SliceJob| {
        j.slices
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join("+")
    };

    // A whole build.
    let dir = scratch("cluster_slurm_build");
    let start = Instant::now();
    let out = submit(&dir, &[]);
    let ids = submitted_ids(&out);
    assert_eq!(ids.len(), jobs.len() + 1, "{out}");
    wait_for(&ids, deadline);
    eprintln!("build on Slurm: {:.1} s", start.elapsed().as_secs_f64());
    let (map, last) = status(&dir);
    assert_eq!(
        last,
        "english up to 4 pieces: 23 jobs: 23 done, 0 running, 0 pending, 0 failed, \
         0 cancelled, 0 missing: complete"
    );
    assert_eq!(
        map["verify:"],
        format!("job {} COMPLETED", ids[ids.len() - 1])
    );
    assert_same_tables(&local, &dir);
    assert_verified(&dir);

    // One slice job fails: the jobs that read it, and the verify job, are cancelled.
    let dir = scratch("cluster_slurm_failure");
    let start = Instant::now();
    let out = submit(&dir, &[("DAMKA_FAIL_SLICE", "2101")]);
    let first = submitted_ids(&out);
    assert_eq!(first.len(), jobs.len() + 1, "{out}");
    // Submitting again while the jobs are queued submits nothing.
    let again = submit(&dir, &[]);
    assert!(
        again.ends_with(&format!(
            "submitted 0 slice jobs; {} done, {} already queued; logs in {}\n",
            jobs.len() - again.matches(" queued: job ").count(),
            again.matches(" queued: job ").count(),
            dir.join("logs").display()
        )),
        "{again}"
    );
    assert!(again.matches(" queued: job ").count() >= 5, "{again}");
    wait_for(&first, deadline);
    // The jobs that read 2101+0121, directly or not.
    let mut hit: BTreeSet<Material> = ["2101".parse().unwrap(), "0121".parse().unwrap()].into();
    let mut dependents: Vec<String> = Vec::new();
    for j in &jobs {
        if j.inputs.iter().any(|m| hit.contains(m)) {
            hit.extend(j.slices.iter().copied());
            dependents.push(name(j));
        }
    }
    assert_eq!(dependents, ["2110+1021", "3001+0130", "3010+1030"]);
    let (map, last) = status(&dir);
    assert!(
        map["2101+0121"].starts_with("failed: job ")
            && map["2101+0121"].contains(" FAILED (NonZeroExitCode) exit code 1:0, log "),
        "{}",
        map["2101+0121"]
    );
    for d in &dependents {
        assert!(
            map[d].starts_with("cancelled: job ")
                && map[d].ends_with(" CANCELLED (DependencyNeverSatisfied)"),
            "{d}: {}",
            map[d]
        );
    }
    assert!(map["verify:"].ends_with(" CANCELLED"), "{}", map["verify:"]);
    assert_eq!(
        last,
        "english up to 4 pieces: 23 jobs: 19 done, 0 running, 0 pending, 1 failed, \
         3 cancelled, 0 missing: incomplete"
    );
    let log = std::fs::read_to_string(dir.join("logs/english-2101.log")).unwrap();
    assert_eq!(
        log,
        "error: DAMKA_FAIL_SLICE=2101: failing on purpose (test hook)\n"
    );

    // A second submit builds exactly the failed and cancelled slices, and verifies.
    let out = submit(&dir, &[]);
    let second = submitted_ids(&out);
    assert_eq!(second.len(), 1 + dependents.len() + 1, "{out}");
    let resubmitted: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(": job ") && !l.starts_with("verify"))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        resubmitted,
        ["2101+0121", "2110+1021", "3001+0130", "3010+1030"]
    );
    wait_for(&second, deadline);
    eprintln!(
        "failure and second submit on Slurm: {:.1} s",
        start.elapsed().as_secs_f64()
    );
    let (_, last) = status(&dir);
    assert!(
        last.ends_with("23 done, 0 running, 0 pending, 0 failed, 0 cancelled, 0 missing: complete")
    );
    assert_same_tables(&local, &dir);
    assert_verified(&dir);
}
