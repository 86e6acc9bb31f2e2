//! The index of a slice: every position of a material slice numbered 0..size, with the
//! combinatorial number system.
//!
//! Positions are seen from the side to move, always as White moving up (a position with
//! Black to move is turned half a turn and its colours swapped). The index is, from most to
//! least significant: the mover's men over the squares its men can stand on, the other
//! side's men over theirs, the mover's kings over the squares left free by the men, the
//! other side's kings over what is left. Men of both sides can claim the same square in
//! that scheme; such indices hold no position (`unrank` says `None`). Rank and unrank are
//! exact inverses on every other index.

use std::marker::PhantomData;

use super::material::Material;
use crate::rules::{Bitboard, Color, Geometry, Position, Rules};

/// Binomial coefficients C(n, k) for n, k <= 64, stored as `BINOMIAL[k][n]` so that a
/// search over `n` for a fixed `k` reads one row.
static BINOMIAL: [[u64; 65]; 65] = binomials();

const fn binomials() -> [[u64; 65]; 65] {
    let mut t = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        t[0][n] = 1;
        let mut k = 1;
        while k <= n {
            t[k][n] = t[k - 1][n - 1].saturating_add(if k < n { t[k][n - 1] } else { 0 });
            k += 1;
        }
        n += 1;
    }
    t
}

/// C(n, k), 0 when k > n.
#[inline(always)]
pub fn binomial(n: u32, k: u32) -> u64 {
    // The table holds 0 where k > n; past it (n or k above 64, no board has that many
    // squares) the answer is 0 as well.
    BINOMIAL
        .get(k as usize)
        .and_then(|row| row.get(n as usize))
        .copied()
        .unwrap_or(0)
}

/// Colex rank of `set` as a subset of `domain` (positions counted within the domain).
#[inline(always)]
fn rank_set(set: u64, domain: u64) -> u64 {
    let mut r = 0;
    let mut k = 1;
    let mut rest = set;
    while rest != 0 {
        let below = (rest & rest.wrapping_neg()) - 1;
        let pos = (domain & below).count_ones();
        r += BINOMIAL[k][pos as usize];
        k += 1;
        rest &= rest - 1;
    }
    r
}

/// `SELECT_IN_BYTE[b][n]`: the position of the `n`-th set bit of byte `b`.
static SELECT_IN_BYTE: [[u8; 8]; 256] = select_table();

