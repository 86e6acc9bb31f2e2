//! Legal move generation, generic over the [`Rules`] of a variant.
//!
//! Captures are searched depth first from every piece that can take; the [`MoveSink`] keeps
//! only the sequences that win the variant's capture precedence and merges duplicate captures
//! (same pieces taken, same landing square). Quiet moves are generated only when no capture
//! exists, since capturing is compulsory in every variant.

use std::cell::RefCell;
use std::marker::PhantomData;

use super::board::{Bitboard, Geometry, OPPOSITE, Square};
use super::moves::{LegalMove, Move, MovePath};
use super::position::Position;
use super::variant::{MidCapturePromotion, Precedence, Rules};

/// Receives generated moves. Captures come with a precedence key: only the highest survive.
pub trait MoveSink {
    /// Whether the generator should track capture paths for [`MoveSink::capture`].
    const PATHS: bool;
    /// Forget every move (called before generation).
    fn clear(&mut self);
    /// Whether no move has been kept.
    fn is_empty(&self) -> bool;
    /// A complete capture sequence. `path` is the start and landing squares and `order` the
    /// captured squares in jump order, both empty unless `PATHS`.
    fn capture(&mut self, mv: Move, key: u32, path: &[Square], order: &[Square]);
    /// A quiet move.
    fn quiet(&mut self, mv: Move);
}

/// A reusable list of moves, for search and perft.
#[derive(Clone, Debug, Default)]
pub struct MoveList {
    moves: Vec<Move>,
    best: u32,
}

impl MoveList {
    /// An empty list.
    pub fn new() -> Self {
        MoveList {
            moves: Vec::with_capacity(64),
            best: 0,
        }
    }

    /// The moves, in generation order.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves
    }
}

impl MoveSink for MoveList {
    const PATHS: bool = false;

    #[inline(always)]
    fn clear(&mut self) {
        self.moves.clear();
        self.best = 0;
    }

    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    #[inline(always)]
    fn capture(&mut self, mv: Move, key: u32, _path: &[Square], _order: &[Square]) {
        if !self.moves.is_empty() {
            if key < self.best {
                return;
            }
            if key > self.best {
                self.moves.clear();
            } else if mv.captured().count() >= 2 && self.moves.contains(&mv) {
                return;
            }
        }
        self.best = key;
        self.moves.push(mv);
    }

    #[inline(always)]
    fn quiet(&mut self, mv: Move) {
        self.moves.push(mv);
    }
}

thread_local! {
    /// The lists [`with_moves`] lends, one for each level of a search in progress.
    static SPARE_LISTS: RefCell<Vec<MoveList>> = const { RefCell::new(Vec::new()) };
}

/// Calls `f` with the legal moves of `pos`, generated into a list this thread reuses:
/// searches that recurse call it at every node without allocating (after their first
/// descent to a depth).
pub fn with_moves<R: Rules, T>(pos: &Position<R>, f: impl FnOnce(&[Move]) -> T) -> T {
    let mut list = SPARE_LISTS
        .with(|spare| spare.borrow_mut().pop())
        .unwrap_or_default();
    generate(pos, &mut list);
    let out = f(list.as_slice());
    SPARE_LISTS.with(|spare| spare.borrow_mut().push(list));
    out
}

/// Collects every legal move with all of its capture paths (for notation).
#[derive(Clone, Debug, Default)]
pub struct PathList {
    moves: Vec<LegalMove>,
    best: u32,
}

impl PathList {
    /// The collected moves.
    pub fn into_moves(self) -> Vec<LegalMove> {
        self.moves
    }
}

impl MoveSink for PathList {
    const PATHS: bool = true;

    fn clear(&mut self) {
        self.moves.clear();
        self.best = 0;
    }

    fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    fn capture(&mut self, mv: Move, key: u32, path: &[Square], order: &[Square]) {
        if !self.moves.is_empty() {
            if key < self.best {
                return;
            }
            if key > self.best {
                self.moves.clear();
            }
        }
        self.best = key;
        let path = MovePath {
            squares: path.to_vec(),
            captured: order.to_vec(),
        };
        match self.moves.iter_mut().find(|m| m.mv == mv) {
            Some(existing) => existing.paths.push(path),
            None => self.moves.push(LegalMove {
                mv,
                paths: vec![path],
            }),
        }
    }

    fn quiet(&mut self, mv: Move) {
        let path = MovePath {
            squares: vec![mv.from(), mv.to()],
            captured: Vec::new(),
        };
        self.moves.push(LegalMove {
            mv,
            paths: vec![path],
        });
    }
}

