//! The strict form of a game, which the writer prints: standard tags in order, GameType in
//! long form, FEN only for a position other than the start, moves in the variant's notation
//! with minimal disambiguation, a result that agrees with its tag.

use super::cursor::{Context, Rewrite, rewrite};
use super::game::{Line, Node, Tag, is_standard_result};
use super::gametype::{Ruleset, long_form, parse_game_type};
use super::reader::ReadGame;
use super::replay::{Replay, Replayer};

/// The seven-tag roster, in the order PDN writes it.
pub const SEVEN_TAG_ROSTER: [&str; 7] =
    ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

impl Replayer {
    /// Replays a game and rewrites it in strict form (see [`write_game`](super::write_game)):
    /// the seven-tag roster first (`?` for a missing tag), then GameType in long form, SetUp
    /// and FEN when the game starts elsewhere than the initial position, then the other tags
    /// in their order; each replayed move in the variant's notation; a terminator that is the
    /// Result tag when that is a PDN result, else `*`. Moves that could not be replayed keep
    /// their text, without leading zeros. Returns the replay's report.
    pub fn normalize(&mut self, read: &mut ReadGame) -> Replay {
        let (replay, canonical) = self.run(&read.game, &read.origin, true);
        let game = &mut read.game;
        let mut texts = Texts(canonical.moves);
        rewrite(&mut game.moves, game.start, None, &mut texts);

        let result = game.result_text().unwrap_or("*").to_string();
        let mut tags = Vec::with_capacity(game.tags.len() + 3);
        for name in SEVEN_TAG_ROSTER {
            let value = match name {
                "Result" => result.clone(),
                _ => game.tag(name).unwrap_or("?").to_string(),
            };
            tags.push(Tag {
                name: name.to_string(),
                value,
            });
        }
        let game_type = match replay.ruleset {
            Ruleset::Supported(v) => long_form(v).to_string(),
            // Another game's own GameType value is kept if it names the rules used.
            Ruleset::Unsupported(n) => game
                .tag("GameType")
                .filter(|v| parse_game_type(v).map(|g| g.ruleset) == Some(replay.ruleset))
                .map_or_else(|| n.to_string(), str::to_string),
        };
        tags.push(Tag {
            name: "GameType".to_string(),
            value: game_type,
        });
        let fen = match canonical.start {
            Some((fen, initial)) => (!initial).then_some(fen),
            None => game
                .tag("FEN")
                .filter(|f| !f.trim().is_empty())
                .map(str::to_string),
        };
        if let Some(fen) = fen {
            for (name, value) in [("SetUp", "1".to_string()), ("FEN", fen)] {
                tags.push(Tag {
                    name: name.to_string(),
                    value,
                });
            }
        }
        let placed = |name: &str| {
            SEVEN_TAG_ROSTER.contains(&name) || matches!(name, "GameType" | "SetUp" | "FEN")
        };
        tags.extend(game.tags.drain(..).filter(|t| !placed(&t.name)));
        game.tags = tags;
        game.result = Some(if is_standard_result(&result) {
            result
        } else {
            "*".to_string()
        });
        replay
    }
}

/// The replayed texts of a game's moves, by move id, to put in place: a move not replayed
/// is tidied instead; empty variations are dropped.
struct Texts(Vec<Option<String>>);

impl Rewrite for Texts {
    fn node(&mut self, node: Node, at: &Context<'_>, out: &mut Vec<Node>) {
        out.push(match node {
            Node::Move(mut m) => {
                let text = at
                    .at
                    .and_then(|at| self.0.get_mut(at.id))
                    .and_then(Option::take);
                m.text = text.unwrap_or_else(|| tidy(&m.text));
                Node::Move(m)
            }
            other => other,
        });
    }

    fn keep_variation(&mut self, variation: &Line, _: &Context<'_>) -> bool {
        !variation.nodes.is_empty()
    }
}

/// A move text with the leading zeros of its squares removed: `06-11` gives `6-11` (but
/// `01-0` stays, as `1-0` would read as a result).
fn tidy(text: &str) -> String {
    let tidied = strip_zeros(text);
    if is_standard_result(&tidied) {
        text.to_string()
    } else {
        tidied
    }
}

fn strip_zeros(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut start_of_square = true;
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next_is_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if start_of_square && c == '0' && next_is_digit {
            continue;
        }
        start_of_square = !c.is_ascii_alphanumeric();
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_removes_leading_zeros() {
        assert_eq!(tidy("06-11"), "6-11");
        assert_eq!(tidy("001x10x20"), "1x10x20");
        assert_eq!(tidy("a03-b4"), "a03-b4");
        assert_eq!(tidy("01-0"), "01-0");
    }
}
