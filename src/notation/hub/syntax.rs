//! The Hub line syntax: `command name=value name="a value with spaces" flag ...`.
//!
//! Reading follows Scan's scanner: a name is a run of characters that are not blank, not a
//! control character, not `=` and not `"`; a value is a name or a double-quoted string (which
//! may be empty and may hold blanks and `=`). Blanks around `=` are allowed. An argument
//! without `=value` is a flag; its value is `None`.

use std::fmt;

/// One line of the protocol, split into its command and arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The first word.
    pub command: String,
    /// The `name=value` pairs and flags, in order.
    pub args: Vec<(String, Option<String>)>,
}

impl Line {
    /// The value of the first argument called `name` (`Some(None)` for a flag).
    pub fn get(&self, name: &str) -> Option<Option<&str>> {
        self.args
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_deref())
    }

    /// Whether the line has an argument (flag or pair) called `name`.
    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

/// Why a line could not be split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxError {
    /// A double quote was opened and never closed.
    UnclosedQuote,
    /// Something stood where a name was expected (a stray `=` or `"`).
    ExpectedName(usize),
    /// `name=` with nothing after it.
    MissingValue(String),
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyntaxError::UnclosedQuote => f.write_str("missing closing quote"),
            SyntaxError::ExpectedName(at) => write!(f, "expected a name at column {}", at + 1),
            SyntaxError::MissingValue(name) => write!(f, "missing value after '{name}='"),
        }
    }
}

impl std::error::Error for SyntaxError {}

fn is_id(c: char) -> bool {
    !c.is_control() && !c.is_whitespace() && c != '=' && c != '"'
}

struct Scanner<'a> {
    text: &'a str,
    pos: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.pos += c.len_utf8();
        }
    }

    fn skip_blank(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn at_end(&mut self) -> bool {
        self.skip_blank();
        self.peek().is_none()
    }

    fn name(&mut self) -> Result<String, SyntaxError> {
        self.skip_blank();
        let start = self.pos;
        while self.peek().is_some_and(is_id) {
            self.bump();
        }
        if self.pos == start {
            return Err(SyntaxError::ExpectedName(start));
        }
        Ok(self.text[start..self.pos].to_string())
    }

    fn value(&mut self, name: &str) -> Result<String, SyntaxError> {
        self.skip_blank();
        match self.peek() {
            Some('"') => {
                self.bump();
                let start = self.pos;
                let len = self.text[start..]
                    .find('"')
                    .ok_or(SyntaxError::UnclosedQuote)?;
                self.pos = start + len + 1;
                Ok(self.text[start..start + len].to_string())
            }
            Some(c) if is_id(c) => self.name(),
            _ => Err(SyntaxError::MissingValue(name.to_string())),
        }
    }
}

/// Splits a line; `Ok(None)` for a blank line.
///
/// ```
/// use damka::notation::hub::syntax::parse_line;
/// let line = parse_line(r#"pos pos=Wbbe moves="32-28 19-23" start"#).unwrap().unwrap();
/// assert_eq!(line.command, "pos");
/// assert_eq!(line.get("moves"), Some(Some("32-28 19-23")));
/// assert_eq!(line.get("start"), Some(None));
/// ```
pub fn parse_line(text: &str) -> Result<Option<Line>, SyntaxError> {
    let mut s = Scanner { text, pos: 0 };
    if s.at_end() {
        return Ok(None);
    }
    let command = s.name()?;
    let mut args = Vec::new();
    while !s.at_end() {
        let name = s.name()?;
        s.skip_blank();
        let value = if s.peek() == Some('=') {
            s.bump();
            Some(s.value(&name)?)
        } else {
            None
        };
        args.push((name, value));
    }
    Ok(Some(Line { command, args }))
}

/// A value as the protocol writes it: bare when it is a name, else in double quotes.
///
/// The protocol has no escape for `"` inside a quoted value, so one is written as `'`.
pub fn quote(value: &str) -> String {
    if !value.is_empty() && value.chars().all(is_id) {
        value.to_string()
    } else {
        format!("\"{}\"", value.replace('"', "'"))
    }
}

/// `name=value`, the value quoted when it needs to be.
pub fn pair(name: &str, value: &str) -> String {
    format!("{name}={}", quote(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<(String, Option<String>)> {
        parse_line(text).unwrap().unwrap().args
    }

    fn p(name: &str, value: Option<&str>) -> (String, Option<String>) {
        (name.to_string(), value.map(str::to_string))
    }

    #[test]
    fn splits_commands_pairs_and_flags() {
        let line = parse_line("  go   think ").unwrap().unwrap();
        assert_eq!(line.command, "go");
        assert_eq!(line.args, vec![p("think", None)]);
        assert_eq!(
            args(r#"set-param name=variant value="english""#),
            vec![p("name", Some("variant")), p("value", Some("english"))]
        );
        assert_eq!(
            args(r#"level moves = 9 time=291.587 inc="""#),
            vec![
                p("moves", Some("9")),
                p("time", Some("291.587")),
                p("inc", Some(""))
            ]
        );
        assert_eq!(
            args(r#"x a="b=c d" e"#),
            vec![p("a", Some("b=c d")), p("e", None)]
        );
        assert_eq!(parse_line("   \t").unwrap(), None);
    }

    #[test]
    fn reports_malformed_lines() {
        assert_eq!(
            parse_line(r#"pos moves="32-28"#),
            Err(SyntaxError::UnclosedQuote)
        );
        assert_eq!(
            parse_line("level depth="),
            Err(SyntaxError::MissingValue("depth".into()))
        );
        assert_eq!(parse_line("=x"), Err(SyntaxError::ExpectedName(0)));
        assert_eq!(
            parse_line(r#"go "think""#),
            Err(SyntaxError::ExpectedName(3))
        );
    }

    #[test]
    fn quotes_what_needs_quoting() {
        assert_eq!(quote("damka"), "damka");
        assert_eq!(quote(""), "\"\"");
        assert_eq!(quote("32-28 17-22"), "\"32-28 17-22\"");
        assert_eq!(quote("a=b"), "\"a=b\"");
        assert_eq!(
            pair("author", "the damka authors"),
            "author=\"the damka authors\""
        );
        let line = format!("x {}", pair("v", "say \"hi\""));
        assert_eq!(args(&line), vec![p("v", Some("say 'hi'"))]);
    }
}
