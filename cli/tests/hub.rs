//! `damka hub` as a GUI drives it: a child process, commands on its stdin, answers read line
//! by line from its stdout while it searches.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use damka::notation::hub::syntax::parse_line;
use damka::notation::hub::{parse_move, parse_position};
use damka::rules::{English, International, Position, Rules};

/// Generous: the machine running the tests may be busy.
const PATIENCE: Duration = Duration::from_secs(60);

struct Hub {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Hub {
    fn start() -> Hub {
        Hub::start_with(Command::new(env!("CARGO_BIN_EXE_damka")).args([
            "hub",
            "--hash",
            "8",
            "--tables",
            "no-such-tables-dir",
        ]))
    }

    /// `damka hub` started by `command`.
    fn start_with(command: &mut Command) -> Hub {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("damka hub starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Hub {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to damka hub");
        self.stdin.flush().expect("flush");
    }

    /// The next line, failing the test after `wait`.
    fn next_within(&self, wait: Duration) -> Option<String> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!("damka hub closed its output"),
        }
    }

    fn next(&self) -> String {
        self.next_within(PATIENCE)
            .expect("damka hub answers in time")
    }

    /// Reads lines up to and including the first that starts with `prefix`; returns them all.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self.next();
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// Waits for the process to end; its exit status must be success.
    fn wait_exit(mut self) {
        drop(self.stdin);
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "damka hub exited with {status}");
                return;
            }
            assert!(start.elapsed() < PATIENCE, "damka hub did not exit");
            thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The value of `name` in a Hub line.
fn value(line: &str, name: &str) -> Option<String> {
    let parsed = parse_line(line)
        .expect("a well-formed line")
        .expect("a line");
    parsed.get(name).flatten().map(str::to_string)
}

/// Plays Hub move texts from `pos`.
fn play<R: Rules>(mut pos: Position<R>, moves: &[&str]) -> Position<R> {
    for text in moves {
        let mv = parse_move(&pos, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        pos = pos.play(&mv);
    }
    pos
}

#[test]
fn handshake_then_ready() {
    let mut hub = Hub::start();
    hub.send("hub");
    let lines = hub.until("wait");
    assert!(lines[0].starts_with("id name=damka version="), "{lines:?}");
    assert_eq!(
        value(&lines[0], "author").as_deref(),
        Some("the damka authors")
    );
    let params: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("param "))
        .filter_map(|l| value(l, "name"))
        .collect();
    assert_eq!(params, ["variant", "rules", "hash", "tables"]);
    let variant = lines.iter().find(|l| l.contains("name=variant")).unwrap();
    assert_eq!(value(variant, "value").as_deref(), Some("international"));
    assert_eq!(
        value(variant, "values").as_deref(),
        Some("english italian spanish russian brazilian international turkish")
    );
    let rules = lines.iter().find(|l| l.contains("name=rules")).unwrap();
    assert_eq!(value(rules, "value").as_deref(), Some("fmjd"));
    assert_eq!(value(&lines[3], "value").as_deref(), Some("8"));
    hub.send("init");
    assert_eq!(hub.next(), "ready");
    hub.send("ping");
    assert_eq!(hub.next(), "pong");
    hub.send("quit");
    hub.wait_exit();
}

