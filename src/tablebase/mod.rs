//! Endgame tables: every position of a material slice with its perfect-play result and
//! distance, built by retrograde analysis, stored compressed, probed from the files with
//! positioned reads (or a memory map, see [`Access`]).
//!
//! The file format is described in `docs/FORMAT.md`.

pub mod derived_rules;
pub mod format;
pub mod generate;
pub mod index;
mod le_words;
mod levels;
pub mod material;
pub mod one_side;
pub mod outcome;
pub mod probe;
pub mod rule_result;
pub mod table;
mod two_counts;
pub mod verify;

pub use derived_rules::{DerivedRules, derive_rules};
pub use format::{FileKind, TableError};
pub use generate::{Estimate, GenerateError, Progress, Silent, SliceReport, build_job, estimate};
pub use index::{MoverFrame, SliceIndex};
pub use material::{Material, SliceJob, plan};
pub use one_side::{
    LeftUnread, OneSide, even_rows, forced_exchange, leave_unread, one_side, rows_alternate,
};
pub use outcome::{Outcome, Wdl};
pub use probe::{ProbeError, RatedMove, RuleMove, Tablebase};
pub use rule_result::{RuleCategory, RuleResult};
pub use table::Access;
pub use verify::{PairChecks, SliceCheck, verify_pair, verify_slice};
