//! damka: a draughts toolkit for seven rule sets.
//!
//! The rules engine generates exact legal moves for English, Italian, Spanish, Russian,
//! Brazilian, International and Turkish draughts; the notation module reads and writes FEN
//! and move text in each variant's PDN conventions; `tablebase` builds and probes
//! perfect-play endgame tables, and `search` is the engine that plays every other position,
//! probing the tables at its nodes.
//!
//! ```
//! use damka::rules::{English, Position, perft};
//! let start = Position::<English>::initial();
//! assert_eq!(perft(&start, 4), 1469);
//! ```
#![warn(missing_docs)]

pub mod analyse;
pub mod files;
pub mod notation;
pub mod pdn;
pub mod rules;
pub mod search;
pub mod tablebase;

pub use rules::{Color, Move, Position, RuleSet, Rules, Variant};
