//! [`Position`]: the pieces of both sides and the side to move, always valid.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use super::board::{Bitboard, BoardKind, Color, Geometry, Square};
use super::moves::Move;
use super::variant::Rules;

/// Why a set of pieces is not a position of its variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// A square holds pieces of both colours.
    Overlap(Square),
    /// A piece stands on a bit that is not a playable square.
    OffBoard(u8),
    /// A king bit is set where no piece stands.
    KingWithoutPiece(Square),
    /// A man stands on the row where it would have been crowned.
    ManOnPromotionRow(Color, Square),
    /// A side has more pieces than the variant starts with.
    TooManyPieces {
        /// The side.
        color: Color,
        /// How many it has.
        count: u32,
        /// The most it may have.
        max: u32,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Overlap(sq) => {
                write!(f, "square bit {} holds a white and a black piece", sq.bit())
            }
            PositionError::OffBoard(bit) => write!(f, "bit {bit} is not a square of this board"),
            PositionError::KingWithoutPiece(sq) => {
                write!(f, "king marked on empty square bit {}", sq.bit())
            }
            PositionError::ManOnPromotionRow(c, sq) => {
                write!(f, "{c} man on its promotion row (square bit {})", sq.bit())
            }
            PositionError::TooManyPieces { color, count, max } => {
                write!(f, "{color} has {count} pieces, at most {max} allowed")
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// A position no game reaches: the side not to move has no pieces (`W:W:B`, `B:W:B`,
/// `W:WK5:B`). Every front end refuses it with this error ([`Position::reachable`]); the
/// game that ended by taking a side's last piece is written with that side to move, and
/// has lost (a loss at distance 0).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Unreachable {
    /// The side not to move, which has no pieces.
    pub idle: Color,
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "illegal position: {idle}, not to move, has no pieces (no game reaches it: the \
             capture of {idle}'s last piece ends the game with {idle} to move, a loss)",
            idle = self.idle
        )
    }
}

impl std::error::Error for Unreachable {}

/// A position of variant `R`: white pieces, black pieces, which of them are kings, side to move.
///
/// A `Position` is valid by construction (see [`Position::new`]).
pub struct Position<R: Rules> {
    white: Bitboard,
    black: Bitboard,
    kings: Bitboard,
    side: SideWord,
    rules: PhantomData<R>,
}

/// The side to move kept in a whole word, so that a position is four words without
/// padding: copies of it then move whole words. (With a one-byte side, a position built
/// and then copied stored its side as a byte and read it back as a word, which the
/// processor cannot forward from the store: a stall of a dozen cycles on every probe built
/// from bitboards.)
#[derive(Copy, Clone, PartialEq, Eq)]
#[repr(u64)]
enum SideWord {
    White = 0,
    Black = 1,
}

impl SideWord {
    #[inline(always)]
    const fn of(color: Color) -> SideWord {
        match color {
            Color::White => SideWord::White,
            Color::Black => SideWord::Black,
        }
    }

    #[inline(always)]
    const fn color(self) -> Color {
        match self {
            SideWord::White => Color::White,
            SideWord::Black => Color::Black,
        }
    }
}

impl<R: Rules> Clone for Position<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R: Rules> Copy for Position<R> {}

impl<R: Rules> PartialEq for Position<R> {
    fn eq(&self, other: &Self) -> bool {
        self.white == other.white
            && self.black == other.black
            && self.kings == other.kings
            && self.side == other.side
    }
}

impl<R: Rules> Eq for Position<R> {}

impl<R: Rules> Hash for Position<R> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.white, self.black, self.kings, self.side.color()).hash(state);
    }
}

impl<R: Rules> fmt::Debug for Position<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Position")
            .field("variant", &R::VARIANT)
            .field("white", &format_args!("{:#x}", self.white.0))
            .field("black", &format_args!("{:#x}", self.black.0))
            .field("kings", &format_args!("{:#x}", self.kings.0))
            .field("side", &self.side.color())
            .finish()
    }
}

impl<R: Rules> Position<R> {
    /// A position from its pieces, checked: squares on the board, no overlap, kings on pieces,
    /// no man on its promotion row, no side with more pieces than it starts with.
    pub fn new(
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        side: Color,
    ) -> Result<Self, PositionError> {
        let valid = R::Board::VALID;
        for bb in [white, black, kings] {
            if let Some(sq) = Bitboard(bb.0 & !valid).first() {
                return Err(PositionError::OffBoard(sq.bit()));
            }
        }
        if let Some(sq) = (white & black).first() {
            return Err(PositionError::Overlap(sq));
        }
        if let Some(sq) = (kings & !(white | black)).first() {
            return Err(PositionError::KingWithoutPiece(sq));
        }
        for (color, pieces) in [(Color::White, white), (Color::Black, black)] {
            let men = pieces & !kings;
            if let Some(sq) = (men & Bitboard(R::Board::promotion_row(color))).first() {
                return Err(PositionError::ManOnPromotionRow(color, sq));
            }
            if pieces.count() > R::MEN {
                return Err(PositionError::TooManyPieces {
                    color,
                    count: pieces.count(),
                    max: R::MEN,
                });
            }
        }
        Ok(Position {
            white,
            black,
            kings,
            side: SideWord::of(side),
            rules: PhantomData,
        })
    }

