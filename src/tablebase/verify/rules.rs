//! Rule results where a material count runs beside the quiet count, built forward from
//! the moves layer by layer of the quiet plies left ([`layered_rules`]).

use rayon::prelude::*;

use super::pair::{PairIndex, TASK_POSITIONS};
use super::read::PlacedMen;
use crate::rules::{MoveList, RuleSet, Rules, generate};
use crate::tablebase::index::MoverFrame;
use crate::tablebase::index::levels::{Above, Level};
use crate::tablebase::probe::{ProbeError, Tablebase};
use crate::tablebase::value::next_layer;
use crate::tablebase::value::{Moves, RuleResult};
use crate::tablebase::value::{Outcome, Wdl};

/// A position of [`layered_rules`], as its moves were found once.
#[derive(Copy, Clone)]
pub(super) enum Layered {
    /// The same result at every layer (no move, or a plain draw).
    Fixed(RuleResult),
    /// A plain win or loss whose moves other than a king's give `exits`.
    Open { plain: Wdl, exits: Moves },
}

/// What the layers of [`layered_rules`] need of the positions of one task.
#[derive(Default)]
struct LayerMoves {
    /// Per position.
    positions: Vec<Layered>,
    /// Per position, the end of its king moves' successors in `successors`.
    ends: Vec<u32>,
    /// The places of the king moves' successors in the level.
    successors: Vec<u32>,
}

/// Where a material count runs beside the quiet count (`tablebase::probe::rules`), the rule results of
/// every position of level `level` (both slices, laid out as `read_level`'s), built forward
/// from the moves: layer 0 (the quiet count run out) is drawn but for positions without a
/// move; each next layer takes a king's move from the layer before and any other move from
/// the stored results (the level above's for a man's step, the tables' for a capture or a
/// crowning), until two layers are equal or the quiet count's plies are reached. The moves
/// are generated once; a layer is then a pass over the successors' places.
pub(super) fn layered_rules<R: Rules>(
    tb: &Tablebase,
    pair: &PairIndex<R>,
    level: usize,
    [plain, stored]: [&Level; 2],
    above: Option<&Level>,
    (set, material): (&RuleSet, u32),
) -> Result<Level, ProbeError> {
    let (index, placements, arrangements) = (&pair.index, &pair.placements, &pair.arrangements);
    let members = placements.members(level);
    let kings = placements.kings_per_placement();
    let positions = members.len() * kings as usize;
    let twin = |s: usize| if index.len() == 2 { 1 - s } else { 0 };
    let tasks = (0..positions.div_ceil(TASK_POSITIONS))
        .into_par_iter()
        .map(|c| {
            let mut task = LayerMoves::default();
            let mut placed = PlacedMen::default();
            let mut list = MoveList::new();
            let mut read_stored = Above::new([Some(stored), above]);
            for o in c * TASK_POSITIONS..((c + 1) * TASK_POSITIONS).min(positions) {
                let m = members[o / kings as usize];
                let s = m.slice as usize;
                let i = m.id * kings + o as u64 % kings;
                let wdl = plain
                    .value(m.slice, i)
                    .and_then(Outcome::from_code)
                    .unwrap_or(Outcome::DRAW)
                    .wdl;
                let pos = placed.set::<R>(placements, m).position(
                    &index[s],
                    i % kings,
                    arrangements[s].as_ref(),
                );
                generate(&pos, &mut list);
                let entry = match (list.as_slice(), wdl) {
                    ([], _) => Layered::Fixed(RuleResult::NO_MOVE),
                    (_, Wdl::Draw) => Layered::Fixed(RuleResult::drawn(Wdl::Draw)),
                    (moves, wdl) => {
                        let mut exits = Moves::default();
                        let before = MoverFrame::of(&pos).material().sides();
                        let t = twin(s) as u8;
                        for mv in moves {
                            let next = pos.play(mv);
                            let frame = MoverFrame::of(&next);
                            if !mv.is_capture() && pos.kings().contains(mv.from()) {
                                let place = index[t as usize]
                                    .rank(&frame)
                                    .and_then(|j| {
                                        let (_, at) = plain.place(t, j / kings)?;
                                        Some(at + (j % kings) as usize)
                                    })
                                    .ok_or_else(|| {
                                        ProbeError::NotCovered(
                                            "a king's move leaves its placement".into(),
                                        )
                                    })?;
                                task.successors.push(place as u32);
                                continue;
                            }
                            // A man's step stays in the pair; a capture or a crowning
                            // leaves it.
                            let read = match mv.is_capture() || mv.is_promotion() {
                                false => read_stored.value(&index[t as usize], t, &frame),
                                true => None,
                            };
                            let result = match read {
                                Some(code) => RuleResult::from_code(code),
                                None => tb.stored_rule::<R>(&frame)?,
                            };
                            let [them, us] = frame.material().sides();
                            let carried = set.carries(before, [us, them], true);
                            exits.add(result.contribution(carried, Some(material)));
                        }
                        Layered::Open { plain: wdl, exits }
                    }
                };
                task.positions.push(entry);
                task.ends.push(task.successors.len() as u32);
            }
            Ok(task)
        })
        .collect::<Result<Vec<LayerMoves>, ProbeError>>()?;
    // Layer 0: the quiet count has run out.
    let mut layer: Vec<u16> = tasks
        .iter()
        .flat_map(|t| &t.positions)
        .map(|p| match p {
            Layered::Fixed(r) => r.code(),
            Layered::Open { plain, .. } => RuleResult::drawn(*plain).code(),
        })
        .collect();
    let quiet = set.quiet.map_or(0, |q| q.plies);
    for _ in 0..quiet {
        let next: Vec<u16> = tasks
            .par_iter()
            .flat_map_iter(|t| {
                let layer = &layer;
                t.positions
                    .iter()
                    .enumerate()
                    .map(move |(p, entry)| match *entry {
                        Layered::Fixed(r) => r.code(),
                        Layered::Open { plain, exits } => {
                            let from = if p == 0 { 0 } else { t.ends[p - 1] as usize };
                            let kings = t.successors[from..t.ends[p] as usize]
                                .iter()
                                .map(|&s| RuleResult::from_code(layer[s as usize]));
                            next_layer(exits, kings, material, plain).code()
                        }
                    })
            })
            .collect();
        let unchanged = next == layer;
        layer = next;
        if unchanged {
            break;
        }
    }
    Ok(placements.level(stored.blocks.clone(), vec![layer]))
}
