//! Results under a rule set's move counts: the five categories, and the stored value of a
//! position (its category with the counters at 0 and, for a win or loss under the rules,
//! the plies of its count the result needs).
//!
//! A position is governed by one count ([`crate::rules::Governing`]): its `limit` is that
//! count's plies, `None` where no count runs. With `p` plies of the count left, the side to
//! move wins under the rules when its stored win needs at most `p`, and loses when its
//! stored loss does. The plies needed come from the moves ([`Moves`]): a
//! move that starts the count again (a conversion, under a quiet count) needs one ply and
//! gives the category of the position it leads to; a move the count goes on through needs
//! one ply more than that position's result. Where a material count runs beside the quiet
//! count ([`crate::rules::Governing::Both`]), the stored result is the one with a fresh quiet
//! count, in plies of the material count ([`next_layer`]).

use std::fmt;

use crate::rules::{Counters, Governing, Position, RuleSet, Rules};
use crate::tablebase::value::Wdl;

/// A result under the move-count rules, from the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleCategory {
    /// Lost within the counts.
    Loss,
    /// Lost without the counts, drawn by them.
    BlessedLoss,
    /// Drawn without the counts.
    Draw,
    /// Won without the counts, drawn by them.
    CursedWin,
    /// Won within the counts.
    Win,
}

impl RuleCategory {
    /// The name printed by `damka probe` and the JSON API.
    pub fn name(self) -> &'static str {
        match self {
            RuleCategory::Win => "win",
            RuleCategory::CursedWin => "cursed-win",
            RuleCategory::Draw => "draw",
            RuleCategory::BlessedLoss => "blessed-loss",
            RuleCategory::Loss => "loss",
        }
    }

    /// The category for the other side.
    pub fn flip(self) -> RuleCategory {
        match self {
            RuleCategory::Win => RuleCategory::Loss,
            RuleCategory::CursedWin => RuleCategory::BlessedLoss,
            RuleCategory::Draw => RuleCategory::Draw,
            RuleCategory::BlessedLoss => RuleCategory::CursedWin,
            RuleCategory::Loss => RuleCategory::Win,
        }
    }

    /// The category a drawn result under the rules takes from the plain result.
    pub fn drawn(plain: Wdl) -> RuleCategory {
        match plain {
            Wdl::Win => RuleCategory::CursedWin,
            Wdl::Draw => RuleCategory::Draw,
            Wdl::Loss => RuleCategory::BlessedLoss,
        }
    }
}

impl fmt::Display for RuleCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A position's stored result under a rule set, with the counters at 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RuleResult {
    /// The category.
    pub category: RuleCategory,
    /// For a win or a loss, the plies of the governing count it needs (0 for a position
    /// without a move; where no count runs, the plies to the end of the game under the
    /// rules); 0 otherwise.
    pub plies: u16,
}

impl fmt::Display for RuleResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.category {
            RuleCategory::Win | RuleCategory::Loss => {
                write!(f, "{} in {} plies of the count", self.category, self.plies)
            }
            c => write!(f, "{c}"),
        }
    }
}

/// What one move gives the side that plays it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Contribution {
    /// It wins under the rules with this many plies of the count.
    Win(u16),
    /// It loses under the rules with this many plies of the count.
    Loss(u16),
    /// It neither wins nor loses under the rules.
    Neither,
}

impl RuleResult {
    /// A position without a legal move.
    pub const NO_MOVE: RuleResult = RuleResult {
        category: RuleCategory::Loss,
        plies: 0,
    };

    /// A win under the rules in `plies`.
    pub fn win(plies: u16) -> RuleResult {
        RuleResult {
            category: RuleCategory::Win,
            plies,
        }
    }

    /// A loss under the rules in `plies`.
    pub fn loss(plies: u16) -> RuleResult {
        RuleResult {
            category: RuleCategory::Loss,
            plies,
        }
    }

    /// Drawn under the rules, `plain` without them.
    pub fn drawn(plain: Wdl) -> RuleResult {
        RuleResult {
            category: RuleCategory::drawn(plain),
            plies: 0,
        }
    }

    /// The stored code: 0 draw, 1 cursed win, 2 blessed loss, `3 + 2n` a win in `n` plies,
    /// `4 + 2n` a loss in `n` plies.
    pub fn code(self) -> u16 {
        match self.category {
            RuleCategory::Draw => 0,
            RuleCategory::CursedWin => 1,
            RuleCategory::BlessedLoss => 2,
            RuleCategory::Win => 3 + 2 * self.plies,
            RuleCategory::Loss => 4 + 2 * self.plies,
        }
    }

    /// The result a code stands for.
    pub fn from_code(code: u16) -> RuleResult {
        match code {
            0 => RuleResult::drawn(Wdl::Draw),
            1 => RuleResult::drawn(Wdl::Win),
            2 => RuleResult::drawn(Wdl::Loss),
            c if c % 2 == 1 => RuleResult::win((c - 3) / 2),
            c => RuleResult::loss((c - 4) / 2),
        }
    }

    /// The result under a quiet count of `limit` plies of a position of plain result
    /// `plain` and distance to conversion `dtc`, exact when no conversion leads to a result
    /// drawn by the counts (no cursed win or blessed loss): then a conversion's result under
    /// the rules is its plain one, and a win or loss is one under the rules when its
    /// distance to conversion fits in the count.
    pub fn derived(plain: Wdl, dtc: u16, limit: u32) -> RuleResult {
        let fits = u32::from(dtc) <= limit;
        match plain {
            Wdl::Win if fits => RuleResult::win(dtc),
            Wdl::Loss if fits => RuleResult::loss(dtc),
            w => RuleResult::drawn(w),
        }
    }

