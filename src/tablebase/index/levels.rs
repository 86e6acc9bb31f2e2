//! The men placements of a slice pair, ordered by advancement, and the units a level splits
//! into.
//!
//! A placement is one arrangement of every man of both sides; the positions with one
//! placement (all arrangements of the kings over the squares left) are a contiguous block of
//! a slice's index, `kings_per_placement` long, at `placement id * kings_per_placement`. The
//! level of a placement is the sum, over all men, of the rows each has advanced from its own
//! back rank. A quiet man move raises the level by one (a Turkish sideways move keeps it),
//! and king moves keep the placement, so a level depends only on itself and on the level
//! above it, besides the slices that captures and crownings lead to.
//!
//! A unit is the part of a level that its quiet moves keep together: a placement with the
//! side to move and the same men with the other side to move (the twin slice, or the same
//! slice turned), and in Turkish every placement with the same men on each row, since
//! sideways moves join them.

use std::sync::Arc;

use rayon::slice::ParallelSliceMut;

use super::material::Material;
use super::slice::{MoverFrame, SliceIndex, binomial, unrank_set};
use crate::rules::{Color, Geometry, Rules, Square};

/// The men sets of one side of a slice: every set of its men, by rank, with its advancement.
struct SideSets {
    masks: Vec<u64>,
    advance: Vec<u16>,
    /// Ranks of the sets by advancement.
    by_advance: Vec<Vec<u32>>,
    /// Per set, its place among the sets of its advancement (in `by_advance`).
    rank_in_advance: Vec<u32>,
}

impl SideSets {
    fn new<R: Rules>(men: u8, color: Color) -> SideSets {
        let domain = R::Board::men_squares(color);
        let n = binomial(domain.count_ones(), men as u32);
        let mut sets = SideSets {
            masks: Vec::with_capacity(n as usize),
            advance: Vec::with_capacity(n as usize),
            by_advance: Vec::new(),
            rank_in_advance: Vec::with_capacity(n as usize),
        };
        for rank in 0..n {
            let mask = unrank_set(rank, men as u32, domain);
            let advance: u16 = crate::rules::Bitboard(mask)
                .squares()
                .map(|sq| advance_of::<R>(sq, color))
                .sum();
            if sets.by_advance.len() <= advance as usize {
                sets.by_advance.resize_with(advance as usize + 1, Vec::new);
            }
            sets.rank_in_advance
                .push(sets.by_advance[advance as usize].len() as u32);
            sets.by_advance[advance as usize].push(rank as u32);
            sets.masks.push(mask);
            sets.advance.push(advance);
        }
        sets
    }

    fn max_advance(&self) -> usize {
        self.by_advance.len().saturating_sub(1)
    }
}

/// Rows a man of `color` on `sq` has advanced from its own back rank (frames see the side to
/// move as White, moving up).
fn advance_of<R: Rules>(sq: Square, color: Color) -> u16 {
    let row = R::Board::col_row(sq).1 as u16;
    match color {
        Color::White => row,
        Color::Black => R::Board::SIZE as u16 - 1 - row,
    }
}

/// The placements of one slice of the job.
struct SlicePlacements {
    mover: SideSets,
    other: SideSets,
}

impl SlicePlacements {
    /// The slot of placement `id` among the placements of advancement `advance` (overlapping
    /// men included), if it has that advancement: the placements are numbered by the
    /// advancement of the men of the side to move, then by their set's place among the sets
    /// of that advancement, then by the other side's set's; `firsts` holds the first slot of
    /// each advancement of the side to move.
    #[inline(always)]
    fn slot(&self, firsts: &[u64], advance: usize, id: u64) -> Option<usize> {
        let n = self.other.masks.len() as u64;
        let (mi, oi) = ((id / n) as usize, (id % n) as usize);
        let mover_advance = *self.mover.advance.get(mi)? as usize;
        let other_advance = *self.other.advance.get(oi)? as usize;
        if mover_advance + other_advance != advance {
            return None;
        }
        let row = self.other.by_advance[other_advance].len() as u64;
        let slot = firsts[mover_advance]
            + self.mover.rank_in_advance[mi] as u64 * row
            + self.other.rank_in_advance[oi] as u64;
        Some(slot as usize)
    }

