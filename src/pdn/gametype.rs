//! The GameType tag (`20`, `21,B,8,8,N1,0`) and the choice of rules for a game: given by the
//! caller, read from GameType, or guessed from the squares the game uses.

use std::fmt;
use std::str::FromStr;

use super::cursor::{Cursor, Step};
use super::game::{Game, Line, MoveNumber};
use crate::rules::Variant;

/// The standard long form of a variant's GameType (PDN 3.0).
pub const fn long_form(variant: Variant) -> &'static str {
    variant.facts().game_type_long
}

/// Game types the PDN standard names but damka has no rules for, with their numbers.
const UNSUPPORTED: [(u32, &str, &str); 10] = [
    (0, "chess", "Chess"),
    (1, "chinese", "Chinese chess"),
    (23, "pool", "American pool checkers"),
    (27, "canadian", "Canadian draughts"),
    (28, "portuguese", "Portuguese draughts"),
    (29, "czech", "Czech draughts"),
    (31, "thai", "Thai draughts"),
    (40, "frisian", "Frisian draughts"),
    (41, "spantsiretti", "Spantsiretti draughts"),
    (50, "othello", "Othello"),
];

/// The name the PDN standard gives a GameType number, if any.
pub fn game_type_name(number: u32) -> Option<&'static str> {
    UNSUPPORTED
        .iter()
        .find(|(n, _, _)| *n == number)
        .map(|(_, _, name)| *name)
}

/// The rules a game is played under: one damka knows, or another GameType.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ruleset {
    /// A variant damka can replay.
    Supported(Variant),
    /// Any other GameType number: the game is read but not replayed.
    Unsupported(u32),
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ruleset::Supported(v) => v.fmt(f),
            Ruleset::Unsupported(n) => match UNSUPPORTED.iter().find(|(m, _, _)| m == n) {
                Some((_, short, _)) => f.write_str(short),
                None => write!(f, "GameType {n}"),
            },
        }
    }
}

/// A name or number that is not a game type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRuleset(pub String);

impl fmt::Display for UnknownRuleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown variant '{}' (expected one of: ", self.0)?;
        for v in Variant::ALL {
            write!(f, "{}, ", v.name())?;
        }
        f.write_str("czech or another PDN GameType name or number)")
    }
}

impl std::error::Error for UnknownRuleset {}

impl FromStr for Ruleset {
    type Err = UnknownRuleset;

    /// A variant name (`english`), another game's name (`czech`, `frisian`) or a GameType
    /// number (`20`, `29`).
    fn from_str(s: &str) -> Result<Ruleset, UnknownRuleset> {
        if let Ok(v) = s.parse::<Variant>() {
            return Ok(Ruleset::Supported(v));
        }
        let lower = s.trim().to_ascii_lowercase();
        if let Some((n, _, _)) = UNSUPPORTED.iter().find(|(_, short, _)| *short == lower) {
            return Ok(Ruleset::Unsupported(*n));
        }
        match lower.parse::<u32>() {
            Ok(n) => Ok(from_number(n)),
            Err(_) => Err(UnknownRuleset(s.to_string())),
        }
    }
}

fn from_number(n: u32) -> Ruleset {
    u8::try_from(n)
        .ok()
        .and_then(Variant::from_game_type)
        .map_or(Ruleset::Unsupported(n), Ruleset::Supported)
}

/// A GameType tag value read: its rules, and whether its long form departs from the standard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameType {
    /// The rules its number names.
    pub ruleset: Ruleset,
    /// The standard long form, when the value gave a different one (`20,W,10,10,N1,0`).
    pub non_standard: Option<&'static str>,
}

/// Reads a GameType value: a number, optionally followed by the long-form attributes
/// (`[0-9]+(,[WB],[0-9]+,[0-9]+,[ANS][0123](,[01])?)?`). Blanks are ignored. `None` when the
/// value does not start with a number.
///
/// ```
/// use damka::pdn::gametype::{parse_game_type, Ruleset};
/// use damka::Variant;
/// let gt = parse_game_type("20,W,10,10,N1,0").unwrap();
/// assert_eq!(gt.ruleset, Ruleset::Supported(Variant::International));
/// assert_eq!(gt.non_standard, Some("20,W,10,10,N2,0"));
/// ```
pub fn parse_game_type(value: &str) -> Option<GameType> {
    let compact: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    let mut fields = compact.split(',');
    let number: u32 = fields.next()?.parse().ok()?;
    let ruleset = from_number(number);
    let non_standard = match ruleset {
        Ruleset::Supported(v) if compact.contains(',') => {
            let standard = long_form(v);
            // The invert flag is optional: `21,B,8,8,N1` equals `21,B,8,8,N1,0`.
            let same = compact.eq_ignore_ascii_case(standard)
                || format!("{compact},0").eq_ignore_ascii_case(standard);
            (!same).then_some(standard)
        }
        _ => None,
    };
    Some(GameType {
        ruleset,
        non_standard,
    })
}

