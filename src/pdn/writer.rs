//! The strict writer: PDN 3.0 text of a game, lines of at most 79 characters.
//!
//! The writer prints the tree as it is; [`Replayer::normalize`](super::Replayer::normalize)
//! first puts a game in strict form (tag order, GameType, FEN, move notation, result).

use super::cursor::{Cursor, Step};
use super::game::{Game, Line, MoveNumber, fen_side};
use super::gametype::{Ruleset, parse_game_type};
use crate::rules::{Color, Rules};
use crate::with_rules;

/// The longest line the writer makes (a single longer word, such as a long comment word or
/// tag value, stands alone on its line).
pub const LINE_WIDTH: usize = 79;

/// The PDN text of a game: its tags one per line, a blank line, then the move text and
/// terminator wrapped at [`LINE_WIDTH`], ending with a line end. Separate games with a blank
/// line.
///
/// Move numbers follow from the order of the moves, starting at [`Game::start`]: the first
/// player's moves are numbered `12.`, the second player's `12...` where a line starts or a
/// comment or variation comes before them. After a setup command the numbering goes on as
/// [`MoveNumber::after_setup`] says (the side to move at the start is the FEN tag's, else the
/// GameType's first player).
///
/// ```
/// use damka::pdn::{Reader, Replayer, write_game};
/// let text = "[GameType \"20\"] 32-28 19-23 {centre} 28x19 14x23 1-0";
/// let mut read = Reader::new("x.pdn", text.as_bytes()).next().unwrap().unwrap();
/// Replayer::new(None).normalize(&mut read);
/// let out = write_game(&read.game);
/// assert!(out.starts_with("[Event \"?\"]\n"));
/// assert!(out.ends_with("1. 32-28 19-23 {centre} 2. 28x19 14x23 1-0\n"));
/// ```
pub fn write_game(game: &Game) -> String {
    let mut out = String::new();
    for tag in &game.tags {
        out.push('[');
        out.push_str(&tag.name);
        out.push_str(" \"");
        escape(&tag.value, &mut out);
        out.push_str("\"]\n");
    }
    if !game.tags.is_empty() {
        out.push('\n');
    }
    let mut units = Vec::new();
    line_units(&game.moves, game.start, start_side(game), &mut units);
    units.push(game.result.clone().unwrap_or_else(|| "*".to_string()));
    let mut column = 0;
    for unit in units {
        let width = unit.chars().count();
        if column > 0 && column + 1 + width > LINE_WIDTH {
            out.push('\n');
            column = 0;
        } else if column > 0 {
            out.push(' ');
            column += 1;
        }
        out.push_str(&unit);
        column += width;
    }
    out.push('\n');
    out
}

/// The side to move at the start of a game: the FEN tag's, else the first player of the
/// GameType's rules; `None` when neither says.
fn start_side(game: &Game) -> Option<Color> {
    match game.tag("FEN").filter(|f| !f.trim().is_empty()) {
        Some(fen) => fen_side(fen),
        None => match parse_game_type(game.tag("GameType")?)?.ruleset {
            Ruleset::Supported(v) => Some(with_rules!(v, R => R::FIRST)),
            Ruleset::Unsupported(_) => None,
        },
    }
}

/// Writes a tag value: `"` as `\"`, and `\` as `\\` where it would otherwise read as an
/// escape (before `"` or `\`, or at the end).
fn escape(value: &str, out: &mut String) {
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' if matches!(chars.peek(), None | Some('"' | '\\')) => out.push_str("\\\\"),
            _ => out.push(c),
        }
    }
}

/// The words of a comment for wrapping; an embedded command (`[%clock w0:49:11 B0:50:02]`)
/// stays whole on one line when it fits on one.
fn comment_words(comment: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut in_command = false;
    for w in comment.split_whitespace() {
        match words.last_mut() {
            Some(last) if in_command => {
                last.push(' ');
                last.push_str(w);
            }
            _ => words.push(w.to_string()),
        }
        in_command = words
            .last()
            .and_then(|last| last.rfind("[%").map(|i| !last[i..].contains(']')))
            .unwrap_or(false);
    }
    words
        .into_iter()
        .flat_map(|w| {
            if w.chars().count() < LINE_WIDTH - 1 {
                vec![w]
            } else {
                w.split(' ').map(str::to_string).collect()
            }
        })
        .collect()
}

