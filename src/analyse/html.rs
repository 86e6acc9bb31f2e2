//! The analysis as one self-contained web page: inline CSS and SVG diagrams, nothing loaded
//! from elsewhere.
//!
//! The page starts with an index of the games that reach the tables or have findings (a
//! mistake, a win kept more slowly than the best, a move that does not replay, a result the
//! tables contradict), in file order, each linked to its section and each mistake to its row,
//! with a note on how PDN writes results. Per game a header (number, players, event, date,
//! result as played, the theoretical result at the first table position), the moves that
//! could not be replayed, a result the tables contradict, and a table of the critical
//! moments: for each mistake and each slower win (main line and
//! variations) the move number, a diagram of the position before it with the move that led
//! there marked, the move played with what it did, and the best moves with the result they
//! keep and, for a mistake, the perfect-play line. Only the indexed games get a section,
//! unless the page is asked for every game.

use super::svg::{diagram, escape};
use super::{Analysis, Class, Ply, Stop, result_winner};
use crate::notation::parse_fen;
use crate::pdn::Game;
use crate::rules::{Color, Position, Variant};
use crate::tablebase::{Outcome, RuleCategory, Wdl};
use crate::with_rules;

/// One analysed game, as the page shows it.
pub struct Entry<'a> {
    /// The file the game came from, as given (the page shows its name).
    pub file: &'a str,
    /// The game's number in its file, from 1.
    pub number: usize,
    /// The game (its tags give the header).
    pub game: &'a Game,
    /// The rules it was analysed under.
    pub variant: Variant,
    /// Its analysis.
    pub analysis: &'a Analysis,
}

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px auto;\
max-width:1100px;padding:0 16px;color:#222;background:#fafaf7}\
h1{font-size:1.6em;margin-bottom:4px}\
h2{font-size:1.2em;margin:0 0 4px}\
.summary{color:#555;margin-top:0}\
section.game{background:#fff;border:1px solid #ddd;border-radius:6px;padding:14px 18px;\
margin:18px 0}\
.meta,.theory,.note{margin:2px 0;color:#444}\
.theory{font-weight:600}\
.note{font-style:italic;color:#666}\
table.moments{border-collapse:collapse;margin-top:10px;width:100%}\
table.moments th,table.moments td{border:1px solid #ddd;padding:6px 10px;text-align:left;\
vertical-align:top}\
table.moments th{background:#f0ede6}\
.mv{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:700;font-size:1.05em;\
white-space:nowrap}\
td.board{width:1%}\
.bad{color:#b00020}\
.slow{color:#8a6d00}\
.good{color:#0a6b2d}\
.line{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em;color:#555;\
margin-top:6px}\
.line span{white-space:nowrap}\
table.index{border-collapse:collapse;margin:8px 0 16px}\
table.index th,table.index td{border:1px solid #ddd;padding:3px 8px;text-align:left}\
table.index th{background:#f0ede6}\
.stop{color:#8a4b00;margin:2px 0}\
.conflict{color:#8a4b00;font-weight:600}\
tr.file td{background:#f7f5ef;font-weight:600}\
.tag{display:inline-block;font-size:.75em;background:#eee;border-radius:3px;padding:0 4px;\
color:#555;white-space:nowrap;font-weight:400;font-family:system-ui,sans-serif}\
svg.board{display:block}";

impl Entry<'_> {
    /// Whether the game is in the index: it reaches the tables or has findings.
    pub fn indexed(&self) -> bool {
        self.analysis.reaches_tables() || self.analysis.has_findings()
    }

    /// The game's result as written, with the winner it gives in words: `1-0 (Black wins)`.
    fn result(&self) -> String {
        let text = self.game.result_text().unwrap_or("*");
        let first = with_rules!(self.variant, R => Position::<R>::initial().side_to_move());
        match result_winner(text, first) {
            Some(Some(c)) => format!("{} ({} wins)", escape(text), capitalized(c)),
            Some(None) => format!("{} (draw)", escape(text)),
            None => escape(text),
        }
    }
}

/// The last part of a file's path, as the page names it.
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// How PDN writes results, said under the index.
const RESULTS_NOTE: &str = "Results are as PDN writes them: 1-0 (2-0 in International) is a \
     win for the side that moves first, which is Black in English draughts (checkers) and \
     White in the other variants; 0-1 (0-2) is a win for the other side; 1/2-1/2 (1-1) a \
     draw. The theoretical result is the tables' at the game's first position in them, with \
     perfect play from there; a game whose result the tables contradict at its last position \
     is marked.";

/// The page of a run's games, titled `title`: an index of the games that reach the tables
/// or have findings, then a section for each of them, or for every game with `all`.
pub fn page(title: &str, entries: &[Entry], all: bool) -> String {
    let reaching = entries
        .iter()
        .filter(|e| e.analysis.reaches_tables())
        .count();
    let mistakes: usize = entries.iter().map(|e| e.analysis.mistakes().count()).sum();
    let slower: usize = entries.iter().map(|e| e.analysis.slower().count()).sum();
    let stopped = entries
        .iter()
        .filter(|e| !e.analysis.stops.is_empty())
        .count();
    let conflicts = entries
        .iter()
        .filter(|e| e.analysis.result_conflict.is_some())
        .count();
    let exchanges = entries
        .iter()
        .filter(|e| e.analysis.first_through_exchange.is_some())
        .count();
    let indexed: Vec<(usize, &Entry)> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.indexed())
        .collect();
    let shown = match all {
        true => "Every game has a section below.".to_string(),
        false => format!(
            "The {} games listed have a section below; the others are left out (damka \
             analyse --html-all shows every game).",
            indexed.len()
        ),
    };
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n\
         <p class=\"summary\">Games {}, reaching the tables {reaching} ({exchanges} of them \
         first through a forced exchange from more pieces), mistakes {mistakes}, slower wins \
         {slower}, not replayed to the end {stopped}, results the tables contradict \
         {conflicts}. Verdicts from the endgame tables by {}. {shown}</p>\n",
        escape(title),
        escape(title),
        entries.len(),
        escape(&super::annotator())
    );
    index(&mut out, &indexed);
    for (i, entry) in entries.iter().enumerate() {
        if all || entry.indexed() {
            game_section(&mut out, i, entry);
        }
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// The index: one row per game that reaches the tables or has findings, in file order (a
/// row naming each file first where there are several), linked to its section, each mistake
/// linked to its row there; then how results are written.
fn index(out: &mut String, indexed: &[(usize, &Entry)]) {
    if indexed.is_empty() {
        out.push_str("<p class=\"note\">No game reaches the tables or has findings.</p>\n");
        return;
    }
    out.push_str(
        "<table class=\"index\">\n<thead><tr><th>Game</th><th>Event</th><th>White</th>\
         <th>Black</th><th>Result</th><th>Theoretical result</th><th>Mistakes</th>\
         <th>Slower wins</th><th>Not replayed</th></tr></thead>\n<tbody>\n",
    );
    let several_files = indexed.iter().any(|(_, e)| e.file != indexed[0].1.file);
    let mut file = None;
    for (i, e) in indexed {
        if several_files && file != Some(e.file) {
            file = Some(e.file);
            out.push_str(&format!(
                "<tr class=\"file\"><td colspan=\"9\">{}</td></tr>\n",
                escape(file_name(e.file))
            ));
        }
        let theory = match &e.analysis.first {
            Some((_, side, outcome)) => result_words(*side, *outcome, e.analysis.distances),
            None => "&ndash;".to_string(),
        };
        let result = match &e.analysis.result_conflict {
            Some(_) => format!(
                "{} <span class=\"conflict\" title=\"the tables contradict it\">\
                 contradicted</span>",
                e.result()
            ),
            None => e.result(),
        };
        let mistakes: Vec<String> = moments(e.analysis)
            .enumerate()
            .filter(|(_, p)| p.class.is_mistake())
            .map(|(k, p)| {
                format!(
                    "<a href=\"#g{i}-m{k}\">{}&nbsp;{}</a>",
                    p.number,
                    escape(&p.played)
                )
            })
            .collect();
        let mistakes = match mistakes.is_empty() {
            true => "0".to_string(),
            false => format!("{}: {}", mistakes.len(), mistakes.join(", ")),
        };
        out.push_str(&format!(
            "<tr><td><a href=\"#g{i}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{result}\
             </td><td>{theory}</td><td>{mistakes}</td><td>{}</td><td>{}</td></tr>\n",
            e.number,
            escape(tag(e.game, "Event").unwrap_or("")),
            escape(tag(e.game, "White").unwrap_or("?")),
            escape(tag(e.game, "Black").unwrap_or("?")),
            e.analysis.slower().count(),
            e.analysis.stops.len()
        ));
    }
    out.push_str(&format!(
        "</tbody>\n</table>\n<p class=\"note\">{RESULTS_NOTE}</p>\n"
    ));
}

/// The critical moments of a game, in the order its section lists them (each row's anchor
/// is its place here): the mistakes and slower wins, main line and variations.
fn moments(analysis: &Analysis) -> impl Iterator<Item = &Ply> {
    analysis
        .plies
        .iter()
        .filter(|p| p.class.is_mistake() || p.class == Class::Slower)
}

fn tag<'a>(game: &'a Game, name: &str) -> Option<&'a str> {
    game.tag(name).filter(|v| !v.is_empty() && *v != "?")
}

fn capitalized(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// `White wins in 17 plies`, `draw`: a result for `side`, said from the board.
/// The distance is said where the tables hold distances to the end (`distances`).
fn result_words(side: Color, o: Outcome, distances: bool) -> String {
    let plies = |n: u16| if n == 1 { "ply" } else { "plies" };
    let winner = match o.wdl {
        Wdl::Win => side,
        Wdl::Draw => return "draw".to_string(),
        Wdl::Loss => side.opponent(),
    };
    match distances {
        true => format!("{} wins in {} {}", capitalized(winner), o.dtw, plies(o.dtw)),
        false => format!("{} wins", capitalized(winner)),
    }
}

fn game_section(out: &mut String, i: usize, e: &Entry) {
    let game = e.game;
    let white = tag(game, "White").unwrap_or("?");
    let black = tag(game, "Black").unwrap_or("?");
    out.push_str(&format!(
        "<section class=\"game\" id=\"g{i}\">\n<h2>Game {}: {} &ndash; {}</h2>\n",
        e.number,
        escape(white),
        escape(black)
    ));
    let mut meta = Vec::new();
    for name in ["Event", "Site", "Date", "Round"] {
        if let Some(v) = tag(game, name) {
            meta.push(format!("{name}: {}", escape(v)));
        }
    }
    meta.push(format!("Result: {}", e.result()));
    meta.push(format!("{}, {}", escape(file_name(e.file)), e.variant));
    out.push_str(&format!(
        "<p class=\"meta\">{}</p>\n",
        meta.join(" &middot; ")
    ));
    for stop in &e.analysis.stops {
        stop_note(out, stop);
    }
    if let Some(conflict) = &e.analysis.result_conflict {
        out.push_str(&format!(
            "<p class=\"conflict\">{}.</p>\n",
            escape(&conflict.to_string())
        ));
    }
    let Some((_, side, outcome)) = &e.analysis.first else {
        out.push_str(
            "<p class=\"note\">No position of this game is in the tables.</p>\n</section>\n",
        );
        return;
    };
    let at = e
        .analysis
        .plies
        .iter()
        .find(|p| p.depth == 0)
        .map(|p| format!("move {}, ", p.number))
        .unwrap_or_default();
    let exchange = match e.analysis.first_through_exchange {
        Some(pieces) => format!(
            " It has {pieces} pieces, more than the tables hold: they answer it through a \
             forced exchange into them."
        ),
        None => String::new(),
    };
    out.push_str(&format!(
        "<p class=\"theory\">Theoretical result at the first table position ({at}{} to \
         move): {}.{exchange}</p>\n",
        capitalized(*side),
        result_words(*side, *outcome, e.analysis.distances)
    ));
    let moments: Vec<&Ply> = moments(e.analysis).collect();
    if moments.is_empty() {
        out.push_str(
            "<p class=\"note\">No mistakes: every move from a table position kept its \
             result.</p>\n</section>\n",
        );
        return;
    }
    out.push_str(
        "<table class=\"moments\">\n<thead><tr><th>Move</th><th>Position before the move\
         </th><th>Played</th><th>Best</th></tr></thead>\n<tbody>\n",
    );
    for (k, ply) in moments.into_iter().enumerate() {
        moment(
            out,
            &format!("g{i}-m{k}"),
            e.variant,
            ply,
            e.analysis.distances,
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// The row of a critical moment, with the anchor `id`.
fn moment(out: &mut String, id: &str, variant: Variant, ply: &Ply, distances: bool) {
    let label = format!("Position before {} {}", ply.number, ply.played);
    let board = with_rules!(variant, R => parse_fen::<R>(&ply.fen)
        .map(|pos| diagram(&pos, ply.last, &label)))
    .unwrap_or_else(|e| format!("<p>{}: {}</p>", escape(&ply.fen), escape(&e.to_string())));
    let variation = if ply.depth > 0 {
        " <span class=\"tag\">variation</span>"
    } else {
        ""
    };
    let change = match ply.class {
        Class::WinToDraw => "Win &rarr; Draw",
        Class::WinToLoss => "Win &rarr; Loss",
        Class::DrawToLoss => "Draw &rarr; Loss",
        Class::Slower => "Still wins, but slower",
        _ => "",
    };
    // A result the move-count rules draw says by which count.
    let by_rule = ply
        .rules
        .as_ref()
        .filter(|r| matches!(r.after, RuleCategory::CursedWin | RuleCategory::BlessedLoss))
        .map(|r| format!(" by the {}", escape(r.count)))
        .unwrap_or_default();
    let change = match change.is_empty() {
        true => String::new(),
        false => format!("{change}{by_rule}"),
    };
    let after = match by_rule.is_empty() {
        true => result_words(ply.side, ply.after, distances),
        false => format!(
            "{} (drawn{by_rule})",
            result_words(ply.side, ply.after, distances)
        ),
    };
    let played_class = if ply.class.is_mistake() {
        "bad"
    } else {
        "slow"
    };
    let line: Vec<String> = ply
        .line
        .iter()
        .map(|m| format!("<span>{}</span>", escape(m)))
        .collect();
    out.push_str(&format!(
        "<tr id=\"{id}\"><td class=\"mv\">{}<br><span class=\"tag\">{} to move</span>{variation}</td>\
         <td class=\"board\">{board}</td>\
         <td><span class=\"mv {played_class}\">{}{}</span><br>{change}<br>{}</td>\
         <td><span class=\"mv good\">{}</span><br>{}<div class=\"line\">{}</div></td></tr>\n",
        ply.number,
        capitalized(ply.side),
        escape(&ply.played),
        ply.class.strength().unwrap_or(""),
        after,
        escape(&ply.best.join(", ")),
        result_words(ply.side, ply.before, distances),
        line.join(" ")
    ));
}

/// The note on a move that does not replay.
fn stop_note(out: &mut String, stop: &Stop) {
    let variation = if stop.depth > 0 {
        " (in a variation)"
    } else {
        ""
    };
    out.push_str(&format!(
        "<p class=\"stop\">Not analysed from move {} {}{variation}: {}.</p>\n",
        stop.number,
        escape(&stop.played),
        escape(&stop.why)
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_in_words() {
        assert_eq!(
            result_words(Color::White, Outcome::win(61), true),
            "White wins in 61 plies"
        );
        assert_eq!(
            result_words(Color::White, Outcome::loss(1), true),
            "Black wins in 1 ply"
        );
        assert_eq!(result_words(Color::Black, Outcome::DRAW, true), "draw");
        assert_eq!(
            result_words(Color::Black, Outcome::loss(0), false),
            "White wins"
        );
    }
}
