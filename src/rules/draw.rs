//! Draws by rule: threefold repetition and each variant's move-count rules, as data
//! (`docs/RULES.md`, "Draw rules: repetition and move counts").
//!
//! A variant has one or more named [`RuleSet`]s; the first is its default. A rule set has at
//! most one *quiet* count (plies without a conversion, that is a capture or a man move) and
//! a list of *material* counts (plies since a material arose), checked in order: the first
//! that covers a position's material is the one that runs. A material count of 0 plies draws
//! as soon as the material is on the board (Brazilian `dama-online`, Turkish `tdf`).
//!
//! The interpretation implemented:
//! - A count has run out when its counter reaches its plies: after the last counted ply the
//!   game is drawn. A side with no legal move still loses, even on that ply (the last
//!   counted move may win, as in chess a mate on the 100th ply of the 50-move rule).
//! - A material count starts at 0 when its material arises and is not reset by a man move.
//!   When a move turns one material into another covered by the same rule (a man of "king
//!   and two men" crowning, in FMJD 6.3), the count goes on if the rule says it continues
//!   (FMJD 6.3 and 6.4, Russian (b)); otherwise (Russian (c): "no change of material") it
//!   starts again.
//! - Counts are in plies: "16 moves each" is 32 plies.
//! - pydraughts' Russian long-diagonal rule (three pieces with a king against a lone king on
//!   a1-h8, drawn after 5 moves) is not a rule of the rulebooks and is not applied.

use std::fmt;

use super::board::Color;
use super::position::Position;
use super::variant::{Rules, Variant};

/// A count of plies without a conversion (capture or man move).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QuietRule {
    /// The plies after which the game is drawn.
    pub plies: u32,
    /// How players call it ("the 40-move rule").
    pub name: &'static str,
}

/// The materials a material count covers. "Strong" is either side; the other is "weak".
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MaterialClass {
    /// The strong side has exactly one of these (men, kings) and the weak side a lone king.
    AgainstLoneKing(&'static [(u32, u32)]),
    /// The strong side has at least this many kings (and any men), the weak side a lone
    /// king.
    KingsAgainstLoneKing(u32),
    /// Both sides have a king, and there are between `min` and `max` pieces in all.
    KingsOnBothSides {
        /// The fewest pieces on the board.
        min: u32,
        /// The most pieces on the board.
        max: u32,
    },
    /// One piece each, of any kind.
    OnePieceEach,
}

/// Men and kings of one side.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SideMaterial {
    /// Men.
    pub men: u32,
    /// Kings.
    pub kings: u32,
}

impl SideMaterial {
    fn pieces(self) -> u32 {
        self.men + self.kings
    }

    fn lone_king(self) -> bool {
        self == SideMaterial { men: 0, kings: 1 }
    }
}

impl MaterialClass {
    /// Whether the material of the two sides (in either order) is in the class.
    pub fn covers(self, a: SideMaterial, b: SideMaterial) -> bool {
        let strong_against_lone = |strong: SideMaterial, weak: SideMaterial| match self {
            MaterialClass::AgainstLoneKing(list) => {
                weak.lone_king() && list.contains(&(strong.men, strong.kings))
            }
            MaterialClass::KingsAgainstLoneKing(k) => weak.lone_king() && strong.kings >= k,
            _ => false,
        };
        match self {
            MaterialClass::KingsOnBothSides { min, max } => {
                a.kings > 0 && b.kings > 0 && (min..=max).contains(&(a.pieces() + b.pieces()))
            }
            MaterialClass::OnePieceEach => a.pieces() == 1 && b.pieces() == 1,
            _ => strong_against_lone(a, b) || strong_against_lone(b, a),
        }
    }
}

