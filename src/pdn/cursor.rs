//! One walk over a game's moves: every walker of the tree (replay, writer, normalize, the
//! GameType guess, the analyser) meets the moves in the same order, with the same ids, numbers
//! and sides.
//!
//! **Tree order** is the order of a depth-first walk: the moves of a line in order, and the
//! moves of a variation where the variation stands (after the move it replaces, before the
//! next move of its line), its own variations likewise. A move's **id** is its index in tree
//! order, from 0, and unknown moves `- -` have ids too: they are moves, only not recorded.
//! A move's number and side follow from the moves before it in its line, starting at the
//! line's first number and side; a variation starts at the number and side of the move it
//! replaces; after a setup command they go on as [`MoveNumber::after_setup`] says, with the
//! side the FEN names.
//!
//! [`Cursor`] walks a tree read-only, step by step, and can carry a *place* (a position, or
//! whatever a walker keeps per position) along each line, starting each variation at the
//! place before the move it replaces. [`rewrite`] rebuilds a tree node by node in the same
//! order.

use super::game::{Line, MoveNode, MoveNumber, Node, fen_side, setup_fen};
use crate::rules::Color;

/// Where a move stands in its game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoveAt {
    /// The move's index in tree order (see the [module](self) documentation).
    pub id: usize,
    /// The move's number (`12.` or `12...`).
    pub number: MoveNumber,
    /// The side that plays it, when known.
    pub side: Option<Color>,
    /// 0 for a move of the main line, 1 in a variation of it, 2 in a variation of that...
    pub depth: usize,
}

/// What a [`Cursor`] meets, in tree order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// A move, with the nodes that follow it in its line.
    Move {
        /// Where it stands.
        at: MoveAt,
        /// The move as written.
        node: &'a MoveNode,
        /// The nodes after it in its line.
        rest: &'a [Node],
    },
    /// A move played but not recorded (`- -`).
    UnknownMove {
        /// Where it stands.
        at: MoveAt,
    },
    /// A comment.
    Comment(&'a str),
    /// A setup command `/FEN "..."/`, as written between the slashes.
    Setup(&'a str),
    /// A variation begins; its steps follow, then [`Step::Leave`].
    Enter {
        /// The variation.
        variation: &'a Line,
        /// The move it replaces (the last move of its line before it), `None` when the
        /// variation stands before the first move of its line.
        replaces: Option<MoveAt>,
    },
    /// The variation last entered ends.
    Leave,
}

/// The numbering of one line: the number, side and depth the next move gets, and where the
/// line's last move stood (a variation starts there).
#[derive(Copy, Clone, Debug)]
struct Numbering {
    number: MoveNumber,
    side: Option<Color>,
    depth: usize,
    /// The last move of the line, or `None` before its first.
    last: Option<MoveAt>,
    /// The number and side a variation gets when the line has no move yet.
    first: (MoveNumber, Option<Color>),
}

impl Numbering {
    fn new(number: MoveNumber, side: Option<Color>, depth: usize) -> Self {
        Numbering {
            number,
            side,
            depth,
            last: None,
            first: (number, side),
        }
    }

    /// A move (known or not) with the next id: where it stands, and the numbering goes on.
    fn step(&mut self, next_id: &mut usize) -> MoveAt {
        let at = MoveAt {
            id: *next_id,
            number: self.number,
            side: self.side,
            depth: self.depth,
        };
        *next_id += 1;
        self.last = Some(at);
        self.number = self.number.next();
        self.side = self.side.map(Color::opponent);
        at
    }

    /// A setup command `command` (as between the slashes).
    fn setup(&mut self, command: &str) {
        let side = fen_side(setup_fen(command));
        self.number = self.number.after_setup(self.side, side);
        self.side = side;
    }

    /// The numbering of a variation standing here.
    fn variation(&self) -> Numbering {
        let (number, side) = self.last.map_or(self.first, |at| (at.number, at.side));
        Numbering::new(number, side, self.depth + 1)
    }
}

/// One line being walked.
struct Frame<'a, P> {
    nodes: &'a [Node],
    next: usize,
    numbering: Numbering,
    /// Where the line stands now.
    place: Option<P>,
    /// Where it stood before its last move.
    before: Option<P>,
}

