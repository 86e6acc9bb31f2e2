//! The analyser: replays games and compares each move played from a position in the endgame
//! tables with perfect play.
//!
//! [`analyse_game`] walks a normalized game (see
//! [`Replayer::normalize`](crate::pdn::Replayer::normalize)), main line and variations, looks
//! up every position the tables hold, and classifies each move played from one ([`Class`]).
//! [`annotate`] writes the verdicts into the game as comments, glyphs and perfect-play
//! variations; [`strip_annotations`] takes them out again, so that an annotated file can be
//! analysed again with the same result. [`game_json`] gives the analysis as JSON and
//! [`html::page`] as a web page with board diagrams ([`svg::diagram`]).

pub mod html;
mod json;
pub mod svg;

pub use json::{game_json, json_string};

use crate::notation::{move_text, parse_fen, parse_move, write_fen};
use crate::pdn::{Game, Line, MoveNode, MoveNumber, Node, Tag, setup_fen};
use crate::rules::{Color, LegalMove, Position, Rules, Square, legal_moves};
use crate::tablebase::{Outcome, ProbeError, RatedMove, TableError, Tablebase, Wdl};

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
    /// [`LINE_PLIES`] plies or the end of the game); empty otherwise.
    pub line: Vec<String>,
}

/// The analysis of one game: its main line and its variations.
///
/// The moves of a game are counted in tree order: the main line's moves in order, each
/// variation's moves where the variation stands (depth first), unknown moves `- -` counted
/// too. This is the order [`Replayer`](crate::pdn::Replayer) replays them in.
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
    /// The moves played from table positions, in tree order.
    pub plies: Vec<Ply>,
}

impl Analysis {
    /// Whether the game reached a position in the tables.
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
}

/// Why a game could not be analysed.
#[derive(Debug)]
pub enum AnalyseError {
    /// The start position or a move did not replay (the game was not normalized cleanly).
    Replay(String),
    /// A table was there but could not be used.
    Probe(ProbeError),
}

impl std::fmt::Display for AnalyseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnalyseError::Replay(why) => write!(f, "cannot replay: {why}"),
            AnalyseError::Probe(e) => write!(f, "table error: {e}"),
        }
    }
}

impl std::error::Error for AnalyseError {}

/// The outcome of `pos`, or `None` when the tables do not hold it.
fn lookup<R: Rules>(tb: &Tablebase, pos: &Position<R>) -> Result<Option<Outcome>, AnalyseError> {
    match tb.probe_dtw(pos) {
        Ok(o) => Ok(Some(o)),
        Err(ProbeError::Table(TableError::Missing(_)) | ProbeError::NotCovered(_)) => Ok(None),
        Err(e) => Err(AnalyseError::Probe(e)),
    }
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
    let mut pos = *pos;
    let mut line = Vec::new();
    while line.len() < plies {
        let rated = tb.rated_moves(&pos)?;
        let Some(first) = rated.first() else { break };
        line.push(rated_texts::<R>(&rated).swap_remove(0));
        pos = pos.play(&first.mv.mv);
    }
    Ok(line)
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

/// The start position of a normalized game: its FEN tag, else the initial position.
fn start<R: Rules>(game: &Game) -> Result<Position<R>, AnalyseError> {
    match game.tag("FEN").map(str::trim).filter(|f| !f.is_empty()) {
        None => Ok(Position::initial()),
        Some(fen) => parse_fen::<R>(fen).map_err(|e| AnalyseError::Replay(format!("FEN: {e}"))),
    }
}

/// The number of moves of a line and its variations, unknown moves counted.
fn tree_moves(line: &Line) -> usize {
    line.nodes
        .iter()
        .map(|n| match n {
            Node::Move(_) | Node::UnknownMove => 1,
            Node::Variation(v) => tree_moves(v),
            Node::Comment(_) | Node::Setup(_) => 0,
        })
        .sum()
}

/// Where a line of play stands: the position (unknown after `- -` or a bad setup), its
/// verdict when already looked up, the side to move, the move number, and the squares of the
/// move that led to it.
#[derive(Clone, Copy)]
struct Place<R: Rules> {
    pos: Option<Position<R>>,
    known: Option<Option<Outcome>>,
    to_move: Option<Color>,
    number: MoveNumber,
    last: Option<(Square, Square)>,
}

/// One game's analysis in progress.
struct Walk<'a> {
    tb: &'a Tablebase,
    margin: u16,
    analysis: Analysis,
}

