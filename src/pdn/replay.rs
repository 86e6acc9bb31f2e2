//! Replays a game against the rules: every move of the main line and of every variation must
//! name exactly one legal move.
//!
//! The rules come from the caller, else the GameType tag, else a guess from the squares. The
//! FEN tag gives the start position. A bad move ends the line it is in (the rest of that line
//! and the variations hanging from it are not replayed); the other lines go on. An unknown move
//! `- -` ends its line with a warning; a variation replacing it can still be replayed.

use std::sync::Arc;

use super::cursor::{Cursor, Step};
use super::diagnostic::{
    Diagnostic, ErrorKind, Origin, PdnError, PdnWarning, WarningKind, WarningSet,
};
use super::game::{Game, Node, setup_fen};
use super::gametype::{Ruleset, RulesetSource, game_type_name, guess_variant, parse_game_type};
use super::reader::ReadGame;
use crate::notation::movetext::matching_moves;
use crate::notation::{
    FenError, MoveTextError, full_path_text, move_text, parse_fen, parse_move, parse_square,
    write_fen,
};
use crate::rules::{Color, LegalMove, Position, Rules, Variant, legal_moves};
use crate::with_rules;

/// The outcome of replaying one game.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The rules the game was replayed under.
    pub ruleset: Ruleset,
    /// How they were chosen.
    pub source: RulesetSource,
    /// Moves replayed (main line and variations).
    pub moves: usize,
    /// Moves that could not be replayed, and a start position that could not be set up.
    pub errors: Vec<PdnError>,
    /// What was tolerated.
    pub warnings: Vec<PdnWarning>,
}

/// What [`normalize`](Replayer::normalize) needs from a replay besides the report.
#[derive(Default)]
pub(crate) struct Canonical {
    /// The start position written as FEN, and whether it is the initial position; `None`
    /// when the game has no FEN tag or it could not be read.
    pub(crate) start: Option<(String, bool)>,
    /// Each move's text in the variant's notation, by move id (in tree order, see
    /// [`cursor`](super::cursor)); `None` where not replayed and for unknown moves.
    pub(crate) moves: Vec<Option<String>>,
}

/// Replays the games of one file in order, remembering the variant of the game before (the
/// guess for a game without squares follows it).
///
/// ```
/// use damka::pdn::{Reader, Replayer};
/// let text = "[GameType \"20\"]\n1. 32-28 19-23 2. 28x19 14x23 *";
/// let mut replayer = Replayer::new(None);
/// for game in Reader::new("example.pdn", text.as_bytes()) {
///     let replay = replayer.replay(&game.unwrap());
///     assert_eq!(replay.moves, 4);
///     assert!(replay.errors.is_empty());
/// }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Replayer {
    given: Option<Ruleset>,
    previous: Option<Variant>,
}

impl Replayer {
    /// A replayer using `given` rules for every game, or each game's own when `None`.
    pub fn new(given: Option<Ruleset>) -> Self {
        Replayer {
            given,
            previous: None,
        }
    }

    /// Replays a game.
    pub fn replay(&mut self, read: &ReadGame) -> Replay {
        self.run(&read.game, &read.origin, false).0
    }

    /// Replays a game; with `collect`, also writes each move in the variant's notation.
    pub(crate) fn run(
        &mut self,
        game: &Game,
        origin: &Arc<Origin>,
        collect: bool,
    ) -> (Replay, Canonical) {
        let mut warnings = WarningSet::default();
        let (ruleset, source) = self.resolve(game, &mut warnings);
        let mut walk = Walk {
            collect,
            canonical: Canonical::default(),
            moves: 0,
            skipped: 0,
            errors: Vec::new(),
            warnings,
        };
        match ruleset {
            Ruleset::Supported(v) => {
                self.previous = Some(v);
                with_rules!(v, R => walk.game::<R>(game));
            }
            Ruleset::Unsupported(number) => {
                walk.warnings.push(WarningKind::UnsupportedRules {
                    number,
                    name: game_type_name(number),
                });
            }
        }
        if walk.skipped > 0 {
            walk.warnings.push(WarningKind::NotReplayed {
                moves: walk.skipped,
            });
        }
        if let (RulesetSource::Guessed(_), Ruleset::Supported(variant)) = (source, ruleset)
            && !walk.errors.is_empty()
        {
            walk.warnings.push(WarningKind::GuessMisfits { variant });
        }
        let errors = walk
            .errors
            .into_iter()
            .map(|kind| Diagnostic {
                origin: Arc::clone(origin),
                kind,
                repeats: 0,
            })
            .collect();
        let replay = Replay {
            ruleset,
            source,
            moves: walk.moves,
            errors,
            warnings: walk.warnings.located(origin),
        };
        (replay, walk.canonical)
    }

