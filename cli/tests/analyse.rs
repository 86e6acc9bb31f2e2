//! The analyser: glyphs, best moves and lines on hand-made endings, First Position played
//! right and wrong, JSON fields, a run over a real file of games, and the engine evaluations
//! of `--depth` outside the tables.
//!
//! English tables up to 4 pieces are built once into the test target directory.

#[path = "../../tests/common/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use damka::Variant;
use damka::analyse::{
    Analysis, Class, analyse_game, analyse_game_searched, annotate, best_line, game_json,
    strip_annotations, verdict_code,
};
use damka::notation::{parse_fen, parse_move, write_fen};
use damka::pdn::{Game, Node, Reader, Replayer, Ruleset, write_game};
use damka::rules::{English, Position, RuleSet, Rules, legal_moves};
use damka::search::Engine;
use damka::tablebase::{ProbeError, TableError, Tablebase, Wdl, build_job, plan};

const FIRST_POSITION: &str = "W:WK19,K23:BK28,12";

/// A position where White's man has two captures from 26 to 10, taking other men, so that
/// `26x10` is ambiguous.
const AMBIGUOUS: &str = "W:W26:B14,15,22,23";
const AMBIGUOUS_MOVE: &str = "26x10";

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
            let bar = damka::tablebase::Silent;
            pool.install(|| {
                build_job::<English>(
                    &job,
                    &tb,
                    damka::tablebase::Contents::every_kind(damka::RuleSet::default_for(
                        damka::Variant::English,
                    )),
                    &bar,
                )
            })
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
    analyse_with(text, None)
}

/// As [`analyse`], with engine searches `depth` plies deep outside the tables when given.
fn analyse_with(text: &str, depth: Option<u32>) -> Vec<(Game, Analysis, String)> {
    let mut engine = Engine::new(16);
    engine.set_conditional_probes(false);
    engine.set_tables(Some(Arc::new(
        Tablebase::open(tables_dir()).expect("built tables"),
    )));
    let mut replayer = Replayer::new(Some(Ruleset::Supported(Variant::English)));
    Reader::new("t.pdn", text.as_bytes())
        .map(|read| {
            let mut read = read.expect("readable");
            strip_annotations(&mut read.game);
            let replay = replayer.normalize(&mut read);
            assert!(replay.errors.is_empty(), "{:?}", replay.errors);
            let analysis = match depth {
                None => analyse_game::<English>(
                    tables(),
                    &read.game,
                    4,
                    RuleSet::default_for(Variant::English),
                ),
                Some(d) => {
                    analyse_game_searched::<English>(Some(tables()), &read.game, 4, &mut engine, d)
                }
            }
            .expect("analysed");
            let mut game = read.game.clone();
            annotate(&mut game, &analysis);
            let out = write_game(&game);
            (read.game, analysis, out)
        })
        .collect()
}

/// The text with every run of blanks and line ends made one space (the writer wraps lines).
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
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
    let flat = flat(&out);
    assert!(
        flat.contains("1. 19-16?? $4 {[%tb W1] Win -> Loss."),
        "{out}"
    );
    assert!(
        flat.contains("Win -> Loss. Best was 23-27, White wins in 61 plies.} (1. 23-27 28-32"),
        "{out}"
    );
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
    let flat = flat(&out);
    assert!(flat.contains(&format!("{drawing}? $2 {{[%tb D]")), "{out}");
    assert!(!out.contains("??"), "{out}");
    assert!(
        flat.contains(&format!("Win -> Draw. Best was {best},")),
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
    let flat = flat(&out);
    assert!(flat.contains(&format!("1. {losing}?? $4 {{")), "{out}");
    assert!(flat.contains("Draw -> Loss. Best was"), "{out}");
    assert!(flat.contains(", a draw.} (1. "), "{out}");
    assert!(flat.contains(&format!("(1. {drawing}")), "{out}");
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
        "\"number\":\"1.\",\"depth\":0,",
        "\"move\":\"19-16\"",
        "\"before\":{\"wdl\":\"win\",\"dtw\":61}",
        "\"after\":{\"wdl\":\"loss\",\"dtw\":2}",
        "\"class\":\"win_to_loss\"",
        "\"best\":[\"23-27\"]",
        "\"line\":[\"23-27\",",
    ] {
        assert!(json.contains(field), "{field} in {json}");
    }
    let parsed = parse_json(&json);
    check_game_object(&parsed);
    assert_eq!(parsed.get("tags").get("White").text(), "A \"q\"");
    let ply = &parsed.get("plies").list()[0];
    assert_eq!(ply.get("line").list().len(), 20);
    assert_eq!(ply.get("after").get("dtw").number(), 2);
}

/// A JSON value, as the tests read the analyser's output back.
#[derive(Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(i64),
    Text(String),
    List(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(fields) => fields
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .unwrap_or_else(|| panic!("no field {key} in {self:?}")),
            _ => panic!("{self:?} is not an object"),
        }
    }

    fn keys(&self) -> Vec<&str> {
        match self {
            Json::Object(fields) => fields.iter().map(|(k, _)| k.as_str()).collect(),
            _ => panic!("{self:?} is not an object"),
        }
    }

    fn list(&self) -> &[Json] {
        match self {
            Json::List(items) => items,
            _ => panic!("{self:?} is not a list"),
        }
    }

    fn text(&self) -> &str {
        match self {
            Json::Text(t) => t,
            _ => panic!("{self:?} is not a string"),
        }
    }

    fn number(&self) -> i64 {
        match self {
            Json::Number(n) => *n,
            _ => panic!("{self:?} is not a number"),
        }
    }
}

/// Parses JSON text (what the analyser writes: no fractions or exponents), panicking on bad
/// syntax or trailing text.
fn parse_json(text: &str) -> Json {
    fn blanks(b: &[u8], mut i: usize) -> usize {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    }
    fn string(b: &[u8], mut i: usize) -> (String, usize) {
        assert_eq!(b[i], b'"', "string at {i}");
        i += 1;
        let mut out = Vec::new();
        while b[i] != b'"' {
            assert!(b[i] >= 0x20, "control character in a string at {i}");
            if b[i] == b'\\' {
                i += 1;
                match b[i] {
                    b'"' | b'\\' | b'/' => out.push(b[i]),
                    b'n' => out.push(b'\n'),
                    b'r' => out.push(b'\r'),
                    b't' => out.push(b'\t'),
                    b'u' => {
                        let hex = std::str::from_utf8(&b[i + 1..i + 5]).expect("hex");
                        let c = char::from_u32(u32::from_str_radix(hex, 16).expect("hex"))
                            .expect("a character");
                        out.extend(c.to_string().bytes());
                        i += 4;
                    }
                    other => panic!("bad escape {other} at {i}"),
                }
            } else {
                out.push(b[i]);
            }
            i += 1;
        }
        (String::from_utf8(out).expect("UTF-8"), i + 1)
    }
    fn value(b: &[u8], i: usize) -> (Json, usize) {
        let mut i = blanks(b, i);
        match b[i] {
            b'{' | b'[' => {
                let object = b[i] == b'{';
                let close = if object { b'}' } else { b']' };
                let mut fields = Vec::new();
                let mut items = Vec::new();
                i = blanks(b, i + 1);
                if b[i] == close {
                    i += 1;
                } else {
                    loop {
                        if object {
                            let (key, next) = string(b, blanks(b, i));
                            i = blanks(b, next);
                            assert_eq!(b[i], b':', "colon at {i}");
                            let (v, next) = value(b, i + 1);
                            fields.push((key, v));
                            i = blanks(b, next);
                        } else {
                            let (v, next) = value(b, i);
                            items.push(v);
                            i = blanks(b, next);
                        }
                        match b[i] {
                            b',' => i += 1,
                            c if c == close => {
                                i += 1;
                                break;
                            }
                            c => panic!("unexpected {} at {i}", c as char),
                        }
                    }
                }
                let v = if object {
                    Json::Object(fields)
                } else {
                    Json::List(items)
                };
                (v, i)
            }
            b'"' => {
                let (t, i) = string(b, i);
                (Json::Text(t), i)
            }
            b'n' if b[i..].starts_with(b"null") => (Json::Null, i + 4),
            b't' if b[i..].starts_with(b"true") => (Json::Bool(true), i + 4),
            b'f' if b[i..].starts_with(b"false") => (Json::Bool(false), i + 5),
            _ => {
                let start = i;
                if b[i] == b'-' {
                    i += 1;
                }
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let n = std::str::from_utf8(&b[start..i])
                    .expect("ASCII")
                    .parse()
                    .unwrap_or_else(|_| panic!("value at {start}"));
                (Json::Number(n), i)
            }
        }
    }
    let b = text.as_bytes();
    let (v, end) = value(b, 0);
    assert_eq!(blanks(b, end), b.len(), "trailing text");
    v
}

