//! The engine: iterative deepening principal-variation search with a transposition table,
//! a capture quiescence, an evaluation per board kind, draw rules and tablebase probes.

pub mod eval;
pub mod tt;
pub mod zobrist;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::Variant;
use crate::rules::{
    Color, Counters, Geometry, Move, MoveList, Position, RuleSet, Rules, captures, count_moves,
    generate,
};
use crate::tablebase::{FileKind, Material, MoverFrame, RuleCategory, RuleMove, Tablebase, Wdl};

use eval::Eval;
use tt::Bound;
pub use tt::HashError;

/// The deepest the search goes, in plies from the root (iterations stop here too).
pub const MAX_PLY: usize = 128;

/// The deepest iteration a search runs, in plies: half of [`MAX_PLY`], leaving room for the
/// quiescence. Deeper depth limits are clamped to it.
pub const MAX_DEPTH: u32 = MAX_PLY as u32 / 2;

const INF: i32 = 32_000;

/// From this ply on, near the horizon and in the quiescence, the tables are probed only
/// when the answer is already in memory (a conditional probe).
const DEEP_PLY: usize = 4;

/// A position the tables call a draw scores within this band (a quarter of its
/// evaluation): every such move keeps the draw, and the search picks the one that leaves the
/// opponent the most chances to go wrong. A win the move-count rules draw (cursed) scores
/// at its top edge, a loss they draw (blessed) at its bottom.
const DRAW_BAND: i32 = 25;

/// What bounds a search. With every field `None` the search runs until `stop` is set (or
/// until it reaches [`MAX_DEPTH`]).
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

/// Scores of the history heuristic, by side, from-square and to-square.
type History = [[[i32; 64]; 64]; 2];

/// A search engine: its transposition table, history, and optional endgame tables.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use damka::rules::{English, Position};
/// use damka::search::{Engine, Limits};
/// let mut engine = Engine::new(16);
/// let limits = Limits { depth: Some(6), ..Limits::default() };
/// let game = [Position::<English>::initial()];
/// let result = engine.search(&game, &limits, &AtomicBool::new(false), &mut |_| {});
/// assert!(result.best_move.is_some());
/// assert_eq!(result.info.depth, 6);
/// ```
pub struct Engine {
    tt: tt::Table,
    history: Box<History>,
    tables: Option<Arc<Tablebase>>,
    /// For each variant seen, the slices whose tables are present.
    coverage: HashMap<Variant, Arc<Coverage>>,
    /// Answer root positions in the tables from them, without search.
    table_root: bool,
    /// Probe deep in the tree only what is already in memory.
    conditional_probes: bool,
    /// The draw rules chosen per variant (a variant not here plays by its default).
    rules: HashMap<Variant, &'static RuleSet>,
}

// The Hub runs searches on a thread of their own.
const _: () = {
    const fn send<T: Send>() {}
    send::<Engine>()
};

impl Engine {
    /// An engine with a transposition table of about `hash_mb` MiB.
    ///
    /// # Panics
    /// When the table's memory cannot be had; [`Engine::try_new`] says so instead.
    pub fn new(hash_mb: usize) -> Engine {
        Engine::try_new(hash_mb).unwrap_or_else(|e| panic!("{e}"))
    }

    /// An engine with a transposition table of about `hash_mb` MiB, or an error naming the
    /// size when its memory cannot be had.
    pub fn try_new(hash_mb: usize) -> Result<Engine, HashError> {
        Ok(Engine {
            tt: tt::Table::try_new(hash_mb)?,
            history: Box::new([[[0; 64]; 64]; 2]),
            tables: None,
            coverage: HashMap::new(),
            table_root: true,
            conditional_probes: true,
            rules: HashMap::new(),
        })
    }

    /// The tables the engine probes, if any.
    pub fn tables(&self) -> Option<&Arc<Tablebase>> {
        self.tables.as_ref()
    }

    /// Whether a root position held by the tables is answered from them without a search
    /// (the default). Off, the search runs and probes the tables at its nodes only.
    pub fn set_table_root(&mut self, enabled: bool) {
        self.table_root = enabled;
    }

    /// Whether probes deep in the tree and in the quiescence are skipped when they would read
    /// a block from disk (the default: faster, but then a search's result depends on what
    /// earlier probes left in the cache). Off, every node the tables hold is probed, so the
    /// same search gives the same result whatever ran before (what the analyser needs).
    pub fn set_conditional_probes(&mut self, enabled: bool) {
        self.conditional_probes = enabled;
    }

