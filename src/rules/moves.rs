//! [`Move`]: the compact move used by search and perft; [`MovePath`]: its landing squares.

use super::board::{Bitboard, Square};

/// A legal move in compact form: where the piece goes, what it takes, how the kings change.
///
/// Playing it is three XORs (see [`Position::play`](super::Position::play)). Two capture
/// paths that take the same pieces and end on the same square are the same `Move`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    captured: Bitboard,
    kings_delta: Bitboard,
    from: Square,
    to: Square,
    promotion: bool,
}

impl Move {
    /// A move from its parts. `kings_delta` is XORed into the kings: the moving king's from and
    /// to squares, the crowning square, and every captured king.
    #[inline(always)]
    pub const fn new(
        from: Square,
        to: Square,
        captured: Bitboard,
        kings_delta: Bitboard,
        promotion: bool,
    ) -> Self {
        Move {
            captured,
            kings_delta,
            from,
            to,
            promotion,
        }
    }

    /// The square the piece leaves.
    #[inline(always)]
    pub const fn from(&self) -> Square {
        self.from
    }

    /// The square the piece ends on (may equal `from` after a round-trip capture).
    #[inline(always)]
    pub const fn to(&self) -> Square {
        self.to
    }

    /// The pieces taken (empty for a quiet move).
    #[inline(always)]
    pub const fn captured(&self) -> Bitboard {
        self.captured
    }

    /// The change to the kings bitboard.
    #[inline(always)]
    pub const fn kings_delta(&self) -> Bitboard {
        self.kings_delta
    }

    /// Whether the move takes pieces.
    #[inline(always)]
    pub const fn is_capture(&self) -> bool {
        self.captured.any()
    }

    /// Whether a man is crowned by the move.
    #[inline(always)]
    pub const fn is_promotion(&self) -> bool {
        self.promotion
    }
}

/// The squares a move passes through: its start, then every landing square, in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MovePath {
    /// `squares[0]` is the start; the last is where the piece ends.
    pub squares: Vec<Square>,
    /// Pieces taken, in the order they were jumped.
    pub captured: Vec<Square>,
}

/// A legal move with every capture path that realises it (one for quiet moves).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegalMove {
    /// The move.
    pub mv: Move,
    /// Its paths; the first is the canonical one. Duplicate captures have several.
    pub paths: Vec<MovePath>,
}
