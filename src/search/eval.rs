//! The static evaluation, one set of weights per board kind: material, kings, advancement,
//! tempo, the back rank, the centre and men that cover each other.

use std::marker::PhantomData;

use crate::Variant;
use crate::rules::{BoardKind, Color, Geometry, Position, Rules, Square};

/// A man, in centi-men.
pub const MAN: i32 = 100;

/// The value of a king in `variant`, in centi-men: short kings are worth less than flying kings, and a
/// flying king on the big board more than on the small one.
pub const fn king_value(variant: Variant) -> i32 {
    variant.facts().king_value
}

/// Square tables for variant `R`, built once per search.
pub struct Eval<R: Rules> {
    /// Men by colour and square, for the opening and middle game.
    man_open: [[i32; 64]; 2],
    /// Men by colour and square, for the ending (advancement counts more).
    man_end: [[i32; 64]; 2],
    /// Kings by square.
    king: [i32; 64],
    rules: PhantomData<R>,
}

impl<R: Rules> Default for Eval<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: Rules> Eval<R> {
    /// The tables of `R`.
    pub fn new() -> Self {
        let size = R::Board::SIZE as i32;
        let last = size - 2; // the last row a man stands on, counted from its own side
        let diagonal = R::Board::KIND != BoardKind::Orthogonal8;
        let back_rank = match R::Board::KIND {
            BoardKind::Diagonal8 => 10,
            BoardKind::Diagonal10 => 4,
            BoardKind::Orthogonal8 => 0,
        };
        let mut man_open = [[0; 64]; 2];
        let mut man_end = [[0; 64]; 2];
        let mut king = [0; 64];
        for bit in 0..64u8 {
            if R::Board::VALID >> bit & 1 == 0 {
                continue;
            }
            let (col, row) = R::Board::col_row(Square::from_bit(bit));
            let (col, row) = (col as i32, row as i32);
            let central = (2..size - 2).contains(&col) && (2..size - 2).contains(&row);
            let edge = col == 0 || col == size - 1;
            for color in [Color::White, Color::Black] {
                let r = match color {
                    Color::White => row,
                    Color::Black => size - 1 - row,
                };
                // Tempo: each row forward is worth a little; the back rank guards against
                // kings while the board is full.
                let mut open = 3 * r + if r == 0 { back_rank } else { 0 };
                if central {
                    open += 4;
                }
                if edge && diagonal {
                    open -= 3;
                }
                // Advancement: near the crowning row a man is close to a king.
                let end = 4 * r + 36 * r * r / (last * last) + if central { 2 } else { 0 };
                man_open[color.index()][bit as usize] = open;
                man_end[color.index()][bit as usize] = end;
            }
            let mut k = if central { 6 } else { 0 };
            if !R::FLYING_KINGS && (edge || row == 0 || row == size - 1) {
                k -= 5;
            }
            // The long diagonal between the double corners, for flying kings.
            if R::FLYING_KINGS && diagonal && col + row == size - 1 {
                k += 12;
            }
            king[bit as usize] = k;
        }
        Eval {
            man_open,
            man_end,
            king,
            rules: PhantomData,
        }
    }

    /// The score of `pos` for its side to move, in centi-men.
    pub fn evaluate(&self, pos: &Position<R>) -> i32 {
        let total = pos.occupied().count() as i32;
        let full = 2 * R::MEN as i32;
        let king_value = king_value(R::VARIANT);
        let mut open = 0;
        let mut end = 0;
        let mut material = [0i32; 2];
        for color in [Color::White, Color::Black] {
            let c = color.index();
            let sign = if color == Color::White { 1 } else { -1 };
            let men = pos.men_of(color);
            let kings = pos.kings_of(color);
            material[c] = MAN * men.count() as i32 + king_value * kings.count() as i32;
            let mut o = 0;
            let mut e = 0;
            for sq in men.squares() {
                o += self.man_open[c][sq.bit() as usize];
                e += self.man_end[c][sq.bit() as usize];
            }
            for sq in kings.squares() {
                o += self.king[sq.bit() as usize];
                e += self.king[sq.bit() as usize];
            }
            // Men covered from behind by a piece of their own side are hard to attack.
            let own = pos.pieces(color).0;
            let mut behind = 0u64;
            for d in 0..4 {
                if R::Board::FORWARD[c] >> d & 1 == 1 {
                    behind |= R::Board::step(own, d);
                }
            }
            o += 3 * (men.0 & behind).count_ones() as i32;
            open += sign * o;
            end += sign * e;
        }
        let positional = (open * total + end * (full - total)) / full;
        let diff = material[0] - material[1];
        // Ahead in material, trading down brings the win closer.
        let trade = diff * 8 / (total + 4);
        let white = diff + trade + positional;
        match pos.side_to_move() {
            Color::White => white,
            Color::Black => -white,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_fen;
    use crate::rules::{English, International, Turkish};

    #[test]
    fn symmetric_positions_score_zero_and_material_counts() {
        let e = Eval::<English>::new();
        assert_eq!(e.evaluate(&Position::<English>::initial()), 0);
        let i = Eval::<International>::new();
        assert_eq!(i.evaluate(&Position::<International>::initial()), 0);
        let t = Eval::<Turkish>::new();
        assert_eq!(t.evaluate(&Position::<Turkish>::initial()), 0);
        // A man up is about a man, from either side's view.
        let up = parse_fen::<English>("W:W21,22,23:B10,11").unwrap();
        let s = e.evaluate(&up);
        assert!((80..250).contains(&s), "{s}");
        assert_eq!(e.evaluate(&up.with_side_to_move(Color::Black)), -s);
        // A king is worth more than a man.
        let king = parse_fen::<English>("W:WK21:B10").unwrap();
        assert!(e.evaluate(&king) > 20);
    }
}
