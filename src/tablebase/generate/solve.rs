//! Solving one level of a slice pair, unit by unit.
//!
//! A unit's positions are solved together by one thread in a small array (two bytes a
//! position), which fits in cache for all but the slices of few men and many kings:
//! 1. Every position is classified once. A position without moves is lost in 0; a position
//!    with a capture is final at once, from the already built slices its captures lead to.
//!    Moves that leave the unit (a crowning, or a man's step to the level above, solved
//!    already) are exits, whose best value is known; the other quiet moves (kings, and
//!    Turkish men stepping sideways) stay in the unit and are counted. A position with no
//!    move in the unit takes the best exit.
//! 2. Then ply by ply, the positions resolved at distance `d` are found by a scan of the
//!    unit and walk back their predecessors in the unit. A predecessor of a loss is a win in
//!    `d + 1`; a predecessor of a win loses one count and, when none is left, is lost as
//!    slowly as its exits allow, unless an exit draws or wins. An exit win in `e` plies makes
//!    the position a win in `e` if nothing faster is found first. What is never resolved is a
//!    draw.
//!
//! Each value depends only on the unit and the levels and slices it reads, so the tables are
//! the same whatever the number of threads.

use super::super::index::{MoverFrame, SliceIndex};
use super::super::levels::{Level, Member, Placements};
use super::super::outcome::{Outcome, Wdl};
use super::super::probe::Tablebase;
use super::GenerateError;
use crate::rules::{Bitboard, Color, Geometry, MoveList, OPPOSITE, Position, Rules, generate};

/// Marks an index that holds no position (men of both sides on one square).
pub(super) const NO_POSITION: u16 = 0xFFFF;
/// Marks a position with a capture: its stored value is never read.
pub(super) const CAPTURE: u16 = 0x4000;
/// The outcome code ([`Outcome::code`]) of a resolved position.
pub(super) const CODE: u16 = 0x3FFF;
/// An unresolved position: the flags below and its count of quiet moves in the unit whose
/// successor is not yet known to be won.
const OPEN: u16 = 0x8000;
/// An exit draws or wins: the position cannot be lost.
const CANNOT_LOSE: u16 = 0x1000;
/// The best exit loses: when the count runs out, the loss is as slow as that exit.
const EXIT_LOSS: u16 = 0x2000;
const COUNT: u16 = 0x0FFF;

/// Longest distance a code holds.
const MAX_DTW: u16 = (CODE - 3) / 2;

/// Positions a batch of units gathers at least, so that small units share their overheads.
const BATCH_POSITIONS: u64 = 1 << 14;

/// What solving needs to know of the job.
pub(super) struct Job<'a, R: Rules> {
    /// The index of each slice of the job.
    pub index: Vec<SliceIndex<R>>,
    /// The placements of the job's slices.
    pub placements: Placements<R>,
    /// The tables the job's captures and crownings lead to.
    pub tb: &'a Tablebase,
}

impl<R: Rules> Job<'_, R> {
    /// The slice the other side's moves are in.
    #[inline(always)]
    fn twin(&self, slice: u8) -> u8 {
        if self.index.len() == 2 { 1 - slice } else { 0 }
    }

    fn kings(&self) -> u64 {
        self.placements.kings_per_placement()
    }
}

/// Counts of the stored values of one slice.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub max_dtw: u16,
}

impl Counts {
    fn add(&mut self, o: Outcome) {
        match o.wdl {
            Wdl::Win => self.wins += 1,
            Wdl::Draw => self.draws += 1,
            Wdl::Loss => self.losses += 1,
        }
        self.max_dtw = self.max_dtw.max(o.dtw);
    }

    pub fn merge(mut self, o: Counts) -> Counts {
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.max_dtw = self.max_dtw.max(o.max_dtw);
        self
    }
}

