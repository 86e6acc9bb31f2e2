//! The connections of `damka serve`, guarded so that no client can hold up the others:
//! - at most [`Limits::max_connections`] are open at once: at the cap, the one that has waited
//!   longest for a request is closed to make room for a new one, and when every one is busy
//!   with a request the new one is answered 503;
//! - a connection waiting for a request is closed after [`Limits::idle`] (counted from its
//!   opening or its last answer; an answer the client does not read counts as waiting);
//! - a request whose headers have not all come [`Limits::header`] after their first byte has
//!   its connection closed (a client sending a header line now and then).
//!
//! Each of these is logged on stderr, at most one line per kind every [`LOG_INTERVAL`]: the
//! first at once, the others of the interval counted in one line when it ends, so that a
//! flood does not flood the log.

use std::collections::HashMap;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use axum::extract::Request;
use axum::extract::connect_info::{ConnectInfo, Connected};
use axum::middleware::Next;
use axum::response::Response;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};

/// How often a kind of connection event may be logged.
pub const LOG_INTERVAL: Duration = Duration::from_secs(10);

/// How long accepting pauses after the system refused a connection (no file descriptor
/// left), so that a closed connection can free one.
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);

/// What the guard allows.
#[derive(Copy, Clone, Debug)]
pub struct Limits {
    /// Connections open at once.
    pub max_connections: usize,
    /// How long a connection may wait for a request.
    pub idle: Duration,
    /// How long a request's headers may take, from their first byte.
    pub header: Duration,
}

/// Why the guard closed a connection.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Close {
    /// It waited for a request longer than [`Limits::idle`].
    Idle,
    /// Its request headers took longer than [`Limits::header`].
    Header,
    /// The cap was reached and it had waited longest.
    Evicted,
}

/// The kinds of event the guard logs.
#[derive(Copy, Clone, Debug)]
enum Event {
    Closed(Close),
    /// The cap was reached with every connection busy: a new one was answered 503.
    Refused,
    /// The system refused a connection (no file descriptor left).
    AcceptFailed,
}

impl Event {
    const COUNT: usize = 5;

    fn slot(self) -> usize {
        match self {
            Event::Closed(Close::Idle) => 0,
            Event::Closed(Close::Header) => 1,
            Event::Closed(Close::Evicted) => 2,
            Event::Refused => 3,
            Event::AcceptFailed => 4,
        }
    }
}

/// The log of connection events, at most one line per kind every [`LOG_INTERVAL`].
struct EventLog {
    limits: Limits,
    kinds: [Mutex<Tally>; Event::COUNT],
}

/// One kind's log: when its last line was written, and the events since then not said.
#[derive(Default)]
struct Tally {
    last: Option<Instant>,
    unsaid: u64,
    /// The detail of the latest event (the system's error for a refused accept).
    detail: String,
}

impl EventLog {
    fn new(limits: Limits) -> EventLog {
        EventLog {
            limits,
            kinds: std::array::from_fn(|_| Mutex::new(Tally::default())),
        }
    }

    /// Notes an event: logged at once when its kind has had no line for an interval, else
    /// counted for the next line.
    fn note(&self, event: Event, detail: &str) {
        let now = Instant::now();
        let mut tally = lock(&self.kinds[event.slot()]);
        tally.detail = detail.to_string();
        match tally.last {
            Some(last) if now.duration_since(last) < LOG_INTERVAL => tally.unsaid += 1,
            _ => {
                tally.last = Some(now);
                write_line(&self.line(event, 1, &tally.detail));
            }
        }
    }

    /// Writes a line for each kind with events not said whose interval has ended.
    fn flush(&self) {
        let now = Instant::now();
        let kinds = [
            Event::Closed(Close::Idle),
            Event::Closed(Close::Header),
            Event::Closed(Close::Evicted),
            Event::Refused,
            Event::AcceptFailed,
        ];
        for event in kinds {
            let mut tally = lock(&self.kinds[event.slot()]);
            let ended = tally
                .last
                .is_none_or(|last| now.duration_since(last) >= LOG_INTERVAL);
            if tally.unsaid > 0 && ended {
                write_line(&self.line(event, tally.unsaid, &tally.detail));
                tally.unsaid = 0;
                tally.last = Some(now);
            }
        }
    }

