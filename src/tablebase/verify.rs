//! Verification: every block's checksum, then every stored value against its successors.
//!
//! A stored win must have a move to a loss one ply shorter and none faster; a loss only
//! moves to wins, the longest one ply shorter; a draw a move to a draw and none to a loss
//! for the opponent. Checking that the stored outcome equals the best outcome over the
//! moves checks all three at once. Capture positions and indices without a position hold
//! no value and are skipped. Reading every block checks every block's checksum; last, the
//! headers' counts of wins, draws, losses and unused indices are checked against a recount.

use rayon::prelude::*;

use super::format::{FileKind, unpack, wdl_code};
use super::index::{MoverFrame, SliceIndex};
use super::material::Material;
use super::outcome::{Outcome, Wdl};
use super::probe::{ProbeError, Tablebase};
use crate::rules::{MoveList, Rules, captures, generate};

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

/// What a range of indices holds: wins, draws, losses and indices not stored, and the first
/// bad value.
#[derive(Default)]
struct Tally {
    counts: [u64; 4],
    bad: Option<SliceCheck>,
}

impl Tally {
    /// Both ranges together, `self` the lower one.
    fn and(mut self, upper: Tally) -> Tally {
        for (c, u) in self.counts.iter_mut().zip(upper.counts) {
            *c += u;
        }
        self.bad = self.bad.or(upper.bad);
        self
    }
}

const CHUNK: u64 = 1 << 12;

/// A slice's stored outcomes, decoded into memory (meaningless where nothing is stored).
struct Decoded<R: Rules> {
    index: SliceIndex<R>,
    outcomes: Vec<Outcome>,
}

impl<R: Rules> Decoded<R> {
    fn load(tb: &Tablebase, m: Material) -> Result<Self, ProbeError> {
        let wdl = tb.table(R::VARIANT, m, FileKind::Wdl)?;
        let dtw = tb.table(R::VARIANT, m, FileKind::Dtw)?;
        let (hw, hd) = (wdl.header(), dtw.header());
        let blocks = (0..hw.blocks).into_par_iter().map(|b| wdl.decode_block(b));
        let wdl_values: Vec<Vec<u8>> = blocks.collect::<Result<_, _>>()?;
        let dtw_values: Vec<Vec<u8>> = (0..hd.blocks)
            .into_par_iter()
            .map(|b| dtw.decode_block(b))
            .collect::<Result<_, _>>()?;
        let outcomes = (0..hw.positions)
            .into_par_iter()
            .map(|i| {
                let (wb, wi) = (
                    (i / hw.block_positions as u64) as usize,
                    i % hw.block_positions as u64,
                );
                let (db, di) = (
                    (i / hd.block_positions as u64) as usize,
                    i % hd.block_positions as u64,
                );
                let d = unpack(&dtw_values[db], hd.value_bits, di as usize);
                match unpack(&wdl_values[wb], 2, wi as usize) as u8 {
                    wdl_code::WIN => Outcome::win(d),
                    wdl_code::LOSS => Outcome::loss(d),
                    _ => Outcome::DRAW,
                }
            })
            .collect();
        Ok(Decoded {
            index: SliceIndex::new(m),
            outcomes,
        })
    }

    /// The stored outcome of a position of this slice without a capture.
    fn get(&self, frame: &MoverFrame) -> Option<Outcome> {
        self.index.rank(frame).map(|i| self.outcomes[i as usize])
    }
}

/// Checks both files of slice `m` of variant `R`: checksums, then consistency. The slice and
/// its twin are decoded into memory; moves that leave the pair are probed.
pub fn verify_slice<R: Rules>(tb: &Tablebase, m: Material) -> Result<SliceCheck, ProbeError> {
    let own = Decoded::<R>::load(tb, m)?;
    let twin = if m.is_symmetric() {
        None
    } else {
        Some(Decoded::<R>::load(tb, m.flipped())?)
    };
    let twin = twin.as_ref().unwrap_or(&own);
    let chunks = own.index.size().div_ceil(CHUNK);
    let tally = (0..chunks)
        .into_par_iter()
        .map(|c| {
            check_range(
                tb,
                &own,
                twin,
                c * CHUNK..((c + 1) * CHUNK).min(own.index.size()),
            )
        })
        .try_reduce(Tally::default, |a, b| Ok(a.and(b)))?;
    if let Some(bad) = tally.bad {
        return Ok(bad);
    }
    for kind in [FileKind::Wdl, FileKind::Dtw] {
        let h = tb.table(R::VARIANT, m, kind)?;
        let h = h.header();
        let header = [h.wins, h.draws, h.losses, h.unused];
        if header != tally.counts {
            return Ok(SliceCheck::Counts {
                kind,
                header,
                counted: tally.counts,
            });
        }
    }
    Ok(SliceCheck::Ok)
}

fn check_range<R: Rules>(
    tb: &Tablebase,
    own: &Decoded<R>,
    twin: &Decoded<R>,
    range: std::ops::Range<u64>,
) -> Result<Tally, ProbeError> {
    let mut list = MoveList::new();
    let mut replies = MoveList::new();
    let mut tally = Tally::default();
    for i in range {
        let Some(frame) = own.index.unrank(i) else {
            tally.counts[3] += 1;
            continue;
        };
        let pos = frame.position::<R>();
        generate(&pos, &mut list);
        let moves = list.as_slice();
        if moves.first().is_some_and(|m| m.is_capture()) {
            tally.counts[3] += 1;
            continue;
        }
        let mut expected: Option<Outcome> = None;
        for mv in moves {
            let next = pos.play(mv);
            captures(&next, &mut replies);
            let after = match replies.as_slice().is_empty() && !mv.is_promotion() {
                true => twin.get(&MoverFrame::of(&next)),
                false => None,
            };
            let o = match after {
                Some(o) => o,
                None => tb.resolve(&next, true)?,
            }
            .before_move();
            expected = Some(expected.map_or(o, |e| e.max(o)));
        }
        let expected = expected.unwrap_or(Outcome::loss(0));
        let stored = own.outcomes[i as usize];
        tally.counts[match stored.wdl {
            Wdl::Win => 0,
            Wdl::Draw => 1,
            Wdl::Loss => 2,
        }] += 1;
        if stored != expected && tally.bad.is_none() {
            tally.bad = Some(SliceCheck::Bad {
                index: i,
                stored,
                expected,
            });
        }
    }
    Ok(tally)
}