/// A read-only walk over a line of play and its variations, in tree order: an [`Iterator`]
/// of [`Step`]s.
///
/// A cursor can carry a place `P` along each line (a position where the walker replays the
/// moves, `()` where it does not). After a move step the line's place is unknown until the
/// walker sets it with [`set_place`](Cursor::set_place), and [`before`](Cursor::before) is the
/// place the move was played from; after a setup command it is unknown until set; a
/// variation starts at the place before the move it replaces (unknown when its line had no
/// place there, or after a setup command).
///
/// ```
/// use damka::pdn::cursor::{Cursor, Step};
/// use damka::pdn::{MoveNumber, Reader};
/// let text = "[GameType \"21\"] 11-15 (9-14 22-18) 23-19 - - 8-11 *";
/// let game = Reader::new("t.pdn", text.as_bytes()).next().unwrap().unwrap().game;
/// let moves: Vec<String> = Cursor::new(&game.moves, MoveNumber::FIRST, None)
///     .filter_map(|step| match step {
///         Step::Move { at, node, .. } => Some(format!("{} {}{}", at.id, at.number, node.text)),
///         Step::UnknownMove { at } => Some(format!("{} {}- -", at.id, at.number)),
///         _ => None,
///     })
///     .collect();
/// assert_eq!(moves, ["0 1.11-15", "1 1.9-14", "2 1...22-18", "3 1...23-19", "4 2.- -", "5 2...8-11"]);
/// ```
pub struct Cursor<'a, P = ()> {
    frames: Vec<Frame<'a, P>>,
    next_id: usize,
}

impl Line {
    /// The number of moves in this line and its variations (unknown moves `- -` not
    /// counted), found by a [`Cursor`] over it.
    pub fn move_count(&self) -> usize {
        Cursor::new(self, MoveNumber::FIRST, None)
            .filter(|s| matches!(s, Step::Move { .. }))
            .count()
    }
}

impl<'a> Cursor<'a, ()> {
    /// A walk over `line`, whose first move is numbered `first` and played by `side`.
    pub fn new(line: &'a Line, first: MoveNumber, side: Option<Color>) -> Self {
        Cursor::with_place(line, first, side, ())
    }
}

impl<'a, P: Clone> Cursor<'a, P> {
    /// A walk over `line` as [`Cursor::new`], carrying a place, `place` at the start.
    pub fn with_place(line: &'a Line, first: MoveNumber, side: Option<Color>, place: P) -> Self {
        Cursor {
            frames: vec![Frame {
                nodes: &line.nodes,
                next: 0,
                numbering: Numbering::new(first, side, 0),
                place: Some(place),
                before: None,
            }],
            next_id: 0,
        }
    }

    /// A walk over `nodes`, the rest of a line numbered by `numbering`, its first move's id
    /// `next_id`.
    fn rest(nodes: &'a [Node], numbering: Numbering, next_id: usize) -> Self {
        Cursor {
            frames: vec![Frame {
                nodes,
                next: 0,
                numbering,
                place: None,
                before: None,
            }],
            next_id,
        }
    }

    /// The depth of the line being walked: 0 for the main line.
    pub fn depth(&self) -> usize {
        self.frames.len().saturating_sub(1)
    }

    /// Where the line being walked stands, if known.
    pub fn place(&self) -> Option<&P> {
        self.frames.last()?.place.as_ref()
    }

    /// The place of the line being walked, to change it.
    pub fn place_mut(&mut self) -> Option<&mut P> {
        self.frames.last_mut()?.place.as_mut()
    }

    /// Where the line being walked stood before its last move, if known: after a move step,
    /// the place it is played from.
    pub fn before(&self) -> Option<&P> {
        self.frames.last()?.before.as_ref()
    }

    /// The place before the last move of the line being walked, to change it (what its
    /// variations start at).
    pub fn before_mut(&mut self) -> Option<&mut P> {
        self.frames.last_mut()?.before.as_mut()
    }

    /// Sets where the line being walked stands (after a move or setup step, where it
    /// stands after it; `None`: unknown).
    pub fn set_place(&mut self, place: Option<P>) {
        if let Some(frame) = self.frames.last_mut() {
            frame.place = place;
        }
    }

    /// Forgets where the line being walked stood before its last move, so that the
    /// variations of that move start at an unknown place.
    pub fn forget_before(&mut self) {
        if let Some(frame) = self.frames.last_mut() {
            frame.before = None;
        }
    }

