//! The analyser: replays games and compares each move played from a position in the endgame
//! tables with perfect play.
//!
//! [`analyse_game`] walks a normalized game (see
//! [`Replayer::normalize`](crate::pdn::Replayer::normalize)), main line and variations, looks
//! up every position the tables hold, and classifies each move played from one ([`Class`]).
//! [`analyse_game_searched`] also has the engine search every position outside the tables
//! from which a move is played ([`EngineEval`]).
//! [`annotate`] writes the verdicts into the game as comments, glyphs and perfect-play
//! variations, and the engine evaluations as `[%eval]` comments (each comment an
//! [`Annotation`] until it is written); [`strip_annotations`] recognises them and takes them
//! out again, so that an annotated file can be analysed again with the same result. [`game_json`] gives the analysis as JSON and [`html::page`] as a web page with
//! board diagrams ([`svg::diagram`]).

pub mod annotation;
pub mod html;
mod json;
pub mod svg;

pub use json::{game_json, json_string};

use crate::tablebase::{FileKind, Material};

use std::sync::atomic::AtomicBool;

use crate::notation::{move_text, parse_fen, parse_move, write_fen};
use crate::pdn::cursor::{Context, Cursor, MoveAt, Rewrite, Step, rewrite};
use crate::pdn::{Game, Line, MoveNode, MoveNumber, Node, Tag, setup_fen};
use crate::rules::{Color, Counters, LegalMove, Position, RuleSet, Rules, Square, legal_moves};
use crate::search::{Engine, Limits, Score, line_text};
use crate::tablebase::{Outcome, ProbeError, RatedMove, RuleCategory, RuleMove, Tablebase, Wdl};
pub use annotation::{Annotation, Eval, EvalScore, Mistake, Note, Verdict};

/// How far along a best line the annotation goes, in plies.
pub const LINE_PLIES: usize = 20;

/// The default margin, in plies, by which a win kept may be slower than the best before it is
/// noted.
pub const SLOW_MARGIN: u16 = 4;

/// What a move played from a table position did to the result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Class {
    /// Kept the result (a win no slower than the best by more than the margin).
    Keeps,
    /// Kept a win, but slower than the best by more than the margin (no glyph, a note).
    Slower,
    /// The only move keeping the win or the draw, other moves being legal (`$7`).
    Only,
    /// Turned a win into a draw (`?`, `$2`).
    WinToDraw,
    /// Turned a win into a loss (`??`, `$4`).
    WinToLoss,
    /// Turned a draw into a loss (`??`, `$4`).
    DrawToLoss,
}

impl Class {
    /// A short name: `keeps`, `slower`, `only`, `win_to_draw`, `win_to_loss`, `draw_to_loss`.
    pub const fn name(self) -> &'static str {
        match self {
            Class::Keeps => "keeps",
            Class::Slower => "slower",
            Class::Only => "only",
            Class::WinToDraw => "win_to_draw",
            Class::WinToLoss => "win_to_loss",
            Class::DrawToLoss => "draw_to_loss",
        }
    }

    /// Whether the move threw a result away.
    pub const fn is_mistake(self) -> bool {
        matches!(
            self,
            Class::WinToDraw | Class::WinToLoss | Class::DrawToLoss
        )
    }

    /// The move strength mark the annotation gives the move, if any.
    pub const fn strength(self) -> Option<&'static str> {
        match self {
            Class::WinToDraw => Some("?"),
            Class::WinToLoss | Class::DrawToLoss => Some("??"),
            _ => None,
        }
    }

    /// The numeric annotation glyph of the class, if any: 2 for `?`, 4 for `??`, 7 for the
    /// only move.
    pub const fn nag(self) -> Option<u8> {
        match self {
            Class::WinToDraw => Some(2),
            Class::WinToLoss | Class::DrawToLoss => Some(4),
            Class::Only => Some(7),
            _ => None,
        }
    }
}

/// One move played from a position in the tables, in the main line or a variation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ply {
    /// The move's position among the moves of the game in tree order (see
    /// [`Analysis::before`]).
    pub index: usize,
    /// 0 for a move of the main line, 1 for a variation of it, 2 for a variation of a
    /// variation...
    pub depth: usize,
    /// The move's number (`12.` or `12...`).
    pub number: MoveNumber,
    /// The side that played it.
    pub side: Color,
    /// The move, in the variant's notation.
    pub played: String,
    /// The position before it, as FEN.
    pub fen: String,
    /// The start and end squares of the move that led to the position before this one, if
    /// it was played in the game (not at the start or after a setup command).
    pub last: Option<(Square, Square)>,
    /// The perfect-play result for the side to move before the move.
    pub before: Outcome,
    /// The result the move leads to, for the side that played it.
    pub after: Outcome,
    /// What the move did.
    pub class: Class,
    /// Every move keeping the best result at the shortest distance, in notation order.
    pub best: Vec<String>,
    /// For a mistake: the perfect-play line from the position before the move (up to
    /// [`LINE_PLIES`] plies or the end of the game), under the draw rules where the tables
    /// hold their results; empty otherwise.
    pub line: Vec<String>,
    /// The results under the draw rules, where the tables hold them for the position.
    pub rules: Option<RulePly>,
}

/// A move's results under the draw rules the game is judged by, with the game's counters:
/// where the tables hold them, they decide the move's [`Class`] and its best moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulePly {
    /// The result for the side to move before the move.
    pub before: RuleCategory,
    /// The result the move leads to, for the side that played it.
    pub after: RuleCategory,
    /// The count that runs out first after the move (`16-move rule`).
    pub count: &'static str,
}

/// What the engine says of a position outside the tables, after a search of fixed depth.
///
/// It is an evaluation, not a verdict: only a decisive score (a win or loss the search
/// proved, see [`Score::is_decisive`]) is certain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineEval {
    /// The score for the side to move: centi-men (a man is 100), or a proven win or loss.
    pub score: Score,
    /// The depth searched, in plies.
    pub depth: u32,
    /// The best move found, in the variant's notation.
    pub best: String,
    /// The principal variation, starting with the best move, in the variant's notation.
    pub pv: Vec<String>,
}

/// One move played from a position outside the tables, with the engine's evaluation of the
/// position before it (see [`analyse_game_searched`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluated {
    /// The move's position among the moves of the game in tree order (see
    /// [`Analysis::before`]).
    pub index: usize,
    /// 0 for a move of the main line, 1 for a variation of it, and so on.
    pub depth: usize,
    /// The move's number (`12.` or `12...`).
    pub number: MoveNumber,
    /// The side that played it (the side to move in the position evaluated).
    pub side: Color,
    /// The move, in the variant's notation.
    pub played: String,
    /// The position before it, as FEN.
    pub fen: String,
    /// The engine's evaluation of that position.
    pub eval: EngineEval,
}