    /// The first slot of each advancement of the side to move's men among the placements of
    /// advancement `advance`, and the number of slots.
    fn firsts(&self, advance: usize) -> (Vec<u64>, u64) {
        let mut slots = 0;
        let firsts = self
            .mover
            .by_advance
            .iter()
            .enumerate()
            .map(|(a, movers)| {
                let first = slots;
                if let Some(others) = advance
                    .checked_sub(a)
                    .and_then(|b| self.other.by_advance.get(b))
                {
                    slots += movers.len() as u64 * others.len() as u64;
                }
                first
            })
            .collect();
        (firsts, slots)
    }
}

/// One placement of one slice of the job: a block of `kings_per_placement` positions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Member {
    /// The slice in the job (0, or 1 for the twin).
    pub slice: u8,
    /// The placement's number in its slice (its block of the index).
    pub id: u64,
}

impl Member {
    /// The order of blocks in a level: by placement, the twin's block beside.
    #[inline(always)]
    pub fn key(self) -> u64 {
        self.id << 1 | self.slice as u64
    }

    /// The member whose key is `key`.
    #[inline(always)]
    pub fn from_key(key: u64) -> Member {
        Member {
            slice: (key & 1) as u8,
            id: key >> 1,
        }
    }
}

/// Every placement of a job's slices, by level.
pub(crate) struct Placements<R: Rules> {
    slices: Arc<[SlicePlacements]>,
    kings_per_placement: u64,
    rules: std::marker::PhantomData<R>,
}

impl<R: Rules> Placements<R> {
    /// The placements of `slices`: a slice and its twin, or one slice that is its own twin.
    pub fn new(slices: &[Material]) -> Self {
        let m = slices[0];
        let free = R::Board::SQUARES as u32 - m.men();
        Placements {
            slices: slices
                .iter()
                .map(|m| SlicePlacements {
                    mover: SideSets::new::<R>(m.mover_men, Color::White),
                    other: SideSets::new::<R>(m.other_men, Color::Black),
                })
                .collect(),
            kings_per_placement: binomial(free, m.mover_kings as u32)
                * binomial(free - m.mover_kings as u32, m.other_kings as u32),
            rules: std::marker::PhantomData,
        }
    }

    /// Positions per placement: the arrangements of the kings (the same in both slices).
    pub fn kings_per_placement(&self) -> u64 {
        self.kings_per_placement
    }

    /// Number of levels: 0 to the most advanced placement.
    pub fn levels(&self) -> usize {
        let s = &self.slices[0];
        s.mover.max_advance() + s.other.max_advance() + 1
    }

    /// Placements of slice `slice` (valid or not: men of both sides may claim one square).
    pub fn count(&self, slice: usize) -> u64 {
        let s = &self.slices[slice];
        s.mover.masks.len() as u64 * s.other.masks.len() as u64
    }

    /// The level of placement `id` of slice `slice`, or `None` when its men overlap.
    #[inline]
    pub fn level_of(&self, slice: usize, id: u64) -> Option<usize> {
        let s = &self.slices[slice];
        let n = s.other.masks.len() as u64;
        let (mi, oi) = ((id / n) as usize, (id % n) as usize);
        (s.mover.masks[mi] & s.other.masks[oi] == 0)
            .then(|| (s.mover.advance[mi] + s.other.advance[oi]) as usize)
    }

