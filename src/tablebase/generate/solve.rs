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
//!    `d + 1`; a predecessor of a win loses one count and, when none is left, is lost in
//!    `d + 1`, unless an exit draws or wins. The best exit, where it wins or loses in `e`
//!    plies, is walked back from at ply `e - 1` as if its successor were in the unit (an
//!    exit loss is one more count). What is never resolved is a draw.
//!
//! 3. Then the distance to conversion of its won and lost positions ([`conversions`]): the
//!    same walk back, through king moves only, from the positions whose next move converts.
//!    It and the rule walk ([`unit_rules`]) read the predecessors step 2 found where a
//!    thread keeps them ([`KnownPreds`]).
//!
//! Each value depends only on the unit and the levels and slices it reads, so the tables are
//! the same whatever the number of threads.

use super::GenerateError;
use super::kept::{BATCH_POSITIONS, KeptRules, PackedBatches, RulesAbove};
use super::known_preds::KnownPreds;
use super::rules::{RuleScratch, capture_rule, closed_rule, conversion, derived_rule, unit_rules};
use super::unit::{
    CAPTURE, CODE, Exits, Job, PREFETCH_AHEAD, Pred, Unit, Walk, add_exit, known_predecessors,
    predecessors_in_unit, solved_outcome,
};
use crate::rules::{Geometry, MoveList, Position, Rules, generate_counting_king_quiets};
use crate::tablebase::index::levels::{Above, Level, Member, prefetch};
use crate::tablebase::index::{MoverFrame, SliceIndex};
use crate::tablebase::value::{Moves, RuleCategory, RuleResult};
use crate::tablebase::value::{Outcome, Wdl};
use rayon::prelude::*;

/// An unresolved position: the flags below and its count of quiet moves in the unit whose
/// successor is not yet known to be won.
const OPEN: u16 = 0x8000;
/// An exit draws or wins: the position cannot be lost.
const CANNOT_LOSE: u16 = 0x1000;
const COUNT: u16 = 0x0FFF;

/// Longest distance a code holds.
const MAX_DTW: u16 = (CODE - 3) / 2;

/// Counts of the stored values of one slice.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub max_dtw: u16,
    /// The longest distance to conversion.
    pub max_dtc: u16,
    /// Positions (captures included) won, drawn and lost under the rules.
    pub rule_wins: u64,
    pub rule_draws: u64,
    pub rule_losses: u64,
    /// Of the draws under the rules, the wins and losses without them.
    pub rule_drawn: u64,
    /// The largest rule result code.
    pub max_rule: u16,
    /// Capture positions (not stored) won, drawn and lost once their captures are resolved.
    pub captures: [u64; 3],
}

impl Counts {
    fn add(&mut self, o: Outcome, dtc: u16) {
        match o.wdl {
            Wdl::Win => self.wins += 1,
            Wdl::Draw => self.draws += 1,
            Wdl::Loss => self.losses += 1,
        }
        self.max_dtw = self.max_dtw.max(o.dtw);
        if o.wdl != Wdl::Draw {
            self.max_dtc = self.max_dtc.max(dtc);
        }
    }

    /// Counts a capture position, whose captures give `o`.
    fn add_capture(&mut self, o: Outcome) {
        self.captures[match o.wdl {
            Wdl::Win => 0,
            Wdl::Draw => 1,
            Wdl::Loss => 2,
        }] += 1;
    }

    fn add_rule(&mut self, code: u16) {
        match RuleResult::from_code(code).category {
            RuleCategory::Win => self.rule_wins += 1,
            RuleCategory::Loss => self.rule_losses += 1,
            RuleCategory::Draw => self.rule_draws += 1,
            RuleCategory::CursedWin | RuleCategory::BlessedLoss => {
                self.rule_draws += 1;
                self.rule_drawn += 1;
            }
        }
        self.max_rule = self.max_rule.max(code);
    }

    pub fn merge(mut self, o: Counts) -> Counts {
        self.rule_wins += o.rule_wins;
        self.rule_draws += o.rule_draws;
        self.rule_losses += o.rule_losses;
        self.rule_drawn += o.rule_drawn;
        self.max_rule = self.max_rule.max(o.max_rule);
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.max_dtw = self.max_dtw.max(o.max_dtw);
        self.max_dtc = self.max_dtc.max(o.max_dtc);
        for (c, n) in self.captures.iter_mut().zip(o.captures) {
            *c += n;
        }
        self
    }
}

/// A solved level: the values (outcome codes) and, in the same layout, the distances to
/// conversion of its won and lost positions and their rule result codes (none when the job
/// builds none or the level derives them: [`derived_rule`]), each batch packed as it
/// was solved (the distances are not read while the level below is solved, the rule
/// results only when it cannot derive its own, and they compress well).
pub(super) struct Solved {
    pub values: Level,
    pub rules: Option<PackedBatches>,
    pub dtc: PackedBatches,
    pub counts: [Counts; 2],
}

