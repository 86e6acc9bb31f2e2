//! `damka match`: two engines (Hub command lines or DXP addresses) play each start position
//! with both colours; the tables adjudicate; every game is written as PDN; a running score,
//! then a table of the results with the Elo difference and the table results each engine
//! threw away.

mod game;
mod player;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use damka::notation::parse_fen;
use damka::pdn::Reader;
use damka::rules::{Position, RuleSet, Rules};
use damka::tablebase::Tablebase;
use damka::{Color, Variant, with_rules};

use super::tables::tables_dir;
use super::{CliError, print_out, rule_set};
use crate::referee::Referee;
use game::{Conduct, Record};
use player::{EngineSpec, MoveLimits, Player, SpecKind, split_command};

/// Arguments of `damka match`.
#[derive(clap::Args)]
pub struct Args {
    /// An engine, given twice: `NAME=COMMAND LINE` for a Hub engine (`with=damka hub
    /// --tables t`), `NAME=dxp:HOST:PORT` for a DXP follower (International only). NAME=
    /// is optional.
    #[arg(long = "engine", required = true, num_args = 1)]
    engines: Vec<String>,
    /// A Hub parameter of one engine, `NAME:KEY=VALUE` (`set-param name=KEY value=VALUE`).
    #[arg(long = "option")]
    options: Vec<String>,
    /// Variant.
    #[arg(long, default_value = "international")]
    variant: Variant,
    /// Draw rules the games are played and adjudicated by (default: the variant's first).
    #[arg(long)]
    rules: Option<String>,
    /// Start positions: a file with one FEN a line (`#` starts a comment line).
    #[arg(long, conflicts_with = "pdn")]
    fens: Option<PathBuf>,
    /// Start positions: the set-up positions (FEN tags) of a PDN file.
    #[arg(long)]
    pdn: Option<PathBuf>,
    /// Search each move this many plies deep.
    #[arg(long)]
    depth: Option<u32>,
    /// Search each move this many nodes.
    #[arg(long)]
    nodes: Option<u64>,
    /// Seconds a move.
    #[arg(long)]
    move_time: Option<f64>,
    /// Seconds on each clock for a game (a clock the engines budget themselves).
    #[arg(long)]
    game_time: Option<f64>,
    /// Seconds added to a clock after each move.
    #[arg(long, default_value_t = 0.0, requires = "game_time")]
    increment: f64,
    /// Seconds an engine may take past its limits before it loses the game as hung.
    #[arg(long, default_value_t = 30.0)]
    grace: f64,
    /// Tables that adjudicate (default: $DAMKA_TABLES, else `tables`, where it exists).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Play on in positions the tables hold, to the end by the rules, counting the table
    /// results each engine throws away (the game is scored as played).
    #[arg(long)]
    play_on: bool,
    /// A game this many plies long is adjudicated a draw.
    #[arg(long, default_value_t = 400)]
    max_plies: usize,
    /// Write the games as PDN to this file.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Games played at once (each with its own engine processes).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    concurrency: u32,
}

/// Reads `NAME=SPEC`: a name (no blanks) before `=` and before any blank, then a command
/// line or `dxp:HOST:PORT`.
fn engine_spec(text: &str, index: usize) -> Result<EngineSpec, CliError> {
    let named = text
        .split_once('=')
        .filter(|(name, _)| !name.is_empty() && !name.contains(char::is_whitespace));
    let (name, spec) = match named {
        Some((name, spec)) => (name.to_string(), spec.trim()),
        None => (format!("engine{}", index + 1), text.trim()),
    };
    let kind = match spec.strip_prefix("dxp:") {
        Some(address) => SpecKind::Dxp(address.to_string()),
        None => SpecKind::Hub(
            split_command(spec).map_err(|e| CliError::input(format!("--engine {text:?}: {e}")))?,
        ),
    };
    Ok(EngineSpec {
        name,
        kind,
        options: Vec::new(),
    })
}

