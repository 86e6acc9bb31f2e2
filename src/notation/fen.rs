//! FEN: `W:W31,32,K10:B1-12` (side to move, then each colour's squares; `K` marks a king).
//!
//! Reading is liberal as real files require: ranges, squares in any order, a trailing `.`,
//! empty fields, numeric squares in algebraic variants, the lidraughts `:H0:F1` suffix, and
//! the FEN pasted with its PDN tag or quotes (`[FEN "W:W31:B1"]`, `"W:W31:B1"`).
//! Writing lists each colour's squares in order, kings marked, no ranges.

use std::fmt;

use super::squares::{SquareError, parse_square, square_name, square_order};
use crate::rules::{Bitboard, Color, Position, PositionError, Rules, Square, Variant};

/// Why a FEN was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Nothing but blanks.
    Empty,
    /// The side to move is not `W` or `B`.
    BadSideToMove(String),
    /// No `:` after the side to move.
    MissingPieces,
    /// A field does not start with `W` or `B`.
    BadField(String),
    /// The same colour has two fields.
    RepeatedColor(Color),
    /// A square that could not be read.
    Square(SquareError),
    /// A range whose ends are reversed or not numeric.
    BadRange(String),
    /// A square listed twice.
    RepeatedSquare(String),
    /// A square given to both colours.
    Overlap(String),
    /// A man on the row where it would be crowned.
    ManOnPromotionRow(Color, String),
    /// Any other reason the pieces are not a position.
    Invalid(String),
    /// A pasted PDN tag that is not a FEN tag, or a FEN tag not closed.
    Tag(String),
    /// More pieces than the variant allows.
    TooManyPieces {
        /// The side with too many pieces.
        color: Color,
        /// How many it has.
        count: u32,
        /// The most allowed.
        max: u32,
    },
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => f.write_str("empty FEN"),
            FenError::BadSideToMove(s) => {
                write!(f, "side to move must be W or B, found '{s}'")
            }
            FenError::MissingPieces => f.write_str("no piece fields after the side to move"),
            FenError::BadField(s) => write!(f, "field '{s}' does not start with W or B"),
            FenError::RepeatedColor(c) => write!(f, "{c} pieces are given twice"),
            FenError::Square(e) => e.fmt(f),
            FenError::BadRange(s) => write!(f, "bad square range '{s}'"),
            FenError::RepeatedSquare(s) => write!(f, "square {s} is listed twice"),
            FenError::Overlap(s) => write!(f, "square {s} has both a white and a black piece"),
            FenError::ManOnPromotionRow(c, s) => {
                write!(f, "{c} man on {s}, its promotion row (it would be a king)")
            }
            FenError::Invalid(s) => write!(f, "invalid position: {s}"),
            FenError::Tag(s) => write!(
                f,
                "'{s}' is not a PDN FEN tag (expected a FEN, or [FEN \"...\"] as PDN writes it)"
            ),
            FenError::TooManyPieces { color, count, max } => {
                write!(f, "{color} has {count} pieces, at most {max} allowed")
            }
        }
    }
}

impl std::error::Error for FenError {}

impl From<SquareError> for FenError {
    fn from(e: SquareError) -> Self {
        FenError::Square(e)
    }
}

fn square_list(
    variant: Variant,
    list: &str,
    pieces: &mut Bitboard,
    kings: &mut Bitboard,
) -> Result<(), FenError> {
    for token in list.split(',') {
        let token = token.trim();
        if token.is_empty() {
            continue;
        }
        let (is_king, body) = match token.strip_prefix(['K', 'k']) {
            Some(rest) => (true, rest.trim()),
            None => (false, token),
        };
        let squares: Vec<Square> = match body.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (a.trim(), b.trim());
                let (Ok(lo), Ok(hi)) = (a.parse::<u32>(), b.parse::<u32>()) else {
                    return Err(FenError::BadRange(token.to_string()));
                };
                if lo > hi {
                    return Err(FenError::BadRange(token.to_string()));
                }
                (lo..=hi)
                    .map(|n| parse_square(variant, &n.to_string()))
                    .collect::<Result<_, _>>()?
            }
            None => vec![parse_square(variant, body)?],
        };
        for sq in squares {
            if pieces.contains(sq) {
                return Err(FenError::RepeatedSquare(square_name(variant, sq)));
            }
            *pieces |= sq.bb();
            if is_king {
                *kings |= sq.bb();
            }
        }
    }
    Ok(())
}

