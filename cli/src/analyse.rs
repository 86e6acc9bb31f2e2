//! `damka analyse`: annotate PDN games with perfect-play verdicts from the endgame tables,
//! and with `--depth` engine evaluations of the positions outside them.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use damka::analyse::html::{Entry, page};
use damka::analyse::{
    AnalyseError, Analysis, SLOW_MARGIN, analyse_game, analyse_game_searched, annotate,
    annotate_unanalysed, game_json, strip_annotations,
};
use damka::files::AtomicFile;
use damka::pdn::gametype::game_type_name;
use damka::pdn::{ReadGame, Reader, Replayer, Ruleset, write_game};
use damka::rules::Color;
use damka::search::{Engine, MAX_DEPTH};
use damka::tablebase::Tablebase;
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;
use damka::with_rules;

use super::tables::{open, slices, tables_dir};
use super::{CliError, print_out, rule_set};

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
    /// Also write a web page to this file: an index of the games that reach the tables or
    /// have findings, and their critical moments with board diagrams.
    #[arg(long)]
    html: Option<PathBuf>,
    /// On the web page, a section for every game, not only for the indexed ones.
    #[arg(long, requires = "html")]
    html_all: bool,
    /// A win kept more than this many plies slower than the best gets a note.
    #[arg(long, default_value_t = SLOW_MARGIN)]
    margin: u16,
    /// Search every position outside the tables from which a move is played this many plies
    /// deep (1 to 64, as `play`), and note the engine's evaluation (`[%eval]` comments,
    /// `evaluated` in the JSON). Works without tables too.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
    depth: Option<u32>,
    /// Draw rules the games are judged by, by name (default: each variant's first, as
    /// `docs/RULES.md` lists them). A game of a variant without rules of that name is written
    /// without analysis.
    #[arg(long)]
    rules: Option<String>,
}

/// The transposition table of each engine (one per worker thread), in MiB.
const ENGINE_HASH_MB: usize = 16;

/// A game read and normalized, and what can be done with it.
enum Item {
    /// Under rules damka has: analysed (up to its first move that does not replay, if any;
    /// `errors` are the replay's).
    Analyse {
        read: ReadGame,
        variant: damka::Variant,
        errors: Vec<String>,
    },
    /// Under rules damka does not have: written back without analysis.
    Unsupported { read: ReadGame, number: u32 },
    /// Not readable as a game at all.
    Unreadable(String),
}

/// Per-file counts for the summary.
#[derive(Default)]
struct Summary {
    games: usize,
    reaching: usize,
    /// The piece counts of the first table positions answered through a forced exchange.
    exchanges: Vec<u32>,
    /// Games written but not analysed to the end (a move that does not replay, rules damka
    /// does not have, a start that does not set up).
    unfinished: usize,
    /// Games not readable, so left out of the outputs.
    left_out: usize,
    /// Games whose result the tables contradict.
    conflicts: usize,
    mistakes: BTreeMap<String, usize>,
    in_variations: usize,
    searched: usize,
    /// Games under rules damka does not have, by GameType number.
    unsupported: BTreeMap<u32, usize>,
}

impl Summary {
    /// The closing line of a file: `NAME: games 724, reaching the tables 137 (12 of them
    /// first through a forced exchange, 7 to 9 pieces), not analysed to the end 1, results
    /// the tables contradict 3, mistakes: ...`.
    fn line(&self, name: &str, depth: Option<u32>) -> String {
        let exchanges = match (self.exchanges.iter().min(), self.exchanges.iter().max()) {
            (Some(least), Some(most)) => {
                let pieces = match least == most {
                    true => format!("{least} pieces"),
                    false => format!("{least} to {most} pieces"),
                };
                format!(
                    " ({} of them first through a forced exchange, {pieces})",
                    self.exchanges.len()
                )
            }
            _ => String::new(),
        };
        let left_out = match self.left_out {
            0 => String::new(),
            n => format!(", not readable {n}"),
        };
        let mistakes: Vec<String> = self
            .mistakes
            .iter()
            .map(|(who, n)| format!("{who} {n}"))
            .collect();
        let variations = match self.in_variations {
            0 => String::new(),
            n => format!(", in variations {n}"),
        };
        let searched = match depth {
            Some(depth) => format!(", engine evaluations {} (depth {depth})", self.searched),
            None => String::new(),
        };
        format!(
            "{name}: games {}, reaching the tables {}{exchanges}, not analysed to the end {}\
             {left_out}, results the tables contradict {}, mistakes: {}{variations}{searched}",
            self.games,
            self.reaching,
            self.unfinished,
            self.conflicts,
            if mistakes.is_empty() {
                "none".to_string()
            } else {
                mistakes.join(", ")
            }
        )
    }
}

