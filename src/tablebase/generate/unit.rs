//! What solving a unit works with: the job's facts ([`Job`]), the codes its values hold,
//! a unit's members ([`Unit`]), and the walk back from a position to its predecessors in
//! the unit.

use super::known_preds::KnownPreds;
use super::packing::Packing;
use crate::rules::{Bitboard, Color, Geometry, Governing, OPPOSITE, Position, RuleSet, Rules};
use crate::tablebase::index::levels::{Member, Placements};
use crate::tablebase::index::material::SliceJob;
use crate::tablebase::index::{KingArrangements, MoverFrame, SliceIndex};
use crate::tablebase::probe::Tablebase;
use crate::tablebase::value::{Outcome, RuleResult};

/// Marks an index that holds no position (men of both sides on one square).
pub(super) const NO_POSITION: u16 = 0xFFFF;

/// Marks a position with a capture: its stored value is never read.
pub(super) const CAPTURE: u16 = 0x4000;

/// The outcome code ([`Outcome::code`]) of a resolved position.
pub(super) const CODE: u16 = 0x3FFF;

/// What solving needs to know of the job.
pub(super) struct Job<'a, R: Rules> {
    /// The rule set whose results are built (see [`super::rules`]), if any.
    pub rules: Option<&'static RuleSet>,
    /// The count that governs the job's material under `rules`.
    pub governing: Governing,
    /// The index of each slice of the job.
    pub index: Vec<SliceIndex<R>>,
    /// Each slice's [`SliceIndex::king_arrangements`].
    pub arrangements: Vec<Option<KingArrangements>>,
    /// The placements of the job's slices.
    pub placements: Placements<R>,
    /// The tables the job's captures and crownings lead to.
    pub tb: &'a Tablebase,
    /// The job's number for [`super::capture_memo::resolve`].
    pub memo: u64,
    /// Whether the job builds distances to the end (and its inputs hold theirs): without
    /// them its values' distances are only an order of resolution, never stored.
    pub dtw: bool,
    /// How the job's temporary file is packed (and its levels' batches, where they are
    /// small enough: [`Packing::for_level`]).
    pub packing: Packing,
}

impl<'a, R: Rules> Job<'a, R> {
    /// What solving `job` needs to know: rule results of `rules` where it builds them,
    /// `governing` the count of its material, its inputs in `tb`, whether it builds
    /// distances to the end (`dtw`).
    pub(super) fn new(
        job: &SliceJob,
        tb: &'a Tablebase,
        rules: Option<&'static RuleSet>,
        governing: Governing,
        packing: Packing,
        dtw: bool,
    ) -> Self {
        let index: Vec<SliceIndex<R>> = job.slices.iter().map(|&m| SliceIndex::new(m)).collect();
        Job {
            rules,
            governing,
            arrangements: index.iter().map(|i| i.king_arrangements()).collect(),
            index,
            placements: Placements::new(&job.slices),
            tb,
            memo: super::capture_memo::next_job(),
            packing,
            dtw,
        }
    }

    /// The slice the other side's moves are in.
    #[inline(always)]
    pub(super) fn twin(&self, slice: u8) -> u8 {
        if self.index.len() == 2 { 1 - slice } else { 0 }
    }

    pub(super) fn kings(&self) -> u64 {
        self.placements.kings_per_placement()
    }
}

/// A predecessor (a position of the unit) of a resolved position, and whether that
/// position was lost, in 8 bytes: a window's gathered predecessors are the largest scratch.
#[derive(Copy, Clone)]
pub(super) struct Pred(u64);

impl Pred {
    /// Predecessor `at`, of a position that was lost when `lost`.
    #[inline(always)]
    pub(super) fn new(at: usize, lost: bool) -> Pred {
        Pred((at as u64) << 1 | lost as u64)
    }

    /// The predecessor's place in the unit.
    #[inline(always)]
    pub(super) fn at(self) -> usize {
        (self.0 >> 1) as usize
    }

    /// Whether the position it leads to was lost.
    #[inline(always)]
    pub(super) fn lost(self) -> bool {
        self.0 & 1 != 0
    }
}

/// How far ahead of its use a predecessor's state is asked for.
pub(super) const PREFETCH_AHEAD: usize = 8;

/// The members of a unit and their men.
pub(super) struct Unit<'a> {
    pub members: &'a [Member],
    /// The members' keys, in order.
    pub keys: &'a [u64],
    pub men: &'a [(u64, u64)],
    pub twins: &'a [usize],
    pub free: &'a [Vec<u64>],
}

impl Unit<'_> {
    /// The frame of position `i` of the unit.
    #[inline(always)]
    pub fn frame<R: Rules>(&self, job: &Job<'_, R>, i: usize) -> MoverFrame {
        let k = job.kings();
        let b = i / k as usize;
        let (mover, other) = self.men[b];
        let slice = self.members[b].slice as usize;
        job.index[slice]
            .with_kings(
                mover,
                other,
                &self.free[b],
                i as u64 % k,
                job.arrangements[slice].as_ref(),
            )
            .reread()
    }
}