/// Checks a game object against the fields `game_json` documents, with their types.
fn check_game_object(game: &Json) {
    let keys = game.keys();
    let searched = keys.len() == 11;
    assert_eq!(
        keys[..9],
        [
            "file",
            "game",
            "tags",
            "first_table_position",
            "first_through_exchange",
            "theoretical_result",
            "result_conflict",
            "stops",
            "plies"
        ]
    );
    if searched {
        assert_eq!(keys[9..], ["search_depth", "evaluated"]);
        check_evaluated(game);
    } else {
        assert_eq!(keys.len(), 9, "{keys:?}");
    }
    game.get("file").text();
    assert!(game.get("game").number() >= 1);
    assert!(matches!(game.get("tags"), Json::Object(_)));
    let outcome = |o: &Json| {
        let wdl = o.get("wdl").text();
        assert!(["win", "draw", "loss"].contains(&wdl), "{wdl}");
        // A distance to the end for a win or a loss (the tables hold them), null for a draw.
        match (wdl, o.get("dtw")) {
            ("draw", Json::Null) => {}
            ("win" | "loss", Json::Number(dtw)) => assert!(*dtw >= 0, "{o:?}"),
            _ => panic!("a distance for a win or loss only: {o:?}"),
        }
    };
    match game.get("first_through_exchange") {
        Json::Null => {}
        pieces => assert!(pieces.number() > 4, "{game:?}"),
    }
    if !matches!(game.get("result_conflict"), Json::Null) {
        let conflict = game.get("result_conflict");
        assert_eq!(
            conflict.keys(),
            [
                "result", "claimed", "tables", "fen", "side", "wdl", "dtw", "rules", "text"
            ]
        );
        assert_ne!(conflict.get("claimed"), conflict.get("tables"));
        outcome(conflict);
    }
    for stop in game.get("stops").list() {
        assert_eq!(stop.keys(), ["number", "depth", "move", "why"]);
        stop.get("why").text();
    }
    match (
        game.get("first_table_position"),
        game.get("theoretical_result"),
    ) {
        (Json::Null, Json::Null) => assert!(game.get("plies").list().is_empty()),
        (Json::Text(_), result) => {
            assert_eq!(result.keys(), ["side", "wdl", "dtw"]);
            assert!(["white", "black"].contains(&result.get("side").text()));
            outcome(result);
        }
        other => panic!("first position and result disagree: {other:?}"),
    }
    for ply in game.get("plies").list() {
        assert_eq!(
            ply.keys(),
            [
                "number", "depth", "side", "move", "fen", "before", "after", "rules", "class",
                "best", "line"
            ]
        );
        let number = ply.get("number").text();
        assert!(number.ends_with('.') && number.starts_with(|c: char| c.is_ascii_digit()));
        assert!(ply.get("depth").number() >= 0);
        assert!(["white", "black"].contains(&ply.get("side").text()));
        ply.get("move").text();
        ply.get("fen").text();
        for o in [ply.get("before"), ply.get("after")] {
            assert_eq!(o.keys(), ["wdl", "dtw"]);
            outcome(o);
        }
        let class = ply.get("class").text();
        assert!(
            [
                "keeps",
                "slower",
                "only",
                "win_to_draw",
                "win_to_loss",
                "draw_to_loss"
            ]
            .contains(&class)
        );
        assert!(!ply.get("best").list().is_empty());
        let mistake = class.contains("_to_");
        assert_eq!(!ply.get("line").list().is_empty(), mistake, "{ply:?}");
    }
}

/// Checks the engine evaluations of a game object (`search_depth` and `evaluated`): the
/// documented fields with their types, the best move legal in the position and first in the
/// principal variation, which replays from there.
fn check_evaluated(game: &Json) {
    let depth = game.get("search_depth").number();
    assert!(depth >= 1);
    for entry in game.get("evaluated").list() {
        assert_eq!(
            entry.keys(),
            ["number", "depth", "side", "move", "fen", "eval"]
        );
        assert!(entry.get("number").text().ends_with('.'));
        assert!(entry.get("depth").number() >= 0);
        let side = entry.get("side").text();
        let p = pos(entry.get("fen").text());
        assert_eq!(side, p.side_to_move().name());
        let legal = legal_moves(&p);
        parse_move(Variant::English, &legal, entry.get("move").text()).expect("played move");
        let eval = entry.get("eval");
        assert_eq!(
            eval.keys(),
            ["score", "cp", "result", "plies", "depth", "best", "pv"]
        );
        let score = eval.get("score").text();
        match (eval.get("cp"), eval.get("result"), eval.get("plies")) {
            (Json::Number(cp), Json::Null, Json::Null) => {
                assert_eq!(score, format!("{:+.2}", *cp as f64 / 100.0));
            }
            (Json::Null, Json::Text(result), Json::Number(plies)) => {
                assert!(["win", "loss"].contains(&result.as_str()));
                assert_eq!(score, format!("{result} in {plies}"));
            }
            other => panic!("cp, result and plies disagree: {other:?}"),
        }
        assert!((0..=depth).contains(&eval.get("depth").number()));
        let best = eval.get("best").text();
        parse_move(Variant::English, &legal, best).expect("the best move is legal");
        let pv = eval.get("pv").list();
        assert_eq!(pv[0].text(), best);
        let mut q = p;
        for mv in pv {
            let legal = legal_moves(&q);
            let found = parse_move(Variant::English, &legal, mv.text()).expect("pv");
            q = q.play(&found.mv);
        }
    }
}

/// Checks a whole JSON report: an array of game objects.
fn assert_valid_json(text: &str) -> Json {
    let report = parse_json(text);
    for game in report.list() {
        check_game_object(game);
    }
    report
}

/// Every comment of a game, main line and variations, with the position it stands at, up to
/// a move that does not replay (the analyser's note before it is the line's last comment).
fn comments_with_positions(game: &Game) -> Vec<(Position<English>, String)> {
    fn line(
        l: &damka::pdn::Line,
        start: Position<English>,
        out: &mut Vec<(Position<English>, String)>,
    ) {
        let mut p = start;
        let mut before = start;
        for node in &l.nodes {
            match node {
                Node::Move(m) => {
                    let legal = legal_moves(&p);
                    let Ok(found) = parse_move(Variant::English, &legal, &m.text) else {
                        let noted = out
                            .last()
                            .is_some_and(|(_, c)| c.starts_with("Not analysed from here: "));
                        assert!(noted, "{} is not noted", m.text);
                        return;
                    };
                    before = p;
                    p = p.play(&found.mv);
                }
                Node::Variation(v) => line(v, before, out),
                Node::Comment(c) => out.push((p, c.clone())),
                _ => {}
            }
        }
    }
    let start = game.tag("FEN").map_or_else(Position::initial, pos);
    let mut out = Vec::new();
    line(&game.moves, start, &mut out);
    out
}

/// The code of a `[%tb]` comment, checked against a probe of the position it stands at.
fn checked_tb_code(p: &Position<English>, comment: &str) -> String {
    let code = comment[5..].split(']').next().expect("closed command");
    let probed = tables().probe_dtw(p).expect("in the tables");
    assert_eq!(code, verdict_code(probed), "{}", write_fen(p));
    code.to_string()
}

/// Checks each `[%tb]` comment of each `every`th game of an annotated file against a probe
/// of the position it stands at. Returns the positions checked (FEN) with their codes.
fn check_verdicts(text: &str, every: usize) -> Vec<(String, String)> {
    let mut checked = Vec::new();
    for (n, read) in Reader::new("out.pdn", text.as_bytes()).enumerate() {
        let game = read.expect("the output reads").game;
        if n % every != 0 {
            continue;
        }
        for (p, c) in comments_with_positions(&game) {
            if c.starts_with("[%tb ") {
                checked.push((write_fen(&p), checked_tb_code(&p, &c)));
            }
        }
    }
    checked
}

