//! One side to move, positions unread and rule results derived (`tablebase::one_side`,
//! `leave_unread`, `derive_rules`, `damka compact`): tables where one slice of each pair is
//! searched, the others leave their forced exchanges unread (and, in English, the kept
//! distances on even rows) and rules files derive their results where they may give every
//! position the answers of the full tables, pass `verify`, take fewer bytes, and a build of
//! more pieces on them writes the files it writes on the full tables; a second run changes
//! nothing; a searched file with blocks, or both sides searched, is an error,
//! never a wrong value.

use std::path::{Path, PathBuf};

use damka::rules::Counters;
use damka::rules::{English, Rules, Russian};
use damka::tablebase::format::{
    BLOCK_NUMBER_BYTES, FileKind, HEADER_SIZE, Header, RulesDerived, assemble, pack, unpack,
};
use damka::tablebase::{
    Material, ProbeError, SliceCheck, SliceIndex, Store, TableError, Tablebase, build_job,
    derive_rules, even_rows, forced_exchange, leave_unread, one_side, plan, rows_alternate,
    verify_slice,
};
use damka::{RuleSet, Variant};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("one-side-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Builds the tables of `R` up to `pieces` pieces into `dir`; returns the slices.
fn build<R: Rules>(dir: &Path, pieces: u32) -> Vec<Material> {
    let tb = Tablebase::open(dir).expect("tables directory");
    let mut slices = Vec::new();
    for job in plan(pieces, R::MEN) {
        build_job::<R>(
            &job,
            &tb,
            damka::tablebase::Contents::every_kind(RuleSet::default_for(R::VARIANT)),
            &damka::tablebase::Silent,
        )
        .expect("slice builds");
        slices.extend(job.slices);
    }
    slices
}

/// A copy of the tables of `variant` under `from`.
fn copy(from: &Path, name: &str, variant: Variant) -> PathBuf {
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join(variant.name())).expect("mkdir");
    for entry in std::fs::read_dir(from.join(variant.name())).expect("read dir") {
        let entry = entry.expect("entry");
        std::fs::copy(
            entry.path(),
            dir.join(variant.name()).join(entry.file_name()),
        )
        .expect("copy");
    }
    dir
}

/// Bytes of the win/draw/loss and distance files of `variant` under `dir`.
fn bytes(dir: &Path, variant: Variant, slices: &[Material]) -> u64 {
    slices
        .iter()
        .flat_map(|&m| [FileKind::Wdl, FileKind::Dtw].map(|k| Store::path_in(dir, variant, m, k)))
        .map(|p| std::fs::metadata(p).expect("file").len())
        .sum()
}

/// Every index of every slice: the same outcome with its distance, distance to conversion
/// and result under the rules from both directories, through the cached path too.
fn same_answers<R: Rules>(full: &Tablebase, searched: &Tablebase, slices: &[Material]) -> u64 {
    let rules = RuleSet::default_for(R::VARIANT);
    let mut positions = 0;
    for &m in slices {
        let index = SliceIndex::<R>::new(m);
        for f in (0..index.size()).filter_map(|i| index.unrank(i)) {
            let pos = f.position::<R>();
            let expected = full.probe_dtw(&pos).expect("full tables");
            assert_eq!(searched.probe_dtw(&pos).expect("searched tables"), expected);
            assert_eq!(searched.resolve_cached(&pos, true), Some(expected));
            assert_eq!(
                searched.resolve_cached(&pos, false).map(|o| o.wdl),
                Some(expected.wdl)
            );
            assert_eq!(
                searched.probe_dtc(&pos).expect("dtc"),
                full.probe_dtc(&pos).expect("dtc")
            );
            let rule = full.probe_rule_result(&pos, rules).expect("rule result");
            assert_eq!(
                searched
                    .probe_rule_result(&pos, rules)
                    .expect("rule result"),
                rule
            );
            // The blocks the probes above read are in the cache.
            assert_eq!(
                searched
                    .rule_result_cached(&pos, rules, Counters::default())
                    .map(|(r, _)| r),
                Some(rule)
            );
            positions += 1;
        }
    }
    positions
}

