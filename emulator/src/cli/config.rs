//! Command-line flags (the contract other tools rely on; see the team brief).

use crate::auth::settings::AuthSettings;
use crate::cli::project_file::{ProjectFile, ProjectFileError};
use crate::cli::secret::{self, JwtSecret, SecretError};
use crate::db::DbLocation;
use crate::faults::plan::{self, FaultPlan};
use crate::functions::settings::{FunctionServer, FunctionSettings, FunctionsSettings};
use crate::gateway::DEFAULT_MAX_BODY_BYTES;
use crate::http::server::{
    ConnectionLimits, DEFAULT_HEADER_READ_TIMEOUT_SECONDS, DEFAULT_IDLE_TIMEOUT_SECONDS,
    DEFAULT_MAX_CONNECTIONS,
};
use crate::keys::api_keys;
use crate::keys::Keys;
use crate::realtime::hub::{
    RealtimeLimits, DEFAULT_MAX_CHANNELS as DEFAULT_REALTIME_MAX_CHANNELS,
    DEFAULT_MAX_CONNECTIONS as DEFAULT_REALTIME_MAX_CONNECTIONS,
    DEFAULT_TIMEOUT_SECONDS as DEFAULT_REALTIME_TIMEOUT_SECONDS,
};
use crate::rest::sign_limit::{
    SignLimits, DEFAULT_MAX_SIGNS_PER_ADDRESS_MINUTE, DEFAULT_MAX_SIGNS_PER_MINUTE,
    DEFAULT_MAX_SIGNS_PER_REQUEST,
};
use crate::rest::DEFAULT_MAX_ROWS;
use crate::storage::files::Files;
use crate::storage::policy::{Policies, Policy};
use crate::storage::settings::{StorageSettings, DEFAULT_MAX_FILE_SIZE};
use clap::builder::TypedValueParser;
use clap::Parser;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

