//! One build of a variant's tables in a directory at a time: a second `damka generate` on the
//! same directory refuses at once, naming the first by its process id; the first completes and
//! verifies; a lock left by a killed build is taken over with a warning.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn damka(args: &[&str], tables: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(args)
        .arg("--tables")
        .arg(tables)
        .output()
        .expect("damka runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_second_build_refuses_at_once_naming_the_first() {
    let dir = scratch("build-lock");
    let lock = dir.join(".english.lock");
    let mut first = Command::new(env!("CARGO_BIN_EXE_damka"))
        .args([
            "generate",
            "--variant",
            "english",
            "--pieces",
            "4",
            "--threads",
            "1",
        ])
        .arg("--tables")
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("damka generate starts");
    let pid = format!("pid {} on host ", first.id());
    // The first build writes who it is into the lock file as it takes it.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(&lock).is_ok_and(|r| r.starts_with(&pid)) {
        assert!(
            Instant::now() < deadline,
            "no lock taken by the first build"
        );
        assert!(
            first.try_wait().expect("waits").is_none(),
            "the first build ended"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let record = std::fs::read_to_string(&lock).expect("the lock file");
    assert!(
        record.ends_with(&format!(
            "generate --variant english --pieces 4 --threads 1 --tables {})",
            dir.display()
        )),
        "{record}"
    );
    for args in [
        &["generate", "--variant", "english", "--pieces", "4"][..],
        &["generate", "--variant", "english", "--slice", "2011"],
    ] {
        let started = Instant::now();
        let second = damka(args, &dir);
        let took = started.elapsed();
        assert!(
            first.try_wait().expect("waits").is_none(),
            "the first build ended before the second was refused"
        );
        assert_eq!(
            second.status.code(),
            Some(1),
            "{args:?}: {}",
            stderr(&second)
        );
        assert!(took < Duration::from_secs(2), "refused after {took:?}");
        assert_eq!(
            stderr(&second),
            format!(
                "error: the english tables in {} are being built by {record}: wait for it to \
                 end, or stop it (lock file {})\n",
                dir.display(),
                lock.display()
            )
        );
    }
    // Another variant's build is another lock: it runs beside.
    let other = damka(
        &[
            "generate",
            "--variant",
            "russian",
            "--pieces",
            "2",
            "--quiet",
        ],
        &dir,
    );
    assert!(other.status.success(), "{}", stderr(&other));
    let out = first.wait_with_output().expect("the first build ends");
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        summary.starts_with("slices 41 built in 23 jobs, 0 already done\n"),
        "{summary}"
    );
    assert_eq!(
        std::fs::read_to_string(&lock).expect("the lock file"),
        "",
        "released"
    );
    let verify = damka(&["verify", "--variant", "english"], &dir);
    assert!(verify.status.success(), "{}", stderr(&verify));
    let report = String::from_utf8_lossy(&verify.stdout);
    assert!(
        report.ends_with("slices 41, bad 0, missing 0\n"),
        "{report}"
    );
    // The table files alone are in the variant's directory.
    let names: Vec<String> = std::fs::read_dir(dir.join("english"))
        .expect("the variant's directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");

    // A build killed while it held the lock leaves its record: the next one takes it over.
    let left = "pid 4194304 on host gone (damka generate --variant english --pieces 4)";
    std::fs::write(&lock, left).expect("a left record");
    let again = damka(&["generate", "--variant", "english", "--pieces", "4"], &dir);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).starts_with(&format!(
            "warning: {}: taking over the build lock of {left}, which ended without releasing \
             it\n",
            lock.display()
        )),
        "{}",
        stderr(&again)
    );
    let summary = String::from_utf8_lossy(&again.stdout);
    assert!(
        summary.starts_with("slices 0 built in 0 jobs, 41 already done\n"),
        "{summary}"
    );
}
