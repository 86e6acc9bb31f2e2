//! The analyser: glyphs, best moves and lines on hand-made endings, First Position played
//! right and wrong, JSON fields, and a run over a real file of games.
//!
//! English tables up to 4 pieces are built once into the test target directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use damka::Variant;
use damka::analyse::{Analysis, Class, analyse_game, annotate, best_line, game_json, verdict_code};
use damka::notation::{parse_fen, parse_move, write_fen};
use damka::pdn::{Game, Node, Reader, Replayer, Ruleset, write_game};
use damka::rules::{English, Position, Rules, legal_moves};
use damka::tablebase::{Tablebase, Wdl, build_job, plan};

const FIRST_POSITION: &str = "W:WK19,K23:BK28,12";

fn tables_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-tables-english");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("tables directory");
        let tb = Tablebase::open(&dir).expect("tables directory");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("pool");
        for job in plan(4, English::MEN) {
            let bar = indicatif::ProgressBar::hidden();
            pool.install(|| build_job::<English>(&job, &tb, &bar))
                .expect("slice builds");
        }
        dir
    })
}

fn tables() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| Tablebase::open(tables_dir()).expect("built tables"))
}

/// Reads, normalizes, analyses and annotates the games of `text` (English).
fn analyse(text: &str) -> Vec<(Game, Analysis, String)> {
    let mut replayer = Replayer::new(Some(Ruleset::Supported(Variant::English)));
    Reader::new("t.pdn", text.as_bytes())
        .map(|read| {
            let mut read = read.expect("readable");
            let replay = replayer.normalize(&mut read);
            assert!(replay.errors.is_empty(), "{:?}", replay.errors);
            let analysis = analyse_game::<English>(tables(), &read.game, 4).expect("analysed");
            let mut game = read.game.clone();
            annotate(&mut game, &analysis);
            let out = write_game(&game);
            (read.game, analysis, out)
        })
        .collect()
}

fn game_text(fen: &str, moves: &[String]) -> String {
    format!("[FEN \"{fen}\"]\n{} *\n", moves.join(" "))
}

fn pos(fen: &str) -> Position<English> {
    parse_fen::<English>(fen).expect(fen)
}

#[test]
fn first_position_played_correctly_gets_no_glyph() {
    let line = best_line(tables(), &pos(FIRST_POSITION), 40).expect("line");
    assert_eq!(line[0], "23-27");
    let (_, analysis, out) = analyse(&game_text(FIRST_POSITION, &line)).remove(0);
    assert_eq!(analysis.plies.len(), 40);
    assert_eq!(analysis.mistakes().count(), 0);
    assert!(analysis.plies.iter().all(|p| p.class != Class::Slower));
    let (fen, side, outcome) = analysis.first.clone().expect("in the tables");
    assert_eq!(fen, write_fen(&pos(FIRST_POSITION)));
    assert_eq!(side, damka::Color::White);
    assert_eq!((outcome.wdl, outcome.dtw), (Wdl::Win, 61));
    let moves = out.split("\n\n").nth(1).expect("move text");
    assert!(!moves.contains('?'), "{out}");
    assert!(!moves.contains("->"), "{out}");
    // Only moves, where there were others, are marked $7.
    assert!(analysis.plies.iter().any(|p| p.class == Class::Only));
    assert!(moves.contains("4. 23-18 $7"), "{out}");
    assert!(out.contains("{[%tb W61]} 1. 23-27"), "{out}");
    assert!(out.contains("[Annotator \"damka "), "{out}");
    // The distances count down along a perfect line.
    for (i, p) in analysis.plies.iter().enumerate() {
        assert_eq!(p.before.dtw as usize, 61 - i, "ply {i}");
    }
}

#[test]
fn first_position_blunder_is_marked_with_best_move_and_line() {
    let text = format!(
        "[White \"W\"][Black \"B\"][Result \"0-1\"]{}",
        game_text(FIRST_POSITION, &["19-16".into()])
    );
    let (_, analysis, out) = analyse(&text).remove(0);
    let ply = &analysis.plies[0];
    assert_eq!(ply.class, Class::WinToLoss);
    assert_eq!(ply.best, vec!["23-27".to_string()]);
    assert_eq!(ply.line.len(), 20);
    assert_eq!(ply.line[0], "23-27");
    assert!(out.contains("1. 19-16??"), "{out}");
    assert!(
        out.contains("Win -> Loss. Best was 23-27, White wins in 61"),
        "{out}"
    );
    assert!(out.contains("(1. 23-27 28-32"), "{out}");
    assert!(out.contains("[Result \"0-1\"]"), "{out}");
    // The annotated game reads and replays again.
    let again = analyse(&out);
    assert_eq!(again[0].1.plies[0].class, Class::WinToLoss);
}

