//! Passes that re-encode finished tables smaller: one side to move ([`one_side`]), positions
//! a probe settles by a short search left unread ([`leave_unread`]), rule results derived
//! from the distances to conversion ([`derive_rules`]); files of older format versions
//! converted to the current one ([`upgrade`]).

mod derived_rules;
mod one_side;
mod upgrade;

pub use derived_rules::{DerivedRules, derive_rules};
pub use one_side::{LeftUnread, OneSide, leave_unread, one_side};
pub use upgrade::{Upgraded, upgrade};
