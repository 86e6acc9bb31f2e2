//! DXP messages: their layouts, reading and writing, and the framing of a byte stream into
//! messages.
//!
//! Every message is 1 to 127 ASCII characters followed by a NUL; the first character names
//! it and the fields follow at fixed places (numbers zero-padded):
//!
//! ```text
//! C<text>                                  CHAT
//! R01<name:32><fcol><min:3><moves:3>A      GAMEREQ from the start position
//! R01<name:32><fcol><min:3><moves:3>B<tomove><50 squares>   ... from a set-up position
//! A<name:32><code>                         GAMEACC (0 accept, 1 wrong version, 2 not this
//!                                          game, 3 no game at all)
//! M<secs:4><from:2><to:2><n:2><captured:2 each>   MOVE
//! E<reason><stop>                          GAMEEND (reason 0 unknown, 1 I lose, 2 draw,
//!                                          3 I win; stop 0 next game welcome, 1 close)
//! B<move:3><tomove>                        BACKREQ
//! K<code>                                  BACKACC (0 accept, 1 not supported, 2 decline)
//! ```
//!
//! Colours are `W` (white) and `Z` (black, Dutch zwart); squares of a set-up position are
//! `e` empty, `w`/`z` men and `W`/`Z` kings, in the order of the square numbers 1 to 50.

use std::fmt;

use damka::Color;

/// The longest message, in characters (its NUL not counted).
pub const MAX_LEN: usize = 127;

/// The width of an engine name in GAMEREQ and GAMEACC.
pub const NAME_LEN: usize = 32;

/// The protocol version damka speaks.
pub const VERSION: u8 = 1;

/// The answer to a game request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Acceptance {
    /// The game is accepted.
    Accept,
    /// The request's protocol version is not spoken.
    WrongVersion,
    /// This game is refused (another may be accepted).
    RefuseGame,
    /// No game at all.
    RefuseAll,
}

/// Why a game ends, from the sender's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// Not said.
    Unknown,
    /// The sender loses.
    ILose,
    /// A draw.
    Draw,
    /// The sender wins.
    IWin,
}

impl EndReason {
    /// The same end seen from the other side.
    pub fn mirrored(self) -> EndReason {
        match self {
            EndReason::ILose => EndReason::IWin,
            EndReason::IWin => EndReason::ILose,
            other => other,
        }
    }
}

/// The answer to a take-back request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BackAnswer {
    /// The moves are taken back.
    Accept,
    /// Taking back is not supported.
    NotSupported,
    /// The game goes on as it is.
    Decline,
}

/// One DXP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// Free text.
    Chat(String),
    /// A request to play a game (initiator to follower).
    GameReq {
        /// The protocol version (1).
        version: u8,
        /// The initiator's name (at most 32 characters, trailing blanks trimmed).
        name: String,
        /// The colour the follower plays.
        follower: Color,
        /// Minutes on each clock (0: no clock).
        minutes: u16,
        /// Moves to play in those minutes (0: the whole game).
        moves: u16,
        /// The set-up position, `None` for the start position: the side to move and the 50
        /// square characters.
        setup: Option<(Color, String)>,
    },
    /// The answer to a game request.
    GameAcc {
        /// The follower's name.
        name: String,
        /// Accepted or why not.
        code: Acceptance,
    },
    /// A move.
    Move {
        /// Seconds the move took.
        seconds: u16,
        /// The square the piece leaves.
        from: u8,
        /// The square the piece ends on.
        to: u8,
        /// The squares of the pieces taken.
        captured: Vec<u8>,
    },
    /// The end of a game (sent on one's own turn, answered with a GAMEEND).
    GameEnd {
        /// Why, for the sender.
        reason: EndReason,
        /// Whether the sender closes after this game.
        stop: bool,
    },
    /// A request to take moves back, to the given move number and side to move.
    BackReq {
        /// The move number to go on from.
        move_number: u16,
        /// The side to move there.
        to_move: Color,
    },
    /// The answer to a take-back request.
    BackAcc(BackAnswer),
}

/// Why a message could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageError {
    /// A NUL with nothing before it.
    Empty,
    /// A first character that names no message.
    UnknownType(char),
    /// A message shorter than its fields.
    Truncated {
        /// The message's name.
        kind: &'static str,
        /// Its length.
        len: usize,
        /// The length its fields need.
        needed: usize,
    },
    /// A message longer than its fields.
    TrailingText {
        /// The message's name.
        kind: &'static str,
        /// The text after its fields.
        rest: String,
    },
    /// A field whose text is not what it may be.
    BadField {
        /// The message's name.
        kind: &'static str,
        /// The field's name.
        field: &'static str,
        /// The text found.
        text: String,
    },
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageError::Empty => write!(f, "an empty message"),
            MessageError::UnknownType(c) => write!(f, "unknown message type {c:?}"),
            MessageError::Truncated { kind, len, needed } => write!(
                f,
                "{kind} message truncated: {len} characters, its fields need {needed}"
            ),
            MessageError::TrailingText { kind, rest } => {
                write!(f, "{kind} message has text after its fields: {rest:?}")
            }
            MessageError::BadField { kind, field, text } => {
                write!(f, "{kind} message: bad {field} {text:?}")
            }
        }
    }
}