/// Solves `level` given the level above it (solved, with its rule results): its values,
/// distances to conversion, rule results and the counts of its stored values per slice.
/// With `derived`, the rule results follow from the values and distances to conversion
/// ([`derived_rule`]: no successor's result is drawn by the counts).
pub(super) fn solve_level<R: Rules>(
    job: &Job<'_, R>,
    level: usize,
    above: Option<&Level>,
    above_rules: Option<&KeptRules>,
    derived: bool,
) -> Result<Solved, GenerateError> {
    let members = job.placements.members(level);
    let k = job.kings();
    // Without kings (and, in Turkish, sideways steps) no quiet move stays in a placement:
    // every placement is a unit of its own and every position takes its best move out.
    let closed = k == 1 && R::Board::SIDEWAYS == 0;
    let units = if closed {
        Vec::new()
    } else {
        job.placements.units(&members)
    };
    let unit_count = if closed { members.len() } else { units.len() };
    let unit_len = |u: usize| if closed { 1 } else { units[u].len() as u64 };
    // Units in batches of at least BATCH_POSITIONS positions, as ranges of units.
    let mut batches: Vec<std::ops::Range<usize>> = Vec::new();
    let (mut start, mut size) = (0, 0);
    for u in 0..unit_count {
        size += unit_len(u) * k;
        if size >= BATCH_POSITIONS {
            batches.push(start..u + 1);
            (start, size) = (u + 1, 0);
        }
    }
    if start < unit_count {
        batches.push(start..unit_count);
    }
    let men = job.index[0].material().men();
    let packing = job.packing.for_level(members.len() as u64 * k);
    let solved = batches
        .par_iter()
        .map_init(Scratch::default, |scratch, batch| {
            let mut out = Out::default();
            let rules_above = RulesAbove::new(above, above_rules, men, job.kings());
            let mut above = (Above::new([above]), rules_above);
            if closed {
                for &m in &members[batch.clone()] {
                    solve_closed(job, m, &mut above, derived, scratch, &mut out)?;
                }
            } else {
                for unit in &units[batch.clone()] {
                    let unit: Vec<Member> = unit.iter().map(|&i| members[i as usize]).collect();
                    solve_unit(job, &unit, &mut above, derived, scratch, &mut out)?;
                }
            }
            let dtc = PackedBatches::pack(&out.dtc, packing);
            let rules =
                stores_rules(job, derived).then(|| PackedBatches::pack(&out.rules, packing));
            Ok((out.values, rules, dtc, out.counts))
        })
        .collect::<Result<Vec<_>, GenerateError>>()?;
    let mut blocks = Vec::with_capacity(members.len());
    for (b, batch) in batches.iter().enumerate() {
        if closed {
            for (place, m) in members[batch.clone()].iter().enumerate() {
                blocks.push((m.key(), b as u32, place as u32));
            }
        } else {
            for (place, &i) in units[batch.clone()].iter().flatten().enumerate() {
                blocks.push((members[i as usize].key(), b as u32, place as u32));
            }
        }
    }
    blocks.par_sort_unstable_by_key(|b| b.0);
    let mut counts = [Counts::default(); 2];
    let mut values = Vec::with_capacity(solved.len());
    let mut rules = Vec::with_capacity(solved.len());
    let mut dtc = Vec::with_capacity(solved.len());
    for (v, r, d, c) in solved {
        values.push(v);
        rules.push(r);
        dtc.push(d);
        counts = [counts[0].merge(c[0]), counts[1].merge(c[1])];
    }
    Ok(Solved {
        values: job.placements.level(blocks.clone(), values),
        rules: stores_rules(job, derived).then(|| PackedBatches {
            blocks: blocks.clone(),
            batches: rules.into_iter().flatten().collect(),
        }),
        dtc: PackedBatches {
            blocks,
            batches: dtc,
        },
        counts,
    })
}

/// Whether a level keeps its rule results: the job builds them and the level does not
/// derive them (`derived`).
fn stores_rules<R: Rules>(job: &Job<'_, R>, derived: bool) -> bool {
    job.rules.is_some() && !derived
}

/// What a batch of units gives: values, distances to conversion and (where the level keeps
/// them) rule results in unit order, counts.
#[derive(Default)]
struct Out {
    values: Vec<u16>,
    rules: Vec<u16>,
    dtc: Vec<u16>,
    counts: [Counts; 2],
}

/// Buffers a thread reuses from unit to unit.
#[derive(Default)]
struct Scratch {
    moves: MoveList,
    /// The best exits of open positions that win or lose ([`Exits`]).
    exits: Exits,
    /// The men of each member of the unit: the side to move's, the other's.
    men: Vec<(u64, u64)>,
    /// For each member, the member holding the same men with the other side to move.
    twins: Vec<usize>,
    /// For each member, the squares its men leave free, one bit each, in order.
    free: Vec<Vec<u64>>,
    /// The members' keys, in order.
    keys: Vec<u64>,
    /// Predecessors of resolved positions, and whether the position was lost.
    preds: Vec<Pred>,
    /// The spans with positions to walk back from at the current ply.
    due: Vec<usize>,
    /// Per [`SPAN`] positions of the unit, the least distance resolved there and not yet
    /// walked back ([`NOTHING_PENDING`] for none): first for the values, then for the
    /// distances to conversion.
    summary: Vec<u16>,
    /// The predecessors the solve's walk found, for the walks after it.
    known: KnownPreds,
    rules: RuleScratch,
}