/// A move of the game that does not replay (illegal or ambiguous): the analysis of its line
/// stops there (the moves after it and the variations hanging from them are not analysed),
/// as [`Replayer`](crate::pdn::Replayer) stops replaying it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    /// The move's position among the moves of the game in tree order (see
    /// [`Analysis::before`]).
    pub index: usize,
    /// 0 in the main line, 1 in a variation of it, and so on.
    pub depth: usize,
    /// The move's number (`12.` or `12...`).
    pub number: MoveNumber,
    /// The move as written.
    pub played: String,
    /// Why it does not replay (`illegal move '24-21' (legal: ...)`).
    pub why: String,
}

impl Stop {
    /// The comment [`annotate`] writes before the move: `Not analysed from here: 12... 24-21:
    /// illegal move '24-21' (legal: 22-18 22-17).`
    pub fn comment(&self) -> String {
        self.annotation().to_string()
    }

    /// The annotation [`annotate`] writes before the move.
    pub fn annotation(&self) -> Annotation {
        Annotation::Stop {
            number: self.number,
            played: self.played.clone(),
            why: self.why.clone(),
        }
    }
}

/// The analysis of one game: its main line and its variations.
///
/// The moves of a game are counted in tree order, by their ids (see
/// [`pdn::cursor`](crate::pdn::cursor)): the main line's moves in order, each variation's
/// moves where the variation stands (depth first), unknown moves `- -` counted too. This is
/// the order [`Replayer`](crate::pdn::Replayer) replays them in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    /// The first position of the main line in the tables (FEN) and its result for the side
    /// to move.
    pub first: Option<(String, Color, Outcome)>,
    /// The verdict for the side to move of the position before each move, in tree order;
    /// `None` outside the tables or where the line cannot be replayed.
    pub before: Vec<Option<Outcome>>,
    /// The verdict for the side to move of the position after each move, in tree order
    /// (before any setup command following it); `None` outside the tables.
    pub after: Vec<Option<Outcome>>,
    /// The verdict for the side to move of the start position, `None` outside the tables.
    pub start: Option<Outcome>,
    /// The result under the draw rules for the side to move of the position after each
    /// move, in tree order, with the line's counters; `None` where the tables hold none.
    pub after_rules: Vec<Option<RuleCategory>>,
    /// The same for the start position (counters at 0).
    pub start_rules: Option<RuleCategory>,
    /// The moves played from table positions, in tree order.
    pub plies: Vec<Ply>,
    /// The depth of the engine searches, when the analysis had them
    /// ([`analyse_game_searched`]); `None` otherwise.
    pub search_depth: Option<u32>,
    /// The moves played from positions outside the tables, with the engine's evaluation of
    /// the position before each, in tree order; empty without engine searches.
    pub evaluated: Vec<Evaluated>,
    /// The moves that do not replay, where the analysis of their lines stops, in tree order.
    pub stops: Vec<Stop>,
    /// Whether the outcomes' distances are distances to the end: the tables hold them
    /// ([`Tablebase::has_dtw`]). Else they are 0 and no move is found slower.
    pub distances: bool,
    /// Where [`Analysis::first`] is not in a slice the tables hold but is answered through a
    /// forced exchange into them (its captures lead into the tables, as a probe searches
    /// them): its piece count. `None` where it is in the tables' own slices, or there is none.
    pub first_through_exchange: Option<u32>,
    /// The game's result (its Result tag, else its terminator), where the tables contradict
    /// it at the last position of the main line.
    pub result_conflict: Option<ResultConflict>,
}

/// A game's result that the tables contradict: the last position of the main line (replayed
/// to its end) is in the tables, and their result for it, under the draw rules where the
/// tables hold those, is not the one the game gives (a resignation or an agreed draw against
/// the tables' verdict, a game stopped early, or a wrong Result tag).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultConflict {
    /// The result as the game writes it (`1-0`).
    pub result: String,
    /// The winner it gives, `None` for a draw. PDN's `1-0` (`2-0`) is a win for the side that
    /// moves first in the variant: Black in English draughts, White in the others.
    pub claimed: Option<Color>,
    /// The last position of the main line, as FEN.
    pub fen: String,
    /// Its side to move.
    pub side: Color,
    /// Its perfect-play result for the side to move.
    pub outcome: Outcome,
    /// Its result under the draw rules, where the tables hold it (with the game's counts).
    pub rules: Option<RuleCategory>,
}

impl ResultConflict {
    /// The winner with perfect play from the last position, `None` for a draw (under the
    /// draw rules where the tables hold them: a cursed win is a draw).
    pub fn winner(&self) -> Option<Color> {
        let wdl = self.rules.map_or(self.outcome.wdl, rule_wdl);
        match wdl {
            Wdl::Win => Some(self.side),
            Wdl::Draw => None,
            Wdl::Loss => Some(self.side.opponent()),
        }
    }
}

impl std::fmt::Display for ResultConflict {
    /// `Result 1-0 (Black wins) contradicts the tables: the last position, White to move, is
    /// a draw (W:W18:B14)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let says = |w: Option<Color>| match w {
            Some(c) => format!("{} wins", capitalized(c)),
            None => "a draw".to_string(),
        };
        let rules = match self.rules {
            Some(RuleCategory::CursedWin | RuleCategory::BlessedLoss) => {
                " under the move-count rules"
            }
            _ => "",
        };
        let theory = match self.winner() {
            Some(c) => format!("{} wins{rules}", capitalized(c)),
            None => format!("is a draw{rules}"),
        };
        write!(
            f,
            "Result {} ({}) contradicts the tables: the last position, {} to move, {theory} \
             ({})",
            self.result,
            says(self.claimed),
            capitalized(self.side),
            self.fen
        )
    }
}

/// `White` or `Black`.
fn capitalized(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The winner a PDN result gives: `Some(Some(side))`, `Some(None)` for a draw, `None` for a
/// result that gives none (`*`, `0-0`, anything else). `1-0` and `2-0` are wins for
/// `first`, the side that moves first in the variant.
pub fn result_winner(result: &str, first: Color) -> Option<Option<Color>> {
    match result.trim() {
        "1-0" | "2-0" => Some(Some(first)),
        "0-1" | "0-2" => Some(Some(first.opponent())),
        "1/2-1/2" | "1-1" => Some(None),
        _ => None,
    }
}

impl Analysis {
    /// Whether the game reached a position in the tables (directly or through a forced
    /// exchange, see [`Analysis::first_through_exchange`]).
    pub fn reaches_tables(&self) -> bool {
        self.first.is_some()
    }

    /// The mistakes, main line and variations, in tree order.
    pub fn mistakes(&self) -> impl Iterator<Item = &Ply> {
        self.plies.iter().filter(|p| p.class.is_mistake())
    }

    /// The mistakes of the main line (the moves played in the game), in order.
    pub fn played_mistakes(&self) -> impl Iterator<Item = &Ply> {
        self.mistakes().filter(|p| p.depth == 0)
    }

    /// The wins kept more slowly than the best by more than the margin, in tree order.
    pub fn slower(&self) -> impl Iterator<Item = &Ply> {
        self.plies.iter().filter(|p| p.class == Class::Slower)
    }

    /// Whether the analysis found something to show: a mistake, a slower win or a move that
    /// does not replay.
    pub fn has_findings(&self) -> bool {
        self.mistakes().next().is_some() || self.slower().next().is_some() || !self.stops.is_empty()
    }
}

/// Why a game could not be analysed.
#[derive(Debug)]
pub enum AnalyseError {
    /// The start position or a move did not replay (the game was not normalized cleanly).
    Replay(String),
}

impl std::fmt::Display for AnalyseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnalyseError::Replay(why) => write!(f, "cannot replay: {why}"),
        }
    }
}

