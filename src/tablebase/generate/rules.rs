//! Results under the job's rule set ([`crate::tablebase::value::RuleResult`]), unit by unit, after the
//! unit's plain values: the same walk back through the moves that stay in the unit, with
//! the positions that moves out of it lead to valued by their rule results (read from the
//! level above and the built slices), and ply by ply only up to the governing count. Where
//! a material count runs beside the quiet count, layer by layer of the quiet plies left
//! ([`unit_rules_layered`]).

use super::GenerateError;
use super::kept::RulesAbove;
use super::unit::{
    CAPTURE, CODE, Exits, Job, PREFETCH_AHEAD, Pred, Unit, Walk, add_exit, derived_code,
    king_successor_in_unit, known_predecessors,
};
use crate::rules::{
    Geometry, Governing, MoveList, Position, Rules, SideMaterial, generate,
    generate_counting_king_quiets,
};
use crate::tablebase::index::MoverFrame;
use crate::tablebase::index::levels::prefetch;
use crate::tablebase::value::next_layer;
use crate::tablebase::value::{Contribution, Moves, RuleCategory, RuleResult};
use crate::tablebase::value::{Outcome, Wdl};

/// Resolved positions whose predecessors are gathered at once in [`unit_rules`].
const RULE_WINDOW: usize = 4096;

/// Marks a position whose rule result is not known yet.
const UNSET: u16 = u16::MAX;
/// Set in [`RuleScratch::open`] where an exit wins or does not lose: the position is not
/// lost when its count runs out.
const CANNOT_LOSE: u16 = 0x8000;

/// Buffers a thread reuses from unit to unit.
#[derive(Default)]
pub(super) struct RuleScratch {
    /// Per position, its moves in the unit whose successor is not yet known to be won, and
    /// one more when every exit loses (with [`CANNOT_LOSE`]).
    open: Vec<u16>,
    /// Per ply, the positions whose best exit wins or loses one ply later, walked back
    /// from at that ply as if the exit's successor were in the unit ([`Exits`]).
    exits: Exits,
    /// Per ply, the positions resolved with it, to walk back from.
    resolved: Vec<Vec<u32>>,
    /// The predecessors of a window of resolved positions, gathered before they are walked
    /// to (their reads miss the cache: each is asked for a little ahead).
    preds: Vec<Pred>,
    /// Where two counts run: per position, what its moves out of the unit give.
    exit_moves: Vec<Moves>,
    /// Where two counts run: per position, the end of its king moves' successors in
    /// `successors`.
    ends: Vec<u32>,
    /// The positions of the unit the king moves lead to.
    successors: Vec<u32>,
    /// Where two counts run: the layer of the quiet plies left before the one being built,
    /// and that one.
    layers: [Vec<u16>; 2],
}

/// What the moves out of the unit give a position, and its moves in the unit.
struct UnitMoves {
    inside: u16,
    out: Moves,
}

/// What the moves of `pos` (of slice `slice`) that leave the unit give its side to move.
/// The moves are left in `list`, the kings' quiet moves only when `kings_listed` (else
/// they are only counted).
fn exits<R: Rules>(
    job: &Job<'_, R>,
    slice: u8,
    pos: &Position<R>,
    above: &mut RulesAbove<'_>,
    (list, kings_listed): (&mut MoveList, bool),
) -> Result<UnitMoves, GenerateError> {
    let rules = job
        .rules
        .expect("exits are asked only of a job with rule results");
    let before = MoverFrame::of(pos).material().sides();
    let carried = |after| rules.carries_under(job.governing, before, after, true);
    let limit = job.governing.plies();
    let mut e = UnitMoves {
        inside: 0,
        out: Moves::default(),
    };
    if kings_listed {
        generate(pos, list);
    } else {
        e.inside = generate_counting_king_quiets(pos, list) as u16;
    }
    let kings = pos.kings();
    for mv in list.as_slice() {
        let child = if mv.is_capture() || mv.is_promotion() {
            conversion(job, before, &pos.play(mv))?
        } else if kings.contains(mv.from()) || R::Board::is_sideways(mv.from(), mv.to()) {
            e.inside += 1;
            continue;
        } else {
            let next = MoverFrame::of(&pos.play(mv));
            let twin = job.twin(slice);
            let code = above
                .value(&job.index[twin as usize], twin, &next)
                .ok_or_else(|| {
                    GenerateError::Limit("a man's step leads outside the level above".into())
                })?;
            RuleResult::from_code(code).contribution(carried(before), limit)
        };
        e.out.add(child);
    }
    Ok(e)
}