impl std::error::Error for MessageError {}

/// Reads fixed-width fields of one message.
struct Fields<'a> {
    kind: &'static str,
    text: &'a str,
    at: usize,
}

impl<'a> Fields<'a> {
    fn new(kind: &'static str, text: &'a str) -> Self {
        Fields { kind, text, at: 1 }
    }

    fn take(&mut self, width: usize) -> Result<&'a str, MessageError> {
        let end = self.at + width;
        let field = self.text.get(self.at..end).ok_or(MessageError::Truncated {
            kind: self.kind,
            len: self.text.len(),
            needed: end,
        })?;
        self.at = end;
        Ok(field)
    }

    fn number(&mut self, width: usize, field: &'static str) -> Result<u16, MessageError> {
        let text = self.take(width)?;
        match text.bytes().all(|b| b.is_ascii_digit()) {
            true => text.parse().map_err(|_| self.bad(field, text)),
            false => Err(self.bad(field, text)),
        }
    }

    fn colour(&mut self, field: &'static str) -> Result<Color, MessageError> {
        match self.take(1)? {
            "W" => Ok(Color::White),
            "Z" => Ok(Color::Black),
            other => Err(self.bad(field, other)),
        }
    }

    fn code<T: Copy>(&mut self, field: &'static str, codes: &[T]) -> Result<T, MessageError> {
        let text = self.take(1)?;
        text.parse::<usize>()
            .ok()
            .and_then(|i| codes.get(i).copied())
            .ok_or_else(|| self.bad(field, text))
    }

    fn bad(&self, field: &'static str, text: &str) -> MessageError {
        MessageError::BadField {
            kind: self.kind,
            field,
            text: text.to_string(),
        }
    }

    /// The end of the message: nothing may follow the fields.
    fn end(&self) -> Result<(), MessageError> {
        match &self.text[self.at..] {
            "" => Ok(()),
            rest => Err(MessageError::TrailingText {
                kind: self.kind,
                rest: rest.to_string(),
            }),
        }
    }
}

const ACCEPTANCES: [Acceptance; 4] = [
    Acceptance::Accept,
    Acceptance::WrongVersion,
    Acceptance::RefuseGame,
    Acceptance::RefuseAll,
];
const REASONS: [EndReason; 4] = [
    EndReason::Unknown,
    EndReason::ILose,
    EndReason::Draw,
    EndReason::IWin,
];
const BACK_ANSWERS: [BackAnswer; 3] = [
    BackAnswer::Accept,
    BackAnswer::NotSupported,
    BackAnswer::Decline,
];

impl Message {
    /// Reads a message (without its NUL). Text is ASCII: the framing checked it.
    pub fn parse(text: &str) -> Result<Message, MessageError> {
        let first = text.chars().next().ok_or(MessageError::Empty)?;
        match first {
            'C' => Ok(Message::Chat(text[1..].to_string())),
            'R' => {
                let mut f = Fields::new("GAMEREQ", text);
                let version = f.number(2, "version")? as u8;
                let name = f.take(NAME_LEN)?.trim_end().to_string();
                let follower = f.colour("follower colour")?;
                let minutes = f.number(3, "minutes")?;
                let moves = f.number(3, "moves")?;
                let setup = match f.take(1)? {
                    "A" => None,
                    "B" => {
                        let to_move = f.colour("side to move")?;
                        let squares = f.take(50)?;
                        if let Some(bad) = squares.chars().find(|c| !"ewzWZ".contains(*c)) {
                            return Err(f.bad("square", &bad.to_string()));
                        }
                        Some((to_move, squares.to_string()))
                    }
                    other => return Err(f.bad("position kind", other)),
                };
                f.end()?;
                Ok(Message::GameReq {
                    version,
                    name,
                    follower,
                    minutes,
                    moves,
                    setup,
                })
            }
            'A' => {
                let mut f = Fields::new("GAMEACC", text);
                let name = f.take(NAME_LEN)?.trim_end().to_string();
                let code = f.code("acceptance code", &ACCEPTANCES)?;
                f.end()?;
                Ok(Message::GameAcc { name, code })
            }
            'M' => {
                let mut f = Fields::new("MOVE", text);
                let seconds = f.number(4, "time")?;
                let from = f.number(2, "from square")? as u8;
                let to = f.number(2, "to square")? as u8;
                let count = f.number(2, "capture count")?;
                let captured = (0..count)
                    .map(|_| f.number(2, "captured square").map(|n| n as u8))
                    .collect::<Result<Vec<u8>, _>>()?;
                f.end()?;
                Ok(Message::Move {
                    seconds,
                    from,
                    to,
                    captured,
                })
            }
            'E' => {
                let mut f = Fields::new("GAMEEND", text);
                let reason = f.code("reason", &REASONS)?;
                let stop = f.code("stop code", &[false, true])?;
                f.end()?;
                Ok(Message::GameEnd { reason, stop })
            }
            'B' => {
                let mut f = Fields::new("BACKREQ", text);
                let move_number = f.number(3, "move number")?;
                let to_move = f.colour("side to move")?;
                f.end()?;
                Ok(Message::BackReq {
                    move_number,
                    to_move,
                })
            }
            'K' => {
                let mut f = Fields::new("BACKACC", text);
                let code = f.code("acceptance code", &BACK_ANSWERS)?;
                f.end()?;
                Ok(Message::BackAcc(code))
            }
            other => Err(MessageError::UnknownType(other)),
        }
    }
}

