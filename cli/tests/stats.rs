//! `damka stats` on the English tables up to 4 pieces (shared with the other test
//! binaries): its counts against a probe of every position, its examples against probes of
//! them, its table against its JSON, and `verify` against the headers it reads.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use damka::Variant;
use damka::notation::parse_fen;
use damka::rules::{English, may_capture};
use damka::tablebase::{Material, SliceIndex, Tablebase, Wdl};
use serde_json::Value;

#[path = "../../tests/common/tables.rs"]
mod shared;

fn tables() -> PathBuf {
    shared::shared_tables(
        Path::new(env!("CARGO_BIN_EXE_damka")),
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        Variant::English,
    )
}

fn damka(args: &[&str], tables: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(args)
        .arg("--tables")
        .arg(tables)
        .output()
        .expect("damka runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("a number: {v}"))
}

/// What probing every position of slice `m` gives: per result (win, draw, loss) the stored
/// positions and all positions, the indices without a position, and per distance (to the
/// end, to conversion) the longest over the stored won and lost positions with its first
/// index.
#[derive(Debug, Default)]
struct Probed {
    stored: [u64; 3],
    all: [u64; 3],
    no_position: u64,
    longest: [Option<(u16, u64)>; 2],
}

fn probe_all(tb: &Tablebase, m: Material) -> Probed {
    let index = SliceIndex::<English>::new(m);
    let mut p = Probed::default();
    for i in 0..index.size() {
        let Some(frame) = index.unrank(i) else {
            p.no_position += 1;
            continue;
        };
        let pos = frame.position::<English>();
        let o = tb.probe_dtw(&pos).expect("the tables answer");
        let r = match o.wdl {
            Wdl::Win => 0,
            Wdl::Draw => 1,
            Wdl::Loss => 2,
        };
        p.all[r] += 1;
        if may_capture(&pos) {
            continue;
        }
        p.stored[r] += 1;
        if o.wdl != Wdl::Draw {
            let dtc = tb.probe_dtc(&pos).expect("the tables answer");
            let dtc = dtc.expect("a won or lost position has a distance to conversion");
            for (longest, d) in p.longest.iter_mut().zip([o.dtw, dtc]) {
                if longest.is_none_or(|(l, _)| d > l) {
                    *longest = Some((d, i));
                }
            }
        }
    }
    p
}

#[test]
fn stats_counts_and_examples_are_those_of_the_positions() {
    let dir = tables();
    let tb = Tablebase::open(&dir).expect("open");
    let out = damka(&["stats", "--variant", "english", "--json"], &dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(rows.len(), 41, "every slice up to 4 pieces");
    for row in &rows {
        let key = row["slice"].as_str().expect("a key");
        let m: Material = key.parse().expect("a slice key");
        let p = probe_all(&tb, m);
        let positions = n(&row["positions"]);
        assert_eq!(positions, SliceIndex::<English>::new(m).size(), "{key}");
        let results = |v: &Value| [n(&v["wins"]), n(&v["draws"]), n(&v["losses"])];
        let (stored, resolved) = (results(&row["stored"]), results(&row["resolved"]));
        assert_eq!(stored, p.stored, "{key}: stored");
        assert_eq!(resolved, p.all, "{key}: resolved");
        let not_stored = n(&row["not_stored"]);
        assert_eq!(stored.iter().sum::<u64>() + not_stored, positions, "{key}");
        assert_eq!(
            resolved.iter().sum::<u64>() + p.no_position,
            positions,
            "{key}"
        );
        for (kind, longest) in ["dtw", "dtc"].iter().zip(p.longest) {
            let d = &row[*kind];
            let plies = n(&d["plies"]) as u16;
            match longest {
                None => {
                    assert_eq!(plies, 0, "{key} {kind}");
                    assert!(d["index"].is_null() && d["fen"].is_null(), "{key} {kind}");
                }
                Some((l, at)) => {
                    assert_eq!((plies, n(&d["index"])), (l, at), "{key} {kind}");
                    let fen = d["fen"].as_str().expect("an example");
                    let pos = parse_fen::<English>(fen).expect("a FEN");
                    let probed = match *kind {
                        "dtw" => tb.probe_dtw(&pos).expect("probes").dtw,
                        _ => tb.probe_dtc(&pos).expect("probes").expect("a distance"),
                    };
                    assert_eq!(probed, plies, "{key} {kind}: {fen}");
                }
            }
        }
    }
    // Some slice has capture positions of each result, and a long distance.
    let total = |f: &dyn Fn(&Value) -> u64| rows.iter().map(f).sum::<u64>();
    assert!(total(&|r| n(&r["resolved"]["losses"]) - n(&r["stored"]["losses"])) > 0);
    assert!(rows.iter().any(|r| n(&r["dtw"]["plies"]) > 50));
}

#[test]
fn stats_table_holds_the_json_values_and_verify_agrees_with_them() {
    let dir = tables();
    let asked = [
        "stats",
        "--variant",
        "english",
        "--slice",
        "1111",
        "--slice",
        "0220",
    ];
    let table = damka(&asked, &dir);
    assert!(table.status.success(), "{}", text(&table.stderr));
    let stdout = text(&table.stdout);
    let mut lines = stdout.lines();
    let titles: Vec<&str> = lines
        .next()
        .expect("a title line")
        .split_whitespace()
        .collect();
    assert_eq!(
        titles,
        [
            "variant",
            "slice",
            "positions",
            "wins",
            "draws",
            "losses",
            "not_stored",
            "wins_resolved",
            "draws_resolved",
            "losses_resolved",
            "longest_dtc",
            "dtc_example",
            "longest_dtw",
            "dtw_example"
        ]
    );
    let mut json = asked.to_vec();
    json.push("--json");
    let json = damka(&json, &dir);
    let json: Vec<Value> = text(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    for (row, j) in rows.iter().zip(&json) {
        let expected = [
            j["variant"].as_str().expect("variant").to_string(),
            j["slice"].as_str().expect("slice").to_string(),
            j["positions"].to_string(),
            j["stored"]["wins"].to_string(),
            j["stored"]["draws"].to_string(),
            j["stored"]["losses"].to_string(),
            j["not_stored"].to_string(),
            j["resolved"]["wins"].to_string(),
            j["resolved"]["draws"].to_string(),
            j["resolved"]["losses"].to_string(),
            j["dtc"]["plies"].to_string(),
            j["dtc"]["fen"].as_str().expect("fen").to_string(),
            j["dtw"]["plies"].to_string(),
            j["dtw"]["fen"].as_str().expect("fen").to_string(),
        ];
        assert_eq!(*row, expected, "{stdout}");
    }
    // Slices in the order of the listing: piece count, then key.
    assert_eq!([rows[0][1], rows[1][1]], ["0220", "1111"]);
    // `verify` recounts what the headers say, the statistics included.
    let verify = damka(
        &[
            "verify",
            "--variant",
            "english",
            "--slice",
            "1111",
            "--slice",
            "0220",
        ],
        &dir,
    );
    assert_eq!(
        text(&verify.stdout),
        "english 0220 ok\nenglish 1111 ok\nslices 2, bad 0, missing 0\n"
    );
}

#[test]
fn stats_without_tables_or_of_a_slice_not_built_says_so() {
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("stats-none");
    let out = damka(&["stats"], &empty);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no tables directory"),
        "{}",
        text(&out.stderr)
    );
    let out = damka(
        &["stats", "--variant", "english", "--slice", "5005"],
        &tables(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no english tables for slice 5005"),
        "{}",
        text(&out.stderr)
    );
}