impl std::error::Error for AnalyseError {}

/// The outcome of `pos`, or `None` when there are no tables, they do not hold it, or a table
/// it needs is damaged (the [`Tablebase`] keeps that to be said, see
/// [`Tablebase::take_damage`]).
fn lookup<R: Rules>(tb: Option<&Tablebase>, pos: &Position<R>) -> Option<Outcome> {
    let tb = tb?;
    tb.resolve(pos, tb.has_dtw(R::VARIANT)).ok()
}

/// The notation of each rated move.
fn rated_texts<R: Rules>(rated: &[RatedMove]) -> Vec<String> {
    let legal: Vec<LegalMove> = rated.iter().map(|r| r.mv.clone()).collect();
    (0..legal.len())
        .map(|i| move_text(R::VARIANT, &legal, i))
        .collect()
}

/// The perfect-play line from `pos`: the best move at each step, up to `plies` plies or the
/// end of the game.
pub fn best_line<R: Rules>(
    tb: &Tablebase,
    pos: &Position<R>,
    plies: usize,
) -> Result<Vec<String>, ProbeError> {
    tb.mainline(pos)
        .take(plies)
        .map(|step| step.map(|s| rated_texts::<R>(&s.rated).swap_remove(0)))
        .collect()
}

/// The perfect-play line from `pos` (counters `c`) under `rules`: the best move under the
/// rules at each step, up to `plies` plies or the end of the game.
pub fn best_rule_line<R: Rules>(
    tb: &Tablebase,
    pos: &Position<R>,
    rules: &RuleSet,
    mut c: Counters,
    plies: usize,
) -> Result<Vec<String>, ProbeError> {
    let mut pos = *pos;
    let mut line = Vec::new();
    while line.len() < plies {
        let moves = tb.rule_moves(&pos, rules, c)?;
        let Some(first) = moves.first() else { break };
        let rated: Vec<RatedMove> = moves.iter().map(|m| m.rated.clone()).collect();
        line.push(rated_texts::<R>(&rated).swap_remove(0));
        pos = pos.play(&first.rated.mv.mv);
        c = first.counters;
    }
    Ok(line)
}

/// Classifies the move `moves[at]` under the rules (`moves` best under the rules first), as
/// [`classify`] does with the plain results: a win under the rules lost, a draw under them
/// lost, the only move keeping the result, a win kept more slowly.
fn classify_rules(moves: &[RuleMove], at: usize, margin: u16) -> Class {
    use RuleCategory::{Loss, Win};
    let (best, after) = (moves[0].category, moves[at].category);
    let keeping = |keeps: &dyn Fn(RuleCategory) -> bool| {
        moves.iter().filter(|m| keeps(m.category)).count() == 1 && moves.len() > 1
    };
    match (best, after) {
        (Win, Loss) => Class::WinToLoss,
        (Win, a) if a != Win => Class::WinToDraw,
        (b, Loss) if b != Loss => Class::DrawToLoss,
        (Win, _) => {
            let fastest = moves
                .iter()
                .filter(|m| m.category == Win)
                .map(|m| m.rated.outcome.dtw)
                .min()
                .unwrap_or(0);
            if keeping(&|c| c == Win) {
                Class::Only
            } else if moves[at].rated.outcome.dtw > fastest.saturating_add(margin) {
                Class::Slower
            } else {
                Class::Keeps
            }
        }
        (b, _) if b != Loss && keeping(&|c| c != Loss) => Class::Only,
        _ => Class::Keeps,
    }
}

/// Classifies a move leading to `after` from a position whose rated moves are `rated`.
fn classify(rated: &[RatedMove], after: Outcome, margin: u16) -> Class {
    let best = rated[0].outcome;
    match (best.wdl, after.wdl) {
        (Wdl::Win, Wdl::Draw) => Class::WinToDraw,
        (Wdl::Win, Wdl::Loss) => Class::WinToLoss,
        (Wdl::Draw, Wdl::Loss) => Class::DrawToLoss,
        (Wdl::Win | Wdl::Draw, w) if w == best.wdl => {
            let keeping = rated.iter().filter(|r| r.outcome.wdl == best.wdl).count();
            if keeping == 1 && rated.len() > 1 {
                Class::Only
            } else if w == Wdl::Win && after.dtw > best.dtw.saturating_add(margin) {
                Class::Slower
            } else {
                Class::Keeps
            }
        }
        _ => Class::Keeps,
    }
}

/// The start position of a normalized game: its FEN tag, else the initial position. A
/// position no game reaches ([`Position::reachable`]) is refused, so such a game is not
/// analysed (nor counted as reaching the tables).
fn start<R: Rules>(game: &Game) -> Result<Position<R>, AnalyseError> {
    match game.tag("FEN").map(str::trim).filter(|f| !f.is_empty()) {
        None => Ok(Position::initial()),
        Some(fen) => setup::<R>(fen).map_err(|e| AnalyseError::Replay(format!("FEN: {e}"))),
    }
}

/// The position of a FEN that sets up a game or a line: one a game reaches.
fn setup<R: Rules>(fen: &str) -> Result<Position<R>, String> {
    let pos = parse_fen::<R>(fen).map_err(|e| e.to_string())?;
    pos.reachable().map_err(|e| e.to_string())?;
    Ok(pos)
}

/// Where a line of play stands when its position is known: the position, its verdict when
/// already looked up, the squares of the move that led to it, the id of a move played from
/// this same place (same position, same history) whose engine evaluation stands for it, and
/// the positions of the line up to it (oldest first, `pos` last), for the engine's repetition
/// and move-count draws.
#[derive(Clone)]
struct Place<R: Rules> {
    pos: Position<R>,
    known: Option<Option<Outcome>>,
    last: Option<(Square, Square)>,
    evaluated: Option<usize>,
    history: Vec<Position<R>>,
}

impl<R: Rules> Place<R> {
    /// A line's first place, or its place after a setup command: no move led to it.
    fn start(pos: Position<R>, known: Option<Option<Outcome>>) -> Place<R> {
        Place {
            pos,
            known,
            last: None,
            evaluated: None,
            history: vec![pos],
        }
    }
}

/// One game's analysis in progress.
struct Walk<'a> {
    tb: Option<&'a Tablebase>,
    /// The draw rules the game is judged by, where the tables hold their results.
    rules: &'static RuleSet,
    margin: u16,
    /// The engine and the depth it searches positions outside the tables to.
    search: Option<(&'a mut Engine, u32)>,
    analysis: Analysis,
    /// Where the main line stands last, while it is replayed: the position (FEN), its side
    /// to move and its verdicts; `None` outside the tables or once the line is lost (a move
    /// that does not replay, an unknown move, a setup command).
    last_main: Option<(String, Color, Outcome, Option<RuleCategory>)>,
}

