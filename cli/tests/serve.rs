//! `damka serve` as HTTP clients see it: the real binary on a loopback port, a real HTTP
//! client. Answers equal `damka probe` on random positions of every variant; every move's
//! FEN after it is the position the move leads to; the mainline plays perfect play to the
//! end; bad input is 400 or 404 with a message, never 500; a load test of 2,000 probes
//! from 32 connections checks every answer; SIGTERM and SIGINT stop it cleanly.
//!
//! Tables are built once into the test target directory: English up to 4 pieces, the other
//! variants up to 3.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use damka::notation::{parse_fen, parse_move, parse_square, write_fen};
use damka::rules::{Bitboard, Color, Geometry, Position, Rules, legal_moves};
use damka::tablebase::{Material, SliceIndex};
use damka::{RuleSet, Variant, with_rules};
use serde_json::Value;

#[path = "../../tests/common/mod.rs"]
mod common;
use common::Lcg;

const DAMKA: &str = env!("CARGO_BIN_EXE_damka");

/// The most pieces the test tables hold for a variant.
fn pieces(variant: Variant) -> u32 {
    if variant == Variant::English { 4 } else { 3 }
}

/// The tables every test here serves, built on first use.
fn tables() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-tables");
        let _ = std::fs::remove_dir_all(&dir);
        for variant in Variant::ALL {
            generate(&dir, variant, &["--pieces", &pieces(variant).to_string()]);
        }
        dir
    })
}

/// Runs `damka generate --variant VARIANT ARGS --tables DIR --quiet --dtw` (distances to
/// the end included, which the answers are compared with).
fn generate(dir: &Path, variant: Variant, args: &[&str]) {
    let out = Command::new(DAMKA)
        .args(["generate", "--quiet", "--dtw", "--variant", variant.name()])
        .args(args)
        .arg("--tables")
        .arg(dir)
        .output()
        .expect("damka generate runs");
    assert!(
        out.status.success(),
        "generate {variant} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A running `damka serve`, its stderr lines collected as they come.
struct Server {
    child: Child,
    base: String,
    log: Arc<Mutex<Vec<String>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        Server::start_on(tables(), extra)
    }

    /// A server of the tables in `dir`.
    fn start_on(dir: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(DAMKA)
            .arg("serve")
            .arg("--tables")
            .arg(dir)
            .args(["--bind", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("damka serve starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr piped"));
        let mut first = String::new();
        stderr.read_line(&mut first).expect("a first stderr line");
        let base = first
            .split_once("listening on http://")
            .and_then(|(_, rest)| rest.split_once('/'))
            .map(|(addr, _)| format!("http://{addr}"))
            .unwrap_or_else(|| panic!("no listening line: {first:?}"));
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = log.clone();
        let reader = std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                sink.lock().expect("log").push(line);
            }
        });
        Server {
            child,
            base,
            log,
            reader: Some(reader),
        }
    }

    /// Sends `signal` (`TERM`, `INT`), waits for the exit, returns its status and the log.
    fn stop(mut self, signal: &str) -> (ExitStatus, Vec<String>) {
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("kill runs");
        assert!(sent.success());
        let status = self.child.wait().expect("server exits");
        if let Some(reader) = self.reader.take() {
            reader.join().expect("log reader");
        }
        let log = self.log.lock().expect("log").clone();
        (status, log)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// Status and JSON body of a GET.
fn get(agent: &ureq::Agent, base: &str, path: &str) -> (u16, Value) {
    let mut response = agent
        .get(format!("{base}{path}"))
        .call()
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .read_to_string()
        .unwrap_or_else(|e| panic!("GET {path}: body: {e}"));
    let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("GET {path}: {e}: {text}"));
    (status, json)
}

/// A query value as a browser writes it.
fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn probe_path(variant: Variant, fen: &str) -> String {
    format!("/api/v1/{variant}?fen={}", encode(fen))
}

