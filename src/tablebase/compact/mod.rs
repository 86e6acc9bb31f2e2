//! Passes that re-encode finished tables smaller: rule results derived from the distances
//! to conversion ([`derive_rules`]), one side to move ([`one_side`]), positions a probe
//! settles by a short search left unread ([`leave_unread`]), the three in turn for a set of
//! slices ([`compact`], what `generate` does once its jobs are built and `damka compact` on a
//! directory); files of older format versions converted to the current one ([`upgrade`]).

mod derived_rules;
mod one_side;
mod upgrade;

use std::path::Path;

pub use derived_rules::{DerivedRules, derive_rules};
pub use one_side::{LeftUnread, OneSide, leave_unread, one_side};
pub use upgrade::{Upgraded, upgrade};

use crate::Variant;
use crate::tablebase::index::material::Material;
use crate::tablebase::probe::ProbeError;

/// What [`compact`] did, pass by pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Compacted {
    /// The rules files re-encoded ([`derive_rules`]).
    pub derived: Vec<DerivedRules>,
    /// The slice pairs that keep one side to move ([`one_side`]).
    pub pairs: Vec<OneSide>,
    /// The slices whose files were re-encoded with positions unread ([`leave_unread`]).
    pub left_unread: Vec<LeftUnread>,
}

impl Compacted {
    /// Bytes of the files changed, before and after.
    pub fn bytes(&self) -> (u64, u64) {
        let derived = self.derived.iter().map(|d| (d.bytes_before, d.bytes_after));
        let pairs = self.pairs.iter().map(|d| (d.bytes_before, d.bytes_after));
        let unread = self
            .left_unread
            .iter()
            .map(|d| (d.bytes_before, d.bytes_after));
        derived
            .chain(pairs)
            .chain(unread)
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d))
    }
}

/// Compacts the slices `materials` of `variant` under `dir` that have at least
/// `min_pieces` pieces: [`derive_rules`], then [`one_side`] (of the pairs both of whose
/// slices are among `materials`), then [`leave_unread`] (distances to the end on even rows
/// too with `dtw_even_rows`). Safe to run again: what is done is skipped.
pub fn compact(
    dir: &Path,
    variant: Variant,
    materials: &[Material],
    min_pieces: u32,
    dtw_even_rows: bool,
) -> Result<Compacted, ProbeError> {
    Ok(Compacted {
        derived: derive_rules(dir, variant, materials, min_pieces)?,
        pairs: one_side(dir, variant, materials, min_pieces)?,
        left_unread: leave_unread(dir, variant, materials, min_pieces, dtw_even_rows)?,
    })
}
