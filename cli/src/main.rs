//! The `damka` command line: one file per subcommand, each thin over the library; parse,
//! run, map errors to exit codes.

mod analyse;
mod cluster;
mod compact;
mod dxp;
mod engine_match;
mod generate;
mod hub;
mod info;
mod interrupt;
mod moves;
mod pdn;
mod perft;
mod play;
mod probe;
mod referee;
mod serve;
mod stats;
mod tables;
mod verify;

use std::fmt;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// An error the CLI reports as one line on stderr, with its exit code.
#[derive(Debug)]
pub struct CliError {
    /// The message (one line).
    pub message: String,
    /// The process exit code.
    pub code: u8,
}

impl CliError {
    /// Bad input from the user (exit code 2).
    pub fn input(message: impl fmt::Display) -> Self {
        CliError {
            message: message.to_string(),
            code: 2,
        }
    }
}

/// A variant and a position, as the subcommands that look at one position take them.
#[derive(clap::Args)]
pub struct PositionArgs {
    /// Variant: english, italian, spanish, russian, brazilian, international, turkish.
    #[arg(long)]
    pub variant: damka::Variant,
    /// The position, as FEN (`W:W31,32:B1,2`).
    #[arg(long)]
    pub fen: String,
    /// First print the board as a text diagram (White's side, the square names on the
    /// edges).
    #[arg(long)]
    pub board: bool,
}

/// Reads a FEN given on the command line; a bad one is an input error.
pub fn read_fen<R: damka::Rules>(fen: &str) -> Result<damka::Position<R>, CliError> {
    damka::notation::parse_fen::<R>(fen).map_err(|e| CliError::input(format!("bad FEN: {e}")))
}

/// The draw rules called `name` of `variant` (its default without a name); a name the
/// variant does not have is an input error listing the names it has.
pub fn rule_set(
    variant: damka::Variant,
    name: Option<&str>,
) -> Result<&'static damka::RuleSet, CliError> {
    match name {
        None => Ok(damka::RuleSet::default_for(variant)),
        Some(name) => damka::RuleSet::find(variant, name).map_err(CliError::input),
    }
}

/// Refuses a position no game reaches, whose side not to move has no pieces
/// ([`damka::Position::reachable`]), as every front end does (exit code 2).
pub fn reachable<R: damka::Rules>(pos: &damka::Position<R>) -> Result<(), CliError> {
    pos.reachable().map_err(CliError::input)
}

/// Writes `text` to stdout. A closed pipe (`damka moves ... | head`) is not an error.
pub fn print_out(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError {
            message: format!("cannot write output: {e}"),
            code: 1,
        }),
        _ => Ok(()),
    }
}

#[derive(Parser)]
#[command(
    name = "damka",
    version,
    about = "Draughts rules, perft and endgame tablebases"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the legal moves of a position.
    Moves(moves::Args),
    /// Count the leaves of the move tree (move generator check and benchmark).
    Perft(perft::Args),
    /// Check PDN game files (replay every move) or rewrite them in strict PDN.
    Pdn(pdn::Args),
    /// Build endgame tables by retrograde analysis.
    Generate(generate::Args),
    /// The perfect-play result of a position and of each of its moves.
    Probe(probe::Args),
    /// Check every table: checksums and consistency with its successors.
    Verify(verify::Args),
    /// What the tables directory holds.
    Info(info::Args),
    /// Per slice: wins, draws and losses (stored, and with capture positions resolved),
    /// positions not stored, the longest distances with an example position each.
    Stats(stats::Args),
    /// Keep one side to move of each slice pair: about half the bytes of win/draw/loss and
    /// distance files, the other side answered by a search of one ply; leave unread what a
    /// short search finds (forced exchanges; English and Italian distances on even rows).
    Compact(compact::Args),
    /// Annotate PDN games with perfect-play verdicts from the tables.
    #[command(visible_alias = "analyze")]
    Analyse(analyse::Args),
    /// Build the tables on a Slurm cluster, one job per slice, and follow the build.
    Cluster(cluster::Args),
    /// Speak the Hub protocol on stdin and stdout, for GUIs and libraries (pydraughts).
    Hub(hub::Args),
    /// Play International draughts over DXP (DamExchange): wait for game requests on a
    /// TCP port, or connect and request games.
    Dxp(dxp::Args),
    /// Play two engines (Hub or DXP) against each other over a list of start positions, both
    /// colours each, adjudicated by the tables; PDN, running score, final table with Elo.
    #[command(name = "match")]
    Match(engine_match::Args),
    /// Search a position and print the best move, its score and principal variation.
    Play(play::Args),
    /// Serve the tables over HTTP: a JSON API and a page to set up positions in.
    Serve(serve::Args),
}

/// Runs the command line and returns the process exit code.
fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap's whole message: what is wrong, the argument names, its tips and the usage.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Moves(args) => moves::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Pdn(args) => pdn::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Probe(args) => probe::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Info(args) => info::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Compact(args) => compact::run(args),
        Command::Analyse(args) => analyse::run(args),
        Command::Cluster(args) => cluster::run(args),
        Command::Play(args) => play::run(args),
        Command::Hub(args) => hub::run(args),
        Command::Dxp(args) => dxp::run(args),
        Command::Match(args) => engine_match::run(args),
        Command::Serve(args) => serve::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