/// What `damka probe` prints for a position.
fn damka_probe(variant: Variant, fen: &str) -> String {
    damka_probe_in(tables(), variant, fen, &[])
}

/// `damka probe`'s output on the tables in `dir`, with `extra` arguments.
fn damka_probe_in(dir: &Path, variant: Variant, fen: &str, extra: &[&str]) -> String {
    let out = Command::new(DAMKA)
        .args([
            "probe",
            "--variant",
            variant.name(),
            "--fen",
            fen,
            "--tables",
        ])
        .arg(dir)
        .args(extra)
        .output()
        .expect("damka probe runs");
    assert!(
        out.status.success(),
        "probe {variant} {fen}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// A category and distance as `damka probe` writes them (`win 7`, `draw`).
fn result_text(category: &Value, dtw: &Value) -> String {
    let category = category.as_str().expect("category is a string");
    match category {
        "draw" => {
            assert!(dtw.is_null(), "a draw has no distance: {dtw}");
            "draw".into()
        }
        _ => format!("{category} {}", dtw.as_u64().expect("dtw is a number")),
    }
}

/// A position answer written as `damka probe` prints it.
fn as_probe_text(answer: &Value) -> String {
    let mut out = format!(
        "result {}\n",
        answer["category"].as_str().expect("category")
    );
    let rules = answer["rules"].as_str();
    if answer["category"] != "draw" {
        out.push_str(&format!("dtw {}\n", answer["dtw"]));
    }
    if let Some(r) = rules {
        out.push_str(&format!("rules {r}\n"));
    }
    if answer["category"] != "draw" {
        out.push_str(&format!("dtc {}\n", answer["dtc"]));
    } else {
        assert!(answer["dtc"].is_null(), "{answer}");
    }
    for m in answer["moves"].as_array().expect("moves") {
        out.push_str(&format!(
            "{} {}",
            m["move"].as_str().expect("move text"),
            result_text(&m["category"], &m["dtw"])
        ));
        match (rules, m["rules"].as_str()) {
            (Some(_), Some(r)) => out.push_str(&format!(" {r}\n")),
            (None, None) => out.push('\n'),
            other => panic!("rules {other:?}: {answer}"),
        }
    }
    out
}

/// Moves come best first: fastest wins, draws, slowest losses.
fn assert_best_first(answer: &Value) {
    let score = |m: &Value| match m["category"].as_str() {
        Some("win") => 100_000 - m["dtw"].as_i64().expect("dtw"),
        Some("loss") => -100_000 + m["dtw"].as_i64().expect("dtw"),
        _ => 0,
    };
    let scores: Vec<i64> = answer["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(score)
        .collect();
    assert!(
        scores.is_sorted_by(|a, b| a >= b),
        "not best first: {answer}"
    );
}

/// Every move's flags, path ends and FEN after it agree with the rules.
fn check_moves<R: Rules>(fen: &str, answer: &Value) {
    let pos = parse_fen::<R>(fen).expect("test FEN");
    let legal = legal_moves(&pos);
    let moves = answer["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), legal.len(), "{fen}");
    for m in moves {
        let text = m["move"].as_str().expect("move");
        let lm = parse_move(R::VARIANT, &legal, text).expect("a legal move text");
        assert_eq!(m["fen_after"], write_fen(&pos.play(&lm.mv)), "{fen} {text}");
        assert_eq!(m["capture"], lm.mv.is_capture(), "{fen} {text}");
        assert_eq!(m["crowns"], lm.mv.is_promotion(), "{fen} {text}");
        let path: Vec<_> = m["path"]
            .as_array()
            .expect("path")
            .iter()
            .map(|sq| parse_square(R::VARIANT, sq.as_str().expect("square")).expect("a square"))
            .collect();
        assert_eq!(path, lm.paths[0].squares, "{fen} {text}");
    }
}

/// A random position of 2 to `max` pieces with a legal move, either side to move.
fn random_position<R: Rules>(rng: &mut Lcg, max: u32) -> Position<R> {
    let slices = Material::all_up_to(max, R::MEN);
    loop {
        let m = slices[rng.below(slices.len() as u64) as usize];
        let index = SliceIndex::<R>::new(m);
        let Some(frame) = index.unrank(rng.below(index.size())) else {
            continue;
        };
        let pos = if rng.below(2) == 0 {
            frame.position::<R>()
        } else {
            let turn = |bb| Bitboard(R::Board::rotate(bb));
            match Position::new(
                turn(frame.other),
                turn(frame.mover),
                turn(frame.kings),
                Color::Black,
            ) {
                Ok(p) => p,
                Err(_) => continue,
            }
        };
        if !legal_moves(&pos).is_empty() {
            return pos;
        }
    }
}

/// Random FENs of a variant the test tables hold, the same on every run.
fn random_fens(variant: Variant, count: usize, seed: u64) -> Vec<String> {
    let mut rng = Lcg(seed ^ u64::from(variant.game_type()));
    (0..count)
        .map(|_| {
            with_rules!(variant, R => write_fen(&random_position::<R>(&mut rng, pieces(variant))))
        })
        .collect()
}

#[test]
fn answers_equal_damka_probe_in_every_variant() {
    let server = Server::start(&[]);
    let agent = agent();
    let mut checked = 0;
    for variant in Variant::ALL {
        let mut fens = random_fens(variant, 8, 13);
        if variant == Variant::English {
            fens.push("W:WK19,K23:BK28,12".into());
        }
        for fen in fens {
            let (status, answer) = get(&agent, &server.base, &probe_path(variant, &fen));
            assert_eq!(status, 200, "{variant} {fen}: {answer}");
            assert_eq!(answer["variant"], variant.name());
            let canonical =
                with_rules!(variant, R => write_fen(&parse_fen::<R>(&fen).expect("fen")));
            assert_eq!(answer["fen"], canonical);
            assert_eq!(answer["rule_set"], RuleSet::default_for(variant).name);
            assert_eq!(
                as_probe_text(&answer),
                damka_probe(variant, &fen),
                "{variant} {fen}"
            );
            with_rules!(variant, R => check_moves::<R>(&fen, &answer));
            assert_best_first(&answer);
            checked += 1;
        }
    }
    assert_eq!(checked, 7 * 8 + 1);
    let (status, log) = server.stop("TERM");
    assert!(status.success(), "{status}");
    let probes = log
        .iter()
        .filter(|l| l.starts_with("GET /api/v1/") && l.contains(" 200 ") && l.ends_with("us"))
        .count();
    assert_eq!(probes, checked, "one access-log line per request: {log:?}");
}

#[test]
fn rules_names_the_draw_rules_of_the_rules_fields() {
    let refused = |dir: &Path, name: &str| {
        let out = Command::new(DAMKA)
            .arg("serve")
            .arg("--tables")
            .arg(dir)
            .args(["--bind", "127.0.0.1:0", "--rules", name])
            .output()
            .expect("damka serve runs");
        assert_eq!(out.status.code(), Some(2), "--rules {name}");
        String::from_utf8(out.stderr).expect("utf-8")
    };
    let unknown = refused(tables(), "fide");
    assert!(
        unknown.contains("no variant has draw rules 'fide'"),
        "{unknown}"
    );
    // The shared tables' English rules files hold the default, wcdf.
    let other = refused(tables(), "rulepage-50");
    assert!(
        other.contains("english rules files of") && other.contains("hold wcdf, not rulepage-50"),
        "{other}"
    );
    // English tables built under rulepage-50 answer under it, as `damka probe --rules` does.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-rulepage-50");
    let _ = std::fs::remove_dir_all(&dir);
    generate(
        &dir,
        Variant::English,
        &["--pieces", "4", "--rules", "rulepage-50"],
    );
    let server = Server::start_on(&dir, &["--rules", "rulepage-50"]);
    let agent = agent();
    let mut fens = random_fens(Variant::English, 8, 29);
    fens.push("W:WK19,K23:BK28,12".into());
    for fen in &fens {
        let (status, answer) = get(&agent, &server.base, &probe_path(Variant::English, fen));
        assert_eq!(status, 200, "{fen}: {answer}");
        assert_eq!(answer["rule_set"], "rulepage-50");
        assert!(answer["rules"].is_string(), "{fen}: {answer}");
        let probe = damka_probe_in(&dir, Variant::English, fen, &["--rules", "rulepage-50"]);
        assert_eq!(as_probe_text(&answer), probe, "{fen}");
    }
}

#[test]
fn first_position_lists_every_move_best_first() {
    let server = Server::start(&[]);
    let (status, answer) = get(
        &agent(),
        &server.base,
        "/api/v1/english?fen=W:WK19,K23:BK28,12",
    );
    assert_eq!(status, 200);
    assert_eq!(answer["category"], "win");
    assert_eq!(answer["dtw"], 61);
    let moves = answer["moves"].as_array().expect("moves");
    let texts: Vec<String> = moves
        .iter()
        .map(|m| format!("{} {}", m["move"], result_text(&m["category"], &m["dtw"])))
        .collect();
    assert_eq!(texts[0], "\"23-27\" win 61", "{texts:?}");
    assert_eq!(texts[1], "\"23-18\" win 65", "{texts:?}");
    let pos = parse_fen::<damka::rules::English>("W:WK19,K23:BK28,12").expect("fen");
    assert_eq!(moves.len(), legal_moves(&pos).len(), "{texts:?}");
    assert!(moves.iter().all(|m| m["capture"] == false));
}

#[test]
fn mainline_plays_perfect_play_to_the_end() {
    let server = Server::start(&[]);
    let agent = agent();
    let fen = "W:WK19,K23:BK28,12";
    let (status, line) = get(
        &agent,
        &server.base,
        &format!("/api/v1/english/mainline?fen={}", encode(fen)),
    );
    assert_eq!(status, 200, "{line}");
    assert_eq!(line["category"], "win");
    assert_eq!(line["winner"], "white");
    assert_eq!(line["truncated"], false);
    let plies = line["mainline"].as_array().expect("mainline");
    assert_eq!(plies.len(), 61);
    let mut pos = parse_fen::<damka::rules::English>(fen).expect("fen");
    for (i, ply) in plies.iter().enumerate() {
        // Each move is the best one of its position, as the position endpoint rates it, and
        // the side that plays it wins (or loses) one ply faster than before.
        let here = write_fen(&pos);
        let (_, answer) = get(&agent, &server.base, &probe_path(Variant::English, &here));
        assert_eq!(answer["moves"][0]["move"], ply["move"], "ply {i}");
        let left = 61 - i as u64;
        assert_eq!(ply["dtw"], left, "ply {i}");
        assert_eq!(ply["category"], if i % 2 == 0 { "win" } else { "loss" });
        let legal = legal_moves(&pos);
        let text = ply["move"].as_str().expect("move");
        let lm = parse_move(Variant::English, &legal, text).expect("legal");
        pos = pos.play(&lm.mv);
        assert_eq!(ply["fen_after"], write_fen(&pos));
    }
    assert!(legal_moves(&pos).is_empty(), "the line ends the game");

    let (status, draw) = get(
        &agent,
        &server.base,
        "/api/v1/english/mainline?fen=W:WK1:BK32",
    );
    assert_eq!(status, 200);
    assert_eq!(draw["category"], "draw");
    assert!(draw["dtw"].is_null() && draw["winner"].is_null());
    assert_eq!(draw["mainline"].as_array().map(Vec::len), Some(0));
}

#[test]
fn status_lists_the_variants_and_piece_counts() {
    let server = Server::start(&[]);
    let (status, answer) = get(&agent(), &server.base, "/api/v1/status");
    assert_eq!(status, 200);
    let variants = answer["variants"].as_array().expect("variants");
    assert_eq!(variants.len(), 7);
    for v in variants {
        let variant: Variant = v["variant"].as_str().expect("name").parse().expect("known");
        assert_eq!(v["pieces"], pieces(variant), "{v}");
        assert_eq!(v["max_pieces"], pieces(variant), "{v}");
        let files = std::fs::read_dir(tables().join(variant.name()))
            .expect("variant dir")
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "wdl"))
            })
            .count();
        assert_eq!(v["slices"], files, "{v}");
    }
}

