//! Ctrl-C, SIGTERM and SIGHUP while a command writes files: the temporary files being
//! written ([`damka::files::AtomicFile`]) are removed before the process ends by the signal,
//! as it would have ended without a handler. The library installs no handler; the commands
//! that write outputs (`pdn fmt -o`, `analyse`) install this one.

/// Removes this process's temporary files when SIGINT, SIGTERM or SIGHUP arrives, then ends
/// the process by that signal (a shell sees exit status 130, 143 or 129). The signal handler
/// only wakes a thread, which does the rest; a handler that cannot be installed is a warning.
#[cfg(unix)]
pub fn remove_temporaries_on_signal() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;
    let mut signals = match Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(signals) => signals,
        Err(e) => {
            eprintln!("warning: no signal handler ({e}): Ctrl-C may leave temporary files");
            return;
        }
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            damka::files::remove_temporaries();
            // Ends the process by the signal; should that fail, by its shell exit status.
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(128 + signal);
        }
    });
}

/// Elsewhere the operating system's default: the process ends at once.
#[cfg(not(unix))]
pub fn remove_temporaries_on_signal() {}