    /// Plays `rules.variant` by the draw rules `rules` (each variant's default until set).
    pub fn set_rules(&mut self, rules: &'static RuleSet) {
        self.rules.insert(rules.variant, rules);
    }

    /// The draw rules the engine plays `variant` by.
    pub fn rules(&self, variant: Variant) -> &'static RuleSet {
        self.rules
            .get(&variant)
            .copied()
            .unwrap_or_else(|| RuleSet::default_for(variant))
    }

    /// Uses `tables` for probes (or none).
    pub fn set_tables(&mut self, tables: Option<Arc<Tablebase>>) {
        self.tables = tables;
        self.coverage.clear();
    }

    /// Forgets everything learnt: clears the transposition table and the history.
    pub fn new_game(&mut self) {
        self.tt.clear();
        *self.history = [[[0; 64]; 64]; 2];
    }

    /// The most pieces of a slice of `R` whose tables are present (0 without tables).
    pub fn table_pieces<R: Rules>(&mut self) -> u32 {
        self.coverage::<R>().max_pieces
    }

    /// The slices of `R` with both files present, read from the tables directory once.
    fn coverage<R: Rules>(&mut self) -> Arc<Coverage> {
        let Some(tb) = &self.tables else {
            return Arc::new(Coverage::default());
        };
        self.coverage
            .entry(R::VARIANT)
            .or_insert_with(|| Arc::new(Coverage::of(tb, R::VARIANT)))
            .clone()
    }

    /// Searches the last position of `game` (the game so far, oldest first; used for
    /// repetitions and move-count draws) within `limits`, until `stop` is set. `on_info` is
    /// called after each completed iteration and once at the end.
    ///
    /// When the position is in the tables and no move-count rule can cut the result short,
    /// the move is the table's best (fastest win, slowest loss) and no search is done
    /// (depth 0). A table draw is searched among the moves that keep it. Inside the search,
    /// table draws score within a small band around zero (see `DRAW_BAND`).
    ///
    /// Where the tables hold rule results for the rules played by, they decide: a win under
    /// the rules is played fastest to convert first, a win the counts draw (cursed) scores
    /// as a draw and is searched among the moves that keep it, as a loss the counts draw.
    ///
    /// # Panics
    /// If `game` is empty.
    pub fn search<R: Rules>(
        &mut self,
        game: &[Position<R>],
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let start = Instant::now();
        let root = *game.last().expect("a game has at least one position");
        let coverage = self.coverage::<R>();
        let rules = self.rules(R::VARIANT);
        let counters = rules.game_counters(game);
        let tables = self.tables.clone();
        let ruled = coverage.rule_set == Some(rules.name);
        let mut only = None;
        if let Some(tb) = tables.as_deref()
            && self.table_root
            && coverage.holds(&root)
        {
            let c = *counters.last().expect("one position");
            let answer = match ruled {
                true => rule_table_move(tb, &root, rules, c, start),
                false => None,
            };
            let answer =
                answer.or_else(|| table_move(tb, &root, rules.plies_left(&root, c), start));
            match answer {
                Some(TableRoot::Answer(result)) => {
                    on_info(&result.info);
                    return result;
                }
                Some(TableRoot::Draws(moves)) => only = Some(moves),
                None => {}
            }
        }
        self.tt.next_age();
        for side in self.history.iter_mut() {
            for row in side.iter_mut() {
                for h in row.iter_mut() {
                    *h /= 8;
                }
            }
        }
        let (soft, hard) = deadlines(limits, start);
        let mut s = Searcher {
            tt: &mut self.tt,
            history: &mut self.history,
            tables: tables.as_deref(),
            coverage: &coverage,
            conditional: self.conditional_probes,
            eval: Eval::new(),
            keys: game.iter().map(zobrist::key).collect(),
            rules,
            ruled,
            counters,
            list: MoveList::new(),
            stack: Vec::with_capacity(64 * MAX_PLY),
            killers: [[None; 2]; MAX_PLY + 1],
            pv: vec![Vec::new(); MAX_PLY + 2],
            nodes: 0,
            stop,
            hard,
            node_limit: limits.nodes,
            aborted: false,
            root_depth: 1,
        };
        s.iterate(&root, only, limits, soft, start, on_info)
    }
}