    /// Passes over the rest of the line being walked, its variations included, without a
    /// [`Step::Leave`] for it: right after a [`Step::Enter`], the whole variation. Returns how
    /// many move ids it passed (moves and unknown moves). The main line cannot be left: there
    /// it passes over nothing.
    pub fn skip_variation(&mut self) -> usize {
        if self.frames.len() < 2 {
            return 0;
        }
        let Some(frame) = self.frames.pop() else {
            return 0;
        };
        let rest = Cursor::<()>::rest(&frame.nodes[frame.next..], frame.numbering, 0);
        let ids = rest
            .filter(|s| matches!(s, Step::Move { .. } | Step::UnknownMove { .. }))
            .count();
        self.next_id += ids;
        ids
    }
}

impl<'a, P: Clone> Iterator for Cursor<'a, P> {
    type Item = Step<'a>;

    fn next(&mut self) -> Option<Step<'a>> {
        let frame = self.frames.last_mut()?;
        let nodes = frame.nodes;
        let Some(node) = nodes.get(frame.next) else {
            self.frames.pop();
            return (!self.frames.is_empty()).then_some(Step::Leave);
        };
        frame.next += 1;
        let rest = &nodes[frame.next..];
        Some(match node {
            Node::Move(m) => {
                let at = frame.numbering.step(&mut self.next_id);
                frame.before = frame.place.take();
                Step::Move { at, node: m, rest }
            }
            Node::UnknownMove => {
                let at = frame.numbering.step(&mut self.next_id);
                frame.before = frame.place.take();
                Step::UnknownMove { at }
            }
            Node::Comment(c) => Step::Comment(c),
            Node::Setup(s) => {
                frame.numbering.setup(s);
                frame.place = None;
                frame.before = None;
                Step::Setup(s)
            }
            Node::Variation(v) => {
                let replaces = frame.numbering.last;
                let variation = Frame {
                    nodes: &v.nodes,
                    next: 0,
                    numbering: frame.numbering.variation(),
                    place: frame.before.clone(),
                    before: None,
                };
                self.frames.push(variation);
                Step::Enter {
                    variation: v,
                    replaces,
                }
            }
        })
    }
}

/// Where a node stands, for a [`Rewrite`].
pub struct Context<'r> {
    /// For a move or an unknown move, where it stands.
    pub at: Option<MoveAt>,
    /// The depth of the node's line: 0 for the main line.
    pub depth: usize,
    /// The nodes after this one in its line, as they were before the rewrite.
    pub rest: &'r [Node],
    numbering: Numbering,
    next_id: usize,
}

impl<'r> Context<'r> {
    /// A walk over the rest of the node's line (as it was), numbered on from the node.
    pub fn following(&self) -> Cursor<'r> {
        Cursor::rest(self.rest, self.numbering, self.next_id)
    }
}

