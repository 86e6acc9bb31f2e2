//! The engine: perfect play in table positions, self-play wins within the table distance,
//! tactical shots, draws by repetition and by move count, limits and stop.
//!
//! Tables up to 4 pieces are built once per variant by `damka generate` into the test target
//! directory and shared with the other test binaries (`common/tables.rs`).

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use damka::notation::{parse_fen, parse_move};

use damka::rules::{
    Bitboard, Color, English, Geometry, International, Position, Rules, legal_moves,
};
use damka::rules::{Counters, DrawReason, RuleSet};
use damka::search::{Engine, Limits, Score, SearchResult};
use damka::tablebase::{Material, RuleCategory, SliceIndex, Tablebase, Wdl};
use damka::{Variant, with_rules};

#[path = "../../tests/common/mod.rs"]
mod common;
use common::Lcg;

#[path = "../../tests/common/tables.rs"]
mod shared;

/// The tables of a variant up to 4 pieces, built on first use.
fn tables(variant: Variant) -> Arc<Tablebase> {
    static TABLES: [OnceLock<Arc<Tablebase>>; 7] = [const { OnceLock::new() }; 7];
    let slot = Variant::ALL.iter().position(|&v| v == variant).unwrap();
    TABLES[slot]
        .get_or_init(|| {
            let dir = shared::shared_tables(
                Path::new(env!("CARGO_BIN_EXE_damka")),
                Path::new(env!("CARGO_TARGET_TMPDIR")),
                variant,
            );
            Arc::new(Tablebase::open(&dir).unwrap())
        })
        .clone()
}

fn engine_with_tables(variant: Variant) -> Engine {
    let mut engine = Engine::new(8);
    engine.set_tables(Some(tables(variant)));
    engine
}