    /// The members of `level`, in block order ([`Member::key`]).
    pub fn members(&self, level: usize) -> Vec<Member> {
        // Each slice's members come in the order of their ids (sets by rank); the two
        // slices' lists are merged.
        let mut lists = [Vec::new(), Vec::new()];
        for ((slice, s), out) in self.slices.iter().enumerate().zip(&mut lists) {
            let n = s.other.masks.len() as u64;
            for (mi, (&mask, &advance)) in s.mover.masks.iter().zip(&s.mover.advance).enumerate() {
                let Some(need) = level.checked_sub(advance as usize) else {
                    continue;
                };
                let Some(others) = s.other.by_advance.get(need) else {
                    continue;
                };
                for &oi in others {
                    if s.other.masks[oi as usize] & mask == 0 {
                        out.push(Member {
                            slice: slice as u8,
                            id: mi as u64 * n + oi as u64,
                        });
                    }
                }
            }
        }
        let [first, second] = lists;
        merge_by_key(first, second)
    }

    /// Positions of `level` (both slices), overlapping men included: an upper bound, cheap to
    /// compute for plans.
    pub fn level_size_bound(&self, level: usize) -> u64 {
        // A slot for each placement of the level's advancement.
        self.slices
            .iter()
            .map(|s| s.firsts(level).1 * self.kings_per_placement)
            .sum()
    }

    /// The men of a member as its own slice sees them: the side to move's, the other's.
    #[inline]
    pub fn men(&self, m: Member) -> (u64, u64) {
        let s = &self.slices[m.slice as usize];
        let n = s.other.masks.len() as u64;
        (
            s.mover.masks[(m.id / n) as usize],
            s.other.masks[(m.id % n) as usize],
        )
    }

    /// The men of a member as the first slice sees them (its side to move first).
    fn men_in_first_frame(&self, m: Member) -> (u64, u64) {
        let (mover, other) = self.men(m);
        if m.slice == 0 {
            (mover, other)
        } else {
            (R::Board::rotate(other), R::Board::rotate(mover))
        }
    }

    /// What a unit's members share: the men (or, in Turkish, the men on each row) in the first
    /// slice's frame, the same for a placement and its turned twin.
    fn signature(&self, m: Member) -> u128 {
        let (a, b) = self.men_in_first_frame(m);
        let sig = |a: u64, b: u64| -> u128 {
            if R::Board::SIDEWAYS == 0 {
                (a as u128) << 64 | b as u128
            } else {
                (row_counts::<R>(a) as u128) << 64 | row_counts::<R>(b) as u128
            }
        };
        let own = sig(a, b);
        if self.slices.len() == 1 {
            // One slice is its own twin: the turned placement is in it too.
            own.min(sig(R::Board::rotate(b), R::Board::rotate(a)))
        } else {
            own
        }
    }

    /// The units of a level's members: groups of member numbers (indices into `members`),
    /// each group sorted.
    pub fn units(&self, members: &[Member]) -> Vec<Vec<u32>> {
        let mut order: Vec<(u128, u32)> = members
            .iter()
            .enumerate()
            .map(|(i, &m)| (self.signature(m), i as u32))
            .collect();
        order.par_sort_unstable();
        let mut units: Vec<Vec<u32>> = Vec::new();
        let mut last = None;
        for (sig, i) in order {
            if last != Some(sig) {
                units.push(Vec::new());
                last = Some(sig);
            }
            if let Some(unit) = units.last_mut() {
                unit.push(i);
            }
        }
        units
    }
}

/// The members of `a` and `b`, each in key order, in key order.
fn merge_by_key(a: Vec<Member>, b: Vec<Member>) -> Vec<Member> {
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        let next = if x.key() < y.key() {
            a.next()
        } else {
            b.next()
        };
        out.extend(next);
    }
    out.extend(a);
    out.extend(b);
    out
}

