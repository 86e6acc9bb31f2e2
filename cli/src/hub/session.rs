//! The Hub protocol, engine side: how GUIs and libraries (Scan's Hub GUI, pydraughts) drive
//! damka.
//!
//! This is version 2 of the protocol as Scan 3 speaks it. Every line is a command followed by
//! `name=value` pairs and flags (see [`damka::notation::hub::syntax`]). A session looks like this (`>` the GUI,
//! `<` damka):
//!
//! ```text
//! > hub
//! < id name=damka version=0.1.0 author="the damka authors"
//! < param name=variant value=international type=enum values="international english ..."
//! < param name=rules value=fmjd type=enum values=fmjd
//! < param name=hash value=64 type=int min=1 max=65536
//! < param name=tables value=tables type=string
//! < wait
//! > set-param name=variant value=english
//! > init
//! < ready
//! > pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves="11-15 23-19"
//! > level move-time=1
//! > go think
//! < info depth=1 score=0.00 nodes=12 time=0.001 pv="8-11"
//! < ...
//! < done move=8-11 ponder=22-17
//! > quit
//! ```
//!
//! Commands:
//! - `hub`: the engine's `id`, its `param`s, then `wait`.
//! - `set-param name=N value=V`: `variant` (damka's names, and the aliases `normal` and
//!   `standard` for International, `american` for English; the position becomes the
//!   variant's start and its draw rules its default), `rules` (the variant's draw rules by
//!   name, [`damka::RuleSet`]: the move counts the search plays by), `hash` (transposition table MiB, 1 to 65536: a size the memory
//!   cannot hold is answered `error` when the engine is built, naming the size, and the
//!   last size that worked is used), `tables` (directory of endgame tables, used when it
//!   exists; empty for none). A table found damaged during a search is said once, in an
//!   `info message="..."` line, and the search goes on without it.
//! - `init`: builds the engine and opens the tables, then `ready`.
//! - `pos [start] [pos=P] [fen=F] [moves="M M ..."]`: the position (see [`damka::notation::hub`] for the
//!   formats, `fen=` is a damka extension taking a FEN) and the moves played from it, which
//!   the engine uses to see repetitions. Without `pos=` or `fen=` it is the start position.
//!   A position whose side not to move has no pieces (no game reaches it) is answered
//!   `error`, as a bad one is; a side to move without pieces or moves gets a bare `done`.
//! - `level`: `depth=N`, `nodes=N`, `move-time=S`, `time=S` with optional `inc=S` and
//!   `moves=N` (the clock: the increment is added before the move, as the protocol says),
//!   `infinite`. Times are seconds, from 0 to 10^9 (a negative time counts as 0); a number
//!   out of its range is answered `error`. Levels add up until the next `pos` or `go`,
//!   which reset them; no level means searching until `stop`.
//! - `go think`, `go ponder`, `go analyze`: searches on a worker thread, writing an `info`
//!   line per iteration (`depth`, `score` in men from the side to move's view, a win in `n`
//!   plies as `100 - n/100` as Scan writes it, `nodes`, `time` in seconds, `pv`) and then
//!   `done move=M [ponder=M]` (a bare `done` when the position has no move). `go analyze`
//!   honours a level too, and with none runs until `stop`. `go ponder` (the position already
//!   has the expected opponent move) searches until `stop`, which answers at once, or
//!   `ponder-hit`, after which a search with the level given answers, its transposition
//!   table filled by the pondering.
//! - During a search the input is still read: `stop` ends it (the answer follows), `ping` is
//!   answered, `ponder-hit` is accepted, `quit` stops and leaves, an unknown command is
//!   answered `error` and the search goes on; any other command stops the search, waits for
//!   its `done`, and is then carried out.
//! - `new-game` (clears the engine's memory), `ping` (`pong`), `stop` (ignored when idle),
//!   `ponder-hit`, `quit`.
//!
//! Anything else is answered `error message="..."`, as is a malformed line, a bad value, a bad
//! position or an illegal move. A `go` after a `pos` that could not be read answers `error`
//! and a bare `done`, so that a GUI waiting for `done` is never left hanging. End of input is
//! treated as `quit`.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use damka::notation::hub::syntax::{Line, pair, parse_line, quote};
use damka::notation::hub::{self as notation, parse_variant};
use damka::rules::{Move, MoveList, Position, RuleSet, Rules, generate};
use damka::search::{Clock, Engine, Limits, Score, SearchInfo, SearchResult};
use damka::tablebase::Tablebase;
use damka::{Variant, with_rules};