    fn resolve(&self, game: &Game, warnings: &mut WarningSet) -> (Ruleset, RulesetSource) {
        let tag = game.tag("GameType").filter(|v| !v.is_empty());
        if let Some(given) = self.given {
            if let Some(value) = tag
                && parse_game_type(value).map(|g| g.ruleset) != Some(given)
            {
                warnings.push(WarningKind::GameTypeOverridden {
                    value: value.to_string(),
                    used: given.to_string(),
                });
            }
            return (given, RulesetSource::Given);
        }
        if let Some(value) = tag {
            match parse_game_type(value) {
                Some(gt) => {
                    if let Some(standard) = gt.non_standard {
                        warnings.push(WarningKind::NonStandardGameType {
                            value: value.to_string(),
                            standard,
                        });
                    }
                    return (gt.ruleset, RulesetSource::GameType);
                }
                None => warnings.push(WarningKind::BadGameType {
                    value: value.to_string(),
                }),
            }
        }
        let (variant, reason) = guess(game, self.previous);
        warnings.push(WarningKind::GuessedVariant { variant, reason });
        (Ruleset::Supported(variant), RulesetSource::Guessed(reason))
    }
}

/// The variant the squares point to, or another they fit when the game's start position or
/// first move is legal only there.
fn guess(game: &Game, previous: Option<Variant>) -> (Variant, &'static str) {
    let guess = guess_variant(game, previous);
    let fits = |v: Variant| with_rules!(v, R => fits::<R>(game));
    if guess.alternatives.is_empty() || fits(guess.variant) {
        return (guess.variant, guess.reason);
    }
    match guess
        .alternatives
        .iter()
        .find(|&&v| v != guess.variant && fits(v))
    {
        Some(&v) => (v, "the start position and first move fit only this variant"),
        None => (guess.variant, guess.reason),
    }
}

/// Whether a game's start position and first move are legal in variant `R`.
fn fits<R: Rules>(game: &Game) -> bool {
    start::<R>(game, &mut WarningSet::default()).is_ok_and(|pos| {
        game.moves
            .moves()
            .next()
            .is_none_or(|m| parse_move(R::VARIANT, &legal_moves(&pos), &m.text).is_ok())
    })
}

/// The start position of a game: its FEN tag, else the initial position.
fn start<R: Rules>(game: &Game, warnings: &mut WarningSet) -> Result<Position<R>, ErrorKind> {
    match game.tag("FEN").map(str::trim).filter(|f| !f.is_empty()) {
        None => Ok(Position::initial()),
        Some(fen) => {
            let first = game.moves.moves().next().map(|m| m.text.as_str());
            read_fen::<R>(fen, first, warnings).map_err(|error| ErrorKind::BadFen {
                fen: fen.to_string(),
                error,
            })
        }
    }
}

/// Reads a FEN liberally: a side to move `?` is the side whose move the first move of the
/// game is (the side that moves first in the variant when that does not decide), and a man on
/// its promotion row is read as a king.
fn read_fen<R: Rules>(
    fen: &str,
    first_move: Option<&str>,
    warnings: &mut WarningSet,
) -> Result<Position<R>, FenError> {
    let mut text = fen.trim().trim_end_matches('.').to_string();
    let unknown_side = text.starts_with('?');
    if unknown_side {
        text.replace_range(..1, "W");
    }
    let mut crowned = Vec::new();
    let pos = loop {
        match parse_fen::<R>(&text) {
            Err(FenError::ManOnPromotionRow(color, square)) => {
                match crown(R::VARIANT, &text, color, &square) {
                    Some(t) => {
                        text = t;
                        crowned.push(square);
                    }
                    None => return Err(FenError::ManOnPromotionRow(color, square)),
                }
            }
            other => break other?,
        }
    };
    for square in crowned {
        warnings.push(WarningKind::ManOnPromotionRow { square });
    }
    if !unknown_side {
        return Ok(pos);
    }
    let fits = |p: &Position<R>| {
        first_move.is_some_and(|m| parse_move(R::VARIANT, &legal_moves(p), m).is_ok())
    };
    let first = pos.with_side_to_move(R::FIRST);
    let second = pos.with_side_to_move(R::FIRST.opponent());
    let (side, pos) = if !fits(&first) && fits(&second) {
        (R::FIRST.opponent(), second)
    } else {
        (R::FIRST, first)
    };
    warnings.push(WarningKind::FenSideUnknown { chosen: side });
    Ok(pos)
}

