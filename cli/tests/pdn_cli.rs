//! `damka pdn check` and `damka pdn fmt`: output, exit codes (0 clean, 1 errors, 2 unreadable
//! input), and the output file written under a temporary name then renamed.

use std::path::PathBuf;
use std::process::{Command, Output};

fn damka(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(args)
        .output()
        .expect("damka runs")
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damka-pdn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const CLEAN: &str = "[White \"A\"]\n[GameType \"21\"]\n1. 11-15 23-19 2. 8-11 22-17 1/2-1/2\n";
const ILLEGAL: &str = "[White \"A\"][Black \"B\"][Event \"E\"]\n[GameType \"21\"]\n1. 11-15 24-20 2. 15-11 *\n\n[GameType \"21\"] 1. 9-13 *\n";

#[test]
fn check_clean_file() {
    let dir = scratch("clean");
    let file = write(&dir, "clean.pdn", CLEAN);
    let out = damka(&["pdn", "check", &file]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("clean.pdn: games 1, moves 4, warnings 0, errors 0"),
        "{text}"
    );
    assert_eq!(
        text.lines().last(),
        Some("games 1, moves 4, errors 0, warnings 0")
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn check_reports_each_error_and_exits_1() {
    let dir = scratch("illegal");
    let file = write(&dir, "bad.pdn", ILLEGAL);
    let out = damka(&["pdn", "check", &file]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("bad.pdn: games 2, moves 3, warnings 0, errors 1"),
        "{text}"
    );
    let error = text
        .lines()
        .find(|l| l.contains("error:"))
        .unwrap_or_default();
    for part in [
        "bad.pdn, game 1",
        "White \"A\"",
        "Black \"B\"",
        "Event \"E\"",
        "move 2.",
        "'15-11'",
        "legal:",
    ] {
        assert!(error.contains(part), "{part} missing: {error}");
    }
    assert_eq!(
        text.lines().last(),
        Some("games 2, moves 3, errors 1, warnings 0")
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn check_unreadable_input_exits_2() {
    let dir = scratch("missing");
    let file = write(&dir, "ok.pdn", CLEAN);
    let missing = dir.join("missing.pdn").display().to_string();
    let out = damka(&["pdn", "check", &file, &missing]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read"), "{}", stderr(&out));
    assert!(stdout(&out).contains("ok.pdn: games 1"));
    let out = damka(&["pdn", "check", &dir.display().to_string()]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a directory is not readable as PDN"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn check_variant_and_warnings_options() {
    let dir = scratch("variant");
    let file = write(&dir, "czech.pdn", "1. c3-d4 f6-g5 *\n");
    let out = damka(&["pdn", "check", "--variant", "czech", "--warnings", &file]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("Czech draughts): rules not supported"),
        "{}",
        stdout(&out)
    );
    let out = damka(&["pdn", "check", "--variant", "russian", &file]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("games 1, moves 2, warnings 0, errors 0"));
    let out = damka(&["pdn", "check", "--variant", "chequers", &file]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn fmt_writes_strict_pdn_through_a_temporary_file() {
    let dir = scratch("fmt");
    let file = write(&dir, "in.pdn", "1. 11-15 23-19 2. 8-11 22-17 1/2-1/2\n");
    let target = dir.join("out.pdn");
    let out = damka(&["pdn", "fmt", &file, "-o", &target.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = std::fs::read_to_string(&target).expect("output written");
    assert!(written.starts_with("[Event \"?\"]\n"), "{written}");
    assert!(
        written.contains("[GameType \"21,B,8,8,N1,0\"]"),
        "{written}"
    );
    assert!(
        written.ends_with("1. 11-15 23-19 2. 8-11 22-17 1/2-1/2\n"),
        "{written}"
    );
    let names: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
    // Writing to standard output gives the same text; formatting it again changes nothing.
    let out = damka(&["pdn", "fmt", &target.display().to_string()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), written);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn fmt_reports_errors() {
    let dir = scratch("fmterr");
    let file = write(
        &dir,
        "in.pdn",
        "{ a { b } } 1. 11-15 *\n\n[GameType \"21\"] 1. 11-15 *\n",
    );
    let out = damka(&["pdn", "fmt", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("game not written"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("1. 11-15 *"));
    let out = damka(&["pdn", "fmt", &dir.join("none.pdn").display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(dir);
}
