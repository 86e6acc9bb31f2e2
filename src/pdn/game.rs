//! The game tree: tags, then a main line of moves with comments, NAGs, variations and setup
//! commands, then the terminator.
//!
//! The tree holds what a file says, not what it means: a move is kept as its text until
//! [`replay`](super::replay) matches it against the legal moves. Move numbers are not kept per
//! move (they follow from the order of the moves); only the number of the first move of the
//! main line is, since a game may start at any move.

use crate::rules::Color;

/// One tag pair: `[Name "value"]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    /// The tag name, as read (Italian names and `Setup` are read as their standard names).
    pub name: String,
    /// The value, without quotes or escapes, leading and trailing blanks trimmed.
    pub value: String,
}

/// A move's number as PDN writes it: `12.` for the first player's move of a pair, `12...` for
/// the second player's.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoveNumber {
    /// The pair number, from 1.
    pub number: u32,
    /// Whether the move is the second of its pair (written `12...`).
    pub second: bool,
}

impl MoveNumber {
    /// Move 1 of the first player: `1.`.
    pub const FIRST: MoveNumber = MoveNumber {
        number: 1,
        second: false,
    };

    /// The number of the first move after a setup command `/FEN "..."/`, where this is the
    /// number the next move would have had without it and `to_move` the side whose turn it
    /// was.
    ///
    /// A setup that gives the move to that side keeps the number; one that gives it to the
    /// other side stands in for a move and the number goes one move further, as in the PDN
    /// 3.0 examples: `1. 31-26 17-21 /FEN "B:..."/` goes on with `2...`, and from the initial
    /// position (White to move) `/FEN "W:..."/ /FEN "B:..."/` with `1...`. When either side
    /// is unknown the number is kept.
    ///
    /// ```
    /// use damka::Color;
    /// use damka::pdn::MoveNumber;
    /// let n = MoveNumber { number: 1, second: true };
    /// assert_eq!(n.after_setup(Some(Color::Black), Some(Color::White)).to_string(), "2.");
    /// assert_eq!(n.after_setup(Some(Color::Black), Some(Color::Black)).to_string(), "1...");
    /// ```
    pub fn after_setup(self, to_move: Option<Color>, setup: Option<Color>) -> MoveNumber {
        match (to_move, setup) {
            (Some(a), Some(b)) if a != b => self.next(),
            _ => self,
        }
    }

    /// The number of the move after this one.
    pub fn next(self) -> MoveNumber {
        if self.second {
            MoveNumber {
                number: self.number.saturating_add(1),
                second: false,
            }
        } else {
            MoveNumber {
                number: self.number,
                second: true,
            }
        }
    }
}

impl std::fmt::Display for MoveNumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dots = if self.second { "..." } else { "." };
        write!(f, "{}{dots}", self.number)
    }
}

/// A move as written in the file, with its annotations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveNode {
    /// The squares and separators (`32-28`, `28x19`, `c3-d4`), blanks removed; after
    /// [`Replayer::normalize`](super::Replayer::normalize), the variant's notation with
    /// minimal disambiguation.
    pub text: String,
    /// A move strength mark: `!`, `?`, `!!`, `??`, `!?`, `?!` (parentheses removed).
    pub strength: Option<String>,
    /// Numeric annotation glyphs (`$1` is 1), in the order read.
    pub nags: Vec<u8>,
}

impl MoveNode {
    /// A move with no annotations.
    pub fn new(text: impl Into<String>) -> Self {
        MoveNode {
            text: text.into(),
            strength: None,
            nags: Vec::new(),
        }
    }
}

/// One element of a line of play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A move.
    Move(MoveNode),
    /// A move known to have been played but not recorded (`- -`): the line cannot be
    /// replayed past it.
    UnknownMove,
    /// A comment, its blanks collapsed to single spaces. Embedded commands such as
    /// `[%clock w0:49:11 B0:50:02]` are kept verbatim inside it.
    Comment(String),
    /// A variation: moves replacing the last move before it in the enclosing line.
    Variation(Line),
    /// A setup command `/FEN "..."/`: the FEN text of the new position.
    Setup(String),
}

/// A sequence of moves and their annotations: the main line, or a variation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// The elements, in order.
    pub nodes: Vec<Node>,
}