/// Solves `level` given the level above it (solved), and returns it with the counts of its
/// stored values per slice.
pub(super) fn solve_level<R: Rules>(
    job: &Job<'_, R>,
    level: usize,
    above: Option<&Level>,
) -> Result<(Level, [Counts; 2]), GenerateError> {
    use rayon::prelude::*;
    let members = job.placements.members(level);
    let units = job.placements.units(&members);
    let k = job.kings();
    // Units in batches of at least BATCH_POSITIONS positions.
    let mut batches: Vec<&[Vec<u32>]> = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (u, unit) in units.iter().enumerate() {
        size += unit.len() as u64 * k;
        if size >= BATCH_POSITIONS {
            batches.push(&units[start..=u]);
            (start, size) = (u + 1, 0);
        }
    }
    if start < units.len() {
        batches.push(&units[start..]);
    }
    let solved = batches
        .par_iter()
        .map_init(Scratch::default, |scratch, batch| {
            let mut values = Vec::new();
            let mut counts = [Counts::default(); 2];
            for unit in batch.iter() {
                let unit: Vec<Member> = unit.iter().map(|&i| members[i as usize]).collect();
                solve_unit(job, &unit, above, scratch, &mut values, &mut counts)?;
            }
            Ok((values, counts))
        })
        .collect::<Result<Vec<_>, GenerateError>>()?;
    let mut blocks = Vec::with_capacity(members.len());
    for (b, batch) in batches.iter().enumerate() {
        for (place, &i) in batch.iter().flatten().enumerate() {
            blocks.push((members[i as usize].key(), b as u32, place as u32));
        }
    }
    blocks.sort_unstable_by_key(|b| b.0);
    let mut counts = [Counts::default(); 2];
    let mut values = Vec::with_capacity(solved.len());
    for (v, c) in solved {
        values.push(v);
        counts = [counts[0].merge(c[0]), counts[1].merge(c[1])];
    }
    Ok((
        Level {
            blocks,
            batches: values,
            kings: k,
        },
        counts,
    ))
}

/// Buffers a thread reuses from unit to unit.
#[derive(Default)]
struct Scratch {
    moves: MoveList,
    /// Positions resolved but not yet walked back, by distance.
    pending: Vec<u64>,
    /// Exit wins: (distance, position in the unit).
    seeds: Vec<(u16, usize)>,
    /// The men of each member of the unit: the side to move's, the other's.
    men: Vec<(u64, u64)>,
    /// For each member, the member holding the same men with the other side to move.
    twins: Vec<usize>,
    /// For each member, the squares its men leave free, one bit each, in order.
    free: Vec<Vec<u64>>,
}

/// The members of a unit and their men.
struct Unit<'a> {
    members: &'a [Member],
    men: &'a [(u64, u64)],
    twins: &'a [usize],
    free: &'a [Vec<u64>],
}

impl Unit<'_> {
    /// The frame of position `i` of the unit.
    #[inline(always)]
    fn frame<R: Rules>(&self, job: &Job<'_, R>, i: usize) -> MoverFrame {
        let k = job.kings();
        let b = i / k as usize;
        let (mover, other) = self.men[b];
        job.index[self.members[b].slice as usize].with_kings(
            mover,
            other,
            &self.free[b],
            i as u64 % k,
        )
    }
}

/// What a position's moves give, before anything is known of the unit.
enum Class {
    /// The value is known: no move, a capture, or no move in the unit.
    Final { outcome: Outcome, capture: bool },
    /// Moves in the unit, and the best exit if any.
    Open { moves: u16, exit: Option<Outcome> },
}