fn search<R: Rules>(engine: &mut Engine, game: &[Position<R>], limits: &Limits) -> SearchResult {
    engine.search(game, limits, &AtomicBool::new(false), &mut |_| {})
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

/// A random position of 3 or 4 pieces with a legal move, either side to move.
fn random_position<R: Rules>(rng: &mut Lcg) -> Position<R> {
    let slices: Vec<Material> = Material::all_up_to(4, R::MEN)
        .into_iter()
        .filter(|&m| m.pieces() >= 3 && shared::holds(R::VARIANT, m))
        .collect();
    loop {
        let m = slices[rng.below(slices.len() as u64) as usize];
        let index = SliceIndex::<R>::new(m);
        let Some(frame) = index.unrank(rng.below(index.size())) else {
            continue;
        };
        let pos: Position<R> = if rng.below(2) == 0 {
            frame.position()
        } else {
            let turn = |bb: u64| Bitboard(R::Board::rotate(bb));
            let Ok(p) = Position::new(
                turn(frame.other),
                turn(frame.mover),
                turn(frame.kings),
                Color::Black,
            ) else {
                continue;
            };
            p
        };
        if !legal_moves(&pos).is_empty() {
            return pos;
        }
    }
}

/// How many random positions each variant checks at the root; every third is also searched
/// with the root answer turned off.
const PER_VARIANT: usize = 300;

/// The engine's move keeps the table's best result at the best distance: answered from the
/// tables at the root, and found by a search that probes the tables at its nodes.
fn table_moves<R: Rules>(seed: u64) -> (usize, usize) {
    let tb = tables(R::VARIANT);
    let mut root = engine_with_tables(R::VARIANT);
    let mut searching = engine_with_tables(R::VARIANT);
    searching.set_table_root(false);
    let mut rng = Lcg(seed);
    let (mut checked, mut searched) = (0, 0);
    while checked < PER_VARIANT {
        let pos = random_position::<R>(&mut rng);
        let rated = tb.rated_moves(&pos).unwrap();
        let best = rated[0].outcome;
        let left = RuleSet::default_for(R::VARIANT).game_plies_left(&[pos]);
        // A move-count rule could cut this result short: the tables are not the truth.
        if rated.iter().any(|r| {
            r.outcome.wdl != Wdl::Draw && left.is_some_and(|l| r.outcome.dtw as u32 + 2 > l)
        }) {
            continue;
        }
        // Nor where the rules draw a move's result another way (the Turkish one piece
        // each): there the engine plays by the rules (tested below).
        let rules = tb.rule_moves(&pos, RuleSet::default_for(R::VARIANT), Counters::default());
        let cursed = |c| matches!(c, RuleCategory::CursedWin | RuleCategory::BlessedLoss);
        if rules.is_ok_and(|m| m.iter().any(|m| cursed(m.category))) {
            continue;
        }
        let outcome_of = |mv| {
            rated
                .iter()
                .find(|r| r.mv.mv == mv)
                .expect("the engine plays a legal move")
                .outcome
        };
        let r = search(&mut root, &[pos], &depth(4));
        let got = outcome_of(r.best_move.unwrap());
        assert_eq!(got, best, "{:?} {pos:?}", R::VARIANT);
        if best.wdl == Wdl::Draw {
            // Searched among the drawing moves; a draw scores near zero.
            assert!(r.info.score.0.abs() <= 25, "{:?} {pos:?}", R::VARIANT);
        } else {
            assert_eq!(
                r.info.depth,
                0,
                "answered from the tables: {:?} {pos:?}",
                R::VARIANT
            );
            assert_eq!(r.info.score.plies_to_end(), Some(best.dtw as i32));
        }
        checked += 1;
        if checked % 3 == 0 {
            let s = search(&mut searching, &[pos], &depth(2));
            let got = outcome_of(s.best_move.unwrap());
            assert_eq!(got, best, "search, {:?} {pos:?}", R::VARIANT);
            if best.wdl == Wdl::Draw {
                assert!(s.info.score.0.abs() <= 25, "{:?} {pos:?}", R::VARIANT);
            } else {
                assert_eq!(s.info.score, r.info.score, "{:?} {pos:?}", R::VARIANT);
            }
            searched += 1;
        }
    }
    (checked, searched)
}

#[test]
fn table_positions_keep_the_best_result_at_the_best_distance() {
    for (i, variant) in Variant::ALL.into_iter().enumerate() {
        let (checked, searched) = with_rules!(variant, R => table_moves::<R>(7 + i as u64));
        assert_eq!(checked, PER_VARIANT);
        assert!(searched >= PER_VARIANT / 3);
    }
}

/// Engine against itself from won table positions: the game ends in the win, within the
/// table distance. The game is played without move counts (as the tables are built): a
/// count could draw a table win (the Turkish one piece each, for one).
fn self_play<R: Rules>(seed: u64) -> usize {
    let tb = tables(R::VARIANT);
    let mut engine = engine_with_tables(R::VARIANT);
    let plain: &'static RuleSet = Box::leak(Box::new(RuleSet {
        variant: R::VARIANT,
        name: "plain",
        quiet: None,
        material: &[],
    }));
    engine.set_rules(plain);
    let mut rng = Lcg(seed);
    let mut games = 0;
    while games < 12 {
        let start = random_position::<R>(&mut rng);
        let o = tb.probe_dtw(&start).unwrap();
        if o.wdl != Wdl::Win || o.dtw < 5 {
            continue;
        }
        let winner = start.side_to_move();
        let mut game = vec![start];
        loop {
            let pos = *game.last().unwrap();
            assert_eq!(plain.game_draw(&game), None, "{:?} {start:?}", R::VARIANT);
            let r = search(&mut engine, &game, &depth(4));
            let Some(mv) = r.best_move else {
                assert_ne!(pos.side_to_move(), winner, "{:?} {start:?}", R::VARIANT);
                break;
            };
            game.push(pos.play(&mv));
            assert!(
                game.len() - 1 <= o.dtw as usize,
                "{:?} {start:?}: no win within {}",
                R::VARIANT,
                o.dtw
            );
        }
        assert_eq!(game.len() - 1, o.dtw as usize, "{:?} {start:?}", R::VARIANT);
        games += 1;
    }
    games
}

#[test]
fn self_play_from_won_positions_wins_within_the_table_distance() {
    for (i, variant) in Variant::ALL.into_iter().enumerate() {
        assert_eq!(
            with_rules!(variant, R => self_play::<R>(100 + i as u64)),
            12
        );
    }
}