    /// A position from parts the caller knows to be valid (tablebase indexing).
    #[inline(always)]
    pub(crate) fn from_parts(
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        side: Color,
    ) -> Self {
        debug_assert!(Self::new(white, black, kings, side).is_ok());
        Position {
            white,
            black,
            kings,
            side: SideWord::of(side),
            rules: PhantomData,
        }
    }

    /// Whether a game can reach this position: the side not to move (the one that made
    /// the last move) has a piece. A side to move without pieces, or without a move, is a
    /// finished game that side has lost (a loss at distance 0), not an error.
    pub fn reachable(&self) -> Result<(), Unreachable> {
        let idle = self.side_to_move().opponent();
        match self.pieces(idle).is_empty() {
            true => Err(Unreachable { idle }),
            false => Ok(()),
        }
    }

    /// The initial position of the variant.
    pub fn initial() -> Self {
        let size = R::Board::SIZE;
        let (white_rows, black_rows) = match R::Board::KIND {
            BoardKind::Orthogonal8 => (1..3, 5..7),
            _ => (0..size / 2 - 1, size / 2 + 1..size),
        };
        let rows = |range: std::ops::Range<u8>| {
            let mut bb = Bitboard::EMPTY;
            for row in range {
                for col in 0..size {
                    if let Some(sq) = R::Board::square_at(col, row) {
                        bb |= sq.bb();
                    }
                }
            }
            bb
        };
        Position {
            white: rows(white_rows),
            black: rows(black_rows),
            kings: Bitboard::EMPTY,
            side: SideWord::of(R::FIRST),
            rules: PhantomData,
        }
    }

    /// A copy of the position, its boards read from memory a word at a time: for the
    /// probes, whose callers have often just written the position (built it from
    /// bitboards, or played a move into it). Those writes are a word each, and a wider read
    /// of two boards (which the compiler makes where it works on two at once) cannot be
    /// served from them: it waits until they reach the cache, and with it every later
    /// instruction (a fifth of a cached probe's time: benches/notes/probe.md, "Store
    /// forwarding").
    #[inline(always)]
    pub(crate) fn reread(&self) -> Self {
        // Safety: each pointer is to a field of `self`: valid, aligned and initialized.
        let word = |board: &Bitboard| Bitboard(unsafe { std::ptr::read_volatile(&board.0) });
        Position {
            white: word(&self.white),
            black: word(&self.black),
            kings: word(&self.kings),
            side: self.side,
            rules: PhantomData,
        }
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side.color()
    }

    /// The pieces of `color`.
    #[inline(always)]
    pub fn pieces(&self, color: Color) -> Bitboard {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// All kings, both colours.
    #[inline(always)]
    pub fn kings(&self) -> Bitboard {
        self.kings
    }

    /// The men of `color`.
    #[inline(always)]
    pub fn men_of(&self, color: Color) -> Bitboard {
        self.pieces(color) & !self.kings
    }

    /// The kings of `color`.
    #[inline(always)]
    pub fn kings_of(&self, color: Color) -> Bitboard {
        self.pieces(color) & self.kings
    }

    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.white | self.black
    }

    /// Every empty playable square.
    #[inline(always)]
    pub fn empty(&self) -> Bitboard {
        Bitboard(R::Board::VALID & !(self.white | self.black).0)
    }

    /// The same pieces with the other side to move.
    pub fn with_side_to_move(&self, side: Color) -> Self {
        Position {
            side: SideWord::of(side),
            ..*self
        }
    }

    /// The position after `mv`, a legal move of this position.
    #[inline(always)]
    pub fn play(&self, mv: &Move) -> Self {
        let path = mv.from().bb() ^ mv.to().bb();
        let (white, black) = match self.side.color() {
            Color::White => (self.white ^ path, self.black ^ mv.captured()),
            Color::Black => (self.white ^ mv.captured(), self.black ^ path),
        };
        Position {
            white,
            black,
            kings: self.kings ^ mv.kings_delta(),
            side: SideWord::of(self.side.color().opponent()),
            rules: PhantomData,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International, Turkish};

    /// A position is four whole words (the side included, see [`SideWord`]), and an absent
    /// one costs nothing more.
    #[test]
    fn a_position_is_four_words() {
        fn check<R: Rules>() {
            assert_eq!(std::mem::size_of::<Position<R>>(), 32, "{}", R::VARIANT);
            assert_eq!(std::mem::size_of::<Option<Position<R>>>(), 32);
            for side in [Color::White, Color::Black] {
                let p = Position::<R>::initial().with_side_to_move(side);
                assert_eq!(p.side_to_move(), side);
                assert_eq!(
                    p.with_side_to_move(side.opponent()).side_to_move(),
                    side.opponent()
                );
            }
        }
        check::<English>();
        check::<International>();
        check::<Turkish>();
    }
}
