//! Checking a level: every stored value, distance to conversion and rule result against
//! the best over the position's moves ([`check_level`]).

use rayon::prelude::*;

use super::SliceFiles;
use super::pair::{SliceCheck, TASK_POSITIONS, Tally};
use super::read::{DtcReader, PlacedMen, ReadLevel};
use crate::rules::{Move, MoveList, MoveSink, Position, RuleSet, Rules, generate};
use crate::tablebase::index::levels::{Above, Level, Member, Place, Placements};
use crate::tablebase::index::{KingArrangements, MoverFrame, SliceIndex};
use crate::tablebase::probe::{ProbeError, Tablebase};
use crate::tablebase::value::{Moves, RuleCategory, RuleResult};
use crate::tablebase::value::{Outcome, Wdl};

/// How a pair's rule results are checked.
#[derive(Copy, Clone)]
pub(super) struct RuleCheck<'a> {
    /// The rule set.
    pub(super) set: &'a RuleSet,
    /// The slice's stored results.
    pub(super) stored: StoredRules<'a>,
    /// The rule results of the level above.
    pub(super) above: Option<&'a Level>,
    /// What each result is checked against.
    pub(super) expected: Expected<'a>,
}

/// Where a slice's stored rule results are.
#[derive(Copy, Clone)]
pub(super) enum StoredRules<'a> {
    /// In the level read.
    Read(&'a Level),
    /// Derived from the values and distances to conversion (its file's
    /// [`RulesDerived::All`]) under a quiet count of these plies.
    Derived(u32),
}

/// What a stored rule result must be.
#[derive(Copy, Clone)]
pub(super) enum Expected<'a> {
    /// The one from its moves.
    Moves,
    /// The one its distance to conversion gives ([`RuleResult::derived`]) under a quiet
    /// count of these plies.
    Derived(u32),
    /// Where two counts run, the level's results built again layer by layer
    /// ([`layered_rules`]).
    Layered(&'a Level),
}