/// How a Hub session starts; the GUI may change each with `set-param`.
#[derive(Clone, Debug)]
pub struct Options {
    /// The variant until the GUI sets one.
    pub variant: Variant,
    /// The variant's draw rules until the GUI sets a variant or rules (`None`: its default).
    pub rules: Option<&'static RuleSet>,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Endgame tables directory, used when it exists.
    pub tables: PathBuf,
}

/// A score as an `info` line writes it, in men (Scan's scale): evaluations within ±80, a win
/// in `n` plies as `100 - n/100`, a loss as its negation.
pub fn hub_score(score: Score) -> String {
    let centi = match score.plies_to_end() {
        Some(plies) => (10_000 - plies.clamp(0, 999)) * score.0.signum(),
        None => score.0.clamp(-8_000, 8_000),
    };
    format!("{:.2}", centi as f64 / 100.0)
}

type Output = Arc<Mutex<Box<dyn Write + Send>>>;

fn send(out: &Output, line: &str) -> io::Result<()> {
    let mut w = out.lock().unwrap_or_else(PoisonError::into_inner);
    w.write_all(line.as_bytes())?;
    w.write_all(b"\n")?;
    w.flush()
}

/// Where the game starts.
#[derive(Clone, Debug)]
enum Start {
    Initial,
    Hub(String),
    Fen(String),
}

/// The position to search: a start and the moves from it, or why there is none.
#[derive(Clone, Debug)]
enum Setup {
    Game { start: Start, moves: Vec<String> },
    Invalid(String),
}

impl Setup {
    fn initial() -> Setup {
        Setup::Game {
            start: Start::Initial,
            moves: Vec::new(),
        }
    }

    /// The positions of the game, oldest first.
    fn positions<R: Rules>(&self) -> Result<Vec<Position<R>>, String> {
        let (start, moves) = match self {
            Setup::Game { start, moves } => (start, moves),
            Setup::Invalid(why) => return Err(why.clone()),
        };
        let first = match start {
            Start::Initial => Position::<R>::initial(),
            Start::Hub(text) => {
                notation::parse_position::<R>(text).map_err(|e| format!("bad position: {e}"))?
            }
            Start::Fen(text) => {
                damka::notation::parse_fen::<R>(text).map_err(|e| format!("bad FEN: {e}"))?
            }
        };
        // A game is played from a position some game reaches, as every front end asks.
        first.reachable().map_err(|e| e.to_string())?;
        let mut game = vec![first];
        for (i, text) in moves.iter().enumerate() {
            let pos = game[game.len() - 1];
            let mv = notation::parse_move(&pos, text)
                .map_err(|e| format!("move {} of {}: {e}", i + 1, moves.len()))?;
            game.push(pos.play(&mv));
        }
        Ok(game)
    }
}

/// The commands damka knows.
const COMMANDS: [&str; 11] = [
    "hub",
    "set-param",
    "init",
    "pos",
    "level",
    "go",
    "new-game",
    "ping",
    "stop",
    "ponder-hit",
    "quit",
];

/// A search on its worker thread.
struct Running {
    /// Gives back the engine (none if the search panicked) and whether `done` was written.
    handle: JoinHandle<(Option<Engine>, bool)>,
    stop: Arc<AtomicBool>,
    /// Set on `ponder-hit`: the worker then keeps its answer to itself.
    hit: Arc<AtomicBool>,
    /// For `go ponder`: the level to think with once the expected move is played.
    ponder: Option<Limits>,
}

/// What the loop does after a command.
enum Flow {
    Continue,
    Quit,
}

struct Session {
    out: Output,
    variant: Variant,
    rules: &'static RuleSet,
    hash_mb: usize,
    /// The last hash size an engine was built with (or the first asked for).
    working_hash_mb: usize,
    tables: PathBuf,
    engine: Option<Engine>,
    running: Option<Running>,
    setup: Setup,
    limits: Limits,
}