/// The values of a level's positions (outcome codes while building, or as stored), in
/// batches of blocks, and where each block is.
pub(crate) struct Level {
    /// Per block, in key order: its key, batch and place in the batch (in blocks).
    pub blocks: Vec<(u64, u32, u32)>,
    /// The values, a whole number of blocks a batch.
    pub batches: Vec<Vec<u16>>,
    /// Positions a block.
    pub kings: u64,
    /// The advancement of the level's placements.
    advance: usize,
    /// The job's slices' placements, whose slots [`Level::place`] computes.
    slices: Arc<[SlicePlacements]>,
    /// Per slice, where each placement of the level's advancement is: a lookup reads one
    /// slot, searching nothing.
    slots: Vec<Slots>,
}

/// Where the blocks of one slice's placements of one advancement are.
struct Slots {
    /// Per slot ([`SlicePlacements::slot`]), the batch and place of its block
    /// ([`NO_BLOCK`] where none, as where men overlap).
    places: Vec<(u32, u32)>,
    /// The first slot of each advancement of the side to move's men.
    firsts: Vec<u64>,
}

/// The batch and place of a slot that holds no placement of the level.
const NO_BLOCK: (u32, u32) = (u32::MAX, 0);

impl<R: Rules> Placements<R> {
    /// The level made of `blocks` (see [`Level::blocks`]) and `batches`.
    pub fn level(&self, blocks: Vec<(u64, u32, u32)>, batches: Vec<Vec<u16>>) -> Level {
        let advance = blocks
            .first()
            .and_then(|b| {
                let m = Member::from_key(b.0);
                self.level_of(m.slice as usize, m.id)
            })
            .unwrap_or(0);
        let mut slots: Vec<Slots> = self
            .slices
            .iter()
            .map(|s| {
                let (firsts, n) = s.firsts(advance);
                Slots {
                    places: vec![NO_BLOCK; n as usize],
                    firsts,
                }
            })
            .collect();
        for &(key, batch, place) in &blocks {
            let m = Member::from_key(key);
            let slots = &mut slots[m.slice as usize];
            // Every block of a level has its advancement: one without a slot is never found.
            if let Some(slot) = self.slices[m.slice as usize].slot(&slots.firsts, advance, m.id) {
                slots.places[slot] = (batch, place);
            }
        }
        Level {
            blocks,
            batches,
            kings: self.kings_per_placement,
            advance,
            slices: Arc::clone(&self.slices),
            slots,
        }
    }
}

impl Level {
    /// Positions in the level.
    pub fn positions(&self) -> u64 {
        self.blocks.len() as u64 * self.kings
    }

    /// The value at `index` of slice `slice`, if its placement is in this level.
    #[inline]
    pub fn value(&self, slice: u8, index: u64) -> Option<u16> {
        let block = self.block(slice, index / self.kings)?;
        block.get((index % self.kings) as usize).copied()
    }

    /// The values of placement `id` of slice `slice`, if it is in this level.
    #[inline]
    pub fn block(&self, slice: u8, id: u64) -> Option<&[u16]> {
        let (batch, at) = self.place(slice, id)?;
        self.batches[batch].get(at..at + self.kings as usize)
    }

    /// Where the values of placement `id` of slice `slice` start: its batch and the place
    /// in it, if it is in this level.
    #[inline]
    pub fn place(&self, slice: u8, id: u64) -> Option<(usize, usize)> {
        let slots = self.slots.get(slice as usize)?;
        let slot = self.slices[slice as usize].slot(&slots.firsts, self.advance, id)?;
        let (batch, place) = *slots.places.get(slot)?;
        // A slot of no block holds NO_BLOCK, past every batch.
        (batch != NO_BLOCK.0).then(|| (batch as usize, place as usize * self.kings as usize))
    }

    /// The placements of slice `slice` in this level, each with where its values start,
    /// in the order of their placements.
    pub fn starts(&self, slice: u8) -> impl Iterator<Item = (u64, Place)> {
        let k = self.kings as usize;
        self.blocks
            .iter()
            .filter(move |b| b.0 & 1 == slice as u64)
            .map(move |&(key, batch, place)| {
                let start = Place {
                    level: 0,
                    batch: batch as usize,
                    at: place as usize * k,
                };
                (Member::from_key(key).id, start)
            })
    }