/// The engine's evaluation of the last position of `game` (the line so far, oldest first),
/// searched `depth` plies deep; `None` when it has no move.
fn engine_eval<R: Rules>(
    engine: &mut Engine,
    game: &[Position<R>],
    depth: u32,
) -> Option<EngineEval> {
    let pos = game.last()?;
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let result = engine.search(game, &limits, &AtomicBool::new(false), &mut |_| {});
    let best = line_text(pos, &[result.best_move?]).pop()?;
    let mut pv = line_text(pos, &result.info.pv);
    if pv.first() != Some(&best) {
        pv = vec![best.clone()];
    }
    Some(EngineEval {
        score: result.info.score,
        depth: result.info.depth,
        best,
        pv,
    })
}

impl Walk<'_> {
    /// Records `pos`, whose verdict is `outcome`, as the main line's first table position,
    /// and whether the tables hold its slice or answer it through a forced exchange.
    fn set_first<R: Rules>(&mut self, pos: &Position<R>, outcome: Outcome) {
        self.analysis.first = Some((write_fen(pos), pos.side_to_move(), outcome));
        let side = |c: Color| {
            let kings = pos.kings_of(c).count() as u8;
            (pos.pieces(c).count() as u8 - kings, kings)
        };
        let (mover, other) = (
            side(pos.side_to_move()),
            side(pos.side_to_move().opponent()),
        );
        let material = Material::new(mover.0, mover.1, other.0, other.1);
        let held = self.tb.is_some_and(|tb| {
            let store = tb.store();
            (store.filesystem()).is_file(&store.path(R::VARIANT, material, FileKind::Wdl))
        });
        self.analysis.first_through_exchange = (!held).then(|| material.pieces());
    }

    fn skip(&mut self, moves: usize) {
        self.analysis
            .before
            .extend(std::iter::repeat_n(None, moves));
        self.analysis.after.extend(std::iter::repeat_n(None, moves));
        self.analysis
            .after_rules
            .extend(std::iter::repeat_n(None, moves));
    }

    /// The moves of `p` (counters `c`) under the rules, best first; `None` where the tables
    /// hold no rule results for it.
    fn rule_moves<R: Rules>(&self, p: &Position<R>, c: Counters) -> Option<Vec<RuleMove>> {
        self.tb?.rule_moves(p, self.rules, c).ok()
    }

    /// Analyses the moves of `game` from `start`, main line and variations: each line from
    /// the place before the move it replaces, to its end, a move that does not replay (whose
    /// variations are not followed either) or an unknown move.
    fn moves<R: Rules>(&mut self, game: &Game, start: Place<R>) -> Result<(), AnalyseError> {
        let side = start.pos.side_to_move();
        let mut cursor = Cursor::with_place(&game.moves, game.start, Some(side), start);
        while let Some(step) = cursor.next() {
            match step {
                Step::Move { at, node: m, .. } => {
                    let Some(before) = cursor.before_mut() else {
                        self.skip(1);
                        continue;
                    };
                    let place = before.clone();
                    // A variation of this move starts where it stands, with its evaluation.
                    before.evaluated = Some(at.id);
                    if let Err(e) = parse_move(R::VARIANT, &legal_moves(&place.pos), &m.text) {
                        // The line stops here; no variation of this move is followed either.
                        if at.depth == 0 {
                            self.last_main = None;
                        }
                        self.analysis.stops.push(Stop {
                            index: at.id,
                            depth: at.depth,
                            number: at.number,
                            played: m.text.clone(),
                            why: e.to_string(),
                        });
                        cursor.forget_before();
                        self.skip(1);
                        continue;
                    }
                    let next = self.play(place, at, &m.text)?;
                    cursor.set_place(Some(next));
                }
                Step::UnknownMove { at } => {
                    if at.depth == 0 {
                        self.last_main = None;
                    }
                    self.skip(1)
                }
                Step::Enter { .. } => {
                    if cursor.place().is_none() {
                        let ids = cursor.skip_variation();
                        self.skip(ids);
                    }
                }
                Step::Setup(command) => {
                    let fen = setup_fen(command);
                    let p = setup::<R>(fen)
                        .map_err(|e| AnalyseError::Replay(format!("setup {fen}: {e}")))?;
                    if cursor.depth() == 0 {
                        self.last_main = None;
                    }
                    cursor.set_place(Some(Place::start(p, None)));
                }
                Step::Comment(_) | Step::Leave => {}
            }
        }
        Ok(())
    }

    /// Plays the move `text` (at `at`) from `place`, recording its verdicts and, from a table
    /// position, its classification, or outside the tables the engine's evaluation. Returns
    /// where the line stands after it.
    fn play<R: Rules>(
        &mut self,
        place: Place<R>,
        at: MoveAt,
        text: &str,
    ) -> Result<Place<R>, AnalyseError> {
        let (number, depth) = (at.number, at.depth);
        let p = &place.pos;
        let history = &place.history;
        let legal = legal_moves(p);
        let found = parse_move(R::VARIANT, &legal, text)
            .map_err(|e| AnalyseError::Replay(format!("move {number} {text}: {e}")))?;
        let verdict = match place.known {
            Some(v) => v,
            None => lookup(self.tb, p),
        };
        // A position whose moves cannot all be rated (a table they need is damaged) is
        // analysed as one outside the tables.
        let rated = verdict.and_then(|_| self.tb?.rated_moves(p).ok());
        let verdict = verdict.filter(|_| rated.is_some());
        let index = self.analysis.before.len();
        self.analysis.before.push(verdict);
        let counters = *self
            .rules
            .game_counters(history)
            .last()
            .expect("a line has a position");
        let mut after_rules = None;
        if let (Some(before), Some(rated), Some(tb)) = (verdict, rated, self.tb) {
            if depth == 0 && self.analysis.first.is_none() {
                self.set_first(p, before);
            }
            let texts = rated_texts::<R>(&rated);
            let at = rated
                .iter()
                .position(|r| r.mv.mv == found.mv)
                .ok_or_else(|| AnalyseError::Replay(format!("move {number} not rated")))?;
            let after = rated[at].outcome;
            let text_of = |m: &RatedMove| {
                let i = rated.iter().position(|r| r.mv == m.mv).unwrap_or(0);
                texts[i].clone()
            };
            let ruled = self.rule_moves(p, counters).filter(|m| !m.is_empty());
            let (class, best, line, rules) = match &ruled {
                Some(moves) => {
                    let i = moves
                        .iter()
                        .position(|m| m.rated.mv.mv == found.mv)
                        .ok_or_else(|| AnalyseError::Replay(format!("move {number} not rated")))?;
                    let class = classify_rules(moves, i, self.margin);
                    let first = &moves[0];
                    let best = moves
                        .iter()
                        .take_while(|m| {
                            (m.category, m.plies, m.rated.outcome)
                                == (first.category, first.plies, first.rated.outcome)
                        })
                        .map(|m| text_of(&m.rated))
                        .collect();
                    let line = match class.is_mistake() {
                        true => best_rule_line(tb, p, self.rules, counters, LINE_PLIES)
                            .unwrap_or_default(),
                        false => Vec::new(),
                    };
                    let next = p.play(&found.mv);
                    let count = self
                        .rules
                        .binding_count(&next, moves[i].counters)
                        .map_or("", |(_, name)| name);
                    let before = tb
                        .probe_rules(p, self.rules, counters)
                        .unwrap_or(first.category);
                    after_rules = Some(moves[i].category.flip());
                    let rules = RulePly {
                        before,
                        after: moves[i].category,
                        count,
                    };
                    (class, best, line, Some(rules))
                }
                None => {
                    let class = classify(&rated, after, self.margin);
                    let best = rated
                        .iter()
                        .zip(&texts)
                        .take_while(|(r, _)| r.outcome == rated[0].outcome)
                        .map(|(_, t)| t.clone())
                        .collect();
                    let line = match class.is_mistake() {
                        true => best_line(tb, p, LINE_PLIES).unwrap_or_default(),
                        false => Vec::new(),
                    };
                    (class, best, line, None)
                }
            };
            self.analysis.plies.push(Ply {
                index,
                depth,
                number,
                side: p.side_to_move(),
                played: texts[at].clone(),
                fen: write_fen(p),
                last: place.last,
                before,
                after,
                class,
                best,
                line,
                rules,
            });
        } else if let Some((engine, searched)) = self.search.as_mut() {
            // A variation starting here stands where the move it replaces stood: same
            // position, same history, same evaluation.
            let known = place.evaluated.and_then(|at| {
                self.analysis
                    .evaluated
                    .iter()
                    .rev()
                    .find(|e| e.index == at)
                    .map(|e| e.eval.clone())
            });
            let eval = match known {
                Some(e) => Some(e),
                None => engine_eval(engine, history, *searched),
            };
            if let Some(eval) = eval {
                let at = legal
                    .iter()
                    .position(|m| m.mv == found.mv)
                    .ok_or_else(|| AnalyseError::Replay(format!("move {number} not legal")))?;
                self.analysis.evaluated.push(Evaluated {
                    index,
                    depth,
                    number,
                    side: p.side_to_move(),
                    played: move_text(R::VARIANT, &legal, at),
                    fen: write_fen(p),
                    eval,
                });
            }
        }
        let next = p.play(&found.mv);
        let verdict = lookup(self.tb, &next);
        self.analysis.after.push(verdict);
        if after_rules.is_none() && verdict.is_some() {
            let c = self.rules.next(p, counters, &next);
            after_rules = self
                .tb
                .and_then(|tb| tb.probe_rules(&next, self.rules, c).ok());
        }
        self.analysis.after_rules.push(after_rules);
        if let Some(v) = verdict.filter(|_| depth == 0 && self.analysis.first.is_none()) {
            self.set_first(&next, v);
        }
        if depth == 0 {
            self.last_main =
                verdict.map(|v| (write_fen(&next), next.side_to_move(), v, after_rules));
        }
        let last = Some((found.mv.from(), found.mv.to()));
        let mut history = place.history;
        history.push(next);
        Ok(Place {
            pos: next,
            known: Some(verdict),
            last,
            evaluated: None,
            history,
        })
    }
}

