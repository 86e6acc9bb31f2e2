//! A slice pair under check: how its positions are numbered ([`PairIndex`]), what its
//! positions tally ([`Tally`]), and the verdict on each slice ([`SliceCheck`]).

use crate::rules::Rules;
use crate::tablebase::format::FileKind;
use crate::tablebase::index::levels::Placements;
use crate::tablebase::index::material::Material;
use crate::tablebase::index::{KingArrangements, SliceIndex};
use crate::tablebase::value::RuleResult;
use crate::tablebase::value::{Outcome, Wdl};

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
    /// The first index whose stored win, draw or loss disagrees, in a slice without
    /// distances to the end.
    BadWdl {
        /// The index.
        index: u64,
        /// What the table says.
        stored: Wdl,
        /// What the moves say.
        expected: Wdl,
    },
    /// The first index whose stored distance to conversion disagrees.
    BadDtc {
        /// The index.
        index: u64,
        /// What the table says.
        stored: u16,
        /// What the moves say.
        expected: u16,
    },
    /// The first index whose stored rule result disagrees.
    BadRules {
        /// The index.
        index: u64,
        /// What the table says.
        stored: RuleResult,
        /// What the moves say.
        expected: RuleResult,
    },
    /// Every value agrees with its successors, but the rules file's header says another
    /// number of cursed wins and blessed losses than a recount.
    DrawnByRules {
        /// What the header says.
        header: u64,
        /// What the values hold.
        counted: u64,
    },
    /// Every value agrees with its successors, but a header's counts do not agree with a
    /// recount of the stored values.
    Counts {
        /// The file whose header is wrong.
        kind: FileKind,
        /// Wins, draws, losses and unused indices as the header says.
        header: [u64; 4],
        /// The same, counted.
        counted: [u64; 4],
    },
}

/// Positions a parallel task reads or checks at a time.
pub(super) const TASK_POSITIONS: usize = 1 << 14;

/// What some positions hold: wins, draws and losses, and the first bad value.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) counts: [u64; 3],
    /// Wins, draws (of every kind) and losses under the rules, then the draws that are
    /// wins or losses without the counts.
    pub(super) rule_counts: [u64; 4],
    pub(super) bad: Option<SliceCheck>,
}

impl Tally {
    /// Adds a level's tally. Levels go from high indices to low ones only roughly: the
    /// lowest bad index is kept.
    pub(super) fn add_level(&mut self, level: Tally) {
        let lower = match (&self.bad, &level.bad) {
            (Some(old), Some(new)) => bad_index(new) < bad_index(old),
            _ => self.bad.is_none(),
        };
        if lower {
            self.bad = level.bad;
        }
        for (c, n) in self.counts.iter_mut().zip(level.counts) {
            *c += n;
        }
        for (c, n) in self.rule_counts.iter_mut().zip(level.rule_counts) {
            *c += n;
        }
    }

    /// Both tallies together, `self` the one of lower indices.
    pub(super) fn and(mut self, upper: Tally) -> Tally {
        for (c, u) in self.counts.iter_mut().zip(upper.counts) {
            *c += u;
        }
        for (c, u) in self.rule_counts.iter_mut().zip(upper.rule_counts) {
            *c += u;
        }
        self.bad = self.bad.or(upper.bad);
        self
    }
}

/// The index of a bad value.
fn bad_index(bad: &SliceCheck) -> u64 {
    match bad {
        SliceCheck::Bad { index, .. }
        | SliceCheck::BadWdl { index, .. }
        | SliceCheck::BadDtc { index, .. }
        | SliceCheck::BadRules { index, .. } => *index,
        SliceCheck::Ok | SliceCheck::Counts { .. } | SliceCheck::DrawnByRules { .. } => u64::MAX,
    }
}

/// How a slice pair's positions are numbered: each slice's index, the placements of the
/// pair's men by level, and each slice's arrangements of kings.
pub(super) struct PairIndex<R: Rules> {
    pub(super) index: Vec<SliceIndex<R>>,
    pub(super) placements: Placements<R>,
    pub(super) arrangements: Vec<Option<KingArrangements>>,
}

impl<R: Rules> PairIndex<R> {
    /// The numbering of the pair `slices` (one slice where it is its own twin).
    pub(super) fn new(slices: &[Material]) -> Self {
        let index: Vec<SliceIndex<R>> = slices.iter().map(|&s| SliceIndex::new(s)).collect();
        PairIndex {
            placements: Placements::new(slices),
            arrangements: index.iter().map(|i| i.king_arrangements()).collect(),
            index,
        }
    }
}
