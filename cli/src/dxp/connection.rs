//! One DXP connection: messages out, messages in with a deadline.

use std::fmt;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::message::{FrameError, Message, MessageError};

/// What can go wrong on a DXP connection.
#[derive(Debug)]
pub enum DxpError {
    /// Reading or writing failed.
    Io(io::Error),
    /// The peer closed the connection.
    Closed,
    /// The peer sent nothing for this long.
    Silent(Duration),
    /// The bytes cannot be cut into messages.
    Frame(FrameError),
    /// A message that cannot be read.
    Message(MessageError, String),
}

impl fmt::Display for DxpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DxpError::Io(e) => write!(f, "connection error: {e}"),
            DxpError::Closed => write!(f, "the peer closed the connection"),
            DxpError::Silent(d) => write!(f, "the peer sent nothing for {} s", d.as_secs()),
            DxpError::Frame(e) => write!(f, "{e}"),
            DxpError::Message(e, text) => write!(f, "{e} (in {:?})", shown(text)),
        }
    }
}

impl std::error::Error for DxpError {}

/// At most 40 characters of a message, for an error.
fn shown(text: &str) -> &str {
    text.get(..40).unwrap_or(text)
}

/// The least time between two messages sent. Some peers (pydraughts) read one message per
/// receive call and would run two messages that arrive together into one.
const SEND_GAP: Duration = Duration::from_millis(50);

/// A connection to a DXP peer.
pub struct Connection {
    stream: TcpStream,
    framer: super::message::Framer,
    last_sent: Option<Instant>,
    /// Echo every message on stderr (`>` sent, `<` received).
    trace: bool,
}

impl Connection {
    /// Speaks DXP over `stream`; `trace` writes every message to stderr.
    pub fn new(stream: TcpStream, trace: bool) -> Connection {
        let _ = stream.set_nodelay(true);
        Connection {
            stream,
            framer: super::message::Framer::default(),
            last_sent: None,
            trace,
        }
    }

    /// Connects to `address` (`host:port`), waiting at most `timeout`.
    pub fn connect(address: &str, timeout: Duration, trace: bool) -> Result<Connection, String> {
        use std::net::ToSocketAddrs;
        let addrs = address
            .to_socket_addrs()
            .map_err(|e| format!("bad DXP address {address:?}: {e}"))?;
        let mut last = format!("{address:?} resolves to no address");
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, timeout) {
                Ok(stream) => return Ok(Connection::new(stream, trace)),
                Err(e) => last = format!("cannot connect to {address}: {e}"),
            }
        }
        Err(last)
    }

    /// Sends one message, at least [`SEND_GAP`] after the one before.
    pub fn send(&mut self, message: &Message) -> Result<(), DxpError> {
        if let Some(wait) = self.last_sent.map(|t| SEND_GAP.saturating_sub(t.elapsed())) {
            std::thread::sleep(wait);
        }
        let text = message.to_string();
        if self.trace {
            eprintln!("dxp > {text}");
        }
        let mut bytes = text.into_bytes();
        bytes.push(0);
        self.stream.write_all(&bytes).map_err(DxpError::Io)?;
        self.stream.flush().map_err(DxpError::Io)?;
        self.last_sent = Some(Instant::now());
        Ok(())
    }

    /// The next message, waiting at most `timeout` for it. A message that cannot be read
    /// is an error; the connection stays usable after [`DxpError::Message`] only.
    pub fn receive(&mut self, timeout: Duration) -> Result<Message, DxpError> {
        let text = self.receive_text(timeout)?;
        if self.trace {
            eprintln!("dxp < {text}");
        }
        Message::parse(&text).map_err(|e| DxpError::Message(e, text))
    }

    fn receive_text(&mut self, timeout: Duration) -> Result<String, DxpError> {
        let deadline = Instant::now().checked_add(timeout);
        let mut buf = [0u8; 512];
        loop {
            if let Some(next) = self.framer.next_message() {
                return next.map_err(DxpError::Frame);
            }
            let left = match deadline {
                Some(d) => d.saturating_duration_since(Instant::now()),
                None => Duration::from_secs(3600),
            };
            if left.is_zero() {
                return Err(DxpError::Silent(timeout));
            }
            self.stream
                .set_read_timeout(Some(left))
                .map_err(DxpError::Io)?;
            match self.stream.read(&mut buf) {
                Ok(0) => return Err(DxpError::Closed),
                Ok(n) => self.framer.push(&buf[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(DxpError::Silent(timeout));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(DxpError::Io(e)),
            }
        }
    }

    /// The peer's address, for messages.
    pub fn peer(&self) -> String {
        self.stream
            .peer_addr()
            .map_or_else(|_| "an unknown peer".to_string(), |a| a.to_string())
    }

    /// Closes both directions.
    pub fn close(&self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}