/// The words of a line and its variations, each kept whole on an output line: a numbered
/// move (`12. 32-28!`) counts as one. The first move is numbered `first` and played by `side`,
/// if known.
fn line_units(line: &Line, first: MoveNumber, side: Option<Color>, units: &mut Vec<String>) {
    // Whether the next move is numbered even if it is the second of its pair: at the start of
    // a line, after a comment, a variation or a setup command.
    let mut numbered = true;
    // Where each variation being written starts in `units`.
    let mut opened = Vec::new();
    let push_move = |units: &mut Vec<String>, text: &str, numbered: bool, n: MoveNumber| {
        if !n.second || numbered {
            units.push(format!("{n} {text}"));
        } else {
            units.push(text.to_string());
        }
    };
    for step in Cursor::new(line, first, side) {
        match step {
            Step::Move { at, node: m, .. } => {
                let mut text = m.text.clone();
                if let Some(s) = &m.strength {
                    text.push_str(s);
                }
                push_move(units, &text, numbered, at.number);
                units.extend(m.nags.iter().map(|n| format!("${n}")));
                numbered = false;
            }
            Step::UnknownMove { at } => {
                push_move(units, "- -", numbered, at.number);
                numbered = false;
            }
            Step::Comment(c) => {
                let mut words = comment_words(c);
                if words.is_empty() {
                    units.push("{}".to_string());
                } else {
                    words[0].insert(0, '{');
                    if let Some(w) = words.last_mut() {
                        w.push('}');
                    }
                    units.extend(words);
                }
                numbered = true;
            }
            Step::Enter { .. } => {
                opened.push(units.len());
                numbered = true;
            }
            Step::Leave => {
                let start = opened.pop().unwrap_or(units.len());
                if let Some(w) = units.get_mut(start) {
                    w.insert(0, '(');
                }
                if let Some(w) = units[start..].last_mut() {
                    w.push(')');
                }
                numbered = true;
            }
            Step::Setup(s) => {
                units.push(format!("/{s}/"));
                numbered = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdn::game::{MoveNode, Node, Tag};

    #[test]
    fn wraps_and_numbers() {
        let mut game = Game::default();
        game.tags.push(Tag {
            name: "White".into(),
            value: "say \"hi\"".into(),
        });
        for i in 0..40 {
            game.moves.nodes.push(Node::Move(MoveNode::new(format!(
                "{}-{}",
                10 + i % 5,
                20 + i % 7
            ))));
        }
        game.moves.nodes.insert(
            3,
            Node::Variation(Line {
                nodes: vec![Node::Move(MoveNode::new("1-2"))],
            }),
        );
        let text = write_game(&game);
        assert!(text.starts_with("[White \"say \\\"hi\\\"\"]\n\n1. 10-20"));
        assert!(text.lines().all(|l| l.chars().count() <= LINE_WIDTH));
        assert!(text.contains("1. 10-20 11-21 2. 12-22 (2. 1-2) 2... 13-23 3. 14-24"));
        assert!(text.ends_with(" *\n"));
    }

    /// A setup giving the move to the side whose turn it was keeps the number; one giving it
    /// to the other side stands in for a move (the PDN 3.0 examples).
    #[test]
    fn numbers_after_setup_commands() {
        let text = "[GameType \"20\"] 31-26 17-21 /FEN \"B:B1-16,18-21:W26,28,33-50\"/ \
                    21-27 *\n[GameType \"20\"] /FEN \"W:W31-50:B1-20\"/ \
                    /FEN \"B:W28,31,33-50:B1-18,20\"/ 14-19 28x19 *\n\
                    [GameType \"21\"] [FEN \"B:W31:B2\"] 2-7 /FEN \"W:W31:B7\"/ 31-27 \
                    7-10 /FEN \"B:W27:B10\"/ 10-15 *\n";
        let games: Vec<String> = crate::pdn::Reader::new("t", text.as_bytes())
            .map(|g| write_game(&g.expect("readable").game))
            .collect();
        assert!(games[0].contains("1. 31-26 17-21 /FEN"), "{}", games[0]);
        assert!(games[0].contains("/ 2... 21-27 *"), "{}", games[0]);
        assert!(games[1].contains("/ 1... 14-19 2. 28x19 *"), "{}", games[1]);
        // English, Black first: a setup giving White the move where it was White's turn
        // keeps the number; one giving Black the move where it was White's goes a move
        // further.
        assert!(
            games[2].contains("1. 2-7 /FEN \"W:W31:B7\"/ 1... 31-27 2. 7-10 /FEN"),
            "{}",
            games[2]
        );
        assert!(games[2].contains("/ 3. 10-15 *"), "{}", games[2]);
    }

    #[test]
    fn tag_values_read_back() {
        for value in ["a\\", "a\\\"b", "a\\\\b", "say \"hi\"", "C:\\dir"] {
            let mut game = Game::default();
            game.tags.push(Tag {
                name: "Event".into(),
                value: value.into(),
            });
            let text = write_game(&game);
            let read = crate::pdn::Reader::new("t", text.as_bytes())
                .next()
                .and_then(Result::ok)
                .map(|g| g.game);
            assert_eq!(
                read.as_ref().and_then(|g| g.tag("Event")),
                Some(value),
                "{text}"
            );
        }
    }

    #[test]
    fn embedded_commands_stay_whole() {
        assert_eq!(
            comment_words("a [%clock w0:49:11 B0:50:02] b [%eval 1]c"),
            vec!["a", "[%clock w0:49:11 B0:50:02]", "b", "[%eval 1]c"]
        );
        let long: String = (1..=15).map(|i| format!("[%c {i}]")).collect();
        assert_eq!(comment_words(&long).len(), 16);
    }
}
