//! Zobrist keys: one random number per (colour, kind, square) and one for the side to move.
//! A position's key is the XOR of the numbers of what it holds; a move updates it with a
//! few XORs.

use crate::rules::{Color, Move, Position, Rules};

/// SplitMix64, as a `const fn`: the keys are fixed at compile time.
const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

/// Keys by piece (0 white man, 1 white king, 2 black man, 3 black king) and bit index.
const PIECES: [[u64; 64]; 4] = {
    let mut keys = [[0u64; 64]; 4];
    let mut state = 0x6461_6d6b_6121_u64;
    let mut p = 0;
    while p < 4 {
        let mut sq = 0;
        while sq < 64 {
            let (s, k) = splitmix(state);
            state = s;
            keys[p][sq] = k;
            sq += 1;
        }
        p += 1;
    }
    keys
};

/// XORed in when Black is to move.
const BLACK_TO_MOVE: u64 = splitmix(0x5eed).1;

#[inline(always)]
fn piece(color: Color, king: bool) -> usize {
    color.index() * 2 + king as usize
}

/// The key of a position.
pub fn key<R: Rules>(pos: &Position<R>) -> u64 {
    let mut k = match pos.side_to_move() {
        Color::White => 0,
        Color::Black => BLACK_TO_MOVE,
    };
    for color in [Color::White, Color::Black] {
        for sq in pos.men_of(color).squares() {
            k ^= PIECES[piece(color, false)][sq.bit() as usize];
        }
        for sq in pos.kings_of(color).squares() {
            k ^= PIECES[piece(color, true)][sq.bit() as usize];
        }
    }
    k
}

/// The key after `mv` is played in `pos`, whose key is `k`.
#[inline(always)]
pub fn after<R: Rules>(pos: &Position<R>, k: u64, mv: &Move) -> u64 {
    let side = pos.side_to_move();
    let was_king = pos.kings().contains(mv.from());
    let mut k = k
        ^ BLACK_TO_MOVE
        ^ PIECES[piece(side, was_king)][mv.from().bit() as usize]
        ^ PIECES[piece(side, was_king || mv.is_promotion())][mv.to().bit() as usize];
    let them = side.opponent();
    for sq in mv.captured().squares() {
        k ^= PIECES[piece(them, pos.kings().contains(sq))][sq.bit() as usize];
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{English, International, MoveList, Turkish, generate};

    /// Walks a few plies of every line and checks the incremental key against a fresh one.
    fn walk<R: Rules>(pos: &Position<R>, k: u64, depth: u32) -> u64 {
        assert_eq!(k, key(pos));
        if depth == 0 {
            return 1;
        }
        let mut list = MoveList::new();
        generate(pos, &mut list);
        let mut n = 0;
        for mv in list.as_slice() {
            n += walk(&pos.play(mv), after(pos, k, mv), depth - 1);
        }
        n
    }

    #[test]
    fn incremental_keys_match_fresh_keys() {
        let e = Position::<English>::initial();
        assert!(walk(&e, key(&e), 5) > 1000);
        let i = Position::<International>::initial();
        assert!(walk(&i, key(&i), 4) > 1000);
        let t = Position::<Turkish>::initial();
        assert!(walk(&t, key(&t), 4) > 1000);
        // Captures, promotions and kings (a position with kings and captures).
        let p = crate::notation::parse_fen::<English>("W:WK14,22,K27:B9,K18,K23,26").unwrap();
        walk(&p, key(&p), 6);
        assert_ne!(key(&e), key(&e.with_side_to_move(Color::White)));
    }
}