/// The FEN with the man of `color` on `square` made a king (`None` if it is not listed singly).
fn crown(variant: Variant, fen: &str, color: Color, square: &str) -> Option<String> {
    let target = parse_square(variant, square).ok()?;
    let letter = if color == Color::White { 'W' } else { 'B' };
    let mut changed = false;
    let fields: Vec<String> = fen
        .split(':')
        .enumerate()
        .map(|(i, field)| {
            let f = field.trim();
            if i == 0 || changed || !f.starts_with([letter, letter.to_ascii_lowercase()]) {
                return field.to_string();
            }
            let items: Vec<String> = f[1..]
                .split(',')
                .map(|item| {
                    let item = item.trim();
                    if !changed && parse_square(variant, item) == Ok(target) {
                        changed = true;
                        format!("K{item}")
                    } else {
                        item.to_string()
                    }
                })
                .collect();
            format!("{}{}", &f[..1], items.join(","))
        })
        .collect();
    changed.then(|| fields.join(":"))
}

/// How many moves of a line ([`Node`]s after a move) replay from `pos`, up to [`LOOK_AHEAD`]:
/// what tells the readings of an ambiguous move apart.
const LOOK_AHEAD: usize = 40;

/// The readings of an ambiguous move written in full, and whether the moves after it
/// decided between them.
type Readings = (Vec<String>, bool);

/// The legal move a move text names. A text naming several (a capture written by its ends
/// when two paths lead there) is read as the one that the moves after it (`rest`, the nodes
/// that follow it in its line) replay furthest from, the first in notation order when they
/// replay as far from several; the readings are then given, and whether the following moves
/// decided.
fn read_move<'a, R: Rules>(
    pos: &Position<R>,
    legal: &'a [LegalMove],
    text: &str,
    rest: &[Node],
) -> Result<(&'a LegalMove, Option<Readings>), MoveTextError> {
    let found = matching_moves(R::VARIANT, legal, text)?;
    if let [one] = found.as_slice() {
        return Ok((one, None));
    }
    let reach: Vec<usize> = found
        .iter()
        .map(|m| replays_after(pos.play(&m.mv), rest))
        .collect();
    let best = reach.iter().copied().max().unwrap_or(0);
    let at = reach.iter().position(|&r| r == best).unwrap_or(0);
    let decided = reach.iter().filter(|&&r| r == best).count() == 1;
    let readings = found
        .iter()
        .map(|m| full_path_text(R::VARIANT, m))
        .collect();
    Ok((found[at], Some((readings, decided))))
}

/// How many of the moves in `rest` replay one after the other from `pos` (comments and
/// variations passed over; an unknown move or a setup command ends the count), at most
/// [`LOOK_AHEAD`].
fn replays_after<R: Rules>(mut pos: Position<R>, rest: &[Node]) -> usize {
    let mut n = 0;
    for node in rest {
        match node {
            Node::Move(m) => {
                let legal = legal_moves(&pos);
                match matching_moves(R::VARIANT, &legal, &m.text) {
                    Ok(found) => pos = pos.play(&found[0].mv),
                    Err(_) => break,
                }
                n += 1;
                if n == LOOK_AHEAD {
                    break;
                }
            }
            Node::Comment(_) | Node::Variation(_) => {}
            Node::UnknownMove | Node::Setup(_) => break,
        }
    }
    n
}

/// The state of one game's replay.
struct Walk {
    collect: bool,
    canonical: Canonical,
    moves: usize,
    skipped: usize,
    errors: Vec<ErrorKind>,
    warnings: WarningSet,
}