/// Generates the legal moves of `pos` into `sink` (cleared first).
#[inline]
pub fn generate<R: Rules, S: MoveSink>(pos: &Position<R>, sink: &mut S) {
    sink.clear();
    generate_captures(pos, sink);
    if sink.is_empty() {
        generate_quiets(pos, sink);
    }
}

/// Generates the legal moves of `pos` into `sink` (cleared first) but the kings' quiet
/// moves, which are only counted: returns their number (0 when `pos` has a capture). For
/// callers to whom a king's quiet move is one more move of the same kind (a retrograde
/// unit's moves that stay in it).
#[inline]
pub fn generate_counting_king_quiets<R: Rules, S: MoveSink>(
    pos: &Position<R>,
    sink: &mut S,
) -> u64 {
    sink.clear();
    generate_captures(pos, sink);
    if !sink.is_empty() {
        return 0;
    }
    man_quiets(pos, sink);
    count_king_quiets(pos)
}

/// Generates only the captures of `pos` into `sink` (cleared first); empty when none exists.
#[inline]
pub fn captures<R: Rules, S: MoveSink>(pos: &Position<R>, sink: &mut S) {
    sink.clear();
    generate_captures(pos, sink);
}

/// Every legal move of `pos` with its capture paths.
pub fn legal_moves<R: Rules>(pos: &Position<R>) -> Vec<LegalMove> {
    let mut list = PathList::default();
    generate(pos, &mut list);
    list.into_moves()
}

/// The number of legal moves of `pos`; quiet moves are counted without being listed.
#[inline]
pub fn count_moves<R: Rules>(pos: &Position<R>, scratch: &mut MoveList) -> u64 {
    scratch.clear();
    generate_captures(pos, scratch);
    if !scratch.is_empty() {
        return scratch.as_slice().len() as u64;
    }
    count_quiets(pos)
}

/// Direction set a man of the side to move captures in.
#[inline(always)]
fn man_capture_dirs<R: Rules>(side: usize) -> u8 {
    if R::MEN_CAPTURE_BACKWARD {
        0b1111
    } else {
        R::Board::FORWARD[side] | R::Board::SIDEWAYS
    }
}

/// Direction set a man of the side to move steps in.
#[inline(always)]
fn man_move_dirs<R: Rules>(side: usize) -> u8 {
    R::Board::FORWARD[side] | R::Board::SIDEWAYS
}

const NO_KING: u32 = 255;

/// State of one capture search from one piece.
struct CaptureSearch<'s, R: Rules, S: MoveSink> {
    sink: &'s mut S,
    from: u64,
    from_is_king: bool,
    enemy_kings: u64,
    promotion_row: u64,
    side: usize,
    path: [Square; 64],
    order: [Square; 64],
    rules: PhantomData<R>,
}

/// What a capture sequence has done so far.
#[derive(Copy, Clone)]
struct Taken {
    /// Squares the piece may land on or fly over.
    empty: u64,
    /// Enemy pieces it may still jump.
    prey: u64,
    /// Pieces taken so far.
    captured: u64,
    count: u32,
    kings: u32,
    /// Index in jump order of the first king taken, or `NO_KING`.
    first_king: u32,
    /// Direction of the last jump (4 before the first).
    last_dir: usize,
}

