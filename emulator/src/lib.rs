//! geocache-emulator: a local stand-in for the Supabase project behind the geocache logbook.
//!
//! Routes (each resource module owns its router; they are merged in [`app`]):
//! - `GET /`, `GET /health`: liveness, no key needed.
//! - `/rest/v1/{table}`: the PostgREST subset for `public.geocache_logs` ([`rest`]), behind the
//!   API gateway's key check ([`gateway`]).
//! - `/auth/v1/...`: the GoTrue subset: accounts, sessions, refresh tokens, MFA ([`auth`]), behind
//!   the same key check.
//! - `GET /emulator/v1/sms`: the SMS outbox for test harnesses, service-role keys only
//!   ([`auth`]).
//! - `/functions/v1/{name}`: Edge Functions, relayed to the developer's function server
//!   ([`functions`]); no key needed, each function checks its own `verify_jwt`.
//! - `/emulator/v1/faults`: the fault plan for tests, service-role keys only ([`faults`]).
//! - `/storage/v1/...`: the Storage subset: buckets, objects, public and signed URLs
//!   ([`storage`]).
//! - `/realtime/v1/websocket`, `/realtime/v1/api/broadcast`: Realtime's channels, changes of
//!   `geocache_logs` and broadcasts, behind the key check ([`realtime`]).
//!
//! Each service (rest, auth, storage, functions, realtime, faults) owns its router, the part of
//! the state its routes receive, its errors in its own wire format and its tables. Below them is
//! the ground floor every service may use, which imports none of them: the database, the root
//! errors, the gateway and keys, the HTTP plumbing ([`http`]), time, randomness and the table's
//! types. Above them are [`state`], which composes their states, the owner's data ([`data`]:
//! backups, export and import), the command line ([`cli`]) and this root, which serves.

#![cfg_attr(test, allow(clippy::unwrap_used))]

// The ground floor.
pub mod clock;
pub mod db;
pub mod error;
pub mod gateway;
pub mod http;
pub mod keys;
pub mod private_file;
pub mod random;
pub mod read_access;
pub mod table;
pub mod timestamp;

// The services.
pub mod auth;
pub mod faults;
pub mod functions;
pub mod realtime;
pub mod rest;
pub mod storage;

// What composes and starts them, and the owner's data above them all.
pub mod cli;
pub mod data;
/// Entry points for fuzzers and crash replays; only with the `fuzzing` feature.
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod state;

use crate::auth::AuthState;
use crate::cli::config::Config;
use crate::cli::project_file::ProjectFileError;
use crate::cli::secret::{self as jwt_secret, SecretError};
use crate::db::{Database, OpenError};
use crate::faults::FaultsState;
use crate::functions::FunctionsState;
use crate::gateway::Gateway;
use crate::http::server::ConnectionLimits;
use crate::realtime::RealtimeState;
use crate::rest::RestState;
use crate::state::AppState;
use crate::storage::StorageState;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::{middleware, Json, Router};
use std::future::Future;
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use tokio::net::TcpListener;

/// The whole HTTP application over `state`: each service gets its own part of it, and the
/// gateway's.
pub fn app(state: AppState) -> Router {
    let gateway = Gateway::from(&state);
    Router::new()
        .merge(http::health::router())
        .merge(rest::router(RestState::from(&state), gateway.clone()))
        .merge(auth::router(AuthState::from(&state), gateway.clone()))
        .merge(faults::router(FaultsState::from(&state), gateway.clone()))
        .merge(storage::router(StorageState::from(&state), gateway.clone()))
        .merge(realtime::router(RealtimeState::from(&state), gateway))
        .fallback(no_route)
        // The gateway enforces `--max-body-bytes`; axum's own 2 MB default would cut it short.
        .layer(DefaultBodyLimit::disable())
        .layer(middleware::from_fn(error::log_internal_errors))
        .layer(middleware::from_fn_with_state(
            FaultsState::from(&state),
            faults::middleware::inject,
        ))
        .layer(http::cors::layer())
        // Edge Functions stream their bodies through, outside the body limit and the fault plan,
        // with CORS that also exposes the relay's headers.
        .merge(functions::router(FunctionsState::from(&state)).layer(http::cors::functions_layer()))
}

/// Serves `app(state)` on `listener` with the default connection limits until `shutdown`
/// completes.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    run_with_limits(listener, state, ConnectionLimits::default(), shutdown).await
}

/// Serves `app(state)` on `listener` within `limits` until `shutdown` completes, through the
/// listener that lets the fault plan drop connections.
pub async fn run_with_limits(
    listener: TcpListener,
    state: AppState,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    http::server::serve(listener, app(state), limits, shutdown).await
}

/// What Supabase's gateway answers for a path no service owns.
async fn no_route() -> impl IntoResponse {
    (
        StatusCode::NOT_FOUND,
        Json(serde_json::json!({"message": "no Route matched with those values"})),
    )
}

#[derive(Debug)]
pub enum ServeError {
    Config(ProjectFileError),
    Secret(SecretError),
    Database(OpenError),
    Io(std::io::Error),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Config(error) => error.fmt(formatter),
            ServeError::Secret(error) => error.fmt(formatter),
            ServeError::Database(error) => error.fmt(formatter),
            ServeError::Io(error) => error.fmt(formatter),
        }
    }
}

