//! Tables that several test binaries share: every variant up to 4 pieces, built by the
//! `damka` binary under test into one directory of the target directory, so that a test run
//! builds each variant once however many test binaries probe it.
//!
//! The directory is named after the binary (its size and modification time): a rebuilt
//! binary gets fresh tables, built by its own generator, and the directories of older
//! binaries are removed. `damka generate` skips the slices already built, writes each file
//! under a temporary name and renames it when complete, so a killed run leaves nothing
//! half-written. Test binaries run one after the other; within one, a lock keeps two tests
//! from building at once.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

/// Piece count of the shared tables.
pub const PIECES: u32 = 4;

/// Prefix of the shared directories' names in the target directory's `tmp`.
const PREFIX: &str = "shared-tables-";

/// The directory holding `variant`'s tables (named as `damka generate --variant` names
/// it) up to [`PIECES`] pieces, built by `damka` (the path of the binary) on first use.
pub fn shared_tables(damka: &Path, tmp: &Path, variant: &str) -> PathBuf {
    static BUILDING: Mutex<()> = Mutex::new(());
    let dir = tmp.join(format!("{PREFIX}{}", stamp(damka)));
    let _one_at_a_time = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    remove_others(tmp, &dir);
    let out = Command::new(damka)
        .args(["generate", "--variant", variant, "--pieces"])
        .arg(PIECES.to_string())
        .arg("--tables")
        .arg(&dir)
        .arg("--quiet")
        .output()
        .expect("damka generate runs");
    assert!(
        out.status.success(),
        "damka generate --variant {variant}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
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
