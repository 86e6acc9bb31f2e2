//! `damka moves`: the legal moves of a position, one per line.

use crate::notation::movetext::{captured_text, full_path_text, sort_moves};
use crate::notation::parse_fen;
use crate::rules::{Rules, Variant, legal_moves};
use crate::with_rules;

use super::{CliError, print_out};

/// Arguments of `damka moves`.
#[derive(clap::Args)]
pub struct Args {
    /// Variant: english, italian, spanish, russian, brazilian, international, turkish.
    #[arg(long)]
    variant: Variant,
    /// The position, as FEN (`W:W31,32:B1,2`).
    #[arg(long)]
    fen: String,
    /// After each capture, a tab and the captured squares.
    #[arg(long)]
    captures: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    with_rules!(args.variant, R => list::<R>(&args))
}

fn list<R: Rules>(args: &Args) -> Result<(), CliError> {
    let pos = parse_fen::<R>(&args.fen).map_err(|e| CliError::input(format!("bad FEN: {e}")))?;
    let moves = legal_moves(&pos);
    let mut sorted: Vec<_> = moves.iter().collect();
    sort_moves(R::VARIANT, &mut sorted);
    let mut out = String::new();
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
