//! The liberal reader: an iterator over the games of a PDN file, one game in memory at a time.

use std::collections::VecDeque;
use std::io::BufRead;
use std::sync::Arc;

use super::diagnostic::{
    Diagnostic, ErrorKind, Origin, PdnError, PdnWarning, WarningKind, WarningSet,
};
use super::game::{Game, Line, MoveNode, MoveNumber, Node, Tag, is_standard_result};
use super::lexer::{Lexer, Token, TokenKind, collapse_blanks};

/// Variations nested deeper than this are an error.
const MAX_DEPTH: usize = 100;
/// Games with more tokens than this are an error.
const MAX_TOKENS: usize = 1_000_000;
/// Games with more text than this in their moves and comments are an error.
const MAX_BYTES: usize = 64 << 20;

/// Unexpected text is quoted up to this many characters.
const QUOTE_LIMIT: usize = 40;

fn shorten(text: &str) -> String {
    if text.chars().count() <= QUOTE_LIMIT {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(QUOTE_LIMIT).collect();
        s.push_str("...");
        s
    }
}

/// The bytes of text a token holds, roughly.
fn token_size(kind: &TokenKind) -> usize {
    match kind {
        TokenKind::Move { text, .. }
        | TokenKind::Comment(text)
        | TokenKind::Setup(text)
        | TokenKind::Text { text, .. }
        | TokenKind::Strength(text)
        | TokenKind::Result(text) => text.len(),
        _ => 1,
    }
}

/// Tags whose repetition in one header means a new game began without a terminator.
const ROSTER: [&str; 9] = [
    "Event", "Site", "Date", "Round", "White", "Black", "Result", "GameType", "FEN",
];

/// Standard tag names, for reading other spellings (`Setup`, Italian names) as them.
const STANDARD_TAGS: [(&str, &str); 17] = [
    ("event", "Event"),
    ("site", "Site"),
    ("date", "Date"),
    ("round", "Round"),
    ("white", "White"),
    ("black", "Black"),
    ("result", "Result"),
    ("gametype", "GameType"),
    ("fen", "FEN"),
    ("setup", "SetUp"),
    ("evento", "Event"),
    ("luogo", "Site"),
    ("data", "Date"),
    ("turno", "Round"),
    ("bianco", "White"),
    ("nero", "Black"),
    ("risultato", "Result"),
];

fn standard_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    STANDARD_TAGS
        .iter()
        .find(|(l, _)| *l == lower)
        .map(|(_, s)| *s)
        .filter(|s| *s != name)
}

/// A game read, with where it is and what the reader tolerated.
#[derive(Clone, Debug)]
pub struct ReadGame {
    /// The game.
    pub game: Game,
    /// File, number, line and identifying tags.
    pub origin: Arc<Origin>,
    /// What was tolerated while reading it.
    pub warnings: Vec<PdnWarning>,
}

/// Reads the games of a PDN text one by one.
///
/// Each item is a game, or the error that made a game unreadable (the reader then goes on
/// with the next game). A read failure of the input ends the iteration after its error.
///
/// ```
/// use damka::pdn::Reader;
/// let text = "[Event \"a\"]\n1. 32-28 19-23 *\n\n1. 11-15 *";
/// let games: Vec<_> = Reader::new("example.pdn", text.as_bytes()).collect();
/// assert_eq!(games.len(), 2);
/// let first = games[0].as_ref().unwrap();
/// assert_eq!(first.game.tag("Event"), Some("a"));
/// assert_eq!(first.game.moves.move_count(), 2);
/// ```
pub struct Reader<B> {
    lexer: Lexer<B>,
    file: Arc<str>,
    games: usize,
    pending: VecDeque<Token>,
    failed: bool,
}

impl<B: BufRead> Reader<B> {
    /// A reader of `input`; `file` names it in errors and warnings.
    pub fn new(file: impl Into<Arc<str>>, input: B) -> Self {
        Reader {
            lexer: Lexer::new(input),
            file: file.into(),
            games: 0,
            pending: VecDeque::new(),
            failed: false,
        }
    }

    fn next_token(&mut self) -> Option<Token> {
        self.pending.pop_front().or_else(|| self.lexer.next_token())
    }