#[test]
fn tinsley_games_are_all_handled() {
    let file = corpus::corpus_path("checkerboard/tinsley.pdn");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-tinsley");
    std::fs::create_dir_all(&dir).expect("scratch");
    let html = dir.join("out.html");
    let html_arg = html.to_str().expect("utf-8 path");
    let (run, pdn, json) = analyse_to(&dir, &file, &["--variant", "english", "--html", html_arg]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    let input = std::fs::read_to_string(&file).expect("input");
    let games = Reader::new("in", input.as_bytes()).count();
    assert_eq!(games, 724);
    let mut replayer = Replayer::new(Some(Ruleset::Supported(Variant::English)));
    let failing = Reader::new("in", input.as_bytes())
        .filter(|g| match g {
            Ok(g) => !replayer.replay(g).errors.is_empty(),
            Err(_) => true,
        })
        .count();
    // Game 541 has an illegal move.
    assert!(failing >= 1, "{stderr}");
    let summary = format!("games {games}, ");
    assert!(stderr.contains(&summary), "{stderr}");
    assert!(
        stderr.contains(&format!("not analysed to the end {failing},")),
        "{stderr}"
    );
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr.matches("(analysed up to it)").count(),
        failing,
        "{stderr}"
    );
    // Many games, but stderr is not a terminal: no progress bar.
    assert!(!stderr.contains("games, eta"), "{stderr}");

    // Every game is in the output; those with a bad move are analysed up to it and say so.
    let out = std::fs::read_to_string(&pdn).expect("annotated output");
    let mut replayer = Replayer::new(None);
    let mut written = 0;
    let mut stopped = 0;
    let mut indexed = 0;
    for read in Reader::new("out", out.as_bytes()) {
        let read = read.expect("the output reads");
        let errors = replayer.replay(&read).errors;
        let text = write_game(&read.game);
        let stop = text.contains("{Not analysed from here: ");
        assert_eq!(!errors.is_empty(), stop, "{text}");
        if stop {
            stopped += 1;
            let why = flat(&text);
            assert!(
                why.contains("illegal move") || why.contains("ambiguous move"),
                "{text}"
            );
        }
        if stop || text.contains("[%tb ") {
            indexed += 1;
        }
        assert!(
            read.game
                .tag("Annotator")
                .is_some_and(|a| a.starts_with("damka "))
        );
        written += 1;
    }
    assert_eq!((written, stopped), (games, failing));
    assert!(out.contains("[%tb "), "some game reaches the tables");
    let checked = check_verdicts(&out, 3);
    assert!(!checked.is_empty());
    // A sample of the verdicts agrees with `damka probe` too.
    let step = checked.len().div_ceil(6);
    for (fen, code) in checked.iter().step_by(step) {
        assert_eq!(&probe_cli(fen), code, "{fen}");
    }

    let json = std::fs::read_to_string(&json).expect("json output");
    assert_valid_json(&json);
    assert_eq!(json.matches("\"first_table_position\":").count(), written);

    // The page: an index of the games reaching the tables (or with findings), and only
    // their sections.
    let page = std::fs::read_to_string(&html).expect("html output");
    let rows = page.matches("<tr><td><a href=\"#g").count();
    // One file: no row names it, nor does any row repeat its path.
    assert!(!page.contains("<tr class=\"file\">"));
    assert_eq!(
        page.matches(&*file.display().to_string()).count(),
        2,
        "title and h1"
    );
    let sections = page.matches("<section class=\"game\"").count();
    assert!(indexed > 0 && indexed < games, "{indexed}");
    assert_eq!((rows, sections), (indexed, indexed));
    assert!(
        page.contains(&format!("Games {games}, ")),
        "{}",
        &page[..2000]
    );
    // Only a game listed for its bad move may be outside the tables.
    assert!(
        page.matches("No position of this game is in the tables")
            .count()
            <= stopped
    );
    assert_eq!(
        page.matches("<p class=\"stop\">Not analysed from move ")
            .count(),
        stopped
    );

    // Analysing the output again gives the same output.
    let (again, pdn_again, _) = analyse_to(&dir, &pdn, &["--variant", "english"]);
    assert_eq!(again.status.code(), Some(0));
    let second = std::fs::read_to_string(&pdn_again).expect("second output");
    assert_eq!(second, out);
}

/// The verdict `damka probe` gives a position (English, the test tables), as a `[%tb]` code.
fn probe_cli(fen: &str) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(["probe", "--variant", "english", "--fen", fen, "--tables"])
        .arg(tables_dir())
        .output()
        .expect("damka runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let out = String::from_utf8_lossy(&run.stdout).into_owned();
    let mut lines = out.lines();
    let result = lines
        .next()
        .and_then(|l| l.strip_prefix("result "))
        .expect("result line");
    let mut dtw = || {
        lines
            .next()
            .and_then(|l| l.strip_prefix("dtw "))
            .expect("dtw line")
            .to_string()
    };
    match result {
        "win" => format!("W{}", dtw()),
        "loss" => format!("L{}", dtw()),
        "draw" => "D".to_string(),
        other => panic!("result {other}"),
    }
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
    let flat = flat(&out);
    assert!(flat.contains("1. 23-27 {[%tb L60]} /FEN"), "{out}");
    // The setup gives White the move where it was Black's turn: it stands in for Black's
    // move, so White's move is numbered 2., and the best line after it too.
    assert_eq!(analysis.plies[1].number.to_string(), "2.");
    assert!(
        flat.contains("/ 2. 19-16?? $4 {[%tb W1] Win -> Loss."),
        "{out}"
    );
    assert!(flat.contains("(2. 23-27 28-32 3. "), "{out}");
    assert!(flat.contains("2... 12x26 {[%tb L0]} 3. - - *"), "{out}");
    // The output reads back and analyses to the same text.
    assert_eq!(analyse(&out)[0].2, out);
}

#[test]
fn cli_analyses_unreplayable_games_up_to_the_bad_move_and_exits_0() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-cli");
    std::fs::create_dir_all(&dir).expect("scratch");
    let input = dir.join("in.pdn");
    // The second game's 24-21 is illegal; the third's first capture is ambiguous, which the
    // reader settles with a warning (the first reading), so that game is analysed whole.
    std::fs::write(
        &input,
        format!(
            "[White \"Ann\"][Black \"Bob\"][GameType \"21\"][FEN \"{FIRST_POSITION}\"]\n\
             1. 19-16 *\n\n[GameType \"21\"][FEN \"{FIRST_POSITION}\"]\n1. 23-27 28-32 2. 24-21 \
             *\n\n[GameType \"21\"][FEN \"{AMBIGUOUS}\"]\n1. {AMBIGUOUS_MOVE} *\n"
        ),
    )
    .expect("input");
    let (run, pdn, json) = analyse_to(&dir, &input, &[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    // Every game is in the outputs: the run succeeds, and says which game stops where.
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "warning: {}, game 2 (line 4): move 2. illegal move '24-21' (legal: ",
            input.display()
        )),
        "{stderr}"
    );
    assert_eq!(stderr.matches("(analysed up to it)").count(), 1, "{stderr}");
    assert!(
        stderr.contains(
            "games 3, reaching the tables 3 (1 of them first through a forced exchange, 5 \
             pieces), not analysed to the end 1, results the tables contradict 0, mistakes: \
             Ann (white) 1"
        ),
        "{stderr}"
    );
    let out = std::fs::read_to_string(&pdn).expect("output");
    assert_eq!(Reader::new("out", out.as_bytes()).count(), 3, "{out}");
    assert!(out.contains("19-16??"), "{out}");
    let flat = flat(&out);
    // The moves before the illegal one have their verdicts; a comment says where and why.
    assert!(
        flat.contains(
            "1. 23-27 {[%tb L60]} 1... 28-32 {[%tb W59]} {Not analysed from here: 2. 24-21: \
             illegal move '24-21' (legal: "
        ),
        "{out}"
    );
    assert!(
        !flat.contains(&format!("Not analysed from here: 1. {AMBIGUOUS_MOVE}")),
        "{out}"
    );
    let json = std::fs::read_to_string(&json).expect("json");
    let report = assert_valid_json(&json);
    assert!(json.starts_with('[') && json.contains("\"class\":\"win_to_loss\""));
    // The JSON says where the game stops, for a script to find.
    let stops: Vec<usize> = report
        .list()
        .iter()
        .map(|g| g.get("stops").list().len())
        .collect();
    assert_eq!(stops, [0, 1, 0]);
    let stop = &report.list()[1].get("stops").list()[0];
    assert_eq!(
        (stop.get("number").text(), stop.get("move").text()),
        ("2.", "24-21")
    );
    // Analysed again: the same.
    let again = dir.join("again.pdn");
    std::fs::copy(&pdn, &again).expect("copy");
    let (run, pdn2, _) = analyse_to(&dir, &again, &[]);
    assert_eq!(run.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&pdn2).expect("output"), out);
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