/// A hand-made game: First Position played well until White can throw the win away for a
/// draw, then it does.
#[test]
fn win_thrown_to_a_draw_is_marked() {
    let tb = tables();
    let mut p = pos(FIRST_POSITION);
    let mut moves = Vec::new();
    let mut found = None;
    for _ in 0..61 {
        let rated = tb.rated_moves(&p).expect("rated");
        if rated[0].outcome.wdl == Wdl::Win
            && let Some(i) = rated.iter().position(|r| r.outcome.wdl == Wdl::Draw)
        {
            let legal = legal_moves(&p);
            let all: Vec<_> = rated.iter().map(|r| r.mv.clone()).collect();
            let text = damka::notation::move_text(Variant::English, &all, i);
            assert!(parse_move(Variant::English, &legal, &text).is_ok());
            let best = damka::notation::move_text(Variant::English, &all, 0);
            found = Some((text, best, moves.len()));
            break;
        }
        let all: Vec<_> = rated.iter().map(|r| r.mv.clone()).collect();
        moves.push(damka::notation::move_text(Variant::English, &all, 0));
        p = p.play(&rated[0].mv.mv);
    }
    let (drawing, best, at) = found.expect("a drawing mistake somewhere on the line");
    moves.push(drawing.clone());
    let (_, analysis, out) = analyse(&game_text(FIRST_POSITION, &moves)).remove(0);
    let mistakes: Vec<_> = analysis.mistakes().collect();
    assert_eq!(mistakes.len(), 1);
    let ply = mistakes[0];
    assert_eq!(ply.class, Class::WinToDraw);
    assert_eq!(ply.played, drawing);
    assert_eq!(ply.best[0], best);
    assert_eq!(ply.line[0], best);
    assert_eq!(analysis.plies.len(), at + 1);
    assert!(out.contains(&format!("{drawing}?")), "{out}");
    assert!(!out.contains("??"), "{out}");
    assert!(
        out.contains(&format!("Win -> Draw. Best was {best},")),
        "{out}"
    );
}

/// A drawn four-king ending (found by a scan of the tables) where one move walks into a lost
/// ending: the draw kept gives no glyph, the losing move gets `??`.
#[test]
fn draw_thrown_to_a_loss_is_marked() {
    let tb = tables();
    let mut found = None;
    'scan: for w1 in 1..=32 {
        for w2 in (w1 + 1)..=32 {
            for b1 in 1..=32 {
                for b2 in (b1 + 1)..=32 {
                    let squares = [w1, w2, b1, b2];
                    if (0..4).any(|i| squares[i + 1..].contains(&squares[i])) {
                        continue;
                    }
                    let fen = format!("B:WK{w1},K{w2}:BK{b1},K{b2}");
                    let p = pos(&fen);
                    let rated = tb.rated_moves(&p).expect("rated");
                    if rated.len() > 1
                        && rated[0].outcome.wdl == Wdl::Draw
                        && let Some(i) = rated.iter().position(|r| r.outcome.wdl == Wdl::Loss)
                    {
                        let all: Vec<_> = rated.iter().map(|r| r.mv.clone()).collect();
                        let text = |k| damka::notation::move_text(Variant::English, &all, k);
                        found = Some((fen, text(i), text(0)));
                        break 'scan;
                    }
                }
            }
        }
    }
    let (fen, losing, drawing) = found.expect("a draw that can be lost");

    let (_, analysis, out) = analyse(&game_text(&fen, std::slice::from_ref(&drawing))).remove(0);
    assert_eq!(analysis.plies[0].before.wdl, Wdl::Draw);
    assert_eq!(analysis.mistakes().count(), 0);
    let moves = out.split("\n\n").nth(1).expect("move text");
    assert!(!moves.contains('?'), "{out}");
    assert!(moves.starts_with("{[%tb D]}"), "{out}");

    let (_, analysis, out) = analyse(&game_text(&fen, std::slice::from_ref(&losing))).remove(0);
    let ply = &analysis.plies[0];
    assert_eq!(ply.class, Class::DrawToLoss);
    assert!(ply.best.contains(&drawing));
    assert!(out.contains(&format!("1. {losing}??")), "{out}");
    assert!(out.contains("Draw -> Loss. Best was"), "{out}");
    assert!(out.contains(", a draw."), "{out}");
    assert!(out.contains(&format!("(1. {drawing}")), "{out}");
}

