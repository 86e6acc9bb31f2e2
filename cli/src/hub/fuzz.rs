//! Property tests of the Hub session: lines built from the protocol's commands and
//! parameters, with values of every size, are each answered without a panic. A fixed seed and
//! a bounded count keep the run short and the same everywhere; the long run is `#[ignore]`d
//! (`cargo test --release -p damka-cli --bin damka hub_long_run -- --ignored`).

use std::io::Cursor;
use std::path::PathBuf;

use damka::Variant;
use damka::notation::hub::syntax::parse_line;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

use super::session::{Options, run};

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(14),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Hub lines: the commands and parameters the protocol has, with values of every size.
fn hub_lines() -> impl Strategy<Value = Vec<String>> {
    let value = prop_oneof![
        "-?[0-9]{1,25}(\\.[0-9]{0,5})?(e[0-9]{1,3})?",
        Just("1e19".to_string()),
        Just("inf".to_string()),
        Just("NaN".to_string()),
        "[a-z ]{0,12}",
        Just("\"a b\"".to_string()),
        Just("\"unclosed".to_string()),
    ];
    let name = prop::sample::select(vec![
        "depth",
        "nodes",
        "move-time",
        "time",
        "inc",
        "moves",
        "name",
        "value",
        "pos",
        "fen",
        "moves",
        "x",
    ]);
    let arg = (name, prop::option::of(value)).prop_map(|(n, v)| match v {
        Some(v) => format!("{n}={v}"),
        None => n.to_string(),
    });
    let command = prop::sample::select(vec![
        "hub",
        "set-param",
        "level",
        "pos",
        "ping",
        "new-game",
        "stop",
        "ponder-hit",
        "go",
        "frobnicate",
        "",
    ]);
    let line = (command, prop::collection::vec(arg, 0..5))
        .prop_map(|(c, args)| format!("{c} {}", args.join(" ")));
    prop::collection::vec(line, 0..8)
}

/// A Hub session over `lines`, ended by `ping` and `quit`: every line is answered without a
/// panic and the session ends with `pong`. Searches are kept short (depth 2).
fn hub_session(lines: &[String]) {
    let mut input =
        String::from("set-param name=variant value=english\nset-param name=hash value=1\n");
    for line in lines {
        // A `go` searches at most 2 plies deep and within a node count.
        let line = line.replace("go", "level depth=2 nodes=2000\ngo");
        input.push_str(&line);
        input.push('\n');
    }
    input.push_str("stop\nping\nquit\n");
    let out = SharedOut::default();
    let options = Options {
        variant: Variant::English,
        rules: None,
        hash_mb: 1,
        tables: PathBuf::new(),
    };
    run(Cursor::new(input.into_bytes()), out.clone(), options).expect("session");
    let text = String::from_utf8(out.0.lock().expect("output").clone()).expect("utf-8");
    assert!(text.lines().any(|l| l == "pong"), "{text}");
    assert!(!text.contains("the search failed"), "{text}");
    for line in text.lines() {
        assert!(parse_line(line).is_ok(), "unparsable answer {line}");
        assert!(line.len() < 2000, "a long answer: {line}");
    }
}

#[derive(Clone, Default)]
struct SharedOut(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for SharedOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("output").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

proptest! {
    #![proptest_config(config(60))]
    #[test]
    fn hub_sessions_answer_every_line(lines in hub_lines()) {
        hub_session(&lines);
    }
}

proptest! {
    #![proptest_config(config(3000))]
    #[test]
    #[ignore = "long fuzz run (3000 Hub sessions, minutes)"]
    fn hub_long_run(lines in hub_lines()) {
        hub_session(&lines);
    }
}
