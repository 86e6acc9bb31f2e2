//! `damka probe`: the perfect-play result of a position and of each of its moves.

use std::path::{Path, PathBuf};

use damka::notation::diagram::text_diagram;
use damka::notation::move_text;
use damka::rules::{Counters, Position, Rules};
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;
use damka::tablebase::{ProbeError, TableError, Wdl};
use damka::with_rules;

use super::tables::{
    generate_command, material_text, open, slice_pieces, tables_dir, too_many_pieces,
};
use super::{CliError, PositionArgs, print_out, reachable, read_fen};

/// Arguments of `damka probe`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Draw rules of the `rules` line and the moves' categories (default: the variant's
    /// first, as `docs/RULES.md`); the tables' rules files must hold them.
    #[arg(long, value_name = "NAME")]
    rules: Option<String>,
    /// Plies already played without a conversion (capture or man move), 0 to 4294967295;
    /// every count past the rules' limits gives the same answer.
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true,
          value_parser = plies)]
    quiet_plies: u32,
    /// Plies already played since the material count of the position started, 0 to
    /// 4294967295.
    #[arg(long, value_name = "M", default_value_t = 0, allow_negative_numbers = true,
          value_parser = plies)]
    material_plies: u32,
}

/// A count of plies: 0 to `u32::MAX`, else what is wrong with it.
fn plies(text: &str) -> Result<u32, String> {
    text.parse().map_err(|_| {
        format!(
            "a count of plies is a whole number from 0 to {}, not {text}",
            u32::MAX
        )
    })
}

pub fn run(args: Args) -> Result<(), CliError> {
    with_rules!(args.position.variant, R => probe::<R>(&args))
}

/// Why a probe failed, for people: a table the position needs that is not there names the
/// position's pieces and the command that builds it (exit code 1, as a damaged table).
fn probe_error<R: Rules>(e: ProbeError, pos: &Position<R>, dir: &Path) -> CliError {
    let message = match e {
        ProbeError::Table(TableError::Missing(path)) => match missing_command::<R>(&path, dir) {
            Some(command) => format!(
                "the position has {}, and {} is not there: `{command}` builds it",
                material_text(pos),
                path.display(),
            ),
            None => format!(
                "the position has {}: {}",
                material_text(pos),
                too_many_pieces()
            ),
        },
        e => e.to_string(),
    };
    CliError { message, code: 1 }
}

/// The command that builds the missing table file `path`: the tables up to its slice's
/// pieces, `None` past what `generate` builds.
fn missing_command<R: Rules>(path: &Path, dir: &Path) -> Option<String> {
    generate_command(R::VARIANT, slice_pieces(path)?, dir)
}

fn probe<R: Rules>(args: &Args) -> Result<(), CliError> {
    let pos = read_fen::<R>(&args.position.fen)?;
    reachable(&pos)?;
    let dir = tables_dir(&args.tables)?;
    if !dir.is_dir() {
        let hint = generate_command(R::VARIANT, pos.occupied().count(), &dir)
            .map_or_else(too_many_pieces, |c| format!("build the tables with `{c}`"));
        return Err(CliError {
            message: format!(
                "no tables directory {}: the position has {}; {hint}",
                dir.display(),
                material_text(&pos),
            ),
            code: 1,
        });
    }
    let rules = super::rule_set(R::VARIANT, args.rules.as_deref())?;
    let counters = Counters {
        quiet: args.quiet_plies,
        material: args.material_plies,
    };
    let tb = open(&dir, DEFAULT_CACHE_BYTES)?;
    let (wdl, dtw) = tb
        .probe_result(&pos)
        .map_err(|e| probe_error(e, &pos, &dir))?;
    let rated = tb
        .rated_moves(&pos)
        .map_err(|e| probe_error(e, &pos, &dir))?;
    let legal: Vec<_> = rated.iter().map(|r| r.mv.clone()).collect();
    let mut out = match args.position.board {
        true => text_diagram(&pos),
        false => String::new(),
    };
    out.push_str(&format!("result {wdl}\n"));
    if let Some(dtw) = dtw {
        out.push_str(&format!("dtw {dtw}\n"));
    }
    // Tables built before rule results, or a rule set they do not hold: say so, and go on.
    let ruled = match tb.probe_rules(&pos, rules, counters) {
        Ok(category) => {
            out.push_str(&format!("rules {category}\n"));
            let moves = tb
                .rule_moves(&pos, rules, counters)
                .map_err(|e| probe_error(e, &pos, &dir))?;
            Some(moves)
        }
        Err(ProbeError::Table(TableError::Missing(path))) => {
            eprintln!(
                "note: no rule results: {} is not there ({})",
                path.display(),
                missing_command::<R>(&path, &dir)
                    .map_or_else(too_many_pieces, |c| format!("`{c}` adds them"))
            );
            None
        }
        Err(e @ ProbeError::NoRuleResults(_)) => {
            eprintln!("note: {e}");
            None
        }
        Err(e) => return Err(probe_error(e, &pos, &dir)),
    };
    if wdl != Wdl::Draw {
        match tb.probe_dtc(&pos) {
            Ok(Some(dtc)) => out.push_str(&format!("dtc {dtc}\n")),
            Ok(None) => {}
            // Tables built before distances to conversion: say how to add them.
            Err(ProbeError::Table(TableError::Missing(path))) => eprintln!(
                "note: no distance to conversion: {} is not there ({})",
                path.display(),
                missing_command::<R>(&path, &dir)
                    .map_or_else(too_many_pieces, |c| format!("`{c}` adds it"))
            ),
            Err(e) => return Err(probe_error(e, &pos, &dir)),
        }
    }
    for (i, r) in rated.iter().enumerate() {
        let text = move_text(R::VARIANT, &legal, i);
        // The distance to the end where the tables hold it, else to conversion.
        match (r.outcome.wdl, tb.has_dtw(R::VARIANT), r.dtc) {
            (Wdl::Draw, ..) => out.push_str(&format!("{text} draw")),
            (w, true, _) => out.push_str(&format!("{text} {w} {}", r.outcome.dtw)),
            (w, false, Some(dtc)) => out.push_str(&format!("{text} {w} dtc {dtc}")),
            (w, false, None) => out.push_str(&format!("{text} {w}")),
        }
        // The moves are listed in the plain order; each ends with its category under the
        // rules, labelled as the position's `rules` line is.
        if let Some(m) = ruled.iter().flatten().find(|m| m.rated.mv == r.mv) {
            out.push_str(&format!(" rules {}", m.category));
        }
        out.push('\n');
    }
    print_out(&out)
}
