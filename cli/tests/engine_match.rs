//! `damka match` at small scale: `damka hub` with the tables up to 4 pieces against `damka
//! hub` without, English and International, both colours, fixed depth, played on in table
//! positions: the side with tables never throws away a table result; the PDN holds every
//! game with its reason. Engines that send an illegal move, crash or hang lose their games
//! and the match goes on.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use damka::Variant;

#[path = "../../tests/common/tables.rs"]
mod shared;

const DAMKA: &str = env!("CARGO_BIN_EXE_damka");

fn tables(variant: Variant) -> PathBuf {
    shared::shared_tables(
        Path::new(DAMKA),
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        variant,
    )
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

fn run_match(args: &[&str]) -> Output {
    Command::new(DAMKA)
        .arg("match")
        .args(args)
        .output()
        .expect("damka match runs")
}

fn text(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The table line of an engine: games, wins, draws, losses.
fn row(stdout: &str, name: &str) -> [usize; 4] {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no row for {name} in {stdout}"));
    let numbers: Vec<usize> = line
        .split_whitespace()
        .skip(1)
        .take(4)
        .map(|n| n.parse().expect("a number"))
        .collect();
    [numbers[0], numbers[1], numbers[2], numbers[3]]
}

fn tables_against_none(variant: Variant, fens: &[&str]) {
    let tb = tables(variant);
    let dir = temp_dir(&format!("match-{variant}"));
    let empty = dir.join("no-tables");
    std::fs::create_dir_all(&empty).expect("an empty directory");
    std::fs::write(dir.join("starts.fen"), fens.join("\n")).expect("written");
    let with = format!("with={DAMKA} hub --hash 8 --tables {}", tb.display());
    let without = format!("without={DAMKA} hub --hash 8 --tables {}", empty.display());
    let pdn = dir.join("games.pdn");
    let out = run_match(&[
        "--variant",
        variant.name(),
        "--engine",
        &with,
        "--engine",
        &without,
        "--fens",
        dir.join("starts.fen").to_str().expect("UTF-8"),
        "--depth",
        "4",
        "--tables",
        tb.to_str().expect("UTF-8"),
        "--play-on",
        "--out",
        pdn.to_str().expect("UTF-8"),
    ]);
    let stdout = text(&out);
    let games = 2 * fens.len();
    let [g, w, d, l] = row(&stdout, "with");
    assert_eq!((g, w + d + l), (games, games), "{stdout}");
    let [g2, w2, d2, l2] = row(&stdout, "without");
    assert_eq!((g2, w2, d2, l2), (games, l, d, w), "{stdout}");
    let thrown = stdout
        .lines()
        .find_map(|l| l.split_once("table results thrown away: "))
        .map(|(_, rest)| rest.to_string())
        .unwrap_or_else(|| panic!("no thrown-away line in {stdout}"));
    assert!(thrown.starts_with("with 0, without "), "{stdout}");
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("game ")).count(),
        games,
        "{stdout}"
    );
    let pdn = std::fs::read_to_string(&pdn).expect("the PDN file");
    assert_eq!(pdn.matches("[Event \"damka match\"]").count(), games);
    assert_eq!(pdn.matches("[Termination \"").count(), games);
    // The PDN reads back: `damka pdn` replays every move.
    let check = Command::new(DAMKA)
        .args(["pdn", "check"])
        .arg(dir.join("games.pdn"))
        .output()
        .expect("damka pdn runs");
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn tables_against_none_english() {
    // Positions of 5 and 6 pieces, which play into the 4-piece tables.
    tables_against_none(
        Variant::English,
        &["W:W21,22,30:B3,11", "B:W24,27,K31:B6,K15,16"],
    );
}

#[test]
fn tables_against_none_international() {
    tables_against_none(Variant::International, &["W:W33,38,K47:B8,14"]);
}

/// A Hub engine written in shell that answers `go` as `behaviour` says.
fn fake_engine(dir: &Path, name: &str, on_go: &str) -> String {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\nwhile read line; do case \"$line\" in\n\
         hub) echo 'id name={name}'; echo wait;;\n\
         init) echo ready;;\n\
         go*) {on_go};;\n\
         quit) exit 0;;\n\
         esac; done\n"
    );
    std::fs::write(&path, script).expect("written");
    let status = Command::new("chmod")
        .arg("+x")
        .arg(&path)
        .status()
        .expect("chmod runs");
    assert!(status.success());
    format!("{name}={}", path.display())
}

#[test]
fn failing_engines_lose_and_the_match_goes_on() {
    let dir = temp_dir("match-faults");
    let damka = format!("damka={DAMKA} hub --hash 8 --tables no-such-tables");
    for (on_go, reason) in [
        ("echo 'done move=1-2'", "illegal move (1-2"),
        ("exit 3", "crashed (its output ended, exit status: 3)"),
        (":", "sent no move within 1.0 s"),
    ] {
        let bad = fake_engine(&dir, "bad", on_go);
        let out = run_match(&[
            "--variant",
            "english",
            "--engine",
            &bad,
            "--engine",
            &damka,
            "--depth",
            "2",
            "--grace",
            "1",
        ]);
        let stdout = text(&out);
        assert_eq!(row(&stdout, "bad"), [2, 0, 0, 2], "{stdout}");
        assert_eq!(row(&stdout, "damka"), [2, 2, 0, 0], "{stdout}");
        assert!(stdout.contains(reason), "{reason}: {stdout}");
    }
}

#[test]
fn a_dxp_follower_plays_a_hub_engine() {
    use std::io::{BufRead, BufReader};
    let mut follower = Command::new(DAMKA)
        .args(["dxp", "--listen", "127.0.0.1:0", "--depth", "2"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("damka dxp starts");
    let mut stderr = BufReader::new(follower.stderr.take().expect("stderr"));
    let mut first = String::new();
    stderr.read_line(&mut first).expect("a first line");
    let address = first
        .trim()
        .strip_prefix("dxp: listening on ")
        .expect("the address")
        .to_string();
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut rest);
    });
    let dir = temp_dir("match-dxp");
    std::fs::write(dir.join("starts.fen"), "W:W27,37,K42:B7,10,K45\n").expect("written");
    let out = run_match(&[
        "--engine",
        &format!("remote=dxp:{address}"),
        "--engine",
        &format!("hub={DAMKA} hub --hash 8 --tables no-such-tables"),
        "--fens",
        dir.join("starts.fen").to_str().expect("UTF-8"),
        "--depth",
        "2",
        "--max-plies",
        "60",
    ]);
    let _ = follower.kill();
    let _ = follower.wait();
    let stdout = text(&out);
    let [g, w, d, l] = row(&stdout, "remote");
    assert_eq!((g, w + d + l), (2, 2), "{stdout}");
    for bad in ["crashed", "protocol", "illegal", "no move within"] {
        assert!(!stdout.contains(bad), "{stdout}");
    }
}