fn check<R: Rules>(name: &str, pieces: u32, min_pieces: u32) {
    let variant = R::VARIANT;
    let full_dir = scratch(&format!("{name}-full"));
    let slices = build::<R>(&full_dir, pieces);
    let dir = copy(&full_dir, name, variant);
    let derived = derive_rules(&dir, variant, &slices, min_pieces).expect("derive rules");
    for d in &derived {
        assert!(d.material.pieces() >= min_pieces);
        assert!(d.bytes_after < d.bytes_before, "{d:?}");
        let path = Store::path_in(&dir, variant, d.material, FileKind::Rules);
        let header = std::fs::read(&path).expect("read");
        let header = Header::from_bytes(&path, &header).expect("header");
        assert_eq!(header.rules_derived, RulesDerived::All, "{}", d.material);
        assert_eq!(d.stored, 0);
    }
    // English: a quiet count alone, nothing drawn by it in these slices. Russian: a
    // material count governs (or runs beside) the quiet one where kings are on the board.
    match variant {
        Variant::English => assert_eq!(
            derived.len(),
            slices.iter().filter(|m| m.pieces() >= min_pieces).count()
        ),
        _ => assert!(derived.len() < slices.len()),
    }
    let done = one_side(&dir, variant, &slices, min_pieces).expect("one side");
    let pairs = slices
        .iter()
        .filter(|m| m.pieces() >= min_pieces && !m.is_symmetric())
        .count()
        / 2;
    assert_eq!(
        done.len(),
        pairs,
        "every pair of {min_pieces} pieces or more"
    );
    for d in &done {
        assert_eq!(d.searched.flipped(), d.kept);
        assert!(d.bytes_after < d.bytes_before, "{d:?}");
        let searched = Store::path_in(&dir, variant, d.searched, FileKind::Wdl);
        let kept = Store::path_in(&dir, variant, d.kept, FileKind::Wdl);
        let full = Store::path_in(&full_dir, variant, d.searched, FileKind::Wdl);
        assert!(
            std::fs::metadata(&full).expect("file").len()
                >= std::fs::metadata(&kept).expect("file").len(),
            "the larger side is searched"
        );
        let header = std::fs::read(&searched).expect("read");
        assert!(
            Header::from_bytes(&searched, &header)
                .expect("header")
                .searched
        );
    }
    let reencoded = leave_unread(&dir, variant, &slices, min_pieces, true).expect("leave unread");
    let holding = slices.iter().filter(|m| m.pieces() >= min_pieces).count() - pairs;
    assert_eq!(reencoded.len(), holding, "every slice that holds values");
    for r in &reencoded {
        let index = SliceIndex::<R>::new(r.material);
        let quiet: Vec<_> = (0..index.size())
            .filter_map(|i| index.unrank(i))
            .filter(|f| !damka::rules::may_capture(&f.position::<R>()))
            .collect();
        let forced = quiet
            .iter()
            .filter(|f| forced_exchange(&f.position::<R>()))
            .count() as u64;
        assert_eq!(r.forced, forced, "{}", r.material);
        // Kept slices of a searched twin leave their distances on even rows unread where
        // the rows alternate; the others, and symmetric slices, keep them.
        let even = quiet
            .iter()
            .filter(|f| {
                !forced_exchange(&f.position::<R>())
                    && even_rows::<R>(f.mover, damka::rules::Color::White)
            })
            .count() as u64;
        let twin_searched = done.iter().any(|d| d.kept == r.material);
        match rows_alternate::<R>() && twin_searched {
            true => assert_eq!(r.even_rows, even, "{}", r.material),
            false => assert_eq!(r.even_rows, 0, "{}", r.material),
        }
    }
    assert!(reencoded.iter().map(|r| r.forced).sum::<u64>() > 10_000);
    if rows_alternate::<R>() {
        assert!(reencoded.iter().map(|r| r.even_rows).sum::<u64>() > 100_000);
    }
    let (before, after) = (
        bytes(&full_dir, variant, &slices),
        bytes(&dir, variant, &slices),
    );
    assert!(
        after * 10 < before * 6,
        "{name}: {before} -> {after} bytes of win/draw/loss and distance files"
    );
    assert!(
        derive_rules(&dir, variant, &slices, min_pieces)
            .expect("again")
            .is_empty()
            && one_side(&dir, variant, &slices, min_pieces)
                .expect("again")
                .is_empty()
            && leave_unread(&dir, variant, &slices, min_pieces, false)
                .expect("again")
                .is_empty(),
        "a second run changes nothing"
    );
    let full = Tablebase::open(&full_dir).expect("full");
    let searched = Tablebase::open(&dir).expect("searched");
    let positions = same_answers::<R>(&full, &searched, &slices);
    assert!(positions > 1_000_000, "{positions} positions compared");
    let verify = Tablebase::open(&dir).expect("searched");
    for &m in &slices {
        assert_eq!(
            verify_slice::<R>(&verify, m).expect("verify"),
            SliceCheck::Ok,
            "{m}"
        );
    }
    // A kept distance two plies off (a win stays a win, a loss a loss) is found by the verify
    // of its slice, whose twin's values, forced exchanges and distances on even rows are
    // found from the kept ones.
    let kept = done
        .iter()
        .find(|d| d.kept.pieces() == pieces)
        .expect("a pair of the most pieces")
        .kept;
    let index = SliceIndex::<R>::new(kept);
    let won = (0..index.size())
        .find(|&i| {
            index.unrank(i).is_some_and(|f| {
                let pos = f.position::<R>();
                // Not a capture position, a forced exchange or a distance unread.
                let unread = damka::rules::may_capture(&pos)
                    || forced_exchange(&pos)
                    || (rows_alternate::<R>()
                        && even_rows::<R>(f.mover, damka::rules::Color::White));
                !unread && full.probe_wdl(&pos).expect("full") != damka::tablebase::Wdl::Draw
            })
        })
        .expect("a won or lost position");
    // The same for a kept distance to conversion, in a copy: its twin's, forced exchanges'
    // and even rows' are found from the kept ones too.
    let dtc_dir = copy(&dir, &format!("{name}-bad-dtc"), variant);
    change_value(&dir, variant, kept, FileKind::Dtw, won);
    let damaged = Tablebase::open(&dir).expect("damaged");
    assert!(
        matches!(
            verify_slice::<R>(&damaged, kept),
            Ok(SliceCheck::Bad { .. })
        ),
        "{name}: a wrong distance in {kept}"
    );
    let dtc_header = |m: Material| {
        let path = Store::path_in(&dtc_dir, variant, m, FileKind::Dtc);
        Header::from_bytes(&path, &std::fs::read(&path).expect("read")).expect("header")
    };
    assert!(dtc_header(kept).forced_searched);
    assert!(dtc_header(kept.flipped()).searched);
    change_value(&dtc_dir, variant, kept, FileKind::Dtc, won);
    let damaged = Tablebase::open(&dtc_dir).expect("damaged");
    assert!(
        matches!(
            verify_slice::<R>(&damaged, kept),
            Ok(SliceCheck::BadDtc { .. })
        ),
        "{name}: a wrong distance to conversion in {kept}"
    );
}

