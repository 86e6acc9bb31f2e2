//! Compares two directories of built tables value by value: every table file (`wdl`, `dtw`,
//! `dtc`, `rules`) of each variant in one must be in the other with the same header (but for
//! the block table's checksum, which follows the compressed bytes) and every block must
//! decode to the same bytes. So two builds that compress differently (another zstd level or
//! parameters) are shown to hold the same values, which `cmp` cannot show. A rules file that
//! derives its results ([`RulesDerived`]) where the other stores them is compared position
//! by position through the probe (`probe_rule_result`, as engines read them), on all
//! threads.
//!
//! `cargo run --release -p damka-compare-tables -- DIR_A DIR_B` prints one line per file that
//! differs and a last line `equal values in N files`, and exits 1 when a file differs or is
//! missing on one side (2 on bad arguments or an unreadable directory).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use damka::tablebase::format::TableFile;
use damka::tablebase::format::{Header, RulesDerived};
use damka::tablebase::{FileKind, Material, SliceIndex, Tablebase};
use damka::{RuleSet, Rules, Variant, with_rules};
use rayon::prelude::*;

const KINDS: [FileKind; 4] = [FileKind::Wdl, FileKind::Dtw, FileKind::Dtc, FileKind::Rules];

/// A table file: its variant, slice and kind.
type TableName = (Variant, Material, FileKind);

/// The table files under `dir` (`dir/VARIANT/SLICE.KIND`, as `damka generate` writes them).
fn table_files(dir: &Path) -> Result<BTreeSet<(String, String, &'static str)>, String> {
    let mut found = BTreeSet::new();
    for variant in Variant::ALL {
        let sub = dir.join(variant.name());
        let entries = match std::fs::read_dir(&sub) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{}: {e}", sub.display())),
        };
        for entry in entries {
            let path = entry.map_err(|e| format!("{}: {e}", sub.display()))?.path();
            let (Some(stem), Some(ext)) = (
                path.file_stem().and_then(|s| s.to_str()),
                path.extension().and_then(|s| s.to_str()),
            ) else {
                continue;
            };
            if let Some(kind) = KINDS.iter().find(|k| k.extension() == ext) {
                found.insert((
                    variant.name().to_string(),
                    stem.to_string(),
                    kind.extension(),
                ));
            }
        }
    }
    Ok(found)
}

/// The header as it bears on the values: the block table's checksum and the statistics
/// (which files converted from an older version lack) cleared and, with `encoding`, what
/// depends on how a rules file holds its results (derived or stored).
fn value_header(h: &Header, encoding: bool) -> Header {
    let mut h = Header {
        table_crc: 0,
        stats: None,
        ..h.clone()
    };
    if encoding {
        (h.blocks, h.max_dtw, h.rules_derived) = (0, 0, RulesDerived::None);
    }
    h
}

/// Whether the rules files of `m` under `a` and `b` (one deriving results the other holds)
/// give every position of the slice the same result; the first index where they differ.
fn same_rule_results<R: Rules>(
    a: &Path,
    b: &Path,
    m: Material,
    rules: &RuleSet,
) -> Result<(), String> {
    let open = |d: &Path| Tablebase::open(d).map_err(|e| e.to_string());
    let (ta, tb) = (open(a)?, open(b)?);
    let index = SliceIndex::<R>::new(m);
    let first_bad = (0..index.size()).into_par_iter().find_first(|&i| {
        let Some(frame) = index.unrank(i) else {
            return false;
        };
        let pos = frame.position::<R>();
        let (ra, rb) = (
            ta.probe_rule_result(&pos, rules),
            tb.probe_rule_result(&pos, rules),
        );
        !matches!((ra, rb), (Ok(x), Ok(y)) if x == y)
    });
    match first_bad {
        None => Ok(()),
        Some(i) => Err(format!("rule results differ at index {i}")),
    }
}

/// Compares the file `name` of the two directories; what differs, if anything.
fn compare(a: &Path, b: &Path, (variant, material, kind): TableName) -> Option<String> {
    let open = |dir: &Path| {
        let path = damka::tablebase::Store::path_in(dir, variant, material, kind);
        TableFile::open(&path, kind, variant, material, u32::MAX).map_err(|e| e.to_string())
    };
    let (fa, fb) = match (open(a), open(b)) {
        (Ok(fa), Ok(fb)) => (fa, fb),
        (Err(e), _) | (_, Err(e)) => return Some(e),
    };
    let (ha, hb) = (fa.header(), fb.header());
    let encodings_differ = kind == FileKind::Rules && ha.rules_derived != hb.rules_derived;
    if value_header(ha, encodings_differ) != value_header(hb, encodings_differ) {
        return Some(format!("headers differ: {ha:?} against {hb:?}"));
    }
    if encodings_differ {
        let Some(rules) = RuleSet::numbered(variant, ha.rule_set) else {
            return Some(format!("no rule set numbered {}", ha.rule_set));
        };
        let same = with_rules!(variant, R => same_rule_results::<R>(a, b, material, rules));
        return same.err();
    }
    for block in 0..fa.header().blocks {
        match (fa.decode_block(block), fb.decode_block(block)) {
            (Ok(va), Ok(vb)) if va == vb => {}
            (Ok(va), Ok(vb)) => {
                let at = va.iter().zip(&vb).position(|(x, y)| x != y).unwrap_or(0);
                return Some(format!("block {block} differs from byte {at} on"));
            }
            (Err(e), _) | (_, Err(e)) => return Some(e.to_string()),
        }
    }
    None
}

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [a, b] = args.as_slice() else {
        eprintln!("usage: damka-compare-tables DIR_A DIR_B");
        return ExitCode::from(2);
    };
    let (files_a, files_b) = match (table_files(a), table_files(b)) {
        (Ok(fa), Ok(fb)) => (fa, fb),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut differ = 0;
    for (variant, stem, ext) in files_a.symmetric_difference(&files_b) {
        let side = if files_a.contains(&(variant.clone(), stem.clone(), ext)) {
            b
        } else {
            a
        };
        println!("{variant}/{stem}.{ext}: missing in {}", side.display());
        differ += 1;
    }
    let mut equal = 0;
    for (variant, stem, ext) in files_a.intersection(&files_b) {
        let name = format!("{variant}/{stem}.{ext}");
        let parsed = (
            variant.parse::<Variant>().ok(),
            stem.parse::<Material>().ok(),
            KINDS.into_iter().find(|k| k.extension() == *ext),
        );
        let why = match parsed {
            (Some(v), Some(m), Some(k)) => compare(a, b, (v, m, k)),
            _ => Some("not a table file name".into()),
        };
        match why {
            None => equal += 1,
            Some(why) => {
                println!("{name}: {why}");
                differ += 1;
            }
        }
    }
    println!("equal values in {equal} files");
    match differ {
        0 if equal > 0 => ExitCode::SUCCESS,
        0 => {
            println!("no table files in {}", a.display());
            ExitCode::from(1)
        }
        _ => ExitCode::from(1),
    }
}