/// Runs a Hub session: reads commands from `input` until `quit` or its end, writes the answers
/// to `output`. Searches run on a worker thread, so `stop` and `ping` are read while one runs.
///
/// Errors are those of writing `output` (the GUI has gone); reading errors end the session.
pub fn run<I, O>(input: I, output: O, options: Options) -> io::Result<()>
where
    I: BufRead,
    O: Write + Send + 'static,
{
    let mut session = Session {
        out: Arc::new(Mutex::new(Box::new(output))),
        variant: options.variant,
        rules: options
            .rules
            .filter(|r| r.variant == options.variant)
            .unwrap_or_else(|| RuleSet::default_for(options.variant)),
        hash_mb: options.hash_mb,
        working_hash_mb: options.hash_mb,
        tables: options.tables,
        engine: None,
        running: None,
        setup: Setup::initial(),
        limits: Limits::default(),
    };
    let result = (|| {
        let mut input = input;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
            // Bytes that are not UTF-8 become U+FFFD and, at worst, an `error` answer.
            let line = String::from_utf8_lossy(&buf);
            if let Flow::Quit = session.handle(&line)? {
                break;
            }
        }
        Ok(())
    })();
    session.finish_search(true);
    result
}

impl Session {
    fn send(&self, line: &str) -> io::Result<()> {
        send(&self.out, line)
    }

    /// Answers `error`; a message longer than 300 characters (one quoting a long input) is
    /// cut there.
    fn error(&self, message: &str) -> io::Result<()> {
        let message = match message.char_indices().nth(300) {
            Some((cut, _)) => format!("{}... ({} bytes)", &message[..cut], message.len()),
            None => message.to_string(),
        };
        self.send(&format!("error {}", pair("message", &message)))
    }

