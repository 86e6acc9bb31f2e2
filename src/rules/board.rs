//! Board geometry: squares, bitboards and the direction steps of each board kind.
//!
//! Every board is laid out in one `u64`. The diagonal boards use the classic "ghost square"
//! layout: the playable squares of two consecutive rows take `WIDTH + 1` bits, the extra bit is
//! never a square, so each of the four diagonal steps is one constant shift and a mask. The
//! orthogonal Turkish board uses all 64 bits, row by row, with file masks for sideways steps.
//!
//! Rows count from White's side (row 0 is White's back rank); columns are internal and
//! numbered so that the lowest playable square of row 0 is in an odd column.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// One of the two players. White always starts at the bottom (row 0).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The side that starts on rows 0.. and moves up.
    White,
    /// The side that starts at the top and moves down.
    Black,
}

impl Color {
    /// The other colour.
    #[inline(always)]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black (array index).
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The colour's name in lower case.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A square: its bit index in the board's `u64` layout.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square at bit `index`; the caller guarantees the bit is a square of its board.
    #[inline(always)]
    pub const fn from_bit(index: u8) -> Square {
        Square(index)
    }

    /// The bit index of the square.
    #[inline(always)]
    pub const fn bit(self) -> u8 {
        self.0
    }

    /// The square as a one-bit set.
    #[inline(always)]
    pub const fn bb(self) -> Bitboard {
        Bitboard(1u64 << self.0)
    }
}

/// A set of squares.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// Whether no square is set.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether at least one square is set.
    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Number of squares set.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether `sq` is in the set.
    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.0 & 1 != 0
    }

    /// The lowest square of a non-empty set.
    #[inline(always)]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square(self.0.trailing_zeros() as u8))
        }
    }

    /// The squares, lowest first.
    #[inline(always)]
    pub fn squares(self) -> Squares {
        Squares(self.0)
    }
}

/// Iterator over the squares of a [`Bitboard`], lowest bit first.
#[derive(Clone, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square(self.0.trailing_zeros() as u8);
        self.0 &= self.0 - 1;
        Some(sq)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

macro_rules! bit_ops {
    ($($tr:ident $f:ident $tra:ident $fa:ident $op:tt),*) => {$(
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard { Bitboard(self.0 $op rhs.0) }
        }
        impl $tra for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, rhs: Bitboard) { self.0 = self.0 $op rhs.0; }
        }
    )*};
}
bit_ops!(BitAnd bitand BitAndAssign bitand_assign &, BitOr bitor BitOrAssign bitor_assign |,
    BitXor bitxor BitXorAssign bitxor_assign ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

/// The three board kinds damka plays on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BoardKind {
    /// 8x8, the 32 dark squares, diagonal moves.
    Diagonal8,
    /// 10x10, the 50 dark squares, diagonal moves.
    Diagonal10,
    /// 8x8, all 64 squares, orthogonal moves (Turkish).
    Orthogonal8,
}

/// A step direction: a shift of the bit layout, with the squares that may take it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Dir {
    /// Bits to shift left (negative: right).
    pub shift: i8,
    /// Squares from which the step stays on the board (before the shift).
    pub from_mask: u64,
}

/// Direction indexes: 0 and 1 point up (White's forward), 2 and 3 down, and `OPPOSITE` pairs them.
/// Diagonal boards: 0 = up-left, 1 = up-right, 2 = down-left, 3 = down-right.
/// The orthogonal board: 0 = up, 1 = left, 2 = right, 3 = down.
pub const OPPOSITE: [usize; 4] = [3, 2, 1, 0];