/// Files with at least this many games get a progress bar (when stderr is a terminal).
const PROGRESS_GAMES: usize = 20;

/// A game analysed (in full or up to a move that does not replay) and annotated.
struct Done {
    read: ReadGame,
    variant: damka::Variant,
    analysis: Analysis,
    json: String,
}

/// What became of one game.
enum Outcome {
    /// Analysed; `errors` say why it was analysed only in part.
    Done(Box<Done>, Vec<String>),
    /// Written back without analysis, for the reason given (said on stderr when `error`: a
    /// rule set the variant lacks, a game that does not replay).
    Unanalysed {
        read: ReadGame,
        why: String,
        error: bool,
        unsupported: Option<u32>,
    },
    /// Not readable.
    Unreadable(String),
}

/// Reads and normalizes every game of a file.
fn read_file(path: &Path, given: Option<Ruleset>) -> Result<Vec<Item>, CliError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| CliError::input(format!("cannot read {name}: {e}")))?;
    let mut replayer = Replayer::new(given);
    let mut items = Vec::new();
    for read in Reader::new(name, BufReader::new(file)) {
        items.push(match read {
            Err(e) => Item::Unreadable(e.to_string()),
            Ok(mut read) => {
                strip_annotations(&mut read.game);
                let replay = replayer.normalize(&mut read);
                match replay.ruleset {
                    Ruleset::Supported(variant) => Item::Analyse {
                        read,
                        variant,
                        errors: replay.errors.iter().map(|e| e.to_string()).collect(),
                    },
                    Ruleset::Unsupported(number) => Item::Unsupported { read, number },
                }
            }
        });
    }
    Ok(items)
}

/// Rules damka does not have, said for people: `Frisian draughts (GameType 40)`.
fn rules_name(number: u32) -> String {
    match game_type_name(number) {
        Some(name) => format!("{name} (GameType {number})"),
        None => format!("GameType {number}"),
    }
}

/// Analyses one game; with an engine and a depth, searches the positions outside the tables.
fn analyse_one(
    tb: Option<&Tablebase>,
    read: &ReadGame,
    variant: damka::Variant,
    margin: u16,
    rules: &'static damka::RuleSet,
    search: Option<(&mut Engine, u32)>,
) -> Result<Analysis, AnalyseError> {
    match (search, tb) {
        (None, Some(tb)) => {
            with_rules!(variant, R => analyse_game::<R>(tb, &read.game, margin, rules))
        }
        (None, None) => Ok(Analysis::default()),
        (Some((engine, depth)), tb) => with_rules!(variant, R => {
            analyse_game_searched::<R>(tb, &read.game, margin, engine, depth)
        }),
    }
}

