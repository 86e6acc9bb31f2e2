//! Perft benches: single-threaded, bulk-counted perft from the initial position.
//!
//! - `perft/english_d11` (85,242,128 leaves) and `perft/international_d9` (41,022,423): the
//!   speed targets, each at most 0.8 s on one thread.
//! - `turkish_d7` and `turkish_d8`: damka against the `kish` crate in the same run, same
//!   compiler flags and profile. `kish/perft` is kish's own bulk-counted sequential perft (the
//!   one its example and README quote); `kish/perft_tt` adds a 64 MB transposition table, a
//!   different algorithm shown for reference only. Both engines walk the same tree, but damka
//!   counts a capture that takes the same pieces to the same square once and kish counts each
//!   path (d7: 10,782,308 vs 10,782,382; d8: 123,285,642 vs 123,290,300), so each bench's
//!   throughput is its own leaf count; compare the times.
//!
//! Every count is checked once before it is timed. Run with `cargo bench --bench perft`
//! (a couple of minutes); see `benches/README.md` for measured numbers.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use damka::rules::{English, International, Position, Rules, Turkish, perft};

/// Times `perft(initial, depth)` of variant `R` as `name`, after checking its leaf count.
fn bench_damka<R: Rules>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    depth: u32,
    leaves: u64,
) {
    let start = Position::<R>::initial();
    assert_eq!(perft(&start, depth), leaves, "{name}: wrong leaf count");
    group.throughput(Throughput::Elements(leaves));
    group.bench_function(name, |b| {
        b.iter(|| perft(black_box(&start), black_box(depth)))
    });
}

/// Times kish's sequential perft (and its transposition-table perft) at `depth`.
fn bench_kish(group: &mut BenchmarkGroup<'_, WallTime>, depth: u64, leaves: u64) {
    let start = kish::Board::new_default();
    assert_eq!(
        start.perft(depth),
        leaves,
        "kish d{depth}: wrong leaf count"
    );
    group.throughput(Throughput::Elements(leaves));
    group.bench_function("kish/perft", |b| {
        b.iter(|| black_box(&start).perft(black_box(depth)))
    });
    group.bench_function("kish/perft_tt", |b| {
        b.iter(|| black_box(&start).perft_tt(black_box(depth), 64))
    });
}

fn configure<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group
}

fn targets(c: &mut Criterion) {
    let mut group = configure(c, "perft");
    bench_damka::<English>(&mut group, "english_d11", 11, 85_242_128);
    bench_damka::<International>(&mut group, "international_d9", 9, 41_022_423);
    group.finish();
}

fn turkish(c: &mut Criterion) {
    for (depth, damka_leaves, kish_leaves) in
        [(7, 10_782_308, 10_782_382), (8, 123_285_642, 123_290_300)]
    {
        let mut group = configure(c, &format!("turkish_d{depth}"));
        bench_damka::<Turkish>(&mut group, "damka", depth, damka_leaves);
        bench_kish(&mut group, u64::from(depth), kish_leaves);
        group.finish();
    }
}

criterion_group!(benches, targets, turkish);
criterion_main!(benches);