/// The parts of a thread's [`Scratch`] that a walk back through a unit's resolved positions
/// works in: its [`Scratch::summary`], `preds` and `due`.
struct WalkScratch<'s> {
    summary: &'s mut Vec<u16>,
    preds: &'s mut Vec<Pred>,
    due: &'s mut Vec<usize>,
}

/// The predecessors one thread gathered, by part of the unit.
type Buckets = Vec<Vec<Pred>>;

/// Positions a [`Scratch::summary`] entry covers.
const SPAN: usize = 64;
const NOTHING_PENDING: u16 = u16::MAX;
/// Positions of a unit from which all threads solve it together.
const PARALLEL_UNIT: usize = 1 << 18;
/// Spans walked back from at a time: their predecessors are gathered, then walked to.
const SERIAL_WINDOW: usize = 16;
/// Spans at a time in a unit all threads solve: their predecessors, gathered at once, take
/// about 8 bytes times the moves into the window's resolved positions (some tens each), a
/// few tens of MB at most.
const PARALLEL_WINDOW: usize = 1 << 10;
/// What a position's moves give, before anything is known of the unit.
enum Class {
    /// The value is known: no move, a capture, or no move in the unit. `captures` is set
    /// where the position has a capture: what its captures give under the job's rule set
    /// (nothing where the rule results are not asked for).
    Final {
        outcome: Outcome,
        captures: Option<Moves>,
    },
    /// Moves in the unit (`king_moves` of them by kings), and the best exit if any.
    Open {
        moves: u16,
        king_moves: u16,
        exit: Option<Outcome>,
    },
}

/// Distance to conversion of a position before [`conversions`]: not yet known, with its
/// count of king moves (bits [`COUNT`]).
const DTC_OPEN: u16 = 0x8000;
/// The position has an exit that wins (with [`DTC_OPEN`]).
const DTC_EXIT_WIN: u16 = 0x4000;
/// Set by [`conversions`] on a position still open once the unit is solved: it is won (else
/// lost), so that the walk back reads no `state`, one cache miss a predecessor instead of
/// two.
const DTC_WON: u16 = 0x2000;

/// The distance to conversion a final position starts with: 0 without a move, else 1 (its
/// move converts: a capture, a man's move, or a king's move that ends the game).
fn final_dtc(outcome: Outcome) -> u16 {
    u16::from(outcome != Outcome::loss(0))
}

/// Appends the solved value of placement `m`, a position without kings whose every quiet
/// move leaves the placement, to `values`.
fn solve_closed<R: Rules>(
    job: &Job<'_, R>,
    m: Member,
    (above, above_rules): &mut (Above<'_, 1>, RulesAbove<'_>),
    derived: bool,
    scratch: &mut Scratch,
    out: &mut Out,
) -> Result<(), GenerateError> {
    let (mover, other) = job.placements.men(m);
    let frame = MoverFrame {
        mover,
        other,
        kings: 0,
    };
    let pos = frame.position::<R>();
    let stores = stores_rules(job, derived);
    let value = match classify(job, m.slice, &pos, above, &mut scratch.moves, stores)? {
        Class::Final { outcome, captures } => {
            let code = code_of(outcome)?;
            let dtc = final_dtc(outcome);
            out.dtc.push(dtc);
            let rule = match (job.rules, &captures) {
                (Some(_), _) if derived => derived_rule(job, outcome, dtc),
                (Some(_), Some(captures)) => capture_rule(captures, outcome.wdl),
                (Some(_), None) => {
                    closed_rule(job, m.slice, &pos, outcome, above_rules, &mut scratch.moves)?
                }
                (None, _) => 0,
            };
            if stores {
                out.rules.push(rule);
            }
            out.counts[m.slice as usize].add_rule(rule);
            if captures.is_some() {
                out.counts[m.slice as usize].add_capture(outcome);
                CAPTURE | code
            } else {
                out.counts[m.slice as usize].add(outcome, dtc);
                code
            }
        }
        Class::Open { .. } => {
            return Err(GenerateError::Limit(
                "a quiet move that keeps a placement without kings".into(),
            ));
        }
    };
    out.values.push(value);
    Ok(())
}

