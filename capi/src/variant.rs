//! Variants from C's arguments: by PDN GameType number or by name.

use std::ffi::c_int;

use damka::Variant;

use crate::status::{Failure, damka_status};

/// The variant with PDN GameType `number`.
#[inline]
pub(crate) fn variant_of_number(number: c_int) -> Result<Variant, Failure> {
    u8::try_from(number)
        .ok()
        .and_then(Variant::from_game_type)
        .ok_or_else(|| {
            let mut numbers: Vec<u8> = Variant::ALL.iter().map(|v| v.game_type()).collect();
            numbers.sort_unstable();
            let numbers: Vec<String> = numbers.iter().map(u8::to_string).collect();
            Failure::new(
                damka_status::DAMKA_ERR_VARIANT,
                format!(
                    "unknown variant number {number} (expected a PDN GameType: {})",
                    numbers.join(", ")
                ),
            )
        })
}

/// The variant named `name` (`english`, ...).
pub(crate) fn variant_of_name(name: &str) -> Result<Variant, Failure> {
    name.parse()
        .map_err(|e| Failure::new(damka_status::DAMKA_ERR_VARIANT, e))
}