    /// The line for `count` events of a kind: one, or those of the last interval.
    fn line(&self, event: Event, count: u64, detail: &str) -> String {
        let Limits {
            max_connections: cap,
            idle,
            header,
        } = self.limits;
        let what = match event {
            Event::Closed(Close::Idle) => format!(
                "closed {} idle for {} s (--idle-timeout)",
                counted(count, "a connection", "connections"),
                idle.as_secs()
            ),
            Event::Closed(Close::Header) => format!(
                "closed {} whose request headers did not come whole within {} s \
                 (--header-timeout)",
                counted(count, "a connection", "connections"),
                header.as_secs()
            ),
            Event::Closed(Close::Evicted) => format!(
                "connection cap reached ({cap} open, --max-connections): closed {} idle \
                 longest to accept new ones",
                counted(count, "the connection", "connections")
            ),
            Event::Refused => format!(
                "connection cap reached ({cap} open, --max-connections), all busy: answered \
                 {} with 503",
                counted(count, "a new connection", "new connections")
            ),
            Event::AcceptFailed => format!(
                "cannot accept a connection ({detail}{}): closing idle ones to free file \
                 descriptors; keep --max-connections ({cap}) below the open-file limit \
                 (ulimit -n) less the table files",
                match count {
                    1 => String::new(),
                    n => format!(", {n} times"),
                }
            ),
        };
        let interval = match count {
            1 => String::new(),
            _ => format!(" in the last {} s", LOG_INTERVAL.as_secs()),
        };
        format!("damka serve: {what}{interval}")
    }
}

/// `a connection` (`one`) for one, `3 connections` (`many`) for more.
fn counted(count: u64, one: &str, many: &str) -> String {
    match count {
        1 => one.to_string(),
        n => format!("{n} {many}"),
    }
}

/// Writes one line on stderr in one write, as the access log does.
fn write_line(line: &str) {
    let _ = io::stderr()
        .lock()
        .write_all(format!("{line}\n").as_bytes());
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One open connection as the guard sees it.
pub struct Connection {
    id: u64,
    state: Mutex<State>,
}

/// Where a connection stands.
struct State {
    /// Requests being answered (a handler running).
    busy: u32,
    /// Since when it has waited for a request: its opening, or its last answer.
    idle_since: Instant,
    /// When the first byte of the request being read came, once one has.
    head_since: Option<Instant>,
    /// Set once the guard closes it.
    closing: Option<Close>,
    /// The task to wake when the guard closes it.
    waker: Option<Waker>,
}

impl State {
    /// When the connection is to be closed, and why; `None` while a request is answered.
    fn deadline(&self, limits: &Limits) -> Option<(Instant, Close)> {
        match (self.busy, self.head_since) {
            (0, Some(first)) => Some((first + limits.header, Close::Header)),
            (0, None) => Some((self.idle_since + limits.idle, Close::Idle)),
            _ => None,
        }
    }
}

impl Connection {
    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Marks it closed by the guard and wakes its task, which then ends it.
    fn close(&self, why: Close) {
        let mut state = self.state();
        if state.closing.is_none() {
            state.closing = Some(why);
            if let Some(waker) = state.waker.take() {
                waker.wake();
            }
        }
    }
}

/// A connection's handle for the requests it carries ([`track`] reads it).
#[derive(Clone)]
pub struct ConnectionInfo(Arc<Connection>);

impl Connected<IncomingStream<'_, Guarded>> for ConnectionInfo {
    fn connect_info(stream: IncomingStream<'_, Guarded>) -> Self {
        ConnectionInfo(stream.io().connection.clone())
    }
}

/// Marks the request's connection busy while it is answered: no timeout closes it meanwhile,
/// and its idle time starts again when the answer is ready.
pub async fn track(request: Request, next: Next) -> Response {
    let connection = request
        .extensions()
        .get::<ConnectInfo<ConnectionInfo>>()
        .map(|info| info.0.0.clone());
    let _busy = connection.map(Busy::new);
    next.run(request).await
}

/// A request in progress on a connection; dropped when its answer is ready (or the request
/// is abandoned).
struct Busy(Arc<Connection>);

impl Busy {
    fn new(connection: Arc<Connection>) -> Busy {
        {
            let mut state = connection.state();
            state.busy += 1;
            state.head_since = None;
        }
        Busy(connection)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.busy -= 1;
        if state.busy == 0 {
            state.idle_since = Instant::now();
        }
    }
}

/// What the listener and its connections share.
struct Shared {
    limits: Limits,
    open: Mutex<Open>,
    next_id: AtomicU64,
    log: EventLog,
}

