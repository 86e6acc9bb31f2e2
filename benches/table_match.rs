//! A 20-game English match: the engine with tables up to 5 pieces against itself without
//! tables, from balanced random positions of 6 to 8 pieces, each played with both colours.
//!
//! `cargo bench --bench table_match -- [TABLES_DIR] [DEPTH]`: the tables are built
//! into TABLES_DIR (default: a temporary directory) when missing. Each move is a search to
//! DEPTH plies (default 10). Prints every game and the score.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use damka::RuleSet;
use damka::notation::write_fen;
use damka::rules::{Bitboard, Color, English, Geometry, MoveList, Position, Rules, captures};
use damka::search::{Engine, Limits};
use damka::tablebase::{Tablebase, Wdl, build_job, plan};

#[path = "../tests/common/mod.rs"]
mod common;
use common::Lcg;

/// `n` random squares of `from` that are not in `taken`.
fn random_squares(rng: &mut Lcg, from: u64, taken: u64, n: u32) -> u64 {
    let mut set = 0u64;
    while set.count_ones() < n {
        let free = from & !taken & !set;
        let k = rng.below(free.count_ones() as u64) as u32;
        let mut f = free;
        for _ in 0..k {
            f &= f - 1;
        }
        set |= f & f.wrapping_neg();
    }
    set
}

type R = English;

/// A random position with `men` men a side (and a king each when `kings`), White to move,
/// no capture pending for either side.
fn random_start(rng: &mut Lcg, men: u32, kings: bool) -> Option<Position<R>> {
    let g = |c| <R as Rules>::Board::men_squares(c);
    let valid = <R as Rules>::Board::VALID;
    let white_men = random_squares(rng, g(Color::White), 0, men);
    let black_men = random_squares(rng, g(Color::Black), white_men, men);
    let (mut wk, mut bk) = (0, 0);
    if kings {
        wk = random_squares(rng, valid, white_men | black_men, 1);
        bk = random_squares(rng, valid, white_men | black_men | wk, 1);
    }
    let pos = Position::<R>::new(
        Bitboard(white_men | wk),
        Bitboard(black_men | bk),
        Bitboard(wk | bk),
        Color::White,
    )
    .ok()?;
    let mut list = MoveList::new();
    for p in [pos, pos.with_side_to_move(Color::Black)] {
        captures(&p, &mut list);
        if !list.as_slice().is_empty() {
            return None;
        }
    }
    Some(pos)
}

/// The result of one game.
struct Outcome {
    /// White's points: 1, 0.5 or 0.
    white: f64,
    /// Plies played.
    plies: usize,
    /// Moves that left a position the tables hold with a worse result than before: by the
    /// side with tables (should be none), by the side without.
    table_errors: [usize; 2],
}

/// Plays one game; `tables` judges the moves of the side `with_tables`.
fn play(
    start: Position<R>,
    white: &mut Engine,
    black: &mut Engine,
    depth: u32,
    tables: &Tablebase,
    with_tables: Color,
) -> Outcome {
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    let mut game = vec![start];
    white.new_game();
    black.new_game();
    let mut table_errors = [0; 2];
    let wdl = |p: &Position<R>| {
        (p.occupied().count() <= 5)
            .then(|| tables.probe_wdl(p).ok())
            .flatten()
    };
    loop {
        let pos = *game.last().expect("a position");
        if RuleSet::default_for(R::VARIANT).game_draw(&game).is_some() || game.len() > 300 {
            return Outcome {
                white: 0.5,
                plies: game.len() - 1,
                table_errors,
            };
        }
        let engine = match pos.side_to_move() {
            Color::White => &mut *white,
            Color::Black => &mut *black,
        };
        let r = engine.search(&game, &limits, &stop, &mut |_| {});
        match r.best_move {
            Some(mv) => {
                let next = pos.play(&mv);
                if let (Some(before), Some(after)) = (wdl(&pos), wdl(&next))
                    && rank(after.negated()) < rank(before)
                {
                    table_errors[usize::from(pos.side_to_move() != with_tables)] += 1;
                }
                game.push(next);
            }
            None => {
                let white_lost = pos.side_to_move() == Color::White;
                return Outcome {
                    white: if white_lost { 0.0 } else { 1.0 },
                    plies: game.len() - 1,
                    table_errors,
                };
            }
        }
    }
}

/// Orders results: loss, draw, win.
fn rank(w: Wdl) -> u8 {
    match w {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}

fn main() {
    // `cargo bench` adds `--bench` to the arguments.
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let dir = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("damka-match-tables"));
    let depth: u32 = args.next().and_then(|d| d.parse().ok()).unwrap_or(10);
    std::fs::create_dir_all(&dir).expect("tables directory");
    let t = Instant::now();
    let tb = Tablebase::open(&dir).expect("tables directory");
    for job in plan(5, R::MEN) {
        if !tb.store().job_done(
            damka::Variant::English,
            &job,
            damka::tablebase::Contents::every_kind(damka::RuleSet::default_for(
                damka::Variant::English,
            )),
        ) {
            build_job::<R>(
                &job,
                &tb,
                damka::tablebase::Contents::every_kind(damka::RuleSet::default_for(R::VARIANT)),
                &damka::tablebase::Silent,
            )
            .expect("build");
        }
    }
    println!(
        "tables up to 5 pieces ready in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let tables = Arc::new(Tablebase::open(&dir).expect("tables"));
    let judge_tables = tables.clone();

    // Balanced: equal material, and the engine without tables sees no clear edge.
    let mut rng = Lcg(2026);
    let mut judge = Engine::new(32);
    let mut starts = Vec::new();
    while starts.len() < 10 {
        let (men, kings) = [(3, false), (4, false), (3, true)][starts.len() % 3];
        let Some(pos) = random_start(&mut rng, men, kings) else {
            continue;
        };
        let limits = Limits {
            depth: Some(12),
            ..Limits::default()
        };
        judge.new_game();
        let r = judge.search(&[pos], &limits, &AtomicBool::new(false), &mut |_| {});
        if r.info.score.0.abs() <= 30 {
            starts.push(pos);
        }
    }

    let mut with = Engine::new(64);
    with.set_tables(Some(tables));
    let mut without = Engine::new(64);
    let mut points = 0.0;
    let (mut won, mut lost, mut errors) = (0, 0, [0; 2]);
    let t = Instant::now();
    for (i, start) in starts.iter().enumerate() {
        for tables_white in [true, false] {
            let o = if tables_white {
                play(
                    *start,
                    &mut with,
                    &mut without,
                    depth,
                    &judge_tables,
                    Color::White,
                )
            } else {
                play(
                    *start,
                    &mut without,
                    &mut with,
                    depth,
                    &judge_tables,
                    Color::Black,
                )
            };
            let (p, plies) = if tables_white {
                (o.white, o.plies)
            } else {
                (1.0 - o.white, o.plies)
            };
            points += p;
            won += usize::from(p == 1.0);
            lost += usize::from(p == 0.0);
            errors[0] += o.table_errors[0];
            errors[1] += o.table_errors[1];
            println!(
                "game {:2} {} tables {}: {p} for the tables in {plies} plies",
                2 * i + usize::from(!tables_white) + 1,
                write_fen(start),
                if tables_white { "white" } else { "black" },
            );
        }
    }
    println!(
        "score with tables {points} / 20: won {won}, drawn {}, lost {lost}; moves that threw \
         away a table result: {} with tables, {} without (depth {depth}, {:.0} s)",
        20 - won - lost,
        errors[0],
        errors[1],
        t.elapsed().as_secs_f64()
    );
}