/// A game whose main line plays First Position well and whose variation throws the win away:
/// the variation gets verdicts, the glyph and its own best line; the main line stays clean;
/// analysing the output again changes nothing.
#[test]
fn variations_are_analysed_and_analysing_again_changes_nothing() {
    let text = format!(
        "[White \"W\"][Black \"B\"][FEN \"{FIRST_POSITION}\"] 23-27 (19-16?! {{try}} 12x19x26) \
         28-32 {{main}} *"
    );
    let (_, analysis, out) = analyse(&text).remove(0);
    assert_eq!(analysis.before.len(), 4);
    let played: Vec<(&str, usize, Class)> = analysis
        .plies
        .iter()
        .map(|p| (p.played.as_str(), p.depth, p.class))
        .collect();
    assert_eq!(
        played,
        [
            ("23-27", 0, Class::Keeps),
            ("19-16", 1, Class::WinToLoss),
            ("12x26", 1, Class::Keeps),
            ("28-32", 0, Class::Keeps),
        ]
    );
    assert_eq!(analysis.mistakes().count(), 1);
    assert_eq!(analysis.played_mistakes().count(), 0);
    assert_eq!(analysis.plies[1].number.to_string(), "1.");
    assert_eq!(analysis.plies[1].line[0], "23-27");
    let flat = flat(&out);
    assert!(
        flat.contains(
            "{[%tb W61]} 1. 23-27 {[%tb L60]} (1. 19-16?? $4 {[%tb W1] Win -> Loss. Best was \
             23-27, White wins in 61 plies.} (1. 23-27 28-32 2. 19-23"
        ),
        "{out}"
    );
    assert!(
        flat.contains("{try} 1... 12x26 {[%tb L0]}) 1... 28-32 {[%tb W59]} {main} *"),
        "{out}"
    );

    // The annotated game analysed again: the best line is not taken for moves played, the
    // comments and the variation are not doubled.
    let (game, again, out2) = analyse(&out).remove(0);
    assert_eq!(again.plies, analysis.plies);
    assert_eq!(out2, out);
    // What was read back, once damka's annotations are taken out: the moves, the user's
    // comments and variation.
    assert!(
        matches!(&game.moves.nodes[..], [Node::Move(a), Node::Variation(v), Node::Move(b),
            Node::Comment(c)] if a.text == "23-27" && b.text == "28-32" && c == "main"
            && v.nodes.len() == 3),
        "{:?}",
        game.moves.nodes
    );
    assert_eq!(out.matches("[%tb ").count(), 5);
    assert_eq!(out.matches("Best was").count(), 1);
}

/// `[%tb]` comments in a game another program annotated are the game's own and stay.
#[test]
fn comments_of_other_annotators_are_kept() {
    let text = format!(
        "[Annotator \"someone\"][FEN \"{FIRST_POSITION}\"] 23-27 {{[%tb W3]}} (19-16 12x19x26) *"
    );
    let (game, analysis, out) = analyse(&text).remove(0);
    assert!(matches!(&game.moves.nodes[1], Node::Comment(c) if c == "[%tb W3]"));
    assert_eq!(analysis.mistakes().count(), 1);
    let flat = flat(&out);
    assert!(
        flat.contains("1. 23-27 {[%tb L60]} {[%tb W3]} (1. 19-16?? $4"),
        "{out}"
    );
}

/// White, three kings against a king and a man: five pieces, outside the 4-piece tables until
/// a capture.
const AHEAD: &str = "W:WK1,K19,K23:BK28,12";

/// A game from [`AHEAD`] that enters the tables when Black takes a king (and, in a
/// variation, at once).
fn ahead_game() -> String {
    format!(
        "[White \"Ann\"][Black \"Bob\"][FEN \"{AHEAD}\"] 23-27 28-32 (12-16 {{note}} 19x12) \
         27-24 32-28 19-16 12x19 24x15 *"
    )
}

/// Whether the move text of an annotated game starts with an engine evaluation.
fn moves_start_with_eval(out: &str) -> bool {
    out.split("\n\n")
        .nth(1)
        .is_some_and(|m| m.starts_with("{[%eval "))
}

/// Whether the test tables hold `p` (after resolving its captures).
fn in_tables(p: &Position<English>) -> bool {
    match tables().probe_dtw(p) {
        Ok(_) => true,
        Err(ProbeError::Table(TableError::Missing(_)) | ProbeError::NotCovered(_)) => false,
        Err(e) => panic!("{e}"),
    }
}

/// For each `[%eval]` and `[%tb]` comment of an annotated game, the position it stands at
/// (FEN) and the comment, checking that the `[%eval]` ones stand at positions outside the
/// tables and the `[%tb]` ones at positions inside, with the probed verdict.
fn comments_by_position(game: &Game) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (p, c) in comments_with_positions(game) {
        if c.starts_with("[%eval ") {
            assert!(!in_tables(&p), "{c} at {}", write_fen(&p));
        } else if c.starts_with("[%tb ") {
            checked_tb_code(&p, &c);
        } else {
            continue;
        }
        out.push((write_fen(&p), c));
    }
    out
}

/// With engine searches, every move is either analysed from the tables or evaluated by the
/// engine: `[%eval]` comments stand at the positions outside the tables, `[%tb]` ones at the
/// positions inside; the evaluations agree with the side ahead; analysing again changes
/// nothing, and without searches the evaluations go.
#[test]
fn engine_evaluations_outside_the_tables_and_verdicts_inside() {
    let text = ahead_game();
    let (_, analysis, out) = analyse_with(&text, Some(4)).remove(0);
    assert_eq!(analysis.search_depth, Some(4));
    let moves = analysis.before.len();
    assert_eq!(moves, 9);
    let mut seen = vec![0; moves];
    for p in &analysis.plies {
        seen[p.index] += 1;
        assert!(analysis.before[p.index].is_some());
    }
    for e in &analysis.evaluated {
        seen[e.index] += 1;
        assert!(analysis.before[e.index].is_none());
        let p = pos(&e.fen);
        assert!(!in_tables(&p), "{}", e.fen);
        assert_eq!(e.side, p.side_to_move());
        let legal = legal_moves(&p);
        parse_move(Variant::English, &legal, &e.eval.best).expect("the best move is legal");
        assert_eq!(e.eval.pv.first(), Some(&e.eval.best));
        assert_eq!(e.eval.depth, 4);
        // White is a king up: good for White, bad for Black, whoever is to move.
        let white = if e.side == damka::Color::White { 1 } else { -1 };
        assert!(white * e.eval.score.0 > 0, "{} {}", e.fen, e.eval.score);
    }
    assert_eq!(seen, vec![1; moves]);
    let played: Vec<(&str, usize)> = analysis
        .evaluated
        .iter()
        .map(|e| (e.played.as_str(), e.depth))
        .collect();
    assert_eq!(
        played,
        [
            ("23-27", 0),
            ("28-32", 0),
            ("12-16", 1),
            ("27-24", 0),
            ("32-28", 0),
            ("19-16", 0)
        ]
    );
    // The variation's first move stands where 28-32 did: the same evaluation.
    assert_eq!(analysis.evaluated[2].eval, analysis.evaluated[1].eval);
    // The search sees the capture into the tables: a proven win and loss.
    let proven = &analysis.evaluated[1].eval;
    assert!(
        proven.score.is_decisive() && proven.score.0 < 0,
        "{proven:?}"
    );

    let game = Reader::new("out", out.as_bytes())
        .next()
        .expect("a game")
        .expect("the output reads")
        .game;
    let comments = comments_by_position(&game);
    let evals: Vec<&(String, String)> = comments
        .iter()
        .filter(|(_, c)| c.starts_with("[%eval "))
        .collect();
    // One per position evaluated; the variation's first position has its comment already.
    assert_eq!(evals.len(), 5, "{out}");
    assert_eq!(comments.len() - evals.len(), 5, "{out}");
    for (fen, comment) in &evals {
        let e = analysis
            .evaluated
            .iter()
            .find(|e| &e.fen == fen)
            .expect("evaluated");
        assert_eq!(comment, &damka::analyse::eval_comment(&e.eval, e.side));
    }
    let flat = flat(&out);
    assert!(moves_start_with_eval(&out), "{out}");
    // Black to move loses: from White's view a win, in the winner's moves.
    let plies = proven.score.plies_to_end().expect("decisive");
    assert!(
        flat.contains(&format!(
            "1. 23-27 {{[%eval #{},4] Search: White wins in {plies} plies, best 28-32.}} 1... \
             28-32",
            (plies + 1) / 2
        )),
        "{out}"
    );
    assert!(
        flat.contains("(1... 12-16 {[%tb W15]} {note} 2. 19x12 {[%tb L14]})"),
        "{out}"
    );
    assert!(
        flat.contains("3... 12x19 {[%tb W25]} 4. 24x15 {[%tb L24]} *"),
        "{out}"
    );

    // Analysing the output again, with searches: the same; without: the plain analysis.
    let (_, again, out2) = analyse_with(&out, Some(4)).remove(0);
    assert_eq!(again, analysis);
    assert_eq!(out2, out);
    let plain = analyse(&text).remove(0).2;
    assert!(!plain.contains("%eval"));
    assert_eq!(analyse(&out).remove(0).2, plain);
}

