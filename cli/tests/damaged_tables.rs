//! The commands that read tables (`probe`, `verify`, `info`, `analyse`, `play`) given
//! directories that are empty, incomplete or hold files that lie: one clear line naming the
//! file and the field, an exit code, never a panic (exit code 101) or a wrong value.
//!
//! The English tables up to 3 pieces are built once by `damka generate`; those up to 4
//! are the ones the test binaries share.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use damka::Variant;
use damka::notation::{move_text, parse_fen};
use damka::rules::{English, legal_moves};
use damka::tablebase::format::{BLOCK_NUMBER_BYTES, HEADER_SIZE, Header, block_crc};

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

#[path = "../../tests/common/tables.rs"]
mod shared;

/// A copy, under a scratch directory `name`, of the English tables up to 4 pieces that the
/// test binaries share.
fn copy_four(name: &str) -> PathBuf {
    let four = shared::shared_tables(
        Path::new(env!("CARGO_BIN_EXE_damka")),
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        Variant::English,
    );
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join("english")).expect("mkdir");
    for entry in std::fs::read_dir(four.join("english")).expect("tables") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dir.join("english").join(entry.file_name())).expect("copy");
    }
    dir
}

/// The header of a table file's bytes and its blocks as stored (each its number, then its
/// zstd frame).
fn stored_blocks(file: &Path, bytes: &[u8]) -> (Header, Vec<Vec<u8>>) {
    let header = Header::from_bytes(file, bytes).expect("a good header");
    let offset = |i: usize| {
        let at = HEADER_SIZE + 8 * i;
        u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")) as usize
    };
    let blocks = (0..header.blocks as usize)
        .map(|b| bytes[offset(b)..offset(b + 1)].to_vec())
        .collect();
    (header, blocks)
}

/// A table file's bytes: `header` (its table checksum made right, its version `version`),
/// a block table of `blocks`' offsets and the checksums `crcs`, then `blocks` as they are.
fn file_with(mut header: Header, version: u16, blocks: &[Vec<u8>], crcs: &[u32]) -> Vec<u8> {
    let mut table = Vec::new();
    let mut offset = (HEADER_SIZE + header.table_size()) as u64;
    for block in blocks {
        table.extend_from_slice(&offset.to_le_bytes());
        offset += block.len() as u64;
    }
    table.extend_from_slice(&offset.to_le_bytes());
    for crc in crcs {
        table.extend_from_slice(&crc.to_le_bytes());
    }
    header.table_crc = crc32fast::hash(&table);
    let mut bytes = header.to_bytes().to_vec();
    bytes[8..10].copy_from_slice(&version.to_le_bytes());
    if version < 5 {
        // Older versions had no statistics: bytes 85-123 zero.
        bytes[85..124].fill(0);
    }
    let crc = crc32fast::hash(&bytes[..124]);
    bytes[124..128].copy_from_slice(&crc.to_le_bytes());
    bytes.extend_from_slice(&table);
    for block in blocks {
        bytes.extend_from_slice(block);
    }
    bytes
}

