//! The table file: its header and block table ([`Header`]), the block encoder that writes
//! blocks, and the reader that opens, checks and decodes them ([`TableFile`]). Documented
//! for other languages in `docs/FORMAT.md`.

pub(crate) mod encode;
mod header;
pub(crate) mod le_words;
mod table;

pub use super::value::wdl_code;
pub use header::*;
pub use table::{Access, TableFile, read_header};
pub(crate) use table::{BlockCache, decompress_values};