/// `n` plies of random quiet moves from `start`, none of which allows a capture: a game
/// where only kings move (the positions to test move-count rules on).
fn quiet_walk<R: Rules>(start: Position<R>, n: usize, rng: &mut Lcg) -> Option<Vec<Position<R>>> {
    let mut game = vec![start];
    for _ in 0..n {
        let pos = *game.last().unwrap();
        let safe: Vec<_> = legal_moves(&pos)
            .into_iter()
            .filter(|m| !m.mv.is_capture())
            .map(|m| pos.play(&m.mv))
            .filter(|next| legal_moves(next).iter().all(|m| !m.mv.is_capture()))
            .filter(|next| !game.contains(next))
            .collect();
        if safe.is_empty() {
            return None;
        }
        game.push(safe[rng.below(safe.len() as u64) as usize]);
    }
    Some(game)
}

/// A table win that a move-count rule turns into a draw: searched with the game that led
/// to it, the score is a draw; searched alone, a win. Random king walks of `plies` plies
/// (leaving 2 plies on the count) are tried until one ends in such a position; on the way,
/// a win the search still claims must start with a capture in the next two plies (a capture
/// restarts the count).
fn count_rule_draw<R: Rules>(rules: &'static RuleSet, fen: &str, plies: usize) {
    let start = parse_fen::<R>(fen).unwrap();
    let tb = tables(R::VARIANT);
    let mut engine = engine_with_tables(R::VARIANT);
    engine.set_rules(rules);
    let mut rng = Lcg(5);
    for _ in 0..30 {
        let Some(game) = quiet_walk(start, plies, &mut rng) else {
            continue;
        };
        let last = *game.last().unwrap();
        let o = tb.probe_dtw(&last).unwrap();
        if o.wdl != Wdl::Win || o.dtw < 4 {
            continue;
        }
        assert_eq!(rules.game_plies_left(&game), Some(2), "{:?}", R::VARIANT);
        let alone = search(&mut engine, &game[game.len() - 1..], &depth(6));
        assert!(
            alone.info.score.0 > 20_000,
            "{:?}: {}",
            R::VARIANT,
            alone.info.score
        );
        let in_game = search(&mut engine, &game, &depth(6));
        let mv = in_game.best_move.unwrap();
        assert!(legal_moves(&last).iter().any(|m| m.mv == mv));
        // The move takes, or the reply must take: the count starts again.
        let reply = last.play(&mv);
        let restarts = mv.is_capture() || legal_moves(&reply).iter().any(|m| m.mv.is_capture());
        if in_game.info.score.0.abs() > 25 {
            assert!(in_game.info.score.0 > 20_000, "{:?}", R::VARIANT);
            assert!(restarts, "{:?}", in_game.info.pv);
            continue;
        }
        // A draw. Without a capture, nothing but the count can make it one: exactly zero,
        // unless the tables' rule results for these rules say so (a table draw scores near
        // zero, as with a capture).
        let ruled = RuleSet::default_for(R::VARIANT).name == rules.name;
        if !restarts && !ruled {
            assert_eq!(in_game.info.score, Score(0), "{:?}", R::VARIANT);
        }
        // Two more king moves and the game is over.
        let mut over = game.clone();
        over.extend(quiet_walk(last, 2, &mut rng).unwrap().into_iter().skip(1));
        assert_eq!(rules.game_draw(&over), Some(DrawReason::MoveCount));
        assert_eq!(rules.game_draw(&over[..over.len() - 1]), None);
        return;
    }
    panic!("{:?}: no table win drawn by the count", R::VARIANT);
}

#[test]
fn move_count_rules_draw_table_wins() {
    // English: 40 moves each without a capture or a man move (the default, WCDF), or 50
    // (the rule pages' count, chosen by name).
    let english = |name| RuleSet::find(Variant::English, name).unwrap();
    count_rule_draw::<English>(english("wcdf"), "W:WK14,K19,K23:BK3", 78);
    count_rule_draw::<English>(english("rulepage-50"), "W:WK14,K19,K23:BK3", 98);
    // International: 16 moves each with three kings against one.
    let fmjd = RuleSet::default_for(Variant::International);
    count_rule_draw::<International>(fmjd, "W:WK28,K33,K39:BK5", 30);
}