/// The open connections, by id.
type Open = HashMap<u64, Arc<Connection>>;

/// How many of the open connections the guard is closing already, and the one not busy
/// that has waited longest for a request.
fn longest_idle(open: &Open) -> (usize, Option<&Arc<Connection>>) {
    let mut closing = 0;
    let mut longest: Option<(Instant, &Arc<Connection>)> = None;
    for connection in open.values() {
        let state = connection.state();
        if state.closing.is_some() {
            closing += 1;
        } else if state.busy == 0 && longest.is_none_or(|(since, _)| state.idle_since < since) {
            longest = Some((state.idle_since, connection));
        }
    }
    (closing, longest.map(|(_, connection)| connection))
}

impl Shared {
    /// Makes room for one more connection: at the cap (not counting those closing), closes
    /// the one that has waited longest for a request; `false` when every one is busy.
    fn make_room(&self, open: &Open) -> bool {
        let (closing, longest) = longest_idle(open);
        if open.len() - closing < self.limits.max_connections {
            return true;
        }
        self.evict(longest)
    }

    /// Closes `connection` to make room; `false` without one.
    fn evict(&self, connection: Option<&Arc<Connection>>) -> bool {
        match connection {
            Some(connection) => {
                connection.close(Close::Evicted);
                self.log.note(Event::Closed(Close::Evicted), "");
                true
            }
            None => false,
        }
    }
}

/// A TCP listener whose connections are guarded ([`Limits`]).
pub struct Guarded {
    listener: TcpListener,
    shared: Arc<Shared>,
}

impl Guarded {
    /// Guards the connections of `listener`.
    pub fn new(listener: TcpListener, limits: Limits) -> Guarded {
        Guarded {
            listener,
            shared: Arc::new(Shared {
                limits,
                open: Mutex::new(HashMap::new()),
                next_id: AtomicU64::new(0),
                log: EventLog::new(limits),
            }),
        }
    }

    /// Writes, every [`LOG_INTERVAL`], the lines of the events not said yet; runs until
    /// dropped.
    pub fn log_flusher(&self) -> impl Future<Output = ()> + Send + 'static {
        let shared = Arc::downgrade(&self.shared);
        async move {
            let mut ticks = tokio::time::interval(LOG_INTERVAL);
            loop {
                ticks.tick().await;
                match shared.upgrade() {
                    Some(shared) => shared.log.flush(),
                    None => return,
                }
            }
        }
    }

    /// Takes a new connection in, closing another at the cap; `None` when every one is
    /// busy (the new one is answered 503 and closed).
    fn admit(&self, stream: TcpStream) -> Option<GuardedStream> {
        let shared = &self.shared;
        let mut open = lock(&shared.open);
        if !shared.make_room(&open) {
            drop(open);
            shared.log.note(Event::Refused, "");
            refuse(&stream, shared.limits.max_connections);
            return None;
        }
        let connection = Arc::new(Connection {
            id: shared.next_id.fetch_add(1, Ordering::Relaxed),
            state: Mutex::new(State {
                busy: 0,
                idle_since: Instant::now(),
                head_since: None,
                closing: None,
                waker: None,
            }),
        });
        open.insert(connection.id, connection.clone());
        Some(GuardedStream {
            stream,
            connection,
            shared: shared.clone(),
            timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            armed: None,
        })
    }
}

/// Answers a connection the cap leaves no room for: 503 with a JSON error, then closed.
fn refuse(stream: &TcpStream, cap: usize) {
    let body = format!(
        "{{\"error\":\"the server has {cap} connections open, all busy: try again shortly\"}}"
    );
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    // A new connection's send buffer takes it whole; if not, closing says enough.
    let _ = stream.try_write(answer.as_bytes());
}

/// Whether an accept failed for want of file descriptors (the process's or the system's).
fn out_of_descriptors(e: &io::Error) -> bool {
    // EMFILE and ENFILE on Linux and the BSDs.
    matches!(e.raw_os_error(), Some(23 | 24))
}