impl<R: Rules, S: MoveSink> CaptureSearch<'_, R, S> {
    #[inline(always)]
    fn after_jump(&mut self, t: &Taken, mid: u64, d: usize) -> Taken {
        let is_king = mid & self.enemy_kings != 0;
        if S::PATHS {
            self.order[t.count as usize] = Square::from_bit(mid.trailing_zeros() as u8);
        }
        Taken {
            empty: if R::IMMEDIATE_REMOVAL {
                t.empty | mid
            } else {
                t.empty
            },
            prey: t.prey & !mid,
            captured: t.captured | mid,
            count: t.count + 1,
            kings: t.kings + is_king as u32,
            first_king: if is_king && t.first_king == NO_KING {
                t.count
            } else {
                t.first_king
            },
            last_dir: d,
        }
    }

    /// Whether a man on `sq` has a jump (a cheap test before searching).
    #[inline(always)]
    fn man_can_jump(&self, sq: u64, t: &Taken) -> bool {
        let dirs = man_capture_dirs::<R>(self.side);
        let mut can = 0;
        for d in 0..4 {
            if dirs >> d & 1 != 0 {
                can |= R::Board::step(R::Board::step(sq, d) & t.prey, d) & t.empty;
            }
        }
        can != 0
    }

    /// Searches on from a man on `sq`; returns whether it could jump again.
    fn man(&mut self, sq: u64, t: &Taken) -> bool {
        // One call per direction with the direction a constant, so every shift is immediate.
        let a = self.man_jump::<0>(sq, t);
        let b = self.man_jump::<1>(sq, t);
        let c = self.man_jump::<2>(sq, t);
        let d = self.man_jump::<3>(sq, t);
        a | b | c | d
    }

    /// A man on `sq` jumping in direction `D`, if it can; returns whether it did.
    #[inline(always)]
    fn man_jump<const D: usize>(&mut self, sq: u64, t: &Taken) -> bool {
        if man_capture_dirs::<R>(self.side) >> D & 1 == 0 {
            return false;
        }
        let mid = R::Board::step(sq, D) & t.prey;
        let land = R::Board::step(mid, D) & t.empty;
        if land == 0 {
            return false;
        }
        let next = self.after_jump(t, mid, D);
        self.land_man(land, &next);
        true
    }

    /// Records `land` as the landing square of the last jump of `t` (for paths).
    #[inline(always)]
    fn set_landing(&mut self, t: &Taken, land: u64) {
        if S::PATHS {
            self.path[t.count as usize] = Square::from_bit(land.trailing_zeros() as u8);
        }
    }

    /// A man has landed on `land` after a jump.
    #[inline(always)]
    fn land_man(&mut self, land: u64, t: &Taken) {
        self.set_landing(t, land);
        if land & self.promotion_row != 0 {
            match R::PROMOTION {
                MidCapturePromotion::Stop => self.emit(land, t, true),
                MidCapturePromotion::ContinueAsKing => {
                    if !self.king(land, t) {
                        self.emit(land, t, true);
                    }
                }
                MidCapturePromotion::PassAsMan => {
                    if !(self.man_can_jump(land, t) && self.man(land, t)) {
                        self.emit(land, t, true);
                    }
                }
            }
        } else if !(self.man_can_jump(land, t) && self.man(land, t)) {
            self.emit(land, t, false);
        }
    }

    /// Searches on from a king (or a man crowned mid-capture) on `sq`.
    fn king(&mut self, sq: u64, t: &Taken) -> bool {
        let mut found = false;
        for d in 0..4 {
            if R::IMMEDIATE_REMOVAL && t.last_dir < 4 && d == OPPOSITE[t.last_dir] {
                continue;
            }
            // A flying king slides to the first square that is not free (from the ray
            // tables: no loop whose length no predictor can learn).
            let s = if R::FLYING_KINGS {
                R::Board::first_on_ray(sq, d, R::Board::VALID & !t.empty)
            } else {
                R::Board::step(sq, d)
            };
            let mid = s & t.prey;
            if mid == 0 {
                continue;
            }
            let mut land = R::Board::step(mid, d) & t.empty;
            if land == 0 {
                continue;
            }
            found = true;
            let next = self.after_jump(t, mid, d);
            // A flying king must land where it can jump again if any landing square allows it;
            // only when none does may it stop, on any of them.
            let mut stops = 0u64;
            let mut continued = false;
            while land != 0 {
                self.set_landing(&next, land);
                if self.king(land, &next) {
                    continued = true;
                } else {
                    stops |= land;
                }
                if !R::FLYING_KINGS {
                    break;
                }
                land = R::Board::step(land, d) & t.empty;
            }
            if !continued {
                for stop in Bitboard(stops).squares() {
                    self.set_landing(&next, stop.bb().0);
                    self.emit(stop.bb().0, &next, !self.from_is_king);
                }
            }
        }
        found
    }

    /// A complete capture sequence ending on `to`.
    #[inline(always)]
    fn emit(&mut self, to: u64, t: &Taken, crowned: bool) {
        let mut kings_delta = t.captured & self.enemy_kings;
        if self.from_is_king {
            kings_delta ^= self.from ^ to;
        } else if crowned {
            kings_delta ^= to;
        }
        let key = match R::PRECEDENCE {
            Precedence::Free => 0,
            Precedence::Quantity => t.count,
            Precedence::Spanish => t.count << 8 | t.kings,
            Precedence::Italian => {
                t.count << 16
                    | (self.from_is_king as u32) << 15
                    | t.kings << 8
                    | (255 - t.first_king)
            }
        };
        let mv = Move::new(
            Square::from_bit(self.from.trailing_zeros() as u8),
            Square::from_bit(to.trailing_zeros() as u8),
            Bitboard(t.captured),
            Bitboard(kings_delta),
            crowned && !self.from_is_king,
        );
        let n = t.count as usize + 1;
        self.sink
            .capture(mv, key, &self.path[..n], &self.order[..n - 1]);
    }
}

