//! Tablebase benches: index rank/unrank, building English up to 3 pieces, and probing.
//!
//! - `index/rank` and `index/unrank`: random indices of the English slice 2101.
//! - `generate/english_3`: every English slice of 2 and 3 pieces, files written.
//! - `probe/wdl_cached`: win/draw/loss probes of random 4-piece English positions (captures
//!   included, resolved by search) with every block already in the cache, one thread.
//! - `probe/first_touch`: decoding one win/draw/loss block (checksum and zstd), the cost of
//!   the first probe into a block.
//! - `probe/rules_cached` and `probe/rules_derived_cached`: results under the default rule
//!   set (counters at 0) of the same positions, every block in the cache, from the rules
//!   files as built and from a copy whose rules files derive them (`derive_rules`).
//!
//! Tables up to 4 pieces are built once into `target/bench-tables` (a few seconds), the copy
//! into `target/bench-tables-derived`.
//! Run with `cargo bench --bench tablebase`; numbers are in `benches/README.md`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use damka::rules::{Counters, English, Position};
use damka::tablebase::{FileKind, Material, SliceIndex, Tablebase, build_job, derive_rules, plan};

fn build_english(dir: &Path, pieces: u32) {
    let tb = Tablebase::open(dir).expect("tables directory");
    for job in plan(pieces, 12) {
        build_job::<English>(
            &job,
            &tb,
            damka::tablebase::Contents::every_kind(damka::RuleSet::default_for(
                damka::Variant::English,
            )),
            &damka::tablebase::Silent,
        )
        .expect("build");
    }
}

fn tables() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-tables");
    std::fs::create_dir_all(&dir).expect("bench tables directory");
    build_english(&dir, 4);
    dir
}

/// A copy of `dir`'s English tables whose rules files derive their results.
fn derived_copy(dir: &Path) -> PathBuf {
    let copy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-tables-derived");
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(copy.join("english")).expect("directory");
    for entry in std::fs::read_dir(dir.join("english")).expect("tables") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), copy.join("english").join(entry.file_name())).expect("copy");
    }
    let slices = Material::all_up_to(4, 12);
    let derived = derive_rules(&copy, damka::Variant::English, &slices, 2).expect("derive");
    assert!(!derived.is_empty(), "rules files derived");
    copy
}

/// Random positions of the 4-piece English slices (indices that hold a position).
fn random_positions(n: usize) -> Vec<Position<English>> {
    let slices: Vec<Material> = Material::all_up_to(4, 12)
        .into_iter()
        .filter(|m| m.pieces() == 4)
        .collect();
    let mut state = 7u64;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) % n
    };
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let m = slices[next(slices.len() as u64) as usize];
        let index = SliceIndex::<English>::new(m);
        if let Some(f) = index.unrank(next(index.size())) {
            out.push(f.position::<English>());
        }
    }
    out
}

fn index(c: &mut Criterion) {
    let index = SliceIndex::<English>::new("2101".parse().expect("key"));
    let frames: Vec<_> = (0..4096u64)
        .filter_map(|i| index.unrank(i * 7919 % index.size()))
        .collect();
    let mut g = c.benchmark_group("index");
    g.throughput(Throughput::Elements(frames.len() as u64));
    g.bench_function("rank", |b| {
        b.iter(|| {
            frames
                .iter()
                .map(|f| index.rank(black_box(f)).unwrap_or(0))
                .sum::<u64>()
        })
    });
    g.bench_function("unrank", |b| {
        b.iter(|| {
            (0..4096u64)
                .filter_map(|i| index.unrank(black_box(i * 7919 % index.size())))
                .count()
        })
    });
    g.finish();
}

fn generate(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-generate");
    let mut g = c.benchmark_group("generate");
    g.sample_size(10);
    g.throughput(Throughput::Elements(202_280));
    g.bench_function("english_3", |b| {
        b.iter(|| {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("directory");
            build_english(&dir, 3);
        })
    });
    g.finish();
}

fn probe(c: &mut Criterion) {
    let dir = tables();
    let tb = Tablebase::open(&dir).expect("tables");
    let positions = random_positions(100_000);
    for p in &positions {
        tb.probe_wdl(p).expect("probe");
    }
    let mut g = c.benchmark_group("probe");
    g.measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("wdl_cached", |b| {
        b.iter(|| {
            positions
                .iter()
                .filter(|p| tb.probe_wdl(black_box(*p)).is_ok())
                .count()
        })
    });
    let table = tb
        .table(
            damka::Variant::English,
            "2101".parse().expect("key"),
            FileKind::Wdl,
        )
        .expect("table");
    g.throughput(Throughput::Elements(1));
    g.bench_function("first_touch", |b| {
        b.iter(|| table.decode_block(black_box(0)).expect("block").len())
    });
    let rules = damka::RuleSet::default_for(damka::Variant::English);
    let derived = Tablebase::open(derived_copy(&dir)).expect("tables");
    g.throughput(Throughput::Elements(positions.len() as u64));
    for (name, tb) in [("rules_cached", &tb), ("rules_derived_cached", &derived)] {
        for p in &positions {
            tb.probe_rule_result(p, rules).expect("rule result");
        }
        g.bench_function(name, |b| {
            b.iter(|| {
                positions
                    .iter()
                    .filter(|p| {
                        tb.rule_result_cached(black_box(*p), rules, Counters::default())
                            .is_some()
                    })
                    .count()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, index, generate, probe);
criterion_main!(benches);