#[test]
fn board_gives_squares_and_pieces() {
    let server = Server::start(&[]);
    let agent = agent();
    let (status, board) = get(
        &agent,
        &server.base,
        "/api/v1/english/board?fen=W:WK19,K23:BK28,12",
    );
    assert_eq!(status, 200);
    assert_eq!(
        (board["size"].clone(), board["side"].clone()),
        (8.into(), "white".into())
    );
    assert_eq!(board["squares"].as_array().map(Vec::len), Some(32));
    assert_eq!(board["pieces"].as_array().map(Vec::len), Some(4));
    assert_eq!(board["numbered"], true);
    let (_, board) = get(&agent, &server.base, "/api/v1/international/board");
    assert_eq!(board["squares"].as_array().map(Vec::len), Some(50));
    assert_eq!(board["pieces"].as_array().map(Vec::len), Some(0));
    let (_, board) = get(&agent, &server.base, "/api/v1/turkish/board");
    assert_eq!(board["squares"].as_array().map(Vec::len), Some(64));
    assert_eq!(
        (board["orthogonal"].clone(), board["numbered"].clone()),
        (true.into(), false.into())
    );
    // a1 is the first square, at file 0 and rank 0.
    assert_eq!(board["squares"][0]["name"], "a1");
}

#[test]
fn bad_input_is_400_and_missing_tables_404_with_a_message() {
    let server = Server::start(&[]);
    let agent = agent();
    let cases: &[(&str, u16, &str)] = &[
        ("/api/v1/chess?fen=W:W1:B2", 400, "unknown variant 'chess'"),
        ("/api/v1/english", 400, "missing query parameter 'fen'"),
        ("/api/v1/english?fen=X:W1:B5", 400, "bad FEN"),
        ("/api/v1/english?fen=W:W1,1:B5", 400, "listed twice"),
        ("/api/v1/english?fen=W:WK33:B5", 400, "off the board"),
        (
            "/api/v1/english?fen=W:WK1:B",
            400,
            "the side not to move has no pieces",
        ),
        ("/api/v1/english?fen=%FF", 400, "bad FEN"),
        ("/api/v1/%FF?fen=W:W1:B5", 400, "Invalid UTF-8"),
        ("/api/v1/english/mainline?fen=W:W1:W5", 400, "bad FEN"),
        ("/api/v1/turkish/board?fen=W:Wz9:B", 400, "bad FEN"),
        (
            "/api/v1/english?fen=W:W21,22,23:B5,6",
            404,
            "5 pieces, 3 men to move against 2 men (slice 3020)",
        ),
        (
            "/api/v1/international/mainline?fen=B:W46,47:BK5,K4",
            404,
            "no international table for 4 pieces",
        ),
        ("/nope", 404, "no such page: /nope"),
        ("/api/v1/english/nope", 404, "no such page"),
    ];
    for &(path, want, message) in cases {
        let (status, body) = get(&agent, &server.base, path);
        assert_eq!(status, want, "{path}: {body}");
        let error = body["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{path}: {body}"));
        assert!(error.contains(message), "{path}: {error}");
    }
    let (_, body) = get(&agent, &server.base, "/api/v1/english?fen=W:W21,22,23:B5,6");
    assert_eq!(body["material"], "3020");

    let mut response = agent
        .post(format!("{}/api/v1/status", server.base))
        .send_empty()
        .expect("POST answered");
    assert_eq!(response.status().as_u16(), 405);
    let body: Value =
        serde_json::from_str(&response.body_mut().read_to_string().expect("body")).expect("json");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("use GET"))
    );
}