/// The slices of one variant whose tables are present.
#[derive(Debug, Default)]
struct Coverage {
    slices: HashSet<Material>,
    max_pieces: u32,
    /// The rule set the rules files hold, if there are any.
    rule_set: Option<&'static str>,
    /// Whether the tables hold distances to the end ([`Tablebase::has_dtw`]): else wins
    /// are scored by the ply alone.
    dtw: bool,
}

impl Coverage {
    /// The slices of `variant` in `tb`'s store (those with win/draw/loss and distance-to-
    /// conversion files), the rule set its rules files hold, and whether they hold
    /// distances to the end.
    fn of(tb: &Tablebase, variant: Variant) -> Coverage {
        let store = tb.store();
        let listing = store.listing(variant).unwrap_or_default();
        let slices: HashSet<Material> = listing.slices_with(&FileKind::BUILT).into_iter().collect();
        Coverage {
            max_pieces: slices.iter().map(|m| m.pieces()).max().unwrap_or(0),
            slices,
            rule_set: store.rule_set(variant).ok().flatten().map(|r| r.name),
            dtw: tb.has_dtw(variant),
        }
    }

    /// Whether the tables hold `pos` (captures are resolved into smaller slices, which
    /// a table set built in dependency order holds).
    #[inline]
    fn holds<R: Rules>(&self, pos: &Position<R>) -> bool {
        pos.occupied().count() <= self.max_pieces
            && self.slices.contains(&MoverFrame::of(pos).material())
    }
}

/// What the tables say at the root.
enum TableRoot {
    /// The move to play: the fastest win or the slowest loss (or the only draw).
    Answer(SearchResult),
    /// A draw: the moves that keep it, for the search to choose from.
    Draws(Vec<Move>),
}

/// The longest line [`plies_to_end`] follows.
const LINE_TO_END: usize = 2000;

/// The tables' answer at the root, when they hold the position and a win or loss can be
/// completed before a move-count rule draws the game (`left` plies).
fn table_move<R: Rules>(
    tb: &Tablebase,
    root: &Position<R>,
    left: Option<u32>,
    start: Instant,
) -> Option<TableRoot> {
    let rated = tb.rated_moves(root).ok()?;
    let best = rated.first()?;
    let o = best.outcome;
    // A win or loss the count may draw first (without distances to the end, any under a
    // count): searched.
    let too_long = |l: u32| !tb.has_dtw(R::VARIANT) || u32::from(o.dtw) > l;
    if o.wdl != Wdl::Draw && left.is_some_and(too_long) {
        return None;
    }
    let draws: Vec<Move> = rated
        .iter()
        .filter(|r| r.outcome.wdl == Wdl::Draw)
        .map(|r| r.mv.mv)
        .collect();
    if o.wdl == Wdl::Draw && draws.len() > 1 {
        return Some(TableRoot::Draws(draws));
    }
    // The line of best moves, as far as the table leads (at most 40 plies).
    let mut pv = vec![best.mv.mv];
    if o.wdl != Wdl::Draw {
        let line = tb.mainline(&root.play(&best.mv.mv)).take(39);
        pv.extend(line.map_while(Result::ok).map(|step| step.best().mv.mv));
    }
    let d = plies_to_end(tb, root, &best.mv.mv, o.dtw);
    let score = match o.wdl {
        Wdl::Win => Score(Score::WIN - d),
        Wdl::Loss => Score(-(Score::WIN - d)),
        Wdl::Draw => Score(0),
    };
    Some(table_answer(best.mv.mv, score, pv, start))
}

/// The plies to the end of a game won or lost by playing `best` from `root`: `dtw`, the
/// distance to the end, where the tables hold it; else the length of the tables' line
/// (the fastest conversions against the slowest), the end that line reaches.
fn plies_to_end<R: Rules>(tb: &Tablebase, root: &Position<R>, best: &Move, dtw: u16) -> i32 {
    match tb.has_dtw(R::VARIANT) {
        true => i32::from(dtw),
        false => 1 + tb.mainline(&root.play(best)).take(LINE_TO_END).count() as i32,
    }
}

/// The tables' move at the root, with its score and line, searched at depth 0.
fn table_answer(best: Move, score: Score, pv: Vec<Move>, start: Instant) -> TableRoot {
    TableRoot::Answer(SearchResult {
        best_move: Some(best),
        info: SearchInfo {
            depth: 0,
            score,
            nodes: 0,
            time: start.elapsed(),
            pv,
        },
    })
}