/// Appends the solved values of `unit` (its blocks in order) and their distances to
/// conversion to `out`.
fn solve_unit<R: Rules>(
    job: &Job<'_, R>,
    unit: &[Member],
    (above, above_rules): &mut (Above<'_, 1>, RulesAbove<'_>),
    derived: bool,
    scratch: &mut Scratch,
    out: &mut Out,
) -> Result<(), GenerateError> {
    let k = job.kings();
    let base = out.values.len();
    let n = unit.len() * k as usize;
    out.values.resize(base + n, 0);
    out.dtc.resize(base + n, 0);
    let stores = stores_rules(job, derived);
    if stores {
        out.rules.resize(base + n, 0);
    }
    let state = &mut out.values[base..];
    let dtc = &mut out.dtc[base..];
    let rules: &mut [u16] = match stores {
        true => &mut out.rules[base..],
        false => &mut [],
    };
    let counts = &mut out.counts;
    let Scratch {
        moves,
        exits,
        men,
        twins,
        free,
        keys,
        preds,
        due,
        summary,
        known,
        rules: rule_scratch,
    } = scratch;
    men.clear();
    men.extend(unit.iter().map(|&m| job.placements.men(m)));
    keys.clear();
    keys.extend(unit.iter().map(|m| m.key()));
    summary.clear();
    summary.resize(n.div_ceil(SPAN), NOTHING_PENDING);
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
        SliceIndex::<R>::free_squares(mover | other, squares);
    }
    let unit = Unit {
        members: unit,
        keys,
        men,
        twins,
        free,
    };
    // A large unit (few men, many kings) is cut into parts, each classified, and at each ply
    // walked back into, by one thread; a small one is one part.
    let threads = rayon::current_num_threads();
    let part_len = match n >= PARALLEL_UNIT && threads > 1 {
        true => n.div_ceil(4 * threads),
        false => n,
    }
    .next_multiple_of(SPAN);
    let parts = n.div_ceil(part_len);
    known.start_unit(n, parts == 1, threads);
    exits.iter_mut().for_each(Vec::clear);
    let mut most = if parts == 1 {
        let mut pending = Pending::new(summary, 0);
        let cells = (&mut *state, &mut *dtc, &mut *rules);
        classify_part(job, &unit, cells, &mut pending, above, moves, exits)?;
        pending.most
    } else {
        // The rule results' parts, empty where the level keeps none.
        let rule_parts: Vec<&mut [u16]> = match stores {
            true => rules.chunks_mut(part_len).collect(),
            false => (0..parts).map(|_| &mut [][..]).collect(),
        };
        let classified = state
            .par_chunks_mut(part_len)
            .zip(dtc.par_chunks_mut(part_len))
            .zip(rule_parts)
            .zip(summary.par_chunks_mut(part_len / SPAN))
            .enumerate()
            .map(|(p, (((state, dtc), rules), summary))| {
                let mut pending = Pending::new(summary, p * part_len);
                let (mut above, mut list, mut exits) =
                    (Above::new([above.level()]), MoveList::new(), Vec::new());
                classify_part(
                    job,
                    &unit,
                    (state, dtc, rules),
                    &mut pending,
                    &mut above,
                    &mut list,
                    &mut exits,
                )?;
                Ok((pending.most, exits))
            })
            .collect::<Result<Vec<_>, GenerateError>>()?;
        let mut most = 0;
        for (m, part_exits) in classified {
            most = most.max(m);
            for (ply, preds) in part_exits.into_iter().enumerate() {
                for pred in preds {
                    add_exit(exits, ply as u16, pred);
                }
            }
        }
        most
    };
    // Per thread, the predecessors it gathers for each part: kept from window to window.
    let mut gathered: Vec<Buckets> = match parts {
        1 => Vec::new(),
        _ => vec![vec![Vec::new(); parts]; threads],
    };
    // The plies past this unit's last exit hold none (the lists are kept from unit to unit).
    let exit_plies = exits
        .iter()
        .rposition(|e| !e.is_empty())
        .map_or(0, |p| p + 1);
    let mut ply: u16 = 0;
    while ply <= most || (ply as usize) < exit_plies {
        if let Some(preds) = exits.get(ply as usize) {
            let mut pending = Pending::new(summary, 0);
            for pred in preds {
                walk_back_to(state, pred.at(), pred.lost(), ply, &mut pending)?;
            }
            most = most.max(pending.most);
        }
        due.clear();
        due.extend((0..summary.len()).filter(|&s| summary[s] == ply));
        for window in due.chunks(if parts == 1 {
            SERIAL_WINDOW
        } else {
            PARALLEL_WINDOW
        }) {
            if parts == 1 {
                preds.clear();
                gather(job, &unit, state, window, ply, known, |pred| {
                    preds.push(pred)
                });
                let mut pending = Pending::new(summary, 0);
                walk_back_part(state, &mut pending, [&preds[..]], window, ply)?;
                most = most.max(pending.most);
                continue;
            }
            gathered.iter_mut().flatten().for_each(Vec::clear);
            window
                .par_chunks(window.len().div_ceil(threads))
                .zip(gathered.par_iter_mut())
                .for_each(|(spans, buckets)| {
                    // A unit all threads solve keeps nothing.
                    let mut none = KnownPreds::default();
                    gather(job, &unit, state, spans, ply, &mut none, |pred| {
                        buckets[pred.at() / part_len].push(pred)
                    })
                });
            let walked = state
                .par_chunks_mut(part_len)
                .zip(summary.par_chunks_mut(part_len / SPAN))
                .enumerate()
                .map(|(p, (state, summary))| {
                    let first_span = p * part_len / SPAN;
                    let spans = &window[window.partition_point(|&s| s < first_span)
                        ..window.partition_point(|&s| s < first_span + summary.len())];
                    let mut pending = Pending::new(summary, p * part_len);
                    let preds = gathered.iter().map(|g| &g[p][..]);
                    walk_back_part(state, &mut pending, preds, spans, ply)?;
                    Ok(pending.most)
                })
                .collect::<Result<Vec<_>, GenerateError>>()?;
            most = walked.into_iter().fold(most, u16::max);
        }
        ply = ply
            .checked_add(1)
            .ok_or_else(|| GenerateError::Limit("distances past 65535 plies".into()))?;
    }
    for cell in state.iter_mut() {
        if *cell & OPEN != 0 {
            *cell = Outcome::DRAW.code();
        }
    }
    let walk = (&unit, &*known);
    let scratch = WalkScratch {
        summary,
        preds,
        due,
    };
    conversions(job, walk, state, dtc, scratch, part_len)?;
    if stores {
        unit_rules(job, walk, state, rules, above_rules, moves, rule_scratch)?;
    }
    let k = k as usize;
    for (b, m) in unit.members.iter().enumerate() {
        let counts = &mut counts[m.slice as usize];
        for i in b * k..(b + 1) * k {
            let (cell, d) = (state[i], dtc[i]);
            counts.add_rule(match job.rules {
                Some(_) if stores => rules[i],
                Some(_) => derived_rule(job, solved_outcome(cell), d),
                None => 0,
            });
            match cell & CAPTURE {
                0 => counts.add(solved_outcome(cell), d),
                _ => counts.add_capture(solved_outcome(cell)),
            }
        }
    }
    Ok(())
}

