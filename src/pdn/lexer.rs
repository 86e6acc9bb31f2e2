//! Splits PDN text into tokens, line by line, from any [`BufRead`].
//!
//! Liberal as real files need: a UTF-8 byte-order mark, CRLF, LF and lone CR line ends mixed,
//! `%` line comments, blanks inside moves (`1- 6`, `47x 9`), leading zeros, moves without a
//! separator (`a3b4`), `(!?)` strength marks, and text that is not UTF-8 (read as Latin-1).
//! Memory is bounded: a line longer than 1 MiB or a comment longer than 1 MiB is an error
//! (the line is read in pieces, the comment's excess is not kept).

use std::collections::VecDeque;
use std::io::{self, BufRead};

use super::diagnostic::{ErrorKind, WarningKind};

/// Lines longer than this are an error (and read in pieces).
const LINE_LIMIT: usize = 1 << 20;
/// Comments longer than this are an error.
const COMMENT_LIMIT: usize = 1 << 20;

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// `[Name "value"]`.
    Tag { name: String, value: String },
    /// `{...}`, blanks collapsed.
    Comment(String),
    /// `/FEN "..."/`: the text between the slashes.
    Setup(String),
    /// `12.` or `12...`.
    Number { number: u32, second: bool },
    /// `...` standing alone.
    Ellipsis,
    /// A move: squares joined by separators, blanks removed.
    Move {
        text: String,
        spaced: bool,
        zeros: bool,
    },
    /// `- -`: a move not recorded.
    UnknownMove,
    /// `!?`, also read from `(!?)`.
    Strength(String),
    /// `$12`.
    Nag(u32),
    /// `(`.
    Open,
    /// `)`.
    Close,
    /// `1-0`, `0-1`, `1/2-1/2`, `2-0`, `0-2`, `1-1`, `0-0`, `*`.
    Result(String),
    /// Anything else, up to the next blank or bracket; `printable` when it is UTF-8 without
    /// control characters (prose, as opposed to binary garbage).
    Text { text: String, printable: bool },
    /// A malformed tag, an unclosed or nested comment, an oversized comment, a read failure.
    Error(ErrorKind),
    /// Something tolerated (text not UTF-8).
    Warning(WarningKind),
}

impl TokenKind {
    /// The token written back as text (for keeping prose in parentheses as a comment).
    pub(crate) fn render(&self) -> String {
        match self {
            TokenKind::Tag { name, value } => format!("[{name} \"{value}\"]"),
            TokenKind::Comment(c) => format!("{{{c}}}"),
            TokenKind::Setup(s) => format!("/{s}/"),
            TokenKind::Number { number, second } => {
                format!("{number}{}", if *second { "..." } else { "." })
            }
            TokenKind::Ellipsis => "...".to_string(),
            TokenKind::Move { text, .. } => text.clone(),
            TokenKind::UnknownMove => "- -".to_string(),
            TokenKind::Strength(s) | TokenKind::Result(s) | TokenKind::Text { text: s, .. } => {
                s.clone()
            }
            TokenKind::Nag(n) => format!("${n}"),
            TokenKind::Open => "(".to_string(),
            TokenKind::Close => ")".to_string(),
            TokenKind::Error(_) | TokenKind::Warning(_) => String::new(),
        }
    }
}

/// A token and the line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) kind: TokenKind,
    pub(crate) line: usize,
}

/// An open comment carried from line to line.
struct OpenComment {
    opened: usize,
    text: Vec<u8>,
    too_long: bool,
}

/// The tokenizer.
pub(crate) struct Lexer<B> {
    input: B,
    buf: Vec<u8>,
    pos: usize,
    line: usize,
    /// The last line read ended with CR: a following LF belongs to it.
    after_cr: bool,
    /// The last piece read was cut by the line limit: the next piece continues the line.
    cut: bool,
    eof: bool,
    comment: Option<OpenComment>,
    pending: VecDeque<Token>,
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\x0b' | b'\x0c')
}

fn is_separator(b: u8) -> bool {
    matches!(b, b'-' | b'x' | b'X' | b':')
}

