//! Search speed: time to a fixed depth from the initial position, English and International
//! (one thread, a fresh engine with a 64 MiB table each time, made outside the timing).
//! Nodes per second are printed once per bench. Numbers are in `benches/README.md`.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use damka::rules::{English, International, Position, Rules};
use damka::search::{Engine, Limits};

fn to_depth<R: Rules>(engine: &mut Engine, depth: u32) -> u64 {
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let game = [Position::<R>::initial()];
    let r = engine.search(&game, &limits, &AtomicBool::new(false), &mut |_| {});
    assert_eq!(r.info.depth, depth);
    r.info.nodes
}

fn bench<R: Rules>(c: &mut Criterion, name: &str, depth: u32) {
    let mut engine = Engine::new(64);
    let t = std::time::Instant::now();
    let nodes = to_depth::<R>(&mut engine, depth);
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{name} depth {depth}: {nodes} nodes in {secs:.3} s, {:.2} M nodes/s",
        nodes as f64 / secs / 1e6
    );
    c.bench_function(&format!("search/{name}_d{depth}"), |b| {
        b.iter_batched(
            || Engine::new(64),
            |mut engine| (to_depth::<R>(&mut engine, depth), engine),
            BatchSize::PerIteration,
        )
    });
}

fn search(c: &mut Criterion) {
    bench::<English>(c, "english", 14);
    bench::<International>(c, "international", 12);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = search
}
criterion_main!(benches);