    fn push_back(&mut self, t: Token) {
        self.pending.push_front(t);
    }

    fn origin(&self, tags: &[Tag], line: usize) -> Arc<Origin> {
        let get = |name: &str| {
            tags.iter()
                .find(|t| t.name == name)
                .map(|t| t.value.clone())
        };
        Arc::new(Origin {
            file: Arc::clone(&self.file),
            game: self.games,
            line,
            white: get("White"),
            black: get("Black"),
            event: get("Event"),
        })
    }

    /// Reads one game's tokens; `None` when the input holds no more games.
    fn read_game(&mut self) -> Option<Result<ReadGame, PdnError>> {
        let mut tags: Vec<Tag> = Vec::new();
        let mut warnings = WarningSet::default();
        let mut body: Vec<Token> = Vec::new();
        let mut start_line = None;
        let mut terminator = None;
        let mut error = None;
        let mut in_body = false;
        let mut depth = 0usize;
        let mut size = 0usize;
        while let Some(tok) = self.next_token() {
            match tok.kind {
                TokenKind::Warning(w) => warnings.push(w),
                TokenKind::Error(e) => {
                    // The game is rejected; the rest of it is read to find where it ends.
                    start_line.get_or_insert(tok.line);
                    let io = matches!(e, ErrorKind::Io(_));
                    error.get_or_insert(e);
                    if io {
                        self.failed = true;
                        break;
                    }
                }
                TokenKind::Tag { name, value } => {
                    let repeated = ROSTER.contains(&name.as_str())
                        && tags.iter().any(|t: &Tag| t.name == name);
                    if in_body || repeated {
                        self.push_back(Token {
                            kind: TokenKind::Tag { name, value },
                            line: tok.line,
                        });
                        break;
                    }
                    start_line.get_or_insert(tok.line);
                    let name = match standard_name(&name) {
                        Some(standard) => {
                            warnings.push(WarningKind::RenamedTag { name, standard });
                            standard.to_string()
                        }
                        None => name,
                    };
                    tags.push(Tag { name, value });
                }
                TokenKind::Result(r) if depth == 0 => {
                    start_line.get_or_insert(tok.line);
                    terminator = Some(r);
                    break;
                }
                kind => {
                    start_line.get_or_insert(tok.line);
                    in_body = true;
                    match kind {
                        TokenKind::Open => depth += 1,
                        TokenKind::Close => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    if error.is_some() {
                        continue;
                    }
                    size += token_size(&kind);
                    if body.len() >= MAX_TOKENS || size > MAX_BYTES {
                        error = Some(ErrorKind::TooLarge {
                            line: tok.line,
                            what: format!(
                                "game longer than {MAX_TOKENS} tokens or {} MiB",
                                MAX_BYTES >> 20
                            ),
                        });
                        body = Vec::new();
                        continue;
                    }
                    body.push(Token {
                        kind,
                        line: tok.line,
                    });
                }
            }
        }
        let start_line = start_line?;
        self.games += 1;
        let origin = self.origin(&tags, start_line);
        if let Some(kind) = error {
            if terminator.is_some() && !self.failed {
                self.after_terminator(&mut warnings);
            }
            return Some(Err(Diagnostic {
                origin,
                kind,
                repeats: 0,
            }));
        }
        // A result that is not a PDN result (`4-6`) reads as a move; the Result tag tells.
        if terminator.is_none()
            && let Some(Token {
                kind: TokenKind::Move { text, .. },
                ..
            }) = body.last()
            && tags
                .iter()
                .any(|t| t.name == "Result" && t.value.replace(' ', "") == *text)
        {
            terminator = Some(text.clone());
            body.pop();
        }
        let trailing = match &terminator {
            Some(_) => self.after_terminator(&mut warnings),
            None => {
                warnings.push(WarningKind::MissingTerminator);
                Vec::new()
            }
        };
        if let Some(r) = &terminator
            && !is_standard_result(r)
        {
            warnings.push(WarningKind::NonStandardResult { text: r.clone() });
        }
        let mut parser = BodyParser {
            tokens: &mut body,
            at: 0,
            warnings: &mut warnings,
            start: None,
            number: None,
        };
        let mut moves = match parser.line(0, start_line) {
            Ok(line) => line,
            Err(kind) => {
                return Some(Err(Diagnostic {
                    origin,
                    kind,
                    repeats: 0,
                }));
            }
        };
        let start = parser.start.unwrap_or(MoveNumber::FIRST);
        moves.nodes.extend(trailing.into_iter().map(Node::Comment));
        let game = Game {
            tags,
            start,
            moves,
            result: terminator,
        };
        let warnings = warnings.located(&origin);
        Some(Ok(ReadGame {
            game,
            origin,
            warnings,
        }))
    }

    /// After a terminator: comments that follow it belong to this game when the next game
    /// starts with tags (or the input ends); a second result is ignored.
    fn after_terminator(&mut self, warnings: &mut WarningSet) -> Vec<String> {
        let mut comments: Vec<Token> = Vec::new();
        while let Some(t) = self.next_token() {
            match t.kind {
                TokenKind::Comment(_) => comments.push(t),
                TokenKind::Result(r) => warnings.push(WarningKind::DuplicateResult { text: r }),
                TokenKind::Warning(w) => warnings.push(w),
                TokenKind::Tag { .. } | TokenKind::Error(_) => {
                    self.push_back(t);
                    break;
                }
                _ => {
                    // Move text of a game without tags: the comments are its opening ones.
                    self.push_back(t);
                    for c in comments.into_iter().rev() {
                        self.push_back(c);
                    }
                    return Vec::new();
                }
            }
        }
        comments
            .into_iter()
            .filter_map(|t| match t.kind {
                TokenKind::Comment(c) => Some(c),
                _ => None,
            })
            .collect()
    }
}

impl<B: BufRead> Iterator for Reader<B> {
    type Item = Result<ReadGame, PdnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        self.read_game()
    }
}

