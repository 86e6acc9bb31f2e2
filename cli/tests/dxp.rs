//! `damka dxp` in two processes: a follower listening on a loopback port and an initiator
//! requesting a game from an International endgame position, both with the tables up to 4
//! pieces (built once and shared with the other test binaries, `common/tables.rs`); and
//! the follower's bound on the connections it serves.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use damka::Variant;

#[path = "../../tests/common/tables.rs"]
mod shared;

fn damka() -> Command {
    Command::new(env!("CARGO_BIN_EXE_damka"))
}

fn tables() -> PathBuf {
    shared::shared_tables(
        Path::new(env!("CARGO_BIN_EXE_damka")),
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        Variant::International,
    )
}

/// A follower on a free loopback port, and that port's address (read from its first line
/// on stderr, `dxp: listening on ADDRESS`).
struct Follower {
    child: Child,
    address: String,
}

impl Follower {
    fn start(args: &[&str]) -> Follower {
        let mut child = damka()
            .args(["dxp", "--listen", "127.0.0.1:0"])
            .args(args)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("damka dxp starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut first = String::new();
        stderr.read_line(&mut first).expect("a first line");
        let address = first
            .trim()
            .strip_prefix("dxp: listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_string();
        // Keep draining stderr so the follower never blocks on it.
        std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
        });
        Follower { child, address }
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initiate(address: &str, args: &[&str]) -> Output {
    let out = damka()
        .args(["dxp", "--connect", address])
        .args(args)
        .output()
        .expect("damka dxp --connect runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The result `damka probe` gives a position, for its side to move.
fn probe(fen: &str, tables: &Path) -> String {
    let out = damka()
        .args([
            "probe",
            "--variant",
            "international",
            "--fen",
            fen,
            "--tables",
        ])
        .arg(tables)
        .output()
        .expect("damka probe runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let first = text.lines().next().unwrap_or_default();
    first
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("no result in {text:?}"))
        .to_string()
}

#[test]
fn two_processes_play_an_endgame_to_the_tables_result() {
    let tables = tables();
    let t = tables.to_str().expect("a UTF-8 path");
    // Four pieces, White to move: a win in 9 plies, a draw.
    for fen in ["W:WK46,38:B12,13", "W:WK47:B8,K36,13"] {
        let expected = probe(fen, &tables);
        let follower = Follower::start(&["--tables", t, "--depth", "6"]);
        let out = initiate(
            &follower.address,
            &[
                "--tables", t, "--depth", "6", "--fen", fen, "--colour", "white",
            ],
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().next().expect("a result line");
        assert!(
            line.starts_with(&format!("game 1: {expected} for damka after ")),
            "{fen}: tables say {expected}, the game gave {line:?}"
        );
        assert!(!line.contains("after 0 plies"), "{line}");
    }
}

#[test]
fn adjudication_ends_the_game_with_the_tables_result() {
    let tables = tables();
    let t = tables.to_str().expect("a UTF-8 path");
    let fen = "W:WK46,38:B12,13";
    let expected = probe(fen, &tables);
    let follower = Follower::start(&["--depth", "2", "--tables", "no-such-tables"]);
    let out = initiate(
        &follower.address,
        &[
            "--tables",
            t,
            "--adjudicate",
            "--depth",
            "2",
            "--fen",
            fen,
            "--games",
            "2",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    // Game 1 damka is White, to move: ended at once. Game 2 damka is Black: the follower
    // moves first, then damka, to move in a position the tables hold, ends it.
    assert_eq!(
        lines[0],
        format!("game 1: {expected} for damka after 0 plies (the tables' result ({expected}))")
    );
    assert!(lines[1].starts_with("game 2: "), "{text}");
    assert!(
        lines[1].contains("after 1 plies (the tables' result"),
        "{text}"
    );
}

#[test]
fn the_follower_serves_a_bounded_number_of_connections() {
    let follower = Follower::start(&["--max-connections", "1", "--depth", "1"]);
    let first = TcpStream::connect(&follower.address).expect("connects");
    std::thread::sleep(Duration::from_millis(300));
    let mut second = TcpStream::connect(&follower.address).expect("connects");
    second
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("a timeout");
    let mut answer = Vec::new();
    second
        .read_to_end(&mut answer)
        .expect("closed by the follower");
    assert_eq!(answer, b"Cdamka: busy, 1 connections already\0");
    // The first is served: a game request is accepted.
    let mut first = first;
    let request = format!("R01{:<32}Z000000A\0", "test");
    first.write_all(request.as_bytes()).expect("sent");
    first
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("a timeout");
    let mut buf = [0u8; 35];
    first.read_exact(&mut buf).expect("an answer");
    assert_eq!(&buf, format!("A{:<32}0\0", "damka 0.1.0").as_bytes());
    drop(first);
    // Once the first has gone, a new connection is served again.
    std::thread::sleep(Duration::from_millis(500));
    let mut third = TcpStream::connect(&follower.address).expect("connects");
    third.write_all(request.as_bytes()).expect("sent");
    third
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("a timeout");
    third.read_exact(&mut buf).expect("an answer");
    assert_eq!(buf[0], b'A', "{:?}", String::from_utf8_lossy(&buf));
}

/// Reads one NUL-terminated message.
fn read_message(stream: &mut TcpStream) -> String {
    let mut bytes = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        stream.read_exact(&mut byte).expect("a message");
        if byte[0] == 0 {
            return String::from_utf8(bytes).expect("ASCII");
        }
        bytes.push(byte[0]);
    }
}

#[test]
fn moves_are_taken_back_and_illegal_moves_end_the_game() {
    let follower = Follower::start(&["--depth", "2"]);
    let mut peer = TcpStream::connect(&follower.address).expect("connects");
    peer.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a timeout");
    // damka (the follower) plays Black from the start; the peer plays 32-28.
    let request = format!("R01{:<32}Z000000A\0", "test");
    peer.write_all(request.as_bytes()).expect("sent");
    assert!(read_message(&mut peer).starts_with('A'));
    peer.write_all(b"M0000322800\0").expect("sent");
    assert!(read_message(&mut peer).starts_with('M'));
    // Back to move 1, White to move: accepted; then 33-28 is answered by a move.
    peer.write_all(b"B001W\0").expect("sent");
    assert_eq!(read_message(&mut peer), "K0");
    peer.write_all(b"M0000332800\0").expect("sent");
    let reply = read_message(&mut peer);
    assert!(reply.starts_with('M') && reply.len() == 11, "{reply}");
    // A move that is not legal (a man moving backwards): a CHAT saying so, then GAMEEND,
    // damka winning, stop code 1.
    peer.write_all(b"M0000283300\0").expect("sent");
    assert_eq!(
        read_message(&mut peer),
        "Cdamka: the peer's illegal move 28-33 (move 2)"
    );
    assert_eq!(read_message(&mut peer), "E31");
    peer.write_all(b"E11\0").expect("sent");
    let mut rest = Vec::new();
    peer.read_to_end(&mut rest).expect("closed by the follower");
    assert!(rest.is_empty(), "{rest:?}");
}
