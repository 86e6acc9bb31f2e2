//! Probing: a directory of tables opened lazily ([`Tablebase`]), the capture search that
//! answers positions the files leave out (`capture`), results under the move-count rules
//! (`rules`), and the perfect-play line from a position ([`Mainline`]).

mod capture;
mod mainline;
mod rules;
mod tables;

pub use mainline::{Mainline, Step};
pub use rules::derivable;
pub use tables::{DEFAULT_CACHE_BYTES, ProbeError, RatedMove, RuleMove, Tablebase};
