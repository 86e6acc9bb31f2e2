//! The shared PDN corpus, read from `../shared/corpus/pdn` beside the repository (see its
//! `MANIFEST.md` for where each file comes from). It is always there in CI: a test that needs
//! it fails when it is missing, saying where it belongs.
//!
//! Include it with `#[path = "common/corpus.rs"] mod corpus;` (from `cli/tests/`:
//! `#[path = "../../tests/common/corpus.rs"]`).

use std::path::PathBuf;

/// The path of `relative` in the corpus (`checkerboard/tinsley.pdn`; `""` for the corpus
/// itself). Panics, naming the path and where the corpus belongs, when it is missing.
pub fn corpus_path(relative: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").exists())
        .unwrap_or(env!("CARGO_MANIFEST_DIR").as_ref())
        .join("../shared/corpus/pdn");
    let path = dir.join(relative);
    assert!(
        path.exists(),
        "{} is missing: the PDN corpus belongs beside the repository, in \
         ../shared/corpus/pdn (its MANIFEST.md names the repository and commit of each file)",
        path.display()
    );
    path
}
