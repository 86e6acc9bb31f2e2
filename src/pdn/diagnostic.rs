//! What the reader and the replay report: errors (a game that cannot be read or replayed) and
//! warnings (what was tolerated), each naming the file, the game and its players.

use std::fmt;
use std::mem::discriminant;
use std::sync::Arc;

use super::game::MoveNumber;
use crate::notation::{FenError, MoveTextError};
use crate::rules::{Color, Variant};

/// Where a game is: file, number in the file, first line, and the tags that identify it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The file name given to the reader.
    pub file: Arc<str>,
    /// The game's number in the file, from 1.
    pub game: usize,
    /// The line the game starts on, from 1.
    pub line: usize,
    /// The White tag, if any.
    pub white: Option<String>,
    /// The Black tag, if any.
    pub black: Option<String>,
    /// The Event tag, if any.
    pub event: Option<String>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, game {} (line {}", self.file, self.game, self.line)?;
        for (name, value) in [
            ("White", &self.white),
            ("Black", &self.black),
            ("Event", &self.event),
        ] {
            if let Some(v) = value {
                write!(f, "; {name} \"{v}\"")?;
            }
        }
        f.write_str(")")
    }
}

/// Why a game could not be read or replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input could not be read.
    Io(String),
    /// A `{` inside a comment: PDN comments do not nest.
    NestedComment {
        /// The line of the inner `{`.
        line: usize,
        /// The line the comment was opened on.
        opened: usize,
    },
    /// A comment still open at the end of the input.
    UnclosedComment {
        /// The line the comment was opened on.
        opened: usize,
    },
    /// A setup command `/.../` still open at the end of the input.
    UnclosedSetup {
        /// The line the command was opened on.
        opened: usize,
    },
    /// A variation not closed before the game's end.
    UnclosedVariation {
        /// The line the variation was opened on.
        opened: usize,
    },
    /// A `)` with no variation open.
    UnmatchedParenthesis {
        /// The line of the `)`.
        line: usize,
    },
    /// A tag pair that is not `[Name "value"]`.
    BadTag {
        /// The line of the tag.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// Text in the move text that is neither a move, a number, a comment nor a result.
    UnexpectedText {
        /// The line of the text.
        line: usize,
        /// The text (shortened if long).
        text: String,
    },
    /// A line, a comment, a game or the nesting of variations beyond the reader's limits.
    TooLarge {
        /// The line where the limit was reached.
        line: usize,
        /// What was too large, with the limit.
        what: String,
    },
    /// The FEN tag is not a position of the variant.
    BadFen {
        /// The FEN as read.
        fen: String,
        /// Why it was refused.
        error: FenError,
    },
    /// A setup command `/FEN "..."/` that is not a position of the variant.
    BadSetup {
        /// The command's text.
        text: String,
        /// Why it was refused.
        reason: String,
    },
    /// A move that does not name exactly one legal move.
    Move {
        /// The move's number in its line.
        number: MoveNumber,
        /// Illegal, ambiguous, or not a move of this variant; with the legal moves.
        error: MoveTextError,
        /// The position before the move, as FEN.
        fen: String,
    },
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Io(e) => write!(f, "cannot read input: {e}"),
            ErrorKind::NestedComment { line, opened } => write!(
                f,
                "line {line}: '{{' inside a comment opened on line {opened} (comments do not nest)"
            ),
            ErrorKind::UnclosedComment { opened } => {
                write!(f, "comment opened on line {opened} is never closed")
            }
            ErrorKind::UnclosedSetup { opened } => {
                write!(f, "setup command opened on line {opened} is never closed")
            }
            ErrorKind::UnclosedVariation { opened } => write!(
                f,
                "variation opened on line {opened} is not closed before the game ends"
            ),
            ErrorKind::UnmatchedParenthesis { line } => {
                write!(f, "line {line}: ')' without an open variation")
            }
            ErrorKind::BadTag { line, reason } => write!(f, "line {line}: bad tag: {reason}"),
            ErrorKind::UnexpectedText { line, text } => {
                write!(f, "line {line}: unexpected '{text}' in the moves")
            }
            ErrorKind::TooLarge { line, what } => write!(f, "line {line}: {what}"),
            ErrorKind::BadFen { fen, error } => write!(f, "FEN \"{fen}\": {error}"),
            ErrorKind::BadSetup { text, reason } => {
                write!(f, "setup command /{text}/: {reason}")
            }
            ErrorKind::Move { number, error, fen } => {
                write!(f, "move {number} {error} in position {fen}")
            }
        }
    }
}