#[test]
fn the_page_is_served_self_contained() {
    let server = Server::start(&[]);
    let mut response = agent()
        .get(format!(
            "{}/?variant=english&fen=W:WK19,K23:BK28,12",
            server.base
        ))
        .call()
        .expect("page");
    assert_eq!(response.status().as_u16(), 200);
    let kind = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    assert_eq!(kind, "text/html; charset=utf-8");
    let page = response.body_mut().read_to_string().expect("body");
    assert!(page.contains("<svg id=\"board\"") && page.contains("/api/v1/"));
    assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
}

/// CPU seconds (user and system) a process has used so far, from `/proc/PID/stat`; `None`
/// where there is no such file.
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (in parentheses): utime and stime are the 12th and
    // 13th of them, in clock ticks.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    let out = Command::new("getconf").arg("CLK_TCK").output().ok()?;
    let per_second: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    Some(ticks / per_second)
}

/// What a load run measured.
struct Load {
    /// Probes answered per second of wall time.
    rate: f64,
    /// CPU seconds the server and the clients (this process) used during the run.
    cpu: Option<(f64, f64)>,
}

/// `requests` probes from `connections` keep-alive connections, each answer compared with
/// `damka probe`.
fn load(requests: usize, connections: usize) -> Load {
    let mut work: Vec<(Variant, String, String)> = Vec::new();
    for variant in Variant::ALL {
        for fen in random_fens(variant, 4, 29) {
            let expected = damka_probe(variant, &fen);
            work.push((variant, probe_path(variant, &fen), expected));
        }
    }
    let work = Arc::new(work);
    let server = Server::start(&[]);
    let pid = server.child.id().to_string();
    let cpu_before = cpu_seconds(&pid).zip(cpu_seconds("self"));
    let deadline = Duration::from_secs(300);
    let start = Instant::now();
    let threads: Vec<_> = (0..connections)
        .map(|c| {
            let work = work.clone();
            let base = server.base.clone();
            std::thread::spawn(move || {
                let agent = agent();
                let mut done = 0;
                for i in (c..requests).step_by(connections) {
                    assert!(start.elapsed() < deadline, "load test past {deadline:?}");
                    let (variant, path, expected) = &work[i % work.len()];
                    let (status, answer) = get(&agent, &base, path);
                    assert_eq!(status, 200, "{variant} {path}: {answer}");
                    assert_eq!(&as_probe_text(&answer), expected, "{variant} {path}");
                    done += 1;
                }
                done
            })
        })
        .collect();
    let done: usize = threads
        .into_iter()
        .map(|t| t.join().expect("a client thread"))
        .sum();
    let rate = done as f64 / start.elapsed().as_secs_f64();
    let cpu = cpu_before
        .zip(cpu_seconds(&pid).zip(cpu_seconds("self")))
        .map(|((s0, c0), (s1, c1))| (s1 - s0, c1 - c0));
    assert_eq!(done, requests);
    let (status, log) = server.stop("TERM");
    assert!(status.success());
    assert_eq!(
        log.iter().filter(|l| l.contains(" 200 ")).count(),
        requests,
        "one access-log line per request"
    );
    Load { rate, cpu }
}