/// The start positions of the match.
fn start_positions<R: Rules>(args: &Args) -> Result<Vec<Position<R>>, CliError> {
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .map_err(|e| CliError::input(format!("{}: {e}", path.display())))
    };
    let mut out = Vec::new();
    if let Some(path) = &args.fens {
        for (i, line) in read(path)?.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let pos = parse_fen::<R>(line).map_err(|e| {
                CliError::input(format!("{} line {}: bad FEN: {e}", path.display(), i + 1))
            })?;
            out.push(pos);
        }
    } else if let Some(path) = &args.pdn {
        let text = read(path)?;
        let name = path.display().to_string();
        for (i, game) in Reader::new(name.as_str(), text.as_bytes()).enumerate() {
            let game = game.map_err(|e| CliError::input(format!("{name}: {e}")))?;
            let pos = match game.game.tag("FEN") {
                Some(fen) => parse_fen::<R>(fen).map_err(|e| {
                    CliError::input(format!("{name} game {}: bad FEN tag: {e}", i + 1))
                })?,
                None => Position::initial(),
            };
            out.push(pos);
        }
    } else {
        out.push(Position::initial());
    }
    if out.is_empty() {
        return Err(CliError::input("no start positions in the file"));
    }
    Ok(out)
}

fn seconds(name: &str, s: f64) -> Result<Duration, CliError> {
    Duration::try_from_secs_f64(s).map_err(|_| CliError::input(format!("--{name} {s}: not a time")))
}

pub fn run(args: Args) -> Result<(), CliError> {
    if args.engines.len() != 2 {
        return Err(CliError::input(format!(
            "a match needs two --engine, not {}",
            args.engines.len()
        )));
    }
    let mut specs = vec![
        engine_spec(&args.engines[0], 0)?,
        engine_spec(&args.engines[1], 1)?,
    ];
    if specs[0].name == specs[1].name {
        specs[1].name.push_str("-2");
    }
    for option in &args.options {
        let bad = || CliError::input(format!("--option {option:?}: expected NAME:KEY=VALUE"));
        let (name, setting) = option.split_once(':').ok_or_else(bad)?;
        let (key, value) = setting.split_once('=').ok_or_else(bad)?;
        let spec = specs.iter_mut().find(|s| s.name == name).ok_or_else(|| {
            CliError::input(format!("--option {option:?}: no engine called {name:?}"))
        })?;
        if matches!(spec.kind, SpecKind::Dxp(_)) {
            return Err(CliError::input(format!(
                "--option {option:?}: {name} speaks DXP, which has no options"
            )));
        }
        spec.options.push((key.to_string(), value.to_string()));
    }
    if args.variant != Variant::International
        && specs.iter().any(|s| matches!(s.kind, SpecKind::Dxp(_)))
    {
        return Err(CliError::input("DXP engines play International only"));
    }
    let rules = rule_set(args.variant, args.rules.as_deref())?;
    let dir = tables_dir(&args.tables)?;
    let referee = match dir.is_dir() {
        true => {
            let tb = Tablebase::open(&dir).map_err(|e| CliError {
                message: format!("--tables {}: {e}", dir.display()),
                code: 1,
            })?;
            Some(Referee::new(Arc::new(tb), rules)).filter(|r| !r.is_empty())
        }
        false => None,
    };
    if args.tables.is_some() && referee.is_none() {
        return Err(CliError::input(format!(
            "--tables {}: no {} tables there",
            dir.display(),
            args.variant
        )));
    }
    if args.depth.is_none()
        && args.nodes.is_none()
        && args.move_time.is_none()
        && args.game_time.is_none()
    {
        return Err(CliError::input(
            "give the engines a limit: --depth, --nodes, --move-time or --game-time",
        ));
    }
    let conduct = Conduct {
        rules,
        referee: referee.as_ref(),
        play_on: args.play_on,
        limits: MoveLimits {
            depth: args.depth,
            nodes: args.nodes,
            move_time: args
                .move_time
                .map(|s| seconds("move-time", s))
                .transpose()?,
            clock: None,
            grace: seconds("grace", args.grace)?,
        },
        clock: match args.game_time {
            Some(t) => Some((
                seconds("game-time", t)?,
                seconds("increment", args.increment)?,
            )),
            None => None,
        },
        max_plies: args.max_plies,
    };
    with_rules!(args.variant, R => run_match::<R>(&args, &specs, rules, &conduct))
}

/// One game to play: its number (from 1), its start, and whether the first engine is White.
#[derive(Clone, Copy)]
struct Job<R: Rules> {
    round: usize,
    start: Position<R>,
    first_white: bool,
}

/// Tallies of one engine.
#[derive(Default, Clone, Copy)]
struct Tally {
    wins: usize,
    draws: usize,
    losses: usize,
    thrown: usize,
}