/// Engine against itself under FMJD's 16-move rule from three kings against one king that
/// the rule results call a win: every move of the winner keeps the win under the rules
/// (with the game's counters), and the lone king is taken before the count runs out.
#[test]
fn engine_wins_three_kings_against_one_within_sixteen_moves() {
    let tb = tables(Variant::International);
    let fmjd = RuleSet::default_for(Variant::International);
    let mut engine = engine_with_tables(Variant::International);
    let index = SliceIndex::<International>::new(Material::new(0, 3, 0, 1));
    let mut rng = Lcg(33);
    let mut games = 0;
    while games < 6 {
        let Some(f) = index.unrank(rng.below(index.size())) else {
            continue;
        };
        let start = f.position::<International>();
        let o = tb.probe_dtw(&start).unwrap();
        let rules = tb.probe_rules(&start, fmjd, Counters::default()).unwrap();
        if o.wdl != Wdl::Win || o.dtw < 9 {
            continue;
        }
        assert_eq!(rules, RuleCategory::Win, "{start:?}");
        let winner = start.side_to_move();
        let mut game = vec![start];
        loop {
            let pos = *game.last().unwrap();
            assert_eq!(fmjd.game_draw(&game), None, "{start:?}: {game:?}");
            let r = search(&mut engine, &game, &depth(4));
            let Some(mv) = r.best_move else {
                assert_ne!(pos.side_to_move(), winner, "{start:?}");
                break;
            };
            game.push(pos.play(&mv));
            if pos.side_to_move() == winner {
                let after = *game.last().unwrap();
                let c = *fmjd.game_counters(&game).last().unwrap();
                if after.pieces(after.side_to_move()).is_empty() {
                    continue;
                }
                let kept = tb.probe_rules(&after, fmjd, c).unwrap();
                assert_eq!(kept, RuleCategory::Loss, "{start:?}: {game:?}");
            }
            assert!(game.len() <= 33, "{start:?}: no win within the count");
        }
        games += 1;
    }
}

/// Turkish: the fastest win (3 plies) gives up two kings and leaves one piece each, which
/// the `tdf` rules draw at once; the engine plays a win the rules allow (9 plies).
#[test]
fn engine_avoids_a_win_the_one_piece_each_rule_draws() {
    use damka::rules::Turkish;
    let tb = tables(Variant::Turkish);
    let tdf = RuleSet::default_for(Variant::Turkish);
    let mut engine = engine_with_tables(Variant::Turkish);
    let pos = parse_fen::<Turkish>("W:WKc4,Kc5,Ke8:BKa4").unwrap();
    assert_eq!(tb.rated_moves(&pos).unwrap()[0].outcome.dtw, 3);
    let r = search(&mut engine, &[pos], &depth(4));
    let after = pos.play(&r.best_move.unwrap());
    let c = tdf.next(&pos, Counters::default(), &after);
    assert_eq!(tb.probe_rules(&after, tdf, c).unwrap(), RuleCategory::Loss);
    assert_eq!(r.info.score.plies_to_end(), Some(9));
}

#[test]
fn repetition_is_a_draw() {
    let p = |fen| parse_fen::<English>(fen).unwrap();
    // Black, a lone king against two kings and a man, is lost; but 1-6 repeats the position
    // after 1-6 two moves ago.
    let s0 = p("B:W21,K30,K32:BK1");
    let game = [
        s0,
        p("W:W21,K30,K32:BK6"),
        p("B:W21,K26,K32:BK6"),
        p("W:W21,K26,K32:BK1"),
        s0,
    ];
    for pair in game.windows(2) {
        assert!(
            legal_moves(&pair[0])
                .iter()
                .any(|m| pair[0].play(&m.mv) == pair[1])
        );
    }
    let mut engine = Engine::new(8);
    let alone = search(&mut engine, &game[4..], &depth(8));
    assert!(alone.info.score.0 < -150, "{}", alone.info.score);
    engine.new_game();
    let r = search(&mut engine, &game, &depth(8));
    assert_eq!(r.info.score, Score(0));
    let mv = r.best_move.unwrap();
    assert_eq!(s0.play(&mv), game[1]);
    // White, to move after 1-6, avoids the repetition when it can.
    let white = search(
        &mut engine,
        &[s0, game[1], game[2], game[3], s0, game[1]],
        &depth(8),
    );
    assert!(white.info.score.0 > 150, "{}", white.info.score);
}

