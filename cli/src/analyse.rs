//! `damka analyse`: annotate PDN games with perfect-play verdicts from the endgame tables,
//! and with `--depth` engine evaluations of the positions outside them.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use damka::analyse::html::{Entry, page};
use damka::analyse::{
    AnalyseError, Analysis, SLOW_MARGIN, analyse_game, analyse_game_searched, annotate, game_json,
    strip_annotations,
};
use damka::pdn::{ReadGame, Reader, Replayer, Ruleset, write_game};
use damka::rules::Color;
use damka::search::{Engine, MAX_PLY};
use damka::tablebase::Tablebase;
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;
use damka::with_rules;

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
    /// Also write a web page with the critical moments of every game (board diagrams) to
    /// this file.
    #[arg(long)]
    html: Option<PathBuf>,
    /// A win kept more than this many plies slower than the best gets a note.
    #[arg(long, default_value_t = SLOW_MARGIN)]
    margin: u16,
    /// Search every position outside the tables from which a move is played this many plies
    /// deep, and note the engine's evaluation (`[%eval]` comments, `evaluated` in the JSON).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_PLY as i64))]
    depth: Option<u32>,
}

/// The transposition table of each engine (one per worker thread), in MiB.
const ENGINE_HASH_MB: usize = 16;

/// A game read, normalized and ready to analyse, or why it cannot be.
struct Item {
    number: usize,
    game: Result<(ReadGame, damka::Variant), String>,
}

/// Per-file counts for the summary.
#[derive(Default)]
struct Summary {
    games: usize,
    reaching: usize,
    failed: usize,
    mistakes: BTreeMap<String, usize>,
    in_variations: usize,
    searched: usize,
}

/// Files with at least this many games get a progress bar (when stderr is a terminal).
const PROGRESS_GAMES: usize = 20;

/// A game analysed and annotated.
struct Done {
    read: ReadGame,
    variant: damka::Variant,
    analysis: Analysis,
    json: String,
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
                strip_annotations(&mut read.game);
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

/// Analyses one game; with an engine and a depth, searches the positions outside the tables.
fn analyse_one(
    tb: &Tablebase,
    read: &ReadGame,
    variant: damka::Variant,
    margin: u16,
    search: Option<(&mut Engine, u32)>,
) -> Result<Analysis, AnalyseError> {
    match search {
        None => with_rules!(variant, R => analyse_game::<R>(tb, &read.game, margin)),
        Some((engine, depth)) => with_rules!(variant, R => {
            analyse_game_searched::<R>(tb, &read.game, margin, engine, depth)
        }),
    }
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

/// Writes `text` to `path` through a temporary file in the same directory, renamed into
/// place when complete.
fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    let error = |e: std::io::Error| CliError {
        message: format!("cannot write {}: {e}", path.display()),
        code: 1,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&temp, text)
        .and_then(|()| std::fs::rename(&temp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            error(e)
        })
}

/// A progress bar over `games` games of `name`, drawn only for many games and on a terminal.
fn progress_bar(name: &str, games: usize) -> ProgressBar {
    let bar = ProgressBar::new(games as u64);
    if games < PROGRESS_GAMES || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} games, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(name.to_string());
    bar
}

/// Runs `damka analyse`.
pub fn run(args: Args) -> Result<(), CliError> {
    let tb = Arc::new(open(&tables_dir(&args.tables), DEFAULT_CACHE_BYTES)?);
    // One engine per worker, probing the same tables, when searching.
    let engine = || {
        args.depth.map(|_| {
            let mut engine = Engine::new(ENGINE_HASH_MB);
            engine.set_tables(Some(Arc::clone(&tb)));
            engine.set_conditional_probes(false);
            engine
        })
    };
    let mut pdn = String::new();
    let mut json = Vec::new();
    let mut done: Vec<(String, usize, Done)> = Vec::new();
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
        let bar = progress_bar(&name, items.len());
        let results: Vec<_> = items
            .into_par_iter()
            .map_init(engine, |engine, item| {
                let out = item.game.and_then(|(mut read, variant)| {
                    let search = engine.as_mut().zip(args.depth);
                    let analysis = analyse_one(&tb, &read, variant, args.margin, search)
                        .map_err(|e| format!("{}: {e}", read.origin))?;
                    let json = game_json(&name, item.number, &read.game, &analysis);
                    annotate(&mut read.game, &analysis);
                    Ok(Done {
                        read,
                        variant,
                        analysis,
                        json,
                    })
                });
                bar.inc(1);
                (item.number, out)
            })
            .collect();
        bar.finish_and_clear();
        for damage in tb.take_damage() {
            eprintln!("warning: {damage}; analysed without it");
        }
        let mut summary = Summary::default();
        for (number, out) in results {
            summary.games += 1;
            match out {
                Err(e) => {
                    eprintln!("error: {e} (skipped)");
                    summary.failed += 1;
                }
                Ok(mut game) => {
                    if game.analysis.reaches_tables() {
                        summary.reaching += 1;
                    }
                    for ply in game.analysis.played_mistakes() {
                        *summary
                            .mistakes
                            .entry(player(&game.read, ply.side))
                            .or_default() += 1;
                    }
                    summary.in_variations +=
                        game.analysis.mistakes().filter(|p| p.depth > 0).count();
                    summary.searched += game.analysis.evaluated.len();
                    if !pdn.is_empty() {
                        pdn.push('\n');
                    }
                    pdn.push_str(&write_game(&game.read.game));
                    if args.json.is_some() {
                        json.push(std::mem::take(&mut game.json));
                    }
                    if args.html.is_some() {
                        done.push((name.clone(), number, game));
                    }
                }
            }
        }
        let mistakes: Vec<String> = summary
            .mistakes
            .iter()
            .map(|(who, n)| format!("{who} {n}"))
            .collect();
        let variations = match summary.in_variations {
            0 => String::new(),
            n => format!(", in variations {n}"),
        };
        let searched = match args.depth {
            Some(depth) => format!(", engine evaluations {} (depth {depth})", summary.searched),
            None => String::new(),
        };
        eprintln!(
            "{name}: games {}, reaching the tables {}, failed {}, mistakes: {}{variations}\
             {searched}",
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
    if let Some(path) = &args.html {
        let entries: Vec<Entry> = done
            .iter()
            .map(|(file, number, d)| Entry {
                file,
                number: *number,
                game: &d.read.game,
                variant: d.variant,
                analysis: &d.analysis,
            })
            .collect();
        let names: Vec<String> = args.files.iter().map(|f| f.display().to_string()).collect();
        write_file(
            path,
            &page(&format!("Analysis of {}", names.join(", ")), &entries),
        )?;
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
