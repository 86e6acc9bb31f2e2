//! Two tables directories give the same answers: an ignored test, run by hand to compare a
//! build with one of another commit or form (issue 61: the compacted default build against
//! the tables of `fc6f5cf`, converted with `damka compact --upgrade`).
//!
//! ```sh
//! DAMKA_SAME_A=DIR_A DAMKA_SAME_B=DIR_B DAMKA_SAME_VARIANT=english DAMKA_SAME_PIECES=6 \
//!     cargo test --release --test same_answers -- --ignored --nocapture
//! ```
//!
//! For each slice of the variant in DIR_A with at most DAMKA_SAME_PIECES pieces, it probes
//! DAMKA_SAME_POSITIONS (default 2000) positions at random indices (a fixed seed) in both:
//! the win, draw or loss, the distance to conversion, the result under the variant's
//! default rule set, every move's result and distance to conversion, and where both
//! directories hold distances to the end, the distance to the end too (and the plies of a
//! result under a rule set without counts, which are those to the end).

use std::path::PathBuf;

use damka::rules::{Counters, Rules};
use damka::tablebase::{FileKind, SliceIndex, Store, Tablebase};
use damka::{RuleSet, Variant, with_rules};

/// The value of environment variable `name`, which the test needs.
fn setting(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("set {name} (see the file's comment)"))
}

/// The next number of a 64-bit linear congruential sequence (Knuth's MMIX constants).
fn next(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 11
}

/// Compares `per_slice` random positions of every slice of `R` in `a` with at most
/// `pieces` pieces against `b`; returns the positions compared.
fn compare<R: Rules>(a: &Tablebase, b: &Tablebase, pieces: u32, per_slice: u64) -> u64 {
    let rules = RuleSet::default_for(R::VARIANT);
    let dtw = a.has_dtw(R::VARIANT) && b.has_dtw(R::VARIANT);
    let listing = a.store().listing(R::VARIANT).expect("listing of DIR_A");
    let mut seed = 61;
    let mut compared = 0;
    for m in listing.slices_with(&[FileKind::Wdl]) {
        if m.pieces() > pieces {
            continue;
        }
        let index = SliceIndex::<R>::new(m);
        for _ in 0..per_slice {
            let Some(frame) = index.unrank(next(&mut seed) % index.size()) else {
                continue;
            };
            let pos = frame.position::<R>();
            let at = || format!("{m} {}", damka::notation::write_fen(&pos));
            assert_eq!(a.probe_wdl(&pos).ok(), b.probe_wdl(&pos).ok(), "{}", at());
            assert_eq!(a.probe_dtc(&pos).ok(), b.probe_dtc(&pos).ok(), "{}", at());
            // Where no count runs, a result's plies are those to the end: without `.dtw` in
            // both, those to conversion stand in for them, and only the category compares.
            let no_count = rules.quiet.is_none() && rules.material.is_empty();
            let rule = |tb: &Tablebase| {
                let result = tb.rule_result_at(&pos, rules, Counters::default()).ok();
                result.map(|(r, left)| match no_count && !dtw {
                    true => (r.category, 0, left),
                    false => (r.category, r.plies, left),
                })
            };
            assert_eq!(rule(a), rule(b), "{}", at());
            if dtw {
                assert_eq!(a.probe_dtw(&pos).ok(), b.probe_dtw(&pos).ok(), "{}", at());
            }
            let moves = |tb: &Tablebase| {
                let mut rated = tb.rated_moves(&pos).expect("rated moves");
                rated.sort_by_key(|r| format!("{:?}", r.mv.mv));
                let values = rated.iter().map(|r| (r.mv.mv, r.outcome.wdl, r.dtc));
                values.collect::<Vec<_>>()
            };
            assert_eq!(moves(a), moves(b), "{}", at());
            compared += 1;
        }
    }
    compared
}

#[test]
#[ignore = "compares two directories named by environment variables"]
fn two_directories_give_the_same_answers() {
    let [a, b] = ["DAMKA_SAME_A", "DAMKA_SAME_B"].map(|v| PathBuf::from(setting(v)));
    let variant: Variant = setting("DAMKA_SAME_VARIANT").parse().expect("a variant");
    let pieces: u32 = setting("DAMKA_SAME_PIECES").parse().expect("a piece count");
    let per_slice =
        std::env::var("DAMKA_SAME_POSITIONS").map_or(2000, |n| n.parse().expect("a count"));
    let (a, b) = (
        Tablebase::open(&a).expect("DIR_A"),
        Tablebase::open(&b).expect("DIR_B"),
    );
    assert!(Store::new(a.dir()).exists() && Store::new(b.dir()).exists());
    let compared = with_rules!(variant, R => compare::<R>(&a, &b, pieces, per_slice));
    println!("{variant} up to {pieces} pieces: {compared} positions, the same answers");
    assert!(compared > 0, "no position compared: no slices in DIR_A?");
}