/// Rewrites the file of `kind` of slice `m` with the value at index `i` two more (less if
/// that is past the file's largest): a distance two plies longer, a rule result needing one
/// ply more (or shorter, one less).
fn change_value(dir: &Path, variant: Variant, m: Material, kind: FileKind, i: u64) {
    let file = Store::path_in(dir, variant, m, kind);
    let bytes = std::fs::read(&file).expect("read");
    let header = Header::from_bytes(&file, &bytes).expect("header");
    let offset = |b: usize| {
        let at = HEADER_SIZE + 8 * b;
        u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")) as usize
    };
    let mut blocks: Vec<Vec<u8>> = (0..header.blocks as usize)
        .map(|b| bytes[offset(b) + BLOCK_NUMBER_BYTES..offset(b + 1)].to_vec())
        .collect();
    let b = (i / header.block_positions as u64) as usize;
    let raw = zstd::bulk::decompress(&blocks[b], header.block_bytes()).expect("decodes");
    let mut values: Vec<u16> = (0..header.positions_in_block(b as u32) as usize)
        .map(|j| unpack(&raw, header.value_bits, j))
        .collect();
    let j = (i % header.block_positions as u64) as usize;
    let d = values[j];
    values[j] = if d + 2 <= header.max_dtw {
        d + 2
    } else {
        d - 2
    };
    blocks[b] = zstd::bulk::compress(&pack(&values, header.value_bits), 3).expect("compresses");
    std::fs::write(&file, assemble(header, &blocks)).expect("write");
}

#[test]
fn english_searched_slices_answer_as_the_full_tables() {
    check::<English>("english", 4, 3);
}

#[test]
fn russian_searched_slices_answer_as_the_full_tables() {
    check::<Russian>("russian", 4, 3);
}