    /// The category with `left` plies of the governing count left (`None`: no count runs).
    pub fn with_plies_left(self, left: Option<u32>) -> RuleCategory {
        let fits = left.is_none_or(|l| u32::from(self.plies) <= l);
        match self.category {
            RuleCategory::Win if !fits => RuleCategory::CursedWin,
            RuleCategory::Loss if !fits => RuleCategory::BlessedLoss,
            c => c,
        }
    }

    /// What a move to a position of this result gives its player, with a count of `limit`
    /// plies (`None`: none runs), `carried` when the count goes on through the move.
    pub fn contribution(self, carried: bool, limit: Option<u32>) -> Contribution {
        let plies = if carried { self.plies + 1 } else { 1 };
        if limit.is_some_and(|l| u32::from(plies) > l) {
            return Contribution::Neither;
        }
        match self.category {
            RuleCategory::Loss => Contribution::Win(plies),
            RuleCategory::Win => Contribution::Loss(plies),
            _ => Contribution::Neither,
        }
    }
}

/// What a position's moves give, folded one at a time: the fastest win, else the slowest
/// loss when every move loses, else a draw (the one "best over the moves" under the rules).
#[derive(Copy, Clone, Debug)]
pub struct Moves {
    any: bool,
    win: Option<u16>,
    /// `None` once a move neither wins nor loses.
    loss: Option<u16>,
}

impl Default for Moves {
    fn default() -> Self {
        Moves {
            any: false,
            win: None,
            loss: Some(0),
        }
    }
}

impl Moves {
    /// One more move.
    pub fn add(&mut self, c: Contribution) {
        self.any = true;
        match c {
            Contribution::Win(p) => self.win = Some(self.win.map_or(p, |w| w.min(p))),
            Contribution::Loss(p) => self.loss = self.loss.map(|l| l.max(p)),
            Contribution::Neither => self.loss = None,
        }
    }

    /// The fewest plies a move wins in.
    pub fn win(&self) -> Option<u16> {
        self.win
    }

    /// The most plies a move loses in, `None` when one neither wins nor loses.
    pub fn loss(&self) -> Option<u16> {
        self.loss
    }

    /// The result of the position, `plain` being its result without the counts.
    pub fn result(&self, plain: Wdl) -> RuleResult {
        match (self.any, self.win, self.loss) {
            (false, _, _) => RuleResult::NO_MOVE,
            (true, Some(p), _) => RuleResult::win(p),
            (true, None, Some(p)) => RuleResult::loss(p),
            (true, None, None) => RuleResult::drawn(plain),
        }
    }
}

/// `g(P, r)`, `r > 0`, of a position of plain result `plain`: its moves other than a king's
/// give `exits`, and its king's moves lead to positions whose results in layer `r - 1` are
/// `kings` (the material count, of `material` plies, goes on through them).
pub(crate) fn next_layer(
    mut exits: Moves,
    kings: impl IntoIterator<Item = RuleResult>,
    material: u32,
    plain: Wdl,
) -> RuleResult {
    for r in kings {
        exits.add(r.contribution(true, Some(material)));
    }
    exits.result(plain)
}

/// Where `pos` at counters `c` needs a search of its king moves (a material count runs
/// beside a quiet count already partly used): the quiet plies left, the quiet count's and
/// the material count's plies.
pub(crate) fn quiet_used<R: Rules>(
    rules: &RuleSet,
    pos: &Position<R>,
    c: Counters,
) -> Option<(u32, u32, u32)> {
    match (rules.governing_of(pos), rules.quiet) {
        (Governing::Both { plies, .. }, Some(q)) if c.quiet > 0 => {
            Some((q.plies.saturating_sub(c.quiet), q.plies, plies))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for r in [
            RuleResult::drawn(Wdl::Draw),
            RuleResult::drawn(Wdl::Win),
            RuleResult::drawn(Wdl::Loss),
            RuleResult::win(1),
            RuleResult::win(79),
            RuleResult::NO_MOVE,
            RuleResult::loss(80),
        ] {
            assert_eq!(RuleResult::from_code(r.code()), r);
        }
        assert_eq!(RuleResult::win(5).code(), 13);
    }

    fn from_moves<const N: usize>(moves: [Contribution; N], plain: Wdl) -> RuleResult {
        let mut fold = Moves::default();
        moves.into_iter().for_each(|c| fold.add(c));
        fold.result(plain)
    }

    #[test]
    fn counts_decide_what_a_move_gives() {
        let lost = RuleResult::loss(9);
        assert_eq!(lost.contribution(true, Some(10)), Contribution::Win(10));
        assert_eq!(lost.contribution(true, Some(9)), Contribution::Neither);
        assert_eq!(lost.contribution(false, Some(9)), Contribution::Win(1));
        assert_eq!(lost.contribution(false, Some(0)), Contribution::Neither);
        assert_eq!(
            RuleResult::win(3).contribution(true, None),
            Contribution::Loss(4)
        );
        let moves = [Contribution::Loss(3), Contribution::Loss(7)];
        assert_eq!(from_moves(moves, Wdl::Loss), RuleResult::loss(7));
        let moves = [Contribution::Loss(3), Contribution::Neither];
        assert_eq!(
            from_moves(moves, Wdl::Loss).category,
            RuleCategory::BlessedLoss
        );
        let moves = [
            Contribution::Neither,
            Contribution::Win(4),
            Contribution::Win(2),
        ];
        assert_eq!(from_moves(moves, Wdl::Win), RuleResult::win(2));
        assert_eq!(from_moves([], Wdl::Loss), RuleResult::NO_MOVE);
        assert_eq!(
            RuleResult::win(20).with_plies_left(Some(19)),
            RuleCategory::CursedWin
        );
        assert_eq!(RuleResult::win(20).with_plies_left(None), RuleCategory::Win);
    }
}
