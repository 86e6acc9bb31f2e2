//! `damka play`: search a position and print the best move, its score and line.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use damka::notation::diagram::text_diagram;
use damka::rules::{Counters, Position, RuleSet, Rules};
use damka::search::{Engine, Limits, MAX_DEPTH, line_text};
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;
use damka::tablebase::{Tablebase, Wdl};
use damka::with_rules;

use super::tables::{open, tables_dir};
use super::{CliError, print_out, reachable, read_fen, rule_set};

/// Arguments of `damka play`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("limit").required(true).args(["depth", "time"])))]
pub struct Args {
    /// Variant: english, italian, spanish, russian, brazilian, international, turkish.
    #[arg(long)]
    variant: damka::Variant,
    /// The position, as FEN (default: the initial position).
    #[arg(long)]
    fen: Option<String>,
    /// Tables directory (default: $DAMKA_TABLES, else `tables`; none there: play without).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Search this many plies deep (1 to 64).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
    depth: Option<u32>,
    /// Search for this many seconds.
    #[arg(long, value_parser = parse_seconds)]
    time: Option<Duration>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    hash: u32,
    /// First print the board as a text diagram (White's side, the square names on the
    /// edges).
    #[arg(long)]
    board: bool,
    /// Draw rules the search plays by (default: the variant's first, as `docs/RULES.md`
    /// lists them).
    #[arg(long)]
    rules: Option<String>,
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !(secs > 0.0 && secs <= 1e6) {
        return Err(format!(
            "'{text}': the time must be above 0 and at most 1000000 s"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

pub fn run(args: Args) -> Result<(), CliError> {
    with_rules!(args.variant, R => play::<R>(&args))
}

fn play<R: Rules>(args: &Args) -> Result<(), CliError> {
    let pos = match &args.fen {
        Some(fen) => read_fen::<R>(fen)?,
        None => Position::<R>::initial(),
    };
    reachable(&pos)?;
    let rules = rule_set(R::VARIANT, args.rules.as_deref())?;
    let dir = tables_dir(&args.tables)?;
    let tables = if args.tables.is_some() || dir.is_dir() {
        Some(Arc::new(open(&dir, DEFAULT_CACHE_BYTES)?))
    } else {
        None
    };
    let note = tables.as_deref().and_then(|tb| rule_note(tb, rules, &pos));
    let mut engine = Engine::try_new(args.hash as usize).map_err(|e| CliError {
        message: format!("{e} (try a smaller --hash)"),
        code: 1,
    })?;
    engine.set_tables(tables.clone());
    engine.set_rules(rules);
    let limits = Limits {
        depth: args.depth,
        move_time: args.time,
        ..Limits::default()
    };
    let result = engine.search(&[pos], &limits, &AtomicBool::new(false), &mut |_| {});
    for damage in tables.iter().flat_map(|tb| tb.take_damage()) {
        eprintln!("warning: {damage}; searched without it");
    }
    let info = &result.info;
    let line = line_text(&pos, &info.pv);
    let best = match line.first() {
        Some(text) => text.clone(),
        None => "none".to_string(),
    };
    let secs = info.time.as_secs_f64();
    let nps = if secs > 0.0 {
        (info.nodes as f64 / secs) as u64
    } else {
        0
    };
    let mut out = match args.board {
        true => text_diagram(&pos),
        false => String::new(),
    };
    out.push_str(&format!(
        "bestmove {best}\nscore {}\ndepth {}\nnodes {}\ntime {secs:.3}\nnps {nps}\npv {}\n",
        info.score,
        info.depth,
        info.nodes,
        line.join(" ")
    ));
    if let Some(note) = note {
        out.push_str(&note);
    }
    print_out(&out)
}

/// A line saying so when the tables' win or loss is longer than the variant's move-count
/// rules allow (the game may end in a draw first).
fn rule_note<R: Rules>(tb: &Tablebase, rules: &RuleSet, pos: &Position<R>) -> Option<String> {
    let o = tb.probe_dtw(pos).ok()?;
    let (left, count) = rules.binding_count(pos, Counters::default())?;
    (o.wdl != Wdl::Draw && u32::from(o.dtw) > left).then(|| {
        format!(
            "note the tables' {} in {} plies may not be completed within the move-count \
             rules ({}, the {count}: {left} plies left)\n",
            o.wdl, o.dtw, rules.name
        )
    })
}