#[test]
fn positions_outside_the_tables_get_no_verdict() {
    let (_, analysis, out) = analyse("11-15 23-19 8-11 22-17 *").remove(0);
    assert!(analysis.first.is_none());
    assert!(analysis.plies.is_empty());
    assert!(!out.contains("%tb"), "{out}");
}

#[test]
fn json_has_the_documented_fields() {
    let text = format!(
        "[White \"A \\\"q\\\"\"]{}",
        game_text(FIRST_POSITION, &["19-16".into()])
    );
    let (game, analysis, _) = analyse(&text).remove(0);
    let json = game_json("x.pdn", 1, &game, &analysis);
    for field in [
        "\"file\":\"x.pdn\"",
        "\"game\":1",
        "\"tags\":{",
        "\"White\":\"A \\\"q\\\"\"",
        &format!(
            "\"first_table_position\":\"{}\"",
            write_fen(&pos(FIRST_POSITION))
        ),
        "\"theoretical_result\":{\"side\":\"white\",\"wdl\":\"win\",\"dtw\":61}",
        "\"number\":\"1.\"",
        "\"move\":\"19-16\"",
        "\"before\":{\"wdl\":\"win\",\"dtw\":61}",
        "\"after\":{\"wdl\":\"loss\",\"dtw\":2}",
        "\"class\":\"win_to_loss\"",
        "\"best\":[\"23-27\"]",
        "\"line\":[\"23-27\",",
    ] {
        assert!(json.contains(field), "{field} in {json}");
    }
    assert_valid_json(&json);
}