/// The count that decides a material's results under a rule set ([`RuleSet::governing`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Governing {
    /// The quiet count, of these plies (`None`: no count runs).
    Quiet(Option<u32>),
    /// Material count number `index` of [`RuleSet::material`], of `plies`.
    Material {
        /// Its place in [`RuleSet::material`].
        index: usize,
        /// Its plies.
        plies: u32,
    },
    /// Material count number `index`, of `plies`, longer than the quiet count and running
    /// beside it (Russian (c) with a man on the board): a man's move resets only the quiet
    /// count. A stored result is the one with a fresh quiet count, its plies those of the
    /// material count; with part of the quiet count used, the result follows from the king
    /// moves to a conversion (see [`crate::tablebase::Tablebase::probe_rules`]).
    Both {
        /// Its place in [`RuleSet::material`].
        index: usize,
        /// Its plies.
        plies: u32,
    },
}

impl Governing {
    /// The plies of the count a stored result's plies are of (`None` where no count runs):
    /// the material count's where two run.
    pub fn plies(self) -> Option<u32> {
        match self {
            Governing::Quiet(plies) => plies,
            Governing::Material { plies, .. } | Governing::Both { plies, .. } => Some(plies),
        }
    }
}

/// A count of plies from when a material arose.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MaterialRule {
    /// The materials it covers.
    pub class: MaterialClass,
    /// The plies after which the game is drawn (0: drawn at once).
    pub plies: u32,
    /// Whether the count goes on when one covered material turns into another.
    pub continues: bool,
    /// How players call it ("the 16-move rule").
    pub name: &'static str,
}

/// One named set of draw rules of a variant.
#[derive(Debug, PartialEq, Eq)]
pub struct RuleSet {
    /// The variant.
    pub variant: Variant,
    /// Its name on the command line (`--rules NAME`).
    pub name: &'static str,
    /// The count of plies without a conversion, if any.
    pub quiet: Option<QuietRule>,
    /// Material counts, the first that covers a material being the one that runs.
    pub material: &'static [MaterialRule],
}

const fn quiet(plies: u32, name: &'static str) -> Option<QuietRule> {
    Some(QuietRule { plies, name })
}

const RULE_SETS: &[RuleSet] = &[
    // WCDF/ACF: 40 moves each without a conversion.
    RuleSet {
        variant: Variant::English,
        name: "wcdf",
        quiet: quiet(80, "40-move rule"),
        material: &[],
    },
    // Online play sites: 50 moves each without a capture or a man move.
    RuleSet {
        variant: Variant::English,
        name: "rulepage-50",
        quiet: quiet(100, "50-move rule"),
        material: &[],
    },
    // Online play sites: 50 moves each without a conversion.
    RuleSet {
        variant: Variant::Italian,
        name: "rulepage-50",
        quiet: quiet(100, "50-move rule"),
        material: &[],
    },
    // No move count: repetition only.
    RuleSet {
        variant: Variant::Spanish,
        name: "none",
        quiet: None,
        material: &[],
    },
    // Russian sports rules, 64 squares.
    RuleSet {
        variant: Variant::Russian,
        name: "fsr",
        quiet: quiet(30, "15-move rule"),
        material: &[
            MaterialRule {
                class: MaterialClass::KingsAgainstLoneKing(3),
                plies: 30,
                continues: true,
                name: "15-move rule (three kings against one)",
            },
            MaterialRule {
                class: MaterialClass::KingsOnBothSides { min: 4, max: 5 },
                plies: 60,
                continues: false,
                name: "30-move rule (kings on both sides)",
            },
            MaterialRule {
                class: MaterialClass::KingsOnBothSides { min: 6, max: 7 },
                plies: 120,
                continues: false,
                name: "60-move rule (kings on both sides)",
            },
        ],
    },
    // Brazilian confederation: 20 moves each of kings only.
    RuleSet {
        variant: Variant::Brazilian,
        name: "cbd",
        quiet: quiet(40, "20-move rule"),
        material: &[],
    },
    // Dama Online: drawn at once with one king each.
    RuleSet {
        variant: Variant::Brazilian,
        name: "dama-online",
        quiet: None,
        material: &[MaterialRule {
            class: MaterialClass::AgainstLoneKing(&[(0, 1)]),
            plies: 0,
            continues: false,
            name: "one king each",
        }],
    },
    // FMJD rules, article 6.
    RuleSet {
        variant: Variant::International,
        name: "fmjd",
        quiet: quiet(50, "25-move rule"),
        material: &[
            MaterialRule {
                class: MaterialClass::AgainstLoneKing(&[(0, 3), (1, 2), (2, 1)]),
                plies: 32,
                continues: true,
                name: "16-move rule",
            },
            MaterialRule {
                class: MaterialClass::AgainstLoneKing(&[(0, 2), (1, 1), (0, 1)]),
                plies: 10,
                continues: true,
                name: "5-move rule",
            },
        ],
    },
    // One piece against one piece is drawn (as pydraughts applies it).
    RuleSet {
        variant: Variant::Turkish,
        name: "tdf",
        quiet: None,
        material: &[MaterialRule {
            class: MaterialClass::OnePieceEach,
            plies: 0,
            continues: false,
            name: "one piece each",
        }],
    },
];