/// Builds the tree of one game's move text from its tokens.
struct BodyParser<'a> {
    /// The tokens; each is taken out (left as an inert `...`) when read.
    tokens: &'a mut [Token],
    at: usize,
    warnings: &'a mut WarningSet,
    /// The number of the first move of the main line, once seen.
    start: Option<MoveNumber>,
    /// The last move number read and not yet used by a move.
    number: Option<MoveNumber>,
}

impl BodyParser<'_> {
    /// Reads a line up to its closing `)` (depth > 0) or the end of the tokens.
    fn line(&mut self, depth: usize, opened: usize) -> Result<Line, ErrorKind> {
        let mut line = Line::default();
        while self.at < self.tokens.len() {
            let tok = self.take();
            match tok.kind {
                TokenKind::Close if depth == 0 => {
                    return Err(ErrorKind::UnmatchedParenthesis { line: tok.line });
                }
                TokenKind::Close => return Ok(line),
                TokenKind::Open => {
                    if depth + 1 > MAX_DEPTH {
                        return Err(ErrorKind::TooLarge {
                            line: tok.line,
                            what: format!("variations nested deeper than {MAX_DEPTH}"),
                        });
                    }
                    if let Some(prose) = self.prose() {
                        self.warnings
                            .push(WarningKind::ProseInParentheses { line: tok.line });
                        line.nodes.push(Node::Comment(prose));
                        continue;
                    }
                    let variation = self.line(depth + 1, tok.line)?;
                    if variation.nodes.is_empty() {
                        self.warnings.push(WarningKind::Ignored {
                            line: tok.line,
                            what: "empty variation".to_string(),
                        });
                    } else {
                        line.nodes.push(Node::Variation(variation));
                    }
                }
                TokenKind::Move {
                    text,
                    spaced,
                    zeros,
                } => {
                    if spaced {
                        self.warnings
                            .push(WarningKind::SpacesInMove { text: text.clone() });
                    }
                    if zeros {
                        self.warnings
                            .push(WarningKind::LeadingZeros { text: text.clone() });
                    }
                    if depth == 0 && self.start.is_none() {
                        self.start = Some(self.number.unwrap_or(MoveNumber::FIRST));
                    }
                    self.number = None;
                    line.nodes.push(Node::Move(MoveNode::new(text)));
                }
                TokenKind::UnknownMove => {
                    if depth == 0 && self.start.is_none() {
                        self.start = Some(self.number.unwrap_or(MoveNumber::FIRST));
                    }
                    self.number = None;
                    line.nodes.push(Node::UnknownMove);
                }
                TokenKind::Number { number, second } => {
                    let mut second = second;
                    if let Some(Token {
                        kind: TokenKind::Ellipsis,
                        line,
                    }) = self.tokens.get(self.at)
                    {
                        self.warnings
                            .push(WarningKind::SpacedEllipsis { line: *line });
                        second = true;
                        self.at += 1;
                    }
                    self.number = Some(MoveNumber { number, second });
                }
                TokenKind::Ellipsis => self.ignored(tok.line, "'...' without a move number"),
                TokenKind::Strength(s) => match line.last_move_mut() {
                    Some(m) if m.strength.is_none() => m.strength = Some(s),
                    _ => self.ignored(tok.line, &format!("move strength '{s}' with no move")),
                },
                TokenKind::Nag(n) => match (line.last_move_mut(), u8::try_from(n)) {
                    (Some(m), Ok(n)) if n > 0 => m.nags.push(n),
                    _ => self.ignored(tok.line, &format!("NAG ${n}")),
                },
                TokenKind::Comment(c) => line.nodes.push(Node::Comment(c)),
                TokenKind::Setup(s) => line.nodes.push(Node::Setup(s)),
                TokenKind::Result(r) => self
                    .warnings
                    .push(WarningKind::ResultInVariation { text: r }),
                TokenKind::Text { text, printable } => {
                    if !printable {
                        return Err(ErrorKind::UnexpectedText {
                            line: tok.line,
                            text: shorten(&text),
                        });
                    }
                    if !text.chars().any(char::is_alphanumeric) {
                        self.ignored(tok.line, &format!("'{}'", shorten(&text)));
                        continue;
                    }
                    // Prose without braces: kept as a comment, with the words after it.
                    let mut words = vec![text];
                    while let Some(Token {
                        kind:
                            TokenKind::Text {
                                printable: true, ..
                            },
                        ..
                    }) = self.tokens.get(self.at)
                    {
                        if let TokenKind::Text { text, .. } = self.take().kind {
                            words.push(text);
                        }
                    }
                    self.warnings
                        .push(WarningKind::ProseInMoves { line: tok.line });
                    line.nodes.push(Node::Comment(collapse_blanks(
                        &words.join(" ").replace(['{', '}'], " "),
                    )));
                }
                TokenKind::Tag { .. } | TokenKind::Error(_) | TokenKind::Warning(_) => {}
            }
        }
        if depth > 0 {
            return Err(ErrorKind::UnclosedVariation { opened });
        }
        Ok(line)
    }

    /// The next token, taken out of the list.
    fn take(&mut self) -> Token {
        let placeholder = Token {
            kind: TokenKind::Ellipsis,
            line: 0,
        };
        let tok = std::mem::replace(&mut self.tokens[self.at], placeholder);
        self.at += 1;
        tok
    }

    fn ignored(&mut self, line: usize, what: &str) {
        self.warnings.push(WarningKind::Ignored {
            line,
            what: what.to_string(),
        });
    }

    /// If the parenthesised block starting at `at` holds text that is not moves (prose, as
    /// some programs write), consumes it and returns it as comment text.
    fn prose(&mut self) -> Option<String> {
        let mut depth = 1usize;
        let mut is_prose = false;
        let mut end = None;
        for (i, t) in self.tokens[self.at..].iter().enumerate() {
            match t.kind {
                TokenKind::Open => depth += 1,
                TokenKind::Close => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(self.at + i);
                        break;
                    }
                }
                TokenKind::Text {
                    printable: true, ..
                } if depth == 1 => is_prose = true,
                _ => {}
            }
        }
        let end = end.filter(|_| is_prose)?;
        let words: Vec<String> = self.tokens[self.at..end]
            .iter()
            .map(|t| match &t.kind {
                TokenKind::Comment(c) => c.clone(),
                other => other.render(),
            })
            .collect();
        self.at = end + 1;
        let text = collapse_blanks(&words.join(" ").replace(['{', '}'], " "));
        Some(text)
    }
}
