//! The state of the whole emulator: the database, keys, clock, every service's settings and the
//! limiters that must hold across requests. It sits above the services: [`crate::app`] hands each
//! service only its own part ([`RestState`], [`AuthState`], ...), so no service depends on
//! another's settings through it.

use crate::auth::rate_limit::RateLimiter;
use crate::auth::settings::AuthSettings;
use crate::auth::AuthState;
use crate::clock::Clock;
use crate::db::{Database, DbLocation, Migration, OpenError};
use crate::faults::injector::FaultInjector;
use crate::faults::FaultsState;
use crate::functions::settings::FunctionsSettings;
use crate::functions::FunctionsState;
use crate::gateway::{Gateway, DEFAULT_MAX_BODY_BYTES};
use crate::http::client_address::TrustedProxies;
use crate::keys::Keys;
use crate::read_access::ReadAccess;
use crate::realtime::hub::{Hub, RealtimeLimits};
use crate::realtime::RealtimeState;
use crate::rest::sign_limit::{SignLimiter, SignLimits};
use crate::rest::{RestState, DEFAULT_MAX_ROWS};
use crate::storage::settings::StorageSettings;
use crate::storage::StorageState;
use crate::{auth, rest, storage};
use std::net::IpAddr;
use std::sync::Arc;

/// Every service's tables, created in this order whenever the database opens.
pub const MIGRATIONS: [Migration; 3] = [rest::migrate, auth::migrate, storage::migrate];

/// Everything the services need between them; cheap to clone.
#[derive(Clone, Debug)]
pub struct AppState {
    pub db: Database,
    pub keys: Arc<Keys>,
    pub clock: Clock,
    /// The auth server's settings, among them the URL tokens name.
    pub auth: Arc<AuthSettings>,
    /// The auth server's rate limits (MFA challenges and verifications per user; sign-ins,
    /// refreshes and verifications per address), shared by every clone so they hold across
    /// requests.
    pub auth_rate_limit: Arc<RateLimiter>,
    /// The gateway refuses request bodies larger than this (413).
    pub max_body_bytes: usize,
    /// A read returns at most this many rows (PostgREST's `db-max-rows`).
    pub max_rows: i64,
    /// Who may read the table: REST reads and Realtime's changes both follow it.
    pub read_access: ReadAccess,
    /// The fault plan for tests; empty unless installed.
    pub faults: Arc<FaultInjector>,
    /// Peers whose `cf-connecting-ip` header names the client (`--trusted-proxy`).
    pub trusted_proxies: TrustedProxies,
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
            auth_rate_limit: Arc::new(RateLimiter::default()),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_rows: DEFAULT_MAX_ROWS,
            read_access: ReadAccess::default(),
            faults: Arc::new(FaultInjector::default()),
            trusted_proxies: TrustedProxies::default(),
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
            trusted_proxies: TrustedProxies(Arc::new(proxies)),
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

impl From<&AppState> for Gateway {
    fn from(state: &AppState) -> Gateway {
        Gateway {
            keys: Arc::clone(&state.keys),
            clock: state.clock.clone(),
            max_body_bytes: state.max_body_bytes,
        }
    }
}

impl From<&AppState> for RestState {
    fn from(state: &AppState) -> RestState {
        RestState {
            db: state.db.clone(),
            keys: Arc::clone(&state.keys),
            clock: state.clock.clone(),
            max_rows: state.max_rows,
            read_access: state.read_access,
            sign_limit: Arc::clone(&state.sign_limit),
            realtime: Arc::clone(&state.realtime),
            trusted_proxies: state.trusted_proxies.clone(),
        }
    }
}

impl From<&AppState> for AuthState {
    fn from(state: &AppState) -> AuthState {
        AuthState {
            db: state.db.clone(),
            keys: Arc::clone(&state.keys),
            clock: state.clock.clone(),
            settings: Arc::clone(&state.auth),
            rate_limit: Arc::clone(&state.auth_rate_limit),
            trusted_proxies: state.trusted_proxies.clone(),
        }
    }
}

impl From<&AppState> for StorageState {
    fn from(state: &AppState) -> StorageState {
        StorageState {
            db: state.db.clone(),
            keys: Arc::clone(&state.keys),
            clock: state.clock.clone(),
            settings: Arc::clone(&state.storage),
            max_body_bytes: state.max_body_bytes,
        }
    }
}

impl From<&AppState> for RealtimeState {
    fn from(state: &AppState) -> RealtimeState {
        RealtimeState {
            keys: Arc::clone(&state.keys),
            clock: state.clock.clone(),
            read_access: state.read_access,
            hub: Arc::clone(&state.realtime),
        }
    }
}

impl From<&AppState> for FunctionsState {
    fn from(state: &AppState) -> FunctionsState {
        FunctionsState {
            keys: Arc::clone(&state.keys),
            clock: state.clock.clone(),
            settings: Arc::clone(&state.functions),
        }
    }
}

impl From<&AppState> for FaultsState {
    fn from(state: &AppState) -> FaultsState {
        FaultsState {
            injector: Arc::clone(&state.faults),
            max_body_bytes: state.max_body_bytes,
        }
    }
}
