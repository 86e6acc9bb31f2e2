//! The shared PDN corpus, read from `../shared/corpus/pdn` beside the repository (see its
//! `MANIFEST.md` for where each file comes from). A test that needs a corpus file fails under
//! `CI=true` when the file is missing, and otherwise says loudly that it tested nothing.
//!
//! Include it with `#[path = "common/corpus.rs"] mod corpus;`.

use std::path::PathBuf;

/// Where the corpus is: `../shared/corpus/pdn` from the repository root.
pub fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").exists())
        .unwrap_or(env!("CARGO_MANIFEST_DIR").as_ref())
        .join("../shared/corpus/pdn")
}

/// Whether a missing input fails the test: `CI` set to `true` (or `1`).
fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The corpus file `relative` (`checkerboard/tinsley.pdn`), or `None` when it is missing
/// outside CI (after saying so on stderr). Under `CI=true` a missing file panics with how to
/// get it.
pub fn corpus_file(relative: &str) -> Option<PathBuf> {
    let path = corpus_dir().join(relative);
    if path.is_file() {
        return Some(path);
    }
    let how = format!(
        "{} is missing: the PDN corpus belongs beside the repository, in \
         ../shared/corpus/pdn (its MANIFEST.md names the repository and commit of each file)",
        path.display()
    );
    assert!(!required(), "{how}");
    eprintln!("NOT TESTED: {how}; with CI=true this test fails");
    None
}