impl Walk<'_> {
    fn skip(&mut self, moves: usize) {
        self.analysis
            .before
            .extend(std::iter::repeat_n(None, moves));
        self.analysis.after.extend(std::iter::repeat_n(None, moves));
    }

    /// Analyses a line from `place`, and its variations, at `depth`.
    fn line<R: Rules>(
        &mut self,
        line: &Line,
        mut place: Place<R>,
        depth: usize,
    ) -> Result<(), AnalyseError> {
        // Where the line stood before its last move: a variation starts there.
        let mut before: Option<Place<R>> = None;
        for node in &line.nodes {
            match node {
                Node::Move(m) => {
                    before = Some(place);
                    let Some(p) = place.pos else {
                        self.skip(1);
                        place.to_move = place.to_move.map(Color::opponent);
                        place.number = place.number.next();
                        continue;
                    };
                    place = self.play(&p, &place, &m.text, depth)?;
                }
                Node::UnknownMove => {
                    before = Some(place);
                    self.skip(1);
                    place = Place {
                        pos: None,
                        known: None,
                        to_move: place.to_move.map(Color::opponent),
                        number: place.number.next(),
                        last: None,
                    };
                }
                Node::Variation(v) => match before {
                    Some(b) if b.pos.is_some() => self.line(v, b, depth + 1)?,
                    _ => self.skip(tree_moves(v)),
                },
                Node::Setup(command) => {
                    before = None;
                    let fen = setup_fen(command);
                    let p = parse_fen::<R>(fen)
                        .map_err(|e| AnalyseError::Replay(format!("setup {fen}: {e}")))?;
                    place = Place {
                        pos: Some(p),
                        known: None,
                        to_move: Some(p.side_to_move()),
                        number: place
                            .number
                            .after_setup(place.to_move, Some(p.side_to_move())),
                        last: None,
                    };
                }
                Node::Comment(_) => {}
            }
        }
        Ok(())
    }

    /// Plays the move `text` from `p`, recording its verdicts and, from a table position, its
    /// classification. Returns where the line stands after it.
    fn play<R: Rules>(
        &mut self,
        p: &Position<R>,
        place: &Place<R>,
        text: &str,
        depth: usize,
    ) -> Result<Place<R>, AnalyseError> {
        let number = place.number;
        let legal = legal_moves(p);
        let found = parse_move(R::VARIANT, &legal, text)
            .map_err(|e| AnalyseError::Replay(format!("move {number} {text}: {e}")))?;
        let verdict = match place.known {
            Some(v) => v,
            None => lookup(self.tb, p)?,
        };
        let index = self.analysis.before.len();
        self.analysis.before.push(verdict);
        if let Some(before) = verdict {
            if depth == 0 && self.analysis.first.is_none() {
                self.analysis.first = Some((write_fen(p), p.side_to_move(), before));
            }
            let rated = self.tb.rated_moves(p).map_err(AnalyseError::Probe)?;
            let texts = rated_texts::<R>(&rated);
            let at = rated
                .iter()
                .position(|r| r.mv.mv == found.mv)
                .ok_or_else(|| AnalyseError::Replay(format!("move {number} not rated")))?;
            let after = rated[at].outcome;
            let class = classify(&rated, after, self.margin);
            let best = rated
                .iter()
                .zip(&texts)
                .take_while(|(r, _)| r.outcome == rated[0].outcome)
                .map(|(_, t)| t.clone())
                .collect();
            let line = if class.is_mistake() {
                best_line(self.tb, p, LINE_PLIES).map_err(AnalyseError::Probe)?
            } else {
                Vec::new()
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
            });
        }
        let next = p.play(&found.mv);
        let verdict = lookup(self.tb, &next)?;
        self.analysis.after.push(verdict);
        Ok(Place {
            pos: Some(next),
            known: Some(verdict),
            to_move: Some(next.side_to_move()),
            number: number.next(),
            last: Some((found.mv.from(), found.mv.to())),
        })
    }
}

