//! Table files that lie: headers crafted with valid checksums, blocks swapped, altered or cut
//! off, files truncated while a `Tablebase` has them open. Every probe gives an error or the
//! value of the good tables, never a panic or a wrong value; `verify` sees what a header
//! cannot show. A property test crafts headers and damages files at random (fixed seed,
//! bounded count; a longer run is `#[ignore]`d).
//!
//! The English tables up to 4 pieces are built once into the test target directory.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use damka::rules::English;
use damka::tablebase::format::{BLOCK_NUMBER_BYTES, FileKind, HEADER_SIZE, Header, assemble};
use damka::tablebase::{
    Access, Material, Outcome, ProbeError, RuleResult, SliceCheck, SliceIndex, Store, TableError,
    Tablebase, Wdl, build_job, plan, verify_slice,
};
use damka::{Variant, notation::parse_fen};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("table-files-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// The good English tables up to 4 pieces.
fn good() -> &'static Tablebase {
    static GOOD: OnceLock<Tablebase> = OnceLock::new();
    GOOD.get_or_init(|| {
        let dir = scratch("good");
        let tb = Tablebase::open(&dir).expect("tables directory");
        for job in plan(4, 12) {
            build_job::<English>(
                &job,
                &tb,
                damka::tablebase::Contents::every_kind(damka::RuleSet::default_for(
                    damka::Variant::English,
                )),
                &damka::tablebase::Silent,
            )
            .expect("slice builds");
        }
        Tablebase::open(&dir).expect("built tables")
    })
}

/// A copy of the good tables to damage.
fn copy(name: &str) -> PathBuf {
    let dir = scratch(name);
    let from = good().dir().join("english");
    std::fs::create_dir_all(dir.join("english")).expect("mkdir");
    for entry in std::fs::read_dir(&from).expect("read dir") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dir.join("english").join(entry.file_name())).expect("copy");
    }
    dir
}

fn key(text: &str) -> Material {
    text.parse().expect("slice key")
}

fn path(dir: &Path, m: Material, kind: FileKind) -> PathBuf {
    Store::path_in(dir, Variant::English, m, kind)
}

/// Rewrites the header of a file, its checksum made valid again.
fn craft_header(file: &Path, change: impl FnOnce(&mut Header)) {
    let mut bytes = std::fs::read(file).expect("read");
    let mut header = Header::from_bytes(file, &bytes).expect("a good header");
    change(&mut header);
    bytes[..HEADER_SIZE].copy_from_slice(&header.to_bytes());
    std::fs::write(file, bytes).expect("write");
}

/// The header and stored blocks (each its number, then its zstd frame) of a good file.
fn stored_blocks_of(file: &Path) -> (Header, Vec<Vec<u8>>) {
    let bytes = std::fs::read(file).expect("read");
    let header = Header::from_bytes(file, &bytes).expect("a good header");
    let n = header.blocks as usize;
    let offset = |i: usize| {
        let at = HEADER_SIZE + 8 * i;
        u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")) as usize
    };
    let blocks = (0..n)
        .map(|b| bytes[offset(b)..offset(b + 1)].to_vec())
        .collect();
    (header, blocks)
}

/// The header and blocks' zstd frames of a good file.
fn blocks_of(file: &Path) -> (Header, Vec<Vec<u8>>) {
    let (header, stored) = stored_blocks_of(file);
    let frames = stored
        .into_iter()
        .map(|b| b[BLOCK_NUMBER_BYTES..].to_vec())
        .collect();
    (header, frames)
}

/// Every position of slice `m` with its outcome in the good tables.
fn truth(m: Material) -> Vec<(damka::rules::Position<English>, Outcome)> {
    let index = SliceIndex::<English>::new(m);
    (0..index.size())
        .filter_map(|i| index.unrank(i))
        .map(|f| {
            let pos = f.position::<English>();
            (pos, good().probe_dtw(&pos).expect("good tables"))
        })
        .collect()
}

