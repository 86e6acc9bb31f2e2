//! The vocabulary of the tables: a position's result with its distance ([`Outcome`],
//! [`Wdl`]), its result under the move-count rules ([`RuleResult`]), and the one fold that
//! takes the best over a position's moves.

mod outcome;
mod rule_result;

pub use outcome::{Outcome, Wdl, wdl_code};
pub(crate) use rule_result::{Contribution, Moves, next_layer, quiet_used};
pub use rule_result::{RuleCategory, RuleResult};