fn run_match<R: Rules>(
    args: &Args,
    specs: &[EngineSpec],
    rules: &'static RuleSet,
    conduct: &Conduct,
) -> Result<(), CliError> {
    let starts = start_positions::<R>(args)?;
    let jobs: Vec<Job<R>> = starts
        .iter()
        .enumerate()
        .flat_map(|(i, &start)| {
            [true, false].map(|first_white| Job {
                round: 2 * i + usize::from(!first_white) + 1,
                start,
                first_white,
            })
        })
        .collect();
    let total = jobs.len();
    // A first check that both engines start, said before any game.
    for spec in specs {
        Player::start(spec, R::VARIANT, rules.name).map_err(|f| CliError {
            message: format!("engine {}: {f}", spec.name),
            code: 1,
        })?;
    }
    let queue = Mutex::new(jobs.into_iter());
    let (tx, rx) = channel::<(Job<R>, Record)>();
    let mut pdns: Vec<(usize, String)> = Vec::new();
    let mut tallies = [Tally::default(); 2];
    let mut reached = 0usize;
    let mut per_game: Vec<f64> = Vec::new();
    std::thread::scope(|scope| -> Result<(), CliError> {
        for _ in 0..args.concurrency.min(total as u32) {
            let tx = tx.clone();
            let queue = &queue;
            scope.spawn(move || {
                let mut players: [Option<Player>; 2] = [None, None];
                loop {
                    let Some(job) = queue.lock().unwrap_or_else(|e| e.into_inner()).next() else {
                        break;
                    };
                    let record = play_job(job, specs, rules, conduct, &mut players);
                    if tx.send((job, record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut out = std::io::stdout();
        for (done, (job, record)) in rx.iter().enumerate() {
            let (white, black) = match job.first_white {
                true => (0, 1),
                false => (1, 0),
            };
            let names = [specs[white].name.as_str(), specs[black].name.as_str()];
            pdns.push((job.round, game::pdn(&job.start, &record, job.round, names)));
            let first_points = match job.first_white {
                true => record.white_points,
                false => 1.0 - record.white_points,
            };
            per_game.push(first_points);
            for (engine, points) in [(0, first_points), (1, 1.0 - first_points)] {
                let t = &mut tallies[engine];
                match points {
                    1.0 => t.wins += 1,
                    0.0 => t.losses += 1,
                    _ => t.draws += 1,
                }
            }
            tallies[white].thrown += record.thrown[0];
            tallies[black].thrown += record.thrown[1];
            reached += usize::from(record.reached_tables);
            let score = |t: &Tally| t.wins as f64 + t.draws as f64 / 2.0;
            let line = format!(
                "game {:>3} of {total} (round {}): {} - {} {} ({}); {} {} - {} {}\n",
                done + 1,
                job.round,
                names[0],
                names[1],
                game::result_text::<R>(record.white_points),
                record.reason,
                specs[0].name,
                score(&tallies[0]),
                score(&tallies[1]),
                specs[1].name,
            );
            use std::io::Write;
            let _ = out.write_all(line.as_bytes()).and_then(|()| out.flush());
        }
        Ok(())
    })?;
    if let Some(path) = &args.out {
        pdns.sort_by_key(|(round, _)| *round);
        let text: Vec<String> = pdns.into_iter().map(|(_, p)| p).collect();
        write_atomically(path, &text.join("\n"))?;
    }
    print_out(&summary(specs, &tallies, &per_game, reached, conduct))
}

/// Plays one job with the worker's engines, starting them (again) where needed.
fn play_job<R: Rules>(
    job: Job<R>,
    specs: &[EngineSpec],
    rules: &RuleSet,
    conduct: &Conduct,
    players: &mut [Option<Player>; 2],
) -> Record {
    for (i, slot) in players.iter_mut().enumerate() {
        if !slot.as_mut().is_some_and(Player::alive) {
            *slot = None;
            match Player::start(&specs[i], R::VARIANT, rules.name) {
                Ok(p) => *slot = Some(p),
                Err(fault) => {
                    // The engine that cannot start loses the game.
                    let first_lost = i == 0;
                    let white_lost = first_lost == job.first_white;
                    return Record {
                        white_points: if white_lost { 0.0 } else { 1.0 },
                        reason: format!("{} could not start: {fault}", specs[i].name),
                        moves: Vec::new(),
                        thrown: [0, 0],
                        reached_tables: false,
                        faulted: Some(if white_lost {
                            Color::White
                        } else {
                            Color::Black
                        }),
                    };
                }
            }
        }
    }
    let [a, b] = players;
    let (a, b) = (a.as_mut().expect("started"), b.as_mut().expect("started"));
    let record = match job.first_white {
        true => game::play(job.start, [a, b], conduct),
        false => game::play(job.start, [b, a], conduct),
    };
    // An engine that failed is started afresh for its next game (a hung one may still
    // answer the old search).
    if let Some(colour) = record.faulted {
        let first = (colour == Color::White) == job.first_white;
        players[usize::from(!first)] = None;
    }
    record
}

/// Writes `text` to a temporary name beside `path`, then renames it.
fn write_atomically(path: &Path, text: &str) -> Result<(), CliError> {
    let tmp = path.with_extension("pdn.partial");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| CliError {
            message: format!("cannot write {}: {e}", path.display()),
            code: 1,
        })
}

/// The Elo difference of a score fraction.
fn elo(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

/// The first engine's Elo difference and the half-width of its 95% interval, from its points
/// in each game; `None` while its score is 0 or 100%.
pub fn elo_with_margin(points: &[f64]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    let mean = points.iter().sum::<f64>() / n;
    if !(mean > 0.0 && mean < 1.0) {
        return None;
    }
    let variance = points.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let se = (variance / n).sqrt();
    let (low, high) = (
        (mean - 1.96 * se).max(1e-6),
        (mean + 1.96 * se).min(1.0 - 1e-6),
    );
    Some((elo(mean), (elo(high) - elo(low)) / 2.0))
}

fn summary(
    specs: &[EngineSpec],
    tallies: &[Tally; 2],
    per_game: &[f64],
    reached: usize,
    conduct: &Conduct,
) -> String {
    let width = specs.iter().map(|s| s.name.len()).max().unwrap_or(6).max(6);
    let mut out = format!(
        "\n{:<width$}  games  wins  draws  losses   score  elo\n",
        "engine"
    );
    let first = elo_with_margin(per_game);
    for (i, (spec, t)) in specs.iter().zip(tallies).enumerate() {
        let games = t.wins + t.draws + t.losses;
        let score = t.wins as f64 + t.draws as f64 / 2.0;
        let elo = match first {
            Some((e, m)) => {
                // Written `+0`, never `-0`: -0.0 + 0.0 and 0.0 - 0.0 are 0.0.
                let e = if i == 0 { e + 0.0 } else { 0.0 - e };
                format!("{e:+.0} ± {m:.0}")
            }
            None if score == 0.0 => "-inf".to_string(),
            None => "+inf".to_string(),
        };
        let _ = writeln!(
            out,
            "{:<width$}  {games:>5}  {:>4}  {:>5}  {:>6}  {:>5.1}%  {elo}",
            spec.name,
            t.wins,
            t.draws,
            t.losses,
            100.0 * score / games.max(1) as f64,
        );
    }
    if conduct.referee.is_some() {
        let _ = write!(out, "games that reached the tables: {reached}");
        match conduct.play_on {
            true => {
                let _ = writeln!(
                    out,
                    "; table results thrown away: {} {}, {} {}",
                    specs[0].name, tallies[0].thrown, specs[1].name, tallies[1].thrown
                );
            }
            false => out.push_str(" (adjudicated there)\n"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_are_read_with_or_without_a_name() {
        let e = engine_spec("with=damka hub --tables 'my tables'", 0).unwrap();
        assert_eq!(e.name, "with");
        assert_eq!(
            e.kind,
            SpecKind::Hub(vec![
                "damka".into(),
                "hub".into(),
                "--tables".into(),
                "my tables".into()
            ])
        );
        let e = engine_spec("scan hub --x=1", 1).unwrap();
        assert_eq!(e.name, "engine2");
        assert_eq!(
            e.kind,
            SpecKind::Hub(vec!["scan".into(), "hub".into(), "--x=1".into()])
        );
        let e = engine_spec("kr=dxp:127.0.0.1:27531", 0).unwrap();
        assert_eq!(e.kind, SpecKind::Dxp("127.0.0.1:27531".into()));
        assert!(engine_spec("x=\"unclosed", 0).is_err());
    }

    #[test]
    fn elo_and_its_margin() {
        assert_eq!(elo_with_margin(&[1.0, 1.0]), None);
        let (e, m) = elo_with_margin(&[0.5; 10]).unwrap();
        assert_eq!((e, m), (0.0, 0.0));
        // 3 wins, 1 loss: 75%, +191 Elo.
        let (e, m) = elo_with_margin(&[1.0, 1.0, 1.0, 0.0]).unwrap();
        assert!((e - 190.85).abs() < 0.01, "{e}");
        assert!(m > 190.0, "{m}");
    }
}
