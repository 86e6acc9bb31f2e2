//! The capture search of a probe: a position's captures played out (each side takes its
//! best) down to positions the files answer, with an alpha-beta window where distances are
//! asked for.

use crate::rules::{
    Bitboard, Move, MoveSink, Position, Rules, Square, captures, may_capture, with_moves,
};
use crate::tablebase::index::MoverFrame;
use crate::tablebase::value::{Outcome, Wdl};

/// The outcome of `pos` with its captures played out (each side takes its best), down to
/// positions without a capture, whose outcome `stored` gives; where `stored` says `None`
/// (a searched slice, a forced exchange, a distance unread), the best over the moves.
/// Exact where the outcome's score lies inside `window` (with distances; without, always
/// exact); else an outcome on the same side of the window as the exact one (at or below
/// its low end, at or above its high end).
pub(super) fn resolve_by<R: Rules, E>(
    pos: &Position<R>,
    dtw: bool,
    stored: &impl Fn(&MoverFrame) -> Result<Option<Outcome>, E>,
    window: Window,
) -> Result<Outcome, E> {
    let pos = &pos.reread();
    // Turned to White to move once, the frame is both what the capture test reads (its
    // directions then constants) and what the tables are indexed by.
    let frame = MoverFrame::of(pos);
    if may_capture(&frame.position::<R>()) {
        let mut list = Captures::default();
        captures(pos, &mut list);
        if !list.as_slice().is_empty() {
            return best_after(pos, list.as_slice(), dtw, false, stored, window);
        }
    }
    if let Some(outcome) = stored(&frame)? {
        return Ok(outcome);
    }
    with_moves(pos, |moves| {
        best_after(pos, moves, dtw, true, stored, window)
    })
}

/// The best outcome of `pos` over `moves` (a loss without one), each resolved by
/// [`resolve_by`], exact within `window` as it is. With distances, each move is
/// resolved within what could still change the result (alpha-beta), so that the searches
/// of positions whose distances are not stored stop early. With `stop_at_win`, the moves
/// after one that wins are not looked at when distances are not asked for (nor after a
/// win in one ply): for the moves of a slice the tables hold, whose successors' tables are
/// there. A capture's may not be (a position of more pieces is answered only when all its
/// captures lead into the tables).
pub(super) fn best_after<R: Rules, E>(
    pos: &Position<R>,
    moves: &[Move],
    dtw: bool,
    stop_at_win: bool,
    stored: &impl Fn(&MoverFrame) -> Result<Option<Outcome>, E>,
    window: Window,
) -> Result<Outcome, E> {
    let mut best: Option<Outcome> = None;
    for mv in moves {
        let after = match dtw {
            true => best
                .map_or(window, |b| window.above(b.score()))
                .after_move(),
            false => Window::ALL,
        };
        let o = resolve_by(&pos.play(mv), dtw, stored, after)?.before_move();
        let o = if dtw {
            o
        } else {
            Outcome { wdl: o.wdl, dtw: 0 }
        };
        if stop_at_win && o.wdl == Wdl::Win && (!dtw || o.dtw == 1) {
            return Ok(o);
        }
        let b = best.map_or(o, |b| b.max(o));
        if dtw && b.score() >= window.high {
            return Ok(b);
        }
        best = Some(b);
    }
    Ok(best.unwrap_or(Outcome::loss(0)))
}

/// The scores ([`Outcome::score`]) strictly between `low` and `high`: where a search with
/// distances needs the exact outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Window {
    low: i32,
    high: i32,
}

impl Window {
    /// Every score (beyond any outcome's, with room for the plies of a search).
    pub(super) const ALL: Window = Window {
        low: -1 << 30,
        high: 1 << 30,
    };

    /// The window with its low end raised to `score` (a result already in hand).
    fn above(self, score: i32) -> Window {
        Window {
            low: self.low.max(score),
            high: self.high,
        }
    }

    /// The same window seen from the position after a move: the scores there whose
    /// outcome, one ply on and from the other side ([`Outcome::before_move`]), lies in it.
    fn after_move(self) -> Window {
        Window {
            low: Window::before_move_inverse(self.high),
            high: Window::before_move_inverse(self.low),
        }
    }

    /// The score after a move whose [`Outcome::before_move`] has score `score`: a loss in
    /// `d + 1` plies (`-100_000 + d + 1`) comes from a win in `d` (`100_000 - d`), a win in
    /// `d + 1` from a loss in `d`, a draw from a draw.
    fn before_move_inverse(score: i32) -> i32 {
        match score {
            s if s < 0 => 1 - s,
            s if s > 0 => -1 - s,
            _ => 0,
        }
    }
}

/// Capture moves kept on the stack, so that a probe allocates nothing (a heap spill only
/// past `INLINE` of them): the same precedence and merging as [`crate::rules::MoveList`].
pub(super) struct Captures {
    inline: [Move; Captures::INLINE],
    len: usize,
    spill: Vec<Move>,
    best: u32,
}

impl Captures {
    const INLINE: usize = 8;
    const NONE: Move = Move::new(
        Square::from_bit(0),
        Square::from_bit(0),
        Bitboard::EMPTY,
        Bitboard::EMPTY,
        false,
    );

    #[inline(always)]
    pub(super) fn as_slice(&self) -> &[Move] {
        if self.spill.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.spill
        }
    }
}

impl Default for Captures {
    fn default() -> Self {
        Captures {
            inline: [Captures::NONE; Captures::INLINE],
            len: 0,
            spill: Vec::new(),
            best: 0,
        }
    }
}

impl MoveSink for Captures {
    const PATHS: bool = false;

    #[inline(always)]
    fn clear(&mut self) {
        self.len = 0;
        self.spill.clear();
        self.best = 0;
    }

    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.len == 0 && self.spill.is_empty()
    }

    #[inline(always)]
    fn capture(&mut self, mv: Move, key: u32, _path: &[Square], _order: &[Square]) {
        if !self.is_empty() {
            if key < self.best {
                return;
            }
            if key > self.best {
                self.clear();
            } else if mv.captured().count() >= 2 && self.as_slice().contains(&mv) {
                return;
            }
        }
        self.best = key;
        if self.spill.is_empty() && self.len < Captures::INLINE {
            self.inline[self.len] = mv;
            self.len += 1;
        } else {
            if self.spill.is_empty() {
                self.spill.extend_from_slice(&self.inline[..self.len]);
            }
            self.spill.push(mv);
        }
    }

    #[inline(always)]
    fn quiet(&mut self, _mv: Move) {
        unreachable!("only captures are generated into a probe's list")
    }
}