#[test]
fn go_think_answers_a_legal_move_with_info() {
    let mut hub = Hub::start();
    hub.send("init");
    assert_eq!(hub.next(), "ready");
    let moves = ["32-28", "19-23", "28x19x23", "14x23x19"];
    hub.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23 28x19x23 14x23x19\"");
    hub.send("level depth=3");
    hub.send("go think");
    let lines = hub.until("done");
    let pos = play(Position::<International>::initial(), &moves);
    let done = lines.last().unwrap();
    let best = value(done, "move").expect("done has a move");
    assert!(parse_move(&pos, &best).is_ok(), "{done} is not legal");
    if let Some(answer) = value(done, "ponder") {
        let after = play(pos, &[best.as_str()]);
        assert!(parse_move(&after, &answer).is_ok(), "{done}: bad ponder");
    }
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info ")).collect();
    assert!(!infos.is_empty(), "{lines:?}");
    for info in &infos {
        for field in ["depth", "score", "nodes", "time"] {
            assert!(value(info, field).is_some(), "{info} lacks {field}");
        }
        value(info, "score")
            .unwrap()
            .parse::<f64>()
            .expect("score is a number");
    }
    let last = infos[infos.len() - 1];
    let depth: u32 = value(last, "depth").unwrap().parse().unwrap();
    assert!(depth <= 3, "{last}: deeper than the level");
    let pv = value(last, "pv").expect("a pv");
    assert_eq!(
        pv.split(' ').next(),
        Some(best.as_str()),
        "{last} vs {done}"
    );
    hub.send("quit");
    hub.wait_exit();
}

#[test]
fn english_as_pydraughts_sends_it() {
    let mut hub = Hub::start();
    hub.send("set-param name=variant value=english");
    hub.send("init");
    assert_eq!(hub.next(), "ready");
    // pydraughts' English start: Black (first to move) is written as white, seen from its side.
    let start = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";
    hub.send(&format!("pos pos={start}"));
    hub.send("level depth=2");
    hub.send("go think");
    let done = hub.until("done").pop().unwrap();
    let best = value(&done, "move").expect("a move");
    let black_moves = ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"];
    assert!(black_moves.contains(&best.as_str()), "{done}");
    // The game goes on with White's reply.
    let pos = parse_position::<English>(start).unwrap();
    assert_eq!(pos, Position::<English>::initial());
    let after = play(pos, &[best.as_str()]);
    let reply = damka::rules::legal_moves(&after)[0].mv;
    let reply = damka::notation::hub::move_text(damka::Variant::English, &reply);
    hub.send(&format!("pos pos={start} moves=\"{best} {reply}\""));
    hub.send("level move-time=0.2");
    hub.send("go think");
    let done = hub.until("done").pop().unwrap();
    let next = value(&done, "move").expect("a move");
    let pos = play(after, &[reply.as_str()]);
    assert!(parse_move(&pos, &next).is_ok(), "{done}");
    hub.send("quit");
    hub.wait_exit();
}

#[test]
fn unknown_and_malformed_commands_answer_error() {
    let mut hub = Hub::start();
    hub.send("frobnicate now");
    assert_eq!(hub.next(), "error message=\"unknown command 'frobnicate'\"");
    hub.send("pos moves=\"32-28");
    assert_eq!(
        hub.next(),
        "error message=\"bad line: missing closing quote\""
    );
    hub.send("pos pos=Wxyz");
    let line = hub.next();
    assert!(line.starts_with("error message=\"bad position:"), "{line}");
    hub.send("go think");
    let line = hub.next();
    assert!(
        line.starts_with("error message=\"no position to search"),
        "{line}"
    );
    assert_eq!(hub.next(), "done");
    hub.send("set-param name=variant value=klingon");
    assert!(
        hub.next()
            .starts_with("error message=\"unknown variant 'klingon'")
    );
    hub.send("ping");
    assert_eq!(hub.next(), "pong");
    hub.send("quit");
    hub.wait_exit();
}

#[test]
fn analyze_runs_until_stop_and_answers_ping_meanwhile() {
    let mut hub = Hub::start();
    hub.send("init");
    assert_eq!(hub.next(), "ready");
    hub.send("pos start");
    hub.send("go analyze");
    // Let it search a little; it must not answer `done` on its own.
    let mut lines = Vec::new();
    let until = Instant::now() + Duration::from_millis(500);
    while let Some(line) = hub.next_within(until.saturating_duration_since(Instant::now())) {
        assert!(
            !line.starts_with("done"),
            "analysis ended before stop: {line}"
        );
        lines.push(line);
    }
    hub.send("ping");
    let mut seen = hub.until("pong");
    assert!(
        seen.iter().all(|l| l.starts_with("info ") || l == "pong"),
        "{seen:?}"
    );
    // An unknown command is answered and the search goes on.
    hub.send("frobnicate");
    seen = hub.until("error");
    assert!(!seen.iter().any(|l| l.starts_with("done")), "{seen:?}");
    assert_eq!(
        seen.last().unwrap(),
        "error message=\"unknown command 'frobnicate'\""
    );
    hub.send("stop");
    let asked = Instant::now();
    seen = hub.until("done");
    assert!(
        asked.elapsed() < Duration::from_secs(10),
        "stop took {:?}",
        asked.elapsed()
    );
    let best = value(seen.last().unwrap(), "move").expect("a move");
    assert!(parse_move(&Position::<International>::initial(), &best).is_ok());
    // Idle again: commands are answered at once.
    hub.send("ping");
    assert_eq!(hub.next(), "pong");
    hub.send("quit");
    hub.wait_exit();
}

