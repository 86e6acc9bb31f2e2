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
        &["moves", "--variant", "english", "--fen", "W:W33:B1"],
        &["moves", "--variant", "english", "--fen", "W:W1:B20"],
        &["moves", "--variant", "english", "--fen", "garbage"],
        &["probe", "--variant", "english", "--fen", "W:W18"],
        &[
            "play",
            "--variant",
            "english",
            "--fen",
            "W:W18",
            "--depth",
            "2",
        ],
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
    // A finished game (the side not to move has no pieces) is an illegal position to probe
    // or search.
    let out = damka(&["probe", "--variant", "english", "--fen", "W:W18"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("illegal position: black"), "{err}");
    // Draw rules are named per variant.
    let out = damka(&[
        "play",
        "--variant",
        "english",
        "--depth",
        "1",
        "--rules",
        "fmjd",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: english has no rule set 'fmjd' (it has: wcdf, rulepage-50)"
    );
    let out = damka(&["analyse", "--rules", "nope", "x.pdn"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: no variant has draw rules 'nope' (docs/RULES.md lists them)"
    );
    let out = damka(&["hub", "--variant", "brazilian", "--rules", "wcdf"]);
    assert_eq!(out.status.code(), Some(2));
}

/// clap's whole message: what is missing or wrong, by name, its tips, the usage; exit code 2.
#[test]
fn argument_errors_are_clap_messages_in_full() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["moves", "--variant", "chess", "--fen", "W:W31:B1"],
            &["chess", "--variant"],
        ),
        (
            &["perft", "--variant", "english", "--depth", "x"],
            &["'x'", "--depth"],
        ),
        (&["perft", "--variant", "english"], &["--depth <DEPTH>"]),
        (
            &[
                "perft",
                "--variant",
                "english",
                "--depth",
                "2",
                "--threads",
                "0",
            ],
            &["--threads"],
        ),
        (
            &["play", "--variant", "english"],
            &["--depth <DEPTH>", "--time <TIME>"],
        ),
        (&["analys", "x.pdn"], &["similar subcommand", "'analyse'"]),
        (&["frobnicate"], &["unrecognized subcommand 'frobnicate'"]),
    ];
    for (args, wanted) in cases {
        let out = damka(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains("try '--help'"), "{args:?}: {err}");
        for w in *wanted {
            assert!(err.contains(w), "{args:?}: no {w} in {err}");
        }
    }
    // The American spelling is the same subcommand.
    let out = damka(&["analyze", "--help"]);
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("Usage: damka analyse"),
        "{}",
        stdout(&out)
    );
}