#[test]
fn both_sides_searched_is_an_error_not_a_wrong_value() {
    let full_dir = scratch("both-full");
    let slices = build::<English>(&full_dir, 3);
    let dir = copy(&full_dir, "both", Variant::English);
    one_side(&dir, Variant::English, &slices, 3).expect("one side");
    let (kept, searched): (Material, Material) = ("2001".parse().unwrap(), "0120".parse().unwrap());
    let kept = if Header::from_bytes(
        Path::new("wdl"),
        &std::fs::read(Store::path_in(&dir, Variant::English, kept, FileKind::Wdl)).expect("read"),
    )
    .expect("header")
    .searched
    {
        searched
    } else {
        kept
    };
    // Make the kept side searched too, by hand.
    let path = Store::path_in(&dir, Variant::English, kept, FileKind::Wdl);
    let mut header = Header::from_bytes(&path, &std::fs::read(&path).expect("read")).expect("h");
    header.searched = true;
    std::fs::write(&path, damka::tablebase::format::assemble(header, &[])).expect("write");
    let err = one_side(&dir, Variant::English, &slices, 3).expect_err("both searched");
    assert!(
        matches!(&err, TableError::Mismatch(_, what) if what.contains("nothing holds values")),
        "{err}"
    );
    // A probe of the pair says so, and never searches back and forth.
    let tb = Tablebase::open(&dir).expect("open");
    let index = SliceIndex::<English>::new(kept);
    let pos = (0..index.size())
        .filter_map(|i| index.unrank(i))
        .map(|f| f.position::<English>())
        .find(|p| !damka::rules::may_capture(p))
        .expect("a quiet position");
    let err = tb.probe_dtw(&pos).expect_err("both sides searched");
    assert!(
        matches!(&err, ProbeError::Table(TableError::Mismatch(_, what))
            if what.contains("nothing holds the values")),
        "{err}"
    );
}

#[test]
fn a_searched_file_with_blocks_is_refused() {
    let full_dir = scratch("blocks-full");
    let slices = build::<English>(&full_dir, 2);
    let m = slices[0];
    let path = Store::path_in(&full_dir, Variant::English, m, FileKind::Wdl);
    let mut bytes = std::fs::read(&path).expect("read");
    let mut header = Header::from_bytes(&path, &bytes).expect("header");
    header.searched = true;
    bytes[..damka::tablebase::format::HEADER_SIZE].copy_from_slice(&header.to_bytes());
    std::fs::write(&path, bytes).expect("write");
    let tb = Tablebase::open(&full_dir).expect("open");
    let err = tb
        .table(Variant::English, m, FileKind::Wdl)
        .expect_err("refused");
    assert!(
        err.to_string()
            .contains("but a file without values holds none"),
        "{err}"
    );
}

/// Changes the header of slice `m`'s file of `kind` by `change`.
fn set_header(dir: &Path, variant: Variant, m: Material, kind: FileKind, change: fn(&mut Header)) {
    let path = Store::path_in(dir, variant, m, kind);
    let mut bytes = std::fs::read(&path).expect("read");
    let mut header = Header::from_bytes(&path, &bytes).expect("header");
    change(&mut header);
    bytes[..HEADER_SIZE].copy_from_slice(&header.to_bytes());
    std::fs::write(&path, bytes).expect("write");
}

/// Sets byte 83 (even rows searched) in the header of slice `m`'s file of `kind`.
fn set_even_rows(dir: &Path, variant: Variant, m: Material, kind: FileKind) {
    set_header(dir, variant, m, kind, |h| h.even_rows_searched = true);
}

#[test]
fn even_rows_searched_is_refused_outside_distance_files_of_alternating_rows() {
    let dir = scratch("even-flag");
    let english = build::<English>(&dir, 2);
    let russian = build::<Russian>(&dir, 2);
    let cases = [
        (Variant::English, english[0], FileKind::Wdl),
        (Variant::Russian, russian[0], FileKind::Dtw),
    ];
    for (variant, m, kind) in cases {
        set_even_rows(&dir, variant, m, kind);
        let tb = Tablebase::open(&dir).expect("open");
        let err = tb.table(variant, m, kind).expect_err("refused");
        assert!(
            err.to_string().contains("even rows searched (byte 83)"),
            "{variant} {kind:?}: {err}"
        );
    }
    // In an English distance file it is allowed.
    set_even_rows(&dir, Variant::English, english[0], FileKind::Dtw);
    let tb = Tablebase::open(&dir).expect("open");
    assert!(
        tb.table(Variant::English, english[0], FileKind::Dtw)
            .expect("opens")
            .header()
            .even_rows_searched
    );
}