/// Analyses a normalized game under the rules `R`, main line and variations, using a margin
/// of `margin` plies for slower wins.
///
/// Positions outside the tables (a slice file missing, too many pieces) get no verdict. A line
/// cannot be followed past an unknown move (`- -`), nor past a move that does not replay
/// (illegal or ambiguous: a [`Stop`]); a setup command sets the position; a variation
/// replaces the move before it. Run [`strip_annotations`] first on a game the
/// analyser may have annotated before, so that its best lines are not taken for moves played.
pub fn analyse_game<R: Rules>(
    tb: &Tablebase,
    game: &Game,
    margin: u16,
    rules: &'static RuleSet,
) -> Result<Analysis, AnalyseError> {
    walk_game::<R>(Some(tb), game, margin, rules, None)
}

/// As [`analyse_game`], and moreover every position outside the tables from which a move is
/// played (main line and variations) is searched `depth` plies deep by `engine`, which is
/// given the line's positions up to it (so that repetitions and move-count draws count).
/// The evaluations are in [`Analysis::evaluated`]. Without tables (`tb` `None`) every
/// position is searched and there are no verdicts.
///
/// The engine is cleared first ([`Engine::new_game`]), so that the evaluations do not depend
/// on what it searched before. Give it the same tables ([`Engine::set_tables`]) so that it
/// probes them inside its search, with conditional probes off
/// ([`Engine::set_conditional_probes`]) so that the evaluations do not depend on the cache. A variation's first move is played from the position of
/// the move it replaces, whose evaluation it shares.
pub fn analyse_game_searched<R: Rules>(
    tb: Option<&Tablebase>,
    game: &Game,
    margin: u16,
    engine: &mut Engine,
    depth: u32,
) -> Result<Analysis, AnalyseError> {
    engine.new_game();
    let rules = engine.rules(R::VARIANT);
    walk_game::<R>(tb, game, margin, rules, Some((engine, depth)))
}

fn walk_game<R: Rules>(
    tb: Option<&Tablebase>,
    game: &Game,
    margin: u16,
    rules: &'static RuleSet,
    search: Option<(&mut Engine, u32)>,
) -> Result<Analysis, AnalyseError> {
    let first = start::<R>(game)?;
    let search_depth = search.as_ref().map(|(_, d)| *d);
    let mut walk = Walk {
        tb,
        rules,
        margin,
        search,
        analysis: Analysis {
            search_depth,
            distances: tb.is_some_and(|tb| tb.has_dtw(R::VARIANT)),
            ..Analysis::default()
        },
        last_main: None,
    };
    walk.analysis.start = lookup(tb, &first);
    walk.analysis.start_rules = walk
        .analysis
        .start
        .and(tb)
        .and_then(|tb| tb.probe_rules(&first, rules, Counters::default()).ok());
    if let Some(v) = walk.analysis.start {
        walk.set_first(&first, v);
        walk.last_main = Some((
            write_fen(&first),
            first.side_to_move(),
            v,
            walk.analysis.start_rules,
        ));
    }
    walk.moves(game, Place::start(first, Some(walk.analysis.start)))?;
    let first_mover = Position::<R>::initial().side_to_move();
    walk.analysis.result_conflict =
        walk.last_main
            .take()
            .and_then(|(fen, side, outcome, rules)| {
                let result = game.result_text()?.trim().to_string();
                let claimed = result_winner(&result, first_mover)?;
                let conflict = ResultConflict {
                    result,
                    claimed,
                    fen,
                    side,
                    outcome,
                    rules,
                };
                (conflict.winner() != claimed).then_some(conflict)
            });
    Ok(walk.analysis)
}

