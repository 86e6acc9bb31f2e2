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
    /// Every value agrees with its successors and the counts with a recount, but a header's
    /// longest distance or statistics ([`crate::tablebase::format::Stats`]) do not agree with
    /// the values.
    HeaderField {
        /// The file whose header is wrong.
        kind: FileKind,
        /// What is wrong: the field, what it says and what the values give.
        what: String,
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
    /// Capture positions won, drawn and lost once their captures are resolved.
    pub(super) captures: [u64; 3],
    /// Of the stored won and lost positions, the longest distance to the end, then to
    /// conversion, each with the first index that holds it.
    pub(super) longest: [Option<(u16, u64)>; 2],
    pub(super) bad: Option<SliceCheck>,
}

impl Tally {
    /// Adds a level's tally. Levels go from high indices to low ones only roughly: the
    /// lowest bad index is kept.
    pub(super) fn add_level(&mut self, level: Tally) {
        self.add_statistics(&level);
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

    /// Adds the capture positions' outcomes and the longest distances of `other`.
    fn add_statistics(&mut self, other: &Tally) {
        for (c, n) in self.captures.iter_mut().zip(other.captures) {
            *c += n;
        }
        for (mine, theirs) in self.longest.iter_mut().zip(other.longest) {
            if let Some(d) = theirs {
                mine.replace(longer(*mine, d));
            }
        }
    }

    /// Counts a stored won or lost position at index `index`, at `dtw` plies from the end
    /// and `dtc` from a conversion.
    pub(super) fn add_distances(&mut self, index: u64, dtw: u16, dtc: u16) {
        for (longest, d) in self.longest.iter_mut().zip([dtw, dtc]) {
            longest.replace(longer(*longest, (d, index)));
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
        self.add_statistics(&upper);
        self.bad = self.bad.or(upper.bad);
        self
    }
}

/// Of a longest distance so far with its first index (if any) and a distance at an index,
/// the longer, or the one first in index order.
fn longer(so_far: Option<(u16, u64)>, (d, i): (u16, u64)) -> (u16, u64) {
    match so_far {
        Some((longest, at)) if longest > d || (longest == d && at < i) => (longest, at),
        _ => (d, i),
    }
}

/// The index of a bad value.
fn bad_index(bad: &SliceCheck) -> u64 {
    match bad {
        SliceCheck::Bad { index, .. }
        | SliceCheck::BadWdl { index, .. }
        | SliceCheck::BadDtc { index, .. }
        | SliceCheck::BadRules { index, .. } => *index,
        SliceCheck::Ok
        | SliceCheck::Counts { .. }
        | SliceCheck::DrawnByRules { .. }
        | SliceCheck::HeaderField { .. } => u64::MAX,
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
