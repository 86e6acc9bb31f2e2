//! The engines of a match: a Hub engine in a child process, or a DXP follower at an address.
//! Each answers "your move in this game" within a deadline, or fails with a [`Fault`] that
//! loses it the game.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use damka::notation::hub::syntax::{pair, parse_line};
use damka::notation::hub::{move_text, parse_move, write_position};
use damka::rules::{International, Move, Position, Rules};
use damka::{Color, Variant};

use crate::dxp::message::{Acceptance, EndReason, Message, VERSION};
use crate::dxp::{Connection, DxpError, find_move, move_message, setup_text};

/// Why an engine lost a game without it being played out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The process ended or the connection closed.
    Crashed(String),
    /// No move within the time allowed.
    Hung(Duration),
    /// A move that is not legal, or no move where there are some.
    Illegal(String),
    /// Its clock ran out.
    Time,
    /// It broke the protocol.
    Protocol(String),
    /// It resigned (a DXP GAMEEND saying it loses).
    Resigned,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Crashed(why) => write!(f, "crashed ({why})"),
            Fault::Hung(d) => write!(f, "sent no move within {:.1} s", d.as_secs_f64()),
            Fault::Illegal(why) => write!(f, "illegal move ({why})"),
            Fault::Time => write!(f, "lost on time"),
            Fault::Protocol(why) => write!(f, "broke the protocol ({why})"),
            Fault::Resigned => write!(f, "resigned"),
        }
    }
}

/// What bounds each move (and the game's clock, kept by the match).
#[derive(Clone, Debug, Default)]
pub struct MoveLimits {
    /// Plies deep.
    pub depth: Option<u32>,
    /// Nodes.
    pub nodes: Option<u64>,
    /// Seconds a move.
    pub move_time: Option<Duration>,
    /// Time left on the mover's clock, and the increment, when the game has a clock.
    pub clock: Option<(Duration, Duration)>,
    /// How long past its limits an engine may take before it counts as hung.
    pub grace: Duration,
}

impl MoveLimits {
    /// The longest an engine may think for this move.
    fn deadline(&self) -> Duration {
        let mut allowed = self.grace;
        if let Some(t) = self.move_time {
            allowed += t;
        }
        if let Some((left, inc)) = self.clock {
            allowed += left + inc;
        }
        allowed
    }
}

/// An engine of the match, as given on the command line.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// Its name in the report and the PDN.
    pub name: String,
    /// How to reach it.
    pub kind: SpecKind,
    /// Hub parameters (`set-param name=K value=V`), in order.
    pub options: Vec<(String, String)>,
}

/// A command line or an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecKind {
    /// A Hub engine: the program and its arguments.
    Hub(Vec<String>),
    /// A DXP follower at `host:port`.
    Dxp(String),
}

/// Splits a command line into words: blanks separate them, single or double quotes keep
/// blanks inside one.
pub fn split_command(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return Err(format!("unclosed quote in {text:?}"));
    }
    words.extend(word);
    match words.is_empty() {
        true => Err("an empty command".to_string()),
        false => Ok(words),
    }
}

/// A running engine.
pub enum Player {
    /// A Hub engine.
    Hub(HubEngine),
    /// A DXP follower.
    Dxp(DxpEngine),
}

impl Player {
    /// Starts (or connects to) the engine of `spec` for `variant`.
    pub fn start(spec: &EngineSpec, variant: Variant, rules: &str) -> Result<Player, Fault> {
        match &spec.kind {
            SpecKind::Hub(argv) => {
                HubEngine::start(argv, variant, rules, &spec.options).map(Player::Hub)
            }
            SpecKind::Dxp(address) => DxpEngine::connect(address).map(Player::Dxp),
        }
    }

    /// Whether the engine can play another game (its process runs, its connection holds).
    pub fn alive(&mut self) -> bool {
        match self {
            Player::Hub(h) => h.alive(),
            Player::Dxp(d) => d.conn.is_some(),
        }
    }

    /// Starts a game from `start`, the engine playing `colour`.
    pub fn new_game<R: Rules>(&mut self, start: &Position<R>, colour: Color) -> Result<(), Fault> {
        match self {
            Player::Hub(h) => h.send("new-game"),
            Player::Dxp(d) => d.new_game(&international(start)?, colour),
        }
    }

    /// The engine's move in `game` (oldest position first, `moves` between them).
    pub fn go<R: Rules>(
        &mut self,
        game: &[Position<R>],
        moves: &[Move],
        limits: &MoveLimits,
    ) -> Result<Move, Fault> {
        match self {
            Player::Hub(h) => h.go(game, moves, limits),
            Player::Dxp(d) => {
                let game: Vec<Position<International>> =
                    game.iter().map(international).collect::<Result<_, _>>()?;
                d.go(&game, moves, limits)
            }
        }
    }

