//! How each variant numbers and orders its squares: the numbers of its playable squares
//! (from its declaration's facts), files and ranks, and the order a reader expects squares
//! and moves in. The notation writes squares from these; the tables order equal moves so.

use std::sync::OnceLock;

use super::board::{Diagonal8, Diagonal10, Orthogonal8};
use super::{BoardKind, Geometry, LegalMove, Square, SquareStyle, Variant};

pub(crate) const fn board_size(kind: BoardKind) -> u8 {
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
    let kind = variant.facts().board;
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
    let kind = variant.facts().board;
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
    let kind = variant.facts().board;
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
            .map(|&v| match v.facts().square_style {
                // Numeric FENs of the algebraic 8x8 variants number the squares as English does.
                SquareStyle::Algebraic if v.facts().board == BoardKind::Diagonal8 => {
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

/// A sort key that orders squares as a reader expects: by number, or by rank then file.
pub fn square_order(variant: Variant, sq: Square) -> u32 {
    match variant.facts().square_style {
        SquareStyle::Numeric => square_number(variant, sq).unwrap_or(0),
        SquareStyle::Algebraic => {
            let (file, rank) = file_rank(variant, sq);
            rank as u32 * 16 + file as u32
        }
    }
}

/// Sorts moves as a reader expects them: by start square, then end, then path.
pub fn sort_moves(variant: Variant, moves: &mut [&LegalMove]) {
    moves.sort_by_key(|m| {
        m.paths[0]
            .squares
            .iter()
            .map(|&sq| square_order(variant, sq))
            .collect::<Vec<_>>()
    });
}