/// The pieces of the side to move that can start a capture: men (and short kings) next to a
/// piece they may take with an empty square beyond it, flying kings whose slide in some
/// direction stops at an enemy piece with an empty square beyond it.
#[inline(always)]
fn capture_starts<R: Rules>(pos: &Position<R>) -> (u64, u64) {
    let side = pos.side_to_move();
    let them = pos.pieces(side.opponent()).0;
    let empty = pos.empty().0;
    let man_prey = if R::MEN_CAPTURE_KINGS {
        them
    } else {
        them & !pos.kings().0
    };
    let dirs = man_capture_dirs::<R>(side.index());
    // One call per direction with the direction a constant, so every shift is immediate.
    let d0 = jumps_towards::<R, 0>(empty, man_prey, them, dirs);
    let d1 = jumps_towards::<R, 1>(empty, man_prey, them, dirs);
    let d2 = jumps_towards::<R, 2>(empty, man_prey, them, dirs);
    let d3 = jumps_towards::<R, 3>(empty, man_prey, them, dirs);
    let men = d0.0 | d1.0 | d2.0 | d3.0;
    let jumpable = d0.1 | d1.1 | d2.1 | d3.1;
    let next_to_jumpable = d0.2 | d1.2 | d2.2 | d3.2;
    let own_kings = pos.kings_of(side).0;
    let kings = match (R::FLYING_KINGS, jumpable) {
        (true, 0) => 0,
        (true, _) => flying_kings_that_capture::<R>(own_kings, empty, them),
        (false, _) => own_kings & next_to_jumpable,
    };
    (men & pos.men_of(side).0, kings)
}

/// The flying kings among `kings` that can take a piece of `them`: in some direction the
/// first piece they meet is one of `them`, with an empty square beyond it.
#[inline(always)]
fn flying_kings_that_capture<R: Rules>(kings: u64, empty: u64, them: u64) -> u64 {
    let occupied = R::Board::VALID & !empty;
    let mut out = 0;
    for king in Bitboard(kings).squares() {
        let king = king.bb().0;
        for d in 0..4 {
            let first = R::Board::first_on_ray(king, d, occupied);
            if first & them != 0 && R::Board::step(first, d) & empty != 0 {
                out |= king;
                break;
            }
        }
    }
    out
}

/// Towards direction `D`: the squares from which a man (if men capture that way) would
/// jump, the enemy pieces with an empty square beyond them, and the squares next to those.
#[inline(always)]
fn jumps_towards<R: Rules, const D: usize>(
    empty: u64,
    man_prey: u64,
    them: u64,
    man_dirs: u8,
) -> (u64, u64, u64) {
    let back = OPPOSITE[D];
    let beyond_empty = R::Board::step(empty, back);
    let men = if man_dirs >> D & 1 != 0 {
        R::Board::step(man_prey & beyond_empty, back)
    } else {
        0
    };
    let jumpable = them & beyond_empty;
    (men, jumpable, R::Board::step(jumpable, back))
}

/// Whether `pos` has a capture: a few bitboard operations (a ray per direction for each
/// flying king), so that callers that only want the captures can skip generating them.
#[inline]
pub fn may_capture<R: Rules>(pos: &Position<R>) -> bool {
    let (men, kings) = capture_starts(pos);
    men | kings != 0
}