/// What a capture or a crowning gives the side to move of a position with material
/// `before` (its sides, the side to move's first) under the job's rule set, `after` being
/// the position it leads to (read from the built slices).
pub(super) fn conversion<R: Rules>(
    job: &Job<'_, R>,
    before: [SideMaterial; 2],
    after: &Position<R>,
) -> Result<Contribution, GenerateError> {
    let rules = job
        .rules
        .expect("conversions are valued only in a job with rule results");
    let next = MoverFrame::of(after);
    // The position after the move is seen from the other side.
    let [them, us] = next.material().sides();
    Ok(job.tb.stored_rule::<R>(&next)?.contribution(
        rules.carries_under(job.governing, before, [us, them], true),
        job.governing.plies(),
    ))
}

/// The rule result code of a position with a capture whose captures give `captures` (see
/// [`conversion`]), `plain` being its plain value: as [`exits`] would find it.
pub(super) fn capture_rule(captures: &Moves, plain: Wdl) -> u16 {
    match plain {
        // A plain draw is a draw under the rules: they only add draws.
        Wdl::Draw => RuleResult::drawn(Wdl::Draw),
        w => captures.result(w),
    }
    .code()
}

/// The rule result of a position whose every move leaves its unit (a placement without
/// kings), `plain` being its plain value.
pub(super) fn closed_rule<R: Rules>(
    job: &Job<'_, R>,
    slice: u8,
    pos: &Position<R>,
    plain: Outcome,
    above: &mut RulesAbove<'_>,
    list: &mut MoveList,
) -> Result<u16, GenerateError> {
    // A plain draw is a draw under the rules: they only add draws.
    if plain.wdl == Wdl::Draw {
        return Ok(RuleResult::drawn(Wdl::Draw).code());
    }
    let e = exits(job, slice, pos, above, (list, false))?;
    if e.inside != 0 {
        return Err(GenerateError::Limit(
            "a quiet move that keeps a placement without kings".into(),
        ));
    }
    Ok(e.out.result(plain.wdl).code())
}

/// The rule result code of a position from its plain outcome and its distance to
/// conversion ([`RuleResult::derived`]), under a quiet count when no successor out of the
/// unit is drawn by the counts: then the walk back of [`unit_rules`] is the distance to
/// conversion's, cut at the count.
pub(super) fn derived_rule<R: Rules>(job: &Job<'_, R>, plain: Outcome, dtc: u16) -> u16 {
    derived_code(job.governing.plies(), plain, dtc)
}

/// The plain result of position `i` of the unit, `state` holding the unit's solved values.
fn plain_wdl(state: &[u16], i: usize) -> Wdl {
    Outcome::from_code(state[i] & CODE)
        .unwrap_or(Outcome::DRAW)
        .wdl
}

/// Records that position `i` of the unit has result `r` (a win or a loss), to be walked
/// back from at its plies.
fn resolve(s: &mut RuleScratch, rules: &mut [u16], i: usize, r: RuleResult) {
    rules[i] = r.code();
    let p = r.plies as usize;
    if s.resolved.len() <= p {
        s.resolved.resize_with(p + 1, Vec::new);
    }
    s.resolved[p].push(i as u32);
}

