//! Turkish move generation cross-checked against the `kish` crate on random reachable positions.
//!
//! Random games are played from the initial position with an inline, seeded RNG (SplitMix64),
//! so every run checks the same positions. Some games stop at a ply limit, others go on until
//! few pieces remain, so positions with kings and thin endgames are covered too. At every
//! position both generators are asked for the legal moves and the two sets are compared move
//! by move: (from, to, captured pieces), the position after the move, and the number of capture
//! paths behind the move (damka merges paths that take the same pieces to the same square into
//! one move, kish lists each path as its own action).
//!
//! kish describes a move by the squares it toggles, so a capture that ends on its own start
//! square shows no moving piece at all (its `to_detailed` path then names bogus squares). Such
//! round trips are compared by the pieces they take (and the position after them).
//!
//! Square numbering: kish uses bit = rank * 8 + file with a1 = 0; damka's squares are converted
//! through `square_from_file_rank` / `file_rank` and never assumed to share that layout.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use damka::Variant;
use damka::notation::squares::{file_rank, square_from_file_rank};
use damka::notation::{full_path_text, write_fen};
use damka::rules::{Bitboard, Color, LegalMove, Position, Square, Turkish, legal_moves};
use kish::{Action, Board, State, Team};

/// Positions that must be checked at least.
const MIN_POSITIONS: u64 = 100_000;

/// SplitMix64: small, deterministic, good enough to pick random moves.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0; the modulo bias is irrelevant here).
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Square conversions between damka and kish (kish bit = rank * 8 + file).
struct Squares {
    /// damka square of each kish bit.
    of_kish: [Square; 64],
    /// kish bit of each damka bit (255 where the damka bit is not a square).
    kish_of: [u8; 64],
}

impl Squares {
    fn new() -> Self {
        let mut of_kish = [Square::from_bit(0); 64];
        let mut kish_of = [u8::MAX; 64];
        for bit in 0..64u8 {
            let (file, rank) = (bit % 8, bit / 8);
            let sq = square_from_file_rank(Variant::Turkish, file, rank)
                .expect("every square of the Turkish board is playable");
            assert_eq!(file_rank(Variant::Turkish, sq), (file, rank), "round trip");
            assert_eq!(
                kish_of[sq.bit() as usize],
                u8::MAX,
                "two kish bits on one square"
            );
            of_kish[bit as usize] = sq;
            kish_of[sq.bit() as usize] = bit;
        }
        Squares { of_kish, kish_of }
    }

    fn to_kish_square(&self, sq: Square) -> u8 {
        let bit = self.kish_of[sq.bit() as usize];
        assert_ne!(bit, u8::MAX, "damka bit {} is not a square", sq.bit());
        bit
    }

    fn to_kish(&self, bb: Bitboard) -> u64 {
        bb.squares()
            .fold(0, |acc, sq| acc | 1u64 << self.to_kish_square(sq))
    }

    fn to_damka(&self, mut bits: u64) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        while bits != 0 {
            bb |= self.of_kish[bits.trailing_zeros() as usize].bb();
            bits &= bits - 1;
        }
        bb
    }

    fn board(&self, pos: &Position<Turkish>) -> Board {
        let turn = match pos.side_to_move() {
            Color::White => Team::White,
            Color::Black => Team::Black,
        };
        let state = State::new(
            [
                self.to_kish(pos.pieces(Color::White)),
                self.to_kish(pos.pieces(Color::Black)),
            ],
            self.to_kish(pos.kings()),
        );
        Board::new(turn, state)
    }
}

/// A position in kish's layout: white, black, kings, White to move.
type Snapshot = (u64, u64, u64, bool);

/// A move as both sides can describe it: from and to (kish bits; `None` for a capture that
/// ends where it started), the captured pieces (kish bits) and the position after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    from_to: Option<(u8, u8)>,
    captured: u64,
    after: Snapshot,
}

fn snapshot(board: &Board) -> Snapshot {
    (
        board.state.pieces[0],
        board.state.pieces[1],
        board.state.kings,
        board.turn == Team::White,
    )
}

fn square_text(bit: u8) -> String {
    format!("{}{}", (b'a' + bit % 8) as char, bit / 8 + 1)
}

fn key_text(key: &Key) -> String {
    let path = match key.from_to {
        Some((from, to)) => format!("{}-{}", square_text(from), square_text(to)),
        None => "round trip".to_string(),
    };
    let (white, black, kings, white_to_move) = key.after;
    format!(
        "{path} takes [{}], after: white [{}] black [{}] kings [{}] {} to move",
        bits_text(key.captured),
        bits_text(white),
        bits_text(black),
        bits_text(kings),
        if white_to_move { "white" } else { "black" }
    )
}

