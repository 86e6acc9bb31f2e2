//! `damka probe`: the perfect-play result of a position and of each of its moves.

use std::path::PathBuf;

use damka::notation::move_text;
use damka::rules::Rules;
use damka::tablebase::Wdl;
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;
use damka::with_rules;

use super::tables::{open, tables_dir};
use super::{CliError, PositionArgs, print_out, read_fen};

/// Arguments of `damka probe`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    with_rules!(args.position.variant, R => probe::<R>(&args))
}

fn probe<R: Rules>(args: &Args) -> Result<(), CliError> {
    let pos = read_fen::<R>(&args.position.fen)?;
    let tb = open(&tables_dir(&args.tables), DEFAULT_CACHE_BYTES)?;
    let failed = |e: damka::tablebase::ProbeError| CliError {
        message: e.to_string(),
        code: 1,
    };
    let outcome = tb.probe_dtw(&pos).map_err(failed)?;
    let rated = tb.rated_moves(&pos).map_err(failed)?;
    let legal: Vec<_> = rated.iter().map(|r| r.mv.clone()).collect();
    let mut out = format!("result {}\n", outcome.wdl);
    if outcome.wdl != Wdl::Draw {
        out.push_str(&format!("dtw {}\n", outcome.dtw));
    }
    for (i, r) in rated.iter().enumerate() {
        let text = move_text(R::VARIANT, &legal, i);
        match r.outcome.wdl {
            Wdl::Draw => out.push_str(&format!("{text} draw\n")),
            w => out.push_str(&format!("{text} {w} {}\n", r.outcome.dtw)),
        }
    }
    print_out(&out)
}