/// Probes every position of slice `m` under `dir`: each answer must be the good one. Returns
/// (errors, answers).
fn errors_or_truth(tb: &Tablebase, m: Material) -> (usize, usize) {
    let (mut errors, mut answers) = (0, 0);
    for (pos, expected) in truth(m) {
        match tb.probe_dtw(&pos) {
            Ok(o) => {
                assert_eq!(
                    o,
                    expected,
                    "a wrong value for {}",
                    damka::notation::write_fen(&pos)
                );
                answers += 1;
            }
            Err(ProbeError::Table(_)) => errors += 1,
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    (errors, answers)
}

/// Opening the file of `m` and `kind` fails, naming the file and containing `what`.
fn refused(dir: &Path, m: Material, kind: FileKind, what: &str) {
    let tb = Tablebase::open(dir).expect("open");
    let e = tb
        .table(Variant::English, m, kind)
        .expect_err("a crafted file is refused");
    let text = e.to_string();
    assert!(
        text.starts_with(&path(dir, m, kind).display().to_string()) && text.contains(what),
        "{text}"
    );
    let (errors, answers) = errors_or_truth(&tb, m);
    assert!(errors > 0, "errors {errors}, answers {answers}");
    assert_eq!(tb.take_damage().len(), 1, "said once");
    assert!(tb.take_damage().is_empty());
}

#[test]
fn a_header_with_no_blocks_is_refused() {
    // Before: `blocks - 1` underflowed and `probe`, `verify`, `info`, `analyse` panicked.
    let dir = copy("no-blocks");
    let m = key("1101");
    craft_header(&path(&dir, m, FileKind::Wdl), |h| {
        h.positions = 0;
        h.blocks = 0;
    });
    refused(&dir, m, FileKind::Wdl, "header field positions");
}

#[test]
fn a_position_count_off_by_one_is_refused() {
    // Before: `verify` indexed past the decoded values and panicked.
    let dir = copy("positions");
    let m = key("1101");
    craft_header(&path(&dir, m, FileKind::Dtw), |h| h.positions -= 1);
    refused(&dir, m, FileKind::Dtw, "header field positions");
    let tb = Tablebase::open(&dir).expect("open");
    assert!(matches!(
        verify_slice::<English>(&tb, m),
        Err(ProbeError::Table(TableError::Mismatch(..)))
    ));
}

#[test]
fn an_8_bit_distance_file_relabelled_16_bit_is_refused() {
    // Before: distances were read two bytes at a time: wrong values, and `verify` panicked.
    let dir = copy("relabelled");
    let m = key("1101");
    let file = path(&dir, m, FileKind::Dtw);
    craft_header(&file, |h| {
        assert_eq!(h.value_bits, 8);
        h.value_bits = 16;
    });
    refused(&dir, m, FileKind::Dtw, "header field value bits");
    // With a longest distance that needs 16 bits, the blocks decode to half their length.
    craft_header(&file, |h| h.max_dtw = 300);
    let tb = Tablebase::open(&dir).expect("open");
    let (errors, answers) = errors_or_truth(&tb, m);
    assert!(errors > 0, "errors {errors}, answers {answers}");
    assert!(
        tb.take_damage()[0].contains("decodes to"),
        "a block of the wrong length"
    );
}

#[test]
fn every_other_lying_header_field_is_refused() {
    let m = key("1101");
    /// A name, the file, the lie, and what the error says.
    type Case = (&'static str, FileKind, fn(&mut Header), &'static str);
    let cases: [Case; 8] = [
        (
            "kind",
            FileKind::Wdl,
            |h| h.kind = FileKind::Dtw,
            "header field kind",
        ),
        (
            "variant",
            FileKind::Wdl,
            |h| h.variant = Variant::Italian,
            "header field variant",
        ),
        (
            "material",
            FileKind::Dtw,
            |h| h.material = Material::new(1, 2, 0, 1),
            "header field material",
        ),
        (
            "bits",
            FileKind::Wdl,
            |h| h.value_bits = 8,
            "header field value bits",
        ),
        (
            "huge-blocks",
            FileKind::Dtw,
            |h| {
                h.block_positions = u32::MAX - 7;
                h.blocks = 1;
            },
            "header field positions per block",
        ),
        (
            "block-count",
            FileKind::Dtw,
            |h| h.blocks += 1,
            "header field blocks",
        ),
        (
            "counts",
            FileKind::Wdl,
            |h| h.wins += 1,
            "header field counts",
        ),
        (
            "block-size",
            FileKind::Wdl,
            |h| h.block_positions = 12,
            "header field positions per block",
        ),
    ];
    for (name, kind, change, what) in cases {
        let dir = copy(&format!("field-{name}"));
        craft_header(&path(&dir, m, kind), change);
        refused(&dir, m, kind, what);
    }
}

#[test]
fn counts_that_add_up_but_lie_are_found_by_verify() {
    let dir = copy("counts");
    let m = key("1101");
    craft_header(&path(&dir, m, FileKind::Dtw), |h| {
        h.wins += 1;
        h.unused -= 1;
    });
    let tb = Tablebase::open(&dir).expect("open");
    assert_eq!(errors_or_truth(&tb, m).0, 0, "values are still right");
    match verify_slice::<English>(&tb, m).expect("verifies") {
        SliceCheck::Counts {
            kind,
            header,
            counted,
        } => {
            assert_eq!(kind, FileKind::Dtw);
            assert_eq!(header[0], counted[0] + 1);
            assert_eq!(header[3] + 1, counted[3]);
        }
        other => panic!("expected bad counts, got {other:?}"),
    }
    assert_eq!(
        verify_slice::<English>(good(), m).expect("good"),
        SliceCheck::Ok
    );
}

#[test]
fn swapped_blocks_are_errors_or_found_by_verify() {
    let m = key("2101");
    let (header, blocks) = blocks_of(&path(good().dir(), m, FileKind::Dtw));
    let (_, stored) = stored_blocks_of(&path(good().dir(), m, FileKind::Dtw));
    assert!(blocks.len() >= 3, "{} blocks", blocks.len());
    let full = path(good().dir(), m, FileKind::Dtw);
    let bytes = std::fs::read(&full).expect("read");

    // The bytes of blocks 0 and 1 swapped, the block table left: checksums fail.
    let dir = copy("swap-bytes");
    let mut swapped = stored.clone();
    swapped.swap(0, 1);
    let table_end = HEADER_SIZE + header.table_size();
    let mut moved = bytes[..table_end].to_vec();
    swapped.iter().for_each(|b| moved.extend_from_slice(b));
    std::fs::write(path(&dir, m, FileKind::Dtw), &moved).expect("write");
    let tb = Tablebase::open(&dir).expect("open");
    let (errors, answers) = errors_or_truth(&tb, m);
    assert!(
        errors > 0 && answers > 0,
        "errors {errors}, answers {answers}"
    );

    // The offsets and checksums swapped too (the table's checksum made valid): the offsets
    // no longer increase.
    let dir = copy("swap-table");
    let mut t = moved[..table_end].to_vec();
    let n = blocks.len();
    let starts: Vec<u64> = {
        let mut s: Vec<u64> = (0..=n)
            .map(|i| u64::from_le_bytes(t[HEADER_SIZE + 8 * i..][..8].try_into().unwrap()))
            .collect();
        // Block 1 (now first in the file) starts where block 0 did.
        let len1 = blocks[1].len() as u64;
        s.swap(0, 1);
        s[0] = s[1] + len1;
        s[1] = table_end as u64;
        s
    };
    for (i, s) in starts.iter().enumerate() {
        t[HEADER_SIZE + 8 * i..][..8].copy_from_slice(&s.to_le_bytes());
    }
    let crcs = HEADER_SIZE + 8 * (n + 1);
    let (a, b) = (crcs, crcs + 4);
    let (c0, c1) = (t[a..a + 4].to_vec(), t[b..b + 4].to_vec());
    t[a..a + 4].copy_from_slice(&c1);
    t[b..b + 4].copy_from_slice(&c0);
    let mut h = header.clone();
    h.table_crc = crc32fast::hash(&t[HEADER_SIZE..]);
    t[..HEADER_SIZE].copy_from_slice(&h.to_bytes());
    t.extend_from_slice(&moved[table_end..]);
    std::fs::write(path(&dir, m, FileKind::Dtw), &t).expect("write");
    refused(&dir, m, FileKind::Dtw, "block table: block 0 starts at");

    // Two blocks' frames exchanged before a writer numbered them (a writer's mistake, not
    // damage: moved blocks name their own numbers, cli/tests/damaged_tables.rs) and the
    // whole file written consistently: a file that says nothing false about itself, holding
    // other values. Only `verify`, which checks every value against the moves, can tell.
    let dir = copy("swap-rebuilt");
    let mut rebuilt = blocks.clone();
    rebuilt.swap(0, 1);
    std::fs::write(path(&dir, m, FileKind::Dtw), assemble(header, &rebuilt)).expect("write");
    let tb = Tablebase::open(&dir).expect("open");
    assert!(
        matches!(verify_slice::<English>(&tb, m), Ok(SliceCheck::Bad { .. })),
        "verify finds the exchanged blocks"
    );
}

#[test]
fn a_wrong_distance_to_conversion_is_found_by_verify() {
    // 2101's placements are small (870 arrangements of its kings): its levels' distances
    // are held. 1201's have 13,485: the verify reads them from the file as it checks.
    wrong_distance_to_conversion_found("2101");
    wrong_distance_to_conversion_found("1201");
}

/// Puts one distance to conversion of slice `slice` one ply off and checks that `verify`
/// finds it there (the slice's positions move into its twin, whose values are right).
fn wrong_distance_to_conversion_found(slice: &str) {
    let m = key(slice);
    assert!(!m.is_symmetric());
    let dir = copy(&format!("dtc-off-by-one-{slice}"));
    let file = path(&dir, m, FileKind::Dtc);
    let (header, mut blocks) = blocks_of(&file);
    let mut raw = zstd::bulk::decompress(&blocks[0], header.block_bytes()).expect("decodes");
    assert_eq!(header.value_bits, 8);
    // The first won or lost position without a capture in block 0, one ply further.
    let index = SliceIndex::<English>::new(m);
    let i = (0..header.block_positions as u64)
        .find(|&i| {
            index.unrank(i).is_some_and(|f| {
                let pos = f.position::<English>();
                !damka::rules::legal_moves(&pos)
                    .iter()
                    .any(|m| m.mv.is_capture())
                    && good().probe_wdl(&pos).expect("good") != Wdl::Draw
            })
        })
        .expect("a decided position");
    let good_dtc = raw[i as usize];
    raw[i as usize] = if good_dtc < header.max_dtw as u8 {
        good_dtc + 1
    } else {
        good_dtc - 1
    };
    blocks[0] = zstd::bulk::compress(&raw, 3).expect("compresses");
    std::fs::write(&file, assemble(header, &blocks)).expect("write");
    let tb = Tablebase::open(&dir).expect("open");
    let pos = index.unrank(i).expect("a position").position::<English>();
    assert_ne!(tb.probe_dtc(&pos).unwrap(), Some(u16::from(good_dtc)));
    assert_eq!(
        verify_slice::<English>(&tb, m).expect("verify runs"),
        SliceCheck::BadDtc {
            index: i,
            stored: u16::from(raw[i as usize]),
            expected: u16::from(good_dtc),
        }
    );
}

#[test]
fn a_wrong_rule_result_is_found_by_verify() {
    let m = key("2101");
    let dir = copy("rules-off-by-one");
    let file = path(&dir, m, FileKind::Rules);
    let (header, mut blocks) = blocks_of(&file);
    let mut raw = zstd::bulk::decompress(&blocks[0], header.block_bytes()).expect("decodes");
    assert_eq!((header.value_bits, header.rule_set), (8, 1));
    // The first position of block 0 won under the rules in more than 1 ply: one ply more.
    let i = raw
        .iter()
        .position(|&c| c >= 5 && c % 2 == 1 && c < header.max_dtw as u8)
        .expect("a win under the rules") as u64;
    let good_code = raw[i as usize];
    raw[i as usize] += 2;
    blocks[0] = zstd::bulk::compress(&raw, 3).expect("compresses");
    std::fs::write(&file, assemble(header, &blocks)).expect("write");
    let tb = Tablebase::open(&dir).expect("open");
    assert_eq!(
        verify_slice::<English>(&tb, m).expect("verify runs"),
        SliceCheck::BadRules {
            index: i,
            stored: RuleResult::from_code(u16::from(good_code) + 2),
            expected: RuleResult::from_code(u16::from(good_code)),
        }
    );
}

#[test]
fn blocks_recompressed_with_impossible_values_are_errors() {
    let m = key("2101");
    for (kind, value) in [(FileKind::Wdl, 0xFFu8), (FileKind::Dtw, 0xFE)] {
        let dir = copy(&format!("values-{}", kind.extension()));
        let file = path(&dir, m, kind);
        let (header, mut blocks) = blocks_of(&file);
        let raw = zstd::bulk::decompress(&blocks[0], header.block_bytes()).expect("decodes");
        // Every entry code 3 (WDL) or a distance of 254, past the longest.
        blocks[0] = zstd::bulk::compress(&vec![value; raw.len()], 3).expect("compresses");
        assert!(header.max_dtw < 254);
        std::fs::write(&file, assemble(header, &blocks)).expect("write");
        let tb = Tablebase::open(&dir).expect("open");
        let (errors, _) = errors_or_truth(&tb, m);
        assert!(errors > 0);
        let said = tb.take_damage();
        assert!(
            said[0].contains("block 0 damaged: entry 0 holds"),
            "{said:?}"
        );
    }
}

#[test]
fn a_file_truncated_or_replaced_while_open_gives_errors_or_right_answers() {
    let dir = copy("truncated");
    let (a, b) = (key("2101"), key("1201"));
    // A small cache, so that blocks are read after the files change. The first positions
    // open the files; their other blocks are read only after the change.
    let tb = Tablebase::with_access(&dir, 64 << 10, Access::Read).expect("open");
    for m in [a, b] {
        for (pos, expected) in truth(m).into_iter().take(1000) {
            assert_eq!(tb.probe_dtw(&pos).expect("good tables"), expected);
        }
    }
    let cut = |file: &Path, len: u64| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(file)
            .and_then(|f| f.set_len(len))
            .expect("truncate");
    };
    // A rebuild cutting a file short under the open table.
    let dtw = path(&dir, a, FileKind::Dtw);
    cut(&dtw, std::fs::metadata(&dtw).expect("dtw").len() / 2);
    let (errors, answers) = errors_or_truth(&tb, a);
    assert!(
        errors > 0 && answers > 0,
        "errors {errors}, answers {answers}"
    );
    // Emptied, then copied over with the file of another slice.
    let wdl = path(&dir, b, FileKind::Wdl);
    cut(&wdl, 0);
    assert!(errors_or_truth(&tb, b).0 > 0);
    std::fs::copy(path(&dir, a, FileKind::Wdl), &wdl).expect("copy over");
    assert!(errors_or_truth(&tb, b).0 > 0);
    let said = tb.take_damage();
    assert_eq!(said.len(), 2, "each file said once: {said:?}");
    assert!(said[0].starts_with(&dtw.display().to_string()), "{said:?}");
    assert!(said[1].starts_with(&wdl.display().to_string()), "{said:?}");
    assert!(
        said.iter().all(|s| s.ends_with("file truncated")),
        "{said:?}"
    );
    // Copied back whole: right answers again.
    std::fs::copy(path(good().dir(), a, FileKind::Dtw), &dtw).expect("copy back");
    std::fs::copy(path(good().dir(), b, FileKind::Wdl), &wdl).expect("copy back");
    for m in [a, b] {
        assert_eq!(errors_or_truth(&tb, m), (0, truth(m).len()));
    }
}

#[test]
fn memory_mapped_tables_give_the_same_answers() {
    let tb = Tablebase::with_access(good().dir(), 1 << 20, Access::Map).expect("open");
    let m = key("2101");
    assert_eq!(errors_or_truth(&tb, m), (0, truth(m).len()));
    let t = tb.table(Variant::English, m, FileKind::Wdl).expect("open");
    assert_eq!(t.access(), Access::Map);
    let fen = "W:WK19,K23:BK28";
    let pos = parse_fen::<English>(fen).expect("fen");
    assert_eq!(tb.probe_wdl(&pos).expect("probe"), Wdl::Win);
}

/// One way to damage a file at random.
#[derive(Clone, Debug)]
enum Damage {
    /// A header field (bytes 10-71) set to a value, the header checksum made valid.
    Field { at: usize, width: usize, value: u64 },
    /// A byte anywhere changed (no checksum fixed).
    Byte { at: usize, xor: u8 },
    /// The file cut at a fraction of its length.
    Cut { per_mille: u64 },
}

fn damage() -> impl Strategy<Value = Damage> {
    // The fields: kind, variant, material, index scheme, value bits, max distance, block
    // size, positions, blocks, table CRC, counts.
    let fields = prop::sample::select(vec![
        (10, 1),
        (11, 1),
        (12, 1),
        (13, 1),
        (14, 1),
        (15, 1),
        (16, 1),
        (17, 1),
        (18, 2),
        (20, 4),
        (24, 8),
        (32, 4),
        (36, 4),
        (40, 8),
        (48, 8),
        (56, 8),
        (64, 8),
    ]);
    let values = prop_oneof![
        0u64..20,
        Just(u64::MAX),
        Just(u32::MAX as u64),
        any::<u64>(),
        (0u64..70_000)
    ];
    prop_oneof![
        (fields, values).prop_map(|((at, width), value)| Damage::Field { at, width, value }),
        (any::<usize>(), 1u8..=255).prop_map(|(at, xor)| Damage::Byte { at, xor }),
        (0u64..1000).prop_map(|per_mille| Damage::Cut { per_mille }),
    ]
}

fn apply(bytes: &mut Vec<u8>, d: &Damage) {
    match *d {
        Damage::Field { .. } | Damage::Byte { .. } if bytes.len() < HEADER_SIZE => {}
        Damage::Field { at, width, value } => {
            bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
            let crc = crc32fast::hash(&bytes[..124]);
            bytes[124..128].copy_from_slice(&crc.to_le_bytes());
        }
        Damage::Byte { at, xor } => {
            let n = bytes.len();
            bytes[at % n] ^= xor;
        }
        Damage::Cut { per_mille } => {
            let n = bytes.len() as u64 * per_mille / 1000;
            bytes.truncate(n as usize);
        }
    }
}

/// Damages one file of a small slice and checks every probe of it.
fn damaged_file_gives_errors_or_truth(kind: FileKind, damage: &[Damage], dir: &Path) {
    let m = key("1101");
    let file = path(dir, m, kind);
    let mut bytes = std::fs::read(path(good().dir(), m, kind)).expect("read");
    for d in damage {
        apply(&mut bytes, d);
    }
    std::fs::write(&file, &bytes).expect("write");
    let tb = Tablebase::with_cache(dir, 1 << 20).expect("open");
    errors_or_truth(&tb, m);
    let _ = verify_slice::<English>(&tb, m);
    std::fs::copy(path(good().dir(), m, kind), &file).expect("restore");
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(14),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(48))]
    #[test]
    fn fuzzed_table_files_give_errors_or_right_values(
        wdl in any::<bool>(),
        damage in prop::collection::vec(damage(), 1..4),
    ) {
        static DIR: OnceLock<PathBuf> = OnceLock::new();
        let dir = DIR.get_or_init(|| copy("fuzz"));
        let kind = if wdl { FileKind::Wdl } else { FileKind::Dtw };
        damaged_file_gives_errors_or_truth(kind, &damage, dir);
    }
}

