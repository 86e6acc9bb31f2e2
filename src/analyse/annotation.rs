//! The comments the analyser writes into a game, as types: each renders as its comment text
//! ([`Display`](fmt::Display)) and is recognised from it again ([`FromStr`]), so that
//! [`strip_annotations`](super::strip_annotations) takes out what the analyser wrote and
//! nothing else.
//!
//! ```
//! use damka::analyse::annotation::{Annotation, Verdict};
//! use damka::tablebase::Outcome;
//! let a = Annotation::Verdict { verdict: Verdict::new(Outcome::win(17), None), note: None };
//! assert_eq!(a.to_string(), "[%tb W17]");
//! assert_eq!("[%tb W17]".parse::<Annotation>(), Ok(a));
//! assert!("[%clock w0:49:11]".parse::<Annotation>().is_err());
//! ```

use std::fmt;
use std::str::FromStr;

use crate::pdn::MoveNumber;
use crate::rules::Color;
use crate::search::Score;
use crate::tablebase::{Outcome, RuleCategory, Wdl};

/// How a stop note starts ([`Annotation::Stop`]).
const STOP_PREFIX: &str = "Not analysed from here: ";

/// How the note of a game not analysed starts ([`Annotation::Unanalysed`]).
const UNANALYSED_PREFIX: &str = "Not analysed: ";

/// What the note on a result the tables contradict says after the result
/// ([`Annotation::ResultConflict`]).
const CONFLICT_MARK: &str = " contradicts the tables: ";

/// What a mistake's note ends with when a variation of the game already plays its best line.
const SHOWN_SUFFIX: &str = " The variation plays the best line.";

/// A comment the analyser writes into a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Annotation {
    /// `[%tb W17]`: the verdict of the position a line stands at, for the side to move, with
    /// the note on the move that led there, if any (`[%tb D] Win -> Draw. Best was ...`).
    Verdict {
        /// The verdict.
        verdict: Verdict,
        /// The note on the move before.
        note: Option<Note>,
    },
    /// `[%eval +0.35,8] Search: best 11-15.`: the engine's evaluation of a position outside
    /// the tables, with the note on the move that led there, if any.
    Eval {
        /// The evaluation.
        eval: Eval,
        /// The note on the move before.
        note: Option<Note>,
    },
    /// A note on a move after which the position has neither verdict nor evaluation.
    Note(Note),
    /// `Not analysed from here: 12... 24-21: illegal move '24-21' (legal: 22-18).`: a move that
    /// does not replay, where the analysis of its line stops.
    Stop {
        /// The move's number.
        number: MoveNumber,
        /// The move as written.
        played: String,
        /// Why it does not replay (braces are left out when written).
        why: String,
    },
    /// `Not analysed: frisian rules are not supported.`: a game not analysed at all.
    Unanalysed {
        /// Why (braces are left out when written).
        why: String,
    },
    /// `Result 1-0 (Black wins) contradicts the tables: the last position, White to move, is
    /// a draw (W:W18:B14).`: after the main line's last move, a result the tables contradict
    /// ([`ResultConflict`](super::ResultConflict)'s text).
    ResultConflict {
        /// The text, without its final full stop (braces are left out when written).
        text: String,
    },
}

impl Annotation {
    /// Whether a variation with the best line follows this comment in the annotated game: a
    /// mistake's note, unless a variation of the game already played that line.
    pub fn has_best_line(&self) -> bool {
        let note = match self {
            Annotation::Verdict { note, .. } | Annotation::Eval { note, .. } => note.as_ref(),
            Annotation::Note(note) => Some(note),
            Annotation::Stop { .. }
            | Annotation::Unanalysed { .. }
            | Annotation::ResultConflict { .. } => None,
        };
        matches!(note, Some(Note::Mistake(m)) if !m.shown)
    }
}

/// A comment that is not one the analyser writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NotAnnotation;

impl fmt::Display for NotAnnotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a comment of the analyser")
    }
}

impl std::error::Error for NotAnnotation {}

