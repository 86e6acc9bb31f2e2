//! Move text: `32-28`, `28x19`, `47x38x24`, `c3-d4`, `d4:b6`.
//!
//! Writing gives the start and end squares, adding the landing squares where the path turns
//! only when that is needed to tell two legal moves apart (the PDN 3.0 rule), and the full
//! path when even that is not enough. Reading matches the squares of a text against the
//! legal moves, ignoring the separator (real files write `x` on quiet moves).

use std::fmt;

pub use crate::rules::sort_moves;

use super::squares::{capture_separator, file_rank, parse_square, square_name};
use crate::rules::{LegalMove, MovePath, Square, Variant};

/// Why a move text did not name exactly one legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveTextError {
    /// The text is not a list of squares.
    Syntax(String),
    /// No legal move matches; the legal moves are listed.
    Illegal {
        /// The text read.
        text: String,
        /// Every legal move, written in full.
        legal: Vec<String>,
    },
    /// Several legal moves match.
    Ambiguous {
        /// The text read.
        text: String,
        /// The matching moves, written in full.
        candidates: Vec<String>,
    },
}

impl fmt::Display for MoveTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveTextError::Syntax(t) => write!(f, "'{t}' is not a move"),
            MoveTextError::Illegal { text, legal } => {
                write!(f, "illegal move '{text}' (legal: {})", legal.join(" "))
            }
            MoveTextError::Ambiguous { text, candidates } => {
                write!(
                    f,
                    "ambiguous move '{text}' (could be: {})",
                    candidates.join(" ")
                )
            }
        }
    }
}

impl std::error::Error for MoveTextError {}

fn join(variant: Variant, squares: &[Square], capture: bool) -> String {
    let sep = if capture {
        capture_separator(variant)
    } else {
        '-'
    };
    let names: Vec<String> = squares.iter().map(|&sq| square_name(variant, sq)).collect();
    names.join(&sep.to_string())
}

/// A path written in full: every landing square.
pub fn full_path_text(variant: Variant, mv: &LegalMove) -> String {
    join(variant, &mv.paths[0].squares, mv.mv.is_capture())
}

/// The captured squares of a move's canonical path, in jump order, comma-separated.
pub fn captured_text(variant: Variant, mv: &LegalMove) -> String {
    let names: Vec<String> = mv.paths[0]
        .captured
        .iter()
        .map(|&sq| square_name(variant, sq))
        .collect();
    names.join(",")
}

/// The landing squares where the path changes direction (plus start and end): the squares a
/// reader needs to follow a capture, whichever square a flying king passed over between
/// two captures on one line.
pub fn turning_points(variant: Variant, path: &MovePath) -> Vec<Square> {
    let sq = &path.squares;
    let direction = |a: Square, b: Square| {
        let (fa, ra) = file_rank(variant, a);
        let (fb, rb) = file_rank(variant, b);
        (
            (fb as i32 - fa as i32).signum(),
            (rb as i32 - ra as i32).signum(),
        )
    };
    let mut out = vec![sq[0]];
    for i in 1..sq.len().saturating_sub(1) {
        if direction(sq[i - 1], sq[i]) != direction(sq[i], sq[i + 1]) {
            out.push(sq[i]);
        }
    }
    out.push(sq[sq.len() - 1]);
    out
}

/// Whether `text` (start, some landing squares in order, end) describes `path`.
fn path_matches(text: &[Square], path: &MovePath) -> bool {
    let sq = &path.squares;
    if text.len() < 2 || text[0] != sq[0] || text[text.len() - 1] != sq[sq.len() - 1] {
        return false;
    }
    let inner = &sq[1..sq.len() - 1];
    let mut it = inner.iter();
    text[1..text.len() - 1]
        .iter()
        .all(|want| it.any(|have| have == want))
}

fn matches(text: &[Square], mv: &LegalMove) -> bool {
    mv.paths.iter().any(|p| path_matches(text, p))
}

/// Writes `legal[index]` as PDN move text, disambiguated against the other legal moves.
pub fn move_text(variant: Variant, legal: &[LegalMove], index: usize) -> String {
    let mv = &legal[index];
    let path = &mv.paths[0];
    let capture = mv.mv.is_capture();
    let ends = [path.squares[0], path.squares[path.squares.len() - 1]];
    let unique = |text: &[Square]| legal.iter().filter(|m| matches(text, m)).count() == 1;
    if unique(&ends) {
        return join(variant, &ends, capture);
    }
    let turns = turning_points(variant, path);
    if unique(&turns) {
        return join(variant, &turns, capture);
    }
    join(variant, &path.squares, capture)
}

/// The squares of a move text, whatever its separators (`-`, `x`, `:`) and spacing.
pub fn parse_move_squares(variant: Variant, text: &str) -> Result<Vec<Square>, MoveTextError> {
    let syntax = || MoveTextError::Syntax(text.to_string());
    let cleaned: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let parts: Vec<&str> = cleaned.split(['-', 'x', 'X', ':']).collect();
    if parts.len() < 2 || parts.iter().any(|p| p.is_empty()) {
        return Err(syntax());
    }
    parts
        .iter()
        .map(|p| parse_square(variant, p).map_err(|_| syntax()))
        .collect()
}

/// Finds the one legal move a text names.
pub fn parse_move<'a>(
    variant: Variant,
    legal: &'a [LegalMove],
    text: &str,
) -> Result<&'a LegalMove, MoveTextError> {
    let found = matching_moves(variant, legal, text)?;
    match found.as_slice() {
        [one] => Ok(one),
        many => Err(MoveTextError::Ambiguous {
            text: text.to_string(),
            candidates: sorted_texts(variant, many.iter().copied()),
        }),
    }
}

/// Every legal move a text names (one or more, in notation order); an error when it is not
/// a move or names none.
pub fn matching_moves<'a>(
    variant: Variant,
    legal: &'a [LegalMove],
    text: &str,
) -> Result<Vec<&'a LegalMove>, MoveTextError> {
    let squares = parse_move_squares(variant, text)?;
    let mut found: Vec<&LegalMove> = legal.iter().filter(|m| matches(&squares, m)).collect();
    if found.is_empty() {
        return Err(MoveTextError::Illegal {
            text: text.to_string(),
            legal: sorted_texts(variant, legal.iter()),
        });
    }
    sort_moves(variant, &mut found);
    Ok(found)
}

fn sorted_texts<'a>(variant: Variant, moves: impl Iterator<Item = &'a LegalMove>) -> Vec<String> {
    let mut moves: Vec<&LegalMove> = moves.collect();
    sort_moves(variant, &mut moves);
    moves.iter().map(|m| full_path_text(variant, m)).collect()
}