    /// The values of slice `slice`'s blocks, in the order of their placements.
    pub fn slice_values(&self, slice: u8) -> impl Iterator<Item = &[u16]> {
        let k = self.kings as usize;
        self.blocks
            .iter()
            .filter(move |b| b.0 & 1 == slice as u64)
            .map(move |&(_, batch, place)| {
                let at = place as usize * k;
                &self.batches[batch as usize][at..at + k]
            })
    }
}

/// Where a position's value is in the levels an [`Above`] reads: the level (its place in
/// the list), the batch and the place in it. Levels built on the same blocks (a level's
/// values, distances to conversion and rule results) hold a position at the same place.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// The level, in the order given to [`Above::new`].
    pub level: usize,
    batch: usize,
    at: usize,
}

impl Level {
    /// The value at `place`, found in a level of this one's blocks.
    #[inline(always)]
    pub fn at(&self, place: Place) -> u16 {
        self.batches[place.batch][place.at]
    }

    /// Asks for the value at `place` to be loaded (see [`prefetch`]).
    #[inline(always)]
    pub fn prefetch(&self, place: Place) {
        if let Some(value) = self.batches.get(place.batch).and_then(|b| b.get(place.at)) {
            prefetch(value);
        }
    }
}

/// Asks the processor to load the cache line of `value`, without waiting for it: the walks
/// of the generator and the verify's reads of successors miss the cache.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it reads nothing and cannot fault.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

impl Place {
    /// The place `k` positions after this one in its batch (the arrangement of the kings
    /// `k` of a placement that starts here).
    #[inline(always)]
    pub fn plus(self, k: usize) -> Place {
        Place {
            at: self.at + k,
            ..self
        }
    }

    /// The position's number in its level's batch.
    #[inline(always)]
    pub fn in_batch(self) -> usize {
        self.at
    }

    /// The batch of its level that holds the position.
    #[inline(always)]
    pub fn batch(self) -> usize {
        self.batch
    }
}

/// Levels read by placement, with the placements lately read: the positions of one
/// placement (all arrangements of the kings) move to the same few placements, each found
/// once for all of them.
pub(crate) struct Above<'a, const N: usize> {
    levels: [Option<&'a Level>; N],
    /// (slice, men of the side to move, men of the other side, where their values start),
    /// two ways a set of [`RECENT_SETS`] chosen by a hash of the men, the one used last
    /// first; an empty way's slice is [`NO_SLICE`].
    recent: Vec<(u8, u64, u64, Place)>,
}

/// Sets of placements an [`Above`] remembers (a power of two).
const RECENT_SETS: usize = 32;
/// The slice of a way of [`Above::recent`] that holds nothing.
const NO_SLICE: u8 = u8::MAX;

impl<'a, const N: usize> Above<'a, N> {
    /// Reads `levels`, the first that holds a placement giving its values.
    pub fn new(levels: [Option<&'a Level>; N]) -> Self {
        let empty = Place {
            level: 0,
            batch: 0,
            at: 0,
        };
        Above {
            levels,
            recent: vec![(NO_SLICE, 0, 0, empty); 2 * RECENT_SETS],
        }
    }

    /// The first level read.
    pub fn level(&self) -> Option<&'a Level> {
        self.levels.first().copied().flatten()
    }

    /// The value of `frame`, a position of slice `slice` (indexed by `index`), if its
    /// placement is in the levels.
    #[inline]
    pub fn value<R: Rules>(
        &mut self,
        index: &SliceIndex<R>,
        slice: u8,
        frame: &MoverFrame,
    ) -> Option<u16> {
        let place = self.place(index, slice, frame)?;
        Some(self.levels[place.level]?.at(place))
    }

