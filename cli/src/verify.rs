//! `damka verify`: checksums and full consistency of every table.

use std::path::PathBuf;

use damka::rules::Rules;
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;
use damka::tablebase::{SliceCheck, verify_slice};
use damka::{Variant, with_rules};

use super::tables::{open, slices, tables_dir, variants};
use super::{CliError, print_out};

/// Arguments of `damka verify`.
#[derive(clap::Args)]
pub struct Args {
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Only this variant's tables.
    #[arg(long)]
    variant: Option<Variant>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let dir = tables_dir(&args.tables);
    let tb = open(&dir, DEFAULT_CACHE_BYTES)?;
    let mut bad = 0;
    let mut checked = 0;
    for variant in variants(&dir, args.variant) {
        for m in slices(&dir, variant)? {
            let verdict = with_rules!(variant, R => check::<R>(&tb, m));
            checked += 1;
            if verdict != "ok" {
                bad += 1;
            }
            print_out(&format!("{variant} {m} {verdict}\n"))?;
        }
    }
    print_out(&format!("slices {checked}, bad {bad}\n"))?;
    if bad > 0 {
        return Err(CliError {
            message: format!("{bad} slices failed verification"),
            code: 1,
        });
    }
    Ok(())
}

fn check<R: Rules>(tb: &damka::tablebase::Tablebase, m: damka::tablebase::Material) -> String {
    match verify_slice::<R>(tb, m) {
        Ok(SliceCheck::Ok) => "ok".to_string(),
        Ok(SliceCheck::Bad {
            index,
            stored,
            expected,
        }) => {
            format!("bad index {index}: stored {stored}, moves give {expected}")
        }
        Err(e) => format!("error: {e}"),
    }
}