/// Checks the positions of slice `slice` (of the pair's, with its kings' `arrangements`) in
/// `level` (values, distances to conversion and, with a rule set, rule results) and counts
/// their values.
pub(super) fn check_level<R: Rules>(
    tb: &Tablebase,
    index: &[SliceIndex<R>],
    placements: &Placements<R>,
    (slice, arrangements): (u8, &Option<KingArrangements>),
    (read, files): (&ReadLevel, &[SliceFiles]),
    above: Option<&Level>,
    rules: Option<RuleCheck<'_>>,
) -> Result<Tally, ProbeError> {
    let (level, rule_level, captured) = (&read.values, read.rules.as_ref(), &read.captured);
    // Without distances to the end, the win, draw or loss is checked (the distance to
    // conversion, checked too, rules out wins that go round in circles).
    let dtw = files.iter().all(|f| f.dtw.is_some());
    let kings = level.kings;
    let twin = if index.len() == 2 { 1 - slice } else { 0 };
    let mine: Vec<(u64, Place)> = level.starts(slice).collect();
    let positions = mine.len() * kings as usize;
    // Whether the expected rule results come from the successors' (then a capture
    // position's moves, its captures, are needed too).
    let rules_from_moves = rules.is_some_and(|r| matches!(r.expected, Expected::Moves));
    (0..positions.div_ceil(TASK_POSITIONS))
        .into_par_iter()
        .map_init(
            || {
                let successors: Vec<(MoverFrame, Option<Place>)> = Vec::new();
                (
                    MoveList::new(),
                    Above::new([Some(level), above]),
                    successors,
                    DtcReader::new(files, level, captured, read.held_dtcs.as_ref()),
                )
            },
            |(list, read, successors, dtcs), c| {
                let mut tally = Tally::default();
                let mut placed = PlacedMen::default();
                for o in c * TASK_POSITIONS..((c + 1) * TASK_POSITIONS).min(positions) {
                    let (id, start) = mine[o / kings as usize];
                    let i = id * kings + o as u64 % kings;
                    let here = start.plus((i % kings) as usize);
                    let capture = captured[here.in_batch() / 64] >> (here.in_batch() % 64) & 1 != 0;
                    let pos = placed.set::<R>(placements, Member { slice, id }).position(
                        &index[slice as usize],
                        i % kings,
                        arrangements.as_ref(),
                    );
                    match capture && !rules_from_moves {
                        true => list.clear(),
                        false => generate(&pos, list),
                    }
                    let moves = list.as_slice();
                    // Where each move leads: a quiet move stays in the pair, and its level
                    // holds the outcome (the captures' one if it leads to a capture).
                    successors.clear();
                    successors.extend(moves.iter().map(|mv| {
                        let frame = MoverFrame::of(&pos.play(mv));
                        let place = match mv.is_capture() || mv.is_promotion() {
                            false => read.place(&index[twin as usize], twin, &frame),
                            true => None,
                        };
                        // What is read below of each successor lies scattered over the
                        // levels: the loads are asked for now, all at once.
                        if let Some(p) = place {
                            let (values, rule_results) = match p.level {
                                0 => (Some(level), rule_level),
                                _ => (above, rules.and_then(|r| r.above)),
                            };
                            if let Some(values) = values {
                                values.prefetch(p);
                            }
                            if let (true, Some(results)) = (rules_from_moves, rule_results) {
                                results.prefetch(p);
                            }
                            if p.level == 0 && pos.kings().contains(mv.from()) {
                                dtcs.prefetch(p);
                            }
                        }
                        (frame, place)
                    }));
                    // A wrong rule result is reported after a wrong value or distance of
                    // the same position (the rule result may follow from those).
                    let mut rule_bad = None;
                    if let Some(rules) = rules {
                        let plain = Outcome::from_code(level.at(here))
                            .unwrap_or(Outcome::DRAW)
                            .wdl;
                        let expected = match rules.expected {
                            Expected::Derived(limit) => RuleResult::derived(
                                plain,
                                dtcs.in_order(here.in_batch(), slice, i)?,
                                limit,
                            ),
                            Expected::Moves => {
                                let levels = [rule_level, rules.above];
                                expected_rule(
                                    tb,
                                    rules.set,
                                    (&pos, plain),
                                    moves,
                                    successors,
                                    levels,
                                )?
                            }
                            Expected::Layered(layered) => RuleResult::from_code(layered.at(here)),
                        };
                        let stored = match rules.stored {
                            StoredRules::Read(l) => RuleResult::from_code(l.at(here)),
                            StoredRules::Derived(limit) => RuleResult::derived(
                                plain,
                                dtcs.in_order(here.in_batch(), slice, i)?,
                                limit,
                            ),
                        };
                        tally.rule_counts[match stored.category {
                            RuleCategory::Win => 0,
                            RuleCategory::Loss => 2,
                            _ => 1,
                        }] += 1;
                        if matches!(
                            stored.category,
                            RuleCategory::CursedWin | RuleCategory::BlessedLoss
                        ) {
                            tally.rule_counts[3] += 1;
                        }
                        if stored != expected {
                            rule_bad = Some(SliceCheck::BadRules {
                                index: i,
                                stored,
                                expected,
                            });
                        }
                    }
                    if capture {
                        let captured = Outcome::from_code(level.at(here)).unwrap_or(Outcome::DRAW);
                        tally.captures[match captured.wdl {
                            Wdl::Win => 0,
                            Wdl::Draw => 1,
                            Wdl::Loss => 2,
                        }] += 1;
                        tally.bad = tally.bad.take().or(rule_bad);
                        continue;
                    }
                    let stored = Outcome::from_code(level.at(here)).unwrap_or(Outcome::DRAW);
                    let mut expected: Option<Outcome> = None;
                    // Over the moves that keep the stored result: the least distance to
                    // conversion for a win, the most for a loss.
                    let mut expected_dtc: Option<u16> = None;
                    for (mv, &(_, place)) in moves.iter().zip(successors.iter()) {
                        let after = place.and_then(|p| match p.level {
                            0 => Outcome::from_code(level.at(p)),
                            _ => above.and_then(|a| Outcome::from_code(a.at(p))),
                        });
                        let o = match after {
                            Some(o) => o,
                            None => tb.resolve(&pos.play(mv), dtw)?,
                        }
                        .before_move();
                        if o.wdl == stored.wdl && stored.wdl != Wdl::Draw {
                            // A king's move keeps the placement (this level); any other
                            // converts.
                            let kept =
                                place.filter(|p| p.level == 0 && pos.kings().contains(mv.from()));
                            let conversion = match kept {
                                Some(p) => dtcs.successor(p.in_batch())? + 1,
                                None => 1,
                            };
                            expected_dtc = Some(match (expected_dtc, stored.wdl) {
                                (None, _) => conversion,
                                (Some(d), Wdl::Win) => d.min(conversion),
                                (Some(d), _) => d.max(conversion),
                            });
                        }
                        expected = Some(expected.map_or(o, |e| e.max(o)));
                    }
                    let expected = expected.unwrap_or(Outcome::loss(0));
                    let expected_dtc = expected_dtc.unwrap_or(0);
                    let agrees = match dtw {
                        true => stored == expected,
                        false => stored.wdl == expected.wdl,
                    };
                    if stored.wdl != Wdl::Draw {
                        let stored_dtc = dtcs.in_order(here.in_batch(), slice, i)?;
                        tally.add_distances(i, stored.dtw, stored_dtc);
                        if agrees && tally.bad.is_none() && stored_dtc != expected_dtc {
                            tally.bad = Some(SliceCheck::BadDtc {
                                index: i,
                                stored: stored_dtc,
                                expected: expected_dtc,
                            });
                        }
                    }
                    tally.counts[match stored.wdl {
                        Wdl::Win => 0,
                        Wdl::Draw => 1,
                        Wdl::Loss => 2,
                    }] += 1;
                    if !agrees && tally.bad.is_none() {
                        tally.bad = Some(match dtw {
                            true => SliceCheck::Bad {
                                index: i,
                                stored,
                                expected,
                            },
                            false => SliceCheck::BadWdl {
                                index: i,
                                stored: stored.wdl,
                                expected: expected.wdl,
                            },
                        });
                    }
                    tally.bad = tally.bad.take().or(rule_bad);
                }
                Ok(tally)
            },
        )
        .try_reduce(Tally::default, |a, b| Ok(a.and(b)))
}