impl fmt::Display for Annotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let with_note = |f: &mut fmt::Formatter<'_>, note: &Option<Note>| match note {
            Some(n) => write!(f, " {n}"),
            None => Ok(()),
        };
        match self {
            Annotation::Verdict { verdict, note } => {
                write!(f, "[%tb {verdict}]")?;
                with_note(f, note)
            }
            Annotation::Eval { eval, note } => {
                write!(f, "{eval}")?;
                with_note(f, note)
            }
            Annotation::Note(note) => note.fmt(f),
            Annotation::Stop {
                number,
                played,
                why,
            } => write!(
                f,
                "{STOP_PREFIX}{number} {played}: {}.",
                why.replace(['{', '}'], "")
            ),
            Annotation::Unanalysed { why } => {
                write!(f, "{UNANALYSED_PREFIX}{}.", why.replace(['{', '}'], ""))
            }
            Annotation::ResultConflict { text } => {
                write!(f, "{}.", text.replace(['{', '}'], ""))
            }
        }
    }
}

impl FromStr for Annotation {
    type Err = NotAnnotation;

    /// Reads a comment the analyser wrote; any other comment is [`NotAnnotation`].
    fn from_str(s: &str) -> Result<Annotation, NotAnnotation> {
        if let Some(rest) = s.strip_prefix(STOP_PREFIX) {
            let (number, rest) = rest.split_once(' ').ok_or(NotAnnotation)?;
            let (played, why) = rest.split_once(": ").ok_or(NotAnnotation)?;
            return Ok(Annotation::Stop {
                number: move_number(number).ok_or(NotAnnotation)?,
                played: played.to_string(),
                why: why.strip_suffix('.').ok_or(NotAnnotation)?.to_string(),
            });
        }
        if let Some(why) = s.strip_prefix(UNANALYSED_PREFIX) {
            return Ok(Annotation::Unanalysed {
                why: why.strip_suffix('.').ok_or(NotAnnotation)?.to_string(),
            });
        }
        if s.starts_with("Result ") && s.contains(CONFLICT_MARK) {
            return Ok(Annotation::ResultConflict {
                text: s.strip_suffix('.').ok_or(NotAnnotation)?.to_string(),
            });
        }
        if let Some(rest) = s.strip_prefix("[%tb ") {
            let (code, rest) = rest.split_once(']').ok_or(NotAnnotation)?;
            return Ok(Annotation::Verdict {
                verdict: code.parse()?,
                note: note_after(rest)?,
            });
        }
        if s.starts_with("[%eval ") {
            let (eval, rest) = Eval::read(s).ok_or(NotAnnotation)?;
            return Ok(Annotation::Eval {
                eval,
                note: note_after(rest)?,
            });
        }
        s.trim().parse().map(Annotation::Note)
    }
}

/// The note after a command (`[%tb D] NOTE`), if any.
fn note_after(rest: &str) -> Result<Option<Note>, NotAnnotation> {
    let rest = rest.trim();
    match rest.is_empty() {
        true => Ok(None),
        false => rest.parse().map(Some),
    }
}

/// `12.` or `12...`.
fn move_number(s: &str) -> Option<MoveNumber> {
    let (digits, second) = match s.strip_suffix("...") {
        Some(d) => (d, true),
        None => (s.strip_suffix('.')?, false),
    };
    Some(MoveNumber {
        number: number(digits)?,
        second,
    })
}

/// A number written in decimal digits alone (no sign).
fn number<T: FromStr>(s: &str) -> Option<T> {
    match !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        true => s.parse().ok(),
        false => None,
    }
}

/// `White` or `Black`.
fn color_word(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn color(s: &str) -> Option<Color> {
    match s {
        "White" => Some(Color::White),
        "Black" => Some(Color::Black),
        _ => None,
    }
}

/// `Win`, `Draw` or `Loss`.
fn wdl_word(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "Win",
        Wdl::Draw => "Draw",
        Wdl::Loss => "Loss",
    }
}

/// What the move-count rules make of a result the tables hold: a win they draw is `cursed`,
/// a loss they draw `blessed`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RuleMark {
    /// A win the move-count rules draw.
    Cursed,
    /// A loss the move-count rules draw.
    Blessed,
}

/// A verdict as the `[%tb]` command writes it: `W17`, `D`, `L16`, `W31 cursed`,
/// `L30 blessed`; `W` and `L` from tables without distances to the end.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The result for the side to move, and its distance (0 where it has none).
    pub outcome: Outcome,
    /// What the move-count rules make of it, where they draw it.
    pub rules: Option<RuleMark>,
    /// Whether the outcome's distance is known (the tables hold distances to the end).
    pub distance: bool,
}

