//! libdamka: damka's endgame tables from C and C++.
//!
//! The functions are declared in `include/damka.h` (generated from this crate by cbindgen;
//! `cargo run -p damka-header` checks that the file is current). Two halves:
//!
//! - [`tablebase`]: open a tables directory, probe a FEN for win/draw/loss or the
//!   distance, list the legal moves with their results;
//! - [`position`]: the engine-facing probes from bitboards in the library's own layout,
//!   allocation-free and lock-free once the blocks are in memory, with a conditional form
//!   that never reads the disk.
//!
//! Every entry point runs under [`status`]'s guard: a failure is a `damka_status` code and
//! a message for `damka_last_error`; a panic is caught and reported, never unwound into C.
#![warn(missing_docs)]

// In this order in the header: codes and errors, the handle and the FEN probes, the
// engine-facing bitboard probes.
pub mod status;

pub mod tablebase;

pub mod position;

mod variant;

#[cfg(test)]
mod tests;