#[test]
fn ponder_waits_for_ponder_hit_then_thinks_with_the_level() {
    let mut hub = Hub::start();
    hub.send("pos start moves=\"32-28\"");
    hub.send("level depth=2");
    hub.send("go ponder");
    let until = Instant::now() + Duration::from_millis(500);
    while let Some(line) = hub.next_within(until.saturating_duration_since(Instant::now())) {
        assert!(
            !line.starts_with("done"),
            "pondering ended on its own: {line}"
        );
    }
    hub.send("ponder-hit");
    let seen = hub.until("done");
    let best = value(seen.last().unwrap(), "move").expect("a move");
    let pos = play(Position::<International>::initial(), &["32-28"]);
    assert!(parse_move(&pos, &best).is_ok(), "{seen:?}");
    // One answer only.
    hub.send("ping");
    assert_eq!(hub.next(), "pong");
    hub.send("quit");
    hub.wait_exit();
}

#[test]
fn quit_during_search_and_end_of_input_exit_cleanly() {
    let mut hub = Hub::start();
    hub.send("pos start");
    hub.send("go think");
    hub.send("quit");
    hub.wait_exit();
    let mut hub = Hub::start();
    hub.send("pos start");
    hub.send("go analyze");
    // Closing stdin is a quit.
    hub.wait_exit();
}

/// The English tables up to 4 pieces, built by `damka generate` into `dir`.
fn english_tables(dir: &std::path::Path) {
    let _ = std::fs::remove_dir_all(dir);
    let out = Command::new(env!("CARGO_BIN_EXE_damka"))
        .args([
            "generate",
            "--variant",
            "english",
            "--pieces",
            "4",
            "--quiet",
            "--dtw",
            "--tables",
        ])
        .arg(dir)
        .output()
        .expect("damka generate runs");
    assert!(out.status.success());
}

#[test]
fn a_table_truncated_under_a_running_hub_is_said_once_and_the_search_goes_on() {
    // Before: the files were memory-mapped and the hub died of SIGBUS, without a word.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hub-truncated");
    english_tables(&dir);
    let mut hub = Hub::start_with(
        Command::new(env!("CARGO_BIN_EXE_damka"))
            .args(["hub", "--hash", "8", "--variant", "english", "--tables"])
            .arg(&dir),
    );
    hub.send("init");
    assert_eq!(hub.next(), "ready");
    // Answered from the tables, which opens them (`fen=` takes a FEN).
    hub.send("pos fen=W:W30,K19,K23:BK28");
    hub.send("level depth=6");
    hub.send("go think");
    let lines = hub.until("done");
    assert_eq!(lines.last().unwrap(), "done move=19-24 ponder=28x26x23x24");
    // Every file cut in half while the hub has them open.
    for entry in std::fs::read_dir(dir.join("english")).expect("tables") {
        let path = entry.expect("entry").path();
        let len = std::fs::metadata(&path).expect("file").len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_len(len / 2))
            .expect("truncate");
    }
    let mut said = Vec::new();
    for fen in [
        "B:W30,K19,K23:BK28",
        "W:W6,K19,K23:BK28",
        "B:W30,K19,K23:BK28",
        "W:W21,K30:B5,K1",
    ] {
        hub.send(&format!("pos fen={fen}"));
        hub.send("level depth=6");
        hub.send("go think");
        let lines = hub.until("done");
        said.extend(
            lines
                .iter()
                .filter(|l| l.starts_with("info message="))
                .cloned(),
        );
        let mv = value(lines.last().unwrap(), "move").expect("a move");
        let pos = damka::notation::parse_fen::<English>(fen).expect("fen");
        assert!(
            damka::rules::legal_moves(&pos)
                .iter()
                .any(|m| damka::notation::hub::move_text(damka::Variant::English, &m.mv) == mv),
            "{fen}: {mv}"
        );
        hub.send("ping");
        assert_eq!(hub.until("pong").last().unwrap(), "pong");
    }
    assert!(!said.is_empty());
    for line in &said {
        assert!(
            line.contains(&dir.join("english").display().to_string())
                && line.ends_with(": file truncated; searching without it\""),
            "{line}"
        );
        assert_eq!(
            said.iter().filter(|l| *l == line).count(),
            1,
            "said once: {line}"
        );
    }
    hub.send("quit");
    hub.wait_exit();
}