impl Listener for Guarded {
    type Io = GuardedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (GuardedStream, SocketAddr) {
        loop {
            match self.listener.accept().await {
                Ok((stream, addr)) => {
                    if let Some(guarded) = self.admit(stream) {
                        return (guarded, addr);
                    }
                }
                Err(e) => {
                    self.shared.log.note(Event::AcceptFailed, &e.to_string());
                    if out_of_descriptors(&e) {
                        // Under the cap, but out of descriptors: one closed frees one, unless
                        // some are closing already.
                        let open = lock(&self.shared.open);
                        if let (0, longest) = longest_idle(&open) {
                            self.shared.evict(longest);
                        }
                    }
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// A guarded connection's stream: reads and writes fail once the guard closes it (a
/// timeout, or the cap), which ends the connection.
pub struct GuardedStream {
    stream: TcpStream,
    connection: Arc<Connection>,
    shared: Arc<Shared>,
    /// Fires at the connection's deadline.
    timer: Pin<Box<Sleep>>,
    /// The deadline the timer is set to.
    armed: Option<Instant>,
}

impl GuardedStream {
    /// Why the connection is to end now, if it is: closed by the guard, or past its
    /// deadline. Otherwise the task is woken at the deadline.
    fn ended(&mut self, cx: &mut Context<'_>) -> Option<io::Error> {
        let (deadline, why) = {
            let mut state = self.connection.state();
            if let Some(why) = state.closing {
                return Some(closed(why));
            }
            if !state
                .waker
                .as_ref()
                .is_some_and(|w| w.will_wake(cx.waker()))
            {
                state.waker = Some(cx.waker().clone());
            }
            state.deadline(&self.shared.limits)?
        };
        if self.armed != Some(deadline) {
            self.timer.as_mut().reset(deadline);
            self.armed = Some(deadline);
        }
        if Instant::now() < deadline && self.timer.as_mut().poll(cx).is_pending() {
            return None;
        }
        self.connection.close(why);
        self.shared.log.note(Event::Closed(why), "");
        Some(closed(why))
    }
}

/// The error a closed connection's reads and writes give.
fn closed(why: Close) -> io::Error {
    match why {
        Close::Idle => io::Error::new(io::ErrorKind::TimedOut, "idle timeout"),
        Close::Header => io::Error::new(io::ErrorKind::TimedOut, "header timeout"),
        Close::Evicted => io::Error::new(io::ErrorKind::ConnectionAborted, "connection cap"),
    }
}

impl Drop for GuardedStream {
    fn drop(&mut self) {
        lock(&self.shared.open).remove(&self.connection.id);
    }
}

impl AsyncRead for GuardedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(e) = this.ended(cx) {
            return Poll::Ready(Err(e));
        }
        let before = buf.filled().len();
        let read = Pin::new(&mut this.stream).poll_read(cx, buf);
        if matches!(read, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            // The first bytes of a request: its headers' time starts.
            let mut state = this.connection.state();
            if state.busy == 0 && state.head_since.is_none() {
                state.head_since = Some(Instant::now());
            }
        }
        read
    }
}

impl AsyncWrite for GuardedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Some(e) = this.ended(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut this.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Some(e) = this.ended(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut this.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        max_connections: 512,
        idle: Duration::from_secs(30),
        header: Duration::from_secs(10),
    };

    #[test]
    fn a_kind_logs_one_event_then_the_count_of_an_interval() {
        let log = EventLog::new(LIMITS);
        let evicted = Event::Closed(Close::Evicted);
        assert_eq!(
            log.line(evicted, 1, ""),
            "damka serve: connection cap reached (512 open, --max-connections): closed the \
             connection idle longest to accept new ones"
        );
        assert_eq!(
            log.line(evicted, 589, ""),
            "damka serve: connection cap reached (512 open, --max-connections): closed 589 \
             connections idle longest to accept new ones in the last 10 s"
        );
        assert_eq!(
            log.line(Event::Closed(Close::Idle), 3, ""),
            "damka serve: closed 3 connections idle for 30 s (--idle-timeout) in the last 10 s"
        );
        assert_eq!(
            log.line(Event::Refused, 1, ""),
            "damka serve: connection cap reached (512 open, --max-connections), all busy: \
             answered a new connection with 503"
        );
    }

    #[test]
    fn the_deadline_is_the_idle_one_then_the_headers_none_while_busy() {
        let now = Instant::now();
        let mut state = State {
            busy: 0,
            idle_since: now,
            head_since: None,
            closing: None,
            waker: None,
        };
        assert_eq!(
            state.deadline(&LIMITS),
            Some((now + LIMITS.idle, Close::Idle))
        );
        state.head_since = Some(now + Duration::from_secs(25));
        assert_eq!(
            state.deadline(&LIMITS),
            Some((now + Duration::from_secs(35), Close::Header))
        );
        state.busy = 1;
        assert_eq!(state.deadline(&LIMITS), None);
    }
}