    /// Whether a search is still running.
    fn searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.handle.is_finished())
    }

    /// Waits for the search (stopping it first if `stop`) and takes the engine back. Returns
    /// whether the search wrote its `done` (true when there was none).
    fn finish_search(&mut self, stop: bool) -> bool {
        let Some(running) = self.running.take() else {
            return true;
        };
        if stop {
            running.stop.store(true, Ordering::SeqCst);
        }
        // A search that panicked has already said so; a fresh engine replaces it.
        let (engine, answered) = running.handle.join().unwrap_or((None, true));
        self.engine = engine;
        answered
    }

    /// `ponder-hit` during `go ponder`: the opponent played the expected move, so the pondering
    /// stops, silently, and a search with the level of the `go ponder` answers.
    fn ponder_hit(&mut self) -> io::Result<()> {
        let Some(running) = &mut self.running else {
            return Ok(());
        };
        let Some(limits) = running.ponder.take() else {
            return Ok(());
        };
        running.hit.store(true, Ordering::SeqCst);
        if self.finish_search(true) {
            // The pondering had ended on its own and answered already.
            return Ok(());
        }
        with_rules!(self.variant, R => self.start::<R>(limits, None))
    }

    fn handle(&mut self, text: &str) -> io::Result<Flow> {
        let line = match parse_line(text) {
            Ok(Some(line)) => line,
            Ok(None) => return Ok(Flow::Continue),
            Err(e) => {
                self.error(&format!("bad line: {e}"))?;
                return Ok(Flow::Continue);
            }
        };
        if self.searching() {
            match line.command.as_str() {
                "ping" => {
                    self.send("pong")?;
                    return Ok(Flow::Continue);
                }
                "stop" => {
                    if let Some(r) = &self.running {
                        r.stop.store(true, Ordering::Relaxed);
                    }
                    return Ok(Flow::Continue);
                }
                "ponder-hit" => {
                    self.ponder_hit()?;
                    return Ok(Flow::Continue);
                }
                known if COMMANDS.contains(&known) => {
                    self.finish_search(true);
                }
                other => {
                    self.error(&format!("unknown command {}", shown(other)))?;
                    return Ok(Flow::Continue);
                }
            }
        } else {
            self.finish_search(false);
        }
        match line.command.as_str() {
            "hub" => self.hub()?,
            "set-param" => self.set_param(&line)?,
            "init" => {
                self.ensure_engine()?;
                self.send("ready")?;
            }
            "pos" => self.pos(&line)?,
            "level" => self.level(&line)?,
            "go" => self.go(&line)?,
            "new-game" => {
                if let Some(engine) = &mut self.engine {
                    engine.new_game();
                }
            }
            "ping" => self.send("pong")?,
            // Idle: a search that ended on its own has answered already.
            "stop" | "ponder-hit" => {}
            "quit" => return Ok(Flow::Quit),
            other => self.error(&format!("unknown command {}", shown(other)))?,
        }
        Ok(Flow::Continue)
    }

    fn hub(&self) -> io::Result<()> {
        self.send(&format!(
            "id {} {} {}",
            pair("name", "damka"),
            pair("version", env!("CARGO_PKG_VERSION")),
            pair("author", "the damka authors")
        ))?;
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        self.send(&format!(
            "param {} {} type=enum {}",
            pair("name", "variant"),
            pair("value", self.variant.name()),
            pair("values", &names.join(" "))
        ))?;
        let rules: Vec<&str> = RuleSet::all(self.variant).map(|r| r.name).collect();
        self.send(&format!(
            "param {} {} type=enum {}",
            pair("name", "rules"),
            pair("value", self.rules.name),
            pair("values", &rules.join(" "))
        ))?;
        self.send(&format!(
            "param name=hash {} type=int min=1 max={MAX_HASH_MB}",
            pair("value", &self.hash_mb.to_string())
        ))?;
        self.send(&format!(
            "param name=tables {} type=string",
            pair("value", &self.tables.to_string_lossy())
        ))?;
        self.send("wait")
    }

    fn set_param(&mut self, line: &Line) -> io::Result<()> {
        let Some(Some(name)) = line.get("name") else {
            return self.error("set-param needs name=...");
        };
        let Some(Some(value)) = line.get("value") else {
            return self.error(&format!("set-param name={} needs value=...", quote(name)));
        };
        match name {
            "variant" => match parse_variant(value) {
                Some(v) => {
                    if v != self.variant
                        && let Some(engine) = &mut self.engine
                    {
                        engine.new_game();
                    }
                    self.variant = v;
                    self.rules = RuleSet::default_for(v);
                    self.setup = Setup::initial();
                }
                None => {
                    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
                    self.error(&format!(
                        "unknown variant {} (expected one of: {})",
                        shown(value),
                        names.join(" ")
                    ))?;
                }
            },
            "rules" => match RuleSet::find(self.variant, value) {
                Ok(rules) => self.rules = rules,
                Err(e) => self.error(&e.to_string())?,
            },
            "hash" => match value.parse::<usize>() {
                Ok(mb) if (1..=MAX_HASH_MB).contains(&mb) => {
                    self.hash_mb = mb;
                    self.engine = None;
                }
                _ => self.error(&format!(
                    "hash must be 1 to {MAX_HASH_MB} MiB, not {}",
                    shown(value)
                ))?,
            },
            "tables" => {
                self.tables = PathBuf::from(value);
                self.engine = None;
            }
            other => self.error(&format!("unknown parameter {}", shown(other)))?,
        }
        Ok(())
    }

    /// Builds the engine (and opens the tables) unless it exists. A hash table too large
    /// for the memory there is is said, and the last size that worked is used instead.
    fn ensure_engine(&mut self) -> io::Result<()> {
        if self.engine.is_none() {
            let mut engine = match Engine::try_new(self.hash_mb) {
                Ok(engine) => engine,
                Err(e) => {
                    let fallback = if self.hash_mb == self.working_hash_mb {
                        1
                    } else {
                        self.working_hash_mb
                    };
                    self.error(&format!("{e}; using {fallback} MiB"))?;
                    self.hash_mb = fallback;
                    Engine::try_new(fallback)
                        .or_else(|_| Engine::try_new(1))
                        .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e.to_string()))?
                }
            };
            self.working_hash_mb = self.hash_mb;
            let dir = &self.tables;
            if !dir.as_os_str().is_empty() && dir.is_dir() {
                match Tablebase::open(dir) {
                    Ok(tb) => engine.set_tables(Some(Arc::new(tb))),
                    Err(e) => self.error(&format!("tables not used: {e}"))?,
                }
            }
            self.engine = Some(engine);
        }
        Ok(())
    }

    fn pos(&mut self, line: &Line) -> io::Result<()> {
        self.limits = Limits::default();
        let mut start = Start::Initial;
        let mut moves = Vec::new();
        for (name, value) in &line.args {
            match (name.as_str(), value) {
                ("start", _) => start = Start::Initial,
                ("pos", Some(v)) => start = Start::Hub(v.clone()),
                ("fen", Some(v)) => start = Start::Fen(v.clone()),
                ("moves", Some(v)) => moves = v.split_whitespace().map(str::to_string).collect(),
                ("pos" | "fen" | "moves", None) => {
                    self.setup = Setup::Invalid(format!("pos: {name} needs a value"));
                    return self.error(&format!("pos: {name} needs a value"));
                }
                _ => {}
            }
        }
        let setup = Setup::Game { start, moves };
        let checked = with_rules!(self.variant, R => setup.positions::<R>().map(|_| ()));
        match checked {
            Ok(()) => self.setup = setup,
            Err(why) => {
                self.error(&why)?;
                self.setup = Setup::Invalid(why);
            }
        }
        Ok(())
    }

    fn level(&mut self, line: &Line) -> io::Result<()> {
        let (mut time, mut inc, mut moves_left) = (None, Duration::ZERO, None);
        let (mut time_named, mut clock_named) = (false, false);
        for (name, value) in &line.args {
            let value = value.as_deref().unwrap_or("");
            let bad = || format!("level: bad {name} {}", shown(value));
            match name.as_str() {
                "depth" => match value.parse::<u32>() {
                    Ok(d) => self.limits.depth = Some(d),
                    Err(_) => self.error(&bad())?,
                },
                "nodes" => match value.parse::<u64>() {
                    Ok(n) => self.limits.nodes = Some(n),
                    Err(_) => self.error(&bad())?,
                },
                "move-time" => match seconds(value) {
                    Some(t) => self.limits.move_time = Some(t),
                    None => self.error(&bad())?,
                },
                "time" => {
                    time_named = true;
                    match seconds(value) {
                        Some(t) => time = Some(t),
                        None => self.error(&bad())?,
                    }
                }
                "inc" => {
                    clock_named = true;
                    match seconds(value) {
                        Some(t) => inc = t,
                        None => self.error(&bad())?,
                    }
                }
                "moves" => {
                    clock_named = true;
                    match value.parse::<u32>() {
                        Ok(m) => moves_left = (m > 0).then_some(m),
                        Err(_) => self.error(&bad())?,
                    }
                }
                // `infinite` is what no limit means; `ponder` changes nothing here.
                _ => {}
            }
        }
        if let Some(time) = time {
            self.limits.clock = Some(Clock {
                time_left: time.saturating_add(inc),
                increment: inc,
                moves_left,
            });
        } else if clock_named && !time_named {
            self.error("level: inc= and moves= need time=")?;
        }
        Ok(())
    }

    fn go(&mut self, line: &Line) -> io::Result<()> {
        let limits = std::mem::take(&mut self.limits);
        if !line.args.is_empty() && !["think", "ponder", "analyze"].iter().any(|m| line.has(m)) {
            self.error("go: expected think, ponder or analyze; thinking")?;
        }
        self.ensure_engine()?;
        if line.has("ponder") {
            with_rules!(self.variant, R => self.start::<R>(Limits::default(), Some(limits)))
        } else {
            with_rules!(self.variant, R => self.start::<R>(limits, None))
        }
    }

    /// Starts a search of the game within `limits`; `ponder` is the level to use after a
    /// `ponder-hit`, for a `go ponder`.
    fn start<R: Rules>(&mut self, limits: Limits, ponder: Option<Limits>) -> io::Result<()> {
        let game = match self.setup.positions::<R>() {
            Ok(game) => game,
            Err(why) => {
                self.error(&format!("no position to search: {why}"))?;
                return self.send("done");
            }
        };
        let root = game[game.len() - 1];
        let mut list = MoveList::new();
        generate(&root, &mut list);
        if list.as_slice().is_empty() {
            return self.send("done");
        }
        let Some(mut engine) = self.engine.take() else {
            return self.error("no engine");
        };
        engine.set_rules(self.rules);
        let stop = Arc::new(AtomicBool::new(false));
        let hit = Arc::new(AtomicBool::new(false));
        let out = Arc::clone(&self.out);
        let flag = Arc::clone(&stop);
        let silent = Arc::clone(&hit);
        let handle = thread::spawn(move || {
            let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut on_info = |info: &SearchInfo| {
                    let _ = send(&out, &info_line(R::VARIANT, info));
                };
                let result = engine.search(&game, &limits, &flag, &mut on_info);
                for damage in engine
                    .tables()
                    .map(|tb| tb.take_damage())
                    .unwrap_or_default()
                {
                    let _ = send(
                        &out,
                        &format!(
                            "info {}",
                            pair("message", &format!("{damage}; searching without it"))
                        ),
                    );
                }
                (engine, result)
            }));
            match searched {
                Ok((engine, _)) if silent.load(Ordering::SeqCst) => (Some(engine), false),
                Ok((engine, result)) => {
                    let _ = send(&out, &done_line(R::VARIANT, &result));
                    (Some(engine), true)
                }
                Err(_) => {
                    let _ = send(&out, "error message=\"the search failed\"");
                    let _ = send(&out, "done");
                    (None, true)
                }
            }
        });
        self.running = Some(Running {
            handle,
            stop,
            hit,
            ponder,
        });
        Ok(())
    }
}