/// The end of a square starting at `i`: digits, or a file letter `a`-`h` and digits.
fn square_end(line: &[u8], i: usize) -> Option<usize> {
    let first = *line.get(i)?;
    let digits_from = if first.is_ascii_digit() {
        i
    } else if matches!(first, b'a'..=b'h' | b'A'..=b'H')
        && line.get(i + 1).is_some_and(u8::is_ascii_digit)
    {
        i + 1
    } else {
        return None;
    };
    let len = line[digits_from..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    Some(digits_from + len)
}

/// Decodes text: UTF-8 if it is, else Latin-1 (every byte one character).
fn decode(bytes: &[u8]) -> (String, bool) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_string(), false),
        Err(_) => (bytes.iter().map(|&b| b as char).collect(), true),
    }
}

/// Collapses runs of blanks and line ends to single spaces and trims the ends; drops
/// byte-order marks.
pub(crate) fn collapse_blanks(text: &str) -> String {
    text.split_whitespace()
        .map(|w| w.replace('\u{feff}', ""))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

impl<B: BufRead> Lexer<B> {
    pub(crate) fn new(input: B) -> Self {
        Lexer {
            input,
            buf: Vec::new(),
            pos: 0,
            line: 0,
            after_cr: false,
            cut: false,
            eof: false,
            comment: None,
            pending: VecDeque::new(),
        }
    }

    fn token(&self, kind: TokenKind) -> Token {
        Token {
            kind,
            line: self.line,
        }
    }

    /// Reads the next line (or piece of a long line) into `buf`. `Ok(false)` at the end.
    fn read_line(&mut self) -> io::Result<bool> {
        self.buf.clear();
        self.pos = 0;
        let continued = self.cut;
        self.cut = false;
        let mut read_any = false;
        loop {
            let avail = match self.input.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                if read_any || !self.buf.is_empty() {
                    break;
                }
                return Ok(false);
            }
            if self.after_cr {
                self.after_cr = false;
                if avail[0] == b'\n' {
                    self.input.consume(1);
                    continue;
                }
            }
            read_any = true;
            let room = LINE_LIMIT - self.buf.len();
            let end = avail.iter().position(|&b| b == b'\n' || b == b'\r');
            match end {
                Some(i) if i <= room => {
                    self.buf.extend_from_slice(&avail[..i]);
                    self.after_cr = avail[i] == b'\r';
                    self.input.consume(i + 1);
                    break;
                }
                _ => {
                    let take = avail.len().min(room);
                    self.buf.extend_from_slice(&avail[..take]);
                    self.input.consume(take);
                    if self.buf.len() >= LINE_LIMIT {
                        self.cut = true;
                        break;
                    }
                }
            }
        }
        if !continued {
            self.line += 1;
            if self.buf.starts_with(b"\xEF\xBB\xBF") {
                self.pos = 3;
            }
            if self.comment.is_none() && self.buf.get(self.pos) == Some(&b'%') {
                self.pos = self.buf.len();
            }
        }
        if self.cut && !continued {
            let e = self.token(TokenKind::Error(ErrorKind::TooLarge {
                line: self.line,
                what: "line longer than 1 MiB".to_string(),
            }));
            self.pending.push_back(e);
        }
        Ok(true)
    }

    /// The next token, or `None` at the end of the input.
    pub(crate) fn next_token(&mut self) -> Option<Token> {
        loop {
            if let Some(t) = self.pending.pop_front() {
                return Some(t);
            }
            if self.eof {
                return None;
            }
            if self.pos >= self.buf.len() {
                match self.read_line() {
                    Ok(true) => {
                        if let Some(c) = &mut self.comment
                            && !c.too_long
                        {
                            c.text.push(b'\n');
                        }
                    }
                    Ok(false) => {
                        self.eof = true;
                        if let Some(c) = self.comment.take() {
                            let opened = c.opened;
                            return Some(
                                self.token(TokenKind::Error(ErrorKind::UnclosedComment { opened })),
                            );
                        }
                        return None;
                    }
                    Err(e) => {
                        self.eof = true;
                        return Some(self.token(TokenKind::Error(ErrorKind::Io(e.to_string()))));
                    }
                }
                continue;
            }
            if self.comment.is_some() {
                if let Some(t) = self.comment_body() {
                    return Some(t);
                }
                continue;
            }
            let b = self.buf[self.pos];
            if is_blank(b) {
                self.pos += 1;
                continue;
            }
            if let Some(t) = self.lex_token(b) {
                return Some(t);
            }
        }
    }

    /// Continues an open comment on the current line.
    fn comment_body(&mut self) -> Option<Token> {
        let rest = &self.buf[self.pos..];
        let stop = rest.iter().position(|&b| b == b'}' || b == b'{');
        let (chunk, found) = match stop {
            Some(i) => (&rest[..i], Some(rest[i])),
            None => (rest, None),
        };
        let chunk_len = chunk.len();
        let line = self.line;
        let c = self.comment.as_mut()?;
        let mut error = None;
        if !c.too_long {
            if c.text.len() + chunk_len > COMMENT_LIMIT {
                c.too_long = true;
                error = Some(ErrorKind::TooLarge {
                    line,
                    what: format!("comment opened on line {} is longer than 1 MiB", c.opened),
                });
            } else {
                c.text.extend_from_slice(chunk);
            }
        }
        self.pos += chunk_len;
        match found {
            Some(b'}') => {
                self.pos += 1;
                let c = self.comment.take()?;
                if !c.too_long {
                    let (text, lossy) = decode(&c.text);
                    if lossy {
                        self.pending
                            .push_back(self.token(TokenKind::Warning(WarningKind::NotUtf8)));
                    }
                    let t = Token {
                        kind: TokenKind::Comment(collapse_blanks(&text)),
                        line: c.opened,
                    };
                    self.pending.push_back(t);
                }
            }
            Some(_) => {
                self.pos += 1;
                let opened = c.opened;
                error = error.or(Some(ErrorKind::NestedComment { line, opened }));
            }
            None => {}
        }
        error.map(|e| self.token(TokenKind::Error(e)))
    }

    /// Lexes the token starting with byte `b` at `pos` (not a blank).
    fn lex_token(&mut self, b: u8) -> Option<Token> {
        let start = self.pos;
        match b {
            b'{' => {
                self.pos += 1;
                self.comment = Some(OpenComment {
                    opened: self.line,
                    text: Vec::new(),
                    too_long: false,
                });
                None
            }
            b'[' => Some(self.tag()),
            b'(' => {
                let marks = self.buf[start + 1..]
                    .iter()
                    .take_while(|&&c| c == b'!' || c == b'?')
                    .count();
                if marks > 0 && self.buf.get(start + 1 + marks) == Some(&b')') {
                    self.pos = start + marks + 2;
                    let s = String::from_utf8_lossy(&self.buf[start + 1..start + 1 + marks]);
                    return Some(self.token(TokenKind::Strength(s.into_owned())));
                }
                self.pos += 1;
                Some(self.token(TokenKind::Open))
            }
            b')' => {
                self.pos += 1;
                Some(self.token(TokenKind::Close))
            }
            b'*' => {
                self.pos += 1;
                Some(self.token(TokenKind::Result("*".to_string())))
            }
            b'!' | b'?' => {
                let n = self.buf[start..]
                    .iter()
                    .take_while(|&&c| c == b'!' || c == b'?')
                    .count();
                self.pos += n;
                let s = String::from_utf8_lossy(&self.buf[start..start + n]);
                Some(self.token(TokenKind::Strength(s.into_owned())))
            }
            b'$' => {
                let n = self.buf[start + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                let value = std::str::from_utf8(&self.buf[start + 1..start + 1 + n])
                    .ok()
                    .and_then(|s| s.parse::<u32>().ok());
                match value {
                    Some(v) if self.delimited(start + 1 + n) => {
                        self.pos = start + 1 + n;
                        Some(self.token(TokenKind::Nag(v)))
                    }
                    _ => Some(self.text()),
                }
            }
            b'/' => Some(self.setup()),
            b'.' => {
                let n = self.buf[start..].iter().take_while(|&&c| c == b'.').count();
                if n >= 2 {
                    self.pos += n;
                    Some(self.token(TokenKind::Ellipsis))
                } else {
                    Some(self.text())
                }
            }
            b'-' => {
                let mut j = start + 1;
                while j < self.buf.len() && is_blank(self.buf[j]) {
                    j += 1;
                }
                if self.buf.get(j) == Some(&b'-') && self.delimited(j + 1) {
                    self.pos = j + 1;
                    return Some(self.token(TokenKind::UnknownMove));
                }
                Some(self.text())
            }
            b'0'..=b'9' => Some(self.number_or_move()),
            _ if square_end(&self.buf, start).is_some() => Some(self.number_or_move()),
            _ => Some(self.text()),
        }
    }

    /// Whether a token may end at `i`: the line ends, or a blank or punctuation follows.
    fn delimited(&self, i: usize) -> bool {
        match self.buf.get(i) {
            None => true,
            Some(&c) => !(c.is_ascii_alphanumeric() || c >= 0x80),
        }
    }

    /// Text up to the next blank or bracket: something the move text cannot hold.
    fn text(&mut self) -> Token {
        let start = self.pos;
        let n = self.buf[start..]
            .iter()
            .take_while(|&&c| !is_blank(c) && !matches!(c, b'{' | b'}' | b'(' | b')' | b'['))
            .count()
            .max(1);
        self.pos = start + n;
        let (text, lossy) = decode(&self.buf[start..start + n]);
        let printable = !lossy && !text.chars().any(char::is_control);
        self.token(TokenKind::Text { text, printable })
    }

    /// A move number (`12.`, `12...`), a result, or a move.
    fn number_or_move(&mut self) -> Token {
        let start = self.pos;
        let digits = self.buf[start..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits > 0 {
            let after = start + digits;
            if self.buf.get(after) == Some(&b'.') {
                let dots = self.buf[after..].iter().take_while(|&&c| c == b'.').count();
                let number = std::str::from_utf8(&self.buf[start..after])
                    .ok()
                    .and_then(|s| s.parse::<u32>().ok());
                if let Some(number) = number {
                    self.pos = after + dots;
                    return self.token(TokenKind::Number {
                        number,
                        second: dots >= 2,
                    });
                }
                return self.text();
            }
            if self.buf[start..].starts_with(b"1/2-1/2") && self.delimited(start + 7) {
                self.pos = start + 7;
                return self.token(TokenKind::Result("1/2-1/2".to_string()));
            }
        }
        self.a_move()
    }

    /// A move: squares joined by separators, blanks allowed around a separator.
    fn a_move(&mut self) -> Token {
        let start = self.pos;
        let line = &self.buf;
        let Some(mut i) = square_end(line, start) else {
            return self.text();
        };
        let mut text = String::new();
        let mut squares = 1;
        let mut spaced = false;
        let mut zeros = false;
        let mut push_square = |text: &mut String, from: usize, to: usize| {
            let sq = &line[from..to];
            if sq.len() > 1 && sq[0] == b'0' {
                zeros = true;
            }
            text.extend(sq.iter().map(|&b| b as char));
        };
        push_square(&mut text, start, i);
        loop {
            let mut j = i;
            while j < line.len() && is_blank(line[j]) {
                j += 1;
            }
            if j < line.len() && is_separator(line[j]) {
                let mut k = j + 1;
                while k < line.len() && is_blank(line[k]) {
                    k += 1;
                }
                if let Some(end) = square_end(line, k) {
                    spaced |= j > i || k > j + 1;
                    text.push(line[j].to_ascii_lowercase() as char);
                    push_square(&mut text, k, end);
                    squares += 1;
                    i = end;
                    continue;
                }
            }
            // `a3b4`: algebraic squares with no separator.
            if line[i - 1].is_ascii_digit()
                && line.get(i).is_some_and(u8::is_ascii_alphabetic)
                && let Some(end) = square_end(line, i)
            {
                text.push('-');
                push_square(&mut text, i, end);
                squares += 1;
                i = end;
                continue;
            }
            break;
        }
        // A move may be glued to prose (`8-11Redoverstepped...`): the prose is the next token.
        let glued = line.get(i).is_some_and(u8::is_ascii_alphabetic);
        if squares < 2 || !(glued || self.delimited(i)) {
            return self.text();
        }
        self.pos = i;
        if matches!(text.as_str(), "1-0" | "0-1" | "0-0" | "2-0" | "0-2" | "1-1") {
            return self.token(TokenKind::Result(text));
        }
        self.token(TokenKind::Move {
            text,
            spaced,
            zeros,
        })
    }

    /// A tag pair `[Name "value"]` on one line.
    fn tag(&mut self) -> Token {
        let line = &self.buf;
        let mut i = self.pos + 1;
        let skip_blanks = |mut i: usize| {
            while i < line.len() && is_blank(line[i]) {
                i += 1;
            }
            i
        };
        i = skip_blanks(i);
        let name_len = line[i..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count();
        let bad = |this: &mut Self, reason: String| {
            this.pos = this.buf.len();
            this.token(TokenKind::Error(ErrorKind::BadTag {
                line: this.line,
                reason,
            }))
        };
        if name_len == 0 {
            return bad(self, "'[' not followed by a tag name".to_string());
        }
        let name = String::from_utf8_lossy(&line[i..i + name_len]).into_owned();
        i = skip_blanks(i + name_len);
        if line.get(i) != Some(&b'"') {
            return bad(self, format!("the value of tag {name} is not in quotes"));
        }
        i += 1;
        let mut value = Vec::new();
        loop {
            match line.get(i) {
                None => {
                    return bad(
                        self,
                        format!("the value of tag {name} is not closed by '\"'"),
                    );
                }
                Some(b'\\') if matches!(line.get(i + 1), Some(b'"' | b'\\')) => {
                    value.push(line[i + 1]);
                    i += 2;
                }
                Some(b'"') => break,
                Some(&c) => {
                    value.push(c);
                    i += 1;
                }
            }
        }
        i = skip_blanks(i + 1);
        if line.get(i) != Some(&b']') {
            return bad(self, format!("tag {name} is not closed by ']'"));
        }
        self.pos = i + 1;
        let (value, lossy) = decode(&value);
        if lossy {
            self.pending
                .push_back(self.token(TokenKind::Warning(WarningKind::NotUtf8)));
        }
        self.token(TokenKind::Tag {
            name,
            value: value.trim().to_string(),
        })
    }

    /// A setup command `/FEN "..."/` on one line.
    fn setup(&mut self) -> Token {
        let start = self.pos + 1;
        match self.buf[start..].iter().position(|&b| b == b'/') {
            Some(n) => {
                self.pos = start + n + 1;
                let (s, _) = decode(&self.buf[start..start + n]);
                self.token(TokenKind::Setup(s.trim().to_string()))
            }
            None => {
                self.pos = self.buf.len();
                self.token(TokenKind::Error(ErrorKind::UnclosedSetup {
                    opened: self.line,
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        let mut lexer = Lexer::new(text.as_bytes());
        std::iter::from_fn(|| lexer.next_token())
            .map(|t| t.kind)
            .collect()
    }

    fn mv(text: &str, spaced: bool, zeros: bool) -> TokenKind {
        TokenKind::Move {
            text: text.to_string(),
            spaced,
            zeros,
        }
    }

    #[test]
    fn moves_numbers_results() {
        assert_eq!(
            kinds("1. 32-28 19x23 2... 01-06 1-0"),
            vec![
                TokenKind::Number {
                    number: 1,
                    second: false
                },
                mv("32-28", false, false),
                mv("19x23", false, false),
                TokenKind::Number {
                    number: 2,
                    second: true
                },
                mv("01-06", false, true),
                TokenKind::Result("1-0".into()),
            ]
        );
        assert_eq!(
            kinds("1- 6 47x 9 1/2-1/2"),
            vec![
                mv("1-6", true, false),
                mv("47x9", true, false),
                TokenKind::Result("1/2-1/2".into())
            ]
        );
        assert_eq!(
            kinds("1.a3b4"),
            vec![
                TokenKind::Number {
                    number: 1,
                    second: false
                },
                mv("a3-b4", false, false)
            ]
        );
    }

    #[test]
    fn marks_comments_and_lines() {
        assert_eq!(
            kinds("32-28!? 19-23(!?) $3 { a\r\n  b } - - ... *"),
            vec![
                mv("32-28", false, false),
                TokenKind::Strength("!?".into()),
                mv("19-23", false, false),
                TokenKind::Strength("!?".into()),
                TokenKind::Nag(3),
                TokenKind::Comment("a b".into()),
                TokenKind::UnknownMove,
                TokenKind::Ellipsis,
                TokenKind::Result("*".into()),
            ]
        );
        assert_eq!(
            kinds("\u{feff}% comment\r[White \"a \\\"b\\\"\"]\n%x\n(2)"),
            vec![
                TokenKind::Tag {
                    name: "White".into(),
                    value: "a \"b\"".into()
                },
                TokenKind::Open,
                TokenKind::Text {
                    text: "2".into(),
                    printable: true
                },
                TokenKind::Close,
            ]
        );
    }

    #[test]
    fn errors() {
        assert!(matches!(
            kinds("{ a { b } }")[0],
            TokenKind::Error(ErrorKind::NestedComment { line: 1, opened: 1 })
        ));
        assert!(matches!(
            kinds("{ open\n\n")[0],
            TokenKind::Error(ErrorKind::UnclosedComment { opened: 1 })
        ));
        assert!(matches!(
            kinds("[Event \"x")[0],
            TokenKind::Error(ErrorKind::BadTag { .. })
        ));
    }
}
