//! Results: win, draw or loss for the side to move, with the distance to the end in plies.

use std::cmp::Ordering;
use std::fmt;

/// WDL values as stored (2 bits).
pub mod wdl_code {
    /// A draw.
    pub const DRAW: u8 = 0;
    /// A win for the side to move.
    pub const WIN: u8 = 1;
    /// A loss for the side to move.
    pub const LOSS: u8 = 2;
}

/// Win, draw or loss for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// `win`, `draw` or `loss`.
    pub const fn name(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }

    /// The result a win/draw/loss file's code stands for (see [`wdl_code`]; code 3,
    /// which no checked block holds, reads as a draw). A table lookup, not a branch: the
    /// codes of random positions are not predictable.
    #[inline(always)]
    pub fn of_code(code: u16) -> Wdl {
        const BY_CODE: [Wdl; 4] = [Wdl::Draw, Wdl::Win, Wdl::Loss, Wdl::Draw];
        const _: () = assert!(wdl_code::DRAW == 0 && wdl_code::WIN == 1 && wdl_code::LOSS == 2);
        BY_CODE[(code & 3) as usize]
    }

    /// The result for the other side.
    pub const fn negated(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A perfect-play result with its distance: the number of plies until the side that loses
/// has no move, the winner playing fastest and the loser slowest (0 for draws).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The result for the side to move.
    pub wdl: Wdl,
    /// Plies to the end (distance to win), 0 for a draw.
    pub dtw: u16,
}

impl Outcome {
    /// A draw.
    pub const DRAW: Outcome = Outcome {
        wdl: Wdl::Draw,
        dtw: 0,
    };

    /// A win in `dtw` plies.
    pub const fn win(dtw: u16) -> Outcome {
        Outcome { wdl: Wdl::Win, dtw }
    }

    /// A loss in `dtw` plies.
    pub const fn loss(dtw: u16) -> Outcome {
        Outcome {
            wdl: Wdl::Loss,
            dtw,
        }
    }

    /// The result of the position before a move that leads here: the other side's view,
    /// one ply further from the end.
    #[inline(always)]
    pub const fn before_move(self) -> Outcome {
        match self.wdl {
            Wdl::Win => Outcome::loss(self.dtw + 1),
            Wdl::Loss => Outcome::win(self.dtw + 1),
            Wdl::Draw => Outcome::DRAW,
        }
    }

    /// The outcome of a position whose moves lead to positions of outcomes `after` (each
    /// for the side to move there): the best of them seen from before the move, a loss in 0
    /// plies where there is no move. The fold over a position's moves that the generator
    /// and `verify` share (the probe's capture search is this fold with alpha-beta bounds).
    #[inline(always)]
    pub fn best_of<E>(after: impl IntoIterator<Item = Result<Outcome, E>>) -> Result<Outcome, E> {
        let mut best: Option<Outcome> = None;
        for o in after {
            let o = o?.before_move();
            best = Some(best.map_or(o, |b| b.max(o)));
        }
        Ok(best.unwrap_or(Outcome::loss(0)))
    }

    /// A number that orders outcomes from the mover's point of view: higher is better
    /// (fast wins, then slow wins, draws, slow losses, fast losses).
    #[inline(always)]
    pub const fn score(self) -> i32 {
        match self.wdl {
            Wdl::Win => 100_000 - self.dtw as i32,
            Wdl::Draw => 0,
            Wdl::Loss => -100_000 + self.dtw as i32,
        }
    }

    /// Compact code used while building: 1 draw, 2 + 2d win in d, 3 + 2d loss in d.
    #[inline(always)]
    pub(crate) const fn code(self) -> u16 {
        match self.wdl {
            Wdl::Draw => 1,
            Wdl::Win => 2 + 2 * self.dtw,
            Wdl::Loss => 3 + 2 * self.dtw,
        }
    }

    /// The outcome of a code made by [`Outcome::code`] (`None` for 0, "not known").
    #[inline(always)]
    pub(crate) const fn from_code(code: u16) -> Option<Outcome> {
        match code {
            0 => None,
            1 => Some(Outcome::DRAW),
            c if c % 2 == 0 => Some(Outcome::win((c - 2) / 2)),
            c => Some(Outcome::loss((c - 3) / 2)),
        }
    }
}

impl PartialOrd for Outcome {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Outcome {
    #[inline(always)]
    fn cmp(&self, other: &Self) -> Ordering {
        self.score().cmp(&other.score())
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.wdl {
            Wdl::Draw => f.write_str("draw"),
            w => write!(f, "{w} {}", self.dtw),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_order() {
        for o in [
            Outcome::DRAW,
            Outcome::win(0),
            Outcome::win(7),
            Outcome::loss(0),
            Outcome::loss(9),
        ] {
            assert_eq!(Outcome::from_code(o.code()), Some(o));
        }
        assert!(Outcome::win(3) > Outcome::win(5));
        assert!(Outcome::win(99) > Outcome::DRAW);
        assert!(Outcome::loss(9) > Outcome::loss(3));
        assert!(Outcome::DRAW > Outcome::loss(99));
        assert_eq!(Outcome::loss(0).before_move(), Outcome::win(1));
    }
}