/// The tables' answer at the root under the rule results of `rules` (held by the tables),
/// at counters `c`: a win under the rules is played by its fastest move among those that
/// keep it, a loss by its slowest; any other result is searched among the moves that keep
/// it. `None` where the tables hold no rule result for the position.
fn rule_table_move<R: Rules>(
    tb: &Tablebase,
    root: &Position<R>,
    rules: &RuleSet,
    c: Counters,
    start: Instant,
) -> Option<TableRoot> {
    let category = tb.probe_rules(root, rules, c).ok()?;
    // The best move of a position under the rules: the first in the plain order (fastest
    // win, slowest loss) of those keeping its category.
    let keeping = |pos: &Position<R>, c: Counters| -> Option<Vec<RuleMove>> {
        let category = tb.probe_rules(pos, rules, c).ok()?;
        let mut moves = tb.rule_moves(pos, rules, c).ok()?;
        moves.retain(|m| m.category == category);
        moves.sort_by_key(|m| std::cmp::Reverse(m.rated.outcome.score()));
        Some(moves)
    };
    let moves = keeping(root, c)?;
    let best = moves.first()?;
    let decided = matches!(category, RuleCategory::Win | RuleCategory::Loss);
    if !decided && moves.len() > 1 {
        return Some(TableRoot::Draws(
            moves.iter().map(|m| m.rated.mv.mv).collect(),
        ));
    }
    // The line of best moves under the rules, as far as the table leads (at most 40 plies).
    let mut pv = vec![best.rated.mv.mv];
    let (mut pos, mut counters) = (root.play(&best.rated.mv.mv), best.counters);
    while decided && pv.len() < 40 {
        let Some(next) = keeping(&pos, counters).and_then(|m| m.into_iter().next()) else {
            break;
        };
        pv.push(next.rated.mv.mv);
        pos = pos.play(&next.rated.mv.mv);
        counters = next.counters;
    }
    let d = plies_to_end(tb, root, &best.rated.mv.mv, best.rated.outcome.dtw);
    let score = match category {
        RuleCategory::Win => Score(Score::WIN - d),
        RuleCategory::Loss => Score(-(Score::WIN - d)),
        _ => Score(0),
    };
    Some(table_answer(best.rated.mv.mv, score, pv, start))
}

/// The soft deadline (no new iteration after it) and the hard one (abort), from the limits.
fn deadlines(limits: &Limits, start: Instant) -> (Option<Instant>, Option<Instant>) {
    let mut soft: Option<Duration> = None;
    let mut hard: Option<Duration> = None;
    let mut tighten = |s: Duration, h: Duration| {
        soft = Some(soft.map_or(s, |x| x.min(s)));
        hard = Some(hard.map_or(h, |x| x.min(h)));
    };
    if let Some(t) = limits.move_time {
        tighten(t.mul_f64(0.6), t);
    }
    if let Some(c) = &limits.clock {
        let overhead = Duration::from_millis(30);
        let usable = c.time_left.saturating_sub(overhead);
        let moves = c.moves_left.unwrap_or(30).clamp(1, 60);
        let share = (usable / moves).saturating_add(c.increment.mul_f64(0.75));
        let h = share
            .saturating_mul(3)
            .min(usable / 2)
            .max(Duration::from_millis(1));
        tighten((share / 2).min(h), h);
    }
    // A deadline past what the clock can hold is no deadline.
    (
        soft.and_then(|d| start.checked_add(d)),
        hard.and_then(|d| start.checked_add(d)),
    )
}

/// One search: the state shared by every node.
struct Searcher<'a, R: Rules> {
    tt: &'a mut tt::Table,
    history: &'a mut History,
    tables: Option<&'a Tablebase>,
    coverage: &'a Coverage,
    /// Deep probes only from memory (see [`Engine::set_conditional_probes`]).
    conditional: bool,
    eval: Eval<R>,
    /// Keys of the game's positions, then of the current line.
    keys: Vec<u64>,
    /// The draw rules played by.
    rules: &'static RuleSet,
    /// Whether the tables hold rule results for `rules`.
    ruled: bool,
    /// Draw counters, parallel to `keys`.
    counters: Vec<Counters>,
    /// Scratch list for move generation.
    list: MoveList,
    /// The moves of every node on the current line, each node's on top of its parent's.
    stack: Vec<Move>,
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    pv: Vec<Vec<Move>>,
    nodes: u64,
    stop: &'a AtomicBool,
    hard: Option<Instant>,
    node_limit: Option<u64>,
    aborted: bool,
    root_depth: i32,
}

