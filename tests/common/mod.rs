//! What several tests share, in every crate of the workspace (the library's `tests/`,
//! `cli/tests/`, capi's and the benches'): each includes it by `#[path]`.

/// A tiny deterministic random generator (a 64-bit linear congruential one), so that tests
/// that draw random positions draw the same ones on every run.
pub struct Lcg(pub u64);

impl Lcg {
    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) % n
    }
}
