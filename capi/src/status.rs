//! Status codes, the thread's last error message, and the guard every entry point runs in:
//! no panic crosses into C, every failure is a code plus a message.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};
use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a call returns (as an `int`): `DAMKA_OK`, one of the two answers that are not
/// numbers (`DAMKA_DRAW`, `DAMKA_NOT_IN_MEMORY`), or a negative error code. Every code but
/// `DAMKA_OK` also sets the message `damka_last_error` returns.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum damka_status {
    /// Success: the outputs are written.
    DAMKA_OK = 0,
    /// `damka_probe_dtw`: the position is a draw, which has no distance.
    DAMKA_DRAW = 1,
    /// The conditional probes: answering needs a table file opened or a block read from
    /// disk, which they do not do (the table may also be missing: the plain probe says).
    DAMKA_NOT_IN_MEMORY = 2,
    /// A pointer argument is NULL.
    DAMKA_ERR_NULL = -1,
    /// A string argument is not UTF-8.
    DAMKA_ERR_UTF8 = -2,
    /// Unknown variant (name or number).
    DAMKA_ERR_VARIANT = -3,
    /// A FEN or square name that cannot be read, or a FEN of an illegal position.
    DAMKA_ERR_FEN = -4,
    /// Bitboards that are not a position of the variant (off-board bits, overlapping
    /// colours, a king flag on an empty square, a man on its crowning row, a side value
    /// other than `DAMKA_WHITE` or `DAMKA_BLACK`).
    DAMKA_ERR_POSITION = -5,
    /// A position no table holds: one no game reaches, whose side not to move has no
    /// pieces (`W:W:B`, `B:W:B`, `W:WK5:B`; the conditional probe says so too), or a man
    /// where its side's men never stand (a Turkish man on its own back rank). A side to
    /// move without pieces or moves is no error: it has lost, at distance 0.
    DAMKA_ERR_NOT_COVERED = -6,
    /// A table file the answer needs is not in the directory (the position has more
    /// pieces than the tables built there).
    DAMKA_ERR_NO_TABLE = -7,
    /// A table file cannot be read or is damaged (checksum, size, header).
    DAMKA_ERR_TABLE = -8,
    /// The tables directory does not exist.
    DAMKA_ERR_DIRECTORY = -9,
    /// An internal error (a bug in damka); the message says where.
    DAMKA_ERR_INTERNAL = -10,
    /// The tables hold no rule results under the rules asked for: their rules files hold
    /// another rule set (built with `damka generate --rules NAME`); the message says which.
    DAMKA_ERR_NO_RULES = -11,
    /// A number argument out of its range (a negative count of plies); the message names
    /// it.
    DAMKA_ERR_ARGUMENT = -12,
}

thread_local! {
    static LAST_ERROR: RefCell<Cow<'static, CStr>> = const { RefCell::new(Cow::Borrowed(c"")) };
}

/// Why a call failed: its code and message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: damka_status,
    pub(crate) message: Cow<'static, CStr>,
}

impl Failure {
    /// A failure with a message built at run time.
    pub(crate) fn new(status: damka_status, message: impl Display) -> Failure {
        let text = message.to_string().replace('\0', "\\0");
        Failure {
            status,
            message: Cow::Owned(CString::new(text).unwrap_or_default()),
        }
    }

    /// A failure with a fixed message (nothing allocated: the engine-facing probes use it).
    pub(crate) const fn fixed(status: damka_status, message: &'static CStr) -> Failure {
        Failure {
            status,
            message: Cow::Borrowed(message),
        }
    }
}

fn set_last_error(message: Cow<'static, CStr>) {
    // A thread that is exiting has nowhere to keep it; its code still says what failed.
    let _ = LAST_ERROR.try_with(|last| *last.borrow_mut() = message);
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    format!("internal error in libdamka (please report it): {what}")
}