/// A side two kings up, outside the tables: the evaluation is for the side to move, positive
/// for the side ahead and negative for the side behind; the `[%eval]` comment gives it from
/// White's view, as PGN tools read it.
#[test]
fn engine_evaluation_is_for_the_side_to_move_and_eval_for_white() {
    for (fen, mv, sign) in [
        ("W:WK1,K5,K19,K23:BK28,12", "1-6", 1),
        ("B:WK1,K5,K19,K23:BK28,12", "28-32", -1),
    ] {
        let (_, analysis, out) = analyse_with(&game_text(fen, &[mv.into()]), Some(4)).remove(0);
        let [e] = &analysis.evaluated[..] else {
            panic!("{:?}", analysis.evaluated)
        };
        assert_eq!(e.fen, write_fen(&pos(fen)));
        assert!(sign * e.eval.score.0 >= 200, "{fen}: {}", e.eval.score);
        let legal = legal_moves(&pos(fen));
        parse_move(Variant::English, &legal, &e.eval.best).expect("legal best move");
        let code = damka::analyse::eval_code(e.eval.score, e.side);
        assert!(code.starts_with('+'), "{fen}: {code}");
        assert!(
            flat(&out).contains(&format!("{{[%eval {code},4] Search: ")),
            "{out}"
        );
    }
}

/// The JSON of a searched game: the documented `search_depth` and `evaluated` fields, one
/// entry per move outside the tables; without searches, neither field.
#[test]
fn json_has_the_engine_evaluation_fields() {
    let text = "11-15 23-19 8-11 22-17 (22-18 15x22 25x18) 4-8 *";
    let (game, analysis, _) = analyse_with(text, Some(4)).remove(0);
    let json = game_json("x.pdn", 1, &game, &analysis);
    let parsed = parse_json(&json);
    check_game_object(&parsed);
    assert_eq!(parsed.get("search_depth").number(), 4);
    let evaluated = parsed.get("evaluated").list();
    assert_eq!(evaluated.len(), 8);
    assert_eq!(evaluated[0].get("move").text(), "11-15");
    assert_eq!(evaluated[5].get("depth").number(), 1);
    assert!(matches!(
        evaluated[0].get("eval").get("cp"),
        Json::Number(_)
    ));
    let (game, analysis, _) = analyse(text).remove(0);
    let json = game_json("x.pdn", 1, &game, &analysis);
    assert!(!json.contains("evaluated") && !json.contains("search_depth"));
    check_game_object(&parse_json(&json));
}

/// `damka analyse --depth`: a bad depth is an input error (exit 2); a good one searches,
/// says how many evaluations on stderr, writes them to the JSON, and analysing the output
/// again gives the same output.
#[test]
fn cli_depth_searches_outside_the_tables() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-depth");
    std::fs::create_dir_all(&dir).expect("scratch");
    let input = dir.join("in.pdn");
    std::fs::write(
        &input,
        format!(
            "{}\n[GameType \"21\"]\n1. 11-15 23-19 8-11 22-17 *\n",
            ahead_game()
        ),
    )
    .expect("input");
    for bad in ["0", "x", "-3", "1000"] {
        let arg = format!("--depth={bad}");
        let (run, _, _) = analyse_to(&dir, &input, &["--variant", "english", &arg]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("--depth"), "{bad}: {stderr}");
    }
    let (run, pdn, json) = analyse_to(&dir, &input, &["--variant", "english", "--depth", "4"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "games 2, reaching the tables 1 (1 of them first through a forced exchange, 5 \
             pieces), not analysed to the end 0, results the tables contradict 0, mistakes: \
             none, engine evaluations 10 (depth 4)"
        ),
        "{stderr}"
    );
    let report = assert_valid_json(&std::fs::read_to_string(&json).expect("json"));
    let counts: Vec<usize> = report
        .list()
        .iter()
        .map(|g| g.get("evaluated").list().len())
        .collect();
    assert_eq!(counts, [6, 4]);
    let out = std::fs::read_to_string(&pdn).expect("output");
    assert_eq!(out.matches("[%eval ").count(), 5 + 4, "{out}");
    let first = std::fs::copy(&pdn, dir.join("first.pdn")).map(|_| dir.join("first.pdn"));
    let (again, pdn_again, _) = analyse_to(
        &dir,
        &first.expect("copy"),
        &["--variant", "english", "--depth", "4"],
    );
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&pdn_again).expect("again"), out);
}

/// The English, International and Turkish sample games, with tables of their variants built
/// by `damka generate --dtw` (English up to 4 pieces, the others up to 3; distances to the
/// end, by which wins kept more slowly are found).
fn sample_tables() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-tables-sample");
        let _ = std::fs::remove_dir_all(&dir);
        for (variant, pieces) in [("english", "4"), ("international", "3"), ("turkish", "3")] {
            let run = Command::new(env!("CARGO_BIN_EXE_damka"))
                .args([
                    "generate",
                    "--quiet",
                    "--dtw",
                    "--threads",
                    "2",
                    "--variant",
                    variant,
                ])
                .args(["--pieces", pieces, "--tables"])
                .arg(&dir)
                .output()
                .expect("damka runs");
            assert!(
                run.status.success(),
                "{}",
                String::from_utf8_lossy(&run.stderr)
            );
        }
        dir
    })
}

fn sample_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/games.pdn")
}

/// Runs `damka analyse` on the sample games with `--html`; returns the page.
fn sample_page(dir: &Path) -> String {
    std::fs::create_dir_all(dir).expect("scratch");
    let html = dir.join("out.html");
    let run = Command::new(env!("CARGO_BIN_EXE_damka"))
        .arg("analyse")
        .arg(sample_file())
        .arg("--tables")
        .arg(sample_tables())
        .arg("-o")
        .arg(dir.join("out.pdn"))
        .arg("--html")
        .arg(&html)
        .output()
        .expect("damka runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "games 3, reaching the tables 3, not analysed to the end 0, results the tables \
             contradict 0, mistakes: Ann (white) 1, Cid (white) 1, Emre (white) 1"
        ),
        "{stderr}"
    );
    std::fs::read_to_string(&html).expect("the page")
}