/// A minimal JSON syntax check: strings, numbers, literals, arrays and objects nest properly.
fn assert_valid_json(text: &str) {
    fn value(b: &[u8], mut i: usize) -> usize {
        while b[i].is_ascii_whitespace() {
            i += 1;
        }
        match b[i] {
            b'{' | b'[' => {
                let close = if b[i] == b'{' { b'}' } else { b']' };
                i += 1;
                loop {
                    while b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    if b[i] == close {
                        return i + 1;
                    }
                    if close == b'}' {
                        assert_eq!(b[i], b'"', "key at {i}");
                        i = value(b, i);
                        while b[i].is_ascii_whitespace() {
                            i += 1;
                        }
                        assert_eq!(b[i], b':', "colon at {i}");
                        i += 1;
                    }
                    i = value(b, i);
                    while b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    if b[i] == b',' {
                        i += 1;
                    } else {
                        assert_eq!(b[i], close, "close at {i}");
                    }
                }
            }
            b'"' => {
                i += 1;
                while b[i] != b'"' {
                    assert!(b[i] >= 0x20, "control character in a string");
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i + 1
            }
            b'n' | b't' | b'f' => {
                while b[i].is_ascii_alphabetic() {
                    i += 1;
                }
                i
            }
            _ => {
                assert!(b[i] == b'-' || b[i].is_ascii_digit(), "value at {i}");
                while b[i] == b'-' || b[i].is_ascii_digit() {
                    i += 1;
                }
                i
            }
        }
    }
    let b = text.as_bytes();
    let end = value(b, 0);
    assert!(
        b[end..].iter().all(u8::is_ascii_whitespace),
        "trailing text"
    );
}

/// Walks the main line of each game of an annotated file and checks every `[%tb]` comment
/// against a probe of the position it stands at.
fn check_verdicts(text: &str, every: usize) -> usize {
    let tb = tables();
    let mut checked = 0;
    for (n, read) in Reader::new("out.pdn", text.as_bytes()).enumerate() {
        let game = read.expect("the output reads").game;
        if n % every != 0 {
            continue;
        }
        let mut p: Position<English> = match game.tag("FEN") {
            Some(f) => pos(f),
            None => Position::initial(),
        };
        for node in &game.moves.nodes {
            match node {
                Node::Move(m) => {
                    let legal = legal_moves(&p);
                    let found = parse_move(Variant::English, &legal, &m.text).expect("legal");
                    p = p.play(&found.mv);
                }
                Node::Comment(c) if c.starts_with("[%tb ") => {
                    let code = c[5..].split(']').next().expect("closed command");
                    let probed = tb.probe_dtw(&p).expect("in the tables");
                    assert_eq!(code, verdict_code(probed), "{}", write_fen(&p));
                    checked += 1;
                }
                _ => {}
            }
        }
    }
    checked
}

#[test]
fn tinsley_games_are_all_handled() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/pdn/checkerboard/tinsley.pdn");
    if !file.exists() {
        eprintln!("skipped: {} is missing", file.display());
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-tinsley");
    std::fs::create_dir_all(&dir).expect("scratch");
    let (run, pdn, json) = analyse_to(&dir, &file, &["--variant", "english"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    let input = std::fs::read_to_string(&file).expect("input");
    let games = Reader::new("in", input.as_bytes()).count();
    let mut replayer = Replayer::new(Some(Ruleset::Supported(Variant::English)));
    let failing = Reader::new("in", input.as_bytes())
        .filter(|g| match g {
            Ok(g) => !replayer.replay(g).errors.is_empty(),
            Err(_) => true,
        })
        .count();
    let summary = format!("games {games}, ");
    assert!(stderr.contains(&summary), "{stderr}");
    assert!(stderr.contains(&format!("failed {failing},")), "{stderr}");
    assert_eq!(
        run.status.code(),
        Some(if failing > 0 { 1 } else { 0 }),
        "{stderr}"
    );
    assert_eq!(stderr.matches("(skipped)").count(), failing, "{stderr}");

    let out = std::fs::read_to_string(&pdn).expect("annotated output");
    let mut replayer = Replayer::new(None);
    let mut written = 0;
    for read in Reader::new("out", out.as_bytes()) {
        let read = read.expect("the output reads");
        assert!(replayer.replay(&read).errors.is_empty());
        assert!(
            read.game
                .tag("Annotator")
                .is_some_and(|a| a.starts_with("damka "))
        );
        written += 1;
    }
    assert_eq!(written, games - failing);
    assert!(out.contains("[%tb "), "some game reaches the tables");
    assert!(check_verdicts(&out, 3) > 0);

    let json = std::fs::read_to_string(&json).expect("json output");
    assert_valid_json(&json);
    assert_eq!(json.matches("\"first_table_position\":").count(), written);
}

#[test]
fn setup_commands_and_unknown_moves_keep_verdicts_in_place() {
    let text =
        format!("[FEN \"{FIRST_POSITION}\"] 23-27 /FEN \"{FIRST_POSITION}\"/ 19-16 12x19x26 - - *");
    let (_, analysis, out) = analyse(&text).remove(0);
    assert_eq!(analysis.before.len(), 4);
    assert_eq!(analysis.after.len(), 4);
    assert_eq!(analysis.plies.len(), 3);
    assert_eq!(analysis.plies[1].class, Class::WinToLoss);
    assert_eq!(analysis.after[3], None);
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("1. 23-27 {[%tb L60]} /FEN"), "{out}");
    assert!(flat.contains("19-16?? {[%tb W1] Win -> Loss."), "{out}");
    assert!(flat.contains("12x26 {[%tb L0]}"), "{out}");
}

#[test]
fn cli_skips_unreplayable_games_and_exits_1() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-cli");
    std::fs::create_dir_all(&dir).expect("scratch");
    let input = dir.join("in.pdn");
    std::fs::write(
        &input,
        format!(
            "[White \"Ann\"][Black \"Bob\"][GameType \"21\"][FEN \"{FIRST_POSITION}\"]\n\
             1. 19-16 *\n\n[GameType \"21\"]\n1. 11-15 24-21 *\n"
        ),
    )
    .expect("input");
    let (run, pdn, json) = analyse_to(&dir, &input, &[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("illegal move '24-21'"), "{stderr}");
    assert!(
        stderr.contains("games 2, reaching the tables 1, failed 1, mistakes: Ann (white) 1"),
        "{stderr}"
    );
    let out = std::fs::read_to_string(&pdn).expect("output");
    assert_eq!(Reader::new("out", out.as_bytes()).count(), 1);
    assert!(out.contains("19-16??"), "{out}");
    let json = std::fs::read_to_string(&json).expect("json");
    assert_valid_json(&json);
    assert!(json.starts_with('[') && json.contains("\"class\":\"win_to_loss\""));
}

/// Runs `damka analyse FILE ARGS` on the test tables, writing `out.pdn` and `out.json` in `dir`.
fn analyse_to(
    dir: &Path,
    file: &Path,
    args: &[&str],
) -> (std::process::Output, std::path::PathBuf, std::path::PathBuf) {
    let pdn = dir.join("out.pdn");
    let json = dir.join("out.json");
    let run = Command::new(env!("CARGO_BIN_EXE_damka"))
        .arg("analyse")
        .arg(file)
        .args(args)
        .arg("--tables")
        .arg(tables_dir())
        .arg("-o")
        .arg(&pdn)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("damka runs");
    (run, pdn, json)
}
