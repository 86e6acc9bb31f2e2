//! Everything about the game itself: boards, positions, moves, the seven rule sets and their
//! draw rules, perft.
//! Nothing here knows about files or notation.

pub mod board;
pub mod draw;
pub mod movegen;
pub mod moves;
pub mod numbering;
pub mod perft;
pub mod position;
pub mod variant;

pub use board::{Bitboard, BoardKind, Color, Geometry, OPPOSITE, Square};
pub use draw::{Counters, DrawReason, Governing, RuleSet, SideMaterial, UnknownRuleSet};
pub use movegen::{
    MoveList, MoveSink, captures, count_moves, generate, generate_counting_king_quiets,
    legal_moves, may_capture, with_moves,
};
pub use moves::{LegalMove, Move, MovePath};
pub use numbering::sort_moves;
pub use perft::{divide, perft};
pub use position::{Position, PositionError, Unreachable};
pub use variant::{
    Brazilian, English, International, Italian, MidCapturePromotion, Precedence, Rules, Russian,
    Spanish, SquareStyle, Turkish, UnknownVariant, Variant, VariantFacts,
};
