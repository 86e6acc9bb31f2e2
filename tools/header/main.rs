//! `include/damka.h` is generated from `capi/` by cbindgen and kept in the repository: this
//! tool regenerates it in memory and fails (exit 1) when the file differs. It also checks
//! the board layout table in `damka_position`'s documentation (`capi/src/position.rs`)
//! against the library's squares.
//!
//! `cargo run -p damka-header` checks both (`.ci/run` does); after changing the C API,
//! `cargo run -p damka-header -- --bless` rewrites them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use damka::Variant;
use damka::notation::squares::{square_from_file_rank, square_name};

const LAYOUT_HEADING: &str = "/// Squares and bits by variant:";

/// The C-ABI crate, `capi/`.
fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../capi")
}

fn header_path() -> PathBuf {
    crate_dir().join("../include/damka.h")
}

/// Writes `text` as the whole of `path` ([`damka::files::write_atomically`]).
fn write_atomically(path: &Path, text: &str) {
    damka::files::write_atomically(path, text.as_bytes()).expect("write the file");
}

/// The board of each variant from White's side, a line a rank from the top, each playable
/// square as `name=bit`, from the library's own numbering.
fn layout_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for variant in Variant::ALL {
        let size = if variant == Variant::International {
            10
        } else {
            8
        };
        lines.push(format!("///   {variant}:"));
        for rank in (0..size).rev() {
            let cells: Vec<String> = (0..size)
                .filter_map(|file| square_from_file_rank(variant, file, rank))
                .map(|sq| format!("{:>3}={:<2}", square_name(variant, sq), sq.bit()))
                .collect();
            lines.push(format!("///     {}", cells.join(" ").trim_end()));
        }
    }
    lines
}

/// Checks (or, blessing, rewrites) the layout table at the end of `damka_position`'s docs;
/// the complaint when it is out of date and not rewritten.
fn check_layout(bless: bool) -> Option<String> {
    let path = crate_dir().join("src/position.rs");
    let source = std::fs::read_to_string(&path).expect("read src/position.rs");
    let lines: Vec<&str> = source.lines().collect();
    let start = lines
        .iter()
        .position(|l| *l == LAYOUT_HEADING)
        .expect("the layout heading in src/position.rs")
        + 1;
    let end = start
        + lines[start..]
            .iter()
            .position(|l| !l.starts_with("///"))
            .expect("the end of the layout table");
    let expected = layout_lines();
    if lines[start..end] == expected {
        return None;
    }
    if bless {
        let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
        out.extend(expected);
        out.extend(lines[end..].iter().map(|l| l.to_string()));
        write_atomically(&path, &(out.join("\n") + "\n"));
        println!("rewrote the square layout in capi/src/position.rs");
        return None;
    }
    Some("the square layout in capi/src/position.rs is out of date".into())
}

fn generate() -> String {
    let config =
        cbindgen::Config::from_file(crate_dir().join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir())
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("the header is UTF-8")
}

/// Checks (or, blessing, rewrites) `include/damka.h`; the complaint when it is stale.
fn check_header(bless: bool) -> Option<String> {
    let fresh = generate();
    let path = header_path();
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    if fresh == kept {
        return None;
    }
    if bless {
        write_atomically(&path, &fresh);
        println!("rewrote include/damka.h");
        return None;
    }
    Some("include/damka.h is out of date with capi/src".into())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bless = match args.as_slice() {
        [] => false,
        [flag] if flag == "--bless" => true,
        _ => {
            eprintln!("usage: damka-header [--bless]");
            return ExitCode::from(2);
        }
    };
    let complaints: Vec<String> = [check_layout(bless), check_header(bless)]
        .into_iter()
        .flatten()
        .collect();
    if complaints.is_empty() {
        println!("include/damka.h and the square layout are current");
        return ExitCode::SUCCESS;
    }
    for c in complaints {
        eprintln!("error: {c}");
    }
    eprintln!("run `cargo run -p damka-header -- --bless` to regenerate them");
    ExitCode::FAILURE
}