/// `W17`, `D` or `L16`: a verdict as the `[%tb]` command writes it.
pub fn verdict_code(o: Outcome) -> String {
    Verdict::new(o, None).to_string()
}

/// `W31 cursed`: a verdict as the `[%tb]` command writes it, with the word for a result the
/// move-count rules make a draw (`cursed` win, `blessed` loss).
pub fn verdict_with_rules(o: Outcome, rules: Option<RuleCategory>) -> String {
    Verdict::new(o, rules).to_string()
}

/// The result under the rules as a plain result: a cursed win and a blessed loss are draws.
fn rule_wdl(c: RuleCategory) -> Wdl {
    match c {
        RuleCategory::Win => Wdl::Win,
        RuleCategory::Loss => Wdl::Loss,
        _ => Wdl::Draw,
    }
}

/// The note on what a mistake or slow move changed (see [`describe`]).
fn ply_note(ply: &Ply, distances: bool) -> Note {
    let best = ply.best.first().map_or("?", String::as_str).to_string();
    if ply.class == Class::Slower {
        return Note::Slower {
            plies: ply.after.dtw,
            best,
            best_plies: ply.before.dtw,
        };
    }
    let plies = distances.then_some(ply.before.dtw);
    let keeps = match ply.before.wdl {
        Wdl::Win => Some((ply.side, plies)),
        Wdl::Draw => None,
        Wdl::Loss => Some((ply.side.opponent(), plies)),
    };
    let (before, after, by) = match &ply.rules {
        Some(r) => {
            let by_rule = matches!(r.after, RuleCategory::CursedWin | RuleCategory::BlessedLoss);
            let by = (by_rule && !r.count.is_empty()).then(|| r.count.to_string());
            (rule_wdl(r.before), rule_wdl(r.after), by)
        }
        None => (ply.before.wdl, ply.after.wdl, None),
    };
    Note::Mistake(Mistake {
        before,
        after,
        by,
        best,
        keeps,
        shown: false,
    })
}

/// The sentence saying what a mistake or slow move changed: `Win -> Draw. Best was 27-31,
/// White wins in 9 plies.` A result the move-count rules change says by which:
/// `Win -> Draw by the 16-move rule.` The plies are said where `distances` (the tables
/// hold distances to the end: [`Analysis::distances`]).
pub fn describe(ply: &Ply, distances: bool) -> String {
    ply_note(ply, distances).to_string()
}

/// The text of the `Annotator` tag: `damka VERSION`.
pub fn annotator() -> String {
    format!("damka {}", env!("CARGO_PKG_VERSION"))
}

/// `+0.35`, `#7` or `#-6`: the engine's score of a position where `side` is to move, as the
/// `[%eval]` command writes it for PGN tools (lichess, python-chess): from White's view, in
/// men, or for a win the search proved `#N` with N the winner's moves to the end (`#-N` when
/// Black wins).
pub fn eval_code(score: Score, side: Color) -> String {
    EvalScore::new(score, side).to_string()
}

/// The comment of an engine evaluation of a position where `side` is to move:
/// `[%eval +0.35,8] Search: best 11-15.`, or for a win the search proved
/// `[%eval #7,8] Search: White wins in 13 plies, best 11-15.` (the score from White's view
/// as [`eval_code`] writes it, then the depth searched).
pub fn eval_comment(eval: &EngineEval, side: Color) -> String {
    Eval::new(eval, side).to_string()
}

/// Writes an analysis into its game: the `Annotator` tag; before the first move a
/// `[%tb ...]` comment if the start position is in the tables, after each move (main line
/// and variations) one for the position it leads to (the verdict for the side then to move);
/// on each mistake the glyph (strength mark and NAG: `?` `$2`, `??` `$4`), the sentence of
/// [`describe`] and a variation with the perfect-play line; `$7` on only moves; a note on
/// slow wins; after the main line's last move, a note on a result the tables contradict
/// ([`ResultConflict`]). Tags, moves and result are otherwise kept.
///
/// With engine evaluations ([`analyse_game_searched`]), the position before each evaluated
/// move gets an [`eval_comment`] where a `[%tb]` comment would stand: before the first move
/// for the start position, after the move that led to it, after a setup command. The first
/// move of a variation shares the position, and its comment, of the move it replaces.
///
/// `analysis` must be the analysis of this game as it is (see [`analyse_game`]).
pub fn annotate(game: &mut Game, analysis: &Analysis) {
    set_annotator(game);
    let mut by_index: Vec<Option<&Ply>> = vec![None; analysis.before.len()];
    for ply in &analysis.plies {
        if let Some(slot) = by_index.get_mut(ply.index) {
            *slot = Some(ply);
        }
    }
    let mut evals: Vec<Option<&Evaluated>> = vec![None; analysis.before.len()];
    for e in &analysis.evaluated {
        if let Some(slot) = evals.get_mut(e.index) {
            *slot = Some(e);
        }
    }
    let mut stops: Vec<Option<&Stop>> = vec![None; analysis.before.len()];
    for stop in &analysis.stops {
        if let Some(slot) = stops.get_mut(stop.index) {
            *slot = Some(stop);
        }
    }
    let mut marks = Marks {
        analysis,
        plies: &by_index,
        evals: &evals,
        stops: &stops,
    };
    // The evaluation of the start position, if the main line's first move is played there.
    let start_eval = next_eval(Cursor::new(&game.moves, game.start, None), &evals);
    rewrite(&mut game.moves, game.start, None, &mut marks);
    let first = match (analysis.start, start_eval) {
        (Some(o), _) => Some(Annotation::Verdict {
            verdict: Verdict::new(o, analysis.start_rules).with_distance(analysis.distances),
            note: None,
        }),
        (None, Some(e)) => Some(Annotation::Eval {
            eval: Eval::new(&e.eval, e.side),
            note: None,
        }),
        (None, None) => None,
    };
    if let Some(a) = first {
        game.moves.nodes.insert(0, Node::Comment(a.to_string()));
    }
    if let Some(conflict) = &analysis.result_conflict {
        let note = Annotation::ResultConflict {
            text: conflict.to_string(),
        };
        game.moves.nodes.push(Node::Comment(note.to_string()));
    }
}

/// Sets the `Annotator` tag to [`annotator`].
fn set_annotator(game: &mut Game) {
    let value = annotator();
    match game
        .tags
        .iter_mut()
        .find(|t| t.name.eq_ignore_ascii_case("Annotator"))
    {
        Some(t) => t.value = value,
        None => game.tags.push(Tag {
            name: "Annotator".to_string(),
            value,
        }),
    }
}

/// Marks a game that could not be analysed at all (rules damka does not have, a start
/// position that does not set up): the `Annotator` tag, and a first comment
/// `Not analysed: WHY.`, which [`strip_annotations`] takes out again. The game is otherwise
/// kept as it is.
pub fn annotate_unanalysed(game: &mut Game, why: &str) {
    set_annotator(game);
    let note = Annotation::Unanalysed {
        why: why.to_string(),
    };
    game.moves.nodes.insert(0, Node::Comment(note.to_string()));
}