/// Every position of slice `key` probed in `dir` (by the library): each answer is the one
/// of the good tables `good`, or an error. Returns the FEN of the first position that
/// errs and the numbers of errors and answers.
fn errors_or_truth(dir: &Path, good: &Path, key: &str) -> (Option<String>, usize, usize) {
    use damka::tablebase::{Material, ProbeError, SliceIndex, Tablebase};
    let (tb, truth) = (
        Tablebase::open(dir).expect("open"),
        Tablebase::open(good).expect("open"),
    );
    let index = SliceIndex::<English>::new(key.parse::<Material>().expect("key"));
    let (mut first, mut errors, mut answers) = (None, 0, 0);
    for frame in (0..index.size()).filter_map(|i| index.unrank(i)) {
        let pos = frame.position::<English>();
        let expected = truth.probe_dtw(&pos).expect("the good tables answer");
        let expected_dtc = truth.probe_dtc(&pos).expect("the good tables answer");
        match tb
            .probe_dtw(&pos)
            .and_then(|o| Ok((o, tb.probe_dtc(&pos)?)))
        {
            Ok((o, dtc)) => {
                let fen = damka::notation::write_fen(&pos);
                assert_eq!(o, expected, "a wrong result for {fen}");
                assert_eq!(
                    dtc, expected_dtc,
                    "a wrong distance to conversion for {fen}"
                );
                answers += 1;
            }
            Err(ProbeError::Table(_)) => {
                errors += 1;
                first.get_or_insert_with(|| damka::notation::write_fen(&pos));
            }
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    (first, errors, answers)
}

#[test]
fn swapped_blocks_give_errors_or_right_answers_and_fail_verify() {
    // Before (format version 4): blocks 0 and 1 exchanged with the block table and checksums
    // rebuilt, `probe` gave wrong results (0220.wdl) and wrong distances (1030.dtw).
    let four = copy_four("swap-source");
    for (key, ext) in [("0220", "wdl"), ("1030", "dtw")] {
        let file = four.join(format!("english/{key}.{ext}"));
        let bytes = std::fs::read(&file).expect("read");
        let (header, blocks) = stored_blocks(&file, &bytes);
        assert!(blocks.len() >= 3, "{key}.{ext}: {} blocks", blocks.len());
        let crc = |b: &Vec<u8>| crc32fast::hash(b);
        let mut swapped = blocks.clone();
        swapped.swap(0, 1);
        // Each block's checksum moved with it; recomputed for its new place as a writer
        // computes it (its place's number, then its frame); recomputed over its bytes.
        let moved_crcs: Vec<u32> = swapped.iter().map(crc).collect();
        let writer_crcs: Vec<u32> = (0u32..)
            .zip(&swapped)
            .map(|(place, b)| block_crc(place, &b[BLOCK_NUMBER_BYTES..]))
            .collect();
        for (case, crcs, what) in [
            (
                "moved",
                &moved_crcs,
                "block 0 damaged: it is block 1, moved here",
            ),
            ("writer", &writer_crcs, "block 0 damaged (checksum mismatch"),
        ] {
            let dir = copy_four(&format!("swap-{key}-{case}"));
            let target = dir.join(format!("english/{key}.{ext}"));
            std::fs::write(&target, file_with(header.clone(), 5, &swapped, crcs)).expect("write");
            let (first, errors, answers) = errors_or_truth(&dir, &four, key);
            assert!(
                errors > 0 && answers > 0,
                "{key}.{ext} {case}: errors {errors}, answers {answers}"
            );
            let fen = first.expect("a position that errs");
            let probe = damka(&["probe", "--variant", "english", "--fen", &fen], &dir);
            assert_eq!(probe.status.code(), Some(1), "{key}.{ext} {case} {fen}");
            let stderr = text(&probe.stderr);
            assert!(
                stderr.contains(&target.display().to_string()) && stderr.contains(what),
                "{key}.{ext} {case}: {stderr}"
            );
            let verify = damka(&["verify", "--variant", "english", "--slice", key], &dir);
            assert_eq!(verify.status.code(), Some(1), "{key}.{ext} {case}");
            let stdout = text(&verify.stdout);
            assert!(
                stdout.contains(&format!("english {key} error: ")) && stdout.contains(what),
                "{key}.{ext} {case}: {stdout}"
            );
        }
    }
}

/// Rewrites the version 5 file `file` as version 4 wrote it: each block its bare zstd frame,
/// with the CRC-32 of the frame; no statistics.
fn as_version_4(file: &Path) {
    let bytes = std::fs::read(file).expect("read");
    let (header, blocks) = stored_blocks(file, &bytes);
    let frames: Vec<Vec<u8>> = blocks
        .iter()
        .map(|b| b[BLOCK_NUMBER_BYTES..].to_vec())
        .collect();
    let crcs: Vec<u32> = frames.iter().map(|f| crc32fast::hash(f)).collect();
    std::fs::write(file, file_with(header, 4, &frames, &crcs)).expect("write");
}

#[test]
fn older_versions_are_refused_naming_the_conversion_which_checks_every_block() {
    let dir = copy_four("version-4");
    let good = copy_four("version-4-good");
    let fen = "W:WK26,K30:B27,28";
    let files: Vec<PathBuf> = ["wdl", "dtw", "dtc", "rules"]
        .iter()
        .map(|ext| dir.join(format!("english/0220.{ext}")))
        .collect();
    for file in &files {
        as_version_4(file);
    }
    let probe = damka(&["probe", "--variant", "english", "--fen", fen], &dir);
    assert_eq!(probe.status.code(), Some(1));
    let stderr = text(&probe.stderr);
    let upgrade = format!("damka compact --upgrade --tables {}", dir.display());
    assert!(
        stderr.contains("0220.wdl: format version 4, whose blocks are not bound to their places")
            && stderr.contains(&upgrade),
        "{stderr}"
    );
    let verify = damka(&["verify", "--variant", "english", "--slice", "0220"], &dir);
    assert_eq!(verify.status.code(), Some(1));
    assert!(
        text(&verify.stdout).contains(&upgrade),
        "{}",
        text(&verify.stdout)
    );
    // `stats` reads the old headers' counts and says what they lack: no zeros.
    let stats = damka(&["stats", "--variant", "english", "--slice", "0220"], &dir);
    assert!(stats.status.success(), "{}", text(&stats.stderr));
    let stdout = text(&stats.stdout);
    assert!(
        stdout.contains("english 0220: no statistics: its files are of format version 4"),
        "{stdout}"
    );
    let cells = |out: &Output| -> Vec<String> {
        let stdout = text(&out.stdout);
        let row = stdout.lines().nth(1).expect("a row");
        row.split_whitespace().map(String::from).collect()
    };
    let (old, right) = (
        cells(&stats),
        cells(&damka(
            &["stats", "--variant", "english", "--slice", "0220"],
            &good,
        )),
    );
    // Positions, the stored counts, not stored and the longest distances are the header's;
    // the resolved counts and examples are not known.
    assert_eq!(old[..7], right[..7]);
    assert_eq!(old[7..10], ["-", "-", "-"]);
    assert_eq!([&old[10], &old[12]], [&right[10], &right[12]]);
    assert_eq!([&old[11], &old[13]], ["-", "-"]);

    // A damaged old block: the conversion stops at it, the file unchanged.
    let damaged = copy_four("version-4-damaged");
    let wdl = damaged.join("english/0220.wdl");
    as_version_4(&wdl);
    let mut bytes = std::fs::read(&wdl).expect("read");
    let last = bytes.len() - 10;
    bytes[last] ^= 0x40;
    std::fs::write(&wdl, &bytes).expect("write");
    let out = damka(&["compact", "--upgrade"], &damaged);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("0220.wdl: block 2 damaged"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&wdl).expect("read"), bytes);

    let out = damka(&["compact", "--upgrade"], &dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for ext in ["wdl", "dtw", "dtc", "rules"] {
        assert!(
            stdout.contains(&format!("english 0220.{ext}: version 4 -> 5: ")),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains("\nfiles converted from versions 2-4 to 5: 4, bytes "),
        "{stdout}"
    );
    let probe = damka(&["probe", "--variant", "english", "--fen", fen], &dir);
    let expected = damka(&["probe", "--variant", "english", "--fen", fen], &good);
    assert!(probe.status.success(), "{}", text(&probe.stderr));
    assert_eq!(text(&probe.stdout), text(&expected.stdout));
    let verify = damka(&["verify", "--variant", "english", "--slice", "0220"], &dir);
    assert_eq!(
        text(&verify.stdout),
        "english 0220 ok\nslices 1, bad 0, missing 0\n"
    );
    let stats = damka(&["stats", "--variant", "english", "--slice", "0220"], &dir);
    assert!(
        text(&stats.stdout)
            .contains("english 0220: no statistics: its files were converted from an older"),
        "{}",
        text(&stats.stdout)
    );
    // Nothing left to convert.
    let again = damka(&["compact", "--upgrade"], &dir);
    assert_eq!(
        text(&again.stdout),
        "files converted from versions 2-4 to 5: 0, bytes 0 -> 0\n"
    );
}

#[test]
fn verify_checks_the_longest_distances_and_statistics_of_the_headers() {
    use damka::tablebase::format::Stats;
    // Each header lies in one field that nothing but `verify` reads: probes stay right.
    type Lie = fn(&mut Header);
    let cases: [(&str, &str, Lie); 4] = [
        (
            "0201.wdl",
            "bad wdl header: capture positions won, drawn, lost (bytes 88-111) ",
            |h| {
                if let Some(Stats::Captures { wins, draws, .. }) = &mut h.stats {
                    (*wins, *draws) = (*wins - 1, *draws + 1);
                }
            },
        ),
        (
            "0201.dtc",
            "bad dtc header: first position at the longest distance (bytes 88-95) index 0, the \
             values' is index ",
            |h| h.stats = Some(Stats::LongestAt(Some(0))),
        ),
        (
            "0201.wdl",
            "bad wdl header: longest distance (bytes 18-19) 0, the distance to the end's is ",
            |h| h.max_dtw = 0,
        ),
        (
            "0201.dtw",
            "bad dtw header: longest distance (bytes 18-19) 200, the values' longest is ",
            |h| h.max_dtw = 200,
        ),
    ];
    for (file, what, change) in cases {
        let dir = copy(&format!("lying-{}", file.replace('.', "-")));
        craft_header(&dir.join("english").join(file), change);
        let out = damka(&["verify", "--variant", "english", "--slice", "0201"], &dir);
        assert_eq!(out.status.code(), Some(1), "{file}");
        let stdout = text(&out.stdout);
        assert!(
            stdout.starts_with(&format!("english 0201 {what}")),
            "{file}: {stdout}"
        );
    }
}