/// Fills `rules` with the rule result code of every position of the unit, `state` holding
/// their plain values: exits are classified once; then ply by ply, up to the count, the
/// positions resolved at that ply walk back their predecessors in the unit (a predecessor
/// of a loss wins one ply later; one of a win loses when none of its moves is left, unless
/// an exit wins or does not lose). A position's best exit, where it wins or loses in `e`
/// plies, is walked back from at ply `e - 1` as if its successor were in the unit: a win
/// resolves it, a loss is one more move counted (as in the plain solve).
pub(super) fn unit_rules<R: Rules>(
    job: &Job<'_, R>,
    walk: Walk<'_>,
    state: &[u16],
    rules: &mut [u16],
    above: &mut RulesAbove<'_>,
    list: &mut MoveList,
    s: &mut RuleScratch,
) -> Result<(), GenerateError> {
    // The walk keeps positions of the unit as 4-byte numbers.
    if u32::try_from(state.len()).is_err() {
        return Err(GenerateError::Limit(format!(
            "rule results walked in a unit of {} positions (at most 2^32)",
            state.len()
        )));
    }
    let unit = walk.0;
    if matches!(job.governing, Governing::Both { .. }) {
        return unit_rules_layered(job, unit, state, rules, above, list, s);
    }
    let n = state.len();
    let k = job.kings() as usize;
    let plain = |i: usize| plain_wdl(state, i);
    s.open.clear();
    s.open.resize(n, 0);
    s.exits.iter_mut().for_each(Vec::clear);
    s.resolved.iter_mut().for_each(Vec::clear);
    for i in 0..n {
        // A plain draw is a draw under the rules (they only add draws), and its
        // predecessors never count it as a win: nothing to walk.
        if plain(i) == Wdl::Draw {
            rules[i] = RuleResult::drawn(Wdl::Draw).code();
            continue;
        }
        // A capture position's result came with its classification ([`capture_rule`]).
        if state[i] & CAPTURE != 0 {
            let r = RuleResult::from_code(rules[i]);
            if matches!(r.category, RuleCategory::Win | RuleCategory::Loss) {
                resolve(s, rules, i, r);
            }
            continue;
        }
        let slice = unit.members[i / k].slice;
        let pos = unit.frame(job, i).position::<R>();
        let e = exits(job, slice, &pos, above, (list, false))?;
        if e.inside == 0 {
            let r = e.out.result(plain(i));
            rules[i] = r.code();
            if matches!(r.category, RuleCategory::Win | RuleCategory::Loss) {
                resolve(s, rules, i, r);
            }
            continue;
        }
        if e.inside >= CANNOT_LOSE - 1 {
            return Err(GenerateError::Limit(format!(
                "{} quiet moves from one position (at most {})",
                e.inside,
                CANNOT_LOSE - 2
            )));
        }
        rules[i] = UNSET;
        // Exits win or lose in at least one ply; a loss of 0 plies is no exit at all.
        s.open[i] = match (e.out.win(), e.out.loss()) {
            (Some(w), _) => {
                add_exit(&mut s.exits, w - 1, Pred::new(i, true));
                e.inside | CANNOT_LOSE
            }
            (None, Some(0)) => e.inside,
            (None, Some(l)) => {
                add_exit(&mut s.exits, l - 1, Pred::new(i, false));
                e.inside + 1
            }
            (None, None) => e.inside | CANNOT_LOSE,
        };
    }
    let limit = job.governing.plies();
    let mut ply = 0usize;
    // Exits win or lose within the count: past it, nothing is walked.
    while ply < s.resolved.len().max(s.exits.len()) && limit.is_none_or(|l| (ply as u32) < l) {
        let after = u16::try_from(ply + 1)
            .ok()
            .filter(|&a| a < (UNSET - 4) / 2)
            .ok_or_else(|| GenerateError::Limit("rule distances past 32765 plies".into()))?;
        if let Some(exits) = s.exits.get_mut(ply) {
            let exits = std::mem::take(exits);
            for &pred in &exits {
                walk_back_rule(s, rules, pred, after);
            }
            s.exits[ply] = exits;
        }
        let Some(now) = s.resolved.get_mut(ply).map(std::mem::take) else {
            ply += 1;
            continue;
        };
        let mut preds = std::mem::take(&mut s.preds);
        // Walking back to a predecessor changes no position resolved at this ply, so the
        // predecessors of a window of them can be gathered first, then walked to in order.
        for window in now.chunks(RULE_WINDOW) {
            preds.clear();
            for &c in window {
                let lost = RuleResult::from_code(rules[c as usize]).category == RuleCategory::Loss;
                known_predecessors(job, walk, c as usize, |at, _| {
                    preds.push(Pred::new(at, lost))
                });
            }
            for (n, &pred) in preds.iter().enumerate() {
                if let Some(ahead) = preds.get(n + PREFETCH_AHEAD) {
                    prefetch(&rules[ahead.at()]);
                }
                walk_back_rule(s, rules, pred, after);
            }
        }
        s.preds = preds;
        s.resolved[ply] = now;
        ply += 1;
    }
    for (i, r) in rules.iter_mut().enumerate() {
        if *r == UNSET {
            *r = RuleResult::drawn(plain(i)).code();
        }
    }
    Ok(())
}

/// Walks back to `pred` in [`unit_rules`], from a position resolved `after - 1` plies from
/// the end (or an exit's successor): a win in `after` if that one is lost, else one move
/// fewer left, and a loss in `after` when none is.
#[inline(always)]
fn walk_back_rule(s: &mut RuleScratch, rules: &mut [u16], pred: Pred, after: u16) {
    let at = pred.at();
    if rules[at] != UNSET {
        return;
    }
    if pred.lost() {
        resolve(s, rules, at, RuleResult::win(after));
        return;
    }
    s.open[at] -= 1;
    if s.open[at] == 0 {
        resolve(s, rules, at, RuleResult::loss(after));
    }
}

