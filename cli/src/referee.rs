//! The tables as referee: the result of a game's last position under the draw rules, where
//! the tables hold it (used by `damka dxp` to end games and by `damka match` to adjudicate
//! them and to count the table results each engine threw away).

use std::collections::HashSet;
use std::sync::Arc;

use damka::rules::{Position, RuleSet, Rules};
use damka::tablebase::{FileKind, Material, MoverFrame, RuleCategory, Tablebase, Wdl};

/// The tables of one variant, judging games played by one rule set.
pub struct Referee {
    tables: Arc<Tablebase>,
    slices: HashSet<Material>,
    rules: &'static RuleSet,
}

impl Referee {
    /// A referee for `rules.variant` with `tables` (the slices with win/draw/loss and
    /// distance files present).
    pub fn new(tables: Arc<Tablebase>, rules: &'static RuleSet) -> Referee {
        let slices = tables
            .store()
            .listing(rules.variant)
            .map(|l| l.slices_with(&FileKind::BUILT))
            .unwrap_or_default()
            .into_iter()
            .collect();
        Referee {
            tables,
            slices,
            rules,
        }
    }

    /// Whether the tables hold no slice of the variant.
    pub fn is_empty(&self) -> bool {
        self.slices.is_empty()
    }

    /// The result of the last position of `game` (oldest first) for its side to move, as
    /// the tables say under the rules: with rule results for these rules (or a rule set
    /// without counts), the result under the counts (a cursed win and a blessed loss are
    /// draws); otherwise the plain result, where a win or loss can be completed before a
    /// move count draws the game. `None` where the tables do not hold the position or cannot
    /// say.
    pub fn verdict<R: Rules>(&self, game: &[Position<R>]) -> Option<Wdl> {
        let pos = game.last()?;
        if !self.slices.contains(&MoverFrame::of(pos).material()) {
            return None;
        }
        let counters = *self.rules.game_counters(game).last()?;
        if let Ok(category) = self.tables.probe_rules(pos, self.rules, counters) {
            return Some(match category {
                RuleCategory::Win => Wdl::Win,
                RuleCategory::Loss => Wdl::Loss,
                _ => Wdl::Draw,
            });
        }
        // Without rule results, a win or loss counts where its distance to the end fits in
        // the plies the counts leave (without distances, only where no count runs).
        let (wdl, dtw) = self.tables.probe_result(pos).ok()?;
        let left = self.rules.plies_left(pos, counters);
        let fits = |l: u32| dtw.is_some_and(|d| u32::from(d) <= l);
        match wdl {
            Wdl::Draw => Some(Wdl::Draw),
            w if left.is_none_or(fits) => Some(w),
            _ => None,
        }
    }
}

/// Orders results for the side they belong to: loss, draw, win.
pub fn rank(w: Wdl) -> u8 {
    match w {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}