/// Fills `dtc` (as [`classify_part`] left it) with the distance to conversion of every won
/// and lost position of the unit, `state` being solved: the plies until the next capture or
/// man move (or the end of the game), the winner hastening to one that keeps the win and
/// the loser delaying it. A position whose every move converts is at 1 (0 without a move);
/// the others are reached walking back king moves, ply by ply, as in the solve: a
/// predecessor of a lost position is a win one ply further, one of a won position is lost
/// one ply further when the last of its king moves is known. Draws are left at 0.
/// `scratch` is the solve's ([`WalkScratch`]); a unit of more than one part
/// of `part_len` positions is walked by all threads, as in the solve.
fn conversions<R: Rules>(
    job: &Job<'_, R>,
    walk: Walk<'_>,
    state: &[u16],
    dtc: &mut [u16],
    scratch: WalkScratch<'_>,
    part_len: usize,
) -> Result<(), GenerateError> {
    let WalkScratch {
        summary,
        preds,
        due,
    } = scratch;
    for (&v, d) in state.iter().zip(dtc.iter_mut()) {
        let o = solved_outcome(v);
        if o.wdl == Wdl::Draw {
            *d = 0;
        } else if *d & DTC_OPEN != 0 {
            let won = o.wdl == Wdl::Win;
            *d = if *d & COUNT == 0 || (won && *d & DTC_EXIT_WIN != 0) {
                1
            } else {
                DTC_OPEN | if won { DTC_WON } else { 0 } | *d & COUNT
            };
        }
    }
    // Turkish men step sideways in the unit: a step to a lost position converts and wins.
    if R::Board::SIDEWAYS != 0 {
        for (i, &v) in state.iter().enumerate() {
            if solved_outcome(v).wdl != Wdl::Loss {
                continue;
            }
            known_predecessors(job, walk, i, |at, men_moved| {
                if men_moved && dtc[at] & DTC_OPEN != 0 && solved_outcome(state[at]).wdl == Wdl::Win
                {
                    dtc[at] = 1;
                }
            });
        }
    }
    // Per span of positions, the least distance set and not yet walked back from (open
    // positions are at DTC_OPEN or more, draws at 0): the walk goes ply by ply over the spans
    // that hold the ply's distances. A list of positions would take 4 bytes each, as many
    // as the unit holds.
    summary.clear();
    summary.extend(dtc.chunks(SPAN).map(|span| {
        let least = span.iter().copied().min().unwrap_or(DTC_OPEN);
        if least < DTC_OPEN {
            least
        } else {
            NOTHING_PENDING
        }
    }));
    let parts = dtc.len().div_ceil(part_len);
    let threads = rayon::current_num_threads();
    // Per thread, the spans it gathered from with the least distance left in each, and the
    // predecessors it gathered for each part: kept from window to window.
    let mut gathered: Vec<(Vec<(usize, u16)>, Buckets)> = match parts {
        1 => Vec::new(),
        _ => vec![(Vec::new(), vec![Vec::new(); parts]); threads],
    };
    while let Some(ply) = summary
        .iter()
        .copied()
        .filter(|&d| d != NOTHING_PENDING)
        .min()
    {
        let next = ply
            .checked_add(1)
            .filter(|&p| p < DTC_OPEN)
            .ok_or_else(|| GenerateError::Limit("distances to conversion past 32767".into()))?;
        due.clear();
        due.extend((0..summary.len()).filter(|&s| summary[s] == ply));
        if parts == 1 {
            // The predecessors of a span's positions are gathered first, then walked to
            // with their reads asked for ahead (they miss the cache).
            for &span in due.iter() {
                preds.clear();
                let later = gather_converted(job, walk, state, dtc, span, ply, |at, lost| {
                    preds.push(Pred::new(at, lost))
                });
                summary[span] = later;
                walk_back_converted(dtc, summary, 0, preds, next);
            }
            continue;
        }
        // A large unit: at each ply, all threads gather the predecessors of a window of
        // spans by part, then each thread walks to those of one part.
        for window in due.chunks(PARALLEL_WINDOW) {
            for (later, buckets) in gathered.iter_mut() {
                later.clear();
                buckets.iter_mut().for_each(Vec::clear);
            }
            window
                .par_chunks(window.len().div_ceil(threads))
                .zip(gathered.par_iter_mut())
                .for_each(|(spans, (later, buckets))| {
                    for &span in spans {
                        let least =
                            gather_converted(job, walk, state, dtc, span, ply, |at, lost| {
                                buckets[at / part_len].push(Pred::new(at, lost))
                            });
                        later.push((span, least));
                    }
                });
            for &(span, least) in gathered.iter().flat_map(|g| &g.0) {
                summary[span] = least;
            }
            dtc.par_chunks_mut(part_len)
                .zip(summary.par_chunks_mut(part_len / SPAN))
                .enumerate()
                .for_each(|(p, (dtc, summary))| {
                    for (_, buckets) in &gathered {
                        walk_back_converted(dtc, summary, p * part_len, &buckets[p], next);
                    }
                });
        }
    }
    if let Some(i) = dtc.iter().position(|&d| d & DTC_OPEN != 0) {
        return Err(GenerateError::Limit(format!(
            "position {i} of a unit is decided but has no distance to conversion"
        )));
    }
    Ok(())
}