fn colour_char(c: Color) -> char {
    match c {
        Color::White => 'W',
        Color::Black => 'Z',
    }
}

fn code_of<T: PartialEq>(codes: &[T], value: &T) -> usize {
    codes.iter().position(|c| c == value).unwrap_or(0)
}

/// A name padded (or cut) to [`NAME_LEN`] ASCII characters.
fn padded(name: &str) -> String {
    let ascii: String = name
        .chars()
        .map(|c| if c.is_ascii_graphic() { c } else { ' ' })
        .take(NAME_LEN)
        .collect();
    format!("{ascii:<NAME_LEN$}")
}

/// The message as sent, without its NUL. Numbers past their field's width are cut to it
/// (the protocol's fields are fixed); chat text is cut to fit [`MAX_LEN`].
impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::Chat(text) => {
                let ascii: String = text
                    .chars()
                    .map(|c| if c.is_ascii() && c != '\0' { c } else { '?' })
                    .take(MAX_LEN - 1)
                    .collect();
                write!(f, "C{ascii}")
            }
            Message::GameReq {
                version,
                name,
                follower,
                minutes,
                moves,
                setup,
            } => {
                write!(
                    f,
                    "R{:02}{}{}{:03}{:03}",
                    version % 100,
                    padded(name),
                    colour_char(*follower),
                    minutes % 1000,
                    moves % 1000
                )?;
                match setup {
                    None => write!(f, "A"),
                    Some((to_move, squares)) => write!(f, "B{}{squares}", colour_char(*to_move)),
                }
            }
            Message::GameAcc { name, code } => {
                write!(f, "A{}{}", padded(name), code_of(&ACCEPTANCES, code))
            }
            Message::Move {
                seconds,
                from,
                to,
                captured,
            } => {
                write!(
                    f,
                    "M{:04}{:02}{:02}{:02}",
                    seconds % 10_000,
                    from % 100,
                    to % 100,
                    captured.len() % 100
                )?;
                captured
                    .iter()
                    .try_for_each(|c| write!(f, "{:02}", c % 100))
            }
            Message::GameEnd { reason, stop } => {
                write!(f, "E{}{}", code_of(&REASONS, reason), u8::from(*stop))
            }
            Message::BackReq {
                move_number,
                to_move,
            } => write!(f, "B{:03}{}", move_number % 1000, colour_char(*to_move)),
            Message::BackAcc(code) => write!(f, "K{}", code_of(&BACK_ANSWERS, code)),
        }
    }
}

/// Why a byte stream cannot be cut into messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// More than [`MAX_LEN`] bytes without a NUL.
    Oversized(usize),
    /// A byte that is not printable ASCII, at this place of the message.
    NotAscii {
        /// The byte.
        byte: u8,
        /// Its place in the message, from 0.
        at: usize,
    },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Oversized(n) => write!(
                f,
                "a message of more than {MAX_LEN} characters ({n} bytes without a NUL)"
            ),
            FrameError::NotAscii { byte, at } => {
                write!(
                    f,
                    "byte 0x{byte:02x} at {at} of a message is not ASCII text"
                )
            }
        }
    }
}

impl std::error::Error for FrameError {}

/// Cuts a byte stream into messages at their NULs, whatever the reads' boundaries (a
/// message may come split over reads, several in one).
#[derive(Debug, Default)]
pub struct Framer {
    pending: Vec<u8>,
}

impl Framer {
    /// Adds bytes read.
    pub fn push(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
    }

