//! `damka hub`: the Hub protocol on stdin and stdout (see [`session`]).

#[cfg(test)]
mod fuzz;
mod session;

use std::path::PathBuf;

use damka::Variant;

use super::tables::tables_dir;
use super::{CliError, rule_set};

/// Arguments of `damka hub`.
#[derive(clap::Args)]
pub struct Args {
    /// Variant until the GUI sets one with `set-param name=variant`.
    #[arg(long, default_value = "international")]
    variant: Variant,
    /// Tables directory (default: $DAMKA_TABLES, else `tables`), used when it exists.
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Transposition table size in MiB (1 to 65536).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=session::MAX_HASH_MB as i64))]
    hash: u32,
    /// Draw rules of the variant (`set-param name=rules`; default: the variant's first, as
    /// `docs/RULES.md` lists them).
    #[arg(long)]
    rules: Option<String>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let options = session::Options {
        variant: args.variant,
        rules: Some(rule_set(args.variant, args.rules.as_deref())?),
        hash_mb: args.hash as usize,
        tables: tables_dir(&args.tables)?,
    };
    match session::run(std::io::stdin().lock(), std::io::stdout(), options) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError {
            message: format!("cannot write output: {e}"),
            code: 1,
        }),
        _ => Ok(()),
    }
}
