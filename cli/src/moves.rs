//! `damka moves`: the legal moves of a position, one per line.

use damka::notation::diagram::text_diagram;
use damka::notation::movetext::{captured_text, full_path_text, sort_moves};
use damka::rules::{Rules, legal_moves};
use damka::with_rules;

use super::{CliError, PositionArgs, print_out, read_fen};

/// Arguments of `damka moves`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,
    /// After each capture, a tab and the captured squares.
    #[arg(long)]
    captures: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    with_rules!(args.position.variant, R => list::<R>(&args))
}

fn list<R: Rules>(args: &Args) -> Result<(), CliError> {
    let pos = read_fen::<R>(&args.position.fen)?;
    let moves = legal_moves(&pos);
    let mut sorted: Vec<_> = moves.iter().collect();
    sort_moves(R::VARIANT, &mut sorted);
    let mut out = match args.position.board {
        true => text_diagram(&pos),
        false => String::new(),
    };
    for mv in sorted {
        out.push_str(&full_path_text(R::VARIANT, mv));
        if args.captures && mv.mv.is_capture() {
            out.push('\t');
            out.push_str(&captured_text(R::VARIANT, mv));
        }
        out.push('\n');
    }
    print_out(&out)
}