/// What [`annotate`] writes, by move index in tree order.
struct Marks<'a> {
    analysis: &'a Analysis,
    plies: &'a [Option<&'a Ply>],
    evals: &'a [Option<&'a Evaluated>],
    stops: &'a [Option<&'a Stop>],
}

/// The evaluation of the position a line stands at before the next move, setup command or
/// unknown move of `following` (comments and variations passed over), if that is a move with
/// an evaluation.
fn next_eval<'a>(
    mut following: Cursor<'_>,
    evals: &[Option<&'a Evaluated>],
) -> Option<&'a Evaluated> {
    while let Some(step) = following.next() {
        match step {
            Step::Move { at, .. } => return evals.get(at.id).copied().flatten(),
            Step::UnknownMove { .. } | Step::Setup(_) => return None,
            Step::Enter { .. } => {
                following.skip_variation();
            }
            Step::Comment(_) | Step::Leave => {}
        }
    }
    None
}

impl Rewrite for Marks<'_> {
    /// Annotates one node: a move with its glyph, its comment and its best line, a setup
    /// command with the evaluation of the position it sets up.
    fn node(&mut self, node: Node, at: &Context<'_>, out: &mut Vec<Node>) {
        let (mut m, this) = match (node, at.at) {
            (Node::Move(m), Some(at)) => (m, at.id),
            (node @ Node::Setup(_), _) => {
                out.push(node);
                if let Some(e) = next_eval(at.following(), self.evals) {
                    let eval = Eval::new(&e.eval, e.side);
                    let a = Annotation::Eval { eval, note: None };
                    out.push(Node::Comment(a.to_string()));
                }
                return;
            }
            (node, _) => {
                out.push(node);
                return;
            }
        };
        // The evaluation of the position the line stands at after the move.
        let eval_after = next_eval(at.following(), self.evals);
        // The moves of the variations standing right after the move.
        let variations_after: Vec<Vec<String>> = at
            .rest
            .iter()
            .take_while(|node| matches!(node, Node::Variation(_) | Node::Comment(_)))
            .filter_map(|node| match node {
                Node::Variation(v) => Some(v.moves().map(|m| m.text.clone()).collect()),
                _ => None,
            })
            .collect();
        if let Some(stop) = self.stops.get(this).copied().flatten() {
            out.push(Node::Comment(stop.annotation().to_string()));
        }
        let ply = self.plies.get(this).copied().flatten();
        if let Some(ply) = ply {
            mark(&mut m, ply.class);
        }
        out.push(Node::Move(m));
        let next = self.analysis.after.get(this).copied().flatten();
        let next_rules = self.analysis.after_rules.get(this).copied().flatten();
        // A variation of the game that already plays the best line (or the start of it)
        // stands for it.
        let shown = ply.is_some_and(|p| {
            !p.line.is_empty()
                && variations_after
                    .iter()
                    .any(|v| !v.is_empty() && v.iter().zip(&p.line).all(|(a, b)| a == b))
        });
        let note = ply
            .filter(|p| p.class.is_mistake() || p.class == Class::Slower)
            .map(|p| match ply_note(p, self.analysis.distances) {
                Note::Mistake(m) => Note::Mistake(Mistake {
                    shown: shown && p.class.is_mistake(),
                    ..m
                }),
                slower => slower,
            });
        let comment = match (next, eval_after, note) {
            (Some(o), _, note) => Some(Annotation::Verdict {
                verdict: Verdict::new(o, next_rules).with_distance(self.analysis.distances),
                note,
            }),
            (None, Some(e), note) => Some(Annotation::Eval {
                eval: Eval::new(&e.eval, e.side),
                note,
            }),
            (None, None, note) => note.map(Annotation::Note),
        };
        if let Some(c) = comment {
            out.push(Node::Comment(c.to_string()));
        }
        if let Some(ply) = ply.filter(|p| !p.line.is_empty() && !shown) {
            out.push(Node::Variation(variation(ply)));
        }
    }
}

/// What a comment is, if the analyser wrote it: `Some(true)` for a mistake's comment (a best
/// line follows it), `Some(false)` for another [`Annotation`] or an empty comment, `None` for
/// another comment.
fn own_comment(comment: &str) -> Option<bool> {
    if comment.trim().is_empty() {
        return Some(false);
    }
    comment
        .parse::<Annotation>()
        .ok()
        .map(|a| a.has_best_line())
}

/// Removes what an earlier run of the analyser wrote into a game, so that analysing and
/// annotating it again gives the same game: when its `Annotator` tag names damka, the
/// verdict comments (`[%tb ...]`), the engine evaluations (`[%eval ...]`, as
/// [`eval_comment`] writes them), the mistake and slow-win notes, the best-line variation
/// after each mistake note, the glyph of the mistake (`?` `$2`, `??` `$4`), and the notes
/// on moves that do not replay ([`Stop::comment`]), on games not analysed
/// ([`annotate_unanalysed`]) and on results the tables contradict. Other
/// comments, variations and marks are kept. Returns whether the game was annotated by damka.
pub fn strip_annotations(game: &mut Game) -> bool {
    if !game
        .tag("Annotator")
        .is_some_and(|a| a.trim_start().starts_with("damka"))
    {
        return false;
    }
    rewrite(&mut game.moves, game.start, None, &mut Strip::default());
    true
}

/// What [`strip_annotations`] takes out: the analyser's comments, and the best line after a
/// mistake's comment.
#[derive(Default)]
struct Strip {
    /// The depth of the line whose mistake comment was the node just passed: its next node,
    /// if a variation, is the best line.
    best_line_next: Option<usize>,
}

impl Rewrite for Strip {
    fn node(&mut self, node: Node, at: &Context<'_>, out: &mut Vec<Node>) {
        self.best_line_next = None;
        match node {
            Node::Comment(c) => match own_comment(&c) {
                Some(mistake) => {
                    if mistake {
                        self.best_line_next = Some(at.depth);
                        if let Some(Node::Move(m)) = out.last_mut() {
                            if matches!(m.strength.as_deref(), Some("?" | "??")) {
                                m.strength = None;
                            }
                            m.nags.retain(|&n| n != 2 && n != 4);
                        }
                    }
                }
                None => out.push(Node::Comment(c)),
            },
            other => out.push(other),
        }
    }

    fn keep_variation(&mut self, _: &Line, at: &Context<'_>) -> bool {
        self.best_line_next.take() != Some(at.depth)
    }
}

/// Sets the glyph of a classified move, keeping other annotations.
fn mark(m: &mut MoveNode, class: Class) {
    if let Some(s) = class.strength() {
        m.strength = Some(s.to_string());
    }
    if let Some(n) = class.nag() {
        m.nags.retain(|&x| !matches!(x, 1..=7));
        m.nags.push(n);
    }
}