impl Verdict {
    /// The verdict of `outcome`, marked where its result under the rules (`rules`) is a
    /// draw that the tables without the rules do not give.
    pub fn new(outcome: Outcome, rules: Option<RuleCategory>) -> Verdict {
        let rules = match rules {
            Some(RuleCategory::CursedWin) => Some(RuleMark::Cursed),
            Some(RuleCategory::BlessedLoss) => Some(RuleMark::Blessed),
            _ => None,
        };
        Verdict {
            outcome,
            rules,
            distance: true,
        }
    }

    /// The verdict with its distance said or not (`distance`): a verdict of tables without
    /// distances to the end has none.
    pub fn with_distance(self, distance: bool) -> Verdict {
        Verdict {
            distance,
            outcome: match distance {
                true => self.outcome,
                false => Outcome {
                    dtw: 0,
                    ..self.outcome
                },
            },
            ..self
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = self.outcome;
        match (o.wdl, self.distance) {
            (Wdl::Win, true) => write!(f, "W{}", o.dtw)?,
            (Wdl::Win, false) => f.write_str("W")?,
            (Wdl::Draw, _) => f.write_str("D")?,
            (Wdl::Loss, true) => write!(f, "L{}", o.dtw)?,
            (Wdl::Loss, false) => f.write_str("L")?,
        }
        match self.rules {
            Some(RuleMark::Cursed) => f.write_str(" cursed"),
            Some(RuleMark::Blessed) => f.write_str(" blessed"),
            None => Ok(()),
        }
    }
}

impl FromStr for Verdict {
    type Err = NotAnnotation;

    fn from_str(s: &str) -> Result<Verdict, NotAnnotation> {
        let (code, rules) = match (s.strip_suffix(" cursed"), s.strip_suffix(" blessed")) {
            (Some(code), _) => (code, Some(RuleMark::Cursed)),
            (_, Some(code)) => (code, Some(RuleMark::Blessed)),
            _ => (s, None),
        };
        // `W` and `L` alone: no distance.
        let distance = |n: &str| match n {
            "" => Ok(None),
            n => number(n).map(Some).ok_or(NotAnnotation),
        };
        let (outcome, plies) = match code.split_at_checked(1) {
            Some(("D", "")) => (Outcome::DRAW, Some(0)),
            Some(("W", n)) => {
                let d = distance(n)?;
                (Outcome::win(d.unwrap_or(0)), d)
            }
            Some(("L", n)) => {
                let d = distance(n)?;
                (Outcome::loss(d.unwrap_or(0)), d)
            }
            _ => return Err(NotAnnotation),
        };
        Ok(Verdict {
            outcome,
            rules,
            distance: plies.is_some(),
        })
    }
}

/// An engine's score as the `[%eval]` command writes it for PGN tools (lichess,
/// python-chess): from White's view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EvalScore {
    /// `+0.35`: in hundredths of a man.
    Men(i32),
    /// `#7` (White wins) or `#-6` (Black wins): a win the search proved, in the winner's
    /// moves to the end.
    Win {
        /// The side that wins.
        winner: Color,
        /// Its moves to the end.
        moves: i32,
    },
}

impl EvalScore {
    /// The score of a position where `side` is to move, from White's view.
    pub fn new(score: Score, side: Color) -> EvalScore {
        let white = match side {
            Color::White => score,
            Color::Black => Score(-score.0),
        };
        match white.plies_to_end() {
            Some(n) if white.0 > 0 => EvalScore::Win {
                winner: Color::White,
                moves: (n + 1) / 2,
            },
            Some(n) => EvalScore::Win {
                winner: Color::Black,
                moves: (n + 1) / 2,
            },
            None => EvalScore::Men(white.0),
        }
    }
}

impl fmt::Display for EvalScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EvalScore::Men(c) => {
                let sign = if c < 0 { '-' } else { '+' };
                let c = c.unsigned_abs();
                write!(f, "{sign}{}.{:02}", c / 100, c % 100)
            }
            EvalScore::Win {
                winner: Color::White,
                moves,
            } => write!(f, "#{moves}"),
            EvalScore::Win {
                winner: Color::Black,
                moves,
            } => write!(f, "#-{moves}"),
        }
    }
}

impl FromStr for EvalScore {
    type Err = NotAnnotation;

