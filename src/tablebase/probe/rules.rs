//! Results where a material count longer than the quiet count runs beside it
//! ([`Governing::Both`]: Russian (c), kings on both sides, with a man on the board).
//!
//! A man's step there resets the quiet count only, so a result depends on both counters. A
//! stored result is the one with a fresh quiet count: its category and the plies of the
//! material count a win or loss needs. With `r` plies of the quiet count left, the result
//! `g(P, r)` follows from the moves, one ply each:
//! - a capture or a crowning starts both counts again: it gives the category of the
//!   position it leads to;
//! - a man's step starts the quiet count again: one ply more than the stored result of the
//!   position it leads to;
//! - a king's move leaves `r - 1`: one ply more than `g(P', r - 1)`;
//! - with no ply left the game is drawn, unless the side to move has no move.
//!
//! `g(P, Q)`, `Q` the quiet count's plies, is the stored result, and `g(P, r) = g(P, Q)`
//! where `r` is at least the plies `g(P, Q)` needs (the quiet count starts again, or the
//! material changes, before it can run out) or it is a draw. The generator builds the
//! layers `r = 0, 1, ..., Q` of a whole placement at once, from each position's king-move
//! successors in its unit; `verify` builds them again from the moves of a whole level; a
//! probe with part of the quiet count used follows the king moves here, memoised. All three
//! fold a layer with [`next_layer`].

use std::collections::HashMap;

use super::tables::{ProbeError, Tablebase};
use crate::Variant;
use crate::rules::{Governing, MoveList, Position, RuleSet, Rules, generate};
use crate::tablebase::format::FileKind;
use crate::tablebase::index::MoverFrame;
use crate::tablebase::index::material::SliceJob;
use crate::tablebase::value::Wdl;
use crate::tablebase::value::{Moves, RuleCategory, RuleResult, next_layer};

/// Results already found, by position and quiet plies left.
type Memo<R> = HashMap<(Position<R>, u32), RuleResult>;

/// The quiet count's plies when `job`'s rule results follow from its distances to
/// conversion ([`RuleResult::derived`]) as far as its inputs go: a quiet count governs it
/// and no slice its conversions lead to holds a result drawn by the counts (a cursed win or
/// blessed loss). Its own levels must hold none either: the build knows it as it solves
/// them, `verify` from the headers it recounts.
pub fn derivable(
    tb: &Tablebase,
    variant: Variant,
    job: &SliceJob,
    governing: Governing,
) -> Option<u32> {
    let Governing::Quiet(Some(limit)) = governing else {
        return None;
    };
    job.inputs
        .iter()
        .all(|&m| {
            tb.table(variant, m, FileKind::Rules)
                .is_ok_and(|t| t.header().drawn_by_rules == 0)
        })
        .then_some(limit)
}

impl Tablebase {
    /// `g(pos, left)` with `(left, quiet, material)` from [`quiet_used`].
    pub(crate) fn result_with_quiet_left<R: Rules>(
        &self,
        pos: &Position<R>,
        rules: &RuleSet,
        counts: (u32, u32, u32),
    ) -> Result<RuleResult, ProbeError> {
        self.layer(pos, rules, counts, &mut Memo::new())
    }

    /// `g(pos, left)`, with the quiet and material counts' plies.
    fn layer<R: Rules>(
        &self,
        pos: &Position<R>,
        rules: &RuleSet,
        (left, quiet, material): (u32, u32, u32),
        memo: &mut Memo<R>,
    ) -> Result<RuleResult, ProbeError> {
        let stored = self.probe_rule_result(pos, rules)?;
        // Less of the quiet count only helps the side that does not win: a result the
        // counts draw with all of it stays drawn with less.
        let plain = match stored.category {
            RuleCategory::Win => Wdl::Win,
            RuleCategory::Loss => Wdl::Loss,
            _ => return Ok(stored),
        };
        // With at least as many quiet plies left as the result needs plies of the material
        // count, the quiet count cannot run out first: before it would, a man's move or a
        // capture starts it again, or the material changes, or the game ends.
        if left >= quiet || left >= u32::from(stored.plies) {
            return Ok(stored);
        }
        if let Some(&known) = memo.get(&(*pos, left)) {
            return Ok(known);
        }
        let mut list = MoveList::new();
        generate(pos, &mut list);
        let before = MoverFrame::of(pos).material().sides();
        let result = match (left, list.as_slice()) {
            // The count has run out: drawn, unless there is no move.
            (0, [_, ..]) => RuleResult::drawn(plain),
            (_, moves) => {
                let (mut exits, mut kings) = (Moves::default(), Vec::new());
                for mv in moves {
                    let after = pos.play(mv);
                    if !mv.is_capture() && pos.kings().contains(mv.from()) {
                        kings.push(self.layer(&after, rules, (left - 1, quiet, material), memo)?);
                        continue;
                    }
                    let [them, us] = MoverFrame::of(&after).material().sides();
                    let carried = rules.carries(before, [us, them], true);
                    let result = self.probe_rule_result(&after, rules)?;
                    exits.add(result.contribution(carried, Some(material)));
                }
                next_layer(exits, kings, material, plain)
            }
        };
        memo.insert((*pos, left), result);
        Ok(result)
    }
}