/// The perfect-play variation of a mistake.
fn variation(ply: &Ply) -> Line {
    Line {
        nodes: ply
            .line
            .iter()
            .map(|t| Node::Move(MoveNode::new(t.clone())))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rated(outcomes: &[Outcome]) -> Vec<RatedMove> {
        let pos = Position::<crate::rules::English>::initial();
        let legal = legal_moves(&pos);
        outcomes
            .iter()
            .zip(legal.iter())
            .map(|(o, m)| RatedMove {
                mv: m.clone(),
                outcome: *o,
                dtc: (o.wdl != Wdl::Draw).then_some(1),
            })
            .collect()
    }

    #[test]
    fn classes() {
        let r = rated(&[
            Outcome::win(5),
            Outcome::win(15),
            Outcome::DRAW,
            Outcome::loss(4),
        ]);
        assert_eq!(classify(&r, Outcome::win(5), 4), Class::Keeps);
        assert_eq!(classify(&r, Outcome::win(15), 4), Class::Slower);
        assert_eq!(classify(&r, Outcome::DRAW, 4), Class::WinToDraw);
        assert_eq!(classify(&r, Outcome::loss(4), 4), Class::WinToLoss);
        let r = rated(&[Outcome::DRAW, Outcome::loss(4)]);
        assert_eq!(classify(&r, Outcome::DRAW, 4), Class::Only);
        assert_eq!(classify(&r, Outcome::loss(4), 4), Class::DrawToLoss);
        let r = rated(&[Outcome::DRAW]);
        assert_eq!(classify(&r, Outcome::DRAW, 4), Class::Keeps);
        let r = rated(&[Outcome::loss(3), Outcome::loss(1)]);
        assert_eq!(classify(&r, Outcome::loss(1), 4), Class::Keeps);
    }

    #[test]
    fn descriptions() {
        let mut ply = Ply {
            index: 0,
            depth: 0,
            number: MoveNumber::FIRST,
            side: Color::White,
            played: "19-16".into(),
            fen: String::new(),
            last: None,
            before: Outcome::win(9),
            after: Outcome::DRAW,
            class: Class::WinToDraw,
            best: vec!["27-31".into()],
            line: Vec::new(),
            rules: None,
        };
        assert_eq!(
            describe(&ply, true),
            "Win -> Draw. Best was 27-31, White wins in 9 plies."
        );
        // A win the move-count rules draw after the move says by which count.
        let mut ruled = ply.clone();
        ruled.after = Outcome::win(31);
        ruled.rules = Some(RulePly {
            before: RuleCategory::Win,
            after: RuleCategory::CursedWin,
            count: "16-move rule",
        });
        let text = describe(&ruled, true);
        assert_eq!(
            text,
            "Win -> Draw by the 16-move rule. Best was 27-31, White wins in 9 plies."
        );
        assert_eq!(own_comment(&text), Some(true));
        assert_eq!(own_comment("[%tb W31 cursed]"), Some(false));
        assert_eq!(
            verdict_with_rules(Outcome::loss(30), Some(RuleCategory::BlessedLoss)),
            "L30 blessed"
        );
        ply.after = Outcome::win(21);
        ply.class = Class::Slower;
        assert_eq!(
            describe(&ply, true),
            "Still wins, in 21 plies; best was 27-31, winning in 9."
        );
        let mut m = MoveNode::new("19-16");
        m.nags = vec![1, 14];
        mark(&mut m, Class::WinToLoss);
        assert_eq!((m.strength.as_deref(), m.nags), (Some("??"), vec![14, 4]));
    }

    #[test]
    fn eval_comments_are_written_from_whites_view_and_recognized() {
        let mut eval = EngineEval {
            score: Score(35),
            depth: 8,
            best: "11-15".into(),
            pv: vec!["11-15".into(), "23-19".into()],
        };
        assert_eq!(eval_code(Score(-120), Color::White), "-1.20");
        assert_eq!(eval_code(Score(-120), Color::Black), "+1.20");
        assert_eq!(eval_code(Score(0), Color::Black), "+0.00");
        assert_eq!(
            eval_comment(&eval, Color::White),
            "[%eval +0.35,8] Search: best 11-15."
        );
        assert_eq!(
            eval_comment(&eval, Color::Black),
            "[%eval -0.35,8] Search: best 11-15."
        );
        assert_eq!(own_comment(&eval_comment(&eval, Color::Black)), Some(false));
        // A win in 13 plies is the winner's 7th move; a loss in 12 plies the winner's 6th.
        eval.score = Score(Score::WIN - 13);
        assert_eq!(
            eval_comment(&eval, Color::White),
            "[%eval #7,8] Search: White wins in 13 plies, best 11-15."
        );
        assert_eq!(
            eval_comment(&eval, Color::Black),
            "[%eval #-7,8] Search: Black wins in 13 plies, best 11-15."
        );
        assert_eq!(own_comment(&eval_comment(&eval, Color::Black)), Some(false));
        eval.score = Score(-(Score::WIN - 12));
        assert_eq!(
            eval_comment(&eval, Color::White),
            "[%eval #-6,8] Search: Black wins in 12 plies, best 11-15."
        );
        assert_eq!(
            eval_comment(&eval, Color::Black),
            "[%eval #6,8] Search: White wins in 12 plies, best 11-15."
        );
        assert_eq!(own_comment(&eval_comment(&eval, Color::White)), Some(false));
        for other in [
            "[%eval 0.35]",
            "[%eval +0.35,8]",
            "[%eval +0.35] Search: best 11-15.",
            "[%eval X3,8] Search: best 11-15.",
            "[%eval #x,8] Search: best 11-15.",
            "[%eval +0.35,8] A fine move.",
        ] {
            assert_eq!(own_comment(other), None, "{other}");
        }
    }

    #[test]
    fn stop_and_unanalysed_comments_are_recognized() {
        let stop = Stop {
            index: 3,
            depth: 0,
            number: MoveNumber::FIRST.next(),
            played: "24-21".into(),
            why: "illegal move '24-21' (legal: 22-18)".into(),
        };
        assert_eq!(
            stop.comment(),
            "Not analysed from here: 1... 24-21: illegal move '24-21' (legal: 22-18)."
        );
        assert_eq!(own_comment(&stop.comment()), Some(false));
        let mut game = Game::default();
        annotate_unanalysed(&mut game, "frisian rules are not supported");
        assert_eq!(
            game.moves.nodes,
            vec![Node::Comment(
                "Not analysed: frisian rules are not supported.".into()
            )]
        );
        assert!(strip_annotations(&mut game));
        assert!(game.moves.nodes.is_empty());
        let shown = "Win -> Draw. Best was 28-23, White wins in 9 plies. The variation plays \
                     the best line.";
        assert_eq!(own_comment(shown), Some(false));
        assert_eq!(
            own_comment("Win -> Draw. Best was 28-23, White wins in 9 plies."),
            Some(true)
        );
    }

    #[test]
    fn verdict_codes() {
        assert_eq!(verdict_code(Outcome::win(17)), "W17");
        assert_eq!(verdict_code(Outcome::DRAW), "D");
        assert_eq!(verdict_code(Outcome::loss(4)), "L4");
    }
}