/// Something the reader tolerated or could not do, that does not make the game wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WarningKind {
    /// No GameType (or one not understood): the variant was guessed.
    GuessedVariant {
        /// The variant chosen.
        variant: Variant,
        /// On what grounds.
        reason: &'static str,
    },
    /// A guessed variant under which the game does not replay: the game may be of another
    /// kind, whose rules should be named.
    GuessMisfits {
        /// The variant guessed.
        variant: Variant,
    },
    /// A GameType whose rules damka does not have: the moves are read, not replayed.
    UnsupportedRules {
        /// The GameType number.
        number: u32,
        /// Its name, when the PDN standard gives one.
        name: Option<&'static str>,
    },
    /// A GameType tag that was not understood.
    BadGameType {
        /// The value.
        value: String,
    },
    /// A long-form GameType that differs from the standard one for its number.
    NonStandardGameType {
        /// The value.
        value: String,
        /// The standard long form, which the reader follows.
        standard: &'static str,
    },
    /// The GameType tag was overridden by the variant given to the reader.
    GameTypeOverridden {
        /// The value.
        value: String,
        /// The variant used instead.
        used: String,
    },
    /// An unknown move `- -`: the rest of the line is not replayed.
    UnknownMove {
        /// Its number.
        number: MoveNumber,
    },
    /// The rest of a line after an unknown or illegal move (or a variation with no move to
    /// replace) was not replayed.
    NotReplayed {
        /// How many moves were skipped.
        moves: usize,
    },
    /// A FEN whose side to move is `?`: the side was chosen.
    FenSideUnknown {
        /// The side chosen.
        chosen: Color,
    },
    /// A man on its promotion row in a FEN, read as a king.
    ManOnPromotionRow {
        /// The square.
        square: String,
    },
    /// `1. ... 7-12`: an ellipsis separated from its move number.
    SpacedEllipsis {
        /// The line.
        line: usize,
    },
    /// Blanks inside a move (`1- 6`, `47x 9`).
    SpacesInMove {
        /// The move as read.
        text: String,
    },
    /// Squares with leading zeros (`06-11`).
    LeadingZeros {
        /// The move as read.
        text: String,
    },
    /// A quiet move written with a capture separator (`10x14`).
    CaptureMarkOnQuietMove {
        /// The move as read.
        text: String,
    },
    /// A move text that names several legal moves (a capture written by its ends when two
    /// paths lead there): the reading the following moves fit was taken, or, when they fit
    /// every reading as well, the first.
    AmbiguousMove {
        /// Its number.
        number: MoveNumber,
        /// The move as read.
        text: String,
        /// Every reading, written in full.
        readings: Vec<String>,
        /// The reading taken.
        chosen: String,
        /// Whether the following moves decided it.
        decided: bool,
    },
    /// A terminator that is not a PDN result (`4-6`), kept as read.
    NonStandardResult {
        /// The terminator.
        text: String,
    },
    /// A result inside a variation, ignored.
    ResultInVariation {
        /// The result.
        text: String,
    },
    /// A second result right after the first, ignored.
    DuplicateResult {
        /// The second result.
        text: String,
    },
    /// The game ends without a result or `*`.
    MissingTerminator,
    /// A parenthesised block that is not moves, kept as a comment.
    ProseInParentheses {
        /// The line it starts on.
        line: usize,
    },
    /// Text outside braces in the move text, kept as a comment.
    ProseInMoves {
        /// The line it starts on.
        line: usize,
    },
    /// A tag read under its standard name (`Bianco` as White, `Setup` as SetUp).
    RenamedTag {
        /// The name in the file.
        name: String,
        /// The standard name.
        standard: &'static str,
    },
    /// Text that is not UTF-8, read as Latin-1.
    NotUtf8,
    /// A mark, glyph or variation with nothing to attach to, ignored.
    Ignored {
        /// The line.
        line: usize,
        /// What was ignored.
        what: String,
    },
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WarningKind::GuessedVariant { variant, reason } => {
                write!(f, "variant guessed as {variant} ({reason})")
            }
            WarningKind::GuessMisfits { variant } => write!(
                f,
                "the moves do not replay as the guessed {variant}: if the game is of another \
                 kind (Czech draughts files often have no GameType), name its rules"
            ),
            WarningKind::UnsupportedRules { number, name } => write!(
                f,
                "GameType {number} ({}): rules not supported, moves read but not replayed",
                name.unwrap_or("unknown game")
            ),
            WarningKind::BadGameType { value } => {
                write!(f, "GameType \"{value}\" not understood")
            }
            WarningKind::NonStandardGameType { value, standard } => write!(
                f,
                "GameType \"{value}\" differs from the standard \"{standard}\"; read as the standard"
            ),
            WarningKind::GameTypeOverridden { value, used } => {
                write!(f, "GameType \"{value}\" ignored; read as {used}")
            }
            WarningKind::UnknownMove { number } => write!(
                f,
                "move {number} is unknown ('- -'): the rest of the line is not replayed"
            ),
            WarningKind::NotReplayed { moves } => {
                write!(
                    f,
                    "{moves} moves not replayed (after an unknown or bad move)"
                )
            }
            WarningKind::FenSideUnknown { chosen } => {
                write!(f, "FEN side to move '?' read as {chosen}")
            }
            WarningKind::ManOnPromotionRow { square } => {
                write!(
                    f,
                    "FEN has a man on {square}, its promotion row: read as a king"
                )
            }
            WarningKind::SpacedEllipsis { line } => {
                write!(f, "line {line}: '...' separated from its move number")
            }
            WarningKind::SpacesInMove { text } => write!(f, "blanks inside the move '{text}'"),
            WarningKind::LeadingZeros { text } => {
                write!(f, "leading zeros in the move '{text}'")
            }
            WarningKind::CaptureMarkOnQuietMove { text } => {
                write!(f, "quiet move '{text}' written with a capture separator")
            }
            WarningKind::AmbiguousMove {
                number,
                text,
                readings,
                chosen,
                decided: true,
            } => write!(
                f,
                "move {number} '{text}' could be {}: read as {chosen}, the only one the moves \
                 after it fit",
                readings.join(" or ")
            ),
            WarningKind::AmbiguousMove {
                number,
                text,
                readings,
                chosen,
                decided: false,
            } => write!(
                f,
                "move {number} '{text}' could be {} and nothing after it tells them apart: \
                 read as {chosen}",
                readings.join(" or ")
            ),
            WarningKind::NonStandardResult { text } => {
                write!(f, "'{text}' is not a PDN result; kept as read")
            }
            WarningKind::ResultInVariation { text } => {
                write!(f, "result '{text}' inside a variation ignored")
            }
            WarningKind::DuplicateResult { text } => {
                write!(f, "second result '{text}' after the game's result ignored")
            }
            WarningKind::MissingTerminator => f.write_str("game ends without a result or '*'"),
            WarningKind::ProseInParentheses { line } => write!(
                f,
                "line {line}: parenthesised text that is not moves kept as a comment"
            ),
            WarningKind::ProseInMoves { line } => {
                write!(f, "line {line}: text outside braces kept as a comment")
            }
            WarningKind::RenamedTag { name, standard } => {
                write!(f, "tag {name} read as {standard}")
            }
            WarningKind::NotUtf8 => f.write_str("text is not UTF-8; read as Latin-1"),
            WarningKind::Ignored { line, what } => write!(f, "line {line}: {what} ignored"),
        }
    }
}

