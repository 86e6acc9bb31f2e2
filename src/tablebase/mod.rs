//! Endgame tables: every position of a material slice with its perfect-play result and
//! distance, built by retrograde analysis, stored compressed, probed from the files with
//! positioned reads (or a memory map, see [`Access`]).
//!
//! The modules are in layers, each importing only those listed before it: the vocabulary
//! ([`value`], `unread`, the filesystem [`fs`]), the index of a slice ([`index`]), the file
//! format ([`format`]), the tables directory ([`store`]), the probe ([`probe`]), then the passes that write and check files side by side
//! ([`generate`], [`verify`], [`compact`]). The file format is described in
//! `docs/FORMAT.md`.

pub mod compact;
pub mod format;
pub mod fs;
pub mod generate;
pub mod index;
pub mod probe;
pub mod store;
mod unread;
pub mod value;
pub mod verify;

pub use compact::{DerivedRules, LeftUnread, OneSide, derive_rules, leave_unread, one_side};
pub use format::{Access, FileKind, TableError};
pub use generate::{Estimate, GenerateError, Progress, Silent, SliceReport, build_job, estimate};
pub use index::material::{Material, SliceJob, plan};
pub use index::{MoverFrame, SliceIndex};
pub use probe::{ProbeError, RatedMove, RuleMove, Tablebase};
pub use store::{Listing, Store};
pub use unread::{even_rows, forced_exchange, rows_alternate};
pub use value::{Outcome, RuleCategory, RuleResult, Wdl};
pub use verify::{PairChecks, SliceCheck, verify_pair, verify_slice};