    fn from_str(s: &str) -> Result<EvalScore, NotAnnotation> {
        if let Some(n) = s.strip_prefix('#') {
            let (winner, moves) = match n.strip_prefix('-') {
                Some(m) => (Color::Black, m),
                None => (Color::White, n),
            };
            let moves = number(moves).ok_or(NotAnnotation)?;
            return Ok(EvalScore::Win { winner, moves });
        }
        let (negative, men) = match s.split_at_checked(1) {
            Some(("+", m)) => (false, m),
            Some(("-", m)) => (true, m),
            _ => return Err(NotAnnotation),
        };
        let (whole, hundredths) = men.split_once('.').ok_or(NotAnnotation)?;
        if hundredths.len() != 2 {
            return Err(NotAnnotation);
        }
        let whole: i32 = number(whole).ok_or(NotAnnotation)?;
        let hundredths: i32 = number(hundredths).ok_or(NotAnnotation)?;
        let c = whole
            .checked_mul(100)
            .and_then(|w| w.checked_add(hundredths))
            .ok_or(NotAnnotation)?;
        Ok(EvalScore::Men(if negative { -c } else { c }))
    }
}

/// An engine evaluation as the analyser writes it: `[%eval +0.35,8] Search: best 11-15.`, or
/// for a win the search proved `[%eval #7,8] Search: White wins in 13 plies, best 11-15.`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eval {
    /// The score, from White's view.
    pub score: EvalScore,
    /// The depth searched, in plies.
    pub depth: u32,
    /// For a win the search proved: the side that wins and the plies to the end.
    pub result: Option<(Color, i32)>,
    /// The best move found, in the variant's notation.
    pub best: String,
}

impl Eval {
    /// The evaluation `eval` of a position where `side` is to move.
    pub fn new(eval: &super::EngineEval, side: Color) -> Eval {
        let result = match eval.score.plies_to_end() {
            Some(n) if eval.score.0 > 0 => Some((side, n)),
            Some(n) => Some((side.opponent(), n)),
            None => None,
        };
        Eval {
            score: EvalScore::new(eval.score, side),
            depth: eval.depth,
            result,
            best: eval.best.clone(),
        }
    }

    /// Reads an evaluation at the start of `s`; returns it and the rest of `s`.
    fn read(s: &str) -> Option<(Eval, &str)> {
        let (code, rest) = s.strip_prefix("[%eval ")?.split_once(']')?;
        let (score, depth) = code.split_once(',')?;
        let rest = rest.trim_start().strip_prefix("Search: ")?;
        let (result, rest) = match rest.split_once(" wins in ") {
            Some((side, r)) if color(side).is_some() => {
                let (plies, r) = r.split_once(" plies, ")?;
                (Some((color(side)?, number(plies)?)), r)
            }
            _ => (None, rest),
        };
        let rest = rest.strip_prefix("best ")?;
        let (best, rest) = match rest.split_once(". ") {
            Some((best, rest)) => (best, rest),
            None => (rest.strip_suffix('.')?, ""),
        };
        if best.is_empty() || best.contains(' ') {
            return None;
        }
        let eval = Eval {
            score: score.parse().ok()?,
            depth: number(depth)?,
            result,
            best: best.to_string(),
        };
        Some((eval, rest))
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[%eval {},{}] Search: ", self.score, self.depth)?;
        if let Some((winner, plies)) = self.result {
            write!(f, "{} wins in {plies} plies, ", color_word(winner))?;
        }
        write!(f, "best {}.", self.best)
    }
}

/// The note on a move that threw a result away or won more slowly than the best.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// `Win -> Draw. Best was 27-31, White wins in 9 plies.`
    Mistake(Mistake),
    /// `Still wins, in 21 plies; best was 27-31, winning in 9.`
    Slower {
        /// The plies to the win after the move played.
        plies: u16,
        /// The best move.
        best: String,
        /// The plies to the win after it.
        best_plies: u16,
    },
}

