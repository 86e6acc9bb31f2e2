//! Which positions a file may leave unread: pure predicates on positions and variants that
//! the compaction passes and the generator apply when they write files, and the probe and
//! `verify` apply when they read them. Each such position is answered by a short search
//! that never comes back to its slice pair.

use crate::rules::{Color, Geometry, Position, Rules, may_capture, with_moves};
use crate::tablebase::value::Wdl;

/// Whether `pos` (whose side to move has no capture) is a forced exchange: the side not to
/// move could capture now, and still could after every move that does not crown. Its
/// value is the best over its moves, each ending in a capture search or a crowning (into
/// another slice), so that a probe finds it in a search that never comes back to the slice
/// pair: files may leave such positions unread ([`Header::forced_searched`](crate::tablebase::format::Header::forced_searched)).
pub fn forced_exchange<R: Rules>(pos: &Position<R>) -> bool {
    let threat = may_capture(&pos.with_side_to_move(pos.side_to_move().opponent()));
    threat && {
        with_moves(pos, |moves| {
            moves
                .iter()
                .all(|mv| mv.is_promotion() || may_capture(&pos.play(mv)))
        })
    }
}

/// Whether every quiet move of `R` takes one piece exactly one row forward or back (kings
/// that step, men that never move sideways: English and Italian), so that the rows of the
/// side to move's pieces, added up, change parity with each of its quiet moves and with
/// none of the other side's.
pub const fn rows_alternate<R: Rules>() -> bool {
    !R::FLYING_KINGS && R::Board::SIDEWAYS == 0
}

/// Whether the rows of `pieces` (of `color`), each counted from `color`'s own back rank,
/// add up to an even number. In a variant whose rows alternate ([`rows_alternate`]), a
/// position of a slice whose distance file leaves these unread
/// ([`Header::even_rows_searched`](crate::tablebase::format::Header::even_rows_searched)) reaches, two plies on (a quiet move of each side), only
/// positions of the slice whose rows add up to an odd number, or other slices.
#[inline]
pub fn even_rows<R: Rules>(pieces: u64, color: Color) -> bool {
    let odd_rows = match color {
        Color::White => R::Board::ODD_ROWS,
        Color::Black => R::Board::rotate(R::Board::ODD_ROWS),
    };
    (pieces & odd_rows).count_ones().is_multiple_of(2)
}

/// Whether `pos` (without a capture, won or lost as `wdl` says) is 1 ply from a conversion:
/// won with a man's move after which the other side loses (`wdl_of` gives a position's
/// result for its side to move) or a king's move that leaves it no move, or lost with moves
/// that are all men's (a king's move leads to a win, at least 1 ply from a conversion). Exactly the positions whose distance to
/// conversion is 1, which files may leave unread
/// ([`Header::ones_searched`](crate::tablebase::format::Header::ones_searched)).
pub fn converts_at_once<R: Rules, E>(
    pos: &Position<R>,
    wdl: Wdl,
    mut wdl_of: impl FnMut(&Position<R>) -> Result<Wdl, E>,
) -> Result<bool, E> {
    let kings = pos.kings();
    with_moves(pos, |moves| match wdl {
        Wdl::Win => {
            for mv in moves {
                let after = pos.play(mv);
                let at_once = match kings.contains(mv.from()) {
                    // A king's move that leaves the other side no move ends the game.
                    true => with_moves(&after, |replies| replies.is_empty()),
                    false => wdl_of(&after)? == Wdl::Loss,
                };
                if at_once {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Wdl::Loss => Ok(!moves.is_empty() && moves.iter().all(|mv| !kings.contains(mv.from()))),
        Wdl::Draw => Ok(false),
    })
}
