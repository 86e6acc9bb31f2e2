//! Verification: every block's checksum, then every stored value against its successors.
//!
//! A stored win must have a move to a loss one ply shorter and none faster; a loss only
//! moves to wins, the longest one ply shorter; a draw a move to a draw and none to a loss
//! for the opponent. Checking that the stored outcome equals the best outcome over the
//! moves checks all three at once. Capture positions and indices without a position hold
//! no value and are skipped. Reading every block checks every block's checksum.
//!
//! The slice pair is read level by level of its men placements, as the generator builds it
//! (`levels`): a position's quiet successors are in its own level or the one above, so two
//! levels are in memory at a time, two bytes a position.

use std::sync::Arc;

use rayon::prelude::*;

use super::format::{FileKind, unpack, wdl_code};
use super::index::{MoverFrame, SliceIndex};
use super::levels::{Level, Member, Placements};
use super::material::Material;
use super::outcome::Outcome;
use super::probe::{ProbeError, Tablebase};
use super::table::TableFile;
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
}

/// Placements a parallel task of a level reads or checks at a time.
const MEMBERS_PER_TASK: usize = 256;

/// Checks both files of slice `m` of variant `R`: checksums, then consistency. The slice and
/// its twin are read level by level; moves that leave the pair are probed.
pub fn verify_slice<R: Rules>(tb: &Tablebase, m: Material) -> Result<SliceCheck, ProbeError> {
    let slices = if m.is_symmetric() {
        vec![m]
    } else {
        vec![m, m.flipped()]
    };
    let index: Vec<SliceIndex<R>> = slices.iter().map(|&s| SliceIndex::new(s)).collect();
    let placements = Placements::<R>::new(&slices);
    let files = slices
        .iter()
        .map(|&s| {
            Ok([
                tb.table(R::VARIANT, s, FileKind::Wdl)?,
                tb.table(R::VARIANT, s, FileKind::Dtw)?,
            ])
        })
        .collect::<Result<Vec<_>, ProbeError>>()?;
    let mut first_bad: Option<SliceCheck> = None;
    let mut above: Option<Level> = None;
    for level in (0..placements.levels()).rev() {
        let current = read_level(&files, &placements, level)?;
        let bad = check_level(tb, &index, &placements, &current, above.as_ref())?;
        let earlier = |b: &SliceCheck| match (&first_bad, b) {
            (Some(SliceCheck::Bad { index: old, .. }), SliceCheck::Bad { index: new, .. }) => {
                new < old
            }
            _ => true,
        };
        if let Some(b) = bad.filter(earlier) {
            first_bad = Some(b);
        }
        above = Some(current);
    }
    Ok(first_bad.unwrap_or(SliceCheck::Ok))
}

/// The stored outcomes (as codes) of every position of `level`, from both slices' files.
fn read_level<R: Rules>(
    files: &[[Arc<TableFile>; 2]],
    placements: &Placements<R>,
    level: usize,
) -> Result<Level, ProbeError> {
    let members = placements.members(level);
    let kings = placements.kings_per_placement();
    let batches = members
        .par_chunks(MEMBERS_PER_TASK)
        .map(|chunk| {
            let mut values = Vec::with_capacity(chunk.len() * kings as usize);
            let mut blocks: [[Decoded; 2]; 2] = Default::default();
            for m in chunk {
                let [wdl, dtw] = &files[m.slice as usize];
                let [w_block, d_block] = &mut blocks[m.slice as usize];
                let start = m.id * kings;
                for i in start..start + kings {
                    let w = w_block.value(wdl, i)?;
                    let d = d_block.value(dtw, i)?;
                    let o = match w as u8 {
                        wdl_code::WIN => Outcome::win(d),
                        wdl_code::LOSS => Outcome::loss(d),
                        _ => Outcome::DRAW,
                    };
                    values.push(o.code());
                }
            }
            Ok(values)
        })
        .collect::<Result<Vec<_>, ProbeError>>()?;
    let blocks = members
        .iter()
        .enumerate()
        .map(|(n, m)| {
            (
                m.key(),
                (n / MEMBERS_PER_TASK) as u32,
                (n % MEMBERS_PER_TASK) as u32,
            )
        })
        .collect();
    Ok(Level {
        blocks,
        batches,
        kings,
    })
}

/// The last decoded block of one file (one per file: members alternate between slices).
#[derive(Default)]
struct Decoded {
    block: Option<u32>,
    bytes: Vec<u8>,
}

impl Decoded {
    fn value(&mut self, file: &TableFile, i: u64) -> Result<u16, ProbeError> {
        let h = file.header();
        let b = (i / h.block_positions as u64) as u32;
        if self.block != Some(b) {
            self.bytes = file.decode_block(b)?;
            self.block = Some(b);
        }
        Ok(unpack(
            &self.bytes,
            h.value_bits,
            (i % h.block_positions as u64) as usize,
        ))
    }
}

/// Checks the positions of the first slice in `level`; the first bad one, if any.
fn check_level<R: Rules>(
    tb: &Tablebase,
    index: &[SliceIndex<R>],
    placements: &Placements<R>,
    level: &Level,
    above: Option<&Level>,
) -> Result<Option<SliceCheck>, ProbeError> {
    let kings = placements.kings_per_placement();
    let twin = if index.len() == 2 { 1 } else { 0 };
    let value = |slice: u8, i: u64| -> Option<Outcome> {
        let code = level.value(slice, i).or_else(|| above?.value(slice, i))?;
        Outcome::from_code(code)
    };
    let mine: Vec<u64> = level
        .blocks
        .iter()
        .filter(|b| b.0 & 1 == 0)
        .map(|b| Member::from_key(b.0).id)
        .collect();
    let bad = mine
        .par_chunks(MEMBERS_PER_TASK)
        .map_init(
            || (MoveList::new(), MoveList::new()),
            |(list, replies), ids| {
                for &id in ids {
                    for i in id * kings..(id + 1) * kings {
                        let Some(frame) = index[0].unrank(i) else {
                            continue;
                        };
                        let pos = frame.position::<R>();
                        generate(&pos, list);
                        let moves = list.as_slice();
                        if moves.first().is_some_and(|m| m.is_capture()) {
                            continue;
                        }
                        let mut expected: Option<Outcome> = None;
                        for mv in moves {
                            let next = pos.play(mv);
                            captures(&next, replies);
                            let after = match replies.as_slice().is_empty() && !mv.is_promotion() {
                                true => index[twin as usize]
                                    .rank(&MoverFrame::of(&next))
                                    .and_then(|j| value(twin, j)),
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
                        let stored = value(0, i).unwrap_or(Outcome::DRAW);
                        if stored != expected {
                            return Ok(Some(SliceCheck::Bad {
                                index: i,
                                stored,
                                expected,
                            }));
                        }
                    }
                }
                Ok(None)
            },
        )
        .find_first(|r| !matches!(r, Ok(None)));
    match bad {
        None | Some(Ok(None)) => Ok(None),
        Some(r) => r,
    }
}
