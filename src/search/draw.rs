//! Draws by rule: repetition and each variant's move-count rules (see `docs/RULES.md`).
//!
//! - English and Italian: 50 moves each (100 plies) without a capture or a man move.
//! - International: 25 moves each (50 plies) of king moves without a capture; 16 moves each
//!   (32 plies) once three pieces with at least one king face a lone king; 5 moves each
//!   (10 plies) for two pieces with at least one king against a lone king.
//! - Every variant: repetition. The search scores the second occurrence of a position as a
//!   draw; [`game_draw`] applies the threefold rule to a game.
//!
//! The tables ignore these rules; the search trusts a table win or loss only when it ends
//! before any count could run out.

use crate::Variant;
use crate::rules::{Color, Position, Rules};

/// The draw counters of one position of a game.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Plies since the last capture or man move.
    pub quiet: u32,
    /// Plies since the position entered its International small-material case (0 outside).
    pub special: u32,
}

/// Plies of king moves without capture after which the game is drawn, by variant.
pub const fn quiet_limit(variant: Variant) -> Option<u32> {
    match variant {
        Variant::English | Variant::Italian => Some(100),
        Variant::International => Some(50),
        _ => None,
    }
}

/// The International small-material case of a position: the plies it may last, or `None`.
pub fn special_limit<R: Rules>(pos: &Position<R>) -> Option<u32> {
    if R::VARIANT != Variant::International {
        return None;
    }
    let (w, b) = (pos.pieces(Color::White), pos.pieces(Color::Black));
    let (strong, weak) = if w.count() >= b.count() {
        (w, b)
    } else {
        (b, w)
    };
    let kings = pos.kings();
    if weak.count() != 1 || (weak & kings).is_empty() || (strong & kings).is_empty() {
        return None;
    }
    match strong.count() {
        3 => Some(32),
        2 => Some(10),
        _ => None,
    }
}

/// The counters after a move from `before` (counters `c`) to `after`.
pub fn next<R: Rules>(before: &Position<R>, c: Counters, after: &Position<R>) -> Counters {
    let side = before.side_to_move();
    let capture = after.occupied().count() < before.occupied().count();
    let man_moved = before.men_of(side) != after.men_of(side);
    let quiet = if capture || man_moved { 0 } else { c.quiet + 1 };
    let cat = special_limit(after);
    let special = if cat.is_some() && cat == special_limit(before) && !capture {
        c.special + 1
    } else {
        0
    };
    Counters { quiet, special }
}

/// The counters of every position of a game (the first position starts at zero).
pub fn game_counters<R: Rules>(game: &[Position<R>]) -> Vec<Counters> {
    let mut out = Vec::with_capacity(game.len());
    let mut c = Counters::default();
    for (i, pos) in game.iter().enumerate() {
        if i > 0 {
            c = next(&game[i - 1], c, pos);
        }
        out.push(c);
    }
    out
}

/// Whether the counters have run out: the game is drawn by a move-count rule.
pub fn count_draw<R: Rules>(pos: &Position<R>, c: Counters) -> bool {
    plies_left(pos, c) == Some(0)
}

/// Plies that may still be played before a move-count rule draws the game if nothing
/// irreversible (a capture or a man move) happens; `None` when no count is running.
pub fn plies_left<R: Rules>(pos: &Position<R>, c: Counters) -> Option<u32> {
    let quiet = quiet_limit(R::VARIANT).map(|l| l.saturating_sub(c.quiet));
    let special = special_limit(pos).map(|l| l.saturating_sub(c.special));
    match (quiet, special) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Plies left before a move-count rule draws the game at its last position (see
/// [`plies_left`]). A table win longer than this may not be completed.
pub fn rule_plies_left<R: Rules>(game: &[Position<R>]) -> Option<u32> {
    let last = game.last()?;
    plies_left(last, *game_counters(game).last()?)
}

/// Why a game is over as a draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// The last position occurred for the third time.
    Repetition,
    /// A move-count rule ran out.
    MoveCount,
}

/// Whether the game (oldest position first) is drawn at its last position by threefold
/// repetition or by a move-count rule.
pub fn game_draw<R: Rules>(game: &[Position<R>]) -> Option<DrawReason> {
    let last = game.last()?;
    let counters = game_counters(game);
    let c = *counters.last()?;
    if count_draw(last, c) {
        return Some(DrawReason::MoveCount);
    }
    let n = game.len() - 1;
    let window = c.quiet as usize;
    let seen = (n.saturating_sub(window)..n)
        .filter(|&i| game[i] == *last)
        .count();
    (seen >= 2).then_some(DrawReason::Repetition)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_fen;
    use crate::rules::{English, International};

    #[test]
    fn international_small_material_cases() {
        let p = |fen| parse_fen::<International>(fen).unwrap();
        assert_eq!(special_limit(&p("W:WK1,K2,K3:BK50")), Some(32));
        assert_eq!(special_limit(&p("W:WK1,7,8:BK50")), Some(32));
        assert_eq!(special_limit(&p("W:W6,7,8:BK50")), None);
        assert_eq!(special_limit(&p("B:WK45:BK1,10")), Some(10));
        assert_eq!(special_limit(&p("W:WK1,K2,K3:B40")), None);
        assert_eq!(special_limit(&p("W:WK1,K2,K3,K4:BK50")), None);
        let e = parse_fen::<English>("W:WK1,K2,K3:BK32").unwrap();
        assert_eq!(special_limit(&e), None);
    }

    #[test]
    fn counters_follow_moves() {
        let p = |fen| parse_fen::<English>(fen).unwrap();
        // A king move counts, a man move and a capture reset.
        let game = [
            p("W:WK14,22:BK32"),
            p("B:WK18,22:BK32"),
            p("W:WK18,22:BK27"),
            p("B:WK18,17:BK27"),
        ];
        let q: Vec<u32> = game_counters(&game).iter().map(|c| c.quiet).collect();
        assert_eq!(q, [0, 1, 2, 0]);
        assert_eq!(rule_plies_left(&game[..3]), Some(98));
        assert_eq!(game_draw(&game), None);
    }

    #[test]
    fn threefold_repetition() {
        let p = |fen| parse_fen::<English>(fen).unwrap();
        let a = p("W:WK14:BK32");
        let b = p("B:WK18:BK32");
        let c = p("W:WK18:BK28");
        let d = p("B:WK14:BK28");
        let game = [a, b, c, d, a, b, c, d, a];
        assert_eq!(game_draw(&game[..5]), None);
        assert_eq!(game_draw(&game), Some(DrawReason::Repetition));
    }
}
