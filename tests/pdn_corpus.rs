//! Every file of the PDN corpus (`../shared/corpus/pdn/`, see its MANIFEST.md) is read and
//! every game replayed. Files under `wiegerw-pdn/succeed/` and `checkerboard/` replay with no
//! error except the defects of the source listed below, each checked by hand; Czech files are
//! read only; `fail/nested_comment.pdn` is rejected and the other `fail/` files load with
//! warnings for what was tolerated.
//!
//! The corpus is not part of the repository but beside it, always there in CI: without it the
//! tests fail, saying where it belongs.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use damka::pdn::{ErrorKind, Reader, Replayer, Ruleset, WarningKind};

/// A defect of a source file: the game number, the move text, and why it is wrong.
struct Defect {
    game: usize,
    text: &'static str,
    reason: &'static str,
}

/// A move text naming two legal moves, which the moves after it tell apart: a warning, not
/// an error.
struct Ambiguous {
    text: &'static str,
    /// The reading the following moves fit.
    chosen: &'static str,
    why: &'static str,
}

/// What a corpus file must give.
struct Expect {
    path: &'static str,
    games: usize,
    /// Rules to read it with (`None`: its GameType, else a guess).
    rules: Option<&'static str>,
    defects: &'static [Defect],
    ambiguous: &'static [Ambiguous],
}

const fn file(path: &'static str, games: usize) -> Expect {
    Expect {
        path,
        games,
        rules: None,
        defects: &[],
        ambiguous: &[],
    }
}

const fn czech(path: &'static str, games: usize) -> Expect {
    Expect {
        path,
        games,
        rules: Some("czech"),
        defects: &[],
        ambiguous: &[],
    }
}

/// Every corpus file. Game counts are those of MANIFEST.md (Cat.C1 has one more: text after
/// its last result reads as a game without tags).
const FILES: &[Expect] = &[
    file("checkerboard/11_man_english.pdn", 2400),
    Expect {
        rules: Some("italian"),
        ..file("checkerboard/11_man_italian.pdn", 2400)
    },
    Expect {
        defects: &[Defect {
            game: 541,
            text: "'32-28'",
            reason: "move 62 repeats move 60 (32-28): Black's king is on 28 and nothing is on \
                     32 (B:WK26,K27,K30:B16,K28,K29); the record is wrong",
        }],
        ..file("checkerboard/tinsley.pdn", 724)
    },
    file("wiegerw-pdn/succeed/090417ronde12.pdn", 7),
    file("wiegerw-pdn/succeed/Cat.B1.pdn", 37),
    file("wiegerw-pdn/succeed/Cat.D1.pdn", 19),
    file("wiegerw-pdn/succeed/DUTCH96H.pdn", 13),
    file("wiegerw-pdn/succeed/OCA_2.0.pdn", 43),
    file("wiegerw-pdn/succeed/PROF2.pdn", 16),
    file("wiegerw-pdn/succeed/PWCP 2a.pdn", 59),
    file("wiegerw-pdn/succeed/PWCP_2.pdn", 51),
    file("wiegerw-pdn/succeed/Principles of Strategy.pdn", 16),
    Expect {
        ambiguous: &[
            Ambiguous {
                text: "10x26",
                chosen: "10x17x26",
                why: "game 57: 10x17x26 takes 14 and 22, 10x19x26 takes 15 and 23 \
                      (B:W14,15,18,21,22,23,30:B6,7,8,10,12,13); the next moves fit the first",
            },
            Ambiguous {
                text: "32x7",
                chosen: "32x23x14x7",
                why: "game 90: 32x23x14x7 takes 27,18,10 and 32x23x16x7 takes 27,19,11 \
                      (W:W15,21,25,26,28,30,31,32:B1,2,4,6,8,10,11,13,18,19,27)",
            },
        ],
        ..file("wiegerw-pdn/succeed/Tricks traps and shots.pdn", 91)
    },
    file("wiegerw-pdn/succeed/alphanumeric.pdn", 1),
    file("wiegerw-pdn/succeed/beginner.pdn", 58),
    file("wiegerw-pdn/succeed/borderclassics.pdn", 183),
    file("wiegerw-pdn/succeed/bridges.pdn", 267),
    file("wiegerw-pdn/succeed/candidate95.pdn", 8),
    file("wiegerw-pdn/succeed/fen.pdn", 3),
    file("wiegerw-pdn/succeed/gameterminator.pdn", 1),
    file("wiegerw-pdn/succeed/goulds.pdn", 262),
    file("wiegerw-pdn/succeed/inferno.pdn", 68),
    file("wiegerw-pdn/succeed/kurnik.pdn", 4),
    file("wiegerw-pdn/succeed/linecomment.pdn", 1),
    file("wiegerw-pdn/succeed/movestrength.pdn", 1),
    czech("wiegerw-pdn/succeed/mrcd2000kval.pdn", 40),
    czech("wiegerw-pdn/succeed/mrcd2006.pdn", 44),
    czech("wiegerw-pdn/succeed/mrcd2007.pdn", 102),
    file("wiegerw-pdn/succeed/nk ronde 01.pdn", 7),
    file("wiegerw-pdn/succeed/nk ronde 02.pdn", 7),
    file("wiegerw-pdn/succeed/nk2003-amsterdam.pdn", 33),
    file("wiegerw-pdn/succeed/rk ronde 12.pdn", 7),
    Expect {
        ambiguous: &[
            Ambiguous {
                text: "36x16",
                chosen: "36x13x2x16",
                why: "game 3: the king takes 27,8,11 by 36x13x2x16 or 27,12,11 by 36x18x7x16 \
                      (W:W32,K36,37,38,42,45,47:B3,6,8,11,12,14,19,27,34)",
            },
            Ambiguous {
                text: "4x24",
                chosen: "4x31x42x24",
                why: "game 7: the king takes 18,28,29 by 4x22x33x24 or 18,37,29 by 4x31x42x24 \
                      (W:WK4,20,39,44:B12,18,28,29,37)",
            },
        ],
        ..file("wiegerw-pdn/succeed/schildpad.pdn", 34)
    },
    file("wiegerw-pdn/succeed/string.pdn", 1),
    file("wiegerw-pdn/succeed/unicode.pdn", 1),
    file("wiegerw-pdn/succeed/ussr1947.pdn", 153),
    file("wiegerw-pdn/succeed/variation.pdn", 1),
    file("wiegerw-pdn/succeed/windragon.pdn", 1),
    file("wiegerw-pdn/succeed/wk2003.pdn", 23),
    file("wiegerw-pdn/fail/40Camp.DamaInternazionaleAssoluto.pdn", 45),
    file("wiegerw-pdn/fail/Cat.A1.pdn", 35),
    Expect {
        defects: &[Defect {
            game: 46,
            text: "'36x27'",
            reason: "'36x27 1-0' stands after game 45's result (which ends with Black \
                     blocked, B:WK50:B45): a stray fragment, read as a game without tags \
                     from the initial position",
        }],
        ..file("wiegerw-pdn/fail/Cat.C1.pdn", 46)
    },
    file("wiegerw-pdn/fail/delfts.pdn", 2),
    czech("wiegerw-pdn/fail/mrdrcd07.pdn", 72),
    czech("wiegerw-pdn/fail/mrdrcd08.pdn", 40),
    file("wiegerw-pdn/fail/nested_comment.pdn", 1),
];