/// How the rules of a game were chosen.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RulesetSource {
    /// Given by the caller (`--variant`).
    Given,
    /// Read from the GameType tag.
    GameType,
    /// Guessed from the squares, for the stated reason.
    Guessed(&'static str),
}

/// A guess at a game's variant from its squares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Guess {
    /// The variant the squares point to.
    pub variant: Variant,
    /// On what grounds.
    pub reason: &'static str,
    /// Other variants the same squares fit, to try when the game does not replay as
    /// `variant` (empty when the squares decide).
    pub alternatives: &'static [Variant],
}

/// Guesses the variant of a game without a usable GameType from the squares in its FEN tag,
/// setup commands and moves: algebraic squares mean Russian (or Turkish), numbers above 32
/// International; else the variant of the game before it in the same file (`previous`) if
/// there is one, else English (or International, or Italian).
pub fn guess_variant(game: &Game, previous: Option<Variant>) -> Guess {
    const NUMERIC: &[Variant] = &[Variant::English, Variant::International, Variant::Italian];
    let mut evidence = Evidence::default();
    if let Some(fen) = game.tag("FEN") {
        evidence.fen(fen);
    }
    evidence.line(&game.moves);
    let (variant, reason, alternatives) = if evidence.algebraic {
        (
            Variant::Russian,
            "algebraic squares",
            &[Variant::Turkish][..],
        )
    } else if evidence.max > 32 {
        (Variant::International, "squares above 32", &[][..])
    } else if let Some(v) = previous {
        (v, "as the game before; no square above 32", NUMERIC)
    } else if evidence.max == 0 {
        (Variant::English, "no squares", NUMERIC)
    } else {
        (Variant::English, "squares up to 32", NUMERIC)
    };
    Guess {
        variant,
        reason,
        alternatives,
    }
}

#[derive(Default)]
struct Evidence {
    algebraic: bool,
    max: u32,
}

impl Evidence {
    fn square(&mut self, s: &str) {
        let s = s.trim().trim_start_matches(['K', 'k']);
        let Some(first) = s.chars().next() else {
            return;
        };
        if first.is_ascii_alphabetic() && s.len() >= 2 && s[1..].bytes().all(|b| b.is_ascii_digit())
        {
            self.algebraic = true;
        } else if let Ok(n) = s.parse::<u32>() {
            self.max = self.max.max(n);
        }
    }

    fn fen(&mut self, fen: &str) {
        for field in fen.trim().trim_end_matches('.').split(':').skip(1) {
            let field = field.trim();
            if !field.starts_with(['W', 'B', 'w', 'b']) {
                continue;
            }
            for part in field[1..].split(',') {
                for end in part.split('-') {
                    self.square(end);
                }
            }
        }
    }

    fn line(&mut self, line: &Line) {
        for step in Cursor::new(line, MoveNumber::FIRST, None) {
            match step {
                Step::Move { node, .. } => {
                    for sq in node.text.split(['-', 'x', ':']) {
                        self.square(sq);
                    }
                }
                Step::Setup(s) => self.fen(s.trim_start_matches("FEN").trim().trim_matches('"')),
                Step::UnknownMove { .. } | Step::Comment(_) | Step::Enter { .. } | Step::Leave => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdn::game::{MoveNode, Node};

    #[test]
    fn reads_short_and_long_forms() {
        for v in Variant::ALL {
            let short = parse_game_type(&v.game_type().to_string()).unwrap();
            assert_eq!(short.ruleset, Ruleset::Supported(v));
            let long = parse_game_type(long_form(v)).unwrap();
            assert_eq!(long.non_standard, None);
        }
        assert_eq!(parse_game_type(" 21,B,8,8,N1 ").unwrap().non_standard, None);
        assert_eq!(
            parse_game_type("29").unwrap().ruleset,
            Ruleset::Unsupported(29)
        );
        assert_eq!(parse_game_type("International"), None);
        assert_eq!("czech".parse::<Ruleset>(), Ok(Ruleset::Unsupported(29)));
        assert_eq!(
            "20".parse::<Ruleset>(),
            Ok(Ruleset::Supported(Variant::International))
        );
        assert!("chequers".parse::<Ruleset>().is_err());
        assert_eq!(Ruleset::Unsupported(29).to_string(), "czech");
    }

    #[test]
    fn guesses_from_squares() {
        let mut game = Game::default();
        game.moves.nodes.push(Node::Move(MoveNode::new("32-28")));
        assert_eq!(guess_variant(&game, None).variant, Variant::English);
        game.moves.nodes.push(Node::Move(MoveNode::new("19-33")));
        assert_eq!(guess_variant(&game, None).variant, Variant::International);
        let mut game = Game::default();
        game.moves.nodes.push(Node::Move(MoveNode::new("c3-d4")));
        assert_eq!(guess_variant(&game, None).variant, Variant::Russian);
        let game = Game::default();
        assert_eq!(
            guess_variant(&game, Some(Variant::Italian)).variant,
            Variant::Italian
        );
    }
}