/// Analyses and annotates one game.
fn process(
    tb: Option<&Tablebase>,
    args: &Args,
    name: &str,
    number: usize,
    item: Item,
    engine: &mut Option<Engine>,
) -> Outcome {
    let (mut read, variant, errors) = match item {
        Item::Unreadable(e) => return Outcome::Unreadable(e),
        Item::Unsupported { mut read, number } => {
            let why = format!("{} is not supported", rules_name(number));
            annotate_unanalysed(&mut read.game, &why);
            return Outcome::Unanalysed {
                read,
                why,
                error: false,
                unsupported: Some(number),
            };
        }
        Item::Analyse {
            read,
            variant,
            errors,
        } => (read, variant, errors),
    };
    let rules = match rule_set(variant, args.rules.as_deref()) {
        Ok(rules) => rules,
        Err(e) => {
            annotate_unanalysed(&mut read.game, &e.message);
            return Outcome::Unanalysed {
                why: format!("{}: {}", read.origin, e.message),
                read,
                error: true,
                unsupported: None,
            };
        }
    };
    if let Some(engine) = engine.as_mut() {
        engine.set_rules(rules);
    }
    let search = engine.as_mut().zip(args.depth);
    match analyse_one(tb, &read, variant, args.margin, rules, search) {
        Ok(analysis) => {
            let json = game_json(name, number, &read.game, &analysis);
            annotate(&mut read.game, &analysis);
            Outcome::Done(
                Box::new(Done {
                    read,
                    variant,
                    analysis,
                    json,
                }),
                errors,
            )
        }
        Err(e) => {
            let why = e.to_string();
            annotate_unanalysed(&mut read.game, &why);
            Outcome::Unanalysed {
                why: format!("{}: {why}", read.origin),
                read,
                error: true,
                unsupported: None,
            }
        }
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

/// A file output of `analyse`, written under a temporary name from the start of the run and
/// renamed into place when the run is done ([`AtomicFile`]), so that a run stopped half-way
/// (an error, Ctrl-C) leaves the file as it was and no temporary file behind.
struct Output {
    file: BufWriter<AtomicFile>,
    target: PathBuf,
}

impl Output {
    /// Starts writing `path`: an error at once where it cannot be created.
    fn create(path: &Path) -> Result<Output, CliError> {
        let file = AtomicFile::create(path).map_err(|e| write_error(path, e))?;
        Ok(Output {
            file: BufWriter::new(file),
            target: path.to_path_buf(),
        })
    }

    fn write(&mut self, text: &str) -> Result<(), CliError> {
        self.file
            .write_all(text.as_bytes())
            .map_err(|e| write_error(&self.target, e))
    }

    /// Syncs the file and renames it into place.
    fn commit(self) -> Result<(), CliError> {
        let target = self.target;
        let file = self
            .file
            .into_inner()
            .map_err(|e| write_error(&target, e.into_error()))?;
        file.commit().map_err(|e| write_error(&target, e))
    }
}

fn write_error(path: &Path, e: std::io::Error) -> CliError {
    CliError {
        message: format!("cannot write {}: {e}", path.display()),
        code: 1,
    }
}

/// Where `analyse` writes: the annotated games (`-o`, else standard output, game by game as
/// each file is done), the JSON array (`--json`, likewise) and the web page (`--html`, at the
/// end).
struct Outputs {
    pdn: Option<Output>,
    json: Option<Output>,
    html: Option<Output>,
    games: usize,
    json_games: usize,
}

impl Outputs {
    fn create(args: &Args) -> Result<Outputs, CliError> {
        let create = |path: &Option<PathBuf>| path.as_deref().map(Output::create).transpose();
        let mut json = create(&args.json)?;
        if let Some(json) = json.as_mut() {
            json.write("[\n")?;
        }
        Ok(Outputs {
            pdn: create(&args.output)?,
            json,
            html: create(&args.html)?,
            games: 0,
            json_games: 0,
        })
    }

    /// Writes a game (strict PDN), a blank line before all but the first.
    fn game(&mut self, game: &damka::pdn::Game) -> Result<(), CliError> {
        let mut text = String::new();
        if self.games > 0 {
            text.push('\n');
        }
        text.push_str(&write_game(game));
        self.games += 1;
        match self.pdn.as_mut() {
            Some(out) => out.write(&text),
            None => print_out(&text),
        }
    }

    /// Writes a game's JSON object into the array.
    fn json(&mut self, object: &str) -> Result<(), CliError> {
        let Some(out) = self.json.as_mut() else {
            return Ok(());
        };
        if self.json_games > 0 {
            out.write(",\n")?;
        }
        self.json_games += 1;
        out.write(object)
    }

    /// Ends the JSON array, writes the page, and renames every file into place.
    fn finish(mut self, page: impl FnOnce() -> String) -> Result<(), CliError> {
        if let Some(mut json) = self.json.take() {
            json.write("\n]\n")?;
            json.commit()?;
        }
        if let Some(mut html) = self.html.take() {
            html.write(&page())?;
            html.commit()?;
        }
        self.pdn.take().map_or(Ok(()), Output::commit)
    }
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

/// The tables `analyse` uses: those under the directory; none, with a warning, when there is
/// no directory and the engine searches (`--depth`); an error otherwise.
fn tables(args: &Args) -> Result<Option<Arc<Tablebase>>, CliError> {
    let dir = tables_dir(&args.tables)?;
    if !dir.is_dir() && args.depth.is_some() {
        eprintln!(
            "warning: no tables directory {}: no verdicts, engine evaluations only",
            dir.display()
        );
        return Ok(None);
    }
    if !dir.is_dir() {
        return Err(CliError {
            message: format!(
                "no tables directory {}: build tables with `damka generate --variant V \
                 --pieces N --tables {}`, or give --depth N to search without them",
                dir.display(),
                dir.display()
            ),
            code: 1,
        });
    }
    Ok(Some(Arc::new(open(&dir, DEFAULT_CACHE_BYTES)?)))
}

/// Warns, once per variant, when the tables directory holds no tables of a variant that
/// games of `items` are played under.
fn warn_missing_tables(tb: Option<&Tablebase>, items: &[Item], warned: &mut Vec<damka::Variant>) {
    let Some(tb) = tb else { return };
    for item in items {
        let Item::Analyse { variant, .. } = item else {
            continue;
        };
        if warned.contains(variant) {
            continue;
        }
        warned.push(*variant);
        if slices(tb.dir(), *variant).is_ok_and(|s| !s.is_empty()) {
            continue;
        }
        let games = items
            .iter()
            .filter(|i| matches!(i, Item::Analyse { variant: v, .. } if v == variant))
            .count();
        eprintln!(
            "warning: no {variant} tables in {}: its {variant} games ({games} in this file) \
             get no verdicts; build them with `damka generate --variant {variant} --pieces N \
             --tables {}`",
            tb.dir().display(),
            tb.dir().display()
        );
    }
}

/// Runs `damka analyse`.
pub fn run(args: Args) -> Result<(), CliError> {
    match (&args.rules, args.variant) {
        (Some(name), Some(Ruleset::Supported(v))) => drop(rule_set(v, Some(name))?),
        (Some(name), _)
            if damka::Variant::ALL
                .iter()
                .all(|&v| rule_set(v, Some(name)).is_err()) =>
        {
            return Err(CliError::input(format!(
                "no variant has draw rules '{name}' (docs/RULES.md lists them)"
            )));
        }
        _ => {}
    }
    let tb = tables(&args)?;
    // One engine per worker, probing the same tables, when searching.
    let engine = || {
        args.depth.map(|_| {
            let mut engine = Engine::new(ENGINE_HASH_MB);
            engine.set_tables(tb.clone());
            engine.set_conditional_probes(false);
            engine
        })
    };
    let mut outputs = Outputs::create(&args)?;
    super::interrupt::remove_temporaries_on_signal();
    let mut done: Vec<(String, usize, Box<Done>)> = Vec::new();
    let mut left_out = 0;
    let mut unreadable = 0;
    let mut warned = Vec::new();
    for path in &args.files {
        let items = match read_file(path, args.variant) {
            Ok(items) => items,
            Err(e) => {
                eprintln!("error: {}", e.message);
                unreadable += 1;
                continue;
            }
        };
        warn_missing_tables(tb.as_deref(), &items, &mut warned);
        let name = path.display().to_string();
        let bar = progress_bar(&name, items.len());
        let results: Vec<_> = items
            .into_par_iter()
            .enumerate()
            .map_init(engine, |engine, (i, item)| {
                let out = process(tb.as_deref(), &args, &name, i + 1, item, engine);
                bar.inc(1);
                (i + 1, out)
            })
            .collect();
        bar.finish_and_clear();
        for damage in tb.iter().flat_map(|tb| tb.take_damage()) {
            eprintln!("warning: {damage}; analysed without it");
        }
        let mut summary = Summary::default();
        for (number, out) in results {
            summary.games += 1;
            match out {
                Outcome::Unreadable(e) => {
                    eprintln!("error: {e} (not readable: left out of the output)");
                    summary.left_out += 1;
                }
                Outcome::Unanalysed {
                    read,
                    why,
                    error,
                    unsupported,
                } => {
                    if error {
                        eprintln!("warning: {why} (written without analysis)");
                    }
                    if let Some(n) = unsupported {
                        *summary.unsupported.entry(n).or_default() += 1;
                    }
                    summary.unfinished += 1;
                    outputs.game(&read.game)?;
                }
                Outcome::Done(mut game, errors) => {
                    if let Some(e) = errors.first() {
                        eprintln!("warning: {e} (analysed up to it)");
                    }
                    let analysis = &game.analysis;
                    if !errors.is_empty() || !analysis.stops.is_empty() {
                        summary.unfinished += 1;
                    }
                    if analysis.reaches_tables() {
                        summary.reaching += 1;
                    }
                    summary.exchanges.extend(analysis.first_through_exchange);
                    if let Some(conflict) = &analysis.result_conflict {
                        summary.conflicts += 1;
                        eprintln!(
                            "note: {name}: game {number} ({} - {}): {conflict}",
                            player(&game.read, Color::White),
                            player(&game.read, Color::Black)
                        );
                    }
                    for ply in analysis.played_mistakes() {
                        *summary
                            .mistakes
                            .entry(player(&game.read, ply.side))
                            .or_default() += 1;
                    }
                    summary.in_variations += analysis.mistakes().filter(|p| p.depth > 0).count();
                    summary.searched += analysis.evaluated.len();
                    outputs.game(&game.read.game)?;
                    outputs.json(&std::mem::take(&mut game.json))?;
                    if args.html.is_some() {
                        done.push((name.clone(), number, game));
                    }
                }
            }
        }
        for (number, games) in &summary.unsupported {
            eprintln!(
                "warning: {name}: {games} game(s) under {}, which damka has no rules for: \
                 written without analysis",
                rules_name(*number)
            );
        }
        eprintln!("{}", summary.line(&name, args.depth));
        left_out += summary.left_out;
    }
    outputs.finish(|| {
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
        page(
            &format!("Analysis of {}", names.join(", ")),
            &entries,
            args.html_all,
        )
    })?;
    if unreadable > 0 {
        return Err(CliError::input(format!(
            "{unreadable} input(s) could not be read"
        )));
    }
    if left_out > 0 {
        return Err(CliError {
            message: format!("{left_out} game(s) could not be read: left out of the outputs"),
            code: 1,
        });
    }
    Ok(())
}