/// Per ply, the open positions of a unit whose best exit leads to a position resolved at
/// that ply (lost: the exit wins; won: it loses), each as a [`Pred`] of that position: walked
/// back from at that ply with the unit's own. The order within a ply does not matter.
pub(super) type Exits = Vec<Vec<Pred>>;

/// Adds `pred` to `exits` at `ply`.
pub(super) fn add_exit(exits: &mut Exits, ply: u16, pred: Pred) {
    let ply = ply as usize;
    if exits.len() <= ply {
        exits.resize_with(ply + 1, Vec::new);
    }
    exits[ply].push(pred);
}

/// The outcome of a solved position of a unit (a capture position's too).
#[inline(always)]
pub(super) fn solved_outcome(v: u16) -> Outcome {
    Outcome::from_code(v & CODE).unwrap_or(Outcome::DRAW)
}

/// The position of the unit that a king's move of position `i` leads to, `after` being the
/// position after it.
pub(super) fn king_successor_in_unit<R: Rules>(
    job: &Job<'_, R>,
    unit: &Unit<'_>,
    i: usize,
    after: &Position<R>,
) -> usize {
    let k = job.kings() as usize;
    let twin = job.twin(unit.members[i / k].slice);
    let frame = MoverFrame::of(after);
    unit.twins[i / k] * k + job.index[twin as usize].kings_rank(&frame) as usize
}

/// A unit being walked: its members, and the predecessors the solve kept.
pub(super) type Walk<'a> = (&'a Unit<'a>, &'a KnownPreds);

/// [`predecessors_in_unit`] of position `i`, read from the kept ones where they are kept.
#[inline(always)]
pub(super) fn known_predecessors<R: Rules>(
    job: &Job<'_, R>,
    (unit, known): Walk<'_>,
    i: usize,
    mut f: impl FnMut(usize, bool),
) {
    if !known.each(i, &mut f) {
        predecessors_in_unit(job, unit, i, f);
    }
}

/// Calls `f` with every position of the unit from which a quiet move leads to position `i`,
/// and whether that move is a man's (a Turkish sideways step).
pub(super) fn predecessors_in_unit<R: Rules>(
    job: &Job<'_, R>,
    unit: &Unit<'_>,
    i: usize,
    mut f: impl FnMut(usize, bool),
) {
    let k = job.kings();
    let m = unit.members[i / k as usize];
    let frame = unit.frame(job, i);
    let twin = job.twin(m.slice);
    let twin_block = unit.twins[i / k as usize];
    predecessors::<R>(&frame, |q, men_moved| {
        let at = if men_moved {
            let Some(j) = job.index[twin as usize].rank(&q) else {
                return;
            };
            let key = Member {
                slice: twin,
                id: j / k,
            }
            .key();
            let Ok(b) = unit.keys.binary_search(&key) else {
                return;
            };
            b * k as usize + (j % k) as usize
        } else {
            twin_block * k as usize + job.index[twin as usize].kings_rank(&q) as usize
        };
        f(at, men_moved);
    });
}

/// Calls `f` with every position (seen from its side to move) from which a quiet move that
/// stays in the unit leads to `p`: the other side's last move played backwards, a king's
/// move or (Turkish) a man's sideways step (then `f`'s flag is true).
///
/// The moves are taken back in the frame of the side that made them (`p` turned once), so
/// each predecessor is that frame with one piece moved back: no board is turned for each.
#[inline]
fn predecessors<R: Rules>(p: &MoverFrame, mut f: impl FnMut(MoverFrame, bool)) {
    let t = p.turned::<R>();
    let empty = R::Board::VALID & !(t.mover | t.other);
    let men = t.mover & !t.kings;
    let kings = t.mover & t.kings;
    let men_squares = R::Board::men_squares(Color::White);
    for (d, &back) in OPPOSITE.iter().enumerate() {
        if R::Board::SIDEWAYS >> d & 1 == 0 {
            continue;
        }
        let sources = R::Board::step(empty & men_squares, d) & men;
        for to in Bitboard(sources).squares() {
            let to = to.bb().0;
            let from = R::Board::step(to, back);
            let q = MoverFrame {
                mover: t.mover ^ to ^ from,
                other: t.other,
                kings: t.kings,
            };
            f(q, true);
        }
    }
    for to in Bitboard(kings).squares() {
        let to = to.bb().0;
        for d in 0..4 {
            let mut from = R::Board::step(to, d) & empty;
            while from != 0 {
                let moved = to ^ from;
                let q = MoverFrame {
                    mover: t.mover ^ moved,
                    other: t.other,
                    kings: t.kings ^ moved,
                };
                f(q, false);
                if !R::FLYING_KINGS {
                    break;
                }
                from = R::Board::step(from, d) & empty;
            }
        }
    }
}

/// [`derived_rule`] under a quiet count of `limit` plies (`None`: no count).
pub(super) fn derived_code(limit: Option<u32>, plain: Outcome, dtc: u16) -> u16 {
    match limit {
        Some(limit) => RuleResult::derived(plain.wdl, dtc, limit),
        None => RuleResult::drawn(plain.wdl),
    }
    .code()
}