    /// Where the value of `frame`, a position of slice `slice` (indexed by `index`), is, if
    /// its placement is in the levels.
    #[inline]
    pub fn place<R: Rules>(
        &mut self,
        index: &SliceIndex<R>,
        slice: u8,
        frame: &MoverFrame,
    ) -> Option<Place> {
        let kings = self.level()?.kings;
        let in_levels = |id: u64| {
            self.levels.iter().enumerate().find_map(|(level, l)| {
                let (batch, at) = l.as_ref()?.place(slice, id)?;
                Some(Place { level, batch, at })
            })
        };
        if kings == 1 {
            // One position a placement: nothing to share.
            return in_levels(index.rank(frame)?);
        }
        let (mover, other) = (frame.mover & !frame.kings, frame.other & !frame.kings);
        let hash = (mover.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ other.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ u64::from(slice))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let set = 2 * (hash >> (64 - RECENT_SETS.trailing_zeros())) as usize;
        let ways = &mut self.recent[set..set + 2];
        let hit = |r: &(u8, u64, u64, Place)| r.0 == slice && r.1 == mover && r.2 == other;
        let start = if hit(&ways[0]) {
            ways[0].3
        } else if hit(&ways[1]) {
            ways.swap(0, 1);
            ways[0].3
        } else {
            let start = in_levels(index.rank(frame)? / kings)?;
            ways[1] = ways[0];
            ways[0] = (slice, mover, other, start);
            start
        };
        Some(start.plus(index.kings_rank(frame) as usize))
    }
}