#[path = "common/corpus.rs"]
mod corpus;
use corpus::corpus_path;

/// What reading and replaying a file gave.
#[derive(Default)]
struct Outcome {
    games: usize,
    moves: usize,
    errors: Vec<(usize, ErrorKind, String)>,
    warnings: Vec<WarningKind>,
}

fn check(path: &Path, rules: Option<&str>) -> Outcome {
    let name = path.display().to_string();
    let input = BufReader::new(File::open(path).expect("corpus file readable"));
    let rules: Option<Ruleset> = rules.map(|r| r.parse().expect("known rules"));
    let mut replayer = Replayer::new(rules);
    let mut out = Outcome::default();
    for item in Reader::new(name, input) {
        out.games += 1;
        match item {
            Ok(read) => {
                let replay = replayer.replay(&read);
                out.moves += replay.moves;
                out.warnings
                    .extend(read.warnings.iter().map(|w| w.kind.clone()));
                out.warnings
                    .extend(replay.warnings.iter().map(|w| w.kind.clone()));
                out.errors.extend(
                    replay
                        .errors
                        .iter()
                        .map(|e| (e.origin.game, e.kind.clone(), e.to_string())),
                );
            }
            Err(e) => out
                .errors
                .push((e.origin.game, e.kind.clone(), e.to_string())),
        }
    }
    out
}

#[test]
fn every_corpus_file_is_listed() {
    let dir = corpus_path("");
    for sub in ["checkerboard", "wiegerw-pdn/succeed", "wiegerw-pdn/fail"] {
        for entry in std::fs::read_dir(dir.join(sub)).expect("corpus directory") {
            let name = entry.expect("entry").file_name();
            let rel = format!("{sub}/{}", name.to_string_lossy());
            assert!(
                FILES.iter().any(|f| f.path == rel),
                "{rel} is not in the test's list"
            );
        }
    }
}

