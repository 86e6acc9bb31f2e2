//! Ctrl-C or SIGTERM while `pdn fmt -o` or `analyse -o` writes: the process ends by the
//! signal, its temporary files are removed and the targets left as they were.
//!
//! The input is the real PDN corpus, fed through a named pipe that is left open half-way, so
//! that each command stands in the middle of its work, its temporary output written in part,
//! when the signal comes.
#![cfg(unix)]

#[path = "../../tests/common/corpus.rs"]
mod corpus;
#[path = "../../tests/common/tables.rs"]
mod shared;

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use damka::Variant;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// A named pipe at `path`, fed from another thread with the first `bytes` of `source` and
/// then held open (the reader waits for more) until the sender returned is used or dropped.
fn half_fed_pipe(path: &Path, source: &Path, bytes: usize) -> mpsc::Sender<()> {
    let made = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
    let text = std::fs::read(source).expect("the corpus file");
    assert!(text.len() > bytes, "{} is too small", source.display());
    let (done, wait) = mpsc::channel::<()>();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        // Opening blocks until the command opens the pipe to read it.
        let mut pipe = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("the pipe opens");
        // The write ends in an error when the reader is gone first.
        let _ = pipe.write_all(&text[..bytes]);
        let _ = wait.recv();
    });
    done
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// Waits until `dir` holds a temporary file of `child` (`.NAME.PID.tmp`) with bytes in it,
/// and returns its name.
fn temporary_written(child: &mut Child, dir: &Path) -> String {
    let suffix = format!(".{}.tmp", child.id());
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let written = names(dir).into_iter().find(|n| {
            n.ends_with(&suffix) && std::fs::metadata(dir.join(n)).is_ok_and(|m| m.len() > 0)
        });
        if let Some(name) = written {
            return name;
        }
        if let Some(status) = child.try_wait().expect("waits") {
            panic!("the command ended ({status}) before writing");
        }
        assert!(
            Instant::now() < deadline,
            "no temporary file written in {}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Sends `signal` (`INT`, `TERM`) to `child` and checks that it ends by it.
fn interrupt(child: &mut Child, signal: &str, number: i32) {
    let sent = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status;
        }
        assert!(Instant::now() < deadline, "still running after SIG{signal}");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.signal(), Some(number), "SIG{signal}: {status}");
}

const SIGNALS: [(&str, i32); 2] = [("INT", 2), ("TERM", 15)];

#[test]
fn pdn_fmt_leaves_no_temporary_file_when_interrupted() {
    let tinsley = corpus::corpus_path("checkerboard/tinsley.pdn");
    for (signal, number) in SIGNALS {
        let dir = scratch(&format!("interrupted-fmt-{signal}"));
        let out = dir.join("out");
        std::fs::create_dir_all(&out).expect("mkdir");
        std::fs::write(out.join("games.pdn"), "old").expect("an old target");
        let input = dir.join("in.pdn");
        let feeding = half_fed_pipe(&input, &tinsley, 200_000);
        let mut child = Command::new(env!("CARGO_BIN_EXE_damka"))
            .args(["pdn", "fmt", "--variant", "english"])
            .arg(&input)
            .arg("-o")
            .arg(out.join("games.pdn"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("damka runs");
        let temp = temporary_written(&mut child, &out);
        assert!(temp.starts_with(".games.pdn."), "{temp}");
        interrupt(&mut child, signal, number);
        drop(feeding);
        assert_eq!(names(&out), ["games.pdn"], "SIG{signal}");
        assert_eq!(
            std::fs::read_to_string(out.join("games.pdn")).expect("read"),
            "old"
        );
    }
}

#[test]
fn analyse_leaves_no_temporary_file_when_interrupted() {
    let tinsley = corpus::corpus_path("checkerboard/tinsley.pdn");
    let damka = Path::new(env!("CARGO_BIN_EXE_damka"));
    let tables = shared::shared_tables(
        damka,
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        Variant::English,
    );
    for (signal, number) in SIGNALS {
        let dir = scratch(&format!("interrupted-analyse-{signal}"));
        let out = dir.join("out");
        std::fs::create_dir_all(&out).expect("mkdir");
        std::fs::write(out.join("games.pdn"), "old").expect("an old target");
        // The first file is analysed and written; the second, a pipe, is read half-way.
        let input = dir.join("more.pdn");
        let feeding = half_fed_pipe(&input, &tinsley, 100_000);
        let mut child = Command::new(damka)
            .args(["analyse", "--variant", "english", "--tables"])
            .arg(&tables)
            .arg(&tinsley)
            .arg(&input)
            .arg("-o")
            .arg(out.join("games.pdn"))
            .arg("--json")
            .arg(out.join("games.json"))
            .arg("--html")
            .arg(out.join("games.html"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("damka runs");
        let temp = temporary_written(&mut child, &out);
        let temps: Vec<String> = names(&out)
            .into_iter()
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert_eq!(temps.len(), 3, "{temps:?} ({temp} written)");
        interrupt(&mut child, signal, number);
        drop(feeding);
        assert_eq!(names(&out), ["games.pdn"], "SIG{signal}");
        assert_eq!(
            std::fs::read_to_string(out.join("games.pdn")).expect("read"),
            "old"
        );
    }
}