const fn select_table() -> [[u8; 8]; 256] {
    let mut t = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut n = 0;
        let mut bit = 0;
        while bit < 8 {
            if b >> bit & 1 == 1 {
                t[b][n] = bit as u8;
                n += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
}

/// The `n`-th (0-based) set bit of `mask`, as a one-bit mask.
#[inline(always)]
fn select(mask: u64, mut n: u32) -> u64 {
    let mut shift = 0;
    loop {
        let byte = (mask >> shift) as u8;
        let count = byte.count_ones();
        if n < count {
            return 1 << (shift + SELECT_IN_BYTE[byte as usize][n as usize] as u32);
        }
        n -= count;
        shift += 8;
    }
}

/// The subset of `domain` of size `k` with colex rank `index`.
#[inline(always)]
pub(crate) fn unrank_set(index: u64, k: u32, domain: u64) -> u64 {
    let mut elements = [0u8; 64];
    combination(index, k, domain.count_ones(), &mut elements)
        .iter()
        .fold(0, |set, &e| set | select(domain, e as u32))
}

/// The `k`-subset of `0..n` with colex rank `index`, its elements ascending in `out`.
#[inline(always)]
fn combination(mut index: u64, k: u32, n: u32, out: &mut [u8; 64]) -> &[u8] {
    let mut hi = n;
    for j in (2..=k).rev() {
        let row = &BINOMIAL[j as usize];
        let (mut lo, mut top) = (j - 1, hi - 1);
        while lo < top {
            let mid = (lo + top).div_ceil(2);
            if row[mid as usize] <= index {
                lo = mid
            } else {
                top = mid - 1
            }
        }
        index -= row[lo as usize];
        out[j as usize - 1] = lo as u8;
        hi = lo;
    }
    if k >= 1 {
        out[0] = index as u8;
    }
    &out[..k as usize]
}

/// Every arrangement of a slice's kings over the squares its men leave free, by rank: for
/// each side, the places of its kings in the list of free squares (for the other side, of
/// the squares the mover's kings leave), a byte each.
pub(crate) struct KingArrangements {
    mine: Vec<u64>,
    theirs: Vec<u64>,
}

impl KingArrangements {
    /// Most entries a side's table has (8 bytes each).
    pub const MOST: u64 = 1 << 22;
}

/// A position seen from the side to move: its pieces, the other side's, and all kings.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoverFrame {
    /// The side to move's pieces (as White, moving up).
    pub mover: u64,
    /// The other side's pieces.
    pub other: u64,
    /// Kings of both sides.
    pub kings: u64,
}

impl MoverFrame {
    /// The position as seen by its side to move.
    #[inline(always)]
    pub fn of<R: Rules>(pos: &Position<R>) -> MoverFrame {
        let (w, b, k) = (
            pos.pieces(Color::White).0,
            pos.pieces(Color::Black).0,
            pos.kings().0,
        );
        match pos.side_to_move() {
            Color::White => MoverFrame {
                mover: w,
                other: b,
                kings: k,
            },
            Color::Black => MoverFrame {
                mover: R::Board::rotate(b),
                other: R::Board::rotate(w),
                kings: R::Board::rotate(k),
            },
        }
    }

    /// The same frame, each board read as a word of its own. A frame returned through
    /// memory (as [`SliceIndex::with_kings`] returns it) was just written a word at a time,
    /// and a load of two boards at once (which the compiler makes to turn them together)
    /// cannot be served from those stores: it waits until they reach the cache, and every
    /// later instruction with it (as [`Position`]'s `reread`; benches/notes/probe.md, "Store
    /// forwarding").
    #[inline(always)]
    pub(crate) fn reread(&self) -> MoverFrame {
        // Safety: each pointer is to a field of `self`: valid, aligned and initialized.
        let word = |board: &u64| unsafe { std::ptr::read_volatile(board) };
        MoverFrame {
            mover: word(&self.mover),
            other: word(&self.other),
            kings: word(&self.kings),
        }
    }

    /// The frame of the other side (after a move, the other side is to move).
    #[inline(always)]
    pub fn turned<R: Rules>(&self) -> MoverFrame {
        MoverFrame {
            mover: R::Board::rotate(self.other),
            other: R::Board::rotate(self.mover),
            kings: R::Board::rotate(self.kings),
        }
    }

    /// The position, White (the mover) to move.
    #[inline(always)]
    pub fn position<R: Rules>(&self) -> Position<R> {
        Position::from_parts(
            Bitboard(self.mover),
            Bitboard(self.other),
            Bitboard(self.kings),
            Color::White,
        )
    }

    /// The material of the frame.
    #[inline(always)]
    pub fn material(&self) -> Material {
        let c = |bb: u64| bb.count_ones() as u8;
        Material::new(
            c(self.mover & !self.kings),
            c(self.mover & self.kings),
            c(self.other & !self.kings),
            c(self.other & self.kings),
        )
    }
}

/// The index of one slice of variant `R`.
#[derive(Clone, Debug)]
pub struct SliceIndex<R: Rules> {
    material: Material,
    size: u64,
    mover_men_squares: u64,
    other_men_squares: u64,
    other_men_count: u64,
    mover_king_count: u64,
    other_king_count: u64,
    rules: PhantomData<R>,
}

impl<R: Rules> SliceIndex<R> {
    /// The index of slice `material`.
    #[inline(always)]
    pub fn new(material: Material) -> Self {
        let mover_men_squares = R::Board::men_squares(Color::White);
        let other_men_squares = R::Board::men_squares(Color::Black);
        let m = material;
        let free = R::Board::SQUARES as u32 - m.men();
        let mover_men_count = binomial(mover_men_squares.count_ones(), m.mover_men as u32);
        let other_men_count = binomial(other_men_squares.count_ones(), m.other_men as u32);
        let mover_king_count = binomial(free, m.mover_kings as u32);
        let other_king_count = binomial(free - m.mover_kings as u32, m.other_kings as u32);
        SliceIndex {
            material,
            size: mover_men_count * other_men_count * mover_king_count * other_king_count,
            mover_men_squares,
            other_men_squares,
            other_men_count,
            mover_king_count,
            other_king_count,
            rules: PhantomData,
        }
    }

    /// The slice.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Number of indices (some hold no position: see the module docs).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The index of a frame of this slice's material, or `None` when a man stands where
    /// men of its side never can (a Turkish man on its own back rank).
    #[inline(always)]
    pub fn rank(&self, f: &MoverFrame) -> Option<u64> {
        let (sets, domains) = self.sets_in_domains(f)?;
        let i = rank_set(sets[0], domains[0]);
        let i = i * self.other_men_count + rank_set(sets[1], domains[1]);
        let i = i * self.mover_king_count + rank_set(sets[2], domains[2]);
        let i = i * self.other_king_count + rank_set(sets[3], domains[3]);
        Some(i)
    }

    /// The four sets of a frame's pieces, from the most significant in the index: the
    /// mover's men, the other side's men, the mover's kings, the other side's kings; and
    /// the squares each is ranked among (the men's squares of each side, then what the
    /// men leave free, then what the mover's kings leave). `None` when a man stands where
    /// men of its side never can.
    #[inline(always)]
    fn sets_in_domains(&self, f: &MoverFrame) -> Option<([u64; 4], [u64; 4])> {
        let mover_men = f.mover & !f.kings;
        let other_men = f.other & !f.kings;
        if mover_men & !self.mover_men_squares != 0 || other_men & !self.other_men_squares != 0 {
            return None;
        }
        let free = R::Board::VALID & !(mover_men | other_men);
        let mover_kings = f.mover & f.kings;
        Some((
            [mover_men, other_men, mover_kings, f.other & f.kings],
            [
                self.mover_men_squares,
                self.other_men_squares,
                free,
                free & !mover_kings,
            ],
        ))
    }

    /// [`SliceIndex::rank`] for probes, whose slices change from one call to the next: the
    /// same index, as the sum over all pieces of each piece's term (the binomial of its
    /// place in its set's domain and its rank in its set, times the number of arrangements
    /// of the sets after its own), so one loop over the pieces instead of one loop a set,
    /// whose exits (how many pieces each set holds) cannot be predicted there. More
    /// instructions: slower where one slice is ranked again and again (the generator).
    #[inline(always)]
    pub fn rank_for_probes(&self, f: &MoverFrame) -> Option<u64> {
        let (sets, domains) = self.sets_in_domains(f)?;
        let kings = self.mover_king_count * self.other_king_count;
        let weights = [
            self.other_men_count * kings,
            kings,
            self.other_king_count,
            1,
        ];
        let mut i = 0;
        let mut rest = f.mover | f.other;
        while rest != 0 {
            let piece = rest & rest.wrapping_neg();
            let below = piece - 1;
            let set = 2 * usize::from(f.kings & piece != 0) + usize::from(f.other & piece != 0);
            // At most 63 pieces are below this one (`& 63` says so to the compiler,
            // which then checks no bound).
            let k = ((sets[set] & below).count_ones() & 63) + 1;
            let n = (domains[set] & below).count_ones();
            i += weights[set] * BINOMIAL[k as usize][n as usize];
            rest &= rest - 1;
        }
        Some(i)
    }

    /// The arrangements of this slice's kings as a table for [`SliceIndex::with_kings`], or
    /// `None` when it would be too large (more than [`KingArrangements::MOST`] entries or
    /// eight kings a side).
    pub(crate) fn king_arrangements(&self) -> Option<KingArrangements> {
        let m = self.material;
        let free = R::Board::SQUARES as u32 - m.men();
        let table = |count: u64, k: u8, n: u32| -> Option<Vec<u64>> {
            if count > KingArrangements::MOST || k > 8 {
                return None;
            }
            let mut out = [0u8; 64];
            Some(
                (0..count)
                    .map(|i| {
                        let mut bytes = [0u8; 8];
                        bytes[..k as usize].copy_from_slice(combination(i, k as u32, n, &mut out));
                        u64::from_le_bytes(bytes)
                    })
                    .collect(),
            )
        };
        Some(KingArrangements {
            mine: table(self.mover_king_count, m.mover_kings, free)?,
            theirs: table(
                self.other_king_count,
                m.other_kings,
                free - m.mover_kings as u32,
            )?,
        })
    }

    /// Sets `free` to the squares that the men `men` leave free, in order, one bit each: the
    /// list [`SliceIndex::with_kings`] takes, made once per placement.
    pub(crate) fn free_squares(men: u64, free: &mut Vec<u64>) {
        free.clear();
        free.extend(
            crate::rules::Bitboard(R::Board::VALID & !men)
                .squares()
                .map(|s| s.bb().0),
        );
    }

    /// The frame of kings arrangement `kings` (the index within its placement) beside the
    /// men `mover_men` and `other_men`; `free` lists the squares the men leave free
    /// ([`SliceIndex::free_squares`]); `table` is this slice's
    /// [`SliceIndex::king_arrangements`].
    #[inline]
    pub(crate) fn with_kings(
        &self,
        mover_men: u64,
        other_men: u64,
        free: &[u64],
        kings: u64,
        table: Option<&KingArrangements>,
    ) -> MoverFrame {
        let m = self.material;
        let (mine_i, theirs_i) = (kings / self.other_king_count, kings % self.other_king_count);
        let mut mine = [0u8; 64];
        let mut theirs = [0u8; 64];
        let (mine, theirs): (&[u8], &[u8]) = match table {
            Some(t) => {
                mine[..8].copy_from_slice(&t.mine[mine_i as usize].to_le_bytes());
                theirs[..8].copy_from_slice(&t.theirs[theirs_i as usize].to_le_bytes());
                (
                    &mine[..m.mover_kings as usize],
                    &theirs[..m.other_kings as usize],
                )
            }
            None => (
                combination(mine_i, m.mover_kings as u32, free.len() as u32, &mut mine),
                combination(
                    theirs_i,
                    m.other_kings as u32,
                    free.len() as u32 - m.mover_kings as u32,
                    &mut theirs,
                ),
            ),
        };
        let mover_kings: u64 = mine.iter().map(|&p| free[p as usize]).sum();
        let mut other_kings = 0;
        for &q in theirs.iter() {
            // The q-th free square that the mover's kings leave.
            let mut at = q;
            for &p in mine.iter() {
                if p <= at {
                    at += 1;
                }
            }
            other_kings |= free[at as usize];
        }
        MoverFrame {
            mover: mover_men | mover_kings,
            other: other_men | other_kings,
            kings: mover_kings | other_kings,
        }
    }

    /// The index of a frame's kings within its placement (see [`SliceIndex::with_kings`]).
    #[inline]
    pub(crate) fn kings_rank(&self, f: &MoverFrame) -> u64 {
        let free = R::Board::VALID & !((f.mover | f.other) & !f.kings);
        let mover_kings = f.mover & f.kings;
        rank_set(mover_kings, free) * self.other_king_count
            + rank_set(f.other & f.kings, free & !mover_kings)
    }

    /// The frame at `index`, or `None` when the index holds no position.
    #[inline]
    pub fn unrank(&self, index: u64) -> Option<MoverFrame> {
        let m = self.material;
        let other_kings_i = index % self.other_king_count;
        let rest = index / self.other_king_count;
        let mover_kings_i = rest % self.mover_king_count;
        let rest = rest / self.mover_king_count;
        let other_men_i = rest % self.other_men_count;
        let mover_men_i = rest / self.other_men_count;
        let mover_men = unrank_set(mover_men_i, m.mover_men as u32, self.mover_men_squares);
        let other_men = unrank_set(other_men_i, m.other_men as u32, self.other_men_squares);
        if mover_men & other_men != 0 {
            return None;
        }
        let free = R::Board::VALID & !(mover_men | other_men);
        let mover_kings = unrank_set(mover_kings_i, m.mover_kings as u32, free);
        let other_kings = unrank_set(other_kings_i, m.other_kings as u32, free & !mover_kings);
        Some(MoverFrame {
            mover: mover_men | mover_kings,
            other: other_men | other_kings,
            kings: mover_kings | other_kings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials_are_right() {
        assert_eq!(binomial(32, 2), 496);
        assert_eq!(binomial(50, 5), 2_118_760);
        assert_eq!(binomial(64, 32), 1_832_624_140_942_590_534);
        assert_eq!(binomial(3, 5), 0);
    }

    /// Kings unranked with and without the table agree with the whole index's unrank.
    #[test]
    fn with_kings_agrees_with_unrank() {
        use crate::rules::{English, International, Rules};
        fn check<R: Rules>(key: &str) {
            let m: Material = key.parse().expect("material");
            let index = SliceIndex::<R>::new(m);
            let table = index.king_arrangements().expect("small enough for a table");
            let kings = index.mover_king_count * index.other_king_count;
            let step = (index.size() / 5000).max(1) | 1;
            let mut checked = 0;
            for i in (0..index.size()).step_by(step as usize) {
                let Some(frame) = index.unrank(i) else {
                    continue;
                };
                let (mover, other) = (frame.mover & !frame.kings, frame.other & !frame.kings);
                let mut free = Vec::new();
                SliceIndex::<R>::free_squares(mover | other, &mut free);
                for t in [None, Some(&table)] {
                    assert_eq!(index.with_kings(mover, other, &free, i % kings, t), frame);
                }
                checked += 1;
            }
            assert!(checked > 1000, "{key}: {checked}");
        }
        check::<English>("2122");
        check::<English>("0403");
        check::<International>("1310");
    }

    /// `rank` and `rank_for_probes` invert `unrank` on every index that holds a position,
    /// in slices with every kind of piece, of boards with and without men's forbidden
    /// squares.
    #[test]
    fn rank_inverts_unrank() {
        use crate::rules::{English, International, Rules, Turkish};
        fn check<R: Rules>(key: &str) {
            let index = SliceIndex::<R>::new(key.parse().expect("material"));
            let step = (index.size() / 20_000).max(1) | 1;
            let mut checked = 0;
            for i in (0..index.size()).step_by(step as usize) {
                if let Some(frame) = index.unrank(i) {
                    assert_eq!(index.rank(&frame), Some(i), "{key} {i}");
                    assert_eq!(index.rank_for_probes(&frame), Some(i), "{key} {i}");
                    checked += 1;
                }
            }
            assert!(checked > 500, "{key}: {checked}");
        }
        for key in ["1010", "0101", "2112", "0403", "3120", "1211"] {
            check::<English>(key);
        }
        check::<International>("1310");
        check::<Turkish>("2121");
    }

    #[test]
    fn select_and_sets_round_trip() {
        let domain = 0b1011_0110_1000_0001u64 << 20;
        for k in 0..=3u32 {
            let n = binomial(domain.count_ones(), k);
            for i in 0..n {
                let set = unrank_set(i, k, domain);
                assert_eq!(set.count_ones(), k);
                assert_eq!(set & !domain, 0);
                assert_eq!(rank_set(set, domain), i);
            }
        }
        assert_eq!(select(1 << 63 | 1, 1), 1 << 63);
    }
}
