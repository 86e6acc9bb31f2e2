//! The commands that read tables (`probe`, `verify`, `info`, `analyse`, `play`) given
//! directories that are empty, incomplete or hold files that lie: one clear line naming the
//! file and the field, an exit code, never a panic (exit code 101) or a wrong value.
//!
//! The English tables up to 3 pieces are built once by `damka generate`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use damka::Variant;
use damka::notation::{move_text, parse_fen};
use damka::rules::{English, legal_moves};
use damka::tablebase::format::{HEADER_SIZE, Header};

fn damka(args: &[&str], tables: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(args)
        .arg("--tables")
        .arg(tables)
        .output()
        .expect("damka runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("damaged-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    dir
}

fn good() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("good");
        let out = damka(
            &[
                "generate",
                "--variant",
                "english",
                "--pieces",
                "3",
                "--quiet",
                "--dtw",
            ],
            &dir,
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        dir
    })
}

fn copy(name: &str) -> PathBuf {
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join("english")).expect("mkdir");
    for entry in std::fs::read_dir(good().join("english")).expect("tables") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dir.join("english").join(entry.file_name())).expect("copy");
    }
    dir
}

fn craft_header(file: &Path, change: impl FnOnce(&mut Header)) {
    let mut bytes = std::fs::read(file).expect("read");
    let mut header = Header::from_bytes(file, &bytes).expect("a good header");
    change(&mut header);
    bytes[..HEADER_SIZE].copy_from_slice(&header.to_bytes());
    std::fs::write(file, bytes).expect("write");
}

#[test]
fn verify_with_nothing_or_not_everything_to_verify_exits_1() {
    // Before: "slices 0, bad 0" and exit code 0.
    let empty = scratch("empty");
    let out = damka(&["verify"], &empty);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "slices 0, bad 0, missing 0\n");
    assert!(
        text(&out.stderr).contains("no tables to verify"),
        "{}",
        text(&out.stderr)
    );

    let dir = copy("incomplete");
    for file in ["1101.wdl", "1101.dtw", "0201.dtw"] {
        std::fs::remove_file(dir.join("english").join(file)).expect("remove");
    }
    let out = damka(&["verify"], &dir);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("english 1101 missing\n"), "{stdout}");
    // Nor can their twins, nor the slices whose captures lead into them.
    for slice in ["0201", "0102", "0111", "1002", "1011"] {
        assert!(
            stdout.contains(&format!("english {slice} error: ")),
            "{stdout}"
        );
    }
    assert!(
        stdout.ends_with("slices 15, bad 5, missing 1\n"),
        "{stdout}"
    );
    assert!(text(&out.stderr).contains("5 slices failed verification"));

    let out = damka(&["verify"], good());
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert!(text(&out.stdout).ends_with("slices 16, bad 0, missing 0\n"));
}

#[test]
fn verify_in_parts_checks_and_counts_only_the_slices_asked_for() {
    // Large tables are verified a few slices at a time; what is not asked for is not read.
    let dir = copy("parts");
    for file in ["1101.wdl", "1101.dtw", "1101.dtc", "1101.rules"] {
        std::fs::remove_file(dir.join("english").join(file)).expect("remove");
    }
    let asked = [
        "verify",
        "--variant",
        "english",
        "--slice",
        "1001",
        "--slice",
        "0201",
    ];
    let out = damka(&asked, &dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "english 1001 ok\nenglish 0201 ok\nslices 2, bad 0, missing 0\n"
    );

    let out = damka(&["verify", "--variant", "english", "--slice", "1101"], &dir);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "english 1101 missing\nslices 0, bad 0, missing 1\n"
    );
    // The twin of a slice it cannot read is reported, not the slice the twin's files lack.
    let out = damka(&["verify", "--variant", "english", "--slice", "0111"], &dir);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("english 0111 error: "), "{stdout}");
    assert!(stdout.ends_with("slices 1, bad 1, missing 0\n"), "{stdout}");

    let out = damka(&["verify", "--slice", "0201"], &dir);
    assert_eq!(out.status.code(), Some(2), "a slice needs its variant");
    assert!(
        text(&out.stderr).contains("--variant"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_header_with_no_blocks_is_an_error_in_every_command() {
    // Before: `probe`, `verify`, `info` and `analyse` panicked (index out of range).
    let dir = copy("no-blocks");
    let file = dir.join("english/0201.wdl");
    craft_header(&file, |h| {
        h.positions = 0;
        h.blocks = 0;
    });
    let named =
        |s: &str| s.contains(&file.display().to_string()) && s.contains("header field positions");
    let fen = "W:WK19,K23:BK28";
    let probe = damka(&["probe", "--variant", "english", "--fen", fen], &dir);
    assert_eq!(probe.status.code(), Some(1));
    assert!(named(&text(&probe.stderr)), "{}", text(&probe.stderr));
    let verify = damka(&["verify"], &dir);
    assert_eq!(verify.status.code(), Some(1));
    assert!(named(&text(&verify.stdout)), "{}", text(&verify.stdout));
    let info = damka(&["info"], &dir);
    assert_eq!(info.status.code(), Some(1));
    assert!(named(&text(&info.stderr)), "{}", text(&info.stderr));

    // The analyser says so once and analyses the game without that table.
    let game = dir.join("game.pdn");
    let mut pos = parse_fen::<English>(fen).expect("fen");
    let mut moves = Vec::new();
    for _ in 0..3 {
        let legal = legal_moves(&pos);
        moves.push(move_text(Variant::English, &legal, 0));
        pos = pos.play(&legal[0].mv);
    }
    std::fs::write(
        &game,
        format!(
            "[GameType \"21\"]\n[FEN \"{fen}\"]\n1. {} {} 2. {} *\n",
            moves[0], moves[1], moves[2]
        ),
    )
    .expect("write");
    let analyse = Command::new(env!("CARGO_BIN_EXE_damka"))
        .arg("analyse")
        .arg("--tables")
        .arg(&dir)
        .arg(&game)
        .output()
        .expect("damka runs");
    let stderr = text(&analyse.stderr);
    assert!(analyse.status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("header field positions").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("analysed without it"), "{stderr}");
    assert!(stderr.contains("games 1, reaching the tables "), "{stderr}");
    assert!(stderr.contains(", not analysed to the end 0,"), "{stderr}");
}

#[test]
fn a_distance_file_relabelled_16_bit_gives_no_distance() {
    // Before: `probe` printed `win 1029` where the truth is 7 plies.
    let dir = copy("relabelled");
    let fen = "W:WK19,K23:BK28";
    let good_probe = damka(&["probe", "--variant", "english", "--fen", fen], good());
    assert!(good_probe.status.success());
    for file in ["0201.dtw", "0102.dtw"] {
        craft_header(&dir.join("english").join(file), |h| h.value_bits = 16);
    }
    let out = damka(&["probe", "--variant", "english", "--fen", fen], &dir);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("header field value bits (byte 17): 16"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn play_with_a_zeroed_table_says_so_and_searches() {
    // Before: the zeroed file was ignored without a word.
    let dir = copy("zeroed");
    let file = dir.join("english/0201.wdl");
    let len = std::fs::metadata(&file).expect("file").len() as usize;
    std::fs::write(&file, vec![0u8; len]).expect("write");
    let out = damka(
        &[
            "play",
            "--variant",
            "english",
            "--fen",
            "W:WK19,K23:BK28",
            "--depth",
            "4",
        ],
        &dir,
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(text(&out.stdout).starts_with("bestmove "));
    assert_eq!(
        stderr,
        format!(
            "warning: {}: not a damka table file; searched without it\n",
            file.display()
        )
    );
}