/// A rule-set name that the variant does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRuleSet {
    /// The variant.
    pub variant: Variant,
    /// The name asked for.
    pub name: String,
}

impl fmt::Display for UnknownRuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = RuleSet::all(self.variant).map(|r| r.name).collect();
        write!(
            f,
            "{} has no rule set '{}' (it has: {})",
            self.variant.name(),
            self.name,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownRuleSet {}

/// The draw counters of one position of a game.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counters {
    /// Plies since the last capture or man move.
    pub quiet: u32,
    /// Plies since the material count that runs started (0 when none runs).
    pub material: u32,
}

/// Why a game is over as a draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// The last position occurred for the third time.
    Repetition,
    /// A move-count rule ran out.
    MoveCount,
}

impl RuleSet {
    /// The rule sets of `variant`, its default first.
    pub fn all(variant: Variant) -> impl Iterator<Item = &'static RuleSet> {
        RULE_SETS.iter().filter(move |r| r.variant == variant)
    }

    /// The default rule set of `variant`: its declaration's
    /// [`VariantFacts::default_rules`](crate::rules::VariantFacts::default_rules), the first
    /// in `docs/RULES.md`.
    pub fn default_for(variant: Variant) -> &'static RuleSet {
        RuleSet::find(variant, variant.facts().default_rules)
            .expect("a variant's default rules are one of its rule sets")
    }

    /// Its number among the variant's rule sets, from 1 in the order of `docs/RULES.md` (the
    /// rules file header's byte 72, docs/FORMAT.md).
    pub fn number(&self) -> u8 {
        let place = RuleSet::all(self.variant)
            .position(|r| r.name == self.name)
            .expect("a rule set is one of its variant's");
        place as u8 + 1
    }

    /// The rule set of `variant` numbered `n` (see [`RuleSet::number`]).
    pub fn numbered(variant: Variant, n: u8) -> Option<&'static RuleSet> {
        RuleSet::all(variant).nth(usize::from(n).checked_sub(1)?)
    }

    /// The rule set of `variant` called `name`.
    pub fn find(variant: Variant, name: &str) -> Result<&'static RuleSet, UnknownRuleSet> {
        RuleSet::all(variant)
            .find(|r| r.name == name)
            .ok_or_else(|| UnknownRuleSet {
                variant,
                name: name.to_string(),
            })
    }

    /// The material count covering this material (the sides in either order), with its
    /// place in [`RuleSet::material`].
    pub fn material_rule(&self, a: SideMaterial, b: SideMaterial) -> Option<(usize, MaterialRule)> {
        self.material
            .iter()
            .enumerate()
            .find(|(_, r)| r.class.covers(a, b))
            .map(|(i, r)| (i, *r))
    }

    /// The count that decides the results of a material (the sides in either order) at
    /// the counters a game can reach: a material count starts with the quiet count (both at
    /// a capture or a man move), so it is never behind it and runs out first when it is
    /// the shorter. Without men, a longer material count that starts again at every change
    /// of material (Russian (c) with kings only) runs with the quiet count ply for ply:
    /// every move is a king's or a capture, which changes the material and resets both,
    /// and the material arose by a capture or a crowning, which reset both. So the quiet
    /// count decides.
    pub fn governing(&self, a: SideMaterial, b: SideMaterial) -> Governing {
        match (self.material_rule(a, b), self.quiet) {
            (Some((index, r)), q) if q.is_none_or(|q| r.plies <= q.plies) => Governing::Material {
                index,
                plies: r.plies,
            },
            (Some((_, r)), Some(q)) if a.men == 0 && b.men == 0 && !r.continues => {
                Governing::Quiet(Some(q.plies))
            }
            (Some((index, r)), _) => Governing::Both {
                index,
                plies: r.plies,
            },
            (None, q) => Governing::Quiet(q.map(|q| q.plies)),
        }
    }

    /// Whether the governing count of material `before` goes on through a move that leaves
    /// material `after` (the sides in the same order), `conversion` when the move is a
    /// capture or a man's: false when the count starts again. Without any count the
    /// distance is counted through every move.
    pub fn carries(
        &self,
        before: [SideMaterial; 2],
        after: [SideMaterial; 2],
        conversion: bool,
    ) -> bool {
        self.carries_under(
            self.governing(before[0], before[1]),
            before,
            after,
            conversion,
        )
    }

    /// [`RuleSet::carries`], `governing` being the count of material `before` (known to
    /// the caller: a table generator's job has one material).
    pub fn carries_under(
        &self,
        governing: Governing,
        before: [SideMaterial; 2],
        after: [SideMaterial; 2],
        conversion: bool,
    ) -> bool {
        match governing {
            Governing::Quiet(Some(_)) => !conversion,
            Governing::Quiet(None) => true,
            Governing::Material { index, .. } | Governing::Both { index, .. } => {
                before == after
                    || self.material_rule(after[0], after[1]).map(|(i, _)| i) == Some(index)
                        && self.material[index].continues
            }
        }
    }

    /// The count that decides the results of `pos`'s material ([`RuleSet::governing`]).
    pub fn governing_of<R: Rules>(&self, pos: &Position<R>) -> Governing {
        let side = |c: Color| SideMaterial {
            men: pos.men_of(c).count(),
            kings: pos.kings_of(c).count(),
        };
        self.governing(side(Color::White), side(Color::Black))
    }

    /// The plies left at counters `c` of the count a result's plies are of
    /// ([`Governing::plies`]): the count that runs out first ([`RuleSet::plies_left`]), but
    /// the material count where two run ([`Governing::Both`]; the result itself reckons
    /// with the quiet count).
    pub fn result_plies_left<R: Rules>(&self, pos: &Position<R>, c: Counters) -> Option<u32> {
        match self.governing_of(pos) {
            Governing::Both { plies, .. } => Some(plies.saturating_sub(c.material)),
            _ => self.plies_left(pos, c),
        }
    }

    /// The material count covering `pos`.
    pub fn material_rule_of<R: Rules>(&self, pos: &Position<R>) -> Option<(usize, MaterialRule)> {
        let side = |c: Color| SideMaterial {
            men: pos.men_of(c).count(),
            kings: pos.kings_of(c).count(),
        };
        self.material_rule(side(Color::White), side(Color::Black))
    }

    /// The counters after a move from `before` (counters `c`) to `after`.
    pub fn next<R: Rules>(
        &self,
        before: &Position<R>,
        c: Counters,
        after: &Position<R>,
    ) -> Counters {
        let side = before.side_to_move();
        let capture = after.occupied().count() < before.occupied().count();
        let man_moved = before.men_of(side) != after.men_of(side);
        // Counts past every limit stay past it (a count given at u32::MAX never wraps).
        let quiet = if capture || man_moved {
            0
        } else {
            c.quiet.saturating_add(1)
        };
        let same_material = !capture && after.kings().count() == before.kings().count();
        let material = match (self.material_rule_of(before), self.material_rule_of(after)) {
            (Some((i, rule)), Some((j, _))) if i == j && (same_material || rule.continues) => {
                c.material.saturating_add(1)
            }
            _ => 0,
        };
        Counters { quiet, material }
    }

    /// The counters of every position of a game (the first position starts at zero).
    pub fn game_counters<R: Rules>(&self, game: &[Position<R>]) -> Vec<Counters> {
        let mut out = Vec::with_capacity(game.len());
        let mut c = Counters::default();
        for (i, pos) in game.iter().enumerate() {
            if i > 0 {
                c = self.next(&game[i - 1], c, pos);
            }
            out.push(c);
        }
        out
    }

    /// The count that runs out first at `pos` with counters `c`: the plies that may still
    /// be played before it draws the game if nothing resets it, and its name; `None` when no
    /// count runs.
    pub fn binding_count<R: Rules>(
        &self,
        pos: &Position<R>,
        c: Counters,
    ) -> Option<(u32, &'static str)> {
        let quiet = self
            .quiet
            .map(|q| (q.plies.saturating_sub(c.quiet), q.name));
        let material = self
            .material_rule_of(pos)
            .map(|(_, r)| (r.plies.saturating_sub(c.material), r.name));
        match (quiet, material) {
            (Some(q), Some(m)) => Some(if m.0 < q.0 { m } else { q }),
            (q, m) => q.or(m),
        }
    }

    /// Plies that may still be played before a move-count rule draws the game if nothing
    /// resets its count; `None` when no count runs.
    pub fn plies_left<R: Rules>(&self, pos: &Position<R>, c: Counters) -> Option<u32> {
        self.binding_count(pos, c).map(|(left, _)| left)
    }

    /// Whether a count has run out at `pos` with counters `c`. (The game is then drawn,
    /// unless the side to move has no legal move and so has lost.)
    pub fn count_draw<R: Rules>(&self, pos: &Position<R>, c: Counters) -> bool {
        self.plies_left(pos, c) == Some(0)
    }

    /// Plies left before a move-count rule draws the game at its last position (see
    /// [`RuleSet::plies_left`]). A table win longer than this may not be completed.
    pub fn game_plies_left<R: Rules>(&self, game: &[Position<R>]) -> Option<u32> {
        let last = game.last()?;
        self.plies_left(last, *self.game_counters(game).last()?)
    }

    /// Whether the game (oldest position first) is drawn at its last position by threefold
    /// repetition or by a move-count rule (a side left without a legal move has lost
    /// instead; the caller knows).
    pub fn game_draw<R: Rules>(&self, game: &[Position<R>]) -> Option<DrawReason> {
        let last = game.last()?;
        let counters = self.game_counters(game);
        let c = *counters.last()?;
        if self.count_draw(last, c) {
            return Some(DrawReason::MoveCount);
        }
        let n = game.len() - 1;
        let window = c.quiet as usize;
        let seen = (n.saturating_sub(window)..n)
            .filter(|&i| game[i] == *last)
            .count();
        (seen >= 2).then_some(DrawReason::Repetition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_fen;
    use crate::rules::{Brazilian, English, International, Russian, Turkish};

    fn plies<R: Rules>(rules: &RuleSet, fen: &str) -> Option<u32> {
        let pos = parse_fen::<R>(fen).unwrap();
        rules.material_rule_of(&pos).map(|(_, r)| r.plies)
    }

    #[test]
    fn every_variant_has_its_default_first() {
        for v in Variant::ALL {
            assert_eq!(RuleSet::default_for(v).variant, v);
        }
        assert_eq!(RuleSet::default_for(Variant::English).name, "wcdf");
        assert_eq!(
            RuleSet::find(Variant::English, "rulepage-50")
                .unwrap()
                .quiet,
            quiet(100, "50-move rule")
        );
        let e = RuleSet::find(Variant::English, "fmjd").unwrap_err();
        assert_eq!(
            e.to_string(),
            "english has no rule set 'fmjd' (it has: wcdf, rulepage-50)"
        );
    }

    #[test]
    fn international_material_counts() {
        let r = RuleSet::default_for(Variant::International);
        let p = |fen| plies::<International>(r, fen);
        assert_eq!(p("W:WK1,K2,K3:BK50"), Some(32));
        assert_eq!(p("W:WK1,7,8:BK50"), Some(32));
        assert_eq!(p("W:WK1,K2,8:BK50"), Some(32));
        assert_eq!(p("W:W6,7,8:BK50"), None);
        assert_eq!(p("B:WK45:BK1,10"), Some(10));
        assert_eq!(p("B:WK45:BK1"), Some(10));
        assert_eq!(p("W:WK1,K2,K3:B40"), None);
        assert_eq!(p("W:WK1,K2,K3,K4:BK50"), None);
        assert_eq!(p("W:W11,12:BK50"), None);
    }

    #[test]
    fn russian_brazilian_and_turkish_material_counts() {
        let r = RuleSet::default_for(Variant::Russian);
        let p = |fen| plies::<Russian>(r, fen);
        // Three kings against one: (b) comes before (c).
        assert_eq!(p("W:WK1,K2,K3:BK32"), Some(30));
        assert_eq!(p("W:WK1,K2,K3,10:BK32"), Some(30));
        assert_eq!(p("W:WK1,K2,10:BK32"), Some(60));
        assert_eq!(p("W:WK1,K2,10:BK32,20,21"), Some(120));
        assert_eq!(p("W:WK1,10:B20,21"), None);
        assert_eq!(p("W:WK1:BK32"), None);
        let dama = RuleSet::find(Variant::Brazilian, "dama-online").unwrap();
        assert_eq!(plies::<Brazilian>(dama, "W:WK1:BK32"), Some(0));
        assert_eq!(plies::<Brazilian>(dama, "W:WK1:B28"), None);
        let pos = parse_fen::<Brazilian>("W:WK1:BK32").unwrap();
        assert!(dama.count_draw(&pos, Counters::default()));
        let tdf = RuleSet::default_for(Variant::Turkish);
        assert_eq!(plies::<Turkish>(tdf, "W:Wa3:Bh6"), Some(0));
        assert_eq!(plies::<Turkish>(tdf, "W:Wa3,b3:Bh6"), None);
    }

    #[test]
    fn material_counts_go_on_or_start_again() {
        let r = RuleSet::default_for(Variant::International);
        let p = |fen| parse_fen::<International>(fen).unwrap();
        let c = Counters {
            quiet: 3,
            material: 7,
        };
        // A man move within 6.3 resets the quiet count only.
        let (a, b) = (p("W:WK1,K2,40:BK50"), p("B:WK1,K2,34:BK50"));
        assert_eq!(
            r.next(&a, c, &b),
            Counters {
                quiet: 0,
                material: 8
            }
        );
        // The man crowns: 6.3 still, the count goes on.
        let (a, b) = (p("W:WK3,K4,7:BK50"), p("B:WK3,K4,K1:BK50"));
        assert_eq!(
            r.next(&a, c, &b),
            Counters {
                quiet: 0,
                material: 8
            }
        );
        // The lone king takes a king: from 6.3 to 6.4, a new count.
        let (a, b) = (p("B:WK1,K2,K28:BK50"), p("W:WK1,K2:BK17"));
        assert_eq!(r.next(&a, c, &b), Counters::default());
        // Russian (c) starts again at a change of material.
        let ru = RuleSet::default_for(Variant::Russian);
        let q = |fen| parse_fen::<Russian>(fen).unwrap();
        let (a, b) = (q("W:WK1,K2,15:BK32"), q("B:WK1,K2,11:BK32"));
        assert_eq!(
            ru.next(&a, c, &b),
            Counters {
                quiet: 0,
                material: 8
            }
        );
    }

    #[test]
    fn russian_kings_on_both_sides_need_two_counters_only_with_men() {
        let r = RuleSet::default_for(Variant::Russian);
        let side = |men, kings| SideMaterial { men, kings };
        // Kings only: the quiet count (15 moves) runs with the 30-move count and decides.
        assert_eq!(
            r.governing(side(0, 2), side(0, 2)),
            Governing::Quiet(Some(30))
        );
        assert_eq!(
            r.governing(side(0, 3), side(0, 3)),
            Governing::Quiet(Some(30))
        );
        // Three kings against one: rule (b), 15 moves from when the material arose.
        assert_eq!(
            r.governing(side(0, 3), side(0, 1)),
            Governing::Material {
                index: 0,
                plies: 30
            }
        );
        // A man beside kings on both sides: its moves reset the quiet count only, and the
        // 30-move count goes on through them (60 moves with six or seven pieces).
        let both = r.governing(side(1, 1), side(0, 2));
        assert_eq!(
            both,
            Governing::Both {
                index: 1,
                plies: 60
            }
        );
        assert_eq!(both.plies(), Some(60));
        assert_eq!(
            r.governing(side(2, 2), side(0, 3)),
            Governing::Both {
                index: 2,
                plies: 120
            }
        );
        let (man, king) = ([side(1, 1), side(0, 2)], [side(0, 2), side(0, 2)]);
        assert!(r.carries(man, man, true), "a man's step");
        assert!(r.carries(man, man, false), "a king's move");
        assert!(!r.carries(man, king, true), "a crowning");
        assert!(!r.carries(man, [side(1, 1), side(0, 1)], true), "a capture");
        // Three pieces: (c) covers four or more.
        assert_eq!(
            r.governing(side(1, 1), side(0, 1)),
            Governing::Quiet(Some(30))
        );
    }

    #[test]
    fn the_count_that_runs_out_first_is_named() {
        let r = RuleSet::default_for(Variant::International);
        let three = parse_fen::<International>("W:WK1,K2,K3:BK50").unwrap();
        let c = |quiet, material| Counters { quiet, material };
        assert_eq!(r.binding_count(&three, c(3, 7)), Some((25, "16-move rule")));
        assert_eq!(r.binding_count(&three, c(45, 7)), Some((5, "25-move rule")));
        let spanish = RuleSet::default_for(Variant::Spanish);
        let pos = parse_fen::<crate::rules::Spanish>("W:WK1:BK32").unwrap();
        assert_eq!(spanish.binding_count(&pos, c(200, 0)), None);
    }

    #[test]
    fn counters_follow_moves() {
        let r = RuleSet::default_for(Variant::English);
        let p = |fen| parse_fen::<English>(fen).unwrap();
        // A king move counts, a man move and a capture reset.
        let game = [
            p("W:WK14,22:BK32"),
            p("B:WK18,22:BK32"),
            p("W:WK18,22:BK27"),
            p("B:WK18,17:BK27"),
        ];
        let q: Vec<u32> = r.game_counters(&game).iter().map(|c| c.quiet).collect();
        assert_eq!(q, [0, 1, 2, 0]);
        assert_eq!(r.game_plies_left(&game[..3]), Some(78));
        assert_eq!(r.game_draw(&game), None);
        let fifty = RuleSet::find(Variant::English, "rulepage-50").unwrap();
        assert_eq!(fifty.game_plies_left(&game[..3]), Some(98));
    }

    #[test]
    fn counts_at_their_limit_never_wrap() {
        let p = |fen| parse_fen::<International>(fen).unwrap();
        let full = Counters {
            quiet: u32::MAX,
            material: u32::MAX,
        };
        // A king's move in 6.3 (three kings against one) counts on both counters.
        let (a, b) = (p("W:WK1,K2,K3:BK50"), p("B:WK7,K2,K3:BK50"));
        let r = RuleSet::default_for(Variant::International);
        assert_eq!(r.next(&a, full, &b), full);
        assert_eq!(r.plies_left(&b, full), Some(0));
        assert_eq!(r.result_plies_left(&b, full), Some(0));
    }

    #[test]
    fn threefold_repetition() {
        let r = RuleSet::default_for(Variant::English);
        let p = |fen| parse_fen::<English>(fen).unwrap();
        let a = p("W:WK14:BK32");
        let b = p("B:WK18:BK32");
        let c = p("W:WK18:BK28");
        let d = p("B:WK14:BK28");
        let game = [a, b, c, d, a, b, c, d, a];
        assert_eq!(r.game_draw(&game[..5]), None);
        assert_eq!(r.game_draw(&game), Some(DrawReason::Repetition));
    }
}