#[test]
fn distances_of_one_unread_are_refused_outside_compacted_dtc_files() {
    let dir = scratch("ones-flag");
    let m = build::<English>(&dir, 2)[0];
    // In a win/draw/loss file; in a distance-to-conversion file whose forced exchanges are
    // stored.
    set_header(&dir, Variant::English, m, FileKind::Wdl, |h| {
        h.forced_searched = true;
        h.ones_searched = true;
    });
    set_header(&dir, Variant::English, m, FileKind::Dtc, |h| {
        h.ones_searched = true
    });
    let tb = Tablebase::open(&dir).expect("open");
    for kind in [FileKind::Wdl, FileKind::Dtc] {
        let err = tb.table(Variant::English, m, kind).expect_err("refused");
        assert!(
            err.to_string().contains("distances of 1 unread (byte 86)"),
            "{kind:?}: {err}"
        );
    }
}

#[test]
fn rules_derived_is_refused_outside_rules_files_of_a_quiet_count() {
    let dir = scratch("derived-flag");
    let english = build::<English>(&dir, 2);
    let m = english[0];
    // In a win/draw/loss file; in a rules file that names no rule set of the variant.
    set_header(&dir, Variant::English, m, FileKind::Wdl, |h| {
        h.rules_derived = RulesDerived::All
    });
    set_header(&dir, Variant::English, m, FileKind::Rules, |h| {
        h.rules_derived = RulesDerived::All;
        h.rule_set = 0;
    });
    let tb = Tablebase::open(&dir).expect("open");
    for kind in [FileKind::Wdl, FileKind::Rules] {
        let err = tb.table(Variant::English, m, kind).expect_err("refused");
        assert!(
            err.to_string().contains("rules derived (byte 84)"),
            "{kind:?}: {err}"
        );
    }
}

