//! The analysis as JSON, written by hand.
//!
//! One object per game:
//! `{"file", "game", "tags": {name: value}, "first_table_position": FEN or null,
//! "first_through_exchange": pieces or null, "theoretical_result": {"side", "wdl", "dtw"} or
//! null, "result_conflict": {...} or null, "stops": [...], "plies": [...]}`, each ply
//! `{"number", "depth", "side", "move", "fen", "before": {"wdl", "dtw"}, "after": {"wdl",
//! "dtw"}, "rules": {"before", "after", "count"} or null, "class", "best": [moves], "line":
//! [moves]}`. Outcomes are for the side to move before the
//! move (`before`) and for the side that played it (`after`). With engine searches
//! (`--depth`), two more fields follow: `"search_depth"` and `"evaluated": [...]`, each
//! `{"number", "depth", "side", "move", "fen", "eval": {"score", "cp", "result", "plies",
//! "depth", "best", "pv"}}` (see [`game_json`]).

use super::{Analysis, Evaluated, Ply, ResultConflict, Stop};
use crate::pdn::Game;
use crate::rules::Color;
use crate::tablebase::{Outcome, Wdl};

/// `text` as a JSON string, quotes included.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `{"wdl", "dtw"}`: the distance null for a draw and without distances to the end.
fn outcome(o: Outcome, distances: bool) -> String {
    format!(
        "{{\"wdl\":\"{}\",\"dtw\":{}}}",
        o.wdl.name(),
        dtw(o, distances)
    )
}

/// The distance to the end of `o` as JSON: null for a draw and without distances.
fn dtw(o: Outcome, distances: bool) -> String {
    match distances && o.wdl != Wdl::Draw {
        true => o.dtw.to_string(),
        false => "null".to_string(),
    }
}

/// `"white"`, `"black"`, or `"draw"` for none.
fn winner(w: Option<Color>) -> String {
    match w {
        Some(c) => format!("\"{}\"", c.name()),
        None => "\"draw\"".to_string(),
    }
}

fn conflict(c: &ResultConflict, distances: bool) -> String {
    let rules = c.rules.map_or("null".to_string(), |r| format!("\"{r}\""));
    format!(
        "{{\"result\":{},\"claimed\":{},\"tables\":{},\"fen\":{},\"side\":\"{}\",\
         \"wdl\":\"{}\",\"dtw\":{},\"rules\":{rules},\"text\":{}}}",
        json_string(&c.result),
        winner(c.claimed),
        winner(c.winner()),
        json_string(&c.fen),
        c.side.name(),
        c.outcome.wdl.name(),
        dtw(c.outcome, distances),
        json_string(&c.to_string())
    )
}

fn stop(s: &Stop) -> String {
    format!(
        "{{\"number\":{},\"depth\":{},\"move\":{},\"why\":{}}}",
        json_string(&s.number.to_string()),
        s.depth,
        json_string(&s.played),
        json_string(&s.why)
    )
}

fn list(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| json_string(s)).collect();
    format!("[{}]", inner.join(","))
}

fn rules(p: &Ply) -> String {
    match &p.rules {
        None => "null".to_string(),
        Some(r) => format!(
            "{{\"before\":\"{}\",\"after\":\"{}\",\"count\":{}}}",
            r.before,
            r.after,
            json_string(r.count)
        ),
    }
}

fn ply(p: &Ply, distances: bool) -> String {
    format!(
        "{{\"number\":{},\"depth\":{},\"side\":\"{}\",\"move\":{},\"fen\":{},\"before\":{},\"after\":{},\
         \"rules\":{},\"class\":\"{}\",\"best\":{},\"line\":{}}}",
        json_string(&p.number.to_string()),
        p.depth,
        p.side.name(),
        json_string(&p.played),
        json_string(&p.fen),
        outcome(p.before, distances),
        outcome(p.after, distances),
        rules(p),
        p.class.name(),
        list(&p.best),
        list(&p.line)
    )
}

fn evaluated(e: &Evaluated) -> String {
    let eval = &e.eval;
    let (cp, result, plies) = match eval.score.plies_to_end() {
        Some(n) => (
            "null".to_string(),
            if eval.score.0 > 0 {
                "\"win\""
            } else {
                "\"loss\""
            },
            n.to_string(),
        ),
        None => (eval.score.0.to_string(), "null", "null".to_string()),
    };
    format!(
        "{{\"number\":{},\"depth\":{},\"side\":\"{}\",\"move\":{},\"fen\":{},\"eval\":{{\
         \"score\":{},\"cp\":{cp},\"result\":{result},\"plies\":{plies},\"depth\":{},\"best\":{},\
         \"pv\":{}}}}}",
        json_string(&e.number.to_string()),
        e.depth,
        e.side.name(),
        json_string(&e.played),
        json_string(&e.fen),
        json_string(&eval.score.to_string()),
        eval.depth,
        json_string(&eval.best),
        list(&eval.pv)
    )
}