fn report(requests: usize, connections: usize, run: &Load) -> String {
    let mut out = format!(
        "{requests} probes from {connections} connections: {:.0} probes/s",
        run.rate
    );
    if let Some((server, client)) = run.cpu {
        let per = |cpu: f64| cpu * 1e6 / requests as f64;
        out.push_str(&format!(
            "; CPU per probe: server {:.1} us, clients {:.1} us",
            per(server),
            per(client)
        ));
    }
    out
}

#[test]
fn load_2000_probes_from_32_connections_all_correct() {
    eprintln!("{}", report(2000, 32, &load(2000, 32)));
}

#[test]
#[ignore = "a measurement, not a check: cargo test --release -p damka-cli --test serve -- --ignored --nocapture; record it in benches/README.md"]
fn load_throughput() {
    println!("{}", report(100_000, 32, &load(100_000, 32)));
}

#[test]
fn sigint_and_sigterm_stop_it_gracefully() {
    for signal in ["INT", "TERM"] {
        let server = Server::start(&["--threads", "1"]);
        let (status, _) = get(&agent(), &server.base, "/api/v1/status");
        assert_eq!(status, 200);
        let (status, log) = server.stop(signal);
        assert!(status.success(), "{signal}: {status}");
        assert!(
            log.iter().any(|l| l == "damka serve: stopped"),
            "{signal}: {log:?}"
        );
    }
}

