//! `damka pdn`: check PDN game files (read and replay every move) and rewrite them strictly.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use damka::files::AtomicFile;
use damka::pdn::{ErrorKind, PdnError, Reader, Replayer, Ruleset, write_game};

use super::{CliError, print_out};

/// Arguments of `damka pdn`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: PdnCommand,
}

#[derive(clap::Subcommand)]
enum PdnCommand {
    /// Read every game and replay every move.
    ///
    /// Per file a line with games, moves, warnings and errors, then each error; last a line
    /// with the totals. Exit code 0 without errors, 1 with errors, 2 if a file is unreadable.
    Check(CheckArgs),
    /// Rewrite a file in strict PDN 3.0.
    Fmt(FmtArgs),
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Rules for every game: a variant (english, italian, spanish, russian, brazilian,
    /// international, turkish), another PDN game (czech, ...) or a GameType number. Default:
    /// each game's GameType tag, else a guess from its squares.
    #[arg(long)]
    variant: Option<Ruleset>,
    /// Also list each warning (what the reader tolerated).
    #[arg(long)]
    warnings: bool,
    /// PDN files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

#[derive(clap::Args)]
struct FmtArgs {
    /// Rules for every game, as for `check`.
    #[arg(long)]
    variant: Option<Ruleset>,
    /// The PDN file to rewrite.
    file: PathBuf,
    /// Where to write (default: standard output). Written to a temporary name, then renamed.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Runs `damka pdn check` or `damka pdn fmt`.
pub fn run(args: Args) -> Result<(), CliError> {
    match args.command {
        PdnCommand::Check(a) => check(a),
        PdnCommand::Fmt(a) => fmt(a),
    }
}

fn open(path: &Path) -> Result<Reader<BufReader<File>>, CliError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| CliError::input(format!("cannot read {name}: {e}")))?;
    Ok(Reader::new(name, BufReader::new(file)))
}

fn is_io(e: &PdnError) -> bool {
    matches!(e.kind, ErrorKind::Io(_))
}

#[derive(Default)]
struct Counts {
    games: usize,
    moves: usize,
    warnings: usize,
    errors: usize,
}

fn check(args: CheckArgs) -> Result<(), CliError> {
    let mut total = Counts::default();
    let mut unreadable = 0;
    for path in &args.files {
        let reader = match open(path) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {}", e.message);
                unreadable += 1;
                continue;
            }
        };
        let mut replayer = Replayer::new(args.variant);
        let mut counts = Counts::default();
        let mut lines = Vec::new();
        for item in reader {
            match item {
                Ok(read) => {
                    let replay = replayer.replay(&read);
                    counts.games += 1;
                    counts.moves += replay.moves;
                    counts.warnings += read.warnings.len() + replay.warnings.len();
                    counts.errors += replay.errors.len();
                    lines.extend(replay.errors.iter().map(|e| format!("error: {e}")));
                    if args.warnings {
                        let all = read.warnings.iter().chain(&replay.warnings);
                        lines.extend(all.map(|w| format!("warning: {w}")));
                    }
                }
                Err(e) if is_io(&e) => {
                    eprintln!("error: {e}");
                    unreadable += 1;
                }
                Err(e) => {
                    counts.games += 1;
                    counts.errors += 1;
                    lines.push(format!("error: {e}"));
                }
            }
        }
        let mut out = format!(
            "{}: games {}, moves {}, warnings {}, errors {}\n",
            path.display(),
            counts.games,
            counts.moves,
            counts.warnings,
            counts.errors
        );
        for line in lines {
            out.push_str("  ");
            out.push_str(&line);
            out.push('\n');
        }
        print_out(&out)?;
        total.games += counts.games;
        total.moves += counts.moves;
        total.warnings += counts.warnings;
        total.errors += counts.errors;
    }
    print_out(&format!(
        "games {}, moves {}, errors {}, warnings {}\n",
        total.games, total.moves, total.errors, total.warnings
    ))?;
    if unreadable > 0 {
        return Err(CliError::input(format!(
            "{unreadable} input(s) could not be read"
        )));
    }
    if total.errors > 0 {
        return Err(CliError {
            message: format!("{} error(s) in the games", total.errors),
            code: 1,
        });
    }
    Ok(())
}

fn write_error(path: &Path, e: io::Error) -> CliError {
    CliError {
        message: format!("cannot write {}: {e}", path.display()),
        code: 1,
    }
}

fn fmt(args: FmtArgs) -> Result<(), CliError> {
    super::interrupt::remove_temporaries_on_signal();
    let reader = open(&args.file)?;
    let mut staged = match args.output.as_deref() {
        Some(target) => Some(AtomicFile::create(target).map_err(|e| write_error(target, e))?),
        None => None,
    };
    let mut sink: Box<dyn Write> = match staged.as_mut() {
        Some(file) => Box::new(BufWriter::new(file)),
        None => Box::new(BufWriter::new(io::stdout().lock())),
    };
    let result = fmt_games(reader, args.variant, &mut sink).and_then(|counts| {
        sink.flush().map_err(Failure::Write)?;
        Ok(counts)
    });
    drop(sink);
    let counts = match result {
        Ok(counts) => counts,
        Err(failure) => {
            drop(staged);
            return match failure {
                Failure::Read(e) => Err(CliError::input(e)),
                Failure::Write(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                Failure::Write(e) => Err(write_error(
                    args.output
                        .as_deref()
                        .unwrap_or(Path::new("standard output")),
                    e,
                )),
            };
        }
    };
    if let Some(file) = staged {
        let target = file.target().to_path_buf();
        file.commit().map_err(|e| write_error(&target, e))?;
    }
    eprintln!(
        "{}: games {}, moves {}, warnings {}, errors {}",
        args.file.display(),
        counts.games,
        counts.moves,
        counts.warnings,
        counts.errors
    );
    if counts.errors > 0 {
        return Err(CliError {
            message: format!("{} error(s) in the games", counts.errors),
            code: 1,
        });
    }
    Ok(())
}

enum Failure {
    Read(PdnError),
    Write(io::Error),
}

/// Normalizes and writes every game; reports errors on stderr. A game that cannot be read is
/// not written (its error says so).
fn fmt_games(
    reader: Reader<BufReader<File>>,
    variant: Option<Ruleset>,
    sink: &mut dyn Write,
) -> Result<Counts, Failure> {
    let mut replayer = Replayer::new(variant);
    let mut counts = Counts::default();
    let mut written = 0;
    for item in reader {
        match item {
            Ok(mut read) => {
                let replay = replayer.normalize(&mut read);
                counts.moves += replay.moves;
                counts.warnings += read.warnings.len() + replay.warnings.len();
                counts.errors += replay.errors.len();
                for e in &replay.errors {
                    eprintln!("error: {e}");
                }
                if written > 0 {
                    sink.write_all(b"\n").map_err(Failure::Write)?;
                }
                written += 1;
                counts.games += 1;
                sink.write_all(write_game(&read.game).as_bytes())
                    .map_err(Failure::Write)?;
            }
            Err(e) if is_io(&e) => return Err(Failure::Read(e)),
            Err(e) => {
                counts.games += 1;
                counts.errors += 1;
                eprintln!("error: {e} (game not written)");
            }
        }
    }
    Ok(counts)
}