#[test]
fn html_page_has_one_diagram_per_mistake() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-html");
    let page = sample_page(&dir);
    assert!(page.starts_with("<!DOCTYPE html>"));
    // Self-contained: nothing is loaded from elsewhere.
    for outside in ["<link", "<script", "<img", "url(", "@import", "https:"] {
        assert!(!page.contains(outside), "{outside}");
    }
    assert_eq!(
        page.matches("http://").count(),
        page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    let games: Vec<&str> = page.split("<section class=\"game\"").skip(1).collect();
    assert_eq!(games.len(), 3);
    // The index lists the three games (all reach the tables), linked to their sections.
    for (i, game) in games.iter().enumerate() {
        assert!(
            page.contains(&format!("<tr><td><a href=\"#g{i}\">")),
            "{page}"
        );
        assert!(game.starts_with(&format!(" id=\"g{i}\">")));
    }
    let pdn = std::fs::read_to_string(dir.join("out.pdn")).expect("annotated games");
    let mistakes_per_game: Vec<usize> = pdn
        .split("[Event ")
        .skip(1)
        .map(|g| g.matches("Best was").count())
        .collect();
    assert_eq!(mistakes_per_game, [1, 1, 1]);
    // The critical moments: the mistakes and the wins kept more slowly than the best.
    let moments_per_game: Vec<usize> = pdn
        .split("[Event ")
        .skip(1)
        .map(|g| g.matches("Best was").count() + g.matches("Still wins, in ").count())
        .collect();
    // The International game's own variation plays the start of the best line: no second,
    // longer copy of it beside it, and the comment says so.
    assert!(
        flat(&pdn).contains("(2. 28-23 {[%tb L4]} 2... 29x18 {[%tb W3]})"),
        "{pdn}"
    );
    assert!(!flat(&pdn).contains("(2. 28-23 29x18 3."), "{pdn}");
    assert!(
        flat(&pdn).contains("The variation plays the best line.}"),
        "{pdn}"
    );
    for (section, moments) in games.iter().zip(&moments_per_game) {
        assert_eq!(section.matches("<svg").count(), *moments, "{section}");
        assert_eq!(section.matches("\"><td class=\"mv\">").count(), *moments);
    }
    // English 8x8 numbered, International 10x10 numbered, Turkish 8x8 with coordinates.
    assert!(games[0].contains("width=\"352\"") && games[0].contains(">32</text>"));
    assert!(games[1].contains("width=\"372\"") && games[1].contains(">50</text>"));
    assert!(games[2].contains("width=\"352\"") && games[2].contains(">h</text>"));
    // The headers: players, result as played, theoretical result.
    assert!(games[0].contains("<h2>Game 1: Ann &ndash; Bob</h2>"));
    // English PDN: 1-0 is a win for Black, who moves first.
    assert!(games[0].contains("Result: 1-0 (Black wins)"));
    assert!(games[0].contains("(move 1., White to move): White wins in 61 plies."));
    assert!(games[1].contains("(move 1..., Black to move): White wins in 8 plies."));
    // The played move with its glyph and what it did, the best move with its result.
    assert!(games[0].contains("19-16??</span><br>Win &rarr; Loss<br>Black wins in 8 plies"));
    assert!(games[0].contains("19-23</span><br>White wins in 59 plies"));
    assert!(games[2].contains("c5-d5?</span><br>Win &rarr; Draw<br>draw"));
    // The last move before each diagram's position is marked: 28-32, 24-29, e6-e5.
    for section in &games {
        let from = section.matches("<rect class=\"from\"").count();
        assert!(from >= 1, "{section}");
        assert_eq!(section.matches("<rect class=\"to\"").count(), from);
    }

    // The annotated sample (a comment and a variation after a mistake, three variants)
    // analysed again gives the same games.
    let again = dir.join("again.pdn");
    let run = Command::new(env!("CARGO_BIN_EXE_damka"))
        .arg("analyse")
        .arg(dir.join("out.pdn"))
        .arg("--tables")
        .arg(sample_tables())
        .arg("-o")
        .arg(&again)
        .output()
        .expect("damka runs");
    assert_eq!(run.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&again).expect("output"),
        pdn,
        "analysing the output again changes it"
    );
}

/// Renders the sample page in headless Chromium and writes the screenshot to
/// `target/tmp/analyse-screenshot/page.png` (look at it). Needs `chromium` on the path.
#[test]
#[ignore = "needs chromium; writes a screenshot to look at"]
fn html_page_renders_in_chromium() {
    let chromium = which("chromium")
        .or_else(|_| which("chromium-browser"))
        .expect("chromium (or chromium-browser) on the PATH");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-screenshot");
    sample_page(&dir);
    let png = dir.join("page.png");
    let _ = std::fs::remove_file(&png);
    let run = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1200,2000")
        .arg(format!("file://{}", dir.join("out.html").display()))
        .output()
        .expect("chromium runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let bytes = std::fs::read(&png).expect("a screenshot");
    assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000);
    eprintln!("screenshot: {}", png.display());
}

/// The path of a program, if it is on the PATH.
fn which(name: &str) -> Result<PathBuf, ()> {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|p| p.join(name))
                .find(|p| p.is_file())
        })
        .ok_or(())
}

/// A Russian game analysed with only English tables: one warning naming the variant and how
/// to build its tables; `--depth` searches without any tables directory; without it and
/// without tables, an error saying what to do.
#[test]
fn missing_tables_are_said_and_depth_works_without_tables() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-no-tables");
    std::fs::create_dir_all(&dir).expect("scratch");
    let input = dir.join("in.pdn");
    std::fs::write(
        &input,
        "[GameType \"25\"]\n1. c3-d4 f6-e5 2. d4xf6 g7xe5 *\n\n[GameType \"25\"]\n1. c3-b4 *\n\n\
         [GameType \"21\"][FEN \"W:WK19,K23:BK28,12\"]\n1. 23-27 *\n",
    )
    .expect("input");
    let (run, pdn, _) = analyse_to(&dir, &input, &[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.matches("warning: ").count(), 1, "{stderr}");
    assert!(
        stderr.contains("warning: no russian tables in ")
            && stderr.contains("its russian games (2 in this file) get no verdicts")
            && stderr.contains("`damka generate --variant russian --pieces N --tables "),
        "{stderr}"
    );
    let out = std::fs::read_to_string(&pdn).expect("output");
    assert_eq!(Reader::new("out", out.as_bytes()).count(), 3);

    let missing = dir.join("no-such-tables");
    let run = Command::new(env!("CARGO_BIN_EXE_damka"))
        .arg("analyse")
        .arg(&input)
        .args(["--depth", "2", "--tables"])
        .arg(&missing)
        .output()
        .expect("damka runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("warning: no tables directory"), "{stderr}");
    let out = String::from_utf8_lossy(&run.stdout);
    assert_eq!(Reader::new("out", out.as_bytes()).count(), 3);
    assert_eq!(out.matches("[%eval ").count(), 4 + 1 + 1, "{out}");
    assert!(!out.contains("[%tb "), "{out}");

    let run = Command::new(env!("CARGO_BIN_EXE_damka"))
        .arg("analyse")
        .arg(&input)
        .arg("--tables")
        .arg(&missing)
        .output()
        .expect("damka runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no tables directory") && stderr.contains("--depth N"),
        "{stderr}"
    );
}

/// Games under rules damka does not have: written back unanalysed with a note, one warning
/// line per rules and file (not one per game), exit code 0 (every game is in the output).
#[test]
fn unsupported_rules_are_one_warning_and_games_are_kept() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-frisian");
    std::fs::create_dir_all(&dir).expect("scratch");
    let input = dir.join("in.pdn");
    let game = "[GameType \"40\"]\n1. 32-28 19-23 *\n\n";
    std::fs::write(&input, game.repeat(5)).expect("input");
    let (run, pdn, _) = analyse_to(&dir, &input, &[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.matches("Frisian").count(), 1, "{stderr}");
    assert!(
        stderr.contains(
            "5 game(s) under Frisian draughts (GameType 40), which damka has no \
                         rules for: written without analysis"
        ),
        "{stderr}"
    );
    let out = std::fs::read_to_string(&pdn).expect("output");
    assert_eq!(
        out.matches("{Not analysed: Frisian draughts (GameType 40) is not supported.}")
            .count(),
        5,
        "{out}"
    );
    assert_eq!(out.matches("32-28 19-23").count(), 5, "{out}");
    // Analysed again: the same games, the note not doubled.
    let again = dir.join("again.pdn");
    std::fs::copy(&pdn, &again).expect("copy");
    let (_, pdn2, _) = analyse_to(&dir, &again, &[]);
    assert_eq!(std::fs::read_to_string(&pdn2).expect("output"), out);
}