#[test]
fn corpus_replays_except_listed_defects() {
    let dir = corpus_path("");
    let mut summary = String::new();
    for expect in FILES {
        let out = check(&dir.join(expect.path), expect.rules);
        summary.push_str(&format!(
            "{:<55} games {:>5} moves {:>6} errors {:>2} warnings {:>5}\n",
            expect.path,
            out.games,
            out.moves,
            out.errors.len(),
            out.warnings.len()
        ));
        assert_eq!(out.games, expect.games, "{}: games", expect.path);
        if expect.path.ends_with("nested_comment.pdn") {
            continue;
        }
        for (game, _, message) in &out.errors {
            assert!(
                expect
                    .defects
                    .iter()
                    .any(|d| d.game == *game && message.contains(d.text)),
                "{}: unexpected error: {message}",
                expect.path
            );
        }
        for d in expect.defects {
            let found = out.errors.iter().any(|(game, kind, message)| {
                *game == d.game
                    && message.contains(d.text)
                    && matches!(kind, ErrorKind::Move { .. })
            });
            assert!(
                found,
                "{}: game {}: expected error ({})",
                expect.path, d.game, d.reason
            );
        }
        for a in expect.ambiguous {
            let found = out.warnings.iter().any(|w| {
                matches!(w, WarningKind::AmbiguousMove { text, chosen, decided: true, .. }
                    if text == a.text && chosen == a.chosen)
            });
            assert!(
                found,
                "{}: expected {} read as {} ({})",
                expect.path, a.text, a.chosen, a.why
            );
        }
        if expect.rules == Some("czech") {
            assert_eq!(
                out.moves, 0,
                "{}: Czech games are not replayed",
                expect.path
            );
            let unsupported = out
                .warnings
                .iter()
                .filter(|w| matches!(w, WarningKind::UnsupportedRules { number: 29, .. }))
                .count();
            assert_eq!(
                unsupported, expect.games,
                "{}: one warning per game",
                expect.path
            );
        } else {
            assert!(
                out.moves > 0 || !has_moves(expect.path),
                "{}: moves",
                expect.path
            );
        }
    }
    println!("{summary}");
}

/// Files made of positions without moves.
fn has_moves(path: &str) -> bool {
    !["11_man", "beginner", "bridges", "goulds", "fen.pdn"]
        .iter()
        .any(|p| path.contains(p))
}

#[test]
fn nested_comment_is_rejected() {
    let dir = corpus_path("");
    let out = check(&dir.join("wiegerw-pdn/fail/nested_comment.pdn"), None);
    assert_eq!(out.errors.len(), 1);
    let (_, kind, message) = &out.errors[0];
    assert!(matches!(
        kind,
        ErrorKind::NestedComment { line: 1, opened: 1 }
    ));
    assert!(message.contains("nested_comment.pdn, game 1"), "{message}");
    assert!(message.contains("comments do not nest"), "{message}");
}

#[test]
fn fail_files_load_with_warnings() {
    let dir = corpus_path("");
    let warned = |path: &str, rules: Option<&str>, what: fn(&WarningKind) -> bool| {
        let out = check(&dir.join(path), rules);
        assert!(
            out.warnings.iter().any(what),
            "{path}: expected warning missing"
        );
    };
    warned("wiegerw-pdn/fail/Cat.A1.pdn", None, |w| {
        matches!(w, WarningKind::SpacedEllipsis { .. })
    });
    warned("wiegerw-pdn/fail/Cat.C1.pdn", None, |w| {
        matches!(w, WarningKind::SpacedEllipsis { .. })
    });
    warned("wiegerw-pdn/fail/delfts.pdn", None, |w| {
        matches!(w, WarningKind::LeadingZeros { .. })
    });
    warned(
        "wiegerw-pdn/fail/delfts.pdn",
        None,
        |w| matches!(w, WarningKind::NonStandardResult { text } if text == "4-6"),
    );
    warned(
        "wiegerw-pdn/fail/40Camp.DamaInternazionaleAssoluto.pdn",
        None,
        |w| {
            matches!(
                w,
                WarningKind::GuessedVariant {
                    variant: damka::Variant::International,
                    ..
                }
            )
        },
    );
    for f in ["mrdrcd07", "mrdrcd08"] {
        warned(&format!("wiegerw-pdn/fail/{f}.pdn"), Some("czech"), |w| {
            matches!(w, WarningKind::UnsupportedRules { number: 29, .. })
        });
    }
}

#[test]
fn tinsley_replays_fast() {
    let dir = corpus_path("");
    let start = std::time::Instant::now();
    let out = check(&dir.join("checkerboard/tinsley.pdn"), None);
    let elapsed = start.elapsed();
    assert_eq!(out.games, 724);
    assert!(out.moves > 36_000);
    // Well under a second in release; generous for debug builds.
    assert!(elapsed.as_secs_f64() < 10.0, "tinsley.pdn took {elapsed:?}");
}