#[test]
fn limits_and_stop() {
    let start = Position::<International>::initial();
    let mut engine = Engine::new(8);
    // Depth: one report per iteration, depths in order.
    let mut depths = Vec::new();
    let r = engine.search(&[start], &depth(5), &AtomicBool::new(false), &mut |i| {
        depths.push(i.depth)
    });
    assert_eq!(&depths[..5], &[1, 2, 3, 4, 5]);
    assert_eq!(r.info.depth, 5);
    assert!(r.info.pv.len() >= 5);
    // Nodes.
    let limits = Limits {
        nodes: Some(20_000),
        ..Limits::default()
    };
    let r = search(&mut engine, &[start], &limits);
    assert!(r.info.nodes <= 20_000, "{}", r.info.nodes);
    assert!(r.info.nodes > 10_000, "{}", r.info.nodes);
    // Time.
    let limits = Limits {
        move_time: Some(Duration::from_millis(300)),
        ..Limits::default()
    };
    let t = std::time::Instant::now();
    let r = search(&mut engine, &[start], &limits);
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
    assert!(r.info.depth >= 4);
    // No limit: runs until another thread sets `stop`, then answers from the last iteration.
    let stop = AtomicBool::new(false);
    let t = std::time::Instant::now();
    let mut reports = 0;
    let r = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        engine.search(&[start], &Limits::default(), &stop, &mut |_| reports += 1)
    });
    assert!(t.elapsed() >= Duration::from_millis(300));
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
    assert!(r.info.depth >= 4 && reports > r.info.depth as usize);
    let mv = r.best_move.unwrap();
    assert_eq!(r.info.pv.first(), Some(&mv));
    // Stop already set: still a legal move.
    let r = engine.search(
        &[start],
        &Limits::default(),
        &AtomicBool::new(true),
        &mut |_| {},
    );
    let mv = r.best_move.unwrap();
    assert!(legal_moves(&start).iter().any(|m| m.mv == mv));
    // No legal move: no best move, a loss now.
    let lost = parse_fen::<English>("W:W5:B1").unwrap();
    assert!(legal_moves(&lost).is_empty());
    let r = search(&mut engine, &[lost], &depth(3));
    assert_eq!(r.best_move, None);
    assert_eq!(r.info.score.plies_to_end(), Some(0));
}

/// Searches `fen` for 2 seconds and checks the move and that it wins at least a man.
fn shot<R: Rules>(fen: &str, expected: &str) {
    let pos = parse_fen::<R>(fen).unwrap();
    let legal = legal_moves(&pos);
    let want = parse_move(R::VARIANT, &legal, expected).unwrap().mv;
    let limits = Limits {
        move_time: Some(Duration::from_secs(2)),
        ..Limits::default()
    };
    let r = search(&mut Engine::new(32), &[pos], &limits);
    assert_eq!(r.best_move, Some(want), "{fen}: {}", r.info.score);
    assert!(r.info.score.0 >= 100, "{fen}: {}", r.info.score);
}

// Each shot was checked by a deeper search (English depth 15, International depth 11) of
// every legal move: the move below is the only one that wins material; the forced replies
// were listed with `damka moves`.

#[test]
fn english_shots() {
    // 24-19: Black must take 13x22 (the only capture), then 19x12 and 26x17: two for one.
    shot::<English>(
        "W:W17,18,23,24,26,27,28,29,30,31:B1,2,3,4,5,8,10,13,16,20",
        "24-19",
    );
    // 10-14 18-15 14-17 21x14 9x18: Black gives one and takes two; every other move is
    // equal or worse.
    shot::<English>("B:W12,13,18,21,25,28,29,32:B1,3,4,5,6,8,9,10", "10-14");
}