/// The geometry of one board kind, as compile-time constants.
pub trait Geometry: Copy + Default + Send + Sync + 'static {
    /// Which board this is.
    const KIND: BoardKind;
    /// Columns (and rows: every board is square).
    const SIZE: u8;
    /// Number of playable squares.
    const SQUARES: u8;
    /// The playable squares.
    const VALID: u64;
    /// The four step directions, indexed as described at [`OPPOSITE`].
    const DIRS: [Dir; 4];
    /// `RAYS[d][s]`: the squares a flying piece on square bit `s` passes going direction `d`
    /// on an empty board (`rays`).
    const RAYS: [[u64; 64]; 4];
    /// Direction set (bit per index) of a man's forward moves, by colour.
    const FORWARD: [u8; 2];
    /// Direction set of sideways moves (orthogonal board only).
    const SIDEWAYS: u8;
    /// Squares of row 0 (White's back rank).
    const ROW_FIRST: u64;
    /// Squares of the last row.
    const ROW_LAST: u64;
    /// Squares of the odd rows (1, 3, ...; row 0 is White's back rank).
    const ODD_ROWS: u64;
    /// Whether a man can stand on its own back rank (false in Turkish, where men start on the
    /// second row and never move backwards).
    const MEN_ON_BACK_RANK: bool;

    /// The square at internal column `col` and row `row`, if it is playable.
    fn square_at(col: u8, row: u8) -> Option<Square>;
    /// Internal column and row of a square.
    fn col_row(sq: Square) -> (u8, u8);

    /// Whether a quiet move from `from` to `to` keeps its row: a sideways step, which only
    /// boards with [`Geometry::SIDEWAYS`] moves have (on the others no square is computed).
    #[inline(always)]
    fn is_sideways(from: Square, to: Square) -> bool {
        Self::SIDEWAYS != 0 && Self::col_row(from).1 == Self::col_row(to).1
    }

    /// Moves every square of `bb` one step in direction `d`, dropping those that leave the board.
    #[inline(always)]
    fn step(bb: u64, d: usize) -> u64 {
        let dir = Self::DIRS[d];
        let b = bb & dir.from_mask;
        let moved = if dir.shift > 0 {
            b << dir.shift
        } else {
            b >> (-dir.shift)
        };
        moved & Self::VALID
    }

    /// The first square of `occupied` on the ray from the square `sq` (one bit) in direction
    /// `d`, or 0 when the ray meets none: where a flying piece's slide stops.
    #[inline(always)]
    fn first_on_ray(sq: u64, d: usize, occupied: u64) -> u64 {
        let hits = Self::RAYS[d][sq.trailing_zeros() as usize & 63] & occupied;
        if Self::DIRS[d].shift > 0 {
            // Squares along the ray have rising bits: the nearest is the lowest.
            hits & hits.wrapping_neg()
        } else if hits == 0 {
            0
        } else {
            1 << (63 - hits.leading_zeros())
        }
    }

    /// The board turned half a turn: White's side becomes Black's. Maps playable squares to
    /// playable squares (the layouts are point-symmetric).
    #[inline(always)]
    fn rotate(bb: u64) -> u64 {
        bb.reverse_bits() >> (Self::VALID.leading_zeros())
    }

    /// The squares a man of `color` can ever stand on.
    #[inline(always)]
    fn men_squares(color: Color) -> u64 {
        let (own_back, crown) = match color {
            Color::White => (Self::ROW_FIRST, Self::ROW_LAST),
            Color::Black => (Self::ROW_LAST, Self::ROW_FIRST),
        };
        let back = if Self::MEN_ON_BACK_RANK { 0 } else { own_back };
        Self::VALID & !crown & !back
    }

    /// The row where a man of `color` is crowned.
    #[inline(always)]
    fn promotion_row(color: Color) -> u64 {
        match color {
            Color::White => Self::ROW_LAST,
            Color::Black => Self::ROW_FIRST,
        }
    }
}

/// Bit of (col, row) in a ghost-square diagonal layout of `size` columns.
const fn diagonal_bit(size: u8, col: u8, row: u8) -> Option<u8> {
    if col >= size || row >= size || (col + row).is_multiple_of(2) {
        return None;
    }
    let half = size / 2;
    Some((row / 2) * (size + 1) + (row % 2) * half + col / 2)
}

const fn diagonal_valid(size: u8) -> u64 {
    let mut bits = 0u64;
    let mut row = 0;
    while row < size {
        let mut col = 0;
        while col < size {
            if let Some(b) = diagonal_bit(size, col, row) {
                bits |= 1 << b;
            }
            col += 1;
        }
        row += 1;
    }
    bits
}

const fn diagonal_row(size: u8, row: u8) -> u64 {
    let mut bits = 0u64;
    let mut col = 0;
    while col < size {
        if let Some(b) = diagonal_bit(size, col, row) {
            bits |= 1 << b;
        }
        col += 1;
    }
    bits
}