impl std::error::Error for ServeError {}

/// Reads the config file, opens the database, finds the JWT secret, binds, prints the startup
/// lines and serves until SIGINT/SIGTERM.
pub async fn serve(config: Config) -> Result<(), ServeError> {
    let file = config.project_file().map_err(ServeError::Config)?;
    let location = config.db_location();
    let backups = config.backups.schedule(&location).map_err(|message| {
        ServeError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            message,
        ))
    })?;
    let database = Database::open(&location, &state::MIGRATIONS).map_err(ServeError::Database)?;
    let secret = config
        .keys
        .jwt_secret(&location)
        .map_err(ServeError::Secret)?;
    jwt_secret::check_exposure(&config.host, &secret.value).map_err(ServeError::Secret)?;
    eprintln!("geocache-emulator: {}", secret.source);
    let storage = config
        .storage
        .settings(&location, &file)
        .map_err(ServeError::Io)?;
    let state = AppState::new(database, config.keys.keys(&secret))
        .with_max_rows(config.rest.max_rows(&file))
        .with_storage(storage);
    // What a crash left half-written in the file store goes before anything is served.
    let swept = storage::sweep(&StorageState::from(&state))
        .await
        .map_err(|error| ServeError::Io(std::io::Error::other(error)))?;
    if swept > 0 {
        eprintln!("geocache-emulator: storage: removed {swept} file(s) a stopped upload left");
    }
    let listener = TcpListener::bind((config.host.as_str(), config.port))
        .await
        .map_err(ServeError::Io)?;
    let address = listener.local_addr().map_err(ServeError::Io)?;
    // Tokens name the URL clients use, which is known once the port is.
    let state = state
        .with_auth_settings(config.auth.settings(api_url(&config.host, address), &file))
        .with_max_body_bytes(config.server.max_body_bytes)
        .with_trusted_proxies(config.server.trusted_proxy.clone())
        .with_sign_limits(config.rest.sign_limits(&file))
        .with_realtime_limits(config.realtime.limits())
        .with_functions(config.functions.settings(&file));
    let limits = config.server.connection_limits();
    if let Some(plan) = config.faults.faults {
        eprintln!(
            "geocache-emulator: fault injection on, {} rule(s)",
            plan.rules.len()
        );
        state.faults.install(plan);
    }
    // Listening for SIGINT/SIGTERM starts before the startup lines say the server is up: a
    // signal sent before the serve loop first polled a lazily installed handler killed the
    // process instead of stopping it.
    let shutdown = shutdown_signal();
    print_startup_lines(&state).map_err(ServeError::Io)?;
    if let Some(schedule) = backups {
        tokio::spawn(data::schedule::run(schedule));
    }
    let storage = std::sync::Arc::clone(&state.storage);
    let served = run_with_limits(listener, state, limits, shutdown).await;
    // A throwaway file store (`--db :memory:`) goes with the process.
    let released = storage.release();
    served.map_err(ServeError::Io)?;
    released.map_err(ServeError::Io)
}

/// The lines `supabase status` shows, which test harnesses parse.
fn print_startup_lines(state: &AppState) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "API URL: {}", state.auth.api_url)?;
    writeln!(stdout, "anon key: {}", state.keys.anon_key())?;
    writeln!(
        stdout,
        "service_role key: {}",
        state.keys.service_role_key()
    )?;
    // The Supabase CLI's (2.45 on) names for the new-format keys.
    writeln!(stdout, "Publishable key: {}", state.keys.publishable_key())?;
    writeln!(stdout, "Secret key: {}", state.keys.secret_key())?;
    stdout.flush()
}

/// A URL a client can use: the host as given (a wildcard address becomes loopback) and the
/// bound port.
fn api_url(host: &str, address: SocketAddr) -> String {
    let port = address.port();
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) if ip.is_unspecified() => format!("http://127.0.0.1:{port}"),
        Ok(IpAddr::V6(ip)) if ip.is_unspecified() => format!("http://[::1]:{port}"),
        Ok(IpAddr::V6(ip)) => format!("http://[{ip}]:{port}"),
        _ => format!("http://{host}:{port}"),
    }
}

/// Completes on SIGINT or SIGTERM; the handlers are installed when this is called, not when
/// the future is first polled.
fn shutdown_signal() -> impl Future<Output = ()> {
    #[cfg(unix)]
    let (interrupt, terminate) = {
        use tokio::signal::unix::{signal, SignalKind};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            // A handler that cannot be installed leaves the other signal to stop the server.
            let wait = |signal: Option<tokio::signal::unix::Signal>| async move {
                match signal {
                    Some(mut signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {}
                () = wait(terminate) => {}
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_url_uses_a_reachable_host_and_the_real_port() {
        let bound: SocketAddr = "127.0.0.1:40123".parse().unwrap();
        assert_eq!(api_url("127.0.0.1", bound), "http://127.0.0.1:40123");
        assert_eq!(api_url("0.0.0.0", bound), "http://127.0.0.1:40123");
        assert_eq!(api_url("::", bound), "http://[::1]:40123");
        assert_eq!(api_url("::1", bound), "http://[::1]:40123");
        assert_eq!(api_url("localhost", bound), "http://localhost:40123");
    }
}