/// One game's analysis as a JSON object (one line), with the file name and the game's number
/// in it (from 1).
///
/// The fields: `{"file", "game", "tags": {name: value}, "first_table_position": FEN or null,
/// "first_through_exchange": pieces or null, "theoretical_result": {"side", "wdl", "dtw"} or
/// null, "result_conflict": {...} or null, "stops": [...], "plies": [...]}`; the theoretical
/// result is for the side to move at the first table position (of the main line);
/// `first_through_exchange` is that position's piece count where the tables answer it only
/// through a forced exchange into them (more pieces than their slices of it hold), else null.
/// `result_conflict`, where the game's result contradicts the tables at the main line's last
/// position ([`ResultConflict`]): `{"result": "1-0", "claimed", "tables", "fen", "side",
/// "wdl", "dtw", "rules", "text"}`, `claimed` the winner the result gives and `tables` the
/// one the tables give (`"white"`, `"black"` or `"draw"`; PDN's `1-0` is a win for the side
/// that moves first: Black in English draughts), `wdl`, `dtw` and `rules` the position's
/// verdicts for its side to move, `text` the note the annotated game carries. `stops`: the moves
/// that do not replay, where the analysis of their line stops, `{"number", "depth", "move",
/// "why"}`. Each ply (a
/// move played from a table position, main line and variations in tree order) is
/// `{"number": "12...", "depth", "side", "move", "fen", "before": {"wdl", "dtw"},
/// "after": {"wdl", "dtw"}, "rules", "class", "best": [moves], "line": [moves]}`: `depth` is
/// 0 in the main line, 1 in a variation of it, and so on; `rules` the results under the draw
/// rules with the game's counters (`win`, `cursed-win`, `draw`, `blessed-loss`, `loss`,
/// before and after, and the count that runs out first after the move), null where the
/// tables hold none; `before` is for the
/// side to move before the move, `after` for the side that played it; `class` is a
/// [`Class`](super::Class) name; `line` is the perfect-play line, given for mistakes only.
/// `wdl` is `win`, `draw` or `loss`, `dtw` the distance to the end in plies (null for a
/// draw and where the tables hold no distances to the end).
///
/// When the analysis had engine searches ([`analyse_game_searched`](super::analyse_game_searched),
/// `damka analyse --depth N`), two fields follow `plies`: `"search_depth": N` and
/// `"evaluated": [...]`, one entry per move played from a position outside the tables (main
/// line and variations, tree order): `{"number", "depth", "side", "move", "fen", "eval":
/// {"score", "cp", "result", "plies", "depth", "best", "pv"}}`. The first six fields are as
/// in a ply; `eval` is the engine's evaluation of the position before the move, for the side
/// to move there: `score` as text (`+0.35` in men, `win in 13`, `loss in 12`), `cp` the score
/// in centi-men (a man is 100) or null for a proven win or loss, `result` `"win"` or `"loss"`
/// when the search proved one (else null) and `plies` the plies to the end of the game then
/// (else null), `depth` the depth searched, `best` the best move found, `pv` the principal
/// variation from it. Without engine searches neither field is written.
pub fn game_json(file: &str, number: usize, game: &Game, analysis: &Analysis) -> String {
    let tags: Vec<String> = game
        .tags
        .iter()
        .map(|t| format!("{}:{}", json_string(&t.name), json_string(&t.value)))
        .collect();
    let (first, result) = match &analysis.first {
        Some((fen, side, o)) => (
            json_string(fen),
            format!(
                "{{\"side\":\"{}\",\"wdl\":\"{}\",\"dtw\":{}}}",
                side.name(),
                o.wdl.name(),
                dtw(*o, analysis.distances)
            ),
        ),
        None => ("null".to_string(), "null".to_string()),
    };
    let plies: Vec<String> = (analysis.plies.iter())
        .map(|p| ply(p, analysis.distances))
        .collect();
    let searched = match analysis.search_depth {
        Some(depth) => {
            let evaluated: Vec<String> = analysis.evaluated.iter().map(evaluated).collect();
            format!(
                ",\"search_depth\":{depth},\"evaluated\":[{}]",
                evaluated.join(",")
            )
        }
        None => String::new(),
    };
    let exchange = analysis
        .first_through_exchange
        .map_or("null".to_string(), |n| n.to_string());
    let conflict = analysis
        .result_conflict
        .as_ref()
        .map_or("null".to_string(), |c| conflict(c, analysis.distances));
    let stops: Vec<String> = analysis.stops.iter().map(stop).collect();
    format!(
        "{{\"file\":{},\"game\":{number},\"tags\":{{{}}},\"first_table_position\":{first},\
         \"first_through_exchange\":{exchange},\"theoretical_result\":{result},\
         \"result_conflict\":{conflict},\"stops\":[{}],\"plies\":[{}]{searched}}}",
        json_string(file),
        tags.join(","),
        stops.join(","),
        plies.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(
            json_string("a\"b\\c\nd\u{1}é"),
            "\"a\\\"b\\\\c\\nd\\u0001é\""
        );
    }
}