/// One spelling of the variants everywhere: `american` is English on the command line as in
/// the Hub; the search depth has one range; perft and generate default to all cores; the
/// Hub's default variant is said.
#[test]
fn variants_limits_and_defaults_agree() {
    let english = damka(&["moves", "--variant", "english", "--fen", "B:W21-32:B1-12"]);
    let american = damka(&["moves", "--variant", "american", "--fen", "B:W21-32:B1-12"]);
    assert!(american.status.success());
    assert_eq!(stdout(&american), stdout(&english));
    assert_eq!(
        damka::notation::hub::parse_variant("american"),
        Some(damka::Variant::English)
    );
    for args in [
        &["play", "--variant", "english", "--depth", "65"][..],
        &["analyse", "x.pdn", "--depth", "65"][..],
    ] {
        let out = damka(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("1..=64"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for command in ["perft", "generate"] {
        let help = stdout(&damka(&[command, "--help"]));
        assert!(help.contains("default: all cores"), "{command}: {help}");
    }
    let help = stdout(&damka(&["hub", "--help"]));
    assert!(help.contains("[default: international]"), "{help}");
}

/// `--board` draws the position first, with the variant's square names on the edges.
#[test]
fn board_diagrams_on_moves_and_play() {
    let out = damka(&[
        "moves",
        "--variant",
        "russian",
        "--fen",
        "W:Wc3:Bd4,f6",
        "--board",
    ]);
    assert_eq!(
        stdout(&out),
        "8     .   .   .   .\n\
         7   .   .   .   .\n\
         6     .   .   b   .\n\
         5   .   .   .   .\n\
         4     .   b   .   .\n\
         3   .   w   .   .\n\
         2     .   .   .   .\n\
         1   .   .   .   .\n    \
         a b c d e f g h\n\
         white to move\n\
         c3:e5:g7\n"
    );
    let out = damka(&["play", "--variant", "english", "--depth", "2", "--board"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..9],
        [
            " 1     b   b   b   b   4",
            " 5   b   b   b   b     8",
            " 9     b   b   b   b  12",
            "13   .   .   .   .    16",
            "17     .   .   .   .  20",
            "21   w   w   w   w    24",
            "25     w   w   w   w  28",
            "29   w   w   w   w    32",
            "black to move",
        ]
    );
    assert!(lines[9].starts_with("bestmove "), "{text}");
}

/// `generate` says what it builds in one unit: a line per job with its slices and
/// positions, a summary of slices and jobs that adds up. `probe` outside the tables names the
/// position's pieces and the command that builds them (exit code 1, a missing directory
/// too); `probe --board` draws the position.
#[test]
fn generate_counts_agree_and_probe_says_what_to_build() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-tables");
    let _ = std::fs::remove_dir_all(&dir);
    let tables = dir.to_str().expect("utf-8 path");
    let out = damka(&[
        "generate",
        "--variant",
        "english",
        "--pieces",
        "3",
        "--tables",
        tables,
    ]);
    assert!(out.status.success());
    let summary = stdout(&out);
    let first = summary.lines().next().unwrap_or_default();
    assert_eq!(
        first, "slices 16 built in 9 jobs, 0 already done",
        "{summary}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("built english "))
        .collect();
    assert_eq!(lines.len(), 9, "{err}");
    let (mut slices, mut positions) = (0, 0);
    for line in &lines {
        let (_, rest) = line.split_once(": ").expect("built KEY: ...");
        let words: Vec<&str> = rest.split([' ', ',']).filter(|w| !w.is_empty()).collect();
        slices += words[0].parse::<u32>().expect(line);
        assert!(
            words[1].starts_with("slice") && words[3] == "positions",
            "{line}"
        );
        positions += words[2].parse::<u64>().expect(line);
    }
    assert_eq!(slices, 16);
    assert!(
        summary.contains(&format!("\npositions {positions}\n")),
        "{summary}"
    );

    let out = damka(&[
        "probe",
        "--variant",
        "english",
        "--fen",
        "W:WK19:BK28,12",
        "--tables",
        tables,
        "--board",
    ]);
    let text = stdout(&out);
    assert!(text.starts_with(" 1     .   .   .   .   4\n"), "{text}");
    assert!(text.contains("\n17     .   .   W   .  20\n"), "{text}");
    // Built without distances to the end (the default): the distance to conversion.
    assert!(
        text.contains("\nwhite to move\nresult loss\nrules loss\ndtc 2\n"),
        "{text}"
    );
    assert!(!text.contains("dtw"), "{text}");

    let out = damka(&[
        "probe",
        "--variant",
        "english",
        "--fen",
        "W:WK19,K23:BK28,12",
        "--tables",
        tables,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("the position has 4 pieces (white 2 kings; black 1 man, 1 king)")
            && err.contains("0211.wdl is not there")
            && err.contains(&format!(
                "`damka generate --variant english --pieces 4 --tables {tables}`"
            )),
        "{err}"
    );
    let missing = dir.join("none");
    let missing = missing.to_str().expect("utf-8 path");
    let out = damka(&[
        "probe",
        "--variant",
        "english",
        "--fen",
        "W:WK19,K23:BK28,12",
        "--tables",
        missing,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("no tables directory {missing}")) && err.contains("--pieces 4"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Slice keys no position can have, and a tables directory that is a file, are refused at
/// once with what is wrong (exit code 2), never a list of impossible inputs or an OS error.
#[test]
fn impossible_slices_and_a_file_for_tables_say_what_is_wrong() {
    let file = std::env::temp_dir().join(format!("damka-not-a-dir-{}", std::process::id()));
    std::fs::write(&file, "not tables").expect("a scratch file");
    let tables = file.to_str().expect("a UTF-8 path");
    let cases: &[(&[&str], String)] = &[
        (
            &[
                "generate",
                "--variant",
                "english",
                "--slice",
                "0000",
                "--tables",
                tables,
            ],
            "error: invalid value '0000' for '--slice <SLICE>': bad slice key '0000': each side \
             needs a piece (a side without one has lost)"
                .to_string(),
        ),
        (
            &[
                "generate",
                "--variant",
                "english",
                "--slice",
                "9999",
                "--tables",
                tables,
            ],
            "error: slice 9999: 18 pieces on a side, but english has at most 12 a side".into(),
        ),
        (
            &[
                "verify",
                "--variant",
                "english",
                "--slice",
                "9999",
                "--tables",
                tables,
            ],
            "error: slice 9999: 18 pieces on a side, but english has at most 12 a side".into(),
        ),
        (
            &[
                "generate",
                "--variant",
                "english",
                "--pieces",
                "2",
                "--tables",
                tables,
            ],
            format!("error: --tables {tables}: a file, not a tables directory"),
        ),
        (
            &[
                "probe",
                "--variant",
                "english",
                "--fen",
                "W:W18:B1",
                "--tables",
                tables,
            ],
            format!("error: --tables {tables}: a file, not a tables directory"),
        ),
    ];
    for (args, expected) in cases {
        let out = damka(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().next(), Some(expected.as_str()), "{args:?}");
    }
    assert_eq!(
        std::fs::read_to_string(&file).expect("untouched"),
        "not tables"
    );
    std::fs::remove_file(&file).expect("remove the scratch file");
}

/// A position past what `generate` builds names no build and no file: it says that no table
/// holds it and what searches it instead.
#[test]
fn a_position_past_every_table_suggests_no_build() {
    let dir = std::env::temp_dir().join(format!("damka-no-tables-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("english")).expect("a scratch directory");
    let tables = dir.to_str().expect("a UTF-8 path");
    let initial = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
    let out = damka(&[
        "probe",
        "--variant",
        "english",
        "--fen",
        initial,
        "--tables",
        tables,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: the position has 24 pieces (white 12 men; black 12 men): no table holds more \
         than 10 pieces (`damka generate --pieces` builds 2 to 10); `damka play` searches such \
         positions"
    );
    std::fs::remove_dir_all(&dir).expect("remove the scratch directory");
}

/// `info` says which piece counts lack slices, and the command that completes them.
#[test]
fn info_marks_incomplete_piece_counts() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("info-incomplete");
    let _ = std::fs::remove_dir_all(&dir);
    let tables = dir.to_str().expect("utf-8 path");
    let args = [
        "generate",
        "--variant",
        "english",
        "--pieces",
        "3",
        "--quiet",
    ];
    assert!(
        damka(&[&args[..], &["--tables", tables]].concat())
            .status
            .success()
    );
    let info = |dir: &str| stdout(&damka(&["info", "--tables", dir]));
    assert!(!info(tables).contains("incomplete"), "{}", info(tables));
    for kind in ["wdl", "dtc", "rules"] {
        std::fs::remove_file(dir.join("english").join(format!("0201.{kind}"))).expect("a file");
    }
    let text = info(tables);
    assert!(text.contains("\nenglish 3 11 "), "{text}");
    assert!(
        text.ends_with(&format!(
            "\nincomplete: english 3 pieces, 11 of 12 slices: `damka generate --variant \
             english --pieces 3 --tables {tables}` completes it\n"
        )),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).expect("remove the scratch tables");
}

/// `generate` leaves the slices of 5 pieces or more it built compacted as `compact` would: one side to
/// move keeps the win/draw/loss and distance-to-conversion files, the other's are searched;
/// the kept distances leave forced exchanges, even rows and distances of 1 unread. The
/// summary counts the bytes as they end on disk, `verify` finds every value right, and a
/// second run finds the job done.
#[test]
fn generate_compacts_each_job_of_five_pieces() {
    use damka::tablebase::FileKind;
    use damka::tablebase::format::Header;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-compacted");
    let _ = std::fs::remove_dir_all(&dir);
    let tables = dir.to_str().expect("utf-8 path");
    let build = |extra: &[&str]| {
        let mut args = vec![
            "generate",
            "--variant",
            "english",
            "--tables",
            tables,
            "--quiet",
        ];
        args.extend_from_slice(extra);
        let out = damka(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout(&out)
    };
    build(&["--pieces", "4"]);
    let summary = build(&["--slice", "0401"]);
    let header = |key: &str, kind: FileKind| {
        let path = dir
            .join("english")
            .join(format!("{key}.{}", kind.extension()));
        let bytes = std::fs::read(&path).expect("file written");
        (
            Header::from_bytes(&path, &bytes).expect("header"),
            bytes.len() as u64,
        )
    };
    let [a, b] = ["0401", "0104"].map(|k| header(k, FileKind::Wdl).0.searched);
    assert!(a != b, "one side searched: 0401 {a}, 0104 {b}");
    let (searched, kept) = if a {
        ("0401", "0104")
    } else {
        ("0104", "0401")
    };
    assert!(header(searched, FileKind::Dtc).0.searched);
    let dtc = header(kept, FileKind::Dtc).0;
    assert!(dtc.forced_searched && dtc.ones_searched && dtc.even_rows_searched);
    assert!(header(kept, FileKind::Wdl).0.forced_searched);
    let on_disk: u64 = [searched, kept]
        .iter()
        .flat_map(|k| [FileKind::Wdl, FileKind::Dtc, FileKind::Rules].map(|f| header(k, f).1))
        .sum();
    assert!(
        summary.contains(&format!("\nbytes {on_disk} (")),
        "{on_disk} bytes on disk: {summary}"
    );
    let out = damka(&[
        "verify",
        "--tables",
        tables,
        "--variant",
        "english",
        "--slice",
        "0401",
    ]);
    let report = stdout(&out);
    assert!(out.status.success() && report.contains("bad 0"), "{report}");
    let again = build(&["--slice", "0401"]);
    assert!(
        again.starts_with("slices 0 built in 0 jobs, 2 already done"),
        "{again}"
    );
}
