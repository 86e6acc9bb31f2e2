//! Perft: counting the leaves of the move tree, the standard check of a move generator.

use rayon::prelude::*;

use super::movegen::{MoveList, count_moves, generate};
use super::moves::Move;
use super::position::Position;
use super::variant::Rules;

/// Leaf count of the move tree of depth `depth` under `pos`. The last ply is counted, not played.
pub fn perft<R: Rules>(pos: &Position<R>, depth: u32) -> u64 {
    let mut lists = vec![MoveList::new(); depth as usize];
    walk(pos, depth, &mut lists)
}

fn walk<R: Rules>(pos: &Position<R>, depth: u32, lists: &mut [MoveList]) -> u64 {
    match depth {
        0 => 1,
        1 => count_moves(pos, &mut lists[0]),
        _ => {
            let (list, rest) = lists.split_last_mut().expect("one list per ply");
            generate(pos, list);
            list.as_slice()
                .iter()
                .map(|mv| walk(&pos.play(mv), depth - 1, rest))
                .sum()
        }
    }
}

/// Perft per root move (`--divide`): each legal move of `pos` with its leaf count at `depth`.
/// With `parallel`, root moves are counted on the current rayon pool.
pub fn divide<R: Rules>(pos: &Position<R>, depth: u32, parallel: bool) -> Vec<(Move, u64)> {
    let mut root = MoveList::new();
    generate(pos, &mut root);
    let count = |mv: &Move| (*mv, perft(&pos.play(mv), depth.saturating_sub(1)));
    if parallel {
        root.as_slice().par_iter().map(count).collect()
    } else {
        root.as_slice().iter().map(count).collect()
    }
}