fn bits_text(mut bits: u64) -> String {
    let mut names = Vec::new();
    while bits != 0 {
        names.push(square_text(bits.trailing_zeros() as u8));
        bits &= bits - 1;
    }
    names.join(",")
}

/// damka's moves keyed, each with its number of capture paths (at least 1).
fn damka_keys(
    squares: &Squares,
    pos: &Position<Turkish>,
    legal: &[LegalMove],
) -> BTreeMap<Key, usize> {
    let mut keys = BTreeMap::new();
    for lm in legal {
        let mv = &lm.mv;
        assert!(
            !lm.paths.is_empty(),
            "{}: move without a path",
            write_fen(pos)
        );
        for path in &lm.paths {
            let mut taken = Bitboard::EMPTY;
            for &sq in &path.captured {
                taken |= sq.bb();
            }
            assert!(
                path.squares.first() == Some(&mv.from())
                    && path.squares.last() == Some(&mv.to())
                    && taken == mv.captured()
                    && path.captured.len() == mv.captured().count() as usize,
                "{}: path {:?} does not realise move {:?}",
                write_fen(pos),
                path,
                mv
            );
        }
        let (from, to) = (
            squares.to_kish_square(mv.from()),
            squares.to_kish_square(mv.to()),
        );
        let key = Key {
            from_to: (from != to).then_some((from, to)),
            captured: squares.to_kish(mv.captured()),
            after: snapshot(&squares.board(&pos.play(mv))),
        };
        let old = keys.insert(key, lm.paths.len());
        assert!(
            old.is_none(),
            "{}: damka lists {key:?} twice",
            write_fen(pos)
        );
    }
    keys
}

fn kish_key(board: &Board, action: &Action) -> Key {
    let team = board.turn;
    let mine = action.delta.pieces[team.to_usize()];
    let from_to = if mine == 0 {
        None
    } else {
        let (from, to) = (
            mine & board.friendly_pieces(),
            mine & !board.friendly_pieces(),
        );
        assert!(
            from.is_power_of_two() && to.is_power_of_two(),
            "kish action {action:?} moves more than one piece"
        );
        Some((from.trailing_zeros() as u8, to.trailing_zeros() as u8))
    };
    let mut after = board.apply(action);
    after.swap_turn_();
    Key {
        from_to,
        captured: action.captured_pieces(team),
        after: snapshot(&after),
    }
}

/// kish's actions keyed, each with the number of actions (paths) that give it.
fn kish_keys(board: &Board, actions: &[Action]) -> BTreeMap<Key, usize> {
    let mut keys = BTreeMap::new();
    for action in actions {
        *keys.entry(kish_key(board, action)).or_insert(0) += 1;
    }
    keys
}

fn kish_text(board: &Board, action: &Action) -> String {
    let key = kish_key(board, action);
    let path = match key.from_to {
        // `to_detailed` would read a source square from an empty mask here.
        None => "(ends on its start square)".to_string(),
        Some(_) => action.to_detailed(board.turn, &board.state).to_notation(),
    };
    format!("{path} takes [{}]", bits_text(key.captured))
}

fn report(
    pos: &Position<Turkish>,
    board: &Board,
    legal: &[LegalMove],
    actions: &[Action],
    why: &str,
) -> String {
    let mut out = format!("damka and kish disagree ({why})\nFEN {}\n", write_fen(pos));
    let _ = writeln!(out, "damka, {} moves:", legal.len());
    for lm in legal {
        let _ = writeln!(
            out,
            "  {} ({} path(s))",
            full_path_text(Variant::Turkish, lm),
            lm.paths.len()
        );
    }
    let _ = writeln!(out, "kish, {} actions:", actions.len());
    for action in actions {
        let _ = writeln!(out, "  {}", kish_text(board, action));
    }
    out
}

#[derive(Default, Debug)]
struct Stats {
    positions: u64,
    with_kings: u64,
    few_pieces: u64,
    captures: u64,
    multi_captures: u64,
    king_captures: u64,
    promotions: u64,
    round_trips: u64,
    merged_paths: u64,
    games: u64,
    plies: u64,
}

