//! `damka serve`: the tables over HTTP, a JSON API and a page to set up positions in.
//!
//! An axum server on a tokio runtime. Probes run on a bounded pool of blocking workers
//! ([`http::Pool`]), so a slow disk holds up only the requests that wait for it, never the
//! event loop. No client can hold the server up: connections are capped, and closed when
//! idle or slow to send their headers ([`connections`]). Ctrl-C (SIGINT) or SIGTERM stops the
//! server gracefully: it stops accepting, finishes the requests in flight (for at most
//! [`GRACE`]) and exits 0. Each request is logged as one line on stderr ([`log`]).

mod api;
mod connections;
mod http;
mod log;
mod page;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use damka::tablebase::Tablebase;
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;

use super::CliError;
use super::tables::{open, tables_dir, variants};
use api::RuleChoice;

/// How long the requests in flight may take to finish once a stop signal came.
const GRACE: Duration = Duration::from_secs(10);

/// Arguments of `damka serve`.
#[derive(clap::Args)]
pub struct Args {
    /// Tables directory (default: $DAMKA_TABLES, else `tables`).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Address and port to listen on (port 0: any free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
    /// Probe workers: at most this many probes run at once (default: one per CPU).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
    /// Block cache for the tables, in MiB.
    #[arg(long, default_value_t = (DEFAULT_CACHE_BYTES >> 20) as u64)]
    cache: u64,
    /// Most connections open at once. At the cap, the connection that has waited longest
    /// for a request is closed to accept a new one (a new one is answered 503 when every
    /// connection is busy). Keep it below the open-file limit (`ulimit -n`) less the table
    /// files the server opens.
    #[arg(long, value_name = "N", default_value_t = 512,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_connections: u32,
    /// Seconds a connection may wait for a request (from its opening or its last answer)
    /// before it is closed.
    #[arg(long, value_name = "SECS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    idle_timeout: u64,
    /// Seconds a request's headers may take to come whole, from their first byte, before
    /// the connection is closed.
    #[arg(long, value_name = "SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=3_600))]
    header_timeout: u64,
    /// Draw rules of the `rules` fields, by name (docs/RULES.md): the variants that have
    /// rules of that name answer under them, the others under their default. The tables'
    /// rules files must hold them (`damka generate --rules NAME`).
    #[arg(long)]
    rules: Option<String>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let dir = tables_dir(&args.tables)?;
    let cache = usize::try_from(args.cache.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
    let rules = RuleChoice::new(args.rules.as_deref()).map_err(CliError::input)?;
    let tablebase = Arc::new(open(&dir, cache)?);
    if args.rules.is_some() {
        rule_files_hold(&tablebase, &dir, rules)?;
    }
    let workers = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(2, |n| n.get()),
        usize::from,
    );
    let failed = |what: String| CliError {
        message: what,
        code: 1,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_io()
        .enable_time()
        .max_blocking_threads(workers)
        .thread_name("damka-serve")
        .build()
        .map_err(|e| failed(format!("cannot start the server runtime: {e}")))?;
    let limits = connections::Limits {
        max_connections: args.max_connections as usize,
        idle: Duration::from_secs(args.idle_timeout),
        header: Duration::from_secs(args.header_timeout),
    };
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .map_err(|e| failed(format!("cannot listen on {}: {e}", args.bind)))?;
        let local = listener
            .local_addr()
            .map_err(|e| failed(format!("cannot listen on {}: {e}", args.bind)))?;
        eprintln!(
            "damka serve: listening on http://{local}/ (tables {}, {workers} probe workers, \
             at most {} connections, idle timeout {} s, header timeout {} s)",
            dir.display(),
            args.max_connections,
            args.idle_timeout,
            args.header_timeout
        );
        let listener = connections::Guarded::new(listener, limits);
        tokio::spawn(listener.log_flusher());
        let app = http::router(http::Pool::new(tablebase, dir, rules, workers))
            .into_make_service_with_connect_info::<connections::ConnectionInfo>();
        let (stopping, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = axum::serve(listener, app).with_graceful_shutdown(async move {
            stop_signal().await;
            let _ = stopping.send(());
        });
        // After the signal, connections still open past the grace period are dropped.
        let grace = async move {
            if stopped.await.is_ok() {
                tokio::time::sleep(GRACE).await;
            } else {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            done = server => done.map_err(|e| failed(format!("server failed: {e}"))),
            () = grace => {
                eprintln!(
                    "damka serve: connections still open after {} s, closing them",
                    GRACE.as_secs()
                );
                Ok(())
            }
        }
    })?;
    eprintln!("damka serve: stopped");
    Ok(())
}

/// Refuses to start when a variant's rules files hold another rule set than the one its
/// answers follow: every `rules` field of that variant would be null.
fn rule_files_hold(tb: &Tablebase, dir: &Path, rules: RuleChoice) -> Result<(), CliError> {
    for variant in variants(dir, None) {
        let wanted = rules.for_variant(variant);
        let held = (tb.store().rule_set(variant)).map_err(|e| CliError::input(e.to_string()))?;
        if let Some(held) = held
            && held.name != wanted.name
        {
            return Err(CliError::input(format!(
                "the {variant} rules files of {} hold {}, not {} (build them with \
                 damka generate --variant {variant} --rules {} into another directory)",
                dir.display(),
                held.name,
                wanted.name,
                wanted.name
            )));
        }
    }
    Ok(())
}

/// Waits for Ctrl-C (SIGINT) or, on Unix, SIGTERM, and says which came.
async fn stop_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    let name = tokio::select! {
        () = interrupt => "interrupt",
        () = terminate => "terminate signal",
    };
    eprintln!("damka serve: {name}, finishing the requests in flight");
}