    /// Tells the engine the game is over, `result` for it.
    pub fn game_over(&mut self, result: EndReason) {
        if let Player::Dxp(d) = self {
            d.game_over(result);
        }
    }
}

/// The position as International's, which DXP plays (the match checks the variant).
fn international<R: Rules>(pos: &Position<R>) -> Result<Position<International>, Fault> {
    Position::<International>::new(
        pos.pieces(Color::White),
        pos.pieces(Color::Black),
        pos.kings(),
        pos.side_to_move(),
    )
    .map_err(|e| Fault::Protocol(format!("DXP plays International only: {e}")))
}

/// A Hub engine in a child process; its output read by a thread into a channel.
pub struct HubEngine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    variant: Variant,
}

impl HubEngine {
    fn start(
        argv: &[String],
        variant: Variant,
        rules: &str,
        options: &[(String, String)],
    ) -> Result<HubEngine, Fault> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Fault::Crashed(format!("cannot start {:?}: {e}", argv[0])))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = HubEngine {
            child,
            stdin,
            lines,
            variant,
        };
        let startup = Duration::from_secs(60);
        engine.send("hub")?;
        let mut params = Vec::new();
        loop {
            let line = engine.line(startup)?;
            if line.trim() == "wait" {
                break;
            }
            if let Ok(Some(l)) = parse_line(&line)
                && l.command == "param"
                && let Some(Some(name)) = l.get("name")
            {
                params.push(name.to_string());
            }
        }
        engine.send(&format!(
            "set-param {} {}",
            pair("name", "variant"),
            pair("value", variant.name())
        ))?;
        if params.iter().any(|p| p == "rules") {
            engine.send(&format!(
                "set-param {} {}",
                pair("name", "rules"),
                pair("value", rules)
            ))?;
        }
        for (name, value) in options {
            engine.send(&format!(
                "set-param {} {}",
                pair("name", name),
                pair("value", value)
            ))?;
        }
        engine.send("init")?;
        loop {
            let line = engine.line(startup)?;
            if line.trim() == "ready" {
                return Ok(engine);
            }
            if line.starts_with("error") {
                return Err(Fault::Protocol(format!("at start: {line}")));
            }
        }
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn send(&mut self, line: &str) -> Result<(), Fault> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| Fault::Crashed(format!("cannot write to it: {e}")))
    }

    /// The next line of output, waiting at most `wait`.
    fn line(&mut self, wait: Duration) -> Result<String, Fault> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(Fault::Hung(wait)),
            Err(RecvTimeoutError::Disconnected) => {
                let status = self
                    .child
                    .wait()
                    .map_or_else(|e| e.to_string(), |s| s.to_string());
                Err(Fault::Crashed(format!("its output ended, {status}")))
            }
        }
    }

    fn go<R: Rules>(
        &mut self,
        game: &[Position<R>],
        moves: &[Move],
        limits: &MoveLimits,
    ) -> Result<Move, Fault> {
        let texts: Vec<String> = moves.iter().map(|m| move_text(self.variant, m)).collect();
        let mut pos = format!("pos {}", pair("pos", &write_position(&game[0])));
        if !texts.is_empty() {
            pos.push(' ');
            pos.push_str(&pair("moves", &texts.join(" ")));
        }
        self.send(&pos)?;
        let mut level = String::from("level");
        if let Some(d) = limits.depth {
            level.push_str(&format!(" depth={d}"));
        }
        if let Some(n) = limits.nodes {
            level.push_str(&format!(" nodes={n}"));
        }
        if let Some(t) = limits.move_time {
            level.push_str(&format!(" move-time={:.3}", t.as_secs_f64()));
        }
        if let Some((left, inc)) = limits.clock {
            level.push_str(&format!(
                " time={:.3} inc={:.3}",
                left.as_secs_f64(),
                inc.as_secs_f64()
            ));
        }
        if level != "level" {
            self.send(&level)?;
        }
        self.send("go think")?;
        let allowed = limits.deadline();
        let deadline = Instant::now() + allowed;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.line(left).map_err(|f| match f {
                Fault::Hung(_) => Fault::Hung(allowed),
                other => other,
            })?;
            let Ok(Some(parsed)) = parse_line(&line) else {
                continue;
            };
            if parsed.command != "done" {
                continue;
            }
            let last = game.last().expect("a position");
            return match parsed.get("move").flatten() {
                Some(text) => {
                    parse_move(last, text).map_err(|e| Fault::Illegal(format!("{text}: {e}")))
                }
                None => Err(Fault::Illegal("no move given".into())),
            };
        }
    }
}