/// Reads a FEN into a position of variant `R`.
///
/// ```
/// use damka::notation::parse_fen;
/// use damka::rules::{English, Color};
/// let pos = parse_fen::<English>("W:WK19,K23:BK28,12").unwrap();
/// assert_eq!(pos.side_to_move(), Color::White);
/// assert_eq!(pos.kings().count(), 3);
/// ```
pub fn parse_fen<R: Rules>(text: &str) -> Result<Position<R>, FenError> {
    let variant = R::VARIANT;
    let text = unwrap_tag(text.trim())?;
    let text = text.strip_suffix('.').unwrap_or(text).trim();
    if text.is_empty() {
        return Err(FenError::Empty);
    }
    let mut fields = text.split(':');
    let side = match fields.next().unwrap_or("").trim() {
        "W" | "w" => Color::White,
        "B" | "b" => Color::Black,
        other => return Err(FenError::BadSideToMove(other.to_string())),
    };
    let mut rest = fields.peekable();
    if rest.peek().is_none() {
        return Err(FenError::MissingPieces);
    }
    let mut pieces = [Bitboard::EMPTY; 2];
    let mut seen = [false; 2];
    let mut kings = Bitboard::EMPTY;
    for field in rest {
        let field = field.trim();
        if field.is_empty() {
            continue;
        }
        let color = match field.as_bytes()[0] {
            b'W' | b'w' => Color::White,
            b'B' | b'b' => Color::Black,
            // lidraughts appends the half-move clock and move number: `:H0:F1`.
            b'H' | b'F' if field[1..].bytes().all(|b| b.is_ascii_digit()) => continue,
            _ => return Err(FenError::BadField(field.to_string())),
        };
        if seen[color.index()] {
            return Err(FenError::RepeatedColor(color));
        }
        seen[color.index()] = true;
        square_list(variant, &field[1..], &mut pieces[color.index()], &mut kings)?;
    }
    let [white, black] = pieces;
    Position::new(white, black, kings, side).map_err(|e| position_error(variant, e))
}

/// The FEN of a pasted PDN tag (`[FEN "W:W31:B1"]`) or a quoted one (`"W:W31:B1"`); other
/// text as it is.
fn unwrap_tag(text: &str) -> Result<&str, FenError> {
    fn quoted(value: &str) -> Option<&str> {
        let value = value.trim();
        value.strip_prefix('"')?.strip_suffix('"').map(str::trim)
    }
    let Some(tag) = text.strip_prefix('[') else {
        return Ok(quoted(text).unwrap_or(text));
    };
    let fen = tag.strip_suffix(']').and_then(|inner| {
        let inner = inner.trim_start();
        let (name, value) = inner.split_at(inner.find(|c: char| c.is_whitespace() || c == '"')?);
        name.eq_ignore_ascii_case("FEN").then_some(())?;
        quoted(value)
    });
    fen.ok_or_else(|| FenError::Tag(text.to_string()))
}

fn position_error(variant: Variant, e: PositionError) -> FenError {
    let name = |sq| square_name(variant, sq);
    match e {
        PositionError::Overlap(sq) => FenError::Overlap(name(sq)),
        PositionError::ManOnPromotionRow(c, sq) => FenError::ManOnPromotionRow(c, name(sq)),
        PositionError::TooManyPieces { color, count, max } => {
            FenError::TooManyPieces { color, count, max }
        }
        other @ (PositionError::OffBoard(_) | PositionError::KingWithoutPiece(_)) => {
            FenError::Invalid(other.to_string())
        }
    }
}

/// Writes a position as FEN, squares in the variant's notation and order.
pub fn write_fen<R: Rules>(pos: &Position<R>) -> String {
    let variant = R::VARIANT;
    let side = match pos.side_to_move() {
        Color::White => 'W',
        Color::Black => 'B',
    };
    let mut out = format!("{side}");
    for (color, letter) in [(Color::White, 'W'), (Color::Black, 'B')] {
        out.push(':');
        out.push(letter);
        let mut squares: Vec<Square> = pos.pieces(color).squares().collect();
        squares.sort_by_key(|&sq| square_order(variant, sq));
        let names: Vec<String> = squares
            .into_iter()
            .map(|sq| {
                let k = if pos.kings().contains(sq) { "K" } else { "" };
                format!("{k}{}", square_name(variant, sq))
            })
            .collect();
        out.push_str(&names.join(","));
    }
    out
}
