//! One game of a match: the engines move in turn until the rules end the game, the tables
//! adjudicate it, or an engine fails; then its PDN.

use std::time::{Duration, Instant};

use damka::Color;
use damka::notation::{move_text, write_fen};
use damka::pdn::{Game, Line, MoveNode, Node, Tag, write_game};
use damka::rules::{BoardKind, DrawReason, Move, Position, RuleSet, Rules, legal_moves};
use damka::tablebase::Wdl;

use super::player::{Fault, MoveLimits, Player};
use crate::dxp::message::EndReason;
use crate::referee::{Referee, rank};

/// How the games are played and judged.
pub struct Conduct<'a> {
    /// The draw rules.
    pub rules: &'static RuleSet,
    /// The tables that adjudicate, if any.
    pub referee: Option<&'a Referee>,
    /// Play on in positions the tables hold (counting the results thrown away) instead of
    /// ending the game with their result.
    pub play_on: bool,
    /// Limits of each move.
    pub limits: MoveLimits,
    /// Seconds on each clock for the game, and the increment, if the game has a clock.
    pub clock: Option<(Duration, Duration)>,
    /// A game this many plies long is adjudicated a draw.
    pub max_plies: usize,
}

/// A finished game.
pub struct Record {
    /// White's points, from 0 to 1.
    pub white_points: f64,
    /// How it ended, in words (the PDN's Termination).
    pub reason: String,
    /// The moves played.
    pub moves: Vec<Move>,
    /// Moves by White and by Black that left a table position with a worse result for the
    /// mover than it had.
    pub thrown: [usize; 2],
    /// Whether a position the tables judge was reached.
    pub reached_tables: bool,
    /// The side whose engine failed (crashed, hung, moved illegally, ran out of time).
    pub faulted: Option<Color>,
}

/// The index of a colour in `[white, black]`.
fn side(c: Color) -> usize {
    usize::from(c == Color::Black)
}

fn points_of(winner: Option<Color>) -> f64 {
    match winner {
        Some(Color::White) => 1.0,
        Some(Color::Black) => 0.0,
        None => 0.5,
    }
}

/// Plays `start` with `players` (`[white, black]`).
pub fn play<R: Rules>(start: Position<R>, players: [&mut Player; 2], conduct: &Conduct) -> Record {
    let [white, black] = players;
    let mut players = [white, black];
    let mut game = vec![start];
    let mut moves: Vec<Move> = Vec::new();
    let mut thrown = [0usize; 2];
    let mut reached_tables = false;
    let mut clocks = [conduct.clock.map(|(t, _)| t); 2];
    let verdict = |game: &[Position<R>]| conduct.referee.and_then(|r| r.verdict(game));
    for (i, p) in players.iter_mut().enumerate() {
        let colour = [Color::White, Color::Black][i];
        if let Err(fault) = p.new_game(&start, colour) {
            let winner = Some(colour.opponent());
            let reason = format!("{colour} could not start the game: {fault}");
            let end = (points_of(winner), reason, Some(colour));
            return finish(&mut players, end, moves, thrown, reached_tables);
        }
    }
    let end = loop {
        let pos = *game.last().expect("a position");
        let mover = pos.side_to_move();
        if legal_moves(&pos).is_empty() {
            break (
                points_of(Some(mover.opponent())),
                format!("{mover} has no move"),
                None,
            );
        }
        if let Some(why) = conduct.rules.game_draw(&game) {
            let what = match why {
                DrawReason::Repetition => "threefold repetition",
                DrawReason::MoveCount => "a move count of the draw rules",
            };
            break (0.5, format!("a draw by {what}"), None);
        }
        if moves.len() >= conduct.max_plies {
            break (
                0.5,
                format!("adjudicated a draw after {} plies", moves.len()),
                None,
            );
        }
        let before = verdict(&game);
        if let Some(wdl) = before {
            reached_tables = true;
            if !conduct.play_on {
                let winner = match wdl {
                    Wdl::Win => Some(mover),
                    Wdl::Loss => Some(mover.opponent()),
                    Wdl::Draw => None,
                };
                break (
                    points_of(winner),
                    format!("adjudicated by the tables: {} for {mover}", wdl.name()),
                    None,
                );
            }
        }
        let mut limits = conduct.limits.clone();
        if let (Some(left), Some((_, inc))) = (clocks[side(mover)], conduct.clock) {
            limits.clock = Some((left, inc));
        }
        let t = Instant::now();
        let answer = players[side(mover)].go(&game, &moves, &limits);
        let spent = t.elapsed();
        if let (Some(left), Some((_, inc))) = (&mut clocks[side(mover)], conduct.clock) {
            match left.checked_sub(spent) {
                Some(rest) => *left = rest + inc,
                None => {
                    let reason = format!("{mover} {}", Fault::Time);
                    break (points_of(Some(mover.opponent())), reason, Some(mover));
                }
            }
        }
        match answer {
            Ok(mv) => {
                let next = pos.play(&mv);
                game.push(next);
                moves.push(mv);
                if let Some(b) = before {
                    let after = verdict(&game).map(Wdl::negated);
                    if after.is_some_and(|a| rank(a) < rank(b)) {
                        thrown[side(mover)] += 1;
                    }
                }
            }
            Err(fault) => {
                let reason = format!("{mover} {fault}");
                break (points_of(Some(mover.opponent())), reason, Some(mover));
            }
        }
    };
    finish(&mut players, end, moves, thrown, reached_tables)
}