/// The note on a mistake: `Win -> Draw by the 16-move rule. Best was 27-31, White wins in 9
/// plies.`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mistake {
    /// The result before the move, for the side that played it.
    pub before: Wdl,
    /// The result after it, for the same side.
    pub after: Wdl,
    /// The count of the move-count rules that draws the result after the move, where they
    /// do (`16-move rule`).
    pub by: Option<String>,
    /// The best move (`?` when none is known).
    pub best: String,
    /// What the best move keeps: the side that wins and in how many plies (where the
    /// tables hold distances to the end), `None` for a draw.
    pub keeps: Option<(Color, Option<u16>)>,
    /// Whether a variation of the game already plays the best line (no best line of the
    /// analyser's follows the note then).
    pub shown: bool,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Mistake(m) => {
                write!(f, "{} -> {}", wdl_word(m.before), wdl_word(m.after))?;
                if let Some(by) = &m.by {
                    write!(f, " by the {by}")?;
                }
                write!(f, ". Best was {}, ", m.best)?;
                match m.keeps {
                    Some((winner, Some(plies))) => {
                        write!(f, "{} wins in {plies} plies.", color_word(winner))?
                    }
                    Some((winner, None)) => write!(f, "{} wins.", color_word(winner))?,
                    None => f.write_str("a draw.")?,
                }
                match m.shown {
                    true => f.write_str(SHOWN_SUFFIX),
                    false => Ok(()),
                }
            }
            Note::Slower {
                plies,
                best,
                best_plies,
            } => write!(
                f,
                "Still wins, in {plies} plies; best was {best}, winning in {best_plies}."
            ),
        }
    }
}

impl FromStr for Note {
    type Err = NotAnnotation;

    fn from_str(s: &str) -> Result<Note, NotAnnotation> {
        read_note(s).ok_or(NotAnnotation)
    }
}