/// A win score as stored in the table: relative to the node, not the root.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= Score::DECISIVE {
        score + ply as i32
    } else if score <= -Score::DECISIVE {
        score - ply as i32
    } else {
        score
    }
}

/// A stored score read back at `ply`.
fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= Score::DECISIVE {
        score - ply as i32
    } else if score <= -Score::DECISIVE {
        score + ply as i32
    } else {
        score
    }
}

/// Whether the side to move has any move at all (a step into an empty square or a capture
/// is enough; called only when it has no capture).
fn has_quiet_move<R: Rules>(pos: &Position<R>) -> bool {
    let side = pos.side_to_move();
    let empty = pos.empty().0;
    let men = pos.men_of(side).0;
    let kings = pos.kings_of(side).0;
    let man_dirs = R::Board::FORWARD[side.index()] | R::Board::SIDEWAYS;
    (0..4).any(|d| {
        let movers = if man_dirs >> d & 1 == 1 {
            men | kings
        } else {
            kings
        };
        R::Board::step(movers, d) & empty != 0
    })
}

/// Orders `moves` best first: the table move, captures (most pieces, then most kings),
/// crowning moves, killers, then by history.
fn order(
    moves: &mut [Move],
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    history: &[[i32; 64]; 64],
) {
    moves.sort_unstable_by_key(|mv| {
        let s: i32 = if Some(*mv) == tt_move {
            1 << 30
        } else if mv.is_capture() {
            (1 << 26)
                + 64 * mv.captured().count() as i32
                + 8 * (mv.captured() & mv.kings_delta()).count() as i32
                + mv.is_promotion() as i32
        } else if mv.is_promotion() {
            1 << 25
        } else if Some(*mv) == killers[0] {
            (1 << 24) + 1
        } else if Some(*mv) == killers[1] {
            1 << 24
        } else {
            history[mv.from().bit() as usize][mv.to().bit() as usize]
        };
        std::cmp::Reverse(s)
    });
}