/// The squares of the odd rows of a ghost-square diagonal layout of `size` columns.
const fn diagonal_odd_rows(size: u8) -> u64 {
    let mut bits = 0u64;
    let mut row = 1;
    while row < size {
        bits |= diagonal_row(size, row);
        row += 2;
    }
    bits
}

/// For each direction and square of `valid`, the squares that repeated steps in that
/// direction reach (see [`Geometry::RAYS`]).
const fn rays(dirs: [Dir; 4], valid: u64) -> [[u64; 64]; 4] {
    let mut out = [[0u64; 64]; 4];
    let mut d = 0;
    while d < 4 {
        let dir = dirs[d];
        let mut sq = 0;
        while sq < 64 {
            if valid >> sq & 1 == 1 {
                let mut s = 1u64 << sq;
                loop {
                    let b = s & dir.from_mask;
                    s = if dir.shift > 0 {
                        b << dir.shift as u32
                    } else {
                        b >> (-dir.shift) as u32
                    } & valid;
                    if s == 0 {
                        break;
                    }
                    out[d][sq] |= s;
                }
            }
            sq += 1;
        }
        d += 1;
    }
    out
}

const fn diagonal_dirs(size: u8) -> [Dir; 4] {
    let half = (size / 2) as i8;
    let all = u64::MAX;
    [
        Dir {
            shift: half,
            from_mask: all,
        },
        Dir {
            shift: half + 1,
            from_mask: all,
        },
        Dir {
            shift: -(half + 1),
            from_mask: all,
        },
        Dir {
            shift: -half,
            from_mask: all,
        },
    ]
}

fn diagonal_col_row(size: u8, sq: Square) -> (u8, u8) {
    let pair = sq.bit() / (size + 1);
    let rest = sq.bit() % (size + 1);
    let half = size / 2;
    let row = pair * 2 + rest / half;
    let k = rest % half;
    let col = if row.is_multiple_of(2) {
        2 * k + 1
    } else {
        2 * k
    };
    (col, row)
}

/// 8x8 board, dark squares (English, Italian, Spanish, Russian, Brazilian).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Diagonal8;

/// 10x10 board, dark squares (International).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Diagonal10;

/// 8x8 board, all squares (Turkish).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Orthogonal8;

impl Geometry for Diagonal8 {
    const KIND: BoardKind = BoardKind::Diagonal8;
    const SIZE: u8 = 8;
    const SQUARES: u8 = 32;
    const VALID: u64 = diagonal_valid(8);
    const DIRS: [Dir; 4] = diagonal_dirs(8);
    const RAYS: [[u64; 64]; 4] = rays(diagonal_dirs(8), diagonal_valid(8));
    const FORWARD: [u8; 2] = [0b0011, 0b1100];
    const SIDEWAYS: u8 = 0;
    const ROW_FIRST: u64 = diagonal_row(8, 0);
    const ROW_LAST: u64 = diagonal_row(8, 7);
    const ODD_ROWS: u64 = diagonal_odd_rows(8);
    const MEN_ON_BACK_RANK: bool = true;

    fn square_at(col: u8, row: u8) -> Option<Square> {
        diagonal_bit(8, col, row).map(Square::from_bit)
    }

    fn col_row(sq: Square) -> (u8, u8) {
        diagonal_col_row(8, sq)
    }
}

impl Geometry for Diagonal10 {
    const KIND: BoardKind = BoardKind::Diagonal10;
    const SIZE: u8 = 10;
    const SQUARES: u8 = 50;
    const VALID: u64 = diagonal_valid(10);
    const DIRS: [Dir; 4] = diagonal_dirs(10);
    const RAYS: [[u64; 64]; 4] = rays(diagonal_dirs(10), diagonal_valid(10));
    const FORWARD: [u8; 2] = [0b0011, 0b1100];
    const SIDEWAYS: u8 = 0;
    const ROW_FIRST: u64 = diagonal_row(10, 0);
    const ROW_LAST: u64 = diagonal_row(10, 9);
    const ODD_ROWS: u64 = diagonal_odd_rows(10);
    const MEN_ON_BACK_RANK: bool = true;

