//! `damka perft`: leaf counts of the move tree, with timing.

use std::time::Instant;

use damka::notation::movetext::{full_path_text, sort_moves};
use damka::rules::{Position, Rules, Variant, divide, legal_moves, perft};
use damka::with_rules;

use super::{CliError, print_out, read_fen};

/// Arguments of `damka perft`.
#[derive(clap::Args)]
pub struct Args {
    /// Variant: english, italian, spanish, russian, brazilian, international, turkish.
    #[arg(long)]
    variant: Variant,
    /// Start position as FEN (default: the variant's initial position).
    #[arg(long)]
    fen: Option<String>,
    /// Depth in plies.
    #[arg(long)]
    depth: u32,
    /// Print the leaf count under each root move.
    #[arg(long)]
    divide: bool,
    /// Threads (root moves are shared among them; default: all cores, as `generate`); 1 runs
    /// single-threaded.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    with_rules!(args.variant, R => count::<R>(&args))
}

fn count<R: Rules>(args: &Args) -> Result<(), CliError> {
    let pos = match &args.fen {
        Some(fen) => read_fen::<R>(fen)?,
        None => Position::<R>::initial(),
    };
    let threads = args
        .threads
        .map_or_else(rayon::current_num_threads, |t| t as usize);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError {
            message: format!("cannot start threads: {e}"),
            code: 1,
        })?;
    let parallel = threads > 1;
    let start = Instant::now();
    let mut out = String::new();
    let nodes = if args.depth > 0 && (args.divide || parallel) {
        let counts = pool.install(|| divide(&pos, args.depth, parallel));
        if args.divide {
            out.push_str(&divide_lines(&pos, &counts));
        }
        counts.iter().map(|(_, n)| n).sum()
    } else {
        perft(&pos, args.depth)
    };
    let seconds = start.elapsed().as_secs_f64();
    out.push_str(&format!(
        "nodes {nodes}\ntime {seconds:.3} s\nnps {:.0}\n",
        nodes as f64 / seconds.max(1e-9)
    ));
    print_out(&out)
}

/// One `MOVE N` line per root move, in notation order.
fn divide_lines<R: Rules>(pos: &Position<R>, counts: &[(damka::Move, u64)]) -> String {
    let legal = legal_moves(pos);
    let mut sorted: Vec<_> = legal.iter().collect();
    sort_moves(R::VARIANT, &mut sorted);
    let mut out = String::new();
    for mv in sorted {
        let n = counts
            .iter()
            .find(|(m, _)| *m == mv.mv)
            .map_or(0, |(_, n)| *n);
        out.push_str(&format!("{} {n}\n", full_path_text(R::VARIANT, mv)));
    }
    out
}
