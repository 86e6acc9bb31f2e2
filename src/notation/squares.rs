//! Square names per variant: numbers (1-32, 1-50) or algebraic names (a1-h8).

use std::sync::OnceLock;

use crate::rules::board::{Diagonal8, Diagonal10, Orthogonal8};
use crate::rules::{BoardKind, Geometry, Square, Variant};

pub use crate::rules::SquareStyle;

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

const fn board_size(kind: BoardKind) -> u8 {
    match kind {
        BoardKind::Diagonal10 => 10,
        _ => 8,
    }
}

/// Whether a1 is a playable square ([`crate::rules::VariantFacts::a1_dark`]).
const fn a1_dark(variant: Variant) -> bool {
    variant.facts().a1_dark
}

fn square_at(kind: BoardKind, col: u8, row: u8) -> Option<Square> {
    match kind {
        BoardKind::Diagonal8 => Diagonal8::square_at(col, row),
        BoardKind::Diagonal10 => Diagonal10::square_at(col, row),
        BoardKind::Orthogonal8 => Orthogonal8::square_at(col, row),
    }
}

fn col_row(kind: BoardKind, sq: Square) -> (u8, u8) {
    match kind {
        BoardKind::Diagonal8 => Diagonal8::col_row(sq),
        BoardKind::Diagonal10 => Diagonal10::col_row(sq),
        BoardKind::Orthogonal8 => Orthogonal8::col_row(sq),
    }
}

/// The square on `file` (0 = a) and `rank` (0 = rank 1) of a variant's board, if playable.
pub fn square_from_file_rank(variant: Variant, file: u8, rank: u8) -> Option<Square> {
    let kind = board_kind(variant);
    let size = board_size(kind);
    if file >= size || rank >= size {
        return None;
    }
    let col = if kind != BoardKind::Orthogonal8 && a1_dark(variant) {
        size - 1 - file
    } else {
        file
    };
    square_at(kind, col, rank)
}

/// File (0 = a) and rank (0 = rank 1) of a square of a variant's board.
pub fn file_rank(variant: Variant, sq: Square) -> (u8, u8) {
    let kind = board_kind(variant);
    let (col, row) = col_row(kind, sq);
    let file = if kind != BoardKind::Orthogonal8 && a1_dark(variant) {
        board_size(kind) - 1 - col
    } else {
        col
    };
    (file, row)
}

/// Number-to-square tables of one variant.
struct Numbering {
    by_number: Vec<Square>,
    number_of_bit: [u8; 64],
}

fn build_numbering(variant: Variant) -> Numbering {
    let kind = board_kind(variant);
    let size = board_size(kind);
    let mut by_number = Vec::new();
    if kind != BoardKind::Orthogonal8 {
        // From h1 leftwards, rank by rank upwards (Spanish), or from the top left.
        let from_white = variant.facts().numbered_from_white;
        for r in 0..size {
            let rank = if from_white { r } else { size - 1 - r };
            for f in 0..size {
                let file = if from_white { size - 1 - f } else { f };
                if let Some(sq) = square_from_file_rank(variant, file, rank) {
                    by_number.push(sq);
                }
            }
        }
    }
    let mut number_of_bit = [0u8; 64];
    for (i, sq) in by_number.iter().enumerate() {
        number_of_bit[sq.bit() as usize] = i as u8 + 1;
    }
    Numbering {
        by_number,
        number_of_bit,
    }
}

fn numbering(variant: Variant) -> &'static Numbering {
    static TABLES: OnceLock<Vec<Numbering>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        Variant::ALL
            .iter()
            .map(|&v| match square_style(v) {
                // Numeric FENs of the algebraic 8x8 variants number the squares as English does.
                SquareStyle::Algebraic if board_kind(v) == BoardKind::Diagonal8 => {
                    build_numbering(Variant::English)
                }
                _ => build_numbering(v),
            })
            .collect()
    });
    &tables[Variant::ALL.iter().position(|&v| v == variant).unwrap_or(0)]
}

/// The square with PDN number `n`, if the variant has one (Turkish has no numbers).
pub fn square_from_number(variant: Variant, n: u32) -> Option<Square> {
    let table = &numbering(variant).by_number;
    (n >= 1)
        .then(|| table.get(n as usize - 1).copied())
        .flatten()
}

/// The PDN number of a square (numeric FEN squares for algebraic 8x8 variants too).
pub fn square_number(variant: Variant, sq: Square) -> Option<u32> {
    let n = numbering(variant).number_of_bit[sq.bit() as usize];
    (n != 0).then_some(n as u32)
}

/// The number of numbered squares (0 for Turkish).
pub fn numbered_squares(variant: Variant) -> u32 {
    numbering(variant).by_number.len() as u32
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

/// A sort key that orders squares as a reader expects: by number, or by rank then file.
pub fn square_order(variant: Variant, sq: Square) -> u32 {
    match square_style(variant) {
        SquareStyle::Numeric => square_number(variant, sq).unwrap_or(0),
        SquareStyle::Algebraic => {
            let (file, rank) = file_rank(variant, sq);
            rank as u32 * 16 + file as u32
        }
    }
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