/// Tells the engines the game is over and makes its record.
fn finish(
    players: &mut [&mut Player; 2],
    (white_points, reason, faulted): (f64, String, Option<Color>),
    moves: Vec<Move>,
    thrown: [usize; 2],
    reached_tables: bool,
) -> Record {
    for (i, p) in players.iter_mut().enumerate() {
        let points = if i == 0 {
            white_points
        } else {
            1.0 - white_points
        };
        let result = match points {
            1.0 => EndReason::IWin,
            0.0 => EndReason::ILose,
            _ => EndReason::Draw,
        };
        p.game_over(result);
    }
    Record {
        white_points,
        reason,
        moves,
        thrown,
        reached_tables,
        faulted,
    }
}

/// The PDN result text of White's points: `2-0`, `1-1`, `0-2` on 10x10 boards, `1-0`,
/// `1/2-1/2`, `0-1` on the others.
pub fn result_text<R: Rules>(white_points: f64) -> &'static str {
    let ten = R::VARIANT.facts().board == BoardKind::Diagonal10;
    match (white_points, ten) {
        (1.0, true) => "2-0",
        (0.0, true) => "0-2",
        (_, true) => "1-1",
        (1.0, false) => "1-0",
        (0.0, false) => "0-1",
        (_, false) => "1/2-1/2",
    }
}

/// The game as PDN: tags (event, round, players, result, GameType, FEN, Termination), the
/// moves, and the reason as a closing comment.
pub fn pdn<R: Rules>(
    start: &Position<R>,
    record: &Record,
    round: usize,
    names: [&str; 2],
) -> String {
    let result = result_text::<R>(record.white_points);
    let facts = R::VARIANT.facts();
    let tags = [
        ("Event", "damka match".to_string()),
        ("Round", round.to_string()),
        ("White", names[0].to_string()),
        ("Black", names[1].to_string()),
        ("Result", result.to_string()),
        ("GameType", facts.game_type_long.to_string()),
        ("FEN", write_fen(start)),
        ("Termination", record.reason.clone()),
    ];
    let mut line = Line::default();
    let mut pos = *start;
    for mv in &record.moves {
        let legal = legal_moves(&pos);
        let index = legal
            .iter()
            .position(|l| l.mv == *mv)
            .expect("a played move is legal");
        line.nodes.push(Node::Move(MoveNode::new(move_text(
            R::VARIANT,
            &legal,
            index,
        ))));
        pos = pos.play(mv);
    }
    line.nodes.push(Node::Comment(record.reason.clone()));
    let game = Game {
        tags: tags
            .into_iter()
            .map(|(name, value)| Tag {
                name: name.to_string(),
                value,
            })
            .collect(),
        moves: line,
        result: Some(result.to_string()),
        ..Game::default()
    };
    write_game(&game)
}