/// `generate` on compacted tables (rules derived, one side to move, forced exchanges and
/// distances on even rows unread) writes the same files as on the tables as built.
#[test]
fn a_build_on_compacted_tables_writes_the_same_files() {
    let full_dir = scratch("build-on-full");
    let smaller = build::<English>(&full_dir, 3);
    let dir = copy(&full_dir, "build-on-compacted", Variant::English);
    assert!(
        !derive_rules(&dir, Variant::English, &smaller, 2)
            .expect("derive")
            .is_empty()
    );
    assert!(
        !one_side(&dir, Variant::English, &smaller, 2)
            .expect("one side")
            .is_empty()
    );
    leave_unread(&dir, Variant::English, &smaller, 2, true).expect("leave unread");
    let rules = RuleSet::default_for(Variant::English);
    let mut compared = 0;
    for job in plan(4, English::MEN)
        .into_iter()
        .filter(|j| j.slices[0].pieces() == 4)
    {
        for d in [&full_dir, &dir] {
            let tb = Tablebase::open(d).expect("tables");
            build_job::<English>(
                &job,
                &tb,
                damka::tablebase::Contents::every_kind(rules),
                &damka::tablebase::Silent,
            )
            .expect("builds");
        }
        for &m in &job.slices {
            for kind in [FileKind::Wdl, FileKind::Dtw, FileKind::Dtc, FileKind::Rules] {
                let read = |d: &Path| std::fs::read(Store::path_in(d, Variant::English, m, kind));
                assert_eq!(
                    read(&dir).expect("built"),
                    read(&full_dir).expect("built"),
                    "{m} {kind:?}"
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 4 * 25, "every file of the 25 slices of 4 pieces");
}

/// A stored result that is not its derivation (here made so by hand) stays stored, the
/// others of its file marked: probes answer each as its file says, and `verify` finds the
/// one that is wrong.
#[test]
fn a_result_other_than_its_derivation_stays_stored() {
    let full_dir = scratch("marked-full");
    let slices = build::<English>(&full_dir, 3);
    let dir = copy(&full_dir, "marked", Variant::English);
    let m: Material = "2001".parse().expect("key");
    let index = SliceIndex::<English>::new(m);
    let full = Tablebase::open(&full_dir).expect("full");
    let rules = RuleSet::default_for(Variant::English);
    let won = |i: u64| {
        index.unrank(i).is_some_and(|f| {
            let pos = f.position::<English>();
            !damka::rules::may_capture(&pos)
                && full.probe_rule_result(&pos, rules).expect("rule").category
                    == damka::tablebase::RuleCategory::Win
        })
    };
    let changed = (0..index.size()).find(|&i| won(i)).expect("a win");
    let other = (changed + 1..index.size())
        .find(|&i| won(i))
        .expect("another");
    change_value(&dir, Variant::English, m, FileKind::Rules, changed);
    let done = derive_rules(&dir, Variant::English, &slices, 2).expect("derive");
    let marked = done.iter().find(|d| d.material == m).expect("re-encoded");
    assert_eq!(marked.stored, 1);
    assert!(
        done.iter()
            .filter(|d| d.material != m)
            .all(|d| d.stored == 0)
    );
    let path = Store::path_in(&dir, Variant::English, m, FileKind::Rules);
    let header = Header::from_bytes(&path, &std::fs::read(&path).expect("read")).expect("h");
    assert_eq!(header.rules_derived, RulesDerived::Marked);
    let tb = Tablebase::open(&dir).expect("marked");
    let probe = |tb: &Tablebase, i: u64| {
        let pos = index.unrank(i).expect("position").position::<English>();
        tb.probe_rule_result(&pos, rules).expect("rule result")
    };
    let (was, is) = (probe(&full, changed), probe(&tb, changed));
    assert_eq!(is.category, was.category);
    assert_eq!(is.plies.abs_diff(was.plies), 1, "{was:?} changed to {is:?}");
    assert_eq!(probe(&tb, other), probe(&full, other));
    assert!(
        matches!(verify_slice::<English>(&tb, m), Ok(SliceCheck::BadRules { index, .. }) if index == changed),
        "the changed result is found"
    );
}

/// A build writes the rules file of a slice of at least `DERIVED_FROM_PIECES` pieces whose
/// every result follows from its values and distances to conversion as a header that says
/// so (as `damka compact` would re-encode it), and keeps the results of smaller slices
/// stored; the derived results pass `verify` against the positions' moves.
#[test]
fn a_build_writes_derived_rules_files_from_five_pieces() {
    use damka::tablebase::format::DERIVED_FROM_PIECES;
    assert_eq!(DERIVED_FROM_PIECES, 5);
    let dir = scratch("derived-five");
    build::<English>(&dir, 4);
    let tb = Tablebase::open(&dir).expect("tables");
    let rules = RuleSet::default_for(Variant::English);
    let header = |m: Material| {
        let path = Store::path_in(&dir, Variant::English, m, FileKind::Rules);
        let bytes = std::fs::read(&path).expect("a rules file");
        (
            Header::from_bytes(&path, &bytes).expect("header"),
            bytes.len(),
        )
    };
    for four in ["0301", "1201", "2002"] {
        let (h, _) = header(four.parse().expect("key"));
        assert_eq!(h.rules_derived, RulesDerived::None, "{four}");
        assert!(h.blocks > 0, "{four}");
    }
    let mut checked = 0;
    for key in ["0401", "1004"] {
        let job = plan(5, English::MEN)
            .into_iter()
            .find(|j| j.key().to_string().starts_with(key))
            .expect("a 5-piece job");
        build_job::<English>(
            &job,
            &tb,
            damka::tablebase::Contents::every_kind(rules),
            &damka::tablebase::Silent,
        )
        .expect("builds");
        let tb = Tablebase::open(&dir).expect("tables");
        for &m in &job.slices {
            let (h, len) = header(m);
            assert_eq!(h.rules_derived, RulesDerived::All, "{m}");
            assert_eq!((h.blocks, len), (0, HEADER_SIZE + 8), "{m}: a header alone");
            assert!(h.wins + h.losses > 0, "{m}: the counts are kept");
            assert_eq!(
                verify_slice::<English>(&tb, m).expect("verify"),
                SliceCheck::Ok,
                "{m}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 4);
    // The derived results are counted against their header like stored ones.
    let m: Material = "0104".parse().expect("key");
    set_header(&dir, Variant::English, m, FileKind::Rules, |h| {
        h.wins += 1;
        h.losses -= 1;
    });
    let tb = Tablebase::open(&dir).expect("tables");
    assert!(
        matches!(
            verify_slice::<English>(&tb, m).expect("verify"),
            SliceCheck::Counts { kind: FileKind::Rules, header, counted } if header[0] == counted[0] + 1
        ),
        "a derived rules file's counts are recounted"
    );
}