impl Drop for HubEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A DXP follower; the match is the initiator and sends it the other engine's moves.
pub struct DxpEngine {
    address: String,
    conn: Option<Connection>,
    /// Moves of the current game already exchanged with it.
    sent: usize,
    /// Whether a game is going on (not yet ended by a GAMEEND either way).
    in_game: bool,
}

impl DxpEngine {
    fn connect(address: &str) -> Result<DxpEngine, Fault> {
        let conn =
            Connection::connect(address, Duration::from_secs(10), false).map_err(Fault::Crashed)?;
        Ok(DxpEngine {
            address: address.to_string(),
            conn: Some(conn),
            sent: 0,
            in_game: false,
        })
    }

    fn conn(&mut self) -> Result<&mut Connection, Fault> {
        match &mut self.conn {
            Some(c) => Ok(c),
            None => Err(Fault::Crashed(format!("{}: not connected", self.address))),
        }
    }

    /// A failure of the connection: it is dropped.
    fn failed(&mut self, e: DxpError, wait: Duration) -> Fault {
        self.conn = None;
        match e {
            DxpError::Silent(_) => Fault::Hung(wait),
            DxpError::Closed | DxpError::Io(_) => Fault::Crashed(e.to_string()),
            other => Fault::Protocol(other.to_string()),
        }
    }

    fn new_game(&mut self, start: &Position<International>, colour: Color) -> Result<(), Fault> {
        self.sent = 0;
        let setup =
            (*start != Position::initial()).then(|| (start.side_to_move(), setup_text(start)));
        let request = Message::GameReq {
            version: VERSION,
            name: "damka match".into(),
            follower: colour,
            minutes: 0,
            moves: 0,
            setup,
        };
        let wait = Duration::from_secs(30);
        let sent = self.conn()?.send(&request);
        if let Err(e) = sent {
            return Err(self.failed(e, wait));
        }
        loop {
            let received = self.conn()?.receive(wait);
            match received {
                Ok(Message::GameAcc {
                    code: Acceptance::Accept,
                    ..
                }) => {
                    self.in_game = true;
                    return Ok(());
                }
                Ok(Message::GameAcc { code, .. }) => {
                    return Err(Fault::Protocol(format!("refused the game: {code:?}")));
                }
                Ok(_) => {}
                Err(e) => return Err(self.failed(e, wait)),
            }
        }
    }

    fn go(
        &mut self,
        game: &[Position<International>],
        moves: &[Move],
        limits: &MoveLimits,
    ) -> Result<Move, Fault> {
        let wait = limits.deadline();
        // The other engine's moves since this one last moved.
        while self.sent < moves.len() {
            let message = move_message(&moves[self.sent], 0);
            let sent = self.conn()?.send(&message);
            if let Err(e) = sent {
                return Err(self.failed(e, wait));
            }
            self.sent += 1;
        }
        let pos = game.last().expect("a position");
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let received = self.conn()?.receive(left);
            match received {
                Ok(Message::Move {
                    from, to, captured, ..
                }) => {
                    let mv = find_move(pos, from, to, &captured).map_err(Fault::Illegal)?;
                    self.sent += 1;
                    return Ok(mv);
                }
                Ok(Message::GameEnd { reason, .. }) => {
                    self.in_game = false;
                    let _ = self.conn()?.send(&Message::GameEnd {
                        reason: reason.mirrored(),
                        stop: false,
                    });
                    return Err(match reason {
                        EndReason::ILose => Fault::Resigned,
                        other => Fault::Protocol(format!("ended the game early ({other:?})")),
                    });
                }
                Ok(Message::Chat(_)) => {}
                Ok(other) => {
                    return Err(Fault::Protocol(format!(
                        "{other:?} where a move was awaited"
                    )));
                }
                Err(e) => return Err(self.failed(e, wait)),
            }
        }
    }

    fn game_over(&mut self, result: EndReason) {
        if !std::mem::take(&mut self.in_game) {
            return;
        }
        let Some(conn) = &mut self.conn else { return };
        // The match speaks for the other engine: its result is the mirror of this one's.
        if conn
            .send(&Message::GameEnd {
                reason: result.mirrored(),
                stop: false,
            })
            .is_err()
        {
            self.conn = None;
            return;
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match conn.receive(left) {
                Ok(Message::GameEnd { .. }) => return,
                Ok(_) | Err(DxpError::Message(..)) => {}
                Err(_) => {
                    self.conn = None;
                    return;
                }
            }
        }
    }
}