fn read_note(s: &str) -> Option<Note> {
    if let Some(rest) = s.strip_prefix("Still wins, in ") {
        let (plies, rest) = rest.split_once(" plies; best was ")?;
        let (best, rest) = rest.split_once(", winning in ")?;
        return Some(Note::Slower {
            plies: number(plies)?,
            best: best.to_string(),
            best_plies: number(rest.strip_suffix('.')?)?,
        });
    }
    let (before, after, rest) = [
        (Wdl::Win, Wdl::Draw),
        (Wdl::Win, Wdl::Loss),
        (Wdl::Draw, Wdl::Loss),
    ]
    .into_iter()
    .find_map(|(b, a)| {
        let rest = s.strip_prefix(&format!("{} -> {}", wdl_word(b), wdl_word(a)))?;
        Some((b, a, rest))
    })?;
    let (by, rest) = match rest.strip_prefix(" by the ") {
        Some(r) => {
            let (by, r) = r.split_once(". ")?;
            (Some(by.to_string()), r)
        }
        None => (None, rest.strip_prefix(". ")?),
    };
    let (best, rest) = rest.strip_prefix("Best was ")?.split_once(", ")?;
    let (rest, shown) = match rest.strip_suffix(SHOWN_SUFFIX) {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let keeps = match rest.strip_suffix('.')? {
        "a draw" => None,
        won => match won.split_once(" wins in ") {
            Some((winner, plies)) => {
                Some((color(winner)?, Some(number(plies.strip_suffix(" plies")?)?)))
            }
            None => Some((color(won.strip_suffix(" wins")?)?, None)),
        },
    };
    Some(Note::Mistake(Mistake {
        before,
        after,
        by,
        best: best.to_string(),
        keeps,
        shown,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mistake(by: Option<&str>, keeps: Option<(Color, Option<u16>)>, shown: bool) -> Note {
        Note::Mistake(Mistake {
            before: Wdl::Win,
            after: Wdl::Draw,
            by: by.map(str::to_string),
            best: "27-31".into(),
            keeps,
            shown,
        })
    }

    /// Every kind of annotation the analyser writes.
    fn every_kind() -> Vec<Annotation> {
        let notes = [
            mistake(None, Some((Color::White, Some(9))), false),
            mistake(Some("16-move rule"), Some((Color::Black, Some(12))), true),
            mistake(None, Some((Color::Black, None)), false),
            Note::Mistake(Mistake {
                before: Wdl::Draw,
                after: Wdl::Loss,
                by: None,
                best: "c3-d4".into(),
                keeps: None,
                shown: false,
            }),
            Note::Mistake(Mistake {
                before: Wdl::Win,
                after: Wdl::Loss,
                by: None,
                best: "?".into(),
                keeps: Some((Color::White, Some(1))),
                shown: false,
            }),
            Note::Slower {
                plies: 21,
                best: "27-31".into(),
                best_plies: 9,
            },
        ];
        let verdicts = [
            Verdict::new(Outcome::win(17), None),
            Verdict::new(Outcome::DRAW, None),
            Verdict::new(Outcome::loss(4), None),
            Verdict::new(Outcome::win(31), Some(RuleCategory::CursedWin)),
            Verdict::new(Outcome::loss(30), Some(RuleCategory::BlessedLoss)),
            Verdict::new(Outcome::win(0), None).with_distance(false),
            Verdict::new(Outcome::loss(0), Some(RuleCategory::BlessedLoss)).with_distance(false),
        ];
        let evals = [
            Eval {
                score: EvalScore::Men(35),
                depth: 8,
                result: None,
                best: "11-15".into(),
            },
            Eval {
                score: EvalScore::Men(-5),
                depth: 1,
                result: None,
                best: "c3:e5".into(),
            },
            Eval {
                score: EvalScore::Win {
                    winner: Color::Black,
                    moves: 7,
                },
                depth: 12,
                result: Some((Color::Black, 13)),
                best: "11x18".into(),
            },
        ];
        let mut all = Vec::new();
        for note in [None].into_iter().chain(notes.iter().cloned().map(Some)) {
            for verdict in verdicts {
                all.push(Annotation::Verdict {
                    verdict,
                    note: note.clone(),
                });
            }
            for eval in &evals {
                all.push(Annotation::Eval {
                    eval: eval.clone(),
                    note: note.clone(),
                });
            }
            if let Some(note) = note {
                all.push(Annotation::Note(note));
            }
        }
        all.push(Annotation::Stop {
            number: MoveNumber {
                number: 12,
                second: true,
            },
            played: "24-21".into(),
            why: "illegal move '24-21' (legal: 22-18 22-17)".into(),
        });
        all.push(Annotation::Stop {
            number: MoveNumber::FIRST,
            played: "c3:e5".into(),
            why: "ambiguous: c3:e5:g3 or c3:e5:c7".into(),
        });
        all.push(Annotation::Unanalysed {
            why: "frisian rules are not supported".into(),
        });
        all.push(Annotation::ResultConflict {
            text: "Result 1-0 (Black wins) contradicts the tables: the last position, White \
                   to move, is a draw (W:W18:B14)"
                .into(),
        });
        all
    }

    #[test]
    fn every_kind_reads_back_as_itself() {
        for a in every_kind() {
            let text = a.to_string();
            assert_eq!(text.parse::<Annotation>(), Ok(a.clone()), "{text}");
            let best_line = matches!(
                &a,
                Annotation::Verdict { note: Some(Note::Mistake(m)), .. }
                    | Annotation::Eval { note: Some(Note::Mistake(m)), .. }
                    | Annotation::Note(Note::Mistake(m))
                    if !m.shown
            );
            assert_eq!(a.has_best_line(), best_line, "{text}");
        }
    }

    #[test]
    fn other_comments_are_not_ours() {
        for other in [
            "",
            "A fine move.",
            "[%clock w0:49:11 B0:50:02]",
            "[%tb]",
            "[%tb X3]",
            "[%tb Wx]",
            "[%tb W3 lucky]",
            "[%tb W3] A fine move.",
            "[%eval 0.35]",
            "[%eval +0.35,8]",
            "[%eval +0.35] Search: best 11-15.",
            "[%eval X3,8] Search: best 11-15.",
            "[%eval #x,8] Search: best 11-15.",
            "[%eval +0.35,8] A fine move.",
            "Win -> Win. Best was 27-31, a draw.",
            "Loss -> Win. Best was 27-31, a draw.",
            "Win -> Draw, but why?",
            "Still wins, in many plies; best was 27-31, winning in 9.",
            "Not analysed from here, sadly.",
            "Not analysed: no reason",
        ] {
            assert_eq!(other.parse::<Annotation>(), Err(NotAnnotation), "{other}");
        }
    }

    #[test]
    fn scores_read_as_the_engine_writes_them() {
        for c in [-12345, -120, -100, -5, 0, 5, 35, 100, 9999] {
            let text = Score(c).to_string();
            assert_eq!(EvalScore::new(Score(c), Color::White).to_string(), text);
            assert_eq!(text.parse(), Ok(EvalScore::Men(c)), "{text}");
        }
        assert_eq!(
            EvalScore::new(Score(Score::WIN - 13), Color::Black).to_string(),
            "#-7"
        );
    }

    #[test]
    fn braces_are_left_out() {
        let a = Annotation::Unanalysed {
            why: "a {b} c".into(),
        };
        assert_eq!(a.to_string(), "Not analysed: a b c.");
    }
}