/// A local Supabase-compatible backend for the geocache logbook: the PostgREST subset for
/// `public.geocache_logs`, the auth server (/auth/v1: email sign-up and sign-in, refresh
/// tokens, TOTP and phone MFA, SMS codes readable at GET /emulator/v1/sms with the service_role
/// key), Storage (/storage/v1: buckets, objects, public and signed URLs; bytes in `storage/`
/// beside the database), stored in SQLite, and Realtime (/realtime/v1/websocket: the table's
/// changes, broadcast and presence over Phoenix channels).
///
/// After binding it prints `API URL: ...`, `anon key: ...`, `service_role key: ...`,
/// `Publishable key: sb_publishable_...` and `Secret key: sb_secret_...`, one per line, and serves
/// until SIGINT or SIGTERM. The tuning flags can also be set through the environment variables
/// named below (flags win). Settings the Supabase CLI also has come from its config file
/// (--config); a flag wins over the file.
///
/// Edge Functions calls (/functions/v1/<name>) are relayed to the function server named by
/// --functions-url; the functions and their `verify_jwt` come from --config.
///
/// For tests, faults can be injected into /rest/v1 and /auth/v1 (latency, 5xx answers, dropped
/// connections, broken bodies, responses out of order) with --faults or, while running, through
/// /emulator/v1/faults (GET reads the plan and its counters, POST installs one, DELETE clears
/// it; the secret key or the service_role key in the `apikey` header). GET
/// /emulator/v1/realtime/sockets lists the open Realtime sockets and their channels, and DELETE
/// drops them all, as a restart would (same key).
#[derive(Debug, Clone, Parser)]
#[command(name = "geocache-emulator", version)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,

    /// Port to listen on; 0 picks a free port (the real one is printed).
    #[arg(long, default_value_t = 54321)]
    pub port: u16,

    /// SQLite database file (parent directories are created), or `:memory:` for a throwaway
    /// database.
    #[arg(long, default_value = ".data/emulator.sqlite3")]
    pub db: String,

    /// Secret that signs and verifies JWTs (HS256), at least 32 bytes. Without it a random secret
    /// is made on first start and kept in `jwt-secret` beside the database (readable by its owner
    /// only), so a data directory keeps its keys; `--db :memory:` gets a new one each start. The
    /// Supabase CLI's public demo secret is refused unless --host is loopback. Prefer the
    /// environment variable: `ps` shows flags to every user.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_JWT_SECRET",
        hide_env_values = true,
        value_name = "SECRET",
        value_parser = secret::parse_given
    )]
    pub jwt_secret: Option<String>,

    /// The publishable key (anon role) instead of the one derived from the JWT secret; must start
    /// with `sb_publishable_`.
    #[arg(long, value_name = "KEY", value_parser = api_keys::parse_publishable)]
    pub publishable_key: Option<String>,

    /// The secret key (service_role role) instead of the one derived from the JWT secret; must
    /// start with `sb_secret_`.
    #[arg(long, value_name = "KEY", value_parser = api_keys::parse_secret)]
    pub secret_key: Option<String>,

    /// The Supabase CLI's config file (supabase/config.toml) to read `[api] max_rows` and
    /// `[auth.rate_limit]` from; the sign limit comes from `emulator.toml` beside it, if present.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// The most rows one read returns (PostgREST's db-max-rows); writes are never capped.
    /// Default: `[api] max_rows` of --config, else 1000 as on hosted Supabase.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
    pub max_rows: Option<i64>,

    /// Lifetime of access tokens in seconds (GoTrue's JWT_EXP). Shorten it to watch clients
    /// refresh their sessions.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_JWT_EXPIRY",
        default_value_t = 3600,
        value_parser = clap::value_parser!(i64).range(1..=315_360_000)
    )]
    pub jwt_expiry: i64,

    /// Lifetime of MFA challenges in seconds. GoTrue uses 300 and never less; shorter values are
    /// for tests of expiry.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_MFA_CHALLENGE_EXPIRY",
        default_value_t = 300,
        value_parser = clap::value_parser!(i64).range(1..=86_400)
    )]
    pub mfa_challenge_expiry: i64,

    /// MFA challenge requests, and separately verify requests, allowed per user per minute
    /// (GoTrue's MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY).
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_MFA_RATE_LIMIT",
        default_value_t = 15,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub mfa_rate_limit: u32,

    /// bcrypt cost for stored passwords, 4 (fast, for tests) to 31 (GoTrue uses 10).
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_PASSWORD_HASH_COST",
        default_value_t = 10,
        value_parser = clap::value_parser!(u32).range(4..=31)
    )]
    pub password_hash_cost: u32,

    /// Request bodies larger than this many bytes are refused with 413, as the API gateway does.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_MAX_BODY_BYTES",
        default_value_t = DEFAULT_MAX_BODY_BYTES,
        value_parser = clap::value_parser!(u64).range(1..=1 << 32).map(|bytes| bytes as usize)
    )]
    pub max_body_bytes: usize,

    /// Seconds a client has to send a request's headers, from the start of the connection or the
    /// end of the previous response; a connection that trickles them is closed.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_HEADER_READ_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = DEFAULT_HEADER_READ_TIMEOUT_SECONDS,
        value_parser = clap::value_parser!(u64).range(1..=30)
    )]
    pub header_read_timeout: u64,

    /// Seconds without a byte in either direction, while a request is received or answered,
    /// after which the connection is asked to close (an exchange in flight may finish) and, after
    /// twice as long, dropped: an upload or a download that stalls. The wait for the next request
    /// on a kept-alive connection is bounded by --header-read-timeout.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_IDLE_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = DEFAULT_IDLE_TIMEOUT_SECONDS,
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub idle_timeout: u64,

    /// Connections served at once; more wait in the listen backlog until one closes.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_MAX_CONNECTIONS",
        value_name = "N",
        default_value_t = DEFAULT_MAX_CONNECTIONS,
        value_parser = clap::value_parser!(u32).range(1..=65_536).map(|n| n as usize)
    )]
    pub max_connections: usize,

    /// A fault plan to start with: JSON, or @FILE to read it from a file. The same document POST
    /// /emulator/v1/faults takes.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_FAULTS",
        value_name = "PLAN",
        value_parser = plan::parse_argument,
        long_help = FAULTS_HELP
    )]
    pub faults: Option<FaultPlan>,

    /// Sign-ins and sign-ups allowed per client address per five minutes. Default: `[auth.rate_limit]
    /// sign_in_sign_ups` of --config, else 30 as the Supabase CLI.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_AUTH_RATE_LIMIT_SIGN_IN_SIGN_UPS",
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub auth_rate_limit_sign_in_sign_ups: Option<u32>,

    /// Session refreshes allowed per client address per five minutes. Default: `[auth.rate_limit]
    /// token_refresh` of --config, else 150 as the Supabase CLI.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_AUTH_RATE_LIMIT_TOKEN_REFRESH",
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub auth_rate_limit_token_refresh: Option<u32>,

    /// OTP and MFA verifications allowed per client address per five minutes. Default:
    /// `[auth.rate_limit] token_verifications` of --config, else 30 as the Supabase CLI.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_AUTH_RATE_LIMIT_TOKEN_VERIFICATIONS",
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub auth_rate_limit_token_verifications: Option<u32>,

    /// A proxy in front of the emulator (repeatable): requests from this address are counted
    /// against the client its `cf-connecting-ip` header names. Without it every address is the
    /// socket's peer, and the header is ignored.
    #[arg(long, value_name = "ADDR")]
    pub trusted_proxy: Vec<IpAddr>,

    /// The logbook's sign limit: most entries in one anon or authenticated insert; 0 turns it off.
    /// Default: `emulator.toml` beside --config, else 10 as the migration.
    #[arg(long, value_name = "N")]
    pub sign_limit_per_request: Option<u32>,

    /// Most signs per client address per minute; 0 turns it off. Default: `emulator.toml` beside
    /// --config, else 30 as the migration.
    #[arg(long, value_name = "N")]
    pub sign_limit_per_address_minute: Option<u32>,

    /// Most signs per minute from everyone together; 0 turns it off. Default: `emulator.toml`
    /// beside --config, else 300 as the migration.
    #[arg(long, value_name = "N")]
    pub sign_limit_per_minute: Option<u32>,

    /// The developer's Edge Functions server: calls to /functions/v1/<name> are relayed to
    /// <URL>/<name>. Default: `[functions] url` of `emulator.toml` beside --config; without
    /// either, function calls are relay errors.
    #[arg(long, value_name = "URL", value_parser = FunctionServer::parse)]
    pub functions_url: Option<FunctionServer>,

    /// Limit signs from loopback clients too (they are exempt, so local use is never throttled);
    /// for tests of the limit.
    #[arg(long)]
    pub sign_limit_loopback: bool,

    /// A storage policy (repeatable): BUCKET:OPERATION:ROLE grants OPERATION (select, insert,
    /// update or delete) on the objects of BUCKET (`*`: every bucket) to ROLE (anon or
    /// authenticated). Added to `[storage] policies` of `emulator.toml` beside --config. None by
    /// default, as on a new hosted project; the service role needs none.
    #[arg(long, value_name = "BUCKET:OPERATION:ROLE", value_parser = Policy::parse)]
    pub storage_policy: Vec<Policy>,

    /// No stored object may be larger than this many bytes, whatever its bucket allows (hosted
    /// Storage's global file size limit; 50 MB on the free plan). Uploads stream to disk, so
    /// this is independent of --max-body-bytes.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_STORAGE_MAX_FILE_SIZE",
        value_name = "BYTES",
        default_value_t = DEFAULT_MAX_FILE_SIZE,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub storage_max_file_size: u64,

    /// Realtime sockets served at once (hosted Free plan: 200); a join on a socket beyond it is
    /// refused with `ConnectionRateLimitReached: Too many connected users`.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_REALTIME_MAX_CONNECTIONS",
        value_name = "N",
        default_value_t = DEFAULT_REALTIME_MAX_CONNECTIONS,
        value_parser = clap::value_parser!(u32).range(1..=65_536).map(|n| n as usize)
    )]
    pub realtime_max_connections: usize,

    /// Channels one Realtime socket may join (hosted: 100); more are refused with
    /// `ChannelRateLimitReached: Too many channels`.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_REALTIME_MAX_CHANNELS",
        value_name = "N",
        default_value_t = DEFAULT_REALTIME_MAX_CHANNELS,
        value_parser = clap::value_parser!(u32).range(1..=10_000).map(|n| n as usize)
    )]
    pub realtime_max_channels: usize,

    /// Seconds a Realtime socket may stay silent (no heartbeat, no message) before it is closed.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_REALTIME_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = DEFAULT_REALTIME_TIMEOUT_SECONDS,
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub realtime_timeout: u64,
}

