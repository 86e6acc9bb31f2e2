//! Property tests that stay: FEN, move text (PDN's and the Hub's) and PDN built from the
//! characters they are made of, read without a panic, and what reads writes back the same. A
//! fixed seed and a bounded count per target keep the run short and the same everywhere; the
//! long runs are `#[ignore]`d (`cargo test --release --test fuzz -- --ignored`). Hub
//! sessions are fuzzed beside the protocol loop, in `cli/src/hub/fuzz.rs`.

use damka::notation::hub as hub_notation;
use damka::notation::{parse_fen, parse_move, write_fen};
use damka::pdn::{Reader, Replayer, write_game};
use damka::rules::{Rules, legal_moves};
use damka::{Variant, with_rules};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(14),
        failure_persistence: None,
        ..Config::default()
    }
}

fn variant() -> impl Strategy<Value = Variant> {
    prop::sample::select(Variant::ALL.to_vec())
}

/// FEN-like text: sides, colours, kings, squares in both notations, ranges, junk.
fn fen_text() -> impl Strategy<Value = String> {
    let square = prop_oneof![
        (0u32..60).prop_map(|n| n.to_string()),
        ("[a-j]", 0u32..12).prop_map(|(f, r)| format!("{f}{r}")),
        Just(String::new()),
        "[0-9]{5,25}",
    ];
    let item = (
        prop::option::of(Just("K")),
        square.clone(),
        prop::option::of(square),
    )
        .prop_map(|(k, a, b)| match b {
            Some(b) => format!("{}{a}-{b}", k.unwrap_or("")),
            None => format!("{}{a}", k.unwrap_or("")),
        });
    let side = (
        prop::sample::select(vec!["W", "B", "w", "b", "", "?"]),
        prop::collection::vec(item, 0..14),
    )
        .prop_map(|(c, items)| format!("{c}{}", items.join(",")));
    (
        prop::sample::select(vec!["W", "B", "?", "X", ""]),
        prop::collection::vec(side, 0..4),
        prop::sample::select(vec!["", ".", ":", " ", ":H0:F1"]),
    )
        .prop_map(|(turn, sides, tail)| format!("{turn}:{}{tail}", sides.join(":")))
}

/// Reads a FEN; one that reads writes back to a FEN that reads as the same position.
fn fen_round_trip<R: Rules>(text: &str) {
    if let Ok(pos) = parse_fen::<R>(text) {
        let written = write_fen(&pos);
        assert_eq!(
            parse_fen::<R>(&written).ok(),
            Some(pos),
            "{text} -> {written}"
        );
    }
}

/// Move text against the legal moves of a position read from a FEN, in PDN and Hub form.
fn move_texts<R: Rules>(fen: &str, text: &str) {
    let Ok(pos) = parse_fen::<R>(fen) else {
        return;
    };
    let legal = legal_moves(&pos);
    if let Ok(found) = parse_move(R::VARIANT, &legal, text) {
        assert!(legal.iter().any(|m| m.mv == found.mv));
    }
    if let Ok(mv) = hub_notation::parse_move(&pos, text) {
        assert!(legal.iter().any(|m| m.mv == mv));
    }
    let _ = hub_notation::parse_position::<R>(text);
}

fn move_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            (0u32..60).prop_map(|n| n.to_string()),
            ("[a-j]", 0u32..12).prop_map(|(f, r)| format!("{f}{r}")),
            prop::sample::select(vec!["-", "x", ":", " ", "X", "", "--", "0"])
                .prop_map(str::to_string),
        ],
        0..9,
    )
    .prop_map(|parts| parts.concat())
}

const PDN_SEED: &str = "[Event \"e\"]\n[GameType \"21\"]\n[FEN \"B:W14,15,18,21,22,23,30:B6,7,8,10,12,13\"]\n\
1... 10x26 {c} (1... 10x17x26 $1) 2. 30x23 - - 1-0\n\n[GameType \"20\"] 1. 32-28 19-23 \
(1... 18-23 2. 38-32) 2. 28x19 14x23 /FEN \"W:W31:B10\"/ 31-27 *\n\n\
1. c3-d4 d6:b4 2. a3:c5 *\n";

/// PDN text: pieces of real games cut and spliced with the characters PDN gives meaning to.
fn pdn_text() -> impl Strategy<Value = Vec<u8>> {
    let seed = PDN_SEED.as_bytes().to_vec();
    let n = seed.len();
    let edits = prop::collection::vec(
        (
            0..n + 1,
            prop_oneof![
                prop::sample::select(b"0123456789-x:.[]{}()\"/$!?*%abcdehKWB \n\t,\\".to_vec())
                    .prop_map(|b| vec![b]),
                Just(b"(((((((((((".to_vec()),
                Just(b"{".to_vec()),
                Just(b"\xff\xfe".to_vec()),
                Just(Vec::new()),
            ],
            0usize..12,
        ),
        0..10,
    );
    edits.prop_map(move |edits| {
        let mut bytes = seed.clone();
        for (at, insert, cut) in edits {
            let at = at.min(bytes.len());
            let end = (at + cut).min(bytes.len());
            bytes.splice(at..end, insert);
        }
        bytes
    })
}

/// Reads, replays, normalizes and writes every game; a game written reads back as itself.
fn pdn_round_trip(bytes: &[u8]) {
    let mut replayer = Replayer::new(None);
    for item in Reader::new("fuzz", bytes) {
        let Ok(mut game) = item else { continue };
        let _ = replayer.replay(&game);
        replayer.normalize(&mut game);
        let text = write_game(&game.game);
        let again: Vec<_> = Reader::new("again", text.as_bytes()).collect();
        assert_eq!(again.len(), 1, "written {text}");
        let Some(Ok(mut reread)) = again.into_iter().next() else {
            panic!("written text unreadable: {text}");
        };
        Replayer::new(None).normalize(&mut reread);
        assert_eq!(reread.game, game.game, "written {text}");
    }
}

proptest! {
    #![proptest_config(config(2000))]
    #[test]
    fn fen_reads_without_panic_and_round_trips(v in variant(), text in fen_text()) {
        with_rules!(v, R => fen_round_trip::<R>(&text));
    }

    #[test]
    fn move_text_reads_without_panic(v in variant(), text in move_text()) {
        with_rules!(v, R => {
            move_texts::<R>(&write_fen(&damka::rules::Position::<R>::initial()), &text);
        });
    }
}

proptest! {
    #![proptest_config(config(400))]
    #[test]
    fn pdn_reads_replays_and_round_trips(bytes in pdn_text()) {
        pdn_round_trip(&bytes);
    }
}

proptest! {
    #![proptest_config(config(100_000))]
    #[test]
    #[ignore = "long fuzz run (100000 inputs a target, minutes)"]
    fn fen_and_move_text_long_run(v in variant(), fen in fen_text(), text in move_text()) {
        with_rules!(v, R => {
            fen_round_trip::<R>(&fen);
            move_texts::<R>(&fen, &text);
        });
    }

    #[test]
    #[ignore = "long fuzz run (100000 inputs, minutes)"]
    fn pdn_long_run(bytes in pdn_text()) {
        pdn_round_trip(&bytes);
    }
}