proptest! {
    #![proptest_config(config(2000))]
    #[test]
    #[ignore = "long fuzz run (2000 damaged files, minutes): cargo test --release --test table_files -- --ignored"]
    fn fuzzed_table_files_long_run(
        wdl in any::<bool>(),
        damage in prop::collection::vec(damage(), 1..6),
    ) {
        static DIR: OnceLock<PathBuf> = OnceLock::new();
        let dir = DIR.get_or_init(|| copy("fuzz-long"));
        let kind = if wdl { FileKind::Wdl } else { FileKind::Dtw };
        damaged_file_gives_errors_or_truth(kind, &damage, dir);
    }
}

#[test]
fn a_failed_build_leaves_no_tmp_file() {
    let dir = scratch("failed-build");
    let tb = Tablebase::open(&dir).expect("tables directory");
    let job = plan(2, 12).remove(0);
    let m = job.slices[0];
    // The distance file's temporary name is taken by a directory: its write fails after
    // the win/draw/loss file's was written.
    let blocker = damka::files::temporary_path(&dir.join(format!("english/{m}.dtw")));
    std::fs::create_dir_all(&blocker).expect("mkdir");
    assert!(
        build_job::<English>(
            &job,
            &tb,
            damka::tablebase::Contents::every_kind(damka::RuleSet::default_for(
                damka::Variant::English
            )),
            &damka::tablebase::Silent
        )
        .is_err()
    );
    let left: Vec<String> = std::fs::read_dir(dir.join("english"))
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p != &blocker)
        .map(|p| p.display().to_string())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
