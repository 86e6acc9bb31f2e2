//! Passes that re-encode finished tables smaller: one side to move ([`one_side`]), positions
//! a probe settles by a short search left unread ([`leave_unread`]), rule results derived
//! from the distances to conversion ([`derive_rules`]).

mod derived_rules;
mod one_side;

pub use derived_rules::{DerivedRules, derive_rules};
pub use one_side::{LeftUnread, OneSide, leave_unread, one_side};