/// Bytes [`unit_rules`] holds per position of a unit where two counts run
/// ([`unit_rules_layered`]) and the side to move has `kings` kings: its moves left, what its
/// exits give, the end of its successors, two layers, and the successors of its king moves
/// (of open positions only), counted as four a king. Measured: Russian 1302+0213 (three
/// kings) lists 2.8 a position, at most 5.3 in one unit (benches/notes/generation.md,
/// "Generation in parts", item "2026-12-06, 07:40-09:30").
pub(super) fn layered_bytes_per_position(kings: u64) -> u64 {
    let fixed = size_of::<u16>() + size_of::<Moves>() + size_of::<u32>() + 2 * size_of::<u16>();
    fixed as u64 + size_of::<u32>() as u64 * 4 * kings
}

/// [`unit_rules`] where a material count runs beside the quiet count ([`Governing::Both`],
/// see `tablebase::probe::rules`): the layers of quiet plies left, `r = 0` (drawn, unless
/// there is no move) up to the quiet count's plies, each from the one before it. The moves
/// are generated once: a position's exits are folded, its king moves' successors listed;
/// a layer then folds the exits with the king moves' results in the layer before. The
/// layers stop changing once two are equal; the last is the stored result.
fn unit_rules_layered<R: Rules>(
    job: &Job<'_, R>,
    unit: &Unit<'_>,
    state: &[u16],
    rules: &mut [u16],
    above: &mut RulesAbove<'_>,
    list: &mut MoveList,
    s: &mut RuleScratch,
) -> Result<(), GenerateError> {
    let (Some(rule_set), Some(material)) = (job.rules, job.governing.plies()) else {
        return Err(GenerateError::Limit("two counts without a rule set".into()));
    };
    let k = job.kings() as usize;
    let plain = |i: usize| plain_wdl(state, i);
    s.open.clear();
    s.exit_moves.clear();
    s.ends.clear();
    s.successors.clear();
    let [layer, next] = &mut s.layers;
    layer.clear();
    // Layer 0: the count has run out. A plain draw stays drawn (the counts only add
    // draws), and a position whose every move leaves the unit has one result at every
    // layer after the first.
    for (i, rule) in rules.iter_mut().enumerate() {
        // A capture position is never open, and its result came with its classification
        // ([`capture_rule`]); it has moves.
        if state[i] & CAPTURE != 0 {
            layer.push(RuleResult::drawn(plain(i)).code());
            s.open.push(0);
            s.exit_moves.push(Moves::default());
            s.ends.push(s.successors.len() as u32);
            continue;
        }
        let pos = unit.frame(job, i).position::<R>();
        let e = exits(job, unit.members[i / k].slice, &pos, above, (list, true))?;
        layer.push(match list.as_slice() {
            [] => RuleResult::NO_MOVE.code(),
            _ => RuleResult::drawn(plain(i)).code(),
        });
        let open = plain(i) != Wdl::Draw && e.inside > 0;
        s.open.push(u16::from(open));
        s.exit_moves.push(e.out);
        if !open {
            *rule = match plain(i) {
                Wdl::Draw => RuleResult::drawn(Wdl::Draw).code(),
                w => e.out.result(w).code(),
            };
        } else {
            for mv in list.as_slice() {
                if mv.is_capture() || mv.is_promotion() {
                    continue;
                }
                if !pos.kings().contains(mv.from()) {
                    if R::Board::is_sideways(mv.from(), mv.to()) {
                        return Err(GenerateError::Limit(
                            "a man's sideways step where two counts run".into(),
                        ));
                    }
                    continue;
                }
                let at = king_successor_in_unit(job, unit, i, &pos.play(mv));
                s.successors.push(at as u32);
            }
        }
        let end = u32::try_from(s.successors.len()).map_err(|_| {
            GenerateError::Limit("more than 2^32 king moves in a unit where two counts run".into())
        })?;
        s.ends.push(end);
    }
    let quiet = rule_set.quiet.map_or(0, |q| q.plies);
    for _ in 0..quiet {
        next.clear();
        let mut from = 0;
        for (i, &rule) in rules.iter().enumerate() {
            let to = s.ends[i] as usize;
            next.push(match s.open[i] {
                0 => rule,
                _ => {
                    let kings = s.successors[from..to]
                        .iter()
                        .map(|&c| RuleResult::from_code(layer[c as usize]));
                    next_layer(s.exit_moves[i], kings, material, plain(i)).code()
                }
            });
            from = to;
        }
        std::mem::swap(layer, next);
        if layer == next {
            break;
        }
    }
    for (i, r) in rules.iter_mut().enumerate() {
        if s.open[i] != 0 {
            *r = layer[i];
        }
    }
    Ok(())
}