/// Calls `f` with each predecessor in the unit (by a king's move), and whether the position
/// was lost, of the won and lost positions of span `span` at distance to conversion `ply`;
/// returns the least distance set in the span after `ply` ([`NOTHING_PENDING`] for none).
fn gather_converted<R: Rules>(
    job: &Job<'_, R>,
    walk: Walk<'_>,
    state: &[u16],
    dtc: &[u16],
    span: usize,
    ply: u16,
    mut f: impl FnMut(usize, bool),
) -> u16 {
    let start = span * SPAN;
    let (mut due, mut later) = (0u64, NOTHING_PENDING);
    for (j, &d) in dtc[start..(start + SPAN).min(dtc.len())].iter().enumerate() {
        due |= ((d == ply) as u64) << j;
        later = later.min(if d > ply && d < DTC_OPEN {
            d
        } else {
            NOTHING_PENDING
        });
    }
    while due != 0 {
        let c = start + due.trailing_zeros() as usize;
        due &= due - 1;
        let wdl = solved_outcome(state[c]).wdl;
        if wdl != Wdl::Draw {
            known_predecessors(job, walk, c, |at, men_moved| {
                if !men_moved {
                    f(at, wdl == Wdl::Loss);
                }
            });
        }
    }
    later
}

/// Walks back to `preds` (positions of the unit, each with whether its successor was lost)
/// in `dtc` and `summary`, the part of the unit from position `offset` on: a win reached
/// from a lost position, or a loss whose last open king move this is, gets distance
/// `next`. Whether an open position is won is in its own word ([`DTC_WON`]).
fn walk_back_converted(
    dtc: &mut [u16],
    summary: &mut [u16],
    offset: usize,
    preds: &[Pred],
    next: u16,
) {
    for (n, &pred) in preds.iter().enumerate() {
        if let Some(ahead) = preds.get(n + PREFETCH_AHEAD) {
            prefetch(&dtc[ahead.at() - offset]);
        }
        let (at, lost) = (pred.at(), pred.lost());
        let d = &mut dtc[at - offset];
        if *d & DTC_OPEN != 0 {
            let reached = if *d & DTC_WON != 0 {
                lost
            } else if !lost {
                let left = (*d & COUNT) - 1;
                *d = DTC_OPEN | left;
                left == 0
            } else {
                false
            };
            if reached {
                *d = next;
                let s = &mut summary[(at - offset) / SPAN];
                *s = (*s).min(next);
            }
        }
    }
}

/// The positions of a part of a unit resolved as wins or losses and not yet walked back.
struct Pending<'a> {
    /// The least distance per span of the part (see [`Scratch::summary`]).
    summary: &'a mut [u16],
    /// The part's first position in the unit.
    offset: usize,
    /// The longest distance added.
    most: u16,
}

impl<'a> Pending<'a> {
    fn new(summary: &'a mut [u16], offset: usize) -> Self {
        Pending {
            summary,
            offset,
            most: 0,
        }
    }

    /// Position `i` of the unit is resolved at distance `dtw`.
    #[inline(always)]
    fn add(&mut self, i: usize, dtw: u16) {
        let s = &mut self.summary[(i - self.offset) / SPAN];
        *s = (*s).min(dtw);
        self.most = self.most.max(dtw);
    }
}