impl<R: Rules> Searcher<'_, R> {
    /// Iterative deepening from depth 1 until a limit says stop.
    fn iterate(
        &mut self,
        root: &Position<R>,
        only: Option<Vec<Move>>,
        limits: &Limits,
        soft: Option<Instant>,
        start: Instant,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let mut list = MoveList::new();
        generate(root, &mut list);
        let mut moves: Vec<Move> = only.unwrap_or_else(|| list.as_slice().to_vec());
        let info = |depth, score, nodes, pv| SearchInfo {
            depth,
            score,
            nodes,
            time: start.elapsed(),
            pv,
        };
        if moves.is_empty() {
            let result = SearchResult {
                best_move: None,
                info: info(0, Score(-Score::WIN), 0, Vec::new()),
            };
            on_info(&result.info);
            return result;
        }
        let key = *self.keys.last().expect("root key");
        let tt_move = self.tt.get(key).and_then(|e| e.mv);
        let side = root.side_to_move().index();
        order(&mut moves, tt_move, [None; 2], &self.history[side]);
        let timed = limits.move_time.is_some() || limits.clock.is_some();
        let bounded = timed || limits.depth.is_some() || limits.nodes.is_some();
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let mut best: Option<SearchInfo> = None;
        for depth in 1..=max_depth {
            self.root_depth = depth as i32;
            let Some(score) = self.root(root, &mut moves, depth as i32) else {
                break;
            };
            let report = info(depth, Score(score), self.nodes, self.pv[0].clone());
            on_info(&report);
            best = Some(report);
            let sc = Score(score);
            // A forced result seen in full does not change with more depth.
            let proven = sc
                .plies_to_end()
                .is_some_and(|n| n < depth as i32 && self.tables.is_none());
            if (timed && moves.len() == 1)
                || (bounded && proven)
                || soft.is_some_and(|t| Instant::now() >= t)
            {
                break;
            }
        }
        let info = match best {
            Some(mut b) => {
                b.nodes = self.nodes;
                b.time = start.elapsed();
                b
            }
            None => info(0, Score(0), self.nodes, vec![moves[0]]),
        };
        on_info(&info);
        SearchResult {
            best_move: info.pv.first().copied().or(Some(moves[0])),
            info,
        }
    }

    /// One iteration at the root; `None` when aborted. The best move goes to the front.
    fn root(&mut self, pos: &Position<R>, moves: &mut Vec<Move>, depth: i32) -> Option<i32> {
        self.stack.clear();
        let mut alpha = -INF;
        let beta = INF;
        let mut best = 0;
        let single = moves.len() == 1;
        for (i, mv) in moves.iter().enumerate() {
            let child = pos.play(mv);
            self.push(pos, &child, mv);
            let d = depth - 1 + single as i32;
            let mut score = if i == 0 {
                -self.pvs(&child, d, -beta, -alpha, 1)
            } else {
                -self.pvs(&child, d, -alpha - 1, -alpha, 1)
            };
            if i > 0 && score > alpha && !self.aborted {
                score = -self.pvs(&child, d, -beta, -alpha, 1);
            }
            self.pop();
            if self.aborted {
                return None;
            }
            if score > alpha {
                alpha = score;
                best = i;
                self.set_pv(0, *mv);
            }
        }
        let mv = moves.remove(best);
        moves.insert(0, mv);
        let key = *self.keys.last().expect("root key");
        self.tt.put(key, Some(mv), alpha, depth, Bound::Exact);
        Some(alpha)
    }

    /// Counts a node; says whether the search must stop.
    #[inline(always)]
    fn poll(&mut self) -> bool {
        self.nodes += 1;
        if self.node_limit.is_some_and(|n| self.nodes >= n) {
            self.aborted = true;
        }
        if self.nodes & 2047 == 0
            && (self.stop.load(Ordering::Relaxed) || self.hard.is_some_and(|t| Instant::now() >= t))
        {
            self.aborted = true;
        }
        self.aborted
    }

    fn push(&mut self, pos: &Position<R>, child: &Position<R>, mv: &Move) {
        let key = zobrist::after(pos, *self.keys.last().expect("key"), mv);
        let c = self
            .rules
            .next(pos, *self.counters.last().expect("counters"), child);
        self.keys.push(key);
        self.counters.push(c);
    }

    fn pop(&mut self) {
        self.keys.pop();
        self.counters.pop();
    }

    /// `pv[ply]` becomes `mv` followed by `pv[ply + 1]`.
    fn set_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&tail[0]);
    }

    /// Whether the current position (at `ply` > 0) is drawn by rule: a move count ran out
    /// (and the side to move has a move: without one it has lost) or the position occurred
    /// before since the last irreversible move.
    fn rule_draw(&self, pos: &Position<R>) -> bool {
        let n = self.keys.len() - 1;
        let c = self.counters[n];
        if self.rules.count_draw(pos, c) {
            return count_moves(pos, &mut MoveList::new()) > 0;
        }
        let key = self.keys[n];
        let oldest = n.saturating_sub(c.quiet as usize);
        (oldest..n.saturating_sub(1))
            .rev()
            .step_by(2)
            .any(|i| self.keys[i] == key)
    }

    /// The table's verdict on `pos`, when it holds the position and the result cannot be
    /// changed by a move-count rule. Wins are worth more the sooner they come.
    /// With `deep`, only tables already open and blocks already decoded are used: a probe
    /// that would read and decode a block is skipped (the search goes on instead).
    fn probe(&mut self, pos: &Position<R>, ply: usize, deep: bool) -> Option<i32> {
        if !self.coverage.holds(pos) {
            return None;
        }
        let tb = self.tables?;
        let dtw = self.coverage.dtw;
        let o = if deep {
            tb.resolve_cached(pos, dtw)?
        } else {
            tb.resolve(pos, dtw).ok()?
        };
        let d = i32::from(o.dtw);
        let c = *self.counters.last().expect("counters");
        // Under the rule results, a decided position the counts draw scores as a draw.
        let rule = match (self.ruled, o.wdl) {
            (false, _) | (true, Wdl::Draw) => None,
            (true, _) if deep => tb.rule_result_cached(pos, self.rules, c),
            (true, _) => tb.rule_result_at(pos, self.rules, c).ok(),
        };
        let left = self.rules.plies_left(pos, c);
        if let Some((r, counted)) = rule {
            // Drawn by the counts: at the edge of the draws' band, a cursed win above the
            // others (the opponent may still go wrong), a blessed loss below.
            match r.with_plies_left(counted) {
                RuleCategory::CursedWin => return Some(DRAW_BAND),
                RuleCategory::BlessedLoss => return Some(-DRAW_BAND),
                _ => {}
            }
        } else if o.wdl != Wdl::Draw && left.is_some_and(|l| !dtw || o.dtw as u32 > l) {
            // Without rule results, a win or loss is trusted where its distance to the end
            // fits in the plies left: without distances, not under a count.
            return None;
        }
        Some(match o.wdl {
            Wdl::Draw => (self.eval.evaluate(pos) / 4).clamp(1 - DRAW_BAND, DRAW_BAND - 1),
            Wdl::Win => Score::WIN - ply as i32 - d,
            Wdl::Loss => -(Score::WIN - ply as i32 - d),
        })
    }

    /// Principal-variation search of `pos` to `depth` plies within (`alpha`, `beta`).
    fn pvs(
        &mut self,
        pos: &Position<R>,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
    ) -> i32 {
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply);
        }
        self.pv[ply].clear();
        if self.poll() {
            return 0;
        }
        if self.rule_draw(pos) {
            return 0;
        }
        // No line from here can end sooner than a win at this ply.
        alpha = alpha.max(-(Score::WIN - ply as i32));
        beta = beta.min(Score::WIN - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        if ply >= MAX_PLY - 1 {
            return self.eval.evaluate(pos);
        }
        let deep = self.conditional && ply >= DEEP_PLY && depth <= 2;
        if let Some(score) = self.probe(pos, ply, deep) {
            return score;
        }
        let pv_node = beta - alpha > 1;
        let key = *self.keys.last().expect("key");
        let entry = self.tt.get(key);
        if let Some(e) = entry
            && !pv_node
            && i32::from(e.depth) >= depth
        {
            let s = from_tt(e.score, ply);
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if cut {
                return s;
            }
        }
        generate(pos, &mut self.list);
        if self.list.as_slice().is_empty() {
            return -(Score::WIN - ply as i32);
        }
        // This node's moves sit at the top of the move stack until it returns.
        let first = self.stack.len();
        self.stack.extend_from_slice(self.list.as_slice());
        let count = self.stack.len() - first;
        let side = pos.side_to_move();
        order(
            &mut self.stack[first..],
            entry.and_then(|e| e.mv),
            self.killers[ply],
            &self.history[side.index()],
        );
        // A forced move does not use up depth (within reason).
        let extend = (count == 1 && (ply as i32) < 2 * self.root_depth + 8) as i32;
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        for i in 0..count {
            let mv = &self.stack[first + i].clone();
            let child = pos.play(mv);
            self.push(pos, &child, mv);
            let d = depth - 1 + extend;
            let quiet = !mv.is_capture() && !mv.is_promotion();
            let mut score;
            if i == 0 {
                score = -self.pvs(&child, d, -beta, -alpha, ply + 1);
            } else {
                let reduce =
                    (depth >= 3 && i >= 3 && quiet && !self.killers[ply].contains(&Some(*mv)))
                        as i32;
                score = -self.pvs(&child, d - reduce, -alpha - 1, -alpha, ply + 1);
                if reduce > 0 && score > alpha && !self.aborted {
                    score = -self.pvs(&child, d, -alpha - 1, -alpha, ply + 1);
                }
                if score > alpha && score < beta && !self.aborted {
                    score = -self.pvs(&child, d, -beta, -alpha, ply + 1);
                }
            }
            self.pop();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(*mv);
                if score > alpha {
                    alpha = score;
                    self.set_pv(ply, *mv);
                    if score >= beta {
                        if quiet {
                            self.reward(side, mv, depth, ply);
                        }
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.stack.truncate(first);
        self.tt.put(key, best_move, to_tt(best, ply), depth, bound);
        best
    }

    /// A quiet move caused a cut-off: remember it as a killer and in the history.
    fn reward(&mut self, side: Color, mv: &Move, depth: i32, ply: usize) {
        let k = &mut self.killers[ply];
        if k[0] != Some(*mv) {
            k[1] = k[0];
            k[0] = Some(*mv);
        }
        let h = &mut self.history[side.index()][mv.from().bit() as usize][mv.to().bit() as usize];
        *h += depth * depth;
        if *h > 1 << 20 {
            for row in self.history[side.index()].iter_mut() {
                for x in row.iter_mut() {
                    *x /= 2;
                }
            }
        }
    }

    /// The search beyond the horizon: captures are compulsory, so every capture sequence
    /// is played out; a position without a capture is evaluated (or looked up in the tables).
    fn quiesce(&mut self, pos: &Position<R>, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        if self.poll() {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return self.eval.evaluate(pos);
        }
        if let Some(score) = self.probe(pos, ply, self.conditional && ply >= DEEP_PLY) {
            return score;
        }
        captures(pos, &mut self.list);
        if self.list.as_slice().is_empty() {
            if !has_quiet_move(pos) {
                return -(Score::WIN - ply as i32);
            }
            if self.rule_draw(pos) {
                return 0;
            }
            return self.eval.evaluate(pos);
        }
        let first = self.stack.len();
        self.stack.extend_from_slice(self.list.as_slice());
        let side = pos.side_to_move().index();
        order(
            &mut self.stack[first..],
            None,
            [None; 2],
            &self.history[side],
        );
        let mut best = -INF;
        for i in first..self.stack.len() {
            let mv = &self.stack[i].clone();
            let child = pos.play(mv);
            self.push(pos, &child, mv);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1);
            self.pop();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.set_pv(ply, *mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.stack.truncate(first);
        best
    }
}

/// The moves of `line`, played from `pos`, as PDN move text (stops at the first move that is
/// not legal where it stands).
pub fn line_text<R: Rules>(pos: &Position<R>, line: &[Move]) -> Vec<String> {
    let mut pos = *pos;
    let mut out = Vec::with_capacity(line.len());
    for mv in line {
        let legal = crate::rules::legal_moves(&pos);
        let Some(i) = legal.iter().position(|lm| lm.mv == *mv) else {
            break;
        };
        out.push(crate::notation::move_text(R::VARIANT, &legal, i));
        pos = pos.play(mv);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_print_and_classify() {
        assert_eq!(Score(125).to_string(), "+1.25");
        assert_eq!(Score(-40).to_string(), "-0.40");
        assert_eq!(Score(0).to_string(), "+0.00");
        assert_eq!(Score(Score::WIN - 7).to_string(), "win in 7");
        assert_eq!(Score(-(Score::WIN - 4)).to_string(), "loss in 4");
        assert_eq!(Score(Score::WIN - 7).plies_to_end(), Some(7));
        assert!(!Score(900).is_decisive());
        assert!(Score(-(Score::WIN - 300)).is_decisive());
        assert!(Score(Score::WIN - 3) > Score(Score::WIN - 5));
    }

    #[test]
    fn win_scores_survive_the_table_round_trip() {
        for (score, ply) in [(Score::WIN - 9, 4), (-(Score::WIN - 9), 4), (35, 7)] {
            assert_eq!(from_tt(to_tt(score, ply), ply), score);
        }
        // Stored at ply 4 (win in 5 from there), read at ply 2: win in 7 from the root.
        assert_eq!(from_tt(to_tt(Score::WIN - 9, 4), 2), Score::WIN - 7);
    }

    #[test]
    fn clock_budget_stays_inside_the_clock() {
        let start = Instant::now();
        let limits = Limits {
            clock: Some(Clock {
                time_left: Duration::from_secs(60),
                increment: Duration::from_secs(1),
                moves_left: None,
            }),
            ..Limits::default()
        };
        let (soft, hard) = deadlines(&limits, start);
        let (soft, hard) = (soft.unwrap() - start, hard.unwrap() - start);
        assert!(
            soft <= hard && hard <= Duration::from_secs(30),
            "{soft:?} {hard:?}"
        );
        assert!(soft >= Duration::from_secs(1), "{soft:?}");
        let limits = Limits {
            move_time: Some(Duration::from_secs(2)),
            ..limits
        };
        let (_, hard) = deadlines(&limits, start);
        assert!(hard.unwrap() - start <= Duration::from_secs(2));
        assert_eq!(deadlines(&Limits::default(), start), (None, None));
        // Limits past what an `Instant` holds give no deadline, never a panic.
        let endless = Limits {
            move_time: Some(Duration::MAX),
            ..Limits::default()
        };
        assert_eq!(deadlines(&endless, start), (None, None));
        let clock = Limits {
            clock: Some(Clock {
                time_left: Duration::MAX,
                increment: Duration::MAX,
                moves_left: Some(u32::MAX),
            }),
            ..endless
        };
        let (soft, hard) = deadlines(&clock, start);
        assert!(soft.is_some_and(|s| s > start) && hard.is_none_or(|h| Some(h) >= soft));
    }
}