/// Generates the captures of `pos` (nothing if there is none).
#[inline]
fn generate_captures<R: Rules, S: MoveSink>(pos: &Position<R>, sink: &mut S) {
    let (capturing_men, capturing_kings) = capture_starts(pos);
    if capturing_men == 0 && capturing_kings == 0 {
        return;
    }
    let side = pos.side_to_move();
    let them = pos.pieces(side.opponent()).0;
    let kings = pos.kings().0;
    let empty = pos.empty().0;
    let man_prey = if R::MEN_CAPTURE_KINGS {
        them
    } else {
        them & !kings
    };

    let mut search = CaptureSearch::<R, S> {
        sink,
        from: 0,
        from_is_king: false,
        enemy_kings: them & kings,
        promotion_row: R::Board::promotion_row(side),
        side: side.index(),
        path: [Square::from_bit(0); 64],
        order: [Square::from_bit(0); 64],
        rules: PhantomData,
    };
    let start = |from: u64, prey: u64| Taken {
        empty: empty | from,
        prey,
        captured: 0,
        count: 0,
        kings: 0,
        first_king: NO_KING,
        last_dir: 4,
    };
    for sq in Bitboard(capturing_men).squares() {
        let from = sq.bb().0;
        search.from = from;
        search.from_is_king = false;
        search.path[0] = sq;
        search.man(from, &start(from, man_prey));
    }
    for sq in Bitboard(capturing_kings).squares() {
        let from = sq.bb().0;
        search.from = from;
        search.from_is_king = true;
        search.path[0] = sq;
        search.king(from, &start(from, them));
    }
}

/// Generates the quiet moves of `pos` (call only when it has no capture).
#[inline]
fn generate_quiets<R: Rules, S: MoveSink>(pos: &Position<R>, sink: &mut S) {
    man_quiets(pos, sink);
    let side = pos.side_to_move();
    let empty = pos.empty().0;
    for from in pos.kings_of(side).squares() {
        for d in 0..4 {
            let mut s = R::Board::step(from.bb().0, d) & empty;
            while s != 0 {
                let to = Square::from_bit(s.trailing_zeros() as u8);
                sink.quiet(Move::new(
                    from,
                    to,
                    Bitboard::EMPTY,
                    from.bb() ^ to.bb(),
                    false,
                ));
                if !R::FLYING_KINGS {
                    break;
                }
                s = R::Board::step(s, d) & empty;
            }
        }
    }
}

/// Adds to `sink` the quiet moves of the men of `pos`'s side to move (call only when it has
/// no capture).
#[inline]
fn man_quiets<R: Rules, S: MoveSink>(pos: &Position<R>, sink: &mut S) {
    let side = pos.side_to_move();
    let empty = pos.empty().0;
    let men = pos.men_of(side).0;
    let promotion_row = R::Board::promotion_row(side);
    let dirs = man_move_dirs::<R>(side.index());
    for (d, &back) in OPPOSITE.iter().enumerate() {
        if dirs >> d & 1 == 0 {
            continue;
        }
        for to in Bitboard(R::Board::step(men, d) & empty).squares() {
            let from = R::Board::step(to.bb().0, back);
            let crowned = to.bb().0 & promotion_row != 0;
            let delta = if crowned { to.bb() } else { Bitboard::EMPTY };
            let from = Square::from_bit(from.trailing_zeros() as u8);
            sink.quiet(Move::new(from, to, Bitboard::EMPTY, delta, crowned));
        }
    }
}

/// Counts the quiet moves of `pos` without listing them.
#[inline]
fn count_quiets<R: Rules>(pos: &Position<R>) -> u64 {
    let side = pos.side_to_move();
    let empty = pos.empty().0;
    let men = pos.men_of(side).0;
    let dirs = man_move_dirs::<R>(side.index());
    let mut n = 0u64;
    for d in 0..4 {
        if dirs >> d & 1 != 0 {
            n += (R::Board::step(men, d) & empty).count_ones() as u64;
        }
    }
    n + count_king_quiets(pos)
}

/// The number of quiet moves of the kings of `pos`'s side to move, without listing them
/// (call only when it has no capture). A flying king's moves in a direction are the squares
/// of its ray before the first piece on it.
#[inline]
fn count_king_quiets<R: Rules>(pos: &Position<R>) -> u64 {
    let kings = pos.kings_of(pos.side_to_move()).0;
    let empty = pos.empty().0;
    let mut n = 0u64;
    if R::FLYING_KINGS {
        let occupied = R::Board::VALID & !empty;
        for from in Bitboard(kings).squares() {
            let king = from.bb().0;
            for d in 0..4 {
                let ray = R::Board::RAYS[d][from.bit() as usize];
                let first = R::Board::first_on_ray(king, d, occupied);
                let blocked = if first == 0 {
                    0
                } else {
                    first | R::Board::RAYS[d][first.trailing_zeros() as usize]
                };
                n += (ray & !blocked).count_ones() as u64;
            }
        }
    } else {
        for d in 0..4 {
            n += (R::Board::step(kings, d) & empty).count_ones() as u64;
        }
    }
    n
}
