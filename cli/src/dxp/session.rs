//! damka's engine on a DXP connection: one game ([`play_game`]), the follower's side of a
//! connection ([`follow`]) and the initiator's ([`initiate`]).
//!
//! A game ends on damka's turn when the side to move has no move (a loss), when the draw
//! rules draw it (threefold repetition, the move counts of `docs/RULES.md`), or, with a
//! referee, when the tables hold the position: damka sends GAMEEND with that result and
//! waits for its acknowledgement. A GAMEEND from the peer is acknowledged with the same
//! result seen from damka's side. An illegal move from the peer ends the game (GAMEEND,
//! a win for damka, after a CHAT saying why); a message that cannot be read during a game
//! ends it too (GAMEEND, reason unknown), since both sides would otherwise wait for ever.
//! A peer silent for longer than the allowed time, or gone, ends the connection.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use damka::Color;
use damka::rules::{International, Move, MoveList, Position, RuleSet, generate};
use damka::search::{Clock, Engine, Limits};
use damka::tablebase::Wdl;

use super::board::{find_move, move_message, setup_position, setup_text};
use super::connection::{Connection, DxpError};
use super::message::{Acceptance, BackAnswer, EndReason, Message, MessageError, VERSION};
use crate::referee::Referee;

/// How damka plays its DXP games.
pub struct Player {
    /// The name sent in GAMEREQ and GAMEACC.
    pub name: String,
    /// The engine.
    pub engine: Engine,
    /// Limits of each move, besides the clock a game request sets.
    pub limits: Limits,
    /// The draw rules the games are played by.
    pub rules: &'static RuleSet,
    /// Ends a game with the tables' result as soon as they hold its position.
    pub referee: Option<Referee>,
    /// How long the peer may be silent before the connection is dropped.
    pub silence: Duration,
}

/// How a game ended, for damka.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// The result for damka.
    pub result: EndReason,
    /// Why, in words.
    pub why: String,
    /// Whether the side that ended the game asked to close the connection.
    pub stop: bool,
    /// The moves played.
    pub moves: Vec<Move>,
}

/// The clock of a game request: minutes for `moves` moves (0: the whole game), `None`
/// without a clock.
#[derive(Copy, Clone, Debug)]
pub struct GameClock {
    /// Minutes on each clock.
    pub minutes: u16,
    /// Moves in those minutes (0: the whole game).
    pub moves: u16,
}

/// The move number and side to move of ply `ply` of a game starting with `first` to move.
fn ply_of(first: Color, move_number: u16, to_move: Color) -> Option<usize> {
    let plies = 2 * usize::from(move_number).checked_sub(1)? + usize::from(to_move == Color::Black);
    plies.checked_sub(usize::from(first == Color::Black))
}

/// Why the game is over at its last position, on damka's turn, and the result for damka.
fn own_end(player: &Player, game: &[Position<International>]) -> Option<(EndReason, String)> {
    let pos = game.last()?;
    let mut list = MoveList::new();
    generate(pos, &mut list);
    if list.as_slice().is_empty() {
        return Some((EndReason::ILose, "no move left".into()));
    }
    if let Some(reason) = player.rules.game_draw(game) {
        return Some((EndReason::Draw, format!("a draw by the rules ({reason:?})")));
    }
    let wdl = player.referee.as_ref()?.verdict(game)?;
    let reason = match wdl {
        Wdl::Win => EndReason::IWin,
        Wdl::Draw => EndReason::Draw,
        Wdl::Loss => EndReason::ILose,
    };
    Some((reason, format!("the tables' result ({})", wdl.name())))
}

/// Waits for the acknowledgement of a GAMEEND damka sent (a few seconds at most; other
/// messages are passed over).
fn await_ack(conn: &mut Connection, silence: Duration) -> Result<bool, DxpError> {
    let deadline = Instant::now() + silence.min(Duration::from_secs(10));
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match conn.receive(left) {
            Ok(Message::GameEnd { stop, .. }) => return Ok(stop),
            Ok(_) | Err(DxpError::Message(..)) => {}
            Err(DxpError::Silent(_)) | Err(DxpError::Closed) => return Ok(true),
            Err(e) => return Err(e),
        }
    }
}

/// Ends the game from damka's side: GAMEEND with `reason`, then its acknowledgement.
fn end_game(
    conn: &mut Connection,
    player: &Player,
    reason: EndReason,
    stop: bool,
    why: String,
    moves: Vec<Move>,
) -> Result<GameEnd, DxpError> {
    conn.send(&Message::GameEnd { reason, stop })?;
    let peer_stop = await_ack(conn, player.silence)?;
    Ok(GameEnd {
        result: reason,
        why,
        stop: stop || peer_stop,
        moves,
    })
}