/// Analyses a normalized game under the rules `R`, main line and variations, using a margin
/// of `margin` plies for slower wins.
///
/// Positions outside the tables (a slice file missing, too many pieces) get no verdict. A line
/// cannot be followed past an unknown move (`- -`); a setup command sets the position; a
/// variation replaces the move before it. Run [`strip_annotations`] first on a game the
/// analyser may have annotated before, so that its best lines are not taken for moves played.
pub fn analyse_game<R: Rules>(
    tb: &Tablebase,
    game: &Game,
    margin: u16,
) -> Result<Analysis, AnalyseError> {
    let first = start::<R>(game)?;
    let mut walk = Walk {
        tb,
        margin,
        analysis: Analysis::default(),
    };
    walk.analysis.start = lookup(tb, &first)?;
    let place = Place {
        pos: Some(first),
        known: Some(walk.analysis.start),
        to_move: Some(first.side_to_move()),
        number: game.start,
        last: None,
    };
    walk.line(&game.moves, place, 0)?;
    Ok(walk.analysis)
}

/// `W17`, `D` or `L16`: a verdict as the `[%tb]` command writes it.
pub fn verdict_code(o: Outcome) -> String {
    match o.wdl {
        Wdl::Win => format!("W{}", o.dtw),
        Wdl::Draw => "D".to_string(),
        Wdl::Loss => format!("L{}", o.dtw),
    }
}

fn capitalized(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn wdl_word(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "Win",
        Wdl::Draw => "Draw",
        Wdl::Loss => "Loss",
    }
}

/// The sentence saying what a mistake or slow move changed: `Win -> Draw. Best was 27-31,
/// White wins in 9 plies.`
pub fn describe(ply: &Ply) -> String {
    let best = ply.best.first().map_or("?", String::as_str);
    let outcome = match ply.before.wdl {
        Wdl::Win => format!("{} wins in {} plies", capitalized(ply.side), ply.before.dtw),
        Wdl::Draw => "a draw".to_string(),
        Wdl::Loss => format!(
            "{} wins in {} plies",
            capitalized(ply.side.opponent()),
            ply.before.dtw
        ),
    };
    if ply.class == Class::Slower {
        return format!(
            "Still wins, in {} plies; best was {best}, winning in {}.",
            ply.after.dtw, ply.before.dtw
        );
    }
    format!(
        "{} -> {}. Best was {best}, {outcome}.",
        wdl_word(ply.before.wdl),
        wdl_word(ply.after.wdl)
    )
}

/// The text of the `Annotator` tag: `damka VERSION`.
pub fn annotator() -> String {
    format!("damka {}", env!("CARGO_PKG_VERSION"))
}

/// Writes an analysis into its game: the `Annotator` tag; before the first move a
/// `[%tb ...]` comment if the start position is in the tables, after each move (main line
/// and variations) one for the position it leads to (the verdict for the side then to move);
/// on each mistake the glyph (strength mark and NAG: `?` `$2`, `??` `$4`), the sentence of
/// [`describe`] and a variation with the perfect-play line; `$7` on only moves; a note on
/// slow wins. Tags, moves and result are otherwise kept.
///
/// `analysis` must be the analysis of this game as it is (see [`analyse_game`]).
pub fn annotate(game: &mut Game, analysis: &Analysis) {
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
    let mut by_index: Vec<Option<&Ply>> = vec![None; analysis.before.len()];
    for ply in &analysis.plies {
        if let Some(slot) = by_index.get_mut(ply.index) {
            *slot = Some(ply);
        }
    }
    let mut index = 0;
    annotate_line(&mut game.moves, analysis, &by_index, &mut index);
    if let Some(o) = analysis.start {
        game.moves
            .nodes
            .insert(0, Node::Comment(format!("[%tb {}]", verdict_code(o))));
    }
}

