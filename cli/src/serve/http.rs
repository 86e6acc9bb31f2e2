//! The routes: the page, the JSON endpoints, JSON errors for everything else; and the pool of
//! probe workers the endpoints that read tables run on.

use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use damka::tablebase::Tablebase;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use super::api::{self, ApiError, RuleChoice};
use super::{connections, log, page};

/// The probe workers: at most `workers` jobs at once, each on a blocking thread, the rest
/// waiting (asynchronously, in order) for a permit.
#[derive(Clone)]
pub struct Pool {
    tablebase: Arc<Tablebase>,
    dir: Arc<PathBuf>,
    rules: RuleChoice,
    permits: Arc<Semaphore>,
}

impl Pool {
    /// A pool of `workers` over the tables of `dir`, answering under the draw rules `rules`.
    pub fn new(tablebase: Arc<Tablebase>, dir: PathBuf, rules: RuleChoice, workers: usize) -> Pool {
        Pool {
            tablebase,
            dir: Arc::new(dir),
            rules,
            permits: Arc::new(Semaphore::new(workers.max(1))),
        }
    }

    /// Runs `job` on a worker once one is free.
    async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Tablebase, &FsPath) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ApiError::Internal("the server is stopping".into()))?;
        let (tablebase, dir) = (self.tablebase.clone(), self.dir.clone());
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            job(&tablebase, &dir)
        })
        .await
        .map_err(|e| ApiError::Internal(format!("the probe failed: {e}")))?
    }
}

/// Every route of the server, each request logged.
pub fn router(pool: Pool) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/api/v1/status", get(status))
        .route("/api/v1/{variant}", get(probe))
        .route("/api/v1/{variant}/mainline", get(mainline))
        .route("/api/v1/{variant}/board", get(board))
        .fallback(not_found)
        .method_not_allowed_fallback(not_allowed)
        .with_state(pool)
        .layer(axum::middleware::from_fn(connections::track))
        .layer(axum::middleware::from_fn(log::access_log))
}

/// The query of the position endpoints.
#[derive(Deserialize)]
struct FenQuery {
    fen: Option<String>,
}

/// The variant and FEN of a request, or the 400 that says what is wrong with them.
fn request(
    variant: Result<Path<String>, PathRejection>,
    query: Result<Query<FenQuery>, QueryRejection>,
) -> Result<(damka::Variant, Option<String>), ApiError> {
    let Path(name) = variant.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let Query(query) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    Ok((api::variant(&name)?, query.fen))
}

async fn probe(
    State(pool): State<Pool>,
    variant: Result<Path<String>, PathRejection>,
    query: Result<Query<FenQuery>, QueryRejection>,
) -> Response {
    let rules = pool.rules;
    position_job(pool, variant, query, move |tb, variant, fen| {
        api::probe(tb, variant, fen, rules)
    })
    .await
}

async fn mainline(
    State(pool): State<Pool>,
    variant: Result<Path<String>, PathRejection>,
    query: Result<Query<FenQuery>, QueryRejection>,
) -> Response {
    position_job(pool, variant, query, api::mainline).await
}

/// Answers a request for a variant and a FEN with `job`, run on the probe workers.
async fn position_job<T: Serialize + Send + 'static>(
    pool: Pool,
    variant: Result<Path<String>, PathRejection>,
    query: Result<Query<FenQuery>, QueryRejection>,
    job: impl FnOnce(&Tablebase, damka::Variant, Option<&str>) -> Result<T, ApiError> + Send + 'static,
) -> Response {
    let answer = match request(variant, query) {
        Ok((variant, fen)) => {
            pool.run(move |tb, _| job(tb, variant, fen.as_deref()))
                .await
        }
        Err(e) => Err(e),
    };
    json(answer)
}

async fn board(
    variant: Result<Path<String>, PathRejection>,
    query: Result<Query<FenQuery>, QueryRejection>,
) -> Response {
    json(request(variant, query).and_then(|(variant, fen)| api::board(variant, fen.as_deref())))
}

async fn status(State(pool): State<Pool>) -> Response {
    json(pool.run(|_, dir| api::status(dir)).await)
}

async fn index() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        page::html(),
    )
        .into_response()
}

async fn not_found(uri: Uri) -> Response {
    json::<()>(Err(ApiError::NotFound(format!(
        "no such page: {} (the API is under /api/v1/)",
        uri.path()
    ))))
}

async fn not_allowed(method: Method, uri: Uri) -> Response {
    let mut response = error_body(
        StatusCode::METHOD_NOT_ALLOWED,
        &format!("{method} is not allowed on {}: use GET", uri.path()),
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    response
}

/// The answer as JSON, or the error's status with `{"error": ...}` (a position outside the
/// tables with what is missing and its moves, [`api::Missing`]).
fn json<T: Serialize>(answer: Result<T, ApiError>) -> Response {
    let (status, message) = match answer {
        Ok(value) => return body(StatusCode::OK, &value),
        Err(ApiError::NotInTables(missing)) => return body(StatusCode::NOT_FOUND, &missing),
        Err(ApiError::BadRequest(m)) => (StatusCode::BAD_REQUEST, m),
        Err(ApiError::NotFound(m)) => (StatusCode::NOT_FOUND, m),
        Err(ApiError::Internal(m)) => (StatusCode::INTERNAL_SERVER_ERROR, m),
    };
    error_body(status, &message)
}

/// `value` as JSON under `status`.
fn body<T: Serialize>(status: StatusCode, value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(body) => json_response(status, body),
        Err(e) => error_body(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("cannot write the answer: {e}"),
        ),
    }
}

/// `{"error": message}` under `status`.
fn error_body(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({ "error": message });
    json_response(status, body.to_string().into_bytes())
}

fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        body,
    )
        .into_response()
}