/// Classifies the positions of a part of a unit, `state` (and `dtc`, for [`conversions`])
/// from position `pending.offset` on; `rules` (empty where the level keeps no rule
/// results) gets the rule results of its capture positions ([`capture_rule`]).
fn classify_part<R: Rules>(
    job: &Job<'_, R>,
    unit: &Unit<'_>,
    (state, dtc, rules): (&mut [u16], &mut [u16], &mut [u16]),
    pending: &mut Pending<'_>,
    above: &mut Above<'_, 1>,
    moves: &mut MoveList,
    exits: &mut Exits,
) -> Result<(), GenerateError> {
    let k = job.kings() as usize;
    let stores = !rules.is_empty();
    for ((i, cell), d) in (pending.offset..).zip(state.iter_mut()).zip(dtc.iter_mut()) {
        let m = unit.members[i / k];
        let pos = unit.frame(job, i).position::<R>();
        *cell = match classify(job, m.slice, &pos, above, moves, stores)? {
            Class::Final { outcome, captures } => {
                let code = code_of(outcome)?;
                if outcome.wdl != Wdl::Draw {
                    pending.add(i, outcome.dtw);
                }
                *d = final_dtc(outcome);
                match captures {
                    Some(captures) => {
                        if stores {
                            rules[i - pending.offset] = capture_rule(&captures, outcome.wdl);
                        }
                        CAPTURE | code
                    }
                    None => code,
                }
            }
            Class::Open {
                moves,
                king_moves,
                exit,
            } => {
                // A losing best exit is one more count (see the module docs).
                let counted = moves + u16::from(exit.is_some_and(|e| e.wdl == Wdl::Loss));
                if counted > COUNT {
                    return Err(GenerateError::Limit(format!(
                        "{counted} quiet moves from one position (at most {COUNT})"
                    )));
                }
                let exit_win = exit.is_some_and(|e| e.wdl == Wdl::Win);
                *d = DTC_OPEN | if exit_win { DTC_EXIT_WIN } else { 0 } | king_moves;
                if let Some(e) = exit.filter(|e| e.wdl != Wdl::Draw) {
                    // Won or lost in `e.dtw` plies (at least 1): its successor is resolved
                    // one ply sooner.
                    add_exit(exits, e.dtw - 1, Pred::new(i, e.wdl == Wdl::Win));
                }
                match exit {
                    Some(e) if e.wdl != Wdl::Loss => OPEN | CANNOT_LOSE | counted,
                    _ => OPEN | counted,
                }
            }
        };
    }
    Ok(())
}

/// Calls `f` with each predecessor in the unit of the positions resolved at `ply` in spans
/// `spans`, with whether that position was lost; keeps them in `known` where it keeps any.
fn gather<R: Rules>(
    job: &Job<'_, R>,
    unit: &Unit<'_>,
    state: &[u16],
    spans: &[usize],
    ply: u16,
    known: &mut KnownPreds,
    mut f: impl FnMut(Pred),
) {
    let (win, loss) = (Outcome::win(ply).code(), Outcome::loss(ply).code());
    for &span in spans {
        // The positions of the span resolved at this ply (walking back never resolves one at
        // this ply, so the mask stays true).
        let start = span * SPAN;
        let end = (start + SPAN).min(state.len());
        let mut found = 0u64;
        for (j, &v) in state[start..end].iter().enumerate() {
            let v = v & (OPEN | CODE);
            found |= (((v == win) | (v == loss)) as u64) << j;
        }
        while found != 0 {
            let i = start + found.trailing_zeros() as usize;
            found &= found - 1;
            let lost = state[i] & CODE == loss;
            known.begin();
            predecessors_in_unit(job, unit, i, |at, men_moved| {
                known.push(at, men_moved);
                f(Pred::new(at, lost))
            });
            known.end(i);
        }
    }
}

/// Walks back into a part of a unit (`state`, from `pending.offset` on): every predecessor
/// in `preds` that lies in it, then the summary of the part's `spans` walked from.
fn walk_back_part<'p>(
    state: &mut [u16],
    pending: &mut Pending<'_>,
    preds: impl IntoIterator<Item = &'p [Pred]>,
    spans: &[usize],
    ply: u16,
) -> Result<(), GenerateError> {
    let offset = pending.offset;
    for preds in preds {
        for (n, &pred) in preds.iter().enumerate() {
            // The reads miss the cache: ask for those a little ahead.
            if let Some(ahead) = preds.get(n + PREFETCH_AHEAD) {
                prefetch(&state[ahead.at() - offset]);
            }
            let (at, lost) = (pred.at(), pred.lost());
            walk_back_to(state, at, lost, ply, pending)?;
        }
    }
    // What is left pending in each span: codes of distances past this ply.
    let first_later = Outcome::win(ply + 1).code();
    for &span in spans {
        let start = span * SPAN - offset;
        let end = (start + SPAN).min(state.len());
        let least = state[start..end]
            .iter()
            .map(|&v| match v & (OPEN | CODE) {
                c if (first_later..=CODE).contains(&c) => c,
                _ => u16::MAX,
            })
            .min()
            .unwrap_or(u16::MAX);
        pending.summary[span - offset / SPAN] = match least {
            u16::MAX => NOTHING_PENDING,
            c => (c - 2) / 2,
        };
    }
    Ok(())
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

/// The moves of `pos` (a position of slice `slice`, seen from its side to move). Kings'
/// quiet moves stay in the unit and are only counted; men's are listed. A capture's rule
/// result is valued where `rules` asks for it (the job's rule set's).
fn classify<R: Rules>(
    job: &Job<'_, R>,
    slice: u8,
    pos: &Position<R>,
    above: &mut Above<'_, 1>,
    list: &mut MoveList,
    rules: bool,
) -> Result<Class, GenerateError> {
    let king_moves = generate_counting_king_quiets(pos, list) as u16;
    let moves = list.as_slice();
    if moves.first().is_some_and(|m| m.is_capture()) {
        if moves.len() > 1 {
            for mv in moves {
                super::capture_memo::prefetch(job.memo, &pos.play(mv));
            }
        }
        let resolve = |mv| super::capture_memo::resolve(job.memo, job.tb, &pos.play(mv), job.dtw);
        let best = Outcome::best_of(moves.iter().map(resolve))?;
        // A plain draw is drawn under the rules too ([`capture_rule`]).
        let mut captures = Moves::default();
        if rules && best.wdl != Wdl::Draw {
            let before = MoverFrame::of(pos).material().sides();
            for mv in moves {
                let after = pos.play(mv);
                let find = || conversion(job, before, &after);
                captures.add(super::capture_memo::conversion(job.memo, &after, find)?);
            }
        }
        return Ok(Class::Final {
            outcome: best,
            captures: Some(captures),
        });
    }
    let mut inside = king_moves;
    let mut exit: Option<Outcome> = None;
    for mv in moves {
        let o = if mv.is_promotion() {
            job.tb.resolve(&pos.play(mv), job.dtw)?.before_move()
        } else if R::Board::is_sideways(mv.from(), mv.to()) {
            inside += 1;
            continue;
        } else {
            let next = MoverFrame::of(&pos.play(mv));
            let twin = job.twin(slice);
            let value = above
                .value(&job.index[twin as usize], twin, &next)
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
            captures: None,
        }
    } else {
        Class::Open {
            moves: inside,
            king_moves,
            exit,
        }
    })
}