/// The page lists only the games that reach the tables or have findings, with slower wins
/// among the moments; `--html-all` gives every game its section.
#[test]
fn html_index_filters_games_and_shows_slower_wins() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-html-index");
    std::fs::create_dir_all(&dir).expect("scratch");
    let line = best_line(tables(), &pos(FIRST_POSITION), 40).expect("line");
    // A slower win: the game plays a move winning more than 4 plies slower than the best.
    let rated = tables().rated_moves(&pos(FIRST_POSITION)).expect("rated");
    let legal: Vec<_> = rated.iter().map(|r| r.mv.clone()).collect();
    let slow = rated
        .iter()
        .position(|r| r.outcome.wdl == Wdl::Win && r.outcome.dtw > 61 + 4)
        .map(|i| damka::notation::move_text(Variant::English, &legal, i));
    let input = dir.join("in.pdn");
    let mut text = format!(
        "[White \"Far\"][GameType \"21\"]\n1. 11-15 23-19 *\n\n\
         [White \"Near\"][GameType \"21\"][FEN \"{FIRST_POSITION}\"]\n{} *\n",
        line[..4].join(" ")
    );
    if let Some(slow) = &slow {
        text.push_str(&format!(
            "\n[White \"Slow\"][GameType \"21\"][FEN \"{FIRST_POSITION}\"]\n1. {slow} *\n"
        ));
    }
    std::fs::write(&input, text).expect("input");
    let page_of = |extra: &[&str]| {
        let html = dir.join("out.html");
        let mut args = vec!["--html", html.to_str().expect("utf-8")];
        args.extend_from_slice(extra);
        let (run, _, _) = analyse_to(&dir, &input, &args);
        assert_eq!(run.status.code(), Some(0));
        std::fs::read_to_string(&html).expect("page")
    };
    let page = page_of(&[]);
    let games = 2 + usize::from(slow.is_some());
    assert_eq!(
        page.matches("<tr><td><a href=\"#g").count(),
        games - 1,
        "{page}"
    );
    assert_eq!(page.matches("<section class=\"game\"").count(), games - 1);
    assert!(!page.contains("Far"), "{page}");
    assert!(page.contains("--html-all shows every game"), "{page}");
    if slow.is_some() {
        assert!(page.contains("Still wins, but slower"), "{page}");
        assert!(page.contains("slower wins 1"), "{page}");
    }
    let all = page_of(&["--html-all"]);
    assert_eq!(all.matches("<section class=\"game\"").count(), games);
    assert!(all.contains("Far") && all.contains("No position of this game is in the tables"));
    assert_eq!(all.matches("<tr><td><a href=\"#g").count(), games - 1);
}

#[path = "../../tests/common/tables.rs"]
mod shared;

/// An International game of three kings against one king, written as PDN: from a position
/// the rule results call a win, White plays the win's slowest moves that the 16-move rule
/// still allows, until it can dawdle no more: then a move that wins without the count but
/// not within it (the mistake), and the game goes on past the 16th move. No position
/// repeats and the lone king never takes. Returns the PDN, the number of the mistake and the
/// moves that won within the count there.
fn dawdling_game(tb: &Tablebase) -> (String, String, Vec<String>) {
    use damka::notation::move_text;
    use damka::rules::{Counters, International};
    use damka::tablebase::{Material, RuleCategory, RuleMove, SliceIndex};
    let fmjd = RuleSet::default_for(Variant::International);
    let index = SliceIndex::<International>::new(Material::new(0, 3, 0, 1));
    'start: for i in (0..index.size()).step_by(997) {
        let Some(f) = index.unrank(i) else { continue };
        let start = f.position::<International>();
        let rules = tb.probe_rules(&start, fmjd, Counters::default());
        if rules.ok() != Some(RuleCategory::Win) || tb.probe_dtw(&start).unwrap().dtw < 5 {
            continue;
        }
        let (mut pos, mut c) = (start, Counters::default());
        let mut seen = vec![start];
        let mut text = String::new();
        let mut mistake: Option<(String, Vec<String>)> = None;
        for ply in 0..40 {
            let moves = tb.rule_moves(&pos, fmjd, c).unwrap();
            let legal: Vec<_> = tb
                .rated_moves(&pos)
                .unwrap()
                .into_iter()
                .map(|r| r.mv)
                .collect();
            let name = |m: &RuleMove| {
                let at = legal.iter().position(|l| *l == m.rated.mv).unwrap();
                move_text(Variant::International, &legal, at)
            };
            // New positions where the lone king cannot take: three kings stay.
            let keeps = |m: &&RuleMove| {
                let after = pos.play(&m.rated.mv.mv);
                !seen.contains(&after) && legal_moves(&after).iter().all(|m| !m.mv.is_capture())
            };
            let number = format!("{}.", ply / 2 + 1);
            let white = ply % 2 == 0;
            let cursed = moves
                .iter()
                .filter(keeps)
                .find(|m| m.category == RuleCategory::CursedWin);
            let chosen = match (white, &mistake, cursed) {
                // Black, and both sides after the mistake: the best move under the rules
                // that keeps three kings.
                (false, _, _) | (true, Some(_), _) => moves.iter().find(keeps),
                // Dawdling once more loses the win under the count.
                (true, None, Some(cursed)) => {
                    let best: Vec<String> = moves
                        .iter()
                        .filter(|m| m.category == RuleCategory::Win)
                        .map(name)
                        .collect();
                    mistake = Some((number.clone(), best));
                    Some(cursed)
                }
                // The slowest move that still wins within the count.
                (true, None, None) => moves
                    .iter()
                    .filter(|m| m.category == RuleCategory::Win)
                    .filter(keeps)
                    .max_by_key(|m| (m.plies, m.rated.outcome.dtw)),
            };
            let Some(chosen) = chosen else {
                continue 'start;
            };
            text.push_str(&match white {
                true => format!("{number} {} ", name(chosen)),
                false => format!("{} ", name(chosen)),
            });
            c = chosen.counters;
            pos = pos.play(&chosen.rated.mv.mv);
            seen.push(pos);
            // Past the count: the 16th move of each side is played.
            if ply >= 32
                && let Some((number, best)) = mistake
            {
                let pdn = format!(
                    "[Event \"dawdling\"]\n[GameType \"20\"]\n[SetUp \"1\"]\n[FEN \"{}\"]\n\n{text}*\n",
                    write_fen(&start)
                );
                return (pdn, number, best);
            }
        }
    }
    panic!("no three kings against one that can be played past the count");
}

#[test]
fn an_international_ending_played_past_the_sixteen_moves_is_a_draw_by_rule() {
    use damka::analyse::describe;
    use damka::rules::International;
    let dir = shared::shared_tables(
        Path::new(env!("CARGO_BIN_EXE_damka")),
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        Variant::International,
    );
    let tb = Tablebase::open(&dir).expect("built tables");
    let (pdn, number, winning) = dawdling_game(&tb);
    let mut replayer = Replayer::new(Some(Ruleset::Supported(Variant::International)));
    let mut read = Reader::new("dawdling.pdn", pdn.as_bytes())
        .next()
        .expect("a game")
        .expect("readable");
    let replay = replayer.normalize(&mut read);
    assert!(replay.errors.is_empty(), "{:?}\n{pdn}", replay.errors);
    let fmjd = RuleSet::default_for(Variant::International);
    let analysis = analyse_game::<International>(&tb, &read.game, 4, fmjd).expect("analysed");
    let mistakes: Vec<_> = analysis.played_mistakes().collect();
    assert_eq!(mistakes.len(), 1, "{pdn}\n{:?}", analysis.plies);
    let m = mistakes[0];
    assert_eq!(m.class, Class::WinToDraw, "{pdn}");
    assert_eq!(m.number.to_string(), number, "{pdn}");
    // A plain win still, drawn by the count.
    assert_eq!(m.after.wdl, Wdl::Win);
    let text = describe(m, analysis.distances);
    assert!(
        text.starts_with("Win -> Draw by the 16-move rule. Best was "),
        "{text}"
    );
    // The best move named wins within the count.
    assert!(winning.contains(&m.best[0]), "{text}: {winning:?}");
    assert!(text.contains(&m.best[0]));
    // The annotated game says so, and the cursed win after the move.
    let mut game = read.game.clone();
    annotate(&mut game, &analysis);
    let out = write_game(&game);
    assert!(out.contains("by the 16-move rule"), "{out}");
    // After it, Black to move is lost without the count, drawn by it.
    assert!(
        out.contains(" blessed] Win -> Draw by the 16-move rule."),
        "{out}"
    );
    let json = game_json("dawdling.pdn", 1, &read.game, &analysis);
    assert!(
        json.contains(
            "\"rules\":{\"before\":\"win\",\"after\":\"cursed-win\",\"count\":\"16-move rule\"}"
        ),
        "{json}"
    );
}

