//! Tables that several test binaries share: every variant up to 4 pieces (Turkish: see
//! [`holds`]), built by the `damka` binary under test into one directory of the target
//! directory, so that a test run builds each variant once however many test binaries probe
//! it.
//!
//! The directory is named after the binary (its size and modification time): a rebuilt
//! binary gets fresh tables, built by its own generator, and the directories of older
//! binaries are removed. `damka generate` skips the slices already built, writes each file
//! under a temporary name and renames it when complete, so a killed run leaves nothing
//! half-written. Test binaries run one after the other; within one, a lock per variant keeps
//! two tests from building the same tables at once, while different variants build side by
//! side.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

use damka::Variant;
use damka::tablebase::Material;

/// Piece count of the shared tables.
pub const PIECES: u32 = 4;

/// Prefix of the shared directories' names in the target directory's `tmp`.
const PREFIX: &str = "shared-tables-";

/// Whether the shared tables hold slice `m` of `variant`: every slice up to [`PIECES`]
/// pieces, but of Turkish's 4-piece slices only the kings-only ones. Turkish's 4-piece
/// slices with men (64 squares: three quarters of the build and verification time of all
/// seven variants) are built and verified by `.ci/run` instead, keeping `cargo test` under
/// 8 minutes on 2 cores.
pub fn holds(variant: Variant, m: Material) -> bool {
    m.pieces() < PIECES || variant != Variant::Turkish || m.men() == 0
}

/// The directory holding `variant`'s tables (the slices [`holds`] names; the same directory
/// for every variant), built by `damka` (the path of the binary) on first use; `tmp` is the
/// target directory's `tmp`.
pub fn shared_tables(damka: &Path, tmp: &Path, variant: Variant) -> PathBuf {
    static BUILDING: [Mutex<()>; 7] = [const { Mutex::new(()) }; 7];
    let slot = Variant::ALL
        .iter()
        .position(|&v| v == variant)
        .expect("a known variant");
    let dir = tmp.join(format!("{PREFIX}{}", stamp(damka)));
    let _one_at_a_time = BUILDING[slot].lock().unwrap_or_else(|e| e.into_inner());
    remove_others(tmp, &dir);
    if variant != Variant::Turkish {
        generate(damka, &dir, variant, &["--pieces", &PIECES.to_string()]);
        return dir;
    }
    generate(
        damka,
        &dir,
        variant,
        &["--pieces", &(PIECES - 1).to_string()],
    );
    for m in Material::all_up_to(PIECES, 20) {
        let built = [m, m.flipped()].iter().all(|s| {
            ["wdl", "dtw"].iter().all(|kind| {
                dir.join(variant.name())
                    .join(format!("{s}.{kind}"))
                    .is_file()
            })
        });
        if m.pieces() == PIECES && holds(variant, m) && !built {
            generate(damka, &dir, variant, &["--slice", &m.to_string()]);
        }
    }
    dir
}

/// Runs `damka generate --variant VARIANT ARGS --tables DIR --quiet --dtw`: the shared
/// tables hold every kind of file, distances to the end included.
pub fn generate(damka: &Path, dir: &Path, variant: Variant, args: &[&str]) {
    generate_with(damka, dir, variant, &[&["--dtw"], args].concat());
}

/// Runs `damka generate --variant VARIANT ARGS --tables DIR --quiet`: the default files,
/// without distances to the end.
#[allow(dead_code)] // Not every test binary that includes this file builds lean tables.
pub fn generate_lean(damka: &Path, dir: &Path, variant: Variant, args: &[&str]) {
    generate_with(damka, dir, variant, args);
}

fn generate_with(damka: &Path, dir: &Path, variant: Variant, args: &[&str]) {
    let out = Command::new(damka)
        .args(["generate", "--variant", variant.name()])
        .args(args)
        .arg("--tables")
        .arg(dir)
        .arg("--quiet")
        .output()
        .expect("damka generate runs");
    assert!(
        out.status.success(),
        "damka generate --variant {variant} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The binary's size and modification time, in hexadecimal.
fn stamp(damka: &Path) -> String {
    let meta = std::fs::metadata(damka).expect("the damka binary");
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("{:x}-{modified:x}", meta.len())
}

/// Removes the shared directories of other binaries.
fn remove_others(tmp: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let shared = entry.file_name().to_string_lossy().starts_with(PREFIX);
        if shared && path != keep {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}
