//! `damka compact`: one side to move (Kingsrow's). Of each slice pair, the side with the
//! smaller win/draw/loss file keeps its win/draw/loss and distance files; the other side's
//! become searched files, answered by a search of one ply into its twin. Then the files
//! that hold values leave their forced exchanges unread (answered by a search of one ply
//! that ends in capture searches), and in English and Italian the kept distance-to-conversion
//! files (with `--even-rows` the distance-to-the-end files too) their positions on even rows
//! (answered by a search of two plies through the twin). `generate` does the same once its jobs are
//! built. First of all, the rules files of slices a quiet count alone governs
//! are re-encoded with the results that follow from the win/draw/loss values and distances
//! to conversion derived (a header alone where all do). With `--upgrade`, it only converts
//! files of older format versions to the current one.

use std::path::PathBuf;

use damka::Variant;
use damka::tablebase::format::DERIVED_FROM_PIECES;
use damka::tablebase::format::{OLDEST_VERSION, VERSION};
use damka::tablebase::{Compacted, compact, upgrade};

use super::tables::{slices, tables_dir, variants};
use super::{CliError, print_out};

/// Arguments of `damka compact`.
#[derive(clap::Args)]
pub struct Args {
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Only this variant's tables.
    #[arg(long)]
    variant: Option<Variant>,
    /// Only slices of at least this many pieces (smaller ones are probed most and take
    /// little room: their probes stay one lookup).
    #[arg(long, default_value_t = DERIVED_FROM_PIECES, value_parser = clap::value_parser!(u32).range(2..))]
    min_pieces: u32,
    /// In English and Italian, also leave unread the kept distances to the end of
    /// positions whose side to move's rows add up to an even number (found by a search of
    /// two plies), as the distances to conversion always are: `.dtw` files about half as
    /// large, their probes several times slower.
    #[arg(long)]
    even_rows: bool,
    /// Only convert the files of older format versions to the current one (their blocks
    /// bound to their places): every block of a file is checked first, the new file is
    /// checked whole before it replaces the old one; nothing else is changed. Converted
    /// files hold no statistics (`damka stats`): a build writes them.
    #[arg(long, conflicts_with_all = ["min_pieces", "even_rows"])]
    upgrade: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let dir = tables_dir(&args.tables)?;
    if !dir.is_dir() {
        return Err(CliError {
            message: format!("no tables directory {}", dir.display()),
            code: 1,
        });
    }
    if args.upgrade {
        return run_upgrade(&dir, args.variant);
    }
    let (mut derived, mut pairs, mut reencoded, mut before, mut after) = (0, 0, 0, 0, 0);
    for variant in variants(&dir, args.variant) {
        let present = slices(&dir, variant)?;
        let done =
            compact(&dir, variant, &present, args.min_pieces, args.even_rows).map_err(failed)?;
        print_out(&changes(variant, &done))?;
        derived += done.derived.len();
        pairs += done.pairs.len();
        reencoded += done.left_unread.len();
        let (from, to) = done.bytes();
        before += from;
        after += to;
    }
    print_out(&format!(
        "rules files derived {derived}, pairs {pairs}, slices re-encoded {reencoded}, bytes \
         changed {before} -> {after}\n"
    ))
}

/// A line for each change `done` made to the tables of `variant`, with its bytes before and
/// after.
fn changes(variant: Variant, done: &Compacted) -> String {
    let mut lines = Vec::new();
    for d in &done.derived {
        let mut line = format!("{variant} {}: rule results derived", d.material);
        if d.stored > 0 {
            line += &format!(", {} stored", d.stored);
        }
        lines.push((line, d.bytes_before, d.bytes_after));
    }
    for d in &done.pairs {
        let line = format!("{variant} {} searched, {} kept", d.searched, d.kept);
        lines.push((line, d.bytes_before, d.bytes_after));
    }
    for d in &done.left_unread {
        let mut line = format!(
            "{variant} {}: {} forced exchanges unread",
            d.material, d.forced
        );
        if d.even_rows > 0 {
            line += &format!(", {} distances on even rows unread", d.even_rows);
        }
        lines.push((line, d.bytes_before, d.bytes_after));
    }
    lines
        .into_iter()
        .map(|(line, from, to)| format!("{line}: {from} -> {to} bytes\n"))
        .collect()
}

/// `damka compact --upgrade`: converts the files of versions [`OLDEST_VERSION`] to
/// [`VERSION`] - 1 under `dir` (of `only` variant) to [`VERSION`], a line each.
fn run_upgrade(dir: &std::path::Path, only: Option<Variant>) -> Result<(), CliError> {
    let (mut files, mut before, mut after) = (0, 0, 0);
    for variant in variants(dir, only) {
        let present = slices(dir, variant)?;
        for u in upgrade(dir, variant, &present).map_err(failed)? {
            print_out(&format!(
                "{variant} {}.{}: version {} -> {VERSION}: {} -> {} bytes\n",
                u.material,
                u.kind.extension(),
                u.from,
                u.bytes_before,
                u.bytes_after
            ))?;
            files += 1;
            before += u.bytes_before;
            after += u.bytes_after;
        }
    }
    print_out(&format!(
        "files converted from versions {OLDEST_VERSION}-{} to {VERSION}: {files}, bytes \
         {before} -> {after}\n",
        VERSION - 1
    ))
}

/// A failure of one of compact's steps, as the command's error.
fn failed(e: impl std::fmt::Display) -> CliError {
    CliError {
        message: e.to_string(),
        code: 1,
    }
}