/// Updates position `at` of the unit (`state`, from `pending.offset` on), a predecessor of
/// a position resolved at `ply` (or an open position whose losing exit is taken at `ply`):
/// won in `ply + 1` if that one is `lost`, else one count fewer, and lost in `ply + 1` when
/// none is left unless an exit draws or wins.
#[inline(always)]
fn walk_back_to(
    state: &mut [u16],
    at: usize,
    lost: bool,
    ply: u16,
    pending: &mut Pending<'_>,
) -> Result<(), GenerateError> {
    let cell = &mut state[at - pending.offset];
    let v = *cell;
    if v & OPEN == 0 {
        return Ok(());
    }
    if lost {
        *cell = Outcome::win(ply + 1).code();
        pending.add(at, ply + 1);
        return Ok(());
    }
    let left = (v & COUNT) - 1;
    if left > 0 || v & CANNOT_LOSE != 0 {
        *cell = v - 1;
        return Ok(());
    }
    *cell = code_of(Outcome::loss(ply + 1))?;
    pending.add(at, ply + 1);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::packing::Packing;
    use super::*;
    use crate::rules::{English, RuleSet};
    use crate::tablebase::{Contents, Silent, Tablebase, build_job, plan};

    /// The rule results a level derives ([`PackedBatches::derived`], what a level that
    /// derived them keeps for the level below when one of its results is drawn by the
    /// counts) are those the walk through the unit's moves finds where no result drawn by
    /// the counts is in play: English 4-piece jobs, each level solved both ways.
    #[test]
    fn derived_rule_results_are_the_walked_ones() {
        let dir = std::env::temp_dir().join(format!("damka-derived-levels-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let tb = Tablebase::open(&dir).expect("a tables directory");
        let rules = RuleSet::default_for(English::VARIANT);
        let mut compared = 0;
        // Each job in build order (a crowning leads to a slice of as many pieces, built
        // before it): the chosen ones are compared before they are built.
        for job in plan(4, English::MEN) {
            let key = job.key().to_string();
            if !["0202", "1102", "2101", "2020"]
                .iter()
                .any(|k| key.starts_with(k))
            {
                build_job::<English>(&job, &tb, Contents::every_kind(rules), &Silent)
                    .expect("builds");
                continue;
            }
            let [a, b] = job.key().sides();
            let governing = rules.governing(a, b);
            let work =
                Job::<English>::new(&job, &tb, Some(rules), governing, Packing::Compressed, true);
            let limit = work.governing.plies();
            assert!(limit.is_some(), "{key}: a quiet count governs it");
            let (mut above, mut above_rules): (Option<Level>, Option<KeptRules>) = (None, None);
            for level in (0..work.placements.levels()).rev() {
                let solve = |derived| {
                    solve_level(&work, level, above.as_ref(), above_rules.as_ref(), derived)
                };
                let walked = solve(false).expect("solves");
                let derived = solve(true).expect("solves");
                let walked_rules = walked.rules.expect("kept").level(&work.placements);
                assert!(
                    derived.rules.is_none(),
                    "{key}: a deriving level keeps none"
                );
                let again =
                    PackedBatches::derived(&derived.values, &derived.dtc, limit, work.packing);
                let again = again.level(&work.placements);
                assert_eq!(again.batches, walked_rules.batches, "{key} level {level}");
                assert_eq!(derived.values.batches, walked.values.batches);
                compared += again.positions();
                above = Some(walked.values);
                above_rules = Some(KeptRules::Plain(walked_rules));
            }
            build_job::<English>(&job, &tb, Contents::every_kind(rules), &Silent).expect("builds");
        }
        assert!(compared > 100_000, "{compared}");
        std::fs::remove_dir_all(&dir).expect("remove the scratch tables");
    }
}