/// Men per row, four bits a row.
fn row_counts<R: Rules>(men: u64) -> u64 {
    crate::rules::Bitboard(men)
        .squares()
        .map(|sq| 1u64 << (4 * R::Board::col_row(sq).1 as u32))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International, MoveList, Turkish, generate};
    use crate::tablebase::SliceIndex;
    use crate::tablebase::index::MoverFrame;

    /// Every valid placement is in exactly one level, in key order, and the levels list
    /// them all.
    fn levels_cover<R: Rules>(slices: &[Material]) {
        let p = Placements::<R>::new(slices);
        let mut seen = vec![Vec::new(); slices.len()];
        for level in 0..p.levels() {
            let members = p.members(level);
            assert!(members.windows(2).all(|w| w[0].key() < w[1].key()));
            assert!(p.level_size_bound(level) >= members.len() as u64 * p.kings_per_placement());
            for m in members {
                assert_eq!(p.level_of(m.slice as usize, m.id), Some(level));
                seen[m.slice as usize].push(m.id);
            }
        }
        for (s, ids) in seen.iter_mut().enumerate() {
            ids.sort_unstable();
            let valid: Vec<u64> = (0..p.count(s))
                .filter(|&id| p.level_of(s, id).is_some())
                .collect();
            assert_eq!(*ids, valid);
        }
    }

    #[test]
    fn levels_cover_every_placement() {
        levels_cover::<English>(&[Material::new(2, 1, 1, 1), Material::new(1, 1, 2, 1)]);
        levels_cover::<English>(&[Material::new(2, 0, 2, 0)]);
        levels_cover::<International>(&[Material::new(1, 1, 2, 0), Material::new(2, 0, 1, 1)]);
        levels_cover::<Turkish>(&[Material::new(2, 0, 1, 1), Material::new(1, 1, 2, 0)]);
    }

    /// A level built on its members' blocks, in an order other than theirs, finds each
    /// block where it was put and no placement of another level or with overlapping men.
    fn levels_find_their_blocks<R: Rules>(slices: &[Material]) {
        let p = Placements::<R>::new(slices);
        let k = p.kings_per_placement() as usize;
        for level in 0..p.levels() {
            let members = p.members(level);
            // Two batches, the members' blocks in turn into each, last member first.
            let blocks: Vec<(u64, u32, u32)> = members
                .iter()
                .rev()
                .enumerate()
                .map(|(n, m)| (m.key(), (n % 2) as u32, (n / 2) as u32))
                .collect();
            let sorted = {
                let mut b = blocks.clone();
                b.sort_unstable();
                b
            };
            let l = p.level(sorted, vec![Vec::new(), Vec::new()]);
            for &(key, batch, place) in &blocks {
                let m = Member::from_key(key);
                let found = l.place(m.slice, m.id);
                assert_eq!(found, Some((batch as usize, place as usize * k)));
            }
            for s in 0..slices.len() {
                for id in 0..p.count(s) {
                    if p.level_of(s, id) != Some(level) {
                        assert_eq!(
                            l.place(s as u8, id),
                            None,
                            "level {level} slice {s} id {id}"
                        );
                    }
                }
                assert_eq!(l.place(s as u8, p.count(s)), None);
            }
        }
    }

    #[test]
    fn levels_find_every_block_by_its_slot() {
        levels_find_their_blocks::<English>(&[
            Material::new(2, 1, 1, 1),
            Material::new(1, 1, 2, 1),
        ]);
        levels_find_their_blocks::<English>(&[Material::new(3, 0, 2, 0)]);
        levels_find_their_blocks::<International>(&[
            Material::new(1, 1, 2, 0),
            Material::new(2, 0, 1, 1),
        ]);
        levels_find_their_blocks::<Turkish>(&[
            Material::new(2, 0, 1, 1),
            Material::new(1, 1, 2, 0),
        ]);
    }

    /// Quiet moves that do not crown: a man's step raises the level by one (a Turkish
    /// sideways step keeps it, in the same unit), a king's move keeps the placement and the
    /// unit; the successor is in the twin slice.
    fn moves_follow_levels<R: Rules>(slices: &[Material]) {
        let p = Placements::<R>::new(slices);
        let index: Vec<SliceIndex<R>> = slices.iter().map(|&m| SliceIndex::new(m)).collect();
        let k = p.kings_per_placement();
        let unit_of = |level: usize, s: u8, id: u64| -> Option<usize> {
            let members = p.members(level);
            let units = p.units(&members);
            let at = members.iter().position(|m| m.slice == s && m.id == id)? as u32;
            units.iter().position(|u| u.contains(&at))
        };
        let twin = |s: usize| if slices.len() == 2 { 1 - s } else { 0 };
        let mut list = MoveList::new();
        let mut checked = 0;
        for s in 0..slices.len() {
            for i in (0..index[s].size()).step_by(97) {
                let Some(frame) = index[s].unrank(i) else {
                    continue;
                };
                let pos = frame.position::<R>();
                let level = p.level_of(s, i / k).expect("a valid position has a level");
                generate(&pos, &mut list);
                for mv in list.as_slice() {
                    if mv.is_capture() || mv.is_promotion() {
                        continue;
                    }
                    let t = twin(s);
                    let j = index[t]
                        .rank(&MoverFrame::of(&pos.play(mv)))
                        .expect("in the twin");
                    let next = p.level_of(t, j / k).expect("a valid successor");
                    let sideways = R::Board::is_sideways(mv.from(), mv.to());
                    if pos.kings().contains(mv.from()) || sideways {
                        assert_eq!(next, level);
                        assert_eq!(
                            unit_of(level, s as u8, i / k),
                            unit_of(level, t as u8, j / k)
                        );
                    } else {
                        assert_eq!(next, level + 1);
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "only {checked} moves checked");
    }

    #[test]
    fn quiet_moves_follow_the_level_order() {
        moves_follow_levels::<English>(&[Material::new(1, 1, 1, 0), Material::new(1, 0, 1, 1)]);
        moves_follow_levels::<English>(&[Material::new(1, 1, 1, 1)]);
        moves_follow_levels::<International>(&[
            Material::new(1, 1, 1, 0),
            Material::new(1, 0, 1, 1),
        ]);
        moves_follow_levels::<Turkish>(&[Material::new(2, 0, 1, 0), Material::new(1, 0, 2, 0)]);
    }
}
