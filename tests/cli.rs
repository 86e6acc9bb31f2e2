//! The command line as other tools use it: exact stdout, one-line errors, exit codes.

use std::process::{Command, Output};

fn damka(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(args)
        .output()
        .expect("damka runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 stdout")
}

#[test]
fn moves_lists_full_paths_and_captured_squares() {
    let out = damka(&[
        "moves",
        "--variant",
        "russian",
        "--fen",
        "W:Wc3:Bd4,f6",
        "--captures",
    ]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "c3:e5:g7\td4,f6\n");
    let out = damka(&[
        "moves",
        "--variant",
        "english",
        "--fen",
        "W:W26:B22,14,23,15",
    ]);
    assert_eq!(stdout(&out), "26x17x10\n26x19x10\n");
    let out = damka(&["moves", "--variant", "english", "--fen", "B:W21-32:B1-12"]);
    assert_eq!(
        stdout(&out),
        "9-13\n9-14\n10-14\n10-15\n11-15\n11-16\n12-16\n"
    );
    // Quiet moves get no captured column.
    let out = damka(&[
        "moves",
        "--variant",
        "turkish",
        "--fen",
        "W:Wd4:Bh8",
        "--captures",
    ]);
    assert_eq!(stdout(&out), "d4-c4\nd4-e4\nd4-d5\n");
}

#[test]
fn perft_prints_nodes_then_timing() {
    let out = damka(&["perft", "--variant", "international", "--depth", "3"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "nodes 658");
    assert!(
        lines[1].starts_with("time ") && lines[2].starts_with("nps "),
        "{text}"
    );
    let out = damka(&["perft", "--variant", "english", "--depth", "2", "--divide"]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        &lines[..8],
        &[
            "9-13 7", "9-14 7", "10-14 7", "10-15 7", "11-15 7", "11-16 7", "12-16 7", "nodes 49"
        ]
    );
    let out = damka(&[
        "perft",
        "--variant",
        "brazilian",
        "--depth",
        "6",
        "--threads",
        "2",
        "--fen",
        "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
    ]);
    assert_eq!(stdout(&out).lines().next(), Some("nodes 37628"));
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    let cases: &[&[&str]] = &[
        &["moves", "--variant", "chess", "--fen", "W:W31:B1"],
        &["moves", "--variant", "english", "--fen", "W:W33:B1"],
        &["moves", "--variant", "english", "--fen", "W:W1:B20"],
        &["moves", "--variant", "english", "--fen", "garbage"],
        &["perft", "--variant", "english", "--depth", "x"],
        &["perft", "--variant", "english"],
        &[
            "perft",
            "--variant",
            "english",
            "--depth",
            "2",
            "--threads",
            "0",
        ],
        &["frobnicate"],
    ];
    for args in cases {
        let out = damka(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let out = damka(&["moves", "--variant", "english", "--fen", "W:W1:B20"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("white man on 1"), "{err}");
}