#[test]
fn international_shots() {
    // 27-22 17x28 38-33 28x39 30-25 39x30 35x4: two men given, three taken, and a king.
    shot::<International>(
        "W:W27,30,32,34,35,36,37,38,42,43,45,46,47,48,49,50:B1,2,3,5,6,7,9,10,11,12,15,16,17,19,20,23",
        "27-22",
    );
    // 31-27 20x29 27-21 16x27 37-31 26x37 41x1: three men given, a five-piece capture that
    // ends on the crowning row.
    shot::<International>(
        "W:W24,31,35,36,37,38,39,40,41,43,45,46,47,50:B3,4,5,6,7,8,10,11,15,16,17,20,23,26",
        "31-27",
    );
    // 27-21 17x26 (or 16x27) 37-31 26x37 41x25: two given, four taken.
    shot::<International>(
        "W:W27,36,37,39,40,41,42,43,45,46,47,48,49,50:B1,2,3,5,6,7,10,11,16,17,18,19,20,28",
        "27-21",
    );
    // 37-31 36x27 28-22 17x28 38-32 28x37 42x24: the same pattern from the other wing.
    shot::<International>(
        "W:W26,28,34,35,37,38,39,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,15,17,18,19,36",
        "37-31",
    );
}

fn damka(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(args)
        .env_remove("DAMKA_TABLES")
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .output()
        .unwrap()
}

#[test]
fn play_command() {
    let out = damka(&["play", "--variant", "english", "--depth", "6"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let keys: Vec<&str> = lines.iter().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(
        keys,
        ["bestmove", "score", "depth", "nodes", "time", "nps", "pv"]
    );
    assert_eq!(lines[2], "depth 6");
    let best = lines[0].strip_prefix("bestmove ").unwrap();
    let start = Position::<English>::initial();
    assert!(parse_move(Variant::English, &legal_moves(&start), best).is_ok());
    assert!(lines[6].starts_with(&format!("pv {best} ")));

    // First Position, with the tables: White wins in 61 plies, no search.
    let dir = tables(Variant::English).dir().to_path_buf();
    let out = damka(&[
        "play",
        "--variant",
        "english",
        "--fen",
        "W:WK19,K23:BK28,12",
        "--tables",
        dir.to_str().unwrap(),
        "--time",
        "1",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\nscore win in 61\ndepth 0\n"), "{text}");

    // Bad arguments: clap's message, exit code 2.
    for args in [
        &["play", "--variant", "english"][..],
        &[
            "play",
            "--variant",
            "english",
            "--depth",
            "3",
            "--time",
            "1",
        ],
        &["play", "--variant", "english", "--time", "0"],
        &["play", "--variant", "english", "--depth", "0"],
        &["play", "--variant", "chess", "--depth", "3"],
    ] {
        let out = damka(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with("error: ") && err.contains("--help"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
    // A bad position: one line, exit code 2; tables asked for and missing: one line, 1.
    for (args, code) in [
        (
            &[
                "play",
                "--variant",
                "english",
                "--fen",
                "W:W99:B1",
                "--depth",
                "3",
            ][..],
            2,
        ),
        (
            &[
                "play",
                "--variant",
                "english",
                "--tables",
                "/nonexistent/tables",
                "--depth",
                "3",
            ],
            1,
        ),
    ] {
        let out = damka(args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn cached_probes_answer_only_from_memory() {
    let dir = tables(Variant::English).dir().to_path_buf();
    // A fresh handle: no table open, no block decoded.
    let tb = Tablebase::open(&dir).unwrap();
    let first_position = parse_fen::<English>("W:WK19,K23:BK28,12").unwrap();
    assert_eq!(tb.resolve_cached(&first_position, true), None);
    let full = tb.probe_dtw(&first_position).unwrap();
    assert_eq!((full.wdl, full.dtw), (Wdl::Win, 61));
    assert_eq!(tb.resolve_cached(&first_position, true), Some(full));
    // With a capture to resolve: answered once the slices it reaches are in memory.
    let capture = parse_fen::<English>("B:WK19,K23:BK28,15").unwrap();
    assert!(legal_moves(&capture).iter().all(|m| m.mv.is_capture()));
    assert_eq!(tb.resolve_cached(&capture, false), None);
    let full = tb.probe_wdl(&capture).unwrap();
    assert_eq!(
        tb.resolve_cached(&capture, false).map(|o| o.wdl),
        Some(full)
    );
}