/// Appends the solved values of `unit` (its blocks in order) to `values`.
fn solve_unit<R: Rules>(
    job: &Job<'_, R>,
    unit: &[Member],
    above: Option<&Level>,
    scratch: &mut Scratch,
    values: &mut Vec<u16>,
    counts: &mut [Counts; 2],
) -> Result<(), GenerateError> {
    let k = job.kings();
    let base = values.len();
    let n = unit.len() * k as usize;
    values.resize(base + n, 0);
    let state = &mut values[base..];
    let Scratch {
        moves,
        pending,
        seeds,
        men,
        twins,
        free,
    } = scratch;
    pending.clear();
    seeds.clear();
    men.clear();
    men.extend(unit.iter().map(|&m| job.placements.men(m)));
    let keys: Vec<u64> = unit.iter().map(|m| m.key()).collect();
    twins.clear();
    for (&m, &(mover, other)) in unit.iter().zip(men.iter()) {
        let twin = job.twin(m.slice);
        let turned = MoverFrame {
            mover: R::Board::rotate(other),
            other: R::Board::rotate(mover),
            kings: 0,
        };
        let id = job.index[twin as usize].rank(&turned).unwrap_or(u64::MAX) / k;
        let b = keys
            .binary_search(&Member { slice: twin, id }.key())
            .map_err(|_| {
                GenerateError::Limit("a unit without the twin of one of its placements".into())
            })?;
        twins.push(b);
    }
    free.resize_with(unit.len().max(free.len()), Vec::new);
    for (squares, &(mover, other)) in free.iter_mut().zip(men.iter()) {
        squares.clear();
        squares.extend(
            Bitboard(R::Board::VALID & !(mover | other))
                .squares()
                .map(|s| s.bb().0),
        );
    }
    let unit = Unit {
        members: unit,
        men,
        twins,
        free,
    };
    for (i, cell) in state.iter_mut().enumerate() {
        let m = unit.members[i / k as usize];
        let pos = unit.frame(job, i).position::<R>();
        *cell = match classify(job, m.slice, &pos, above, moves)? {
            Class::Final { outcome, capture } => {
                let code = code_of(outcome)?;
                if outcome.wdl != Wdl::Draw {
                    count_pending(pending, outcome.dtw);
                }
                if capture { CAPTURE | code } else { code }
            }
            Class::Open { moves, exit } => {
                if moves > COUNT {
                    return Err(GenerateError::Limit(format!(
                        "{moves} quiet moves from one position (at most {COUNT})"
                    )));
                }
                match exit {
                    None => OPEN | moves,
                    Some(e) if e.wdl == Wdl::Loss => OPEN | EXIT_LOSS | moves,
                    Some(e) => {
                        if e.wdl == Wdl::Win {
                            seeds.push((e.dtw, i));
                        }
                        OPEN | CANNOT_LOSE | moves
                    }
                }
            }
        };
    }
    seeds.sort_unstable();
    let mut next_seed = 0;
    let mut ply: u16 = 0;
    while (ply as usize) < pending.len() || next_seed < seeds.len() {
        let win = Outcome::win(ply).code();
        let loss = Outcome::loss(ply).code();
        while let Some(&(d, i)) = seeds.get(next_seed) {
            if d != ply {
                break;
            }
            next_seed += 1;
            if state[i] & OPEN != 0 {
                state[i] = win;
                count_pending(pending, ply);
            }
        }
        let mut left = pending.get(ply as usize).copied().unwrap_or(0);
        let mut start = 0;
        while left > 0 && start < n {
            // Positions resolved at this ply, 64 at a time (walking back never resolves one
            // at this ply, so the mask stays true).
            let end = (start + 64).min(n);
            let mut found = 0u64;
            for (j, &v) in state[start..end].iter().enumerate() {
                let v = v & (OPEN | CODE);
                found |= (((v == win) | (v == loss)) as u64) << j;
            }
            while found != 0 {
                let i = start + found.trailing_zeros() as usize;
                found &= found - 1;
                left -= 1;
                let lost = state[i] & CODE == loss;
                walk_back(
                    job, &unit, &keys, state, i, lost, ply, above, moves, pending,
                )?;
            }
            start = end;
        }
        ply = ply
            .checked_add(1)
            .ok_or_else(|| GenerateError::Limit("distances past 65535 plies".into()))?;
    }
    for (i, cell) in state.iter_mut().enumerate() {
        if *cell & OPEN != 0 {
            *cell = Outcome::DRAW.code();
        }
        if *cell & CAPTURE == 0 {
            let o = Outcome::from_code(*cell & CODE).unwrap_or(Outcome::DRAW);
            counts[unit.members[i / k as usize].slice as usize].add(o);
        }
    }
    Ok(())
}

#[inline(always)]
fn count_pending(pending: &mut Vec<u64>, dtw: u16) {
    let d = dtw as usize;
    if pending.len() <= d {
        pending.resize(d + 1, 0);
    }
    pending[d] += 1;
}

fn code_of(o: Outcome) -> Result<u16, GenerateError> {
    if o.dtw > MAX_DTW {
        return Err(GenerateError::Limit(format!(
            "a distance of {} plies (at most {MAX_DTW})",
            o.dtw
        )));
    }
    Ok(o.code())
}

/// The moves of `pos` (a position of slice `slice`, seen from its side to move).
fn classify<R: Rules>(
    job: &Job<'_, R>,
    slice: u8,
    pos: &Position<R>,
    above: Option<&Level>,
    list: &mut MoveList,
) -> Result<Class, GenerateError> {
    generate(pos, list);
    let moves = list.as_slice();
    let Some(first) = moves.first() else {
        return Ok(Class::Final {
            outcome: Outcome::loss(0),
            capture: false,
        });
    };
    if first.is_capture() {
        let mut best = Outcome::loss(0);
        for (n, mv) in moves.iter().enumerate() {
            let o = job.tb.resolve(&pos.play(mv), true)?.before_move();
            best = if n == 0 { o } else { best.max(o) };
        }
        return Ok(Class::Final {
            outcome: best,
            capture: true,
        });
    }
    let kings = pos.kings();
    let mut inside = 0u16;
    let mut exit: Option<Outcome> = None;
    for mv in moves {
        let o = if mv.is_promotion() {
            job.tb.resolve(&pos.play(mv), true)?.before_move()
        } else if kings.contains(mv.from())
            || R::Board::col_row(mv.from()).1 == R::Board::col_row(mv.to()).1
        {
            inside += 1;
            continue;
        } else {
            let next = pos.play(mv);
            let twin = job.twin(slice);
            let value = job.index[twin as usize]
                .rank(&MoverFrame::of(&next))
                .and_then(|j| above?.value(twin, j))
                .ok_or_else(|| {
                    GenerateError::Limit("a man's step leads outside the level above".into())
                })?;
            Outcome::from_code(value & CODE)
                .unwrap_or(Outcome::DRAW)
                .before_move()
        };
        exit = Some(exit.map_or(o, |e| e.max(o)));
    }
    Ok(if inside == 0 {
        Class::Final {
            outcome: exit.unwrap_or(Outcome::loss(0)),
            capture: false,
        }
    } else {
        Class::Open {
            moves: inside,
            exit,
        }
    })
}