    /// The next whole message, if one has come; an error when the bytes cannot be one (the
    /// stream is then beyond repair).
    pub fn next_message(&mut self) -> Option<Result<String, FrameError>> {
        let Some(end) = self.pending.iter().position(|&b| b == 0) else {
            return (self.pending.len() > MAX_LEN)
                .then_some(Err(FrameError::Oversized(self.pending.len())));
        };
        let bytes: Vec<u8> = self.pending.drain(..=end).take(end).collect();
        if bytes.len() > MAX_LEN {
            return Some(Err(FrameError::Oversized(bytes.len())));
        }
        // Peers end lines with CR or LF now and then; blanks round a message are not part of it.
        if let Some(at) = bytes
            .iter()
            .position(|&b| !(b.is_ascii_graphic() || b == b' ' || b == b'\r' || b == b'\n'))
        {
            return Some(Err(FrameError::NotAscii {
                byte: bytes[at],
                at,
            }));
        }
        let text = String::from_utf8_lossy(&bytes);
        Some(Ok(text.trim_matches(['\r', '\n']).to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_written() {
        let squares = format!("{}{}{}", "z".repeat(20), "e".repeat(10), "w".repeat(20));
        let all = [
            Message::Chat("hello there".into()),
            Message::GameReq {
                version: 1,
                name: "Tornado voor Windows 4.0".into(),
                follower: Color::White,
                minutes: 60,
                moves: 65,
                setup: None,
            },
            Message::GameReq {
                version: 1,
                name: "DXP Client".into(),
                follower: Color::Black,
                minutes: 0,
                moves: 0,
                setup: Some((Color::Black, squares)),
            },
            Message::GameAcc {
                name: "damka".into(),
                code: Acceptance::RefuseGame,
            },
            Message::Move {
                seconds: 12,
                from: 5,
                to: 25,
                captured: vec![4, 22, 12, 23, 20],
            },
            Message::GameEnd {
                reason: EndReason::IWin,
                stop: true,
            },
            Message::BackReq {
                move_number: 5,
                to_move: Color::Black,
            },
            Message::BackAcc(BackAnswer::Decline),
        ];
        for m in all {
            let text = m.to_string();
            assert!(text.len() <= MAX_LEN, "{text}");
            assert_eq!(Message::parse(&text), Ok(m), "{text}");
        }
    }

    #[test]
    fn the_protocols_examples_read() {
        assert_eq!(
            Message::parse("R01Tornado voor Windows 4.0        W060065A"),
            Ok(Message::GameReq {
                version: 1,
                name: "Tornado voor Windows 4.0".into(),
                follower: Color::White,
                minutes: 60,
                moves: 65,
                setup: None,
            })
        );
        assert_eq!(
            Message::parse("M001205250422122320"),
            Ok(Message::Move {
                seconds: 12,
                from: 5,
                to: 25,
                captured: vec![22, 12, 23, 20],
            })
        );
        assert_eq!(
            Message::parse("M00103228").unwrap_err().to_string(),
            "MOVE message truncated: 9 characters, its fields need 11"
        );
    }

    #[test]
    fn malformed_messages_say_what_is_wrong() {
        let err = |t: &str| Message::parse(t).unwrap_err().to_string();
        assert_eq!(err(""), "an empty message");
        assert_eq!(err("X12"), "unknown message type 'X'");
        assert_eq!(
            err("E2"),
            "GAMEEND message truncated: 2 characters, its fields need 3"
        );
        assert_eq!(err("E41"), "GAMEEND message: bad reason \"4\"");
        assert_eq!(
            err("E101"),
            "GAMEEND message has text after its fields: \"1\""
        );
        assert_eq!(err("M00x1322800"), "MOVE message: bad time \"00x1\"");
        assert_eq!(
            err("M0001322801"),
            "MOVE message truncated: 11 characters, its fields need 13"
        );
        assert_eq!(err("B005Q"), "BACKREQ message: bad side to move \"Q\"");
    }

    #[test]
    fn framing_joins_split_and_splits_merged_messages() {
        let mut f = Framer::default();
        f.push(b"M0001322800\0E");
        assert_eq!(f.next_message(), Some(Ok("M0001322800".into())));
        assert_eq!(f.next_message(), None);
        f.push(b"21\0CA\0");
        assert_eq!(f.next_message(), Some(Ok("E21".into())));
        assert_eq!(f.next_message(), Some(Ok("CA".into())));
        assert_eq!(f.next_message(), None);
        f.push(&[b'C'; 128]);
        assert_eq!(f.next_message(), Some(Err(FrameError::Oversized(128))));
        let mut f = Framer::default();
        f.push(b"C\xff\0");
        assert_eq!(
            f.next_message().unwrap().unwrap_err().to_string(),
            "byte 0xff at 1 of a message is not ASCII text"
        );
    }
}
