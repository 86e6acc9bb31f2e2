//! `damka analyse`: annotate PDN games with perfect-play verdicts from the endgame tables.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::analyse::{AnalyseError, Analysis, SLOW_MARGIN, analyse_game, annotate, game_json};
use crate::pdn::{ReadGame, Reader, Replayer, Ruleset, write_game};
use crate::rules::Color;
use crate::tablebase::Tablebase;
use crate::tablebase::probe::DEFAULT_CACHE_BYTES;
use crate::with_rules;

use super::tables::{open, tables_dir};
use super::{CliError, print_out};

/// Arguments of `damka analyse`.
#[derive(clap::Args)]
pub struct Args {
    /// PDN files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Rules for every game, as for `damka pdn check`. Default: each game's GameType tag,
    /// else a guess from its squares.
    #[arg(long)]
    variant: Option<Ruleset>,
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Where to write the annotated games (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Also write the analysis as JSON (an array, one object per game) to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// A win kept more than this many plies slower than the best gets a note.
    #[arg(long, default_value_t = SLOW_MARGIN)]
    margin: u16,
}

/// A game read, normalized and ready to analyse, or why it cannot be.
struct Item {
    number: usize,
    game: Result<(ReadGame, crate::Variant), String>,
}

/// Per-file counts for the summary.
#[derive(Default)]
struct Summary {
    games: usize,
    reaching: usize,
    failed: usize,
    mistakes: BTreeMap<String, usize>,
}

/// Reads and normalizes every game of a file.
fn read_file(path: &Path, given: Option<Ruleset>) -> Result<Vec<Item>, CliError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| CliError::input(format!("cannot read {name}: {e}")))?;
    let mut replayer = Replayer::new(given);
    let mut items = Vec::new();
    for (i, read) in Reader::new(name, BufReader::new(file)).enumerate() {
        let game = match read {
            Err(e) => Err(e.to_string()),
            Ok(mut read) => {
                let replay = replayer.normalize(&mut read);
                match (replay.ruleset, replay.errors.first()) {
                    (_, Some(e)) => Err(e.to_string()),
                    (Ruleset::Supported(v), None) => Ok((read, v)),
                    (Ruleset::Unsupported(n), None) => {
                        Err(format!("{}: rules {n} are not supported", read.origin))
                    }
                }
            }
        };
        items.push(Item {
            number: i + 1,
            game,
        });
    }
    Ok(items)
}

fn analyse_one(
    tb: &Tablebase,
    read: &ReadGame,
    variant: crate::Variant,
    margin: u16,
) -> Result<Analysis, AnalyseError> {
    with_rules!(variant, R => analyse_game::<R>(tb, &read.game, margin))
}

fn player(read: &ReadGame, side: Color) -> String {
    let tag = match side {
        Color::White => "White",
        Color::Black => "Black",
    };
    match read.game.tag(tag).filter(|v| !v.is_empty() && *v != "?") {
        Some(name) => format!("{name} ({side})"),
        None => side.to_string(),
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| CliError {
        message: format!("cannot write {}: {e}", path.display()),
        code: 1,
    })
}

/// Runs `damka analyse`.
pub fn run(args: Args) -> Result<(), CliError> {
    let tb = open(&tables_dir(&args.tables), DEFAULT_CACHE_BYTES)?;
    let mut pdn = String::new();
    let mut json = Vec::new();
    let mut failed = 0;
    let mut unreadable = 0;
    for path in &args.files {
        let items = match read_file(path, args.variant) {
            Ok(items) => items,
            Err(e) => {
                eprintln!("error: {}", e.message);
                unreadable += 1;
                continue;
            }
        };
        let name = path.display().to_string();
        let results: Vec<_> = items
            .into_par_iter()
            .map(|item| {
                let out = item.game.and_then(|(mut read, variant)| {
                    let analysis = analyse_one(&tb, &read, variant, args.margin)
                        .map_err(|e| format!("{}: {e}", read.origin))?;
                    let object = game_json(&name, item.number, &read.game, &analysis);
                    annotate(&mut read.game, &analysis);
                    Ok((read, analysis, object))
                });
                (item.number, out)
            })
            .collect();
        let mut summary = Summary::default();
        for (_, out) in results {
            summary.games += 1;
            match out {
                Err(e) => {
                    eprintln!("error: {e} (skipped)");
                    summary.failed += 1;
                }
                Ok((read, analysis, object)) => {
                    if analysis.reaches_tables() {
                        summary.reaching += 1;
                    }
                    for ply in analysis.mistakes() {
                        *summary.mistakes.entry(player(&read, ply.side)).or_default() += 1;
                    }
                    if !pdn.is_empty() {
                        pdn.push('\n');
                    }
                    pdn.push_str(&write_game(&read.game));
                    json.push(object);
                }
            }
        }
        let mistakes: Vec<String> = summary
            .mistakes
            .iter()
            .map(|(who, n)| format!("{who} {n}"))
            .collect();
        eprintln!(
            "{name}: games {}, reaching the tables {}, failed {}, mistakes: {}",
            summary.games,
            summary.reaching,
            summary.failed,
            if mistakes.is_empty() {
                "none".to_string()
            } else {
                mistakes.join(", ")
            }
        );
        failed += summary.failed;
    }
    match &args.output {
        Some(path) => write_file(path, &pdn)?,
        None => print_out(&pdn)?,
    }
    if let Some(path) = &args.json {
        write_file(path, &format!("[\n{}\n]\n", json.join(",\n")))?;
    }
    if unreadable > 0 {
        return Err(CliError::input(format!(
            "{unreadable} input(s) could not be read"
        )));
    }
    if failed > 0 {
        return Err(CliError {
            message: format!("{failed} game(s) could not be analysed"),
            code: 1,
        });
    }
    Ok(())
}