/// The largest hash table, in MiB, that `set-param name=hash` accepts.
pub const MAX_HASH_MB: usize = 65_536;

/// The longest time, in seconds, that a level accepts (about 31 years).
const MAX_SECONDS: f64 = 1e9;

/// Seconds as the protocol writes them (a real number, at most [`MAX_SECONDS`]). A negative
/// time, which a GUI may send when the clock has run out, counts as none left.
fn seconds(text: &str) -> Option<Duration> {
    let s: f64 = text.parse().ok()?;
    // NaN and infinities are out of range too.
    if s.is_nan() || s > MAX_SECONDS {
        return None;
    }
    Duration::try_from_secs_f64(s.max(0.0)).ok()
}

/// Text from the GUI, quoted to be repeated in an answer: at most 40 characters of it, and
/// then how long it was.
fn shown(text: &str) -> String {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        None => format!("'{text}'"),
        Some((cut, _)) => format!("'{}...' ({} bytes)", &text[..cut], text.len()),
    }
}

/// The moves of a principal variation in Hub notation.
fn pv_text(variant: Variant, pv: &[Move]) -> String {
    let texts: Vec<String> = pv
        .iter()
        .map(|mv| notation::move_text(variant, mv))
        .collect();
    texts.join(" ")
}

fn info_line(variant: Variant, info: &SearchInfo) -> String {
    let mut line = format!(
        "info depth={} score={} nodes={} time={:.3}",
        info.depth,
        hub_score(info.score),
        info.nodes,
        info.time.as_secs_f64()
    );
    if !info.pv.is_empty() {
        line.push(' ');
        line.push_str(&pair("pv", &pv_text(variant, &info.pv)));
    }
    line
}

