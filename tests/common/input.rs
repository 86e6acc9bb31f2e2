//! Inputs from outside the repository (the PDN corpus beside it, in `../shared`): a test
//! whose input is missing fails under `CI=true`; elsewhere it says that it was skipped.

use std::path::Path;

/// Whether `path` is there. When it is not: a panic under `CI=true`, else a line saying
/// that `what` was skipped.
pub fn present(path: &Path, what: &str) -> bool {
    if path.exists() {
        return true;
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !ci,
        "{what}: {} is missing, and under CI=true a test may not pass without its input",
        path.display()
    );
    eprintln!("skipped: {what}: {} is missing", path.display());
    false
}