/// A rewrite of a game's tree: what takes the place of each node.
pub trait Rewrite {
    /// Pushes onto `out`, the rewritten line so far, what takes the place of `node` (a move,
    /// an unknown move, a comment or a setup command).
    fn node(&mut self, node: Node, at: &Context<'_>, out: &mut Vec<Node>);

    /// Whether the variation `variation` (at `at`) stays; it is then rewritten in its turn.
    /// Every variation stays unless said otherwise.
    fn keep_variation(&mut self, variation: &Line, at: &Context<'_>) -> bool {
        let _ = (variation, at);
        true
    }
}

/// Rewrites `line` and its variations in tree order (ids and numbers as [`Cursor::new`] gives
/// them): each node is taken out and handed to `editor`, a variation before its own nodes.
/// Nodes that `editor` adds are not walked.
pub fn rewrite(line: &mut Line, first: MoveNumber, side: Option<Color>, editor: &mut impl Rewrite) {
    rewrite_line(line, Numbering::new(first, side, 0), &mut 0, editor);
}

fn rewrite_line(
    line: &mut Line,
    mut numbering: Numbering,
    next_id: &mut usize,
    editor: &mut impl Rewrite,
) {
    let old = std::mem::take(&mut line.nodes);
    let mut nodes = Vec::with_capacity(old.len());
    let mut old = old.into_iter();
    while let Some(node) = old.next() {
        let rest = old.as_slice();
        let at = match &node {
            Node::Move(_) | Node::UnknownMove => Some(numbering.step(next_id)),
            Node::Setup(s) => {
                numbering.setup(s);
                None
            }
            Node::Comment(_) | Node::Variation(_) => None,
        };
        let context = Context {
            at,
            depth: numbering.depth,
            rest,
            numbering,
            next_id: *next_id,
        };
        match node {
            Node::Variation(mut v) => {
                if editor.keep_variation(&v, &context) {
                    rewrite_line(&mut v, numbering.variation(), next_id, editor);
                    nodes.push(Node::Variation(v));
                } else {
                    let mut skipped = Cursor::new(&v, MoveNumber::FIRST, None);
                    *next_id += skipped
                        .by_ref()
                        .filter(|s| matches!(s, Step::Move { .. } | Step::UnknownMove { .. }))
                        .count();
                }
            }
            node => editor.node(node, &context, &mut nodes),
        }
    }
    line.nodes = nodes;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdn::Reader;

    fn game(text: &str) -> crate::pdn::Game {
        Reader::new("t.pdn", text.as_bytes())
            .next()
            .and_then(Result::ok)
            .expect("a readable game")
            .game
    }

    /// Ids, numbers and sides of every move in tree order, and what a variation starts at.
    #[test]
    fn tree_order_numbers_and_sides() {
        let g =
            game("1. 32-28 19-23 (18-23 38-32 (37-32 - -) 12-18) 28x19 /FEN \"B:W1:B2\"/ 2-7 *");
        let steps: Vec<String> = Cursor::new(&g.moves, MoveNumber::FIRST, Some(Color::White))
            .map(|s| match s {
                Step::Move { at, node, .. } => {
                    format!(
                        "{}:{}{}@{}{:?}",
                        at.id, at.number, node.text, at.depth, at.side
                    )
                }
                Step::UnknownMove { at } => format!("{}:{}- -", at.id, at.number),
                Step::Comment(c) => format!("{{{c}}}"),
                Step::Setup(_) => "setup".into(),
                Step::Enter { replaces, .. } => format!("({:?}", replaces.map(|a| a.id)),
                Step::Leave => ")".into(),
            })
            .collect();
        assert_eq!(
            steps,
            [
                "0:1.32-28@0Some(White)",
                "1:1...19-23@0Some(Black)",
                "(Some(1)",
                "2:1...18-23@1Some(Black)",
                "3:2.38-32@1Some(White)",
                "(Some(3)",
                "4:2.37-32@2Some(White)",
                "5:2...- -",
                ")",
                "6:2...12-18@1Some(Black)",
                ")",
                "7:2.28x19@0Some(White)",
                "setup",
                "8:2...2-7@0Some(Black)",
            ]
        );
    }

    /// A place follows each line; a variation starts at the place before the move it
    /// replaces; a skipped variation's ids are passed.
    #[test]
    fn places_and_skips() {
        let g = game("1-2 3-4 (5-6 7-8 (9-10)) 11-12 (13-14) 15-16 *");
        let mut cursor = Cursor::with_place(&g.moves, MoveNumber::FIRST, None, 0usize);
        let mut seen = Vec::new();
        while let Some(step) = cursor.next() {
            match step {
                Step::Move { at, node, .. } => {
                    let from = *cursor.before().expect("a place");
                    seen.push(format!("{}:{}:{from}", node.text, at.id));
                    cursor.set_place(Some(from + 1));
                }
                Step::Enter { variation, .. } if variation.nodes.len() == 1 => {
                    assert_eq!(cursor.skip_variation(), 1);
                }
                _ => {}
            }
        }
        assert_eq!(
            seen,
            [
                "1-2:0:0",
                "3-4:1:1",
                "5-6:2:1",
                "7-8:3:2",
                "11-12:5:2",
                "15-16:7:3"
            ]
        );
    }

    #[test]
    fn rewrite_sees_every_node_once_in_tree_order() {
        struct Ids(Vec<usize>);
        impl Rewrite for Ids {
            fn node(&mut self, node: Node, at: &Context<'_>, out: &mut Vec<Node>) {
                if let Some(at) = at.at {
                    self.0.push(at.id);
                }
                out.push(node);
            }
            fn keep_variation(&mut self, v: &Line, _: &Context<'_>) -> bool {
                v.nodes.len() > 1
            }
        }
        let mut g = game("1-2 3-4 (5-6 7-8 (9-10)) 11-12 (13-14) - - 15-16 *");
        let mut ids = Ids(Vec::new());
        rewrite(&mut g.moves, MoveNumber::FIRST, None, &mut ids);
        assert_eq!(ids.0, [0, 1, 2, 3, 5, 7, 8]);
        assert_eq!(g.moves.move_count(), 6);
    }
}
