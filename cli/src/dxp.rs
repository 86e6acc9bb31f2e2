//! `damka dxp`: International draughts over DamExchange (DXP), as follower (waits for
//! connections and accepts game requests) or initiator (`--connect`: requests games).
//! The protocol: [`message`]; one game and the two roles: [`session`].

mod board;
mod connection;
#[cfg(test)]
mod fuzz;
pub mod message;
mod session;

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use damka::Variant;
use damka::rules::{International, Position};
use damka::search::{Engine, Limits};
use damka::tablebase::Tablebase;

pub use board::{find_move, move_message, setup_text};
pub use connection::{Connection, DxpError};

use super::tables::tables_dir;
use super::{CliError, rule_set};
use session::{GameClock, Player, Request};

/// The port DXP engines listen on.
pub const DEFAULT_PORT: u16 = 27531;

/// Arguments of `damka dxp`.
#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on as follower (`HOST:PORT`); loopback unless told otherwise.
    #[arg(long, default_value_t = format!("127.0.0.1:{DEFAULT_PORT}"))]
    listen: String,
    /// Connections served at once; more are told so and closed.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    max_connections: u32,
    /// Be the initiator: connect to the follower at `HOST:PORT` and request games.
    #[arg(long)]
    connect: Option<String>,
    /// Initiator: the start position as FEN (default: the start of the game).
    #[arg(long, requires = "connect")]
    fen: Option<String>,
    /// Initiator: damka's colour in the first game (`white` or `black`); they alternate.
    #[arg(long, default_value = "white", requires = "connect")]
    colour: String,
    /// Initiator: games to request.
    #[arg(long, default_value_t = 1, requires = "connect")]
    games: u32,
    /// Initiator: minutes on each clock (0: no clock, each move by the limits below).
    #[arg(long, default_value_t = 0, requires = "connect")]
    minutes: u16,
    /// Initiator: moves to play in those minutes (0: the whole game).
    #[arg(long, default_value_t = 0, requires = "connect")]
    moves: u16,
    /// Search each move this many plies deep at most.
    #[arg(long)]
    depth: Option<u32>,
    /// Think at most this many seconds a move (default 1 when no clock and no depth).
    #[arg(long)]
    move_time: Option<f64>,
    /// Seconds the peer may be silent (outside its own thinking time) before the connection
    /// is dropped.
    #[arg(long, default_value_t = 300)]
    silence: u64,
    /// Tables directory (default: $DAMKA_TABLES, else `tables`), used when it exists.
    #[arg(long)]
    tables: Option<PathBuf>,
    /// End a game with the tables' result as soon as they hold its position (GAMEEND).
    #[arg(long)]
    adjudicate: bool,
    /// Draw rules (default: International's first, as `docs/RULES.md` lists them).
    #[arg(long)]
    rules: Option<String>,
    /// Transposition table size in MiB, per connection.
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// Print every message sent (`>`) and received (`<`) on stderr.
    #[arg(long)]
    trace: bool,
}

/// The engine, limits and referee for one connection.
fn player(args: &Args, tables: Option<&Arc<Tablebase>>) -> Result<Player, CliError> {
    let rules = rule_set(Variant::International, args.rules.as_deref())?;
    let mut engine = Engine::try_new(args.hash).map_err(CliError::input)?;
    engine.set_tables(tables.cloned());
    let move_time = match (args.move_time, args.depth) {
        (Some(s), _) => Some(
            Duration::try_from_secs_f64(s)
                .map_err(|_| CliError::input(format!("--move-time {s}: not a time")))?,
        ),
        (None, None) if args.minutes == 0 => Some(Duration::from_secs(1)),
        (None, _) => None,
    };
    let referee = match (args.adjudicate, tables) {
        (true, Some(tb)) => Some(crate::referee::Referee::new(tb.clone(), rules)),
        (true, None) => {
            return Err(CliError::input(
                "--adjudicate needs tables (--tables DIR or $DAMKA_TABLES)",
            ));
        }
        (false, _) => None,
    };
    Ok(Player {
        name: format!("damka {}", env!("CARGO_PKG_VERSION")),
        engine,
        limits: Limits {
            depth: args.depth,
            move_time,
            ..Limits::default()
        },
        rules,
        referee,
        silence: Duration::from_secs(args.silence),
    })
}

pub fn run(args: Args) -> Result<(), CliError> {
    let dir = tables_dir(&args.tables)?;
    let tables = match dir.is_dir() {
        true => Some(Arc::new(Tablebase::open(&dir).map_err(|e| CliError {
            message: format!("--tables {}: {e}", dir.display()),
            code: 1,
        })?)),
        false => None,
    };
    match &args.connect {
        Some(address) => connect(&args, address, tables.as_ref()),
        None => listen(&args, tables),
    }
}

fn connect(args: &Args, address: &str, tables: Option<&Arc<Tablebase>>) -> Result<(), CliError> {
    let start = match &args.fen {
        Some(fen) => super::read_fen::<International>(fen)?,
        None => Position::initial(),
    };
    let colour = match args.colour.as_str() {
        "white" | "w" => damka::Color::White,
        "black" | "b" => damka::Color::Black,
        other => {
            return Err(CliError::input(format!(
                "--colour {other:?}: expected white or black"
            )));
        }
    };
    let mut player = player(args, tables)?;
    let mut conn =
        Connection::connect(address, Duration::from_secs(10), args.trace).map_err(|m| {
            CliError {
                message: m,
                code: 1,
            }
        })?;
    let request = Request {
        start,
        colour,
        clock: GameClock {
            minutes: args.minutes,
            moves: args.moves,
        },
        games: args.games,
    };
    let ends = session::initiate(&mut conn, &mut player, &request).map_err(|m| CliError {
        message: format!("{address}: {m}"),
        code: 1,
    })?;
    let mut out = String::new();
    for (i, end) in ends.iter().enumerate() {
        out.push_str(&format!(
            "game {}: {} for damka after {} plies ({})\n",
            i + 1,
            session::result_word(end.result),
            end.moves.len(),
            end.why
        ));
    }
    super::print_out(&out)
}

fn listen(args: &Args, tables: Option<Arc<Tablebase>>) -> Result<(), CliError> {
    let listener = TcpListener::bind(&args.listen).map_err(|e| CliError {
        message: format!("cannot listen on {}: {e}", args.listen),
        code: 1,
    })?;
    // Checked once here, so that a bad option is said before anyone connects.
    player(args, tables.as_ref())?;
    let address = listener
        .local_addr()
        .map_or_else(|_| args.listen.clone(), |a| a.to_string());
    eprintln!("dxp: listening on {address}");
    let active = Arc::new(AtomicUsize::new(0));
    let max = args.max_connections as usize;
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                eprintln!("dxp: a connection failed: {e}");
                continue;
            }
        };
        let mut conn = Connection::new(stream, args.trace);
        if active.fetch_add(1, Ordering::SeqCst) >= max {
            active.fetch_sub(1, Ordering::SeqCst);
            eprintln!("dxp: {} refused: {max} connections already", conn.peer());
            let _ = conn.send(&message::Message::Chat(format!(
                "damka: busy, {max} connections already"
            )));
            conn.close();
            continue;
        }
        let mut player = player(args, tables.as_ref())?;
        let active = Arc::clone(&active);
        std::thread::spawn(move || {
            let peer = conn.peer();
            eprintln!("dxp: {peer} connected");
            match session::follow(conn, &mut player) {
                Ok(()) => eprintln!("dxp: {peer} done"),
                Err(e) => eprintln!("dxp: {peer}: {e}"),
            }
            active.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}