#[test]
fn a_stuck_client_does_not_hold_up_the_stop() {
    use std::io::Write;
    let server = Server::start(&[]);
    let addr = server.base.trim_start_matches("http://").to_string();
    let mut stuck = std::net::TcpStream::connect(&addr).expect("connect");
    // A request whose headers never end.
    stuck
        .write_all(b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\n")
        .expect("write");
    std::thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    let (status, log) = server.stop("TERM");
    assert!(status.success(), "{status}");
    assert!(
        start.elapsed() < Duration::from_secs(25),
        "{:?}",
        start.elapsed()
    );
    assert!(log.iter().any(|l| l == "damka serve: stopped"), "{log:?}");
    drop(stuck);
}

/// A block cache larger than memory can hold is refused at start with the reason (exit 1),
/// not an abort.
#[test]
fn a_cache_too_large_is_refused_at_start() {
    let dir = tables().to_str().expect("a UTF-8 path").to_string();
    let out = Command::new(DAMKA)
        .args(["serve", "--tables", &dir, "--bind", "127.0.0.1:0"])
        .args(["--cache", "18446744073709551615"])
        .output()
        .expect("damka runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        format!(
            "error: {dir}: a block cache of {} bytes cannot be had",
            usize::MAX
        )
    );
}

/// Runs `damka ARGS`, returns its standard output; fails unless it succeeds.
fn run_damka(args: &[&str]) -> String {
    let out = Command::new(DAMKA).args(args).output().expect("damka runs");
    assert!(
        out.status.success(),
        "damka {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// English up to 4 pieces as `damka generate` builds them by default: no distances to the
/// end. Every front end answers from them (results, distances to conversion, best moves
/// and lines), and none writes a distance to the end it does not have.
#[test]
fn every_front_end_answers_without_distances_to_the_end() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lean-tables");
    let _ = std::fs::remove_dir_all(&dir);
    let tables = dir.to_str().expect("a UTF-8 path");
    run_damka(&[
        "generate",
        "--quiet",
        "--variant",
        "english",
        "--pieces",
        "4",
        "--tables",
        tables,
    ]);
    let files: Vec<String> = std::fs::read_dir(dir.join("english"))
        .expect("the English tables")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(files.iter().filter(|f| f.ends_with(".wdl")).count(), 41);
    assert_eq!(files.iter().filter(|f| f.ends_with(".dtc")).count(), 41);
    assert!(!files.iter().any(|f| f.ends_with(".dtw")), "{files:?}");
    let verify = run_damka(&["verify", "--variant", "english", "--tables", tables]);
    assert!(
        verify.ends_with("slices 41, bad 0, missing 0\n"),
        "{verify}"
    );

    // probe: the result, no distance to the end, moves by their distance to conversion.
    let first = "W:WK19,K23:BK28,12";
    let probe = run_damka(&[
        "probe",
        "--variant",
        "english",
        "--fen",
        first,
        "--tables",
        tables,
    ]);
    let lines: Vec<&str> = probe.lines().collect();
    assert_eq!(
        &lines[..3],
        ["result win", "rules win", "dtc 17"],
        "{probe}"
    );
    assert!(!probe.contains("dtw"), "{probe}");
    let moves = &lines[3..];
    assert_eq!(moves.len(), 6, "{probe}");
    assert!(moves[0].ends_with(" win dtc 17 win"), "{probe}");
    assert!(
        moves[..4].iter().all(|m| m.contains(" win dtc ")),
        "{probe}"
    );
    let losing: Vec<&str> = moves[4..].iter().map(|m| &m[..5]).collect();
    assert_eq!(losing, ["19-16", "19-24"], "{probe}");
    assert!(moves[4].ends_with(" loss dtc 2 loss"), "{probe}");
    let best = &moves[0][..5];

    // play (the engine): the tables' move, by the distance to conversion.
    let play = run_damka(&[
        "play",
        "--variant",
        "english",
        "--fen",
        first,
        "--tables",
        tables,
        "--depth",
        "4",
    ]);
    assert!(play.starts_with(&format!("bestmove {best}\n")), "{play}");

    // analyse: the losing move is a mistake, no distance to the end is written.
    let pdn = dir.join("game.pdn");
    let game = format!("[GameType \"21\"]\n[FEN \"{first}\"]\n\n1. 19-16 *\n");
    std::fs::write(&pdn, game).expect("the game");
    let json = dir.join("game.json");
    let annotated = run_damka(&[
        "analyse",
        pdn.to_str().expect("a UTF-8 path"),
        "--tables",
        tables,
        "--json",
        json.to_str().expect("a UTF-8 path"),
    ]);
    assert!(annotated.contains("Win -> Loss. Best was"), "{annotated}");
    assert!(annotated.contains("White wins."), "{annotated}");
    assert!(annotated.contains("[%tb W]"), "{annotated}");
    assert!(!annotated.contains("plies"), "{annotated}");
    let analysis: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the JSON")).expect("JSON");
    let ply = &analysis[0]["plies"][0];
    assert_eq!(
        ply["before"],
        serde_json::json!({"wdl": "win", "dtw": null}),
        "{analysis}"
    );
    assert_eq!(ply["class"], "win_to_loss", "{analysis}");

    // serve: dtw null, dtc given, the same moves; the mainline plays to the end.
    let server = Server::start_on(&dir, &[]);
    let agent = agent();
    let (status, answer) = get(&agent, &server.base, &probe_path(Variant::English, first));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["category"], "win");
    assert_eq!(answer["dtw"], Value::Null, "{answer}");
    assert_eq!(answer["dtc"], 17, "{answer}");
    assert_eq!(answer["moves"][0]["move"], best, "{answer}");
    assert_eq!(answer["moves"][0]["dtc"], 17, "{answer}");
    assert_eq!(answer["moves"][0]["dtw"], Value::Null, "{answer}");
    let path = format!("/api/v1/english/mainline?fen={}", encode(first));
    let (status, line) = get(&agent, &server.base, &path);
    assert_eq!(status, 200, "{line}");
    assert_eq!(line["winner"], "white", "{line}");
    let plies = line["mainline"].as_array().expect("a line");
    assert!(!plies.is_empty() && plies.len() < 100, "{line}");
    assert!(plies.iter().all(|p| p["dtw"].is_null()), "{line}");
    assert_eq!(line["truncated"], false, "{line}");
    let mut end = parse_fen::<damka::rules::English>(first).expect("the FEN");
    for p in plies {
        let legal = legal_moves(&end);
        let text = p["move"].as_str().expect("a move");
        let mv = parse_move(Variant::English, &legal, text).expect("a legal move");
        end = end.play(&mv.mv);
    }
    assert!(
        legal_moves(&end).is_empty(),
        "the line ends the game: {line}"
    );
    server.stop("TERM");
    std::fs::remove_dir_all(&dir).expect("remove the scratch tables");
}