/// The rule result of `pos` (plain result `plain`) under `rules` from its `moves`, which
/// lead to `successors` (each one's frame and, for a quiet move, its place in the pair's
/// levels): the rule results there, from `rule_levels` at that place or from the tables,
/// each counted through the move or not as the rule set says.
fn expected_rule<R: Rules>(
    tb: &Tablebase,
    rules: &RuleSet,
    (pos, plain): (&Position<R>, Wdl),
    moves: &[Move],
    successors: &[(MoverFrame, Option<Place>)],
    rule_levels: [Option<&Level>; 2],
) -> Result<RuleResult, ProbeError> {
    let before = MoverFrame::of(pos).material().sides();
    let limit = rules.governing(before[0], before[1]).plies();
    let mut fold = Moves::default();
    for (mv, (frame, place)) in moves.iter().zip(successors) {
        let result =
            place.and_then(|p| rule_levels[p.level].map(|l| RuleResult::from_code(l.at(p))));
        let result = match result {
            Some(r) => r,
            None => tb.stored_rule::<R>(frame)?,
        };
        let [them, us] = frame.material().sides();
        let quiet = !mv.is_capture() && !mv.is_promotion();
        let conversion = !quiet || !pos.kings().contains(mv.from());
        let carried = rules.carries(before, [us, them], conversion);
        fold.add(result.contribution(carried, limit));
    }
    Ok(fold.result(plain))
}
