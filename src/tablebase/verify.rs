//! Verification: every block's checksum, then every stored value against its successors.
//!
//! A stored win must have a move to a loss one ply shorter and none faster; a loss only
//! moves to wins, the longest one ply shorter; a draw a move to a draw and none to a loss
//! for the opponent. Checking that the stored outcome equals the best outcome over the
//! moves checks all three at once. Capture positions and indices without a position hold
//! no value and are skipped.

use rayon::prelude::*;

use super::format::FileKind;
use super::index::SliceIndex;
use super::material::Material;
use super::outcome::Outcome;
use super::probe::{ProbeError, Tablebase};
use crate::rules::{MoveList, Rules, generate};

/// The verdict on one slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SliceCheck {
    /// Every value agrees with its successors.
    Ok,
    /// The first index whose stored value disagrees.
    Bad {
        /// The index.
        index: u64,
        /// What the table says.
        stored: Outcome,
        /// What the moves say.
        expected: Outcome,
    },
}

const CHUNK: u64 = 1 << 12;

/// Checks both files of slice `m` of variant `R`: checksums, then consistency.
pub fn verify_slice<R: Rules>(tb: &Tablebase, m: Material) -> Result<SliceCheck, ProbeError> {
    for kind in [FileKind::Wdl, FileKind::Dtw] {
        tb.table(R::VARIANT, m, kind)?.check_blocks()?;
    }
    let index = SliceIndex::<R>::new(m);
    let chunks = index.size().div_ceil(CHUNK);
    let bad = (0..chunks)
        .into_par_iter()
        .map(|c| check_range(tb, &index, c * CHUNK..((c + 1) * CHUNK).min(index.size())))
        .find_first(|r| !matches!(r, Ok(None)));
    match bad {
        None | Some(Ok(None)) => Ok(SliceCheck::Ok),
        Some(Ok(Some(bad))) => Ok(bad),
        Some(Err(e)) => Err(e),
    }
}

fn check_range<R: Rules>(
    tb: &Tablebase,
    index: &SliceIndex<R>,
    range: std::ops::Range<u64>,
) -> Result<Option<SliceCheck>, ProbeError> {
    let mut list = MoveList::new();
    for i in range {
        let Some(frame) = index.unrank(i) else {
            continue;
        };
        let pos = frame.position::<R>();
        generate(&pos, &mut list);
        let moves = list.as_slice();
        if moves.first().is_some_and(|m| m.is_capture()) {
            continue;
        }
        let mut expected = Outcome::loss(0);
        for (k, mv) in moves.iter().enumerate() {
            let o = tb.resolve(&pos.play(mv), true)?.before_move();
            expected = if k == 0 { o } else { expected.max(o) };
        }
        let stored = tb.resolve(&pos, true)?;
        if stored != expected {
            return Ok(Some(SliceCheck::Bad {
                index: i,
                stored,
                expected,
            }));
        }
    }
    Ok(None)
}