const FAULTS_HELP: &str = "\
A fault plan to start with: JSON, or @FILE to read it from a file. The same document
POST /emulator/v1/faults takes:
  {\"seed\": 7, \"rules\": [RULE, ...]}
Each request to /rest/v1 or /auth/v1 is checked against every rule, in order. A RULE is
  {\"methods\": [\"GET\"], \"paths\": [\"/rest/v1/geocache_logs\", \"/auth/v1/*\"],
   \"every\": N, \"probability\": 0.25, \"limit\": N, \"apply\": true, \"fault\": FAULT}
where every field but fault is optional: methods and paths (exact, or a prefix ending in *)
default to any; every fires on the Nth, 2Nth, ... matching request; probability (seeded by
seed, default 1) and limit (most firings) narrow it further; apply (status and
drop_before_response only, default false) processes the request, committing a write, before
the fault. Latency rules add up; of the other rules the first that fires applies. A FAULT is
one of
  {\"kind\": \"latency\", \"ms\": 200}  or  {\"kind\": \"latency\", \"ms\": [50, 250]}
  {\"kind\": \"status\", \"status\": 503, \"body\": \"postgrest\" | \"plain\"}
  {\"kind\": \"drop_before_response\"}   closes the connection without answering
  {\"kind\": \"drop_mid_response\"}      sends the headers and half the body, then closes
  {\"kind\": \"truncate_body\", \"keep_bytes\": 10}   (2xx; default half the body)
  {\"kind\": \"non_json_body\", \"body\": \"<html>\", \"content_type\": \"text/html\"}   (2xx)
  {\"kind\": \"out_of_order\", \"max_hold_ms\": 5000}   holds the response until a later
      matching request has been answered
/emulator/v1 and the health checks are never faulted.";

impl Config {
    pub fn db_location(&self) -> DbLocation {
        DbLocation::from_arg(&self.db)
    }

    /// The JWT secret: the flag, else the database's secret file, else a fresh one.
    pub fn jwt_secret(&self) -> Result<JwtSecret, SecretError> {
        secret::resolve(self.jwt_secret.as_deref(), &self.db_location())
    }

    /// The keys: legacy JWTs and new-format keys derived from `secret`, or given explicitly.
    pub fn keys(&self, secret: &JwtSecret) -> Keys {
        Keys::new(&secret.value)
            .with_api_keys(self.publishable_key.clone(), self.secret_key.clone())
    }

    /// How the listener treats connections.
    pub fn connection_limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            header_read_timeout: Duration::from_secs(self.header_read_timeout),
            idle_timeout: Duration::from_secs(self.idle_timeout),
            max_connections: self.max_connections,
        }
    }

    /// Realtime's caps and its silent-socket timeout.
    pub fn realtime_limits(&self) -> RealtimeLimits {
        RealtimeLimits {
            max_connections: self.realtime_max_connections,
            max_channels: self.realtime_max_channels,
            timeout: Duration::from_secs(self.realtime_timeout),
            ..RealtimeLimits::default()
        }
    }

    /// The `--config` file's settings; none without the flag.
    pub fn project_file(&self) -> Result<ProjectFile, ProjectFileError> {
        match &self.config {
            Some(path) => ProjectFile::load(path),
            None => Ok(ProjectFile::default()),
        }
    }

    /// The row cap: the flag, else the file, else hosted Supabase's default.
    pub fn max_rows(&self, file: &ProjectFile) -> i64 {
        self.max_rows
            .or(file.api.max_rows)
            .unwrap_or(DEFAULT_MAX_ROWS)
    }

    /// The auth server's settings for a server reachable at `api_url`.
    pub fn auth_settings(&self, api_url: String) -> AuthSettings {
        AuthSettings {
            api_url,
            jwt_expiry: self.jwt_expiry,
            challenge_expiry: self.mfa_challenge_expiry,
            mfa_rate_limit: self.mfa_rate_limit,
            password_hash_cost: self.password_hash_cost,
            ..AuthSettings::default()
        }
    }
}

impl Config {
    /// Storage: object bytes under `storage/` beside a database file (a throwaway directory for
    /// `:memory:`), the file's policies and the flags'.
    pub fn storage_settings(&self, file: &ProjectFile) -> std::io::Result<StorageSettings> {
        let files = match self.db_location() {
            DbLocation::Memory => None,
            DbLocation::File(path) => Some(Files::at(
                path.parent()
                    .unwrap_or_else(|| std::path::Path::new(""))
                    .join("storage"),
            )?),
        };
        let mut policies = file.storage.policies.clone();
        policies.extend(self.storage_policy.iter().cloned());
        Ok(StorageSettings::new(
            files,
            Policies::new(policies),
            self.storage_max_file_size,
        ))
    }

    /// [`Config::auth_settings`] with the rate limits of the file where no flag sets them.
    pub fn auth_settings_with_file(&self, api_url: String, file: &ProjectFile) -> AuthSettings {
        let defaults = self.auth_settings(api_url);
        let limits = &file.auth.rate_limit;
        AuthSettings {
            sign_in_sign_ups_limit: self
                .auth_rate_limit_sign_in_sign_ups
                .or(limits.sign_in_sign_ups)
                .unwrap_or(defaults.sign_in_sign_ups_limit),
            token_refresh_limit: self
                .auth_rate_limit_token_refresh
                .or(limits.token_refresh)
                .unwrap_or(defaults.token_refresh_limit),
            token_verifications_limit: self
                .auth_rate_limit_token_verifications
                .or(limits.token_verifications)
                .unwrap_or(defaults.token_verifications_limit),
            ..defaults
        }
    }

    /// `/functions/v1`: the flag's function server, else the emulator file's; the functions the
    /// config file lists or its `functions/` directory holds, `verify_jwt` on unless turned off.
    pub fn functions(&self, file: &ProjectFile) -> FunctionsSettings {
        let defaults = FunctionSettings::default();
        FunctionsSettings {
            server: self
                .functions_url
                .clone()
                .or_else(|| file.function_server.clone()),
            listed: file
                .functions
                .iter()
                .map(|(name, section)| {
                    let settings = FunctionSettings {
                        enabled: section.enabled.unwrap_or(defaults.enabled),
                        verify_jwt: section.verify_jwt.unwrap_or(defaults.verify_jwt),
                    };
                    (name.clone(), settings)
                })
                .collect(),
            directory: file.functions_directory.clone(),
        }
    }

    /// The sign limit: each flag, else the emulator file, else the migration's default; 0 is off.
    pub fn sign_limits(&self, file: &ProjectFile) -> SignLimits {
        let pick = |flag: Option<u32>, from_file: Option<u32>, default: u32| {
            Some(flag.or(from_file).unwrap_or(default)).filter(|&limit| limit > 0)
        };
        let section = &file.sign_limit;
        SignLimits {
            max_signs_per_request: pick(
                self.sign_limit_per_request,
                section.max_signs_per_request,
                DEFAULT_MAX_SIGNS_PER_REQUEST,
            ),
            max_signs_per_address_minute: pick(
                self.sign_limit_per_address_minute,
                section.max_signs_per_address_minute,
                DEFAULT_MAX_SIGNS_PER_ADDRESS_MINUTE,
            ),
            max_signs_per_minute: pick(
                self.sign_limit_per_minute,
                section.max_signs_per_minute,
                DEFAULT_MAX_SIGNS_PER_MINUTE,
            ),
            limit_loopback: self.sign_limit_loopback,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_contract() {
        let config = Config::try_parse_from(["geocache-emulator"]).unwrap();
        assert_eq!(config.host, "127.0.0.1");
        assert_eq!(config.port, 54321);
        assert_eq!(
            config.db_location(),
            DbLocation::File(".data/emulator.sqlite3".into())
        );
        assert_eq!(config.jwt_secret, None);
        let limits = config.connection_limits();
        assert_eq!(
            limits,
            ConnectionLimits {
                header_read_timeout: Duration::from_secs(10),
                idle_timeout: Duration::from_secs(60),
                max_connections: 256,
            }
        );
        let auth = config.auth_settings("http://127.0.0.1:54321".to_owned());
        assert_eq!(auth, AuthSettings::default());
    }

    #[test]
    fn storage_lives_beside_the_database_with_the_flags_and_files_policies() {
        use crate::keys::Role;
        use crate::storage::policy::{Operation, PolicyRole};
        let directory = tempfile::tempdir().unwrap();
        let db = directory.path().join("data/emulator.sqlite3");
        let config = Config::try_parse_from([
            "geocache-emulator",
            "--db",
            db.to_str().unwrap(),
            "--storage-policy",
            "photos:select:anon",
            "--storage-max-file-size",
            "1000",
        ])
        .unwrap();
        let mut file = ProjectFile::default();
        file.storage.policies.push(Policy {
            bucket: "*".to_owned(),
            operation: Operation::Insert,
            role: PolicyRole::Authenticated,
        });
        let settings = config.storage_settings(&file).unwrap();
        assert_eq!(
            settings.files().unwrap().root(),
            directory
                .path()
                .join("data/storage")
                .canonicalize()
                .unwrap()
        );
        assert_eq!(settings.max_file_size, 1000);
        assert!(settings
            .policies
            .allows(Role::Anon, "photos", Operation::Select));
        assert!(settings
            .policies
            .allows(Role::Authenticated, "any", Operation::Insert));
        assert!(!settings
            .policies
            .allows(Role::Anon, "photos", Operation::Insert));
        assert!(Config::try_parse_from([
            "geocache-emulator",
            "--storage-policy",
            "photos:read:anon"
        ])
        .is_err());
        let defaults = Config::try_parse_from(["geocache-emulator", "--db", ":memory:"]).unwrap();
        assert_eq!(defaults.storage_max_file_size, DEFAULT_MAX_FILE_SIZE);
        assert!(defaults.storage_policy.is_empty());
    }

    #[test]
    fn auth_flags_reach_the_settings() {
        let config = Config::try_parse_from([
            "geocache-emulator",
            "--jwt-expiry",
            "5",
            "--mfa-challenge-expiry",
            "2",
            "--mfa-rate-limit",
            "3",
            "--password-hash-cost",
            "4",
        ])
        .unwrap();
        let auth = config.auth_settings("http://h:1".to_owned());
        assert_eq!(
            (
                auth.jwt_expiry,
                auth.challenge_expiry,
                auth.mfa_rate_limit,
                auth.password_hash_cost
            ),
            (5, 2, 3, 4)
        );
        assert_eq!(auth.issuer(), "http://h:1/auth/v1");
    }

    #[test]
    fn auth_flags_refuse_values_out_of_range() {
        for (flag, value) in [
            ("--jwt-expiry", "0"),
            ("--mfa-challenge-expiry", "-1"),
            ("--mfa-rate-limit", "0"),
            ("--password-hash-cost", "3"),
            ("--password-hash-cost", "32"),
        ] {
            assert!(
                Config::try_parse_from(["geocache-emulator", flag, value]).is_err(),
                "{flag} {value}"
            );
        }
    }

    #[test]
    fn flags_override_defaults() {
        let config = Config::try_parse_from([
            "geocache-emulator",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
            "--db",
            ":memory:",
            "--jwt-secret",
            "a-secret-of-at-least-32-bytes-long",
        ])
        .unwrap();
        assert_eq!(config.port, 0);
        assert_eq!(config.db_location(), DbLocation::Memory);
        assert_eq!(
            config.jwt_secret().unwrap().value,
            "a-secret-of-at-least-32-bytes-long"
        );
    }

    #[test]
    fn the_body_limit_and_the_fault_plan_come_from_flags() {
        let defaults = Config::try_parse_from(["geocache-emulator"]).unwrap();
        assert_eq!(defaults.max_body_bytes, 8 * 1024 * 1024);
        assert_eq!(defaults.faults, None);
        let config = Config::try_parse_from([
            "geocache-emulator",
            "--max-body-bytes",
            "1024",
            "--faults",
            r#"{"seed":5,"rules":[{"methods":["post"],"fault":{"kind":"drop_before_response"}}]}"#,
        ])
        .unwrap();
        assert_eq!(config.max_body_bytes, 1024);
        let plan = config.faults.unwrap();
        assert_eq!(
            (plan.seed, plan.rules[0].methods.as_slice()),
            (5, &["POST".to_owned()][..])
        );
        for (flag, value) in [
            ("--max-body-bytes", "0"),
            ("--faults", "{"),
            (
                "--faults",
                r#"{"rules":[{"fault":{"kind":"status","status":200}}]}"#,
            ),
        ] {
            assert!(
                Config::try_parse_from(["geocache-emulator", flag, value]).is_err(),
                "{flag} {value}"
            );
        }
    }

    #[test]
    fn the_row_cap_comes_from_the_flag_then_the_file_then_the_default() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut file, b"[api]\nmax_rows = 250\n").unwrap();
        let path = file.path().to_str().unwrap();
        let resolve = |args: &[&str]| {
            let config = Config::try_parse_from(["geocache-emulator"].iter().chain(args)).unwrap();
            config.max_rows(&config.project_file().unwrap())
        };
        assert_eq!(resolve(&[]), 1000);
        assert_eq!(resolve(&["--config", path]), 250);
        assert_eq!(resolve(&["--config", path, "--max-rows", "7"]), 7);
        assert_eq!(resolve(&["--max-rows", "7"]), 7);
        for bad in ["0", "-1", "x"] {
            assert!(
                Config::try_parse_from(["geocache-emulator", "--max-rows", bad]).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_bad_config_file_is_an_error_even_with_the_flag() {
        let config = Config::try_parse_from([
            "geocache-emulator",
            "--config",
            "no/such/config.toml",
            "--max-rows",
            "5",
        ])
        .unwrap();
        assert!(config.project_file().is_err());
    }

    #[test]
    fn new_format_keys_are_derived_or_given() {
        let secret = JwtSecret {
            value: "a-secret-of-at-least-32-bytes-long".to_owned(),
            source: secret::SecretSource::Given,
        };
        let derived = Config::try_parse_from(["geocache-emulator"])
            .unwrap()
            .keys(&secret);
        let again = Config::try_parse_from(["geocache-emulator"])
            .unwrap()
            .keys(&secret);
        assert_eq!(derived.publishable_key(), again.publishable_key());
        assert_eq!(derived.secret_key(), again.secret_key());
        let given = Config::try_parse_from([
            "geocache-emulator",
            "--publishable-key",
            "sb_publishable_mine",
            "--secret-key",
            "sb_secret_mine",
        ])
        .unwrap()
        .keys(&secret);
        assert_eq!(
            (given.publishable_key(), given.secret_key()),
            ("sb_publishable_mine", "sb_secret_mine")
        );
        // Explicit keys leave the legacy JWT keys alone.
        assert_eq!(given.anon_key(), derived.anon_key());
        for (flag, value) in [
            ("--publishable-key", "sb_secret_mine"),
            ("--secret-key", "sb_publishable_mine"),
            ("--secret-key", "mine"),
            ("--publishable-key", ""),
        ] {
            assert!(
                Config::try_parse_from(["geocache-emulator", flag, value]).is_err(),
                "{flag} {value}"
            );
        }
    }

    #[test]
    fn auth_rate_limits_come_from_the_flag_then_the_file_then_the_clis_defaults() {
        let mut file = ProjectFile::default();
        let settings = |args: &[&str], file: &ProjectFile| {
            Config::try_parse_from(["geocache-emulator"].iter().chain(args))
                .unwrap()
                .auth_settings_with_file("http://h:1".to_owned(), file)
        };
        let defaults = settings(&[], &file);
        assert_eq!(
            (
                defaults.sign_in_sign_ups_limit,
                defaults.token_refresh_limit,
                defaults.token_verifications_limit
            ),
            (30, 150, 30)
        );
        file.auth.rate_limit.sign_in_sign_ups = Some(5);
        file.auth.rate_limit.token_verifications = Some(6);
        let from_file = settings(&["--auth-rate-limit-token-verifications", "9"], &file);
        assert_eq!(
            (
                from_file.sign_in_sign_ups_limit,
                from_file.token_refresh_limit,
                from_file.token_verifications_limit
            ),
            (5, 150, 9)
        );
        for bad in ["0", "-1", "x"] {
            assert!(Config::try_parse_from([
                "geocache-emulator",
                "--auth-rate-limit-token-refresh",
                bad
            ])
            .is_err());
        }
    }

    #[test]
    fn secrets_shorter_than_32_bytes_are_refused() {
        for short in ["", "s", &"x".repeat(31)] {
            let error = Config::try_parse_from(["geocache-emulator", "--jwt-secret", short])
                .unwrap_err()
                .to_string();
            assert!(error.contains("at least 32"), "{error}");
        }
    }

    #[test]
    fn functions_come_from_the_flag_then_the_files() {
        use crate::cli::project_file::FunctionSection;
        let parse =
            |args: &[&str]| Config::try_parse_from(["geocache-emulator"].iter().chain(args));
        let mut file = ProjectFile {
            function_server: Some(FunctionServer::parse("http://127.0.0.1:2").unwrap()),
            ..ProjectFile::default()
        };
        file.functions.insert(
            "open".to_owned(),
            FunctionSection {
                enabled: None,
                verify_jwt: Some(false),
            },
        );
        file.functions
            .insert("plain".to_owned(), FunctionSection::default());
        let from_file = parse(&[]).unwrap().functions(&file);
        assert_eq!(
            from_file.server.map(|server| server.url()).as_deref(),
            Some("http://127.0.0.1:2")
        );
        assert_eq!(
            from_file.listed["open"],
            FunctionSettings {
                enabled: true,
                verify_jwt: false
            }
        );
        assert_eq!(from_file.listed["plain"], FunctionSettings::default());
        let flag = parse(&["--functions-url", "http://127.0.0.1:1/"])
            .unwrap()
            .functions(&file);
        assert_eq!(
            flag.server.map(|server| server.url()).as_deref(),
            Some("http://127.0.0.1:1")
        );
        assert!(parse(&["--functions-url", "https://x"]).is_err());
    }

    #[test]
    fn sign_limits_come_from_the_flag_then_the_file_then_the_migration() {
        let mut file = ProjectFile::default();
        let limits = |args: &[&str], file: &ProjectFile| {
            Config::try_parse_from(["geocache-emulator"].iter().chain(args))
                .unwrap()
                .sign_limits(file)
        };
        assert_eq!(limits(&[], &file), SignLimits::default());
        file.sign_limit.max_signs_per_request = Some(4);
        file.sign_limit.max_signs_per_minute = Some(0);
        let configured = limits(
            &[
                "--sign-limit-per-address-minute",
                "3",
                "--sign-limit-loopback",
                "--trusted-proxy",
                "10.0.0.1",
            ],
            &file,
        );
        assert_eq!(
            configured,
            SignLimits {
                max_signs_per_request: Some(4),
                max_signs_per_address_minute: Some(3),
                max_signs_per_minute: None,
                limit_loopback: true,
            }
        );
        let config = Config::try_parse_from([
            "geocache-emulator",
            "--trusted-proxy",
            "10.0.0.1",
            "--trusted-proxy",
            "::1",
        ])
        .unwrap();
        assert_eq!(
            config.trusted_proxy,
            vec![
                "10.0.0.1".parse::<IpAddr>().unwrap(),
                "::1".parse().unwrap()
            ]
        );
        assert!(Config::try_parse_from(["geocache-emulator", "--trusted-proxy", "proxy"]).is_err());
    }

    #[test]
    fn connection_limits_come_from_flags_within_bounds() {
        let config = Config::try_parse_from([
            "geocache-emulator",
            "--header-read-timeout",
            "2",
            "--idle-timeout",
            "3",
            "--max-connections",
            "4",
        ])
        .unwrap();
        assert_eq!(
            config.connection_limits(),
            ConnectionLimits {
                header_read_timeout: Duration::from_secs(2),
                idle_timeout: Duration::from_secs(3),
                max_connections: 4,
            }
        );
        // A trickled head never holds a connection longer than 30 s.
        for (flag, value) in [
            ("--header-read-timeout", "0"),
            ("--header-read-timeout", "31"),
            ("--idle-timeout", "0"),
            ("--max-connections", "0"),
        ] {
            assert!(
                Config::try_parse_from(["geocache-emulator", flag, value]).is_err(),
                "{flag} {value}"
            );
        }
    }

    #[test]
    fn realtime_limits_default_to_hosted_free_plan_and_come_from_flags() {
        let config = Config::try_parse_from(["geocache-emulator"]).unwrap();
        assert_eq!(config.realtime_limits(), RealtimeLimits::default());
        assert_eq!(
            (
                RealtimeLimits::default().max_connections,
                RealtimeLimits::default().max_channels,
                RealtimeLimits::default().timeout
            ),
            (200, 100, Duration::from_secs(60))
        );
        let config = Config::try_parse_from([
            "geocache-emulator",
            "--realtime-max-connections",
            "3",
            "--realtime-max-channels",
            "4",
            "--realtime-timeout",
            "5",
        ])
        .unwrap();
        let limits = config.realtime_limits();
        assert_eq!(
            (limits.max_connections, limits.max_channels, limits.timeout),
            (3, 4, Duration::from_secs(5))
        );
        for flag in [
            "--realtime-max-connections",
            "--realtime-max-channels",
            "--realtime-timeout",
        ] {
            assert!(
                Config::try_parse_from(["geocache-emulator", flag, "0"]).is_err(),
                "{flag}"
            );
        }
    }
}