/// Compares both generators on `pos`; panics with both move lists on any difference.
fn check(squares: &Squares, pos: &Position<Turkish>, legal: &[LegalMove], stats: &mut Stats) {
    let board = squares.board(pos);
    // The conversion must be a bijection: back to damka gives the same pieces.
    for color in [Color::White, Color::Black] {
        assert_eq!(
            squares.to_damka(board.state.pieces[color.index()]),
            pos.pieces(color)
        );
    }
    assert_eq!(squares.to_damka(board.state.kings), pos.kings());

    let actions = board.actions();
    let ours = damka_keys(squares, pos, legal);
    let theirs = kish_keys(&board, &actions);
    if ours.keys().ne(theirs.keys()) {
        let only = |a: &BTreeMap<Key, usize>, b: &BTreeMap<Key, usize>| {
            a.keys()
                .filter(|k| !b.contains_key(k))
                .map(|k| format!("  {}\n", key_text(k)))
                .collect::<String>()
        };
        panic!(
            "{}only damka:\n{}only kish:\n{}",
            report(pos, &board, legal, &actions, "different moves"),
            only(&ours, &theirs),
            only(&theirs, &ours)
        );
    }
    if ours != theirs {
        panic!(
            "{}",
            report(
                pos,
                &board,
                legal,
                &actions,
                "different numbers of capture paths"
            )
        );
    }

    stats.positions += 1;
    stats.with_kings += u64::from(pos.kings().any());
    stats.few_pieces += u64::from(pos.occupied().count() <= 6);
    if let Some(lm) = legal.first()
        && lm.mv.is_capture()
    {
        stats.captures += 1;
        stats.multi_captures += u64::from(lm.mv.captured().count() > 1);
        stats.king_captures += u64::from(legal.iter().any(|m| pos.kings().contains(m.mv.from())));
    }
    stats.promotions += u64::from(legal.iter().any(|m| m.mv.is_promotion()));
    stats.round_trips += u64::from(ours.keys().any(|k| k.from_to.is_none()));
    stats.merged_paths += u64::from(ours.values().any(|&n| n > 1));
}

/// Plays one random game from the initial position, checking every position on the way.
/// It ends when the side to move has no move, after `max_plies`, or once at most
/// `stop_at_pieces` pieces remain (that last position is checked too).
fn random_game(
    squares: &Squares,
    rng: &mut Rng,
    max_plies: u32,
    stop_at_pieces: u32,
    stats: &mut Stats,
) {
    let mut pos = Position::<Turkish>::initial();
    stats.games += 1;
    for _ in 0..max_plies {
        let legal = legal_moves(&pos);
        check(squares, &pos, &legal, stats);
        if legal.is_empty() || pos.occupied().count() <= stop_at_pieces {
            return;
        }
        pos = pos.play(&legal[rng.below(legal.len())].mv);
        stats.plies += 1;
    }
}

#[test]
fn turkish_moves_match_kish_on_random_games() {
    let squares = Squares::new();
    let mut rng = Rng(0x5EED_DA3A_2024_0001);
    let mut stats = Stats::default();
    // Short and medium games: openings and middle games.
    for i in 0..400 {
        random_game(&squares, &mut rng, 20 + i % 100, 0, &mut stats);
    }
    // Games played out until few pieces remain (or the game ends), kings included.
    for i in 0..1_600 {
        random_game(&squares, &mut rng, 1_000, 2 + i % 5, &mut stats);
    }
    println!("{stats:?}");
    assert!(
        stats.positions >= MIN_POSITIONS,
        "only {} positions checked",
        stats.positions
    );
    // The random games must reach the interesting cases, or the check proves little.
    assert!(stats.with_kings >= 1_000, "{stats:?}");
    assert!(stats.few_pieces >= 200, "{stats:?}");
    assert!(stats.multi_captures >= 500, "{stats:?}");
    assert!(stats.king_captures >= 200, "{stats:?}");
    assert!(stats.promotions >= 100, "{stats:?}");
}

/// A round-trip king capture: the king ends on its own start square. kish's action shows no
/// moving piece; damka's move has `from == to`. Both must agree on what is taken.
#[test]
fn round_trip_capture_matches_kish() {
    let squares = Squares::new();
    // White king d4, Black men d6, f7, g5, e4: d4xd7xg7xg4xd4 takes all four, turning 90
    // degrees each time, and may end on d4 where it started.
    let sq = |name: &str| {
        let b = name.as_bytes();
        squares.of_kish[((b[1] - b'1') * 8 + (b[0] - b'a')) as usize].bb()
    };
    let white = sq("d4");
    let black = sq("d6") | sq("f7") | sq("g5") | sq("e4");
    let pos = Position::<Turkish>::new(white, black, white, Color::White).expect("valid position");
    let legal = legal_moves(&pos);
    let mut stats = Stats::default();
    check(&squares, &pos, &legal, &mut stats);
    assert!(
        legal
            .iter()
            .any(|m| m.mv.from() == m.mv.to() && m.mv.captured().count() == 4),
        "expected a four-piece round trip, got {} moves",
        legal.len()
    );
}