impl Line {
    /// The moves of this line, not counting variations.
    pub fn moves(&self) -> impl Iterator<Item = &MoveNode> {
        self.nodes.iter().filter_map(|n| match n {
            Node::Move(m) => Some(m),
            _ => None,
        })
    }

    /// The last move of the line, if any, to which a following NAG or strength mark belongs.
    pub(crate) fn last_move_mut(&mut self) -> Option<&mut MoveNode> {
        self.nodes.iter_mut().rev().find_map(|n| match n {
            Node::Move(m) => Some(m),
            _ => None,
        })
    }
}

/// A game: its tags, its moves, its terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The tag pairs, in the order read (or written).
    pub tags: Vec<Tag>,
    /// The number of the first move of the main line (`1.` unless the file says otherwise,
    /// as in `1. ... 7-12` or a position taken from move 30).
    pub start: MoveNumber,
    /// The main line.
    pub moves: Line,
    /// The terminator as read: a result (any text the file used as one, such as `4-6`) or
    /// `*`; `None` when the game ended without one.
    pub result: Option<String>,
}

impl Default for Game {
    fn default() -> Self {
        Game {
            tags: Vec::new(),
            start: MoveNumber::FIRST,
            moves: Line::default(),
            result: None,
        }
    }
}

impl Game {
    /// The value of the first tag with this name (case-insensitive).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
            .map(|t| t.value.as_str())
    }

    /// The game's result: the Result tag if it has a value, else the terminator.
    pub fn result_text(&self) -> Option<&str> {
        self.tag("Result")
            .filter(|v| !v.is_empty())
            .or(self.result.as_deref())
    }
}

/// The FEN text of a setup command: `FEN "W:W31:B2"` gives `W:W31:B2`.
pub fn setup_fen(command: &str) -> &str {
    let text = command.trim();
    let text = text
        .strip_prefix("FEN")
        .or_else(|| text.strip_prefix("fen"))
        .unwrap_or(text);
    text.trim().trim_matches('"').trim()
}

/// The side to move a FEN text names by its first letter (`W` or `B`, either case); `None`
/// for `?` or anything else.
pub fn fen_side(fen: &str) -> Option<Color> {
    match fen.trim_start().chars().next() {
        Some('W' | 'w') => Some(Color::White),
        Some('B' | 'b') => Some(Color::Black),
        _ => None,
    }
}

/// Whether `text` is one of the results PDN defines as a game terminator: `1-0`, `0-1`,
/// `1/2-1/2`, `2-0`, `0-2`, `1-1`, `0-0` or `*`.
///
/// `1-0` means the side that moves first in the variant won (in English draughts, Black).
pub fn is_standard_result(text: &str) -> bool {
    matches!(
        text,
        "1-0" | "0-1" | "1/2-1/2" | "2-0" | "0-2" | "1-1" | "0-0" | "*"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_numbers_alternate() {
        let n = MoveNumber::FIRST;
        assert_eq!(n.to_string(), "1.");
        assert_eq!(n.next().to_string(), "1...");
        assert_eq!(n.next().next().to_string(), "2.");
    }

    #[test]
    fn setup_texts() {
        assert_eq!(setup_fen("FEN \"W:W31:B10\""), "W:W31:B10");
        assert_eq!(fen_side("B:W31:B10"), Some(Color::Black));
        assert_eq!(fen_side(" w:W31:B10"), Some(Color::White));
        assert_eq!(fen_side("?:W31:B10"), None);
        let n = MoveNumber::FIRST;
        assert_eq!(
            n.after_setup(Some(Color::White), Some(Color::Black)),
            n.next()
        );
        assert_eq!(n.after_setup(None, Some(Color::Black)), n);
    }

    #[test]
    fn counts_moves_in_variations() {
        let line = Line {
            nodes: vec![
                Node::Move(MoveNode::new("32-28")),
                Node::Variation(Line {
                    nodes: vec![Node::Move(MoveNode::new("33-28"))],
                }),
                Node::Comment("x".into()),
            ],
        };
        assert_eq!(line.move_count(), 2);
        assert_eq!(line.moves().count(), 1);
    }
}