fn done_line(variant: Variant, result: &SearchResult) -> String {
    let mut line = String::from("done");
    if let Some(best) = &result.best_move {
        line.push(' ');
        line.push_str(&pair("move", &notation::move_text(variant, best)));
        let pv = &result.info.pv;
        if pv.len() >= 2 && pv[0] == *best {
            line.push(' ');
            line.push_str(&pair("ponder", &notation::move_text(variant, &pv[1])));
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use damka::rules::{English, International, legal_moves};

    /// A `Write` whose bytes the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn session(input: &str) -> Vec<String> {
        session_bytes(input.as_bytes())
    }

    fn session_bytes(input: &[u8]) -> Vec<String> {
        let out = Shared::default();
        let options = Options {
            variant: Variant::International,
            rules: None,
            hash_mb: 1,
            tables: PathBuf::new(),
        };
        run(io::Cursor::new(input.to_vec()), out.clone(), options).unwrap();
        let bytes = out.0.lock().unwrap().clone();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The `move=` of the last `done` line.
    fn done_move(lines: &[String]) -> String {
        let done = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("done"))
            .expect("a done line");
        let line = parse_line(done).unwrap().unwrap();
        line.get("move").flatten().expect("a move").to_string()
    }

    #[test]
    fn handshake_declares_id_params_and_waits() {
        let lines = session("hub\ninit\nping\nquit\n");
        assert!(lines[0].starts_with("id name=damka version="), "{lines:?}");
        assert_eq!(
            lines[1],
            "param name=variant value=international type=enum \
             values=\"english italian spanish russian brazilian international turkish\""
        );
        assert_eq!(
            lines[2],
            "param name=rules value=fmjd type=enum values=fmjd"
        );
        assert_eq!(lines[3], "param name=hash value=1 type=int min=1 max=65536");
        assert_eq!(lines[4], "param name=tables value=\"\" type=string");
        assert_eq!(lines[5..], ["wait", "ready", "pong"]);
    }

    #[test]
    fn rules_follow_the_variant() {
        let lines = session(
            "set-param name=variant value=english
hub
set-param name=rules value=rulepage-50
             hub
set-param name=rules value=fmjd
set-param name=variant value=brazilian
hub
",
        );
        let rules: Vec<&String> = lines.iter().filter(|l| l.contains("name=rules")).collect();
        assert_eq!(
            rules,
            [
                "param name=rules value=wcdf type=enum values=\"wcdf rulepage-50\"",
                "param name=rules value=rulepage-50 type=enum values=\"wcdf rulepage-50\"",
                "param name=rules value=cbd type=enum values=\"cbd dama-online\"",
            ]
        );
        assert!(
            lines.contains(
                &"error message=\"english has no rule set 'fmjd' (it has: wcdf, rulepage-50)\""
                    .to_string()
            )
        );
    }

    #[test]
    fn plays_a_legal_move_in_the_given_game() {
        let lines = session(
            "set-param name=variant value=english\n\
             pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves=\"11-15 23-19\"\n\
             level depth=2\ngo think\n",
        );
        let start = Position::<English>::initial();
        let legal = legal_moves(&start);
        let first = legal
            .iter()
            .find(|m| notation::move_text(Variant::English, &m.mv) == "11-15")
            .unwrap();
        let pos = start.play(&first.mv);
        let reply = legal_moves(&pos)
            .into_iter()
            .find(|m| notation::move_text(Variant::English, &m.mv) == "23-19")
            .unwrap();
        let pos = pos.play(&reply.mv);
        let text = done_move(&lines);
        assert!(notation::parse_move(&pos, &text).is_ok(), "{lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("info depth=")));
    }

    #[test]
    fn pos_start_and_fen_are_read() {
        let lines = session("pos start\nlevel depth=1\ngo think\n");
        let start = Position::<International>::initial();
        assert!(notation::parse_move(&start, &done_move(&lines)).is_ok());
        let lines = session("pos fen=\"W:W33:B28,29\"\nlevel depth=1\ngo think\n");
        assert_eq!(done_move(&lines), "33x24x29", "{lines:?}");
    }

    #[test]
    fn ponder_answers_once_after_ponder_hit_or_stop() {
        for end in ["ponder-hit", "stop"] {
            let lines = session(&format!(
                "pos start moves=\"32-28\"\nlevel depth=2\ngo ponder\n{end}\nping\n"
            ));
            let dones: Vec<&String> = lines.iter().filter(|l| l.starts_with("done")).collect();
            assert_eq!(dones.len(), 1, "{end}: {lines:?}");
            let pos = play::<International>(&["32-28"]);
            assert!(notation::parse_move(&pos, &done_move(&lines)).is_ok());
            assert!(lines.iter().any(|l| l == "pong"), "{lines:?}");
        }
    }

    fn play<R: Rules>(moves: &[&str]) -> Position<R> {
        moves.iter().fold(Position::<R>::initial(), |pos, text| {
            pos.play(&notation::parse_move(&pos, text).unwrap())
        })
    }

    #[test]
    fn a_position_without_moves_gets_a_bare_done() {
        let lines =
            session("set-param name=variant value=english\npos fen=W:W29:B25,22\ngo think\n");
        assert_eq!(lines, ["done"]);
    }

    #[test]
    fn bad_input_is_answered_with_error() {
        let lines = session(
            "frobnicate\nlevel depth=x\nset-param name=variant value=frisian\n\
             set-param name=colour value=red\npos moves=\"32-29\"\ngo think\n\
             pos pos=Wbbb\nlevel depth=1\ngo think\n",
        );
        let e = |m: &str| format!("error message=\"{m}\"");
        assert_eq!(
            lines,
            [
                e("unknown command 'frobnicate'"),
                e("level: bad depth 'x'"),
                e(
                    "unknown variant 'frisian' (expected one of: english italian spanish \
                   russian brazilian international turkish)"
                ),
                e("unknown parameter 'colour'"),
                e("move 1 of 1: illegal move '32-29'"),
                e("no position to search: move 1 of 1: illegal move '32-29'"),
                "done".to_string(),
                e("bad position: position has 4 characters, expected 51 (side and one per square)"),
                e(
                    "no position to search: bad position: position has 4 characters, expected 51 \
                   (side and one per square)"
                ),
                "done".to_string(),
            ]
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_do_not_end_the_session() {
        let lines = session_bytes(b"\xff\xfe go\r\nping\r\n");
        assert_eq!(
            lines,
            [
                "error message=\"unknown command '\u{fffd}\u{fffd}'\"",
                "pong"
            ]
        );
    }

    #[test]
    fn levels_make_limits() {
        let mut s = Session {
            out: Arc::new(Mutex::new(Box::new(Shared::default()))),
            variant: Variant::International,
            rules: RuleSet::default_for(Variant::International),
            hash_mb: 1,
            working_hash_mb: 1,
            tables: PathBuf::new(),
            engine: None,
            running: None,
            setup: Setup::initial(),
            limits: Limits::default(),
        };
        let level = |s: &mut Session, text: &str| {
            s.level(&parse_line(text).unwrap().unwrap()).unwrap();
            std::mem::take(&mut s.limits)
        };
        assert_eq!(level(&mut s, "level depth=7").depth, Some(7));
        assert_eq!(level(&mut s, "level nodes=1000").nodes, Some(1000));
        assert_eq!(
            level(&mut s, "level move-time=0.25").move_time,
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            level(&mut s, "level moves=9 time=291.5 inc=2").clock,
            Some(Clock {
                time_left: Duration::from_millis(293_500),
                increment: Duration::from_secs(2),
                moves_left: Some(9),
            })
        );
        assert_eq!(level(&mut s, "level infinite"), Limits::default());
        // Out of time: none left, not no limit.
        let clock = level(&mut s, "level time=-0.05 inc=0.1").clock.unwrap();
        assert_eq!(clock.time_left, Duration::from_millis(100));
        assert_eq!(level(&mut s, "level time=nan"), Limits::default());
        assert_eq!(level(&mut s, "level inc=2"), Limits::default());
    }

    #[test]
    fn numbers_past_their_range_are_refused_never_a_panic() {
        let lines = session(
            "set-param name=variant value=english\ninit\nlevel time=1e19 inc=1e19\n\
             level move-time=1e19\nlevel depth=99999999999\nlevel nodes=-1\n\
             set-param name=hash value=65537\nlevel time=1e9 inc=1e9 moves=4294967295\n\
             level depth=2\ngo think\nping\n",
        );
        let e = |m: &str| format!("error message=\"{m}\"");
        assert_eq!(
            lines[..7],
            [
                "ready".to_string(),
                e("level: bad time '1e19'"),
                e("level: bad inc '1e19'"),
                e("level: bad move-time '1e19'"),
                e("level: bad depth '99999999999'"),
                e("level: bad nodes '-1'"),
                e("hash must be 1 to 65536 MiB, not '65537'"),
            ],
            "{lines:?}"
        );
        // The clock of 1e9 + 1e9 seconds is kept; depth 2 ends the search.
        let rest = &lines[7..];
        assert!(rest.iter().any(|l| l.starts_with("done move=")), "{rest:?}");
        assert!(rest.iter().any(|l| l == "pong"), "{rest:?}");
        assert!(!rest.iter().any(|l| l.starts_with("error")), "{rest:?}");
    }

    #[test]
    fn long_unknown_commands_are_quoted_shortened() {
        let long = "x".repeat(1_000_000);
        let lines = session(&format!("{long}\npos fen={long}\nping\n"));
        assert_eq!(
            lines[0],
            format!(
                "error message=\"unknown command '{}...' (1000000 bytes)\"",
                "x".repeat(40)
            )
        );
        assert!(lines[1].len() < 400, "{}", &lines[1][..400]);
        assert_eq!(lines[2], "pong");
    }

    #[test]
    fn scores_use_scans_scale() {
        assert_eq!(hub_score(Score(0)), "0.00");
        assert_eq!(hub_score(Score(-35)), "-0.35");
        assert_eq!(hub_score(Score(Score::WIN - 13)), "99.87");
        assert_eq!(hub_score(Score(250)), "2.50");
        assert_eq!(hub_score(Score(-Score::WIN + 4)), "-99.96");
        assert_eq!(hub_score(Score(12_000)), "80.00");
        assert_eq!(parse_variant("Standard"), Some(Variant::International));
        assert_eq!(parse_variant("american"), Some(Variant::English));
    }
}