impl Walk {
    fn game<R: Rules>(&mut self, game: &Game) {
        match start::<R>(game, &mut self.warnings) {
            Ok(pos) => {
                if game.tag("FEN").is_some_and(|f| !f.trim().is_empty()) {
                    self.canonical.start = Some((write_fen(&pos), pos == Position::<R>::initial()));
                }
                self.moves::<R>(game, pos);
            }
            Err(e) => {
                self.errors.push(e);
                self.skipped += game.moves.move_count();
                if self.collect {
                    let ids = Cursor::new(&game.moves, game.start, None)
                        .filter(|s| matches!(s, Step::Move { .. } | Step::UnknownMove { .. }))
                        .count();
                    self.canonical.moves = vec![None; ids];
                }
            }
        }
    }

    /// Notes the text of the move with the next id (`None`: not replayed, or not recorded).
    fn collect(&mut self, text: Option<String>) {
        if self.collect {
            self.canonical.moves.push(text);
        }
    }

    /// Replays the moves of a game from `start`: each line from the position before the move
    /// it replaces, to its end or to a move that does not replay (the variations of that move
    /// are replayed).
    fn moves<R: Rules>(&mut self, game: &Game, start: Position<R>) {
        let variant = R::VARIANT;
        let mut cursor =
            Cursor::with_place(&game.moves, game.start, Some(start.side_to_move()), start);
        while let Some(step) = cursor.next() {
            match step {
                Step::Move { at, node: m, rest } => {
                    let number = at.number;
                    let Some(&p) = cursor.before() else {
                        self.skipped += 1;
                        self.collect(None);
                        continue;
                    };
                    let legal = legal_moves(&p);
                    match read_move(&p, &legal, &m.text, rest) {
                        Ok((found, ambiguity)) => {
                            if let Some((readings, decided)) = ambiguity {
                                self.warnings.push(WarningKind::AmbiguousMove {
                                    number,
                                    text: m.text.clone(),
                                    readings,
                                    chosen: full_path_text(variant, found),
                                    decided,
                                });
                            }
                            if !found.mv.is_capture() && m.text.contains(['x', ':']) {
                                self.warnings.push(WarningKind::CaptureMarkOnQuietMove {
                                    text: m.text.clone(),
                                });
                            }
                            if self.collect {
                                let index = legal
                                    .iter()
                                    .position(|l| std::ptr::eq(l, found))
                                    .unwrap_or(0);
                                self.collect(Some(move_text(variant, &legal, index)));
                            }
                            self.moves += 1;
                            cursor.set_place(Some(p.play(&found.mv)));
                        }
                        Err(error) => {
                            self.errors.push(ErrorKind::Move {
                                number,
                                error,
                                fen: write_fen(&p),
                            });
                            self.collect(None);
                        }
                    }
                }
                Step::UnknownMove { at } => {
                    if cursor.before().is_some() {
                        self.warnings
                            .push(WarningKind::UnknownMove { number: at.number });
                    }
                    self.collect(None);
                }
                Step::Enter { variation, .. } => {
                    if cursor.place().is_none() {
                        self.skipped += variation.move_count();
                        let ids = cursor.skip_variation();
                        if self.collect {
                            self.canonical.moves.extend(std::iter::repeat_n(None, ids));
                        }
                    }
                }
                Step::Setup(command) => match parse_fen::<R>(setup_fen(command)) {
                    Ok(p) => cursor.set_place(Some(p)),
                    Err(e) => self.errors.push(ErrorKind::BadSetup {
                        text: command.to_string(),
                        reason: e.to_string(),
                    }),
                },
                Step::Comment(_) | Step::Leave => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdn::Reader;

    fn replay_text(text: &str, given: Option<Ruleset>) -> Vec<Replay> {
        let mut replayer = Replayer::new(given);
        Reader::new("t.pdn", text.as_bytes())
            .map(|g| replayer.replay(&g.expect("readable")))
            .collect()
    }

    #[test]
    fn variations_replace_the_last_move() {
        let r = replay_text(
            "[GameType \"20\"] 32-28 19-23 (18-23 38-32 (37-32? 23-29! {x}) 12-18) 28x19 14x23 *",
            None,
        );
        assert_eq!(r[0].moves, 9);
        assert!(r[0].errors.is_empty(), "{:?}", r[0].errors);
    }

    #[test]
    fn an_error_ends_its_line_only() {
        let r = replay_text("[GameType \"21\"] 11-15 (11-16 24-21 9-14) 23-19 *", None);
        assert_eq!(r[0].moves, 3);
        assert_eq!(r[0].errors.len(), 1);
        let message = r[0].errors[0].to_string();
        assert!(
            message.contains("move 1... illegal move '24-21'"),
            "{message}"
        );
        assert!(message.contains("t.pdn, game 1"), "{message}");
    }

    #[test]
    fn unknown_side_to_move_follows_the_first_move() {
        let r = replay_text(
            "[FEN \"?:W31:B10\"] 10-14 *",
            Some(Ruleset::Supported(Variant::English)),
        );
        assert!(r[0].errors.is_empty());
        assert!(r[0].warnings.iter().any(|w| w.kind
            == WarningKind::FenSideUnknown {
                chosen: Color::Black
            }));
        let r = replay_text(
            "[FEN \"?:W31:B10\"] 31-27 *",
            Some(Ruleset::Supported(Variant::English)),
        );
        assert!(r[0].errors.is_empty());
    }

    /// The corpus's "Paisley Pickle Barrel" position: Black's 10x26 takes 14 and 22 by
    /// 10x17x26, or 15 and 23 by 10x19x26.
    const TWO_PATHS: &str = "B:W14,15,18,21,22,23,30:B6,7,8,10,12,13";

    fn ambiguity(replay: &Replay) -> Option<(String, bool)> {
        replay.warnings.iter().find_map(|w| match &w.kind {
            WarningKind::AmbiguousMove {
                readings,
                chosen,
                decided,
                ..
            } => {
                assert_eq!(readings, &["10x17x26", "10x19x26"]);
                Some((chosen.clone(), *decided))
            }
            _ => None,
        })
    }

    #[test]
    fn an_ambiguous_move_is_read_as_the_moves_after_it_fit() {
        use crate::rules::English;
        let pos = parse_fen::<English>(TWO_PATHS).unwrap();
        let legal = legal_moves(&pos);
        let readings = matching_moves(Variant::English, &legal, "10x26").unwrap();
        assert_eq!(readings.len(), 2);
        for (i, reading) in readings.iter().enumerate() {
            // A reply legal after this reading and not after the other.
            let after = pos.play(&reading.mv);
            let other = legal_moves(&pos.play(&readings[1 - i].mv));
            let replies = legal_moves(&after);
            let reply = (0..replies.len())
                .map(|j| move_text(Variant::English, &replies, j))
                .find(|text| parse_move(Variant::English, &other, text).is_err())
                .expect("a reply that tells the readings apart");
            let r = replay_text(
                &format!("[GameType \"21\"] [FEN \"{TWO_PATHS}\"] 1... 10x26 2. {reply} *"),
                None,
            );
            assert!(r[0].errors.is_empty(), "{:?}", r[0].errors);
            assert_eq!(r[0].moves, 2);
            let chosen = full_path_text(Variant::English, reading);
            assert_eq!(ambiguity(&r[0]), Some((chosen, true)), "after {reply}");
        }
    }

    #[test]
    fn an_ambiguous_last_move_is_a_warning_naming_both_readings() {
        let r = replay_text(
            &format!("[GameType \"21\"] [FEN \"{TWO_PATHS}\"] 1... 10x26 1-0"),
            None,
        );
        assert!(r[0].errors.is_empty(), "{:?}", r[0].errors);
        assert_eq!(r[0].moves, 1);
        assert_eq!(ambiguity(&r[0]), Some(("10x17x26".to_string(), false)));
        let text = r[0]
            .warnings
            .iter()
            .find(|w| matches!(w.kind, WarningKind::AmbiguousMove { .. }))
            .expect("the warning")
            .kind
            .to_string();
        assert!(
            text.contains("'10x26' could be 10x17x26 or 10x19x26")
                && text.contains("read as 10x17x26"),
            "{text}"
        );
    }

    #[test]
    fn setup_command_sets_the_position() {
        let r = replay_text(
            "[GameType \"21\"] 11-15 /FEN \"W:W31:B10\"/ 31-27 10-14 *",
            None,
        );
        assert_eq!(r[0].moves, 3);
        assert!(r[0].errors.is_empty());
        assert_eq!(setup_fen("FEN \"W:W31:B10\""), "W:W31:B10");
    }
}
