//! Square names per variant: numbers (1-32, 1-50) or algebraic names (a1-h8).

use crate::rules::{BoardKind, Square, Variant};

pub use crate::rules::SquareStyle;
use crate::rules::numbering::board_size;
pub use crate::rules::numbering::{
    file_rank, numbered_squares, square_from_file_rank, square_from_number, square_number,
    square_order,
};

/// The board kind of a variant.
pub const fn board_kind(variant: Variant) -> BoardKind {
    variant.facts().board
}

/// The PDN square style of a variant.
pub const fn square_style(variant: Variant) -> SquareStyle {
    variant.facts().square_style
}

/// The capture separator of a variant's move text.
pub const fn capture_separator(variant: Variant) -> char {
    variant.facts().capture_separator
}

/// The square's name in the variant's notation: `"32"` or `"c3"`.
pub fn square_name(variant: Variant, sq: Square) -> String {
    match square_style(variant) {
        SquareStyle::Numeric => square_number(variant, sq).unwrap_or(0).to_string(),
        SquareStyle::Algebraic => {
            let (file, rank) = file_rank(variant, sq);
            format!("{}{}", (b'a' + file) as char, rank + 1)
        }
    }
}

/// Why a square name was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SquareError {
    /// Not a number nor an algebraic name.
    Malformed(String),
    /// A number outside 1..=N, or a name outside the board.
    OutOfRange(String),
    /// A light (unplayable) square.
    NotPlayable(String),
}

impl std::fmt::Display for SquareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SquareError::Malformed(s) => write!(f, "'{s}' is not a square"),
            SquareError::OutOfRange(s) => write!(f, "square '{s}' is off the board"),
            SquareError::NotPlayable(s) => write!(f, "square '{s}' is not a playable square"),
        }
    }
}

impl std::error::Error for SquareError {}

/// Reads a square: a number (leading zeros allowed) or, for the 8x8 variants written
/// algebraically, a name like `c3`.
pub fn parse_square(variant: Variant, text: &str) -> Result<Square, SquareError> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        let n: u32 = text
            .parse()
            .map_err(|_| SquareError::OutOfRange(text.to_string()))?;
        return square_from_number(variant, n)
            .ok_or_else(|| SquareError::OutOfRange(text.to_string()));
    }
    let bytes = text.as_bytes();
    if square_style(variant) == SquareStyle::Algebraic
        && bytes.len() >= 2
        && bytes[0].is_ascii_alphabetic()
        && bytes[1..].iter().all(|b| b.is_ascii_digit())
    {
        let file = bytes[0].to_ascii_lowercase() - b'a';
        let rank: u32 = text[1..]
            .parse()
            .map_err(|_| SquareError::OutOfRange(text.to_string()))?;
        let size = board_size(board_kind(variant)) as u32;
        if file as u32 >= size || rank == 0 || rank > size {
            return Err(SquareError::OutOfRange(text.to_string()));
        }
        return square_from_file_rank(variant, file, rank as u8 - 1)
            .ok_or_else(|| SquareError::NotPlayable(text.to_string()));
    }
    Err(SquareError::Malformed(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(variant: Variant, file: u8, rank: u8) -> String {
        square_name(
            variant,
            square_from_file_rank(variant, file, rank).expect("playable"),
        )
    }

    #[test]
    fn numbering_matches_rules_md() {
        // English: 1 = b8, 4 = h8, 29 = a1, 32 = g1.
        assert_eq!(name(Variant::English, 1, 7), "1");
        assert_eq!(name(Variant::English, 7, 7), "4");
        assert_eq!(name(Variant::English, 0, 0), "29");
        assert_eq!(name(Variant::English, 6, 0), "32");
        // Italian: 1 = a8, 4 = g8, 32 = h1.
        assert_eq!(name(Variant::Italian, 0, 7), "1");
        assert_eq!(name(Variant::Italian, 6, 7), "4");
        assert_eq!(name(Variant::Italian, 7, 0), "32");
        // Spanish: 1 = h1, 4 = b1, 32 = a8.
        assert_eq!(name(Variant::Spanish, 7, 0), "1");
        assert_eq!(name(Variant::Spanish, 1, 0), "4");
        assert_eq!(name(Variant::Spanish, 0, 7), "32");
        // International: 1 = b10, 5 = j10, 46 = a1, 50 = i1.
        assert_eq!(name(Variant::International, 1, 9), "1");
        assert_eq!(name(Variant::International, 9, 9), "5");
        assert_eq!(name(Variant::International, 0, 0), "46");
        assert_eq!(name(Variant::International, 8, 0), "50");
        assert_eq!(name(Variant::Russian, 2, 2), "c3");
        assert_eq!(name(Variant::Turkish, 7, 7), "h8");
        assert!(square_from_file_rank(Variant::Russian, 0, 1).is_none());
    }

    #[test]
    fn names_round_trip() {
        for v in Variant::ALL {
            let size = board_size(board_kind(v));
            let mut seen = 0;
            for rank in 0..size {
                for file in 0..size {
                    if let Some(sq) = square_from_file_rank(v, file, rank) {
                        seen += 1;
                        assert_eq!(file_rank(v, sq), (file, rank));
                        assert_eq!(parse_square(v, &square_name(v, sq)), Ok(sq));
                    }
                }
            }
            assert_eq!(seen, [32, 50, 64][board_kind(v) as usize]);
        }
        // Numeric squares in an algebraic variant use the English numbering: 1 = b8.
        assert_eq!(
            parse_square(Variant::Russian, "1").map(|s| square_name(Variant::Russian, s)),
            Ok("b8".to_string())
        );
        assert_eq!(
            parse_square(Variant::English, "05"),
            parse_square(Variant::English, "5")
        );
    }
}
