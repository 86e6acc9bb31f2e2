//! PDN reader bench: read and replay every game of `tinsley.pdn` (724 English games, 343 kB)
//! from memory, in MB/s of PDN text.
//!
//! - `pdn/read`: the reader alone (tokens, tags, the game tree).
//! - `pdn/read_replay`: the reader and the replay of every move against the rules.
//! - `pdn/read_replay_write`: also normalize each game and write it as strict PDN.
//!
//! Needs the corpus at `../shared/corpus/pdn/` (skipped with a message otherwise). Run with
//! `cargo bench --bench pdn`; see `benches/README.md` for measured numbers.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use damka::pdn::{Reader, Replayer, write_game};

const TINSLEY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/corpus/pdn/checkerboard/tinsley.pdn"
);

fn read(text: &[u8]) -> usize {
    Reader::new("tinsley.pdn", text)
        .filter(Result::is_ok)
        .count()
}

fn read_replay(text: &[u8]) -> usize {
    let mut replayer = Replayer::new(None);
    Reader::new("tinsley.pdn", text)
        .filter_map(Result::ok)
        .map(|g| replayer.replay(&g).moves)
        .sum()
}

fn read_replay_write(text: &[u8]) -> usize {
    let mut replayer = Replayer::new(None);
    Reader::new("tinsley.pdn", text)
        .filter_map(Result::ok)
        .map(|mut g| {
            replayer.normalize(&mut g);
            write_game(&g.game).len()
        })
        .sum()
}

fn bench(c: &mut Criterion) {
    let Ok(text) = std::fs::read(TINSLEY) else {
        println!("{TINSLEY} not found: PDN bench skipped");
        return;
    };
    assert_eq!(read(&text), 724);
    assert!(read_replay(&text) > 36_000);
    let mut group = c.benchmark_group("pdn");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("read", |b| b.iter(|| read(black_box(&text))));
    group.bench_function("read_replay", |b| b.iter(|| read_replay(black_box(&text))));
    group.bench_function("read_replay_write", |b| {
        b.iter(|| read_replay_write(black_box(&text)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