/// Runs an entry point's body: its result as a status code, a failure's message stored for
/// `damka_last_error`, a panic caught and reported as `DAMKA_ERR_INTERNAL`.
#[inline]
pub(crate) fn guard(body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => damka_status::DAMKA_OK as c_int,
        Ok(Err(failure)) => {
            set_last_error(failure.message);
            failure.status as c_int
        }
        Err(payload) => {
            let failure = Failure::new(damka_status::DAMKA_ERR_INTERNAL, panic_message(&*payload));
            set_last_error(failure.message);
            failure.status as c_int
        }
    }
}

/// [`guard`] for the entry points that return a pointer: NULL on failure.
pub(crate) fn guard_ptr<T>(body: impl FnOnce() -> Result<*mut T, Failure>) -> *mut T {
    let mut out = std::ptr::null_mut();
    guard(|| {
        out = body()?;
        Ok(())
    });
    out
}

/// A string argument: not NULL, UTF-8.
///
/// # Safety
/// `text` is NULL or points to a NUL-terminated string that stays valid and unchanged for
/// the lifetime `'a`.
pub(crate) unsafe fn str_arg<'a>(text: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if text.is_null() {
        return Err(Failure::new(
            damka_status::DAMKA_ERR_NULL,
            format!("{what} is NULL"),
        ));
    }
    // Safety: not NULL, and the caller guarantees a NUL-terminated string.
    let text = unsafe { CStr::from_ptr(text) };
    text.to_str()
        .map_err(|e| Failure::new(damka_status::DAMKA_ERR_UTF8, format!("{what}: {e}")))
}

/// A NULL pointer argument's failure.
pub(crate) fn null(what: &str) -> Failure {
    Failure::new(damka_status::DAMKA_ERR_NULL, format!("{what} is NULL"))
}

/// The message of the last call in this thread that did not return `DAMKA_OK` (an empty
/// string if there was none). Never NULL; the text stays valid until the next such call in
/// this thread. Calls that succeed leave it as it is.
#[unsafe(no_mangle)]
pub extern "C" fn damka_last_error() -> *const c_char {
    // While the thread exits (its thread-locals destroyed) there is no message to give.
    LAST_ERROR
        .try_with(|last| last.borrow().as_ptr())
        .unwrap_or(c"".as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last() -> String {
        // Safety: damka_last_error always returns a valid NUL-terminated string.
        unsafe { CStr::from_ptr(damka_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_an_internal_error_with_its_message() {
        let code = guard(|| panic!("boom at the edge"));
        assert_eq!(code, damka_status::DAMKA_ERR_INTERNAL as c_int);
        assert!(last().contains("boom at the edge"), "{}", last());
    }

    #[test]
    fn failures_set_the_message_and_success_keeps_it() {
        let code = guard(|| Err(Failure::new(damka_status::DAMKA_ERR_FEN, "bad\0FEN")));
        assert_eq!(code, damka_status::DAMKA_ERR_FEN as c_int);
        assert_eq!(last(), "bad\\0FEN");
        assert_eq!(guard(|| Ok(())), 0);
        assert_eq!(last(), "bad\\0FEN");
        let other = std::thread::spawn(last).join().expect("thread");
        assert_eq!(other, "", "the message belongs to the thread that failed");
    }

    #[test]
    fn strings_are_checked() {
        // Safety: NULL and NUL-terminated literals.
        let e = unsafe { str_arg(std::ptr::null(), "fen") }.expect_err("NULL");
        assert_eq!(e.status, damka_status::DAMKA_ERR_NULL);
        let bad = c"W:W\xff".as_ptr();
        // Safety: a NUL-terminated literal.
        let e = unsafe { str_arg(bad, "fen") }.expect_err("not UTF-8");
        assert_eq!(e.status, damka_status::DAMKA_ERR_UTF8);
        // Safety: a NUL-terminated literal.
        assert_eq!(
            unsafe { str_arg(c"W:W1".as_ptr(), "fen") }.ok(),
            Some("W:W1")
        );
    }
}