/// Annotates one line and its variations; `index` counts the moves in tree order.
fn annotate_line(line: &mut Line, analysis: &Analysis, plies: &[Option<&Ply>], index: &mut usize) {
    let old = std::mem::take(&mut line.nodes);
    let mut nodes = Vec::with_capacity(old.len() * 2);
    for node in old {
        let mut m = match node {
            Node::Move(m) => m,
            Node::UnknownMove => {
                *index += 1;
                nodes.push(node);
                continue;
            }
            Node::Variation(mut v) => {
                annotate_line(&mut v, analysis, plies, index);
                nodes.push(Node::Variation(v));
                continue;
            }
            Node::Comment(_) | Node::Setup(_) => {
                nodes.push(node);
                continue;
            }
        };
        let this = *index;
        *index += 1;
        let ply = plies.get(this).copied().flatten();
        if let Some(ply) = ply {
            mark(&mut m, ply.class);
        }
        nodes.push(Node::Move(m));
        let next = analysis.after.get(this).copied().flatten();
        let mut comment = next.map(|o| format!("[%tb {}]", verdict_code(o)));
        if let Some(ply) = ply.filter(|p| p.class.is_mistake() || p.class == Class::Slower) {
            let text = describe(ply);
            comment = Some(match comment {
                Some(c) => format!("{c} {text}"),
                None => text,
            });
        }
        if let Some(c) = comment {
            nodes.push(Node::Comment(c));
        }
        if let Some(ply) = ply.filter(|p| !p.line.is_empty()) {
            nodes.push(Node::Variation(variation(ply)));
        }
    }
    line.nodes = nodes;
}

/// What a comment is, if the analyser wrote it: `Some(true)` for a mistake's comment (a best
/// line follows it), `Some(false)` for a verdict or a slow-win note, `None` for another
/// comment.
fn own_comment(comment: &str) -> Option<bool> {
    let rest = match comment.strip_prefix("[%tb ") {
        Some(r) => {
            let end = r.find(']')?;
            let code = &r[..end];
            let valid = code == "D"
                || (code.len() > 1
                    && code.starts_with(['W', 'L'])
                    && code[1..].bytes().all(|b| b.is_ascii_digit()));
            if !valid {
                return None;
            }
            r[end + 1..].trim()
        }
        None => comment.trim(),
    };
    if rest.is_empty() || (rest.starts_with("Still wins, in ") && rest.contains("; best was ")) {
        Some(false)
    } else if ["Win -> Draw. ", "Win -> Loss. ", "Draw -> Loss. "]
        .iter()
        .any(|p| rest.starts_with(p) && rest[p.len()..].starts_with("Best was "))
    {
        Some(true)
    } else {
        None
    }
}

/// Removes what an earlier run of the analyser wrote into a game, so that analysing and
/// annotating it again gives the same game: when its `Annotator` tag names damka, the
/// verdict comments (`[%tb ...]`), the mistake and slow-win notes, the best-line variation
/// after each mistake note, and the glyph of the mistake (`?` `$2`, `??` `$4`). Other
/// comments, variations and marks are kept. Returns whether the game was annotated by damka.
pub fn strip_annotations(game: &mut Game) -> bool {
    if !game
        .tag("Annotator")
        .is_some_and(|a| a.trim_start().starts_with("damka"))
    {
        return false;
    }
    strip_line(&mut game.moves);
    true
}

fn strip_line(line: &mut Line) {
    let old = std::mem::take(&mut line.nodes);
    let mut best_line_next = false;
    for node in old {
        let follows_mistake = std::mem::take(&mut best_line_next);
        match node {
            Node::Comment(c) => match own_comment(&c) {
                Some(mistake) => {
                    if mistake {
                        best_line_next = true;
                        if let Some(Node::Move(m)) = line.nodes.last_mut() {
                            if matches!(m.strength.as_deref(), Some("?" | "??")) {
                                m.strength = None;
                            }
                            m.nags.retain(|&n| n != 2 && n != 4);
                        }
                    }
                }
                None => line.nodes.push(Node::Comment(c)),
            },
            Node::Variation(_) if follows_mistake => {}
            Node::Variation(mut v) => {
                strip_line(&mut v);
                line.nodes.push(Node::Variation(v));
            }
            other => line.nodes.push(other),
        }
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
        };
        assert_eq!(
            describe(&ply),
            "Win -> Draw. Best was 27-31, White wins in 9 plies."
        );
        ply.after = Outcome::win(21);
        ply.class = Class::Slower;
        assert_eq!(
            describe(&ply),
            "Still wins, in 21 plies; best was 27-31, winning in 9."
        );
        let mut m = MoveNode::new("19-16");
        m.nags = vec![1, 14];
        mark(&mut m, Class::WinToLoss);
        assert_eq!((m.strength.as_deref(), m.nags), (Some("??"), vec![14, 4]));
    }

    #[test]
    fn verdict_codes() {
        assert_eq!(verdict_code(Outcome::win(17)), "W17");
        assert_eq!(verdict_code(Outcome::DRAW), "D");
        assert_eq!(verdict_code(Outcome::loss(4)), "L4");
    }
}
