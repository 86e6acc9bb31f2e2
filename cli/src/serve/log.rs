//! The access log: one line per request on stderr, `METHOD PATH?QUERY STATUS MICROSECONDSus`.

use std::io::Write;
use std::time::Instant;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;

/// Answers the request, then logs it with its status and the time taken.
pub async fn access_log(request: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let target = request
        .uri()
        .path_and_query()
        .map_or_else(|| request.uri().path().to_string(), |pq| pq.to_string());
    let response = next.run(request).await;
    // One write per line: stderr is unbuffered, and a formatted `eprintln!` writes each piece.
    let line = format!(
        "{method} {target} {} {}us\n",
        response.status().as_u16(),
        start.elapsed().as_micros()
    );
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    response
}