/// Plays one game from `start`, damka with `mine`, until it ends; `last` is sent as the stop
/// code of a GAMEEND damka sends or acknowledges. An error is a connection that failed.
pub fn play_game(
    conn: &mut Connection,
    player: &mut Player,
    start: Position<International>,
    mine: Color,
    clock: Option<GameClock>,
    last: bool,
) -> Result<GameEnd, DxpError> {
    let mut game = vec![start];
    let mut moves: Vec<Move> = Vec::new();
    let mut used = Duration::ZERO;
    let mut played = 0u32;
    player.engine.new_game();
    player.engine.set_rules(player.rules);
    let stop_flag = AtomicBool::new(false);
    // The peer's clock is its own; it may think for its whole game time.
    let peer_wait = match clock {
        Some(c) if c.minutes > 0 => player.silence + Duration::from_secs(u64::from(c.minutes) * 60),
        _ => player.silence,
    };
    loop {
        let pos = *game.last().expect("a position");
        if pos.side_to_move() == mine {
            if let Some((reason, why)) = own_end(player, &game) {
                return end_game(conn, player, reason, last, why, moves);
            }
            let mut limits = player.limits.clone();
            if let Some(c) = clock.filter(|c| c.minutes > 0) {
                let total = Duration::from_secs(u64::from(c.minutes) * 60);
                let moves_left = match c.moves {
                    0 => None,
                    n => Some(u32::from(n).saturating_sub(played).max(1)),
                };
                limits.clock = Some(Clock {
                    time_left: total.saturating_sub(used),
                    increment: Duration::ZERO,
                    moves_left,
                });
            }
            let t = Instant::now();
            let result = player
                .engine
                .search(&game, &limits, &stop_flag, &mut |_| {});
            let spent = t.elapsed();
            used += spent;
            played += 1;
            let mv = result
                .best_move
                .expect("a position with moves has a best move");
            let seconds = spent.as_secs().min(9_999) as u16;
            conn.send(&move_message(&mv, seconds))?;
            moves.push(mv);
            game.push(pos.play(&mv));
            continue;
        }
        match conn.receive(peer_wait) {
            Ok(Message::Move {
                from, to, captured, ..
            }) => match find_move(&pos, from, to, &captured) {
                Ok(mv) => {
                    moves.push(mv);
                    game.push(pos.play(&mv));
                }
                Err(why) => {
                    let why = format!("the peer's {why} (move {})", moves.len() / 2 + 1);
                    let _ = conn.send(&Message::Chat(format!("damka: {why}")));
                    return end_game(conn, player, EndReason::IWin, true, why, moves);
                }
            },
            Ok(Message::GameEnd { reason, stop }) => {
                let ours = reason.mirrored();
                conn.send(&Message::GameEnd {
                    reason: ours,
                    stop: last || stop,
                })?;
                let said = match reason {
                    EndReason::ILose => "it loses",
                    EndReason::Draw => "a draw",
                    EndReason::IWin => "it wins",
                    EndReason::Unknown => "no reason given",
                };
                return Ok(GameEnd {
                    result: ours,
                    why: format!("the peer ended the game: {said}"),
                    stop,
                    moves,
                });
            }
            Ok(Message::Chat(text)) => eprintln!("dxp: {} says: {text}", conn.peer()),
            Ok(Message::BackReq {
                move_number,
                to_move,
            }) => {
                let answer = match ply_of(start.side_to_move(), move_number, to_move) {
                    Some(ply) if ply < game.len() && game[ply].side_to_move() == to_move => {
                        game.truncate(ply + 1);
                        moves.truncate(ply);
                        BackAnswer::Accept
                    }
                    _ => BackAnswer::Decline,
                };
                conn.send(&Message::BackAcc(answer))?;
            }
            Ok(Message::GameReq { .. }) => conn.send(&Message::GameAcc {
                name: player.name.clone(),
                code: Acceptance::RefuseGame,
            })?,
            Ok(other) => eprintln!(
                "dxp: {} sent {other:?} out of order during a game; passed over",
                conn.peer()
            ),
            Err(DxpError::Message(MessageError::UnknownType(c), _)) => {
                eprintln!("dxp: unknown message type {c:?} passed over");
            }
            Err(DxpError::Message(e, text)) => {
                let why = format!("the peer's message {text:?} cannot be read: {e}");
                let _ = conn.send(&Message::Chat(format!("damka: {why}")));
                return end_game(conn, player, EndReason::Unknown, true, why, moves);
            }
            Err(e) => return Err(e),
        }
    }
}

