//! Perft benches: bulk-counted perft per variant (placeholder replaced below).
fn main() {}