    fn square_at(col: u8, row: u8) -> Option<Square> {
        diagonal_bit(10, col, row).map(Square::from_bit)
    }

    fn col_row(sq: Square) -> (u8, u8) {
        diagonal_col_row(10, sq)
    }
}

const FILE_0: u64 = 0x0101_0101_0101_0101;
const FILE_7: u64 = FILE_0 << 7;

/// The orthogonal board's steps: up, left, right, down.
const ORTHOGONAL_DIRS: [Dir; 4] = [
    Dir {
        shift: 8,
        from_mask: u64::MAX,
    },
    Dir {
        shift: -1,
        from_mask: !FILE_0,
    },
    Dir {
        shift: 1,
        from_mask: !FILE_7,
    },
    Dir {
        shift: -8,
        from_mask: u64::MAX,
    },
];

impl Geometry for Orthogonal8 {
    const KIND: BoardKind = BoardKind::Orthogonal8;
    const SIZE: u8 = 8;
    const SQUARES: u8 = 64;
    const VALID: u64 = u64::MAX;
    const DIRS: [Dir; 4] = ORTHOGONAL_DIRS;
    const RAYS: [[u64; 64]; 4] = rays(ORTHOGONAL_DIRS, u64::MAX);
    const FORWARD: [u8; 2] = [0b0001, 0b1000];
    const SIDEWAYS: u8 = 0b0110;
    const ROW_FIRST: u64 = 0xff;
    const ROW_LAST: u64 = 0xff << 56;
    const ODD_ROWS: u64 = 0xff00_ff00_ff00_ff00;
    const MEN_ON_BACK_RANK: bool = false;

    fn square_at(col: u8, row: u8) -> Option<Square> {
        (col < 8 && row < 8).then(|| Square::from_bit(row * 8 + col))
    }

    fn col_row(sq: Square) -> (u8, u8) {
        (sq.bit() % 8, sq.bit() / 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_geometry<G: Geometry>() {
        let mut count = 0;
        for row in 0..G::SIZE {
            for col in 0..G::SIZE {
                if let Some(sq) = G::square_at(col, row) {
                    count += 1;
                    assert_eq!(G::col_row(sq), (col, row));
                    assert!(G::VALID >> sq.bit() & 1 == 1);
                    // Every step lands where plain coordinates say it should.
                    for (d, &back_dir) in OPPOSITE.iter().enumerate() {
                        let (dc, dr): (i8, i8) = match (G::KIND, d) {
                            (BoardKind::Orthogonal8, 0) => (0, 1),
                            (BoardKind::Orthogonal8, 1) => (-1, 0),
                            (BoardKind::Orthogonal8, 2) => (1, 0),
                            (BoardKind::Orthogonal8, _) => (0, -1),
                            (_, 0) => (-1, 1),
                            (_, 1) => (1, 1),
                            (_, 2) => (-1, -1),
                            _ => (1, -1),
                        };
                        let (c, r) = (col as i8 + dc, row as i8 + dr);
                        let expected = if c < 0 || r < 0 {
                            None
                        } else {
                            G::square_at(c as u8, r as u8)
                        };
                        let got = Bitboard(G::step(sq.bb().0, d)).first();
                        assert_eq!(got, expected, "{:?} col {col} row {row} dir {d}", G::KIND);
                        let back = G::step(G::step(sq.bb().0, d), back_dir);
                        if expected.is_some() {
                            assert_eq!(back, sq.bb().0);
                        }
                    }
                }
            }
        }
        assert_eq!(count, G::SQUARES as usize);
        // Half a turn maps (col, row) to (size-1-col, size-1-row).
        for sq in Bitboard(G::VALID).squares() {
            let (col, row) = G::col_row(sq);
            let turned = G::square_at(G::SIZE - 1 - col, G::SIZE - 1 - row);
            assert_eq!(Bitboard(G::rotate(sq.bb().0)).first(), turned);
        }
        assert_eq!(G::VALID.count_ones(), G::SQUARES as u32);
    }

    #[test]
    fn geometries_step_like_coordinates() {
        check_geometry::<Diagonal8>();
        check_geometry::<Diagonal10>();
        check_geometry::<Orthogonal8>();
    }
}
