//! Data-driven perft: every file in `tests/data/perft/` is checked against the move generator.
//!
//! A file has `fen FEN` (or `fen start`) lines, each followed by
//! `depth D nodes N [kept K] [slow]` lines. `nodes` counts a capture that takes the same pieces
//! and ends on the same square once; `kept` counts every capture path, as the references count
//! paths (see [`paths_counted`]). `slow` lines run only in the ignored test (`cargo test
//! --release -- --ignored perft`).

use std::fs;
use std::path::Path;

use damka::notation::movetext::turning_points;
use damka::notation::parse_fen;
use damka::rules::{LegalMove, Position, Rules, legal_moves, perft};
use damka::{Variant, with_rules};

/// The capture paths of `m` as the references count them. dctl (every variant but Turkish)
/// counts one path where a flying king goes straight on from one capture to the next,
/// whichever square between the two pieces it is said to land on: paths that take the
/// same pieces in the same order and turn on the same squares are one. kish (Turkish)
/// counts a path for each of those squares.
fn paths_counted<R: Rules>(m: &LegalMove) -> u64 {
    if R::VARIANT == Variant::Turkish {
        return m.paths.len() as u64;
    }
    let mut distinct: Vec<_> = m
        .paths
        .iter()
        .map(|p| (turning_points(R::VARIANT, p), &p.captured))
        .collect();
    distinct.sort();
    distinct.dedup();
    distinct.len() as u64
}

/// Perft counting capture paths separately (duplicates kept), by [`paths_counted`].
fn perft_kept<R: Rules>(pos: &Position<R>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = legal_moves(pos);
    if depth == 1 {
        return moves.iter().map(paths_counted::<R>).sum();
    }
    moves
        .iter()
        .map(|m| paths_counted::<R>(m) * perft_kept(&pos.play(&m.mv), depth - 1))
        .sum()
}

struct Case {
    line: usize,
    fen: String,
    depth: u32,
    nodes: u64,
    kept: Option<u64>,
    slow: bool,
}

fn read_cases(path: &Path) -> Vec<Case> {
    let text = fs::read_to_string(path).expect("perft file readable");
    let mut fen = String::from("start");
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[0] {
            "fen" => fen = words[1..].join(" "),
            "depth" => {
                let value = |key: &str| {
                    words.iter().position(|w| *w == key).map(|p| {
                        words[p + 1].parse::<u64>().unwrap_or_else(|_| {
                            panic!("{}:{}: bad number after {key}", path.display(), i + 1)
                        })
                    })
                };
                cases.push(Case {
                    line: i + 1,
                    fen: fen.clone(),
                    depth: words[1].parse().expect("depth is a number"),
                    nodes: value("nodes").expect("nodes given"),
                    kept: value("kept"),
                    slow: words.contains(&"slow"),
                });
            }
            other => panic!("{}:{}: unknown key {other}", path.display(), i + 1),
        }
    }
    cases
}

fn check<R: Rules>(path: &Path, slow: bool) -> usize {
    let mut checked = 0;
    for case in read_cases(path).into_iter().filter(|c| c.slow == slow) {
        let pos = if case.fen == "start" {
            Position::<R>::initial()
        } else {
            parse_fen::<R>(&case.fen).expect("perft FEN is valid")
        };
        let at = format!("{}:{}", path.display(), case.line);
        assert_eq!(
            perft(&pos, case.depth),
            case.nodes,
            "{at}: nodes at depth {}",
            case.depth
        );
        if let Some(kept) = case.kept {
            assert_eq!(
                perft_kept(&pos, case.depth),
                kept,
                "{at}: kept at depth {}",
                case.depth
            );
        }
        checked += 1;
    }
    checked
}

fn run_all(slow: bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/perft");
    for variant in Variant::ALL {
        let path = dir.join(format!("{}.perft", variant.name()));
        let checked = with_rules!(variant, R => check::<R>(&path, slow));
        if !slow {
            assert!(
                checked >= 7,
                "{}: only {checked} perft cases",
                path.display()
            );
        }
    }
}

#[test]
fn perft_matches_published_counts() {
    run_all(false);
}

#[test]
#[ignore = "deep perft: minutes in release"]
fn perft_deep() {
    run_all(true);
}