/// Serves one connection as the follower: accepts game requests (International, the
/// start position or a legal set-up) and plays them, until the peer stops or goes.
pub fn follow(mut conn: Connection, player: &mut Player) -> Result<(), DxpError> {
    let peer = conn.peer();
    loop {
        let request = match conn.receive(player.silence) {
            Ok(m) => m,
            Err(DxpError::Closed) => return Ok(()),
            Err(DxpError::Message(e, text)) => {
                eprintln!("dxp: {peer}: {e} (in {text:?}); passed over");
                let _ = conn.send(&Message::Chat(format!("damka: {e}")));
                continue;
            }
            Err(e) => return Err(e),
        };
        let (version, name, follower, minutes, moves, setup) = match request {
            Message::GameReq {
                version,
                name,
                follower,
                minutes,
                moves,
                setup,
            } => (version, name, follower, minutes, moves, setup),
            Message::Chat(text) => {
                eprintln!("dxp: {peer} says: {text}");
                continue;
            }
            Message::GameEnd { reason, stop } => {
                conn.send(&Message::GameEnd {
                    reason: reason.mirrored(),
                    stop,
                })?;
                if stop {
                    conn.close();
                    return Ok(());
                }
                continue;
            }
            Message::BackReq { .. } => {
                conn.send(&Message::BackAcc(BackAnswer::Decline))?;
                continue;
            }
            other => {
                eprintln!("dxp: {peer} sent {other:?} with no game going on; passed over");
                continue;
            }
        };
        if version != VERSION {
            conn.send(&Message::GameAcc {
                name: player.name.clone(),
                code: Acceptance::WrongVersion,
            })?;
            continue;
        }
        let start = match &setup {
            None => Ok(Position::<International>::initial()),
            Some((to_move, squares)) => setup_position(*to_move, squares),
        };
        let start = match start {
            Ok(pos) => pos,
            Err(why) => {
                conn.send(&Message::Chat(format!("damka: {why}")))?;
                conn.send(&Message::GameAcc {
                    name: player.name.clone(),
                    code: Acceptance::RefuseGame,
                })?;
                continue;
            }
        };
        conn.send(&Message::GameAcc {
            name: player.name.clone(),
            code: Acceptance::Accept,
        })?;
        eprintln!(
            "dxp: {peer}: game against {name:?}, damka {follower}, from {}",
            damka::notation::write_fen(&start)
        );
        let clock = GameClock { minutes, moves };
        let end = play_game(&mut conn, player, start, follower, Some(clock), false)?;
        eprintln!(
            "dxp: {peer}: game over after {} plies: {} for damka ({})",
            end.moves.len(),
            result_word(end.result),
            end.why
        );
        if end.stop {
            conn.close();
            return Ok(());
        }
    }
}

/// What a game request asks for, from the initiator's side.
pub struct Request {
    /// Where the games start.
    pub start: Position<International>,
    /// damka's colour in the first game (the colours alternate after it).
    pub colour: Color,
    /// The clock.
    pub clock: GameClock,
    /// How many games.
    pub games: u32,
}

/// Requests and plays `request.games` games over `conn` as the initiator; the results for
/// damka, one per game.
pub fn initiate(
    conn: &mut Connection,
    player: &mut Player,
    request: &Request,
) -> Result<Vec<GameEnd>, String> {
    let mut ends = Vec::new();
    for i in 0..request.games {
        let mine = match i % 2 {
            0 => request.colour,
            _ => request.colour.opponent(),
        };
        let setup = (request.start != Position::initial())
            .then(|| (request.start.side_to_move(), setup_text(&request.start)));
        conn.send(&Message::GameReq {
            version: VERSION,
            name: player.name.clone(),
            follower: mine.opponent(),
            minutes: request.clock.minutes,
            moves: request.clock.moves,
            setup,
        })
        .map_err(|e| e.to_string())?;
        loop {
            match conn.receive(player.silence) {
                Ok(Message::GameAcc {
                    code: Acceptance::Accept,
                    ..
                }) => break,
                Ok(Message::GameAcc { name, code }) => {
                    return Err(format!("{name:?} refused the game: {code:?}"));
                }
                Ok(Message::Chat(text)) => eprintln!("dxp: {} says: {text}", conn.peer()),
                Ok(other) => {
                    return Err(format!("{other:?} where a GAMEACC was awaited"));
                }
                Err(e) => return Err(format!("no answer to the game request: {e}")),
            }
        }
        let last = i + 1 == request.games;
        let end = play_game(conn, player, request.start, mine, Some(request.clock), last)
            .map_err(|e| format!("game {}: {e}", i + 1))?;
        let stop = end.stop;
        ends.push(end);
        if stop && !last {
            return Err(format!("the peer stopped after game {}", i + 1));
        }
    }
    conn.close();
    Ok(ends)
}

/// `win`, `draw`, `loss` or `unknown`.
pub fn result_word(r: EndReason) -> &'static str {
    match r {
        EndReason::IWin => "win",
        EndReason::Draw => "draw",
        EndReason::ILose => "loss",
        EndReason::Unknown => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_numbers_name_plies() {
        assert_eq!(ply_of(Color::White, 1, Color::White), Some(0));
        assert_eq!(ply_of(Color::White, 3, Color::Black), Some(5));
        assert_eq!(ply_of(Color::Black, 1, Color::Black), Some(0));
        assert_eq!(ply_of(Color::Black, 2, Color::White), Some(1));
        assert_eq!(ply_of(Color::Black, 1, Color::White), None);
        assert_eq!(ply_of(Color::White, 0, Color::White), None);
    }
}
