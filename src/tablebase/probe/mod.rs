//! Probing: a directory of tables opened lazily ([`Tablebase`]), the capture search that
//! answers positions the files leave out (`capture`), and results under the move-count
//! rules (`rules`).

mod capture;
mod rules;
mod tables;

pub use rules::derivable;
pub use tables::{DEFAULT_CACHE_BYTES, ProbeError, RatedMove, RuleMove, Tablebase};