/// Walks back from position `i` of the unit, resolved at `ply` (`lost`: a loss for its side
/// to move, else a win), into its predecessors in the unit.
#[allow(clippy::too_many_arguments)]
fn walk_back<R: Rules>(
    job: &Job<'_, R>,
    unit: &Unit<'_>,
    keys: &[u64],
    state: &mut [u16],
    i: usize,
    lost: bool,
    ply: u16,
    above: Option<&Level>,
    list: &mut MoveList,
    pending: &mut Vec<u64>,
) -> Result<(), GenerateError> {
    let k = job.kings();
    let m = unit.members[i / k as usize];
    let frame = unit.frame(job, i);
    let twin = job.twin(m.slice);
    let mut result = Ok(());
    let twin_block = unit.twins[i / k as usize];
    predecessors::<R>(&frame, |q, men_moved| {
        if result.is_err() {
            return;
        }
        let at = if men_moved {
            let Some(j) = job.index[twin as usize].rank(&q) else {
                return;
            };
            let key = Member {
                slice: twin,
                id: j / k,
            }
            .key();
            let Ok(b) = keys.binary_search(&key) else {
                return;
            };
            b * k as usize + (j % k) as usize
        } else {
            twin_block * k as usize + job.index[twin as usize].kings_rank(&q) as usize
        };
        let v = state[at];
        if v & OPEN == 0 {
            return;
        }
        if lost {
            state[at] = Outcome::win(ply + 1).code();
            count_pending(pending, ply + 1);
            return;
        }
        let left = (v & COUNT) - 1;
        if left > 0 || v & CANNOT_LOSE != 0 {
            state[at] = v - 1;
            return;
        }
        let mut dtw = ply + 1;
        if v & EXIT_LOSS != 0 {
            let pos = q.position::<R>();
            match classify(job, twin, &pos, above, list) {
                Ok(Class::Open { exit: Some(e), .. }) => dtw = dtw.max(e.dtw),
                Ok(_) => {}
                Err(e) => {
                    result = Err(e);
                    return;
                }
            }
        }
        match code_of(Outcome::loss(dtw)) {
            Ok(code) => {
                state[at] = code;
                count_pending(pending, dtw);
            }
            Err(e) => result = Err(e),
        }
    });
    result
}

/// Calls `f` with every position (seen from its side to move) from which a quiet move that
/// stays in the unit leads to `p`: the other side's last move played backwards, a king's
/// move or (Turkish) a man's sideways step (then `f`'s flag is true).
#[inline]
fn predecessors<R: Rules>(p: &MoverFrame, mut f: impl FnMut(MoverFrame, bool)) {
    let empty = R::Board::VALID & !(p.mover | p.other);
    let men = p.other & !p.kings;
    let kings = p.other & p.kings;
    let men_squares = R::Board::men_squares(Color::Black);
    for (d, &back) in OPPOSITE.iter().enumerate() {
        if R::Board::SIDEWAYS >> d & 1 == 0 {
            continue;
        }
        let sources = R::Board::step(empty & men_squares, d) & men;
        for to in Bitboard(sources).squares() {
            let to = to.bb().0;
            let from = R::Board::step(to, back);
            let q = MoverFrame {
                mover: p.mover,
                other: p.other ^ to ^ from,
                kings: p.kings,
            };
            f(q.turned::<R>(), true);
        }
    }
    for to in Bitboard(kings).squares() {
        let to = to.bb().0;
        for d in 0..4 {
            let mut from = R::Board::step(to, d) & empty;
            while from != 0 {
                let moved = to ^ from;
                let q = MoverFrame {
                    mover: p.mover,
                    other: p.other ^ moved,
                    kings: p.kings ^ moved,
                };
                f(q.turned::<R>(), false);
                if !R::FLYING_KINGS {
                    break;
                }
                from = R::Board::step(from, d) & empty;
            }
        }
    }
}
