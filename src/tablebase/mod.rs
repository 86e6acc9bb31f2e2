//! Endgame tables: every position of a material slice with its perfect-play result and
//! distance, built by retrograde analysis, stored compressed, probed from the files with
//! positioned reads (or a memory map, see [`Access`]).
//!
//! The modules are in layers, each importing only those listed before it: the vocabulary
//! (`value`: results and the best-of fold; `unread`: the positions files may leave out; the
//! filesystem [`fs`]), the index of a slice (`index`), the file format
//! ([`format`](mod@format)), the tables directory ([`Store`]), the probe ([`probe`]), then
//! the passes that write and check files side by side ([`generate`], `verify`, `compact`).
//! What other crates use is re-exported here; [`format`](mod@format) is public for tools
//! that read table files themselves. The file format is described in `docs/FORMAT.md`.

mod compact;
pub mod format;
pub mod fs;
pub mod generate;
mod index;
pub mod probe;
mod store;
mod unread;
mod value;
mod verify;

pub use compact::{
    Compacted, DerivedRules, LeftUnread, OneSide, Upgraded, compact, derive_rules, leave_unread,
    one_side, upgrade,
};
pub use format::{Access, FileKind, TableError};
pub use generate::{Estimate, GenerateError, Progress, Silent, SliceReport, build_job, estimate};
pub use index::material::{Material, SliceJob, plan};
pub use index::{MoverFrame, SliceIndex};
pub use probe::{ProbeError, RatedMove, RuleMove, Tablebase};
pub use store::{BuildLock, Builder, Contents, Listing, LockError, Store};
pub use unread::{converts_at_once, even_rows, forced_exchange, rows_alternate};
pub use value::{Outcome, RuleCategory, RuleResult, Wdl};
pub use verify::{PairChecks, SliceCheck, verify_pair, verify_slice};