/// An error or warning with the game it belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic<K> {
    /// The game.
    pub origin: Arc<Origin>,
    /// What happened (the first time, when it happened several times).
    pub kind: K,
    /// How many more times the same kind of thing happened in the same game.
    pub repeats: usize,
}

impl<K: fmt::Display> fmt::Display for Diagnostic<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.origin, self.kind)?;
        if self.repeats > 0 {
            write!(f, " (and {} more like it in this game)", self.repeats)?;
        }
        Ok(())
    }
}

impl<K: fmt::Debug + fmt::Display> std::error::Error for Diagnostic<K> {}

/// A game that could not be read, or a move that could not be replayed.
pub type PdnError = Diagnostic<ErrorKind>;
/// Something tolerated while reading or replaying.
pub type PdnWarning = Diagnostic<WarningKind>;

/// Warnings of one game, each kind once with a count of repeats.
#[derive(Clone, Debug, Default)]
pub(crate) struct WarningSet {
    kinds: Vec<WarningKind>,
    repeats: Vec<usize>,
}

impl WarningSet {
    /// Adds a warning.
    pub(crate) fn push(&mut self, w: WarningKind) {
        match self
            .kinds
            .iter()
            .position(|k| discriminant(k) == discriminant(&w))
        {
            Some(i) => self.repeats[i] += 1,
            None => {
                self.kinds.push(w);
                self.repeats.push(0);
            }
        }
    }

    /// The warnings, located in `origin`.
    pub(crate) fn located(self, origin: &Arc<Origin>) -> Vec<PdnWarning> {
        self.kinds
            .into_iter()
            .zip(self.repeats)
            .map(|(kind, repeats)| Diagnostic {
                origin: Arc::clone(origin),
                kind,
                repeats,
            })
            .collect()
    }
}
