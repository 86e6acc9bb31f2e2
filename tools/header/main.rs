//! `include/damka.h` is generated from this crate by cbindgen and kept in the repository;
//! this test regenerates it in memory and fails when the file differs. It also checks the
//! board layout table in `damka_position`'s documentation against the library's squares.
//!
//! To update both after changing the API: `DAMKA_BLESS=1 cargo test -p damka-capi header`.

use std::path::{Path, PathBuf};

use damka::Variant;
use damka::notation::squares::{square_from_file_rank, square_name};

const LAYOUT_HEADING: &str = "/// Squares and bits by variant:";

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn header_path() -> PathBuf {
    crate_dir().join("../include/damka.h")
}

fn blessing() -> bool {
    std::env::var_os("DAMKA_BLESS").is_some_and(|v| v == "1")
}

/// Writes `text` to `path` through a temporary file renamed into place.
fn write_atomically(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).expect("write the temporary file");
    std::fs::rename(&tmp, path).expect("rename into place");
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

/// Checks (or, blessing, rewrites) the layout table at the end of `damka_position`'s docs.
fn check_layout() {
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
        return;
    }
    if blessing() {
        let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
        out.extend(expected);
        out.extend(lines[end..].iter().map(|l| l.to_string()));
        write_atomically(&path, &(out.join("\n") + "\n"));
    } else {
        panic!(
            "the square layout in src/position.rs is out of date: run \
             `DAMKA_BLESS=1 cargo test -p damka-capi header` to update it"
        );
    }
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

#[test]
fn header_is_current() {
    check_layout();
    let fresh = generate();
    let path = header_path();
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    if fresh == kept {
        return;
    }
    if blessing() {
        write_atomically(&path, &fresh);
    } else {
        panic!(
            "include/damka.h is out of date with capi/src: run \
             `DAMKA_BLESS=1 cargo test -p damka-capi header` to regenerate it"
        );
    }
}