/// The finished-game rule in the analyser: a game set up where the side not to move has no
/// pieces (no game reaches it) is refused with the message every front end gives, written
/// without analysis, and not counted as reaching the tables.
#[test]
fn games_set_up_where_no_game_reaches_do_not_reach_the_tables() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-unreachable");
    std::fs::create_dir_all(&dir).expect("scratch");
    let input = dir.join("in.pdn");
    std::fs::write(
        &input,
        format!(
            "[GameType \"21\"][FEN \"W:W:B\"]\n*\n\n[GameType \"21\"][FEN \"B:W:B\"]\n*\n\n\
             [GameType \"21\"][FEN \"W:WK5:B\"]\n1. 5-1 *\n\n\
             [GameType \"21\"][FEN \"{FIRST_POSITION}\"]\n1. 23-27 *\n"
        ),
    )
    .expect("input");
    let (run, pdn, _) = analyse_to(&dir, &input, &[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("games 4, reaching the tables 1, not analysed to the end 3,"),
        "{stderr}"
    );
    for (game, idle) in [(1, "black"), (2, "white"), (3, "black")] {
        let message = format!(
            "game {game} (line {}): cannot replay: FEN: illegal position: {idle}, not to move, \
             has no pieces (no game reaches it: the capture of {idle}'s last piece ends the \
             game with {idle} to move, a loss)",
            3 * game - 2
        );
        assert!(stderr.contains(&message), "{message}\n{stderr}");
    }
    let out = std::fs::read_to_string(&pdn).expect("output");
    assert_eq!(Reader::new("out", out.as_bytes()).count(), 4, "{out}");
}

/// What the summary, the annotations, the JSON and the page say beyond the mistakes: a
/// result the tables contradict (PDN's `1-0` is Black's win in English draughts), a first
/// table position reached only through a forced exchange (counted apart, its plies rated
/// under the draw rules too), draws without a distance; the index names files by their names,
/// in file order, and links each mistake.
#[test]
fn results_exchanges_and_the_index_are_reported() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyse-report");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let game = |white: &str, result: &str, fen: &str, moves: &str| {
        format!(
            "[Event \"Club\"][White \"{white}\"][Black \"Bob\"][Result \"{result}\"]\
             [GameType \"21\"][FEN \"{fen}\"]\n{moves} {result}\n\n"
        )
    };
    // 1: White wins First Position, but the result says Black won; 2: the right result;
    // 3: a forced exchange of 5 pieces into the tables of 4; 4: a draw; then, in a second
    // file, a blunder.
    let exchange = "W:W22,K32:BK1,K2,18";
    let input = dir.join("in.pdn");
    std::fs::write(
        &input,
        [
            game("Ann", "1-0", FIRST_POSITION, "1. 23-27"),
            game("Cid", "0-1", FIRST_POSITION, "1. 23-27"),
            game("Dan", "*", exchange, "1. 22x15"),
            game("Eve", "1/2-1/2", "W:WK32:BK1", "1. 32-27"),
        ]
        .concat(),
    )
    .expect("input");
    let more = dir.join("more.pdn");
    std::fs::write(&more, game("Fay", "1-0", FIRST_POSITION, "1. 19-16")).expect("input");
    let html = dir.join("out.html");
    let pdn = dir.join("out.pdn");
    let json = dir.join("out.json");
    let run = Command::new(env!("CARGO_BIN_EXE_damka"))
        .arg("analyse")
        .args([&input, &more])
        .arg("--tables")
        .arg(tables_dir())
        .arg("-o")
        .arg(&pdn)
        .arg("--json")
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .output()
        .expect("damka runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let conflict = "Result 1-0 (Black wins) contradicts the tables: the last position, Black \
                    to move, White wins (B:WK19,K27:B12,K28)";
    assert_eq!(
        stderr,
        format!(
            "note: {}: game 1 (Ann (white) - Bob (black)): {conflict}\n\
             {}: games 4, reaching the tables 4 (1 of them first through a forced exchange, 5 \
             pieces), not analysed to the end 0, results the tables contradict 1, mistakes: \
             none\n\
             {}: games 1, reaching the tables 1, not analysed to the end 0, results the tables \
             contradict 0, mistakes: Fay (white) 1\n",
            input.display(),
            input.display(),
            more.display()
        )
    );
    // The annotated game says so after its last move, and reads back to the same text.
    let out = std::fs::read_to_string(&pdn).expect("output");
    assert!(
        flat(&out).contains(&format!("{{[%tb L60]}} {{{conflict}.}} 1-0")),
        "{out}"
    );
    assert_eq!(
        flat(&out).matches("contradicts the tables").count(),
        1,
        "{out}"
    );
    let again = dir.join("again.pdn");
    std::fs::copy(&pdn, &again).expect("copy");
    let (rerun, pdn2, _) = analyse_to(&dir, &again, &[]);
    assert_eq!(rerun.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&pdn2).expect("output"), out);

    let report = assert_valid_json(&std::fs::read_to_string(&json).expect("json"));
    let games = report.list();
    assert_eq!(games.len(), 5);
    let found = games[0].get("result_conflict");
    assert_eq!(
        (
            found.get("result").text(),
            found.get("claimed").text(),
            found.get("tables").text()
        ),
        ("1-0", "black", "white")
    );
    assert_eq!(found.get("text").text(), conflict);
    assert!(
        games[1..]
            .iter()
            .all(|g| g.get("result_conflict") == &Json::Null)
    );
    // The forced exchange: counted apart, its ply rated under the draw rules.
    assert_eq!(games[2].get("first_through_exchange"), &Json::Number(5));
    assert_eq!(games[0].get("first_through_exchange"), &Json::Null);
    let ply = &games[2].get("plies").list()[0];
    assert_eq!(ply.get("fen").text(), exchange);
    assert_ne!(ply.get("rules"), &Json::Null, "{ply:?}");
    // A draw has no distance.
    let theory = games[3].get("theoretical_result");
    assert_eq!(
        (theory.get("wdl").text(), theory.get("dtw")),
        ("draw", &Json::Null)
    );
    let before = games[3].get("plies").list()[0].get("before");
    assert_eq!(before.get("dtw"), &Json::Null);

    let page = std::fs::read_to_string(&html).expect("the page");
    // File names, not paths, in file order; each path only in the title and the heading.
    for (file, name) in [(&input, "in.pdn"), (&more, "more.pdn")] {
        assert_eq!(
            page.matches(&*file.display().to_string()).count(),
            2,
            "{name}"
        );
    }
    let first = page.find("<tr class=\"file\"><td colspan=\"9\">in.pdn</td></tr>");
    let second = page.find("<tr class=\"file\"><td colspan=\"9\">more.pdn</td></tr>");
    assert!(
        first.is_some_and(|a| second.is_some_and(|b| a < b)),
        "{page}"
    );
    assert!(page.contains("<td>Club</td>"), "the event is listed");
    assert!(
        page.contains("<td>1-0 (Black wins) <span class=\"conflict\""),
        "{page}"
    );
    assert!(page.contains("<td>0-1 (White wins)</td>"), "{page}");
    assert!(
        page.contains("which is Black in English draughts (checkers)"),
        "{page}"
    );
    assert!(
        page.contains(&format!("<p class=\"conflict\">{conflict}.</p>")),
        "{page}"
    );
    assert!(
        page.contains("It has 5 pieces, more than the tables hold"),
        "{page}"
    );
    // The blunder of the second file: linked from the index to its row.
    assert!(
        page.contains("<td>1: <a href=\"#g4-m0\">1.&nbsp;19-16</a></td>"),
        "{page}"
    );
    assert!(page.contains("<tr id=\"g4-m0\">"), "{page}");
}
