//! The shared application state every handler receives: the database, keys, clock, settings
//! and the limiters that must hold across requests.

use crate::auth::rate_limit::RateLimiter;
use crate::auth::settings::AuthSettings;
use crate::clock::Clock;
use crate::db::{Database, DbLocation, Migration, OpenError};
use crate::faults::injector::FaultInjector;
use crate::functions::settings::FunctionsSettings;
use crate::keys::Keys;
use crate::read_access::ReadAccess;
use crate::realtime::hub::{Hub, RealtimeLimits};
use crate::rest::sign_limit::{SignLimiter, SignLimits};
use crate::storage::settings::StorageSettings;
use std::net::IpAddr;
use std::sync::Arc;

/// Every service's tables, created in this order whenever the database opens.
pub const MIGRATIONS: [Migration; 3] = [
    crate::rest::schema::migrate,
    crate::auth::store::migrate,
    crate::storage::store::migrate,
];

/// The default body limit: a 1 MB message fits even if every character is escaped in JSON.
pub const DEFAULT_MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// Hosted Supabase's `[api] max_rows`: the most rows one read returns, unless configured.
pub const DEFAULT_MAX_ROWS: i64 = 1000;

/// Everything a handler needs; cheap to clone.
#[derive(Clone, Debug)]
pub struct AppState {
    pub db: Database,
    pub keys: Arc<Keys>,
    pub clock: Clock,
    pub auth: Arc<AuthSettings>,
    /// Shared by every clone, so the MFA rate limit holds across requests.
    pub limiter: Arc<RateLimiter>,
    /// The gateway refuses request bodies larger than this (413).
    pub max_body_bytes: usize,
    /// A read returns at most this many rows (PostgREST's `db-max-rows`).
    pub max_rows: i64,
    /// Who may read the table: REST reads and Realtime's changes both follow it.
    pub read_access: ReadAccess,
    /// The fault plan for tests; empty unless installed.
    pub faults: Arc<FaultInjector>,
    /// Peers whose `cf-connecting-ip` header names the client (`--trusted-proxy`).
    pub trusted_proxies: Arc<Vec<IpAddr>>,
    /// The logbook's spam limit and its counts, shared by every clone.
    pub sign_limit: Arc<SignLimiter>,
    /// Where object bytes live, the storage policies and the size cap.
    pub storage: Arc<StorageSettings>,
    /// Realtime's sockets, limits and the bus that carries committed changes to them.
    pub realtime: Arc<Hub>,
    /// `/functions/v1`: which functions exist and where their server listens.
    pub functions: Arc<FunctionsSettings>,
}

impl AppState {
    /// The system clock and GoTrue's default auth settings.
    pub fn new(db: Database, keys: Keys) -> AppState {
        AppState {
            db,
            keys: Arc::new(keys),
            clock: Clock::system(),
            auth: Arc::new(AuthSettings::default()),
            limiter: Arc::new(RateLimiter::default()),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_rows: DEFAULT_MAX_ROWS,
            read_access: ReadAccess::default(),
            faults: Arc::new(FaultInjector::default()),
            trusted_proxies: Arc::default(),
            sign_limit: Arc::new(SignLimiter::new(SignLimits::default())),
            storage: Arc::new(StorageSettings::default()),
            realtime: Arc::new(Hub::new(RealtimeLimits::default())),
            functions: Arc::default(),
        }
    }

    pub fn with_realtime_limits(self, limits: RealtimeLimits) -> AppState {
        AppState {
            realtime: Arc::new(Hub::new(limits)),
            ..self
        }
    }

    pub fn with_trusted_proxies(self, proxies: Vec<IpAddr>) -> AppState {
        AppState {
            trusted_proxies: Arc::new(proxies),
            ..self
        }
    }

    pub fn with_sign_limits(self, limits: SignLimits) -> AppState {
        AppState {
            sign_limit: Arc::new(SignLimiter::new(limits)),
            ..self
        }
    }

    pub fn with_storage(self, storage: StorageSettings) -> AppState {
        AppState {
            storage: Arc::new(storage),
            ..self
        }
    }

    pub fn with_functions(self, functions: FunctionsSettings) -> AppState {
        AppState {
            functions: Arc::new(functions),
            ..self
        }
    }

    pub fn with_max_body_bytes(self, max_body_bytes: usize) -> AppState {
        AppState {
            max_body_bytes,
            ..self
        }
    }

    pub fn with_max_rows(self, max_rows: i64) -> AppState {
        AppState { max_rows, ..self }
    }

    /// A table whose SELECT grant or policy differs from the migration's (tests take one away).
    pub fn with_read_access(self, read_access: ReadAccess) -> AppState {
        AppState {
            read_access,
            ..self
        }
    }

    pub fn with_clock(self, clock: Clock) -> AppState {
        AppState { clock, ..self }
    }

    pub fn with_auth_settings(self, settings: AuthSettings) -> AppState {
        AppState {
            auth: Arc::new(settings),
            ..self
        }
    }

    /// Opens the database at `location` and derives the keys from `jwt_secret`.
    pub fn open(location: &DbLocation, jwt_secret: &str) -> Result<AppState, OpenError> {
        Ok(AppState::new(
            Database::open(location, &MIGRATIONS)?,
            Keys::new(jwt_secret),
        ))
    }
}
