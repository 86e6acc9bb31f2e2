//! Property tests of the follower: byte streams built from DXP messages, valid and broken
//! (malformed, oversized, truncated, out of order, illegal moves, split at any byte), sent
//! over a real loopback connection that then goes silent or closes. The follower must answer
//! only with well-formed messages and end its connection within a bounded time, never
//! panic. A fixed seed and a bounded count keep the run short; the long run is `#[ignore]`d
//! (`cargo test --release -p damka-cli --bin damka dxp_long_run -- --ignored`).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::Duration;

use damka::Variant;
use damka::rules::RuleSet;
use damka::search::{Engine, Limits};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

use super::connection::Connection;
use super::message::{Framer, Message};
use super::session::{Player, follow};

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(63),
        failure_persistence: None,
        ..Config::default()
    }
}

/// One piece of what a peer sends: a message's text (not always valid) and its NUL.
fn pieces() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let start = format!("R01{:<32}Z000000A", "fuzz");
    // White's man on 28 against Black's on 23, White (the fuzzer) to move.
    let squares = "e".repeat(22) + "z" + &"e".repeat(4) + "w" + &"e".repeat(22);
    let setup = format!("R01{:<32}Z000000BW{squares}", "fuzz");
    let black = format!("R01{:<32}W000000A", "fuzz");
    let text = prop_oneof![
        Just(start),
        Just(setup),
        Just(black),
        Just(format!("R02{:<32}W000000A", "old")),
        Just(format!("R01{:<32}W000000BW{}", "bad", "x".repeat(50))),
        Just(format!("R01{:<32}W000000BW{}", "bad", "w".repeat(50))),
        Just("M0001322800".to_string()),
        Just("M0001312700".to_string()),
        Just("M000128221123".to_string()),
        "M[0-9]{0,14}",
        Just("E00".to_string()),
        Just("E21".to_string()),
        "E[0-9]{0,3}",
        Just("B001W".to_string()),
        "B[0-9]{0,3}[WZQ]?",
        Just("K0".to_string()),
        Just("A".to_string() + &" ".repeat(32) + "0"),
        "C[ -~]{0,40}",
        "[A-Z][ -~]{0,20}",
    ];
    let piece = prop_oneof![
        8 => text.prop_map(|t| { let mut b = t.into_bytes(); b.push(0); b }),
        1 => Just(vec![b'C'; 300]),
        1 => Just(vec![0xff, b'M', 0]),
        1 => Just(b"M00".to_vec()),
    ];
    prop::collection::vec(piece, 0..10)
}

/// Sends `pieces` to a follower, cut into writes at `cut`, then closes (or goes silent
/// when `silent`): the follower ends within a bounded time and every answer is a message.
fn follower_session(pieces: &[Vec<u8>], cut: usize, silent: bool) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = listener.local_addr().expect("an address");
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().expect("a connection");
        let mut player = Player {
            name: "damka".into(),
            engine: Engine::new(1),
            limits: Limits {
                depth: Some(1),
                ..Limits::default()
            },
            rules: RuleSet::default_for(Variant::International),
            referee: None,
            silence: Duration::from_millis(300),
        };
        let result = follow(Connection::new(stream, false), &mut player);
        let _ = done.send(result.map_err(|e| e.to_string()));
    });
    let mut client = TcpStream::connect(address).expect("connects");
    let bytes: Vec<u8> = pieces.concat();
    for chunk in bytes.chunks(cut.max(1)) {
        if client.write_all(chunk).is_err() {
            break;
        }
    }
    if !silent {
        let _ = client.shutdown(Shutdown::Write);
    }
    let outcome = finished
        .recv_timeout(Duration::from_secs(20))
        .expect("the follower ends its connection in time");
    // A silent peer is dropped; a closed one ends the connection; nothing else fails it
    // but a frame that cannot be cut.
    if let Err(e) = &outcome {
        assert!(
            e.contains("sent nothing")
                || e.contains("closed")
                || e.contains("message of more")
                || e.contains("not ASCII")
                || e.contains("connection error"),
            "{e}"
        );
    }
    let _ = client.set_read_timeout(Some(Duration::from_secs(5)));
    let mut answer = Vec::new();
    let _ = client.read_to_end(&mut answer);
    let mut framer = Framer::default();
    framer.push(&answer);
    while let Some(message) = framer.next_message() {
        let text = message.expect("answers are framed");
        assert!(Message::parse(&text).is_ok(), "unreadable answer {text:?}");
    }
}

proptest! {
    #![proptest_config(config(40))]
    #[test]
    fn dxp_followers_survive_any_stream(
        pieces in pieces(),
        cut in 1usize..64,
        silent in any::<bool>(),
    ) {
        follower_session(&pieces, cut, silent);
    }
}

proptest! {
    #![proptest_config(config(1000))]
    #[test]
    #[ignore = "long fuzz run (1000 DXP connections, minutes)"]
    fn dxp_long_run(pieces in pieces(), cut in 1usize..64, silent in any::<bool>()) {
        follower_session(&pieces, cut, silent);
    }
}