#[test]
fn a_hash_too_large_for_the_memory_is_an_error_naming_its_size() {
    // Before: the allocation failed and aborted the process. The address space is limited
    // to 3 GB here, so that 65536 MiB cannot be had on any machine.
    let damka = env!("CARGO_BIN_EXE_damka");
    let mut hub = Hub::start_with(Command::new("sh").args([
        "-c",
        &format!("ulimit -v 3000000 && exec {damka} hub --hash 8 --tables none"),
    ]));
    hub.send("set-param name=variant value=english");
    hub.send("set-param name=hash value=65536");
    hub.send("init");
    let lines = hub.until("ready");
    assert!(
        lines[0].starts_with("error message=\"cannot allocate a 65536 MiB hash table")
            && lines[0].ends_with("using 8 MiB\""),
        "{lines:?}"
    );
    hub.send("level depth=2");
    hub.send("go think");
    assert!(hub.until("done").last().unwrap().starts_with("done move="));
    hub.send("quit");
    hub.wait_exit();

    let out = Command::new("sh")
        .args([
            "-c",
            &format!(
                "ulimit -v 3000000 && exec {damka} play --variant english --depth 2 --hash 65536"
            ),
        ])
        .output()
        .expect("play runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot allocate a 65536 MiB hash table"),
        "{err}"
    );
}

/// The finished-game rule: a position whose side not to move has no pieces (no game reaches
/// it) is refused as `damka probe` refuses it, by `pos` and by `go`, never played from; a
/// side to move without pieces has lost: a bare `done`.
#[test]
fn a_position_no_game_reaches_is_refused_and_never_played_from() {
    let mut hub = Hub::start();
    hub.send("set-param name=variant value=english");
    for (fen, idle) in [("W:WK5:B", "black"), ("W:W:B", "black"), ("B:W:B", "white")] {
        let message = format!(
            "illegal position: {idle}, not to move, has no pieces (no game reaches it: the \
             capture of {idle}'s last piece ends the game with {idle} to move, a loss)"
        );
        let pos = damka::notation::parse_fen::<English>(fen).expect(fen);
        let hub_text = damka::notation::hub::write_position(&pos);
        for command in [format!("pos fen={fen}"), format!("pos pos={hub_text}")] {
            hub.send(&command);
            assert_eq!(
                hub.next(),
                format!("error message=\"{message}\""),
                "{command}"
            );
            hub.send("level depth=2");
            hub.send("go think");
            assert_eq!(
                hub.next(),
                format!("error message=\"no position to search: {message}\""),
                "{command}"
            );
            assert_eq!(hub.next(), "done", "{command}");
        }
    }
    hub.send("pos fen=W:W:BK5");
    hub.send("go think");
    assert_eq!(hub.next(), "done");
    hub.send("ping");
    assert_eq!(hub.next(), "pong");
    hub.send("quit");
    hub.wait_exit();
}
