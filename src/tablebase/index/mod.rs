//! Numbering a slice's positions: material keys and the jobs that build them
//! ([`material`]), the perfect index of a slice ([`SliceIndex`]), and the placements of the
//! men by level that the generator and `verify` walk (`levels`).

pub(crate) mod levels;
pub mod material;
mod slice;

pub(crate) use slice::KingArrangements;
pub use slice::{MoverFrame, SliceIndex};
