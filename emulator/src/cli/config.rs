//! Command-line flags (the contract other tools rely on; see the team brief).

use crate::auth::settings::AuthSettings;
use crate::cli::project_file::{ProjectFile, ProjectFileError};
use crate::db::DbLocation;
use crate::faults::plan::{self, FaultPlan};
use crate::gateway::DEFAULT_MAX_BODY_BYTES;
use crate::keys::api_keys;
use crate::keys::{Keys, DEFAULT_JWT_SECRET};
use crate::rest::DEFAULT_MAX_ROWS;
use clap::builder::TypedValueParser;
use clap::Parser;
use std::path::PathBuf;

/// A local Supabase-compatible backend for the geocache logbook: the PostgREST subset for
/// `public.geocache_logs` and the auth server (/auth/v1: email sign-up and sign-in, refresh
/// tokens, TOTP and phone MFA, SMS codes readable at GET /emulator/v1/sms with the service_role
/// key), stored in SQLite.
///
/// After binding it prints `API URL: ...`, `anon key: ...`, `service_role key: ...`,
/// `Publishable key: sb_publishable_...` and `Secret key: sb_secret_...`, one per line, and serves
/// until SIGINT or SIGTERM. The tuning flags can also be set through the environment variables
/// named below (flags win). Settings the Supabase CLI also has come from its config file
/// (--config); a flag wins over the file.
///
/// For tests, faults can be injected into /rest/v1 and /auth/v1 (latency, 5xx answers, dropped
/// connections, broken bodies, responses out of order) with --faults or, while running, through
/// /emulator/v1/faults (GET reads the plan and its counters, POST installs one, DELETE clears
/// it; the secret key or the service_role key as `apikey`).
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

    /// Secret that signs and verifies JWTs (HS256). The default is the Supabase CLI's, so the
    /// printed keys are the well-known local demo keys.
    #[arg(long, default_value = DEFAULT_JWT_SECRET, value_parser = non_empty)]
    pub jwt_secret: String,

    /// The publishable key (anon role) instead of the one derived from the JWT secret; must start
    /// with `sb_publishable_`.
    #[arg(long, value_name = "KEY", value_parser = api_keys::parse_publishable)]
    pub publishable_key: Option<String>,

    /// The secret key (service_role role) instead of the one derived from the JWT secret; must
    /// start with `sb_secret_`.
    #[arg(long, value_name = "KEY", value_parser = api_keys::parse_secret)]
    pub secret_key: Option<String>,

    /// The Supabase CLI's config file (supabase/config.toml) to read `[api] max_rows` from.
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

    /// The keys: legacy JWTs and new-format keys derived from the secret, or given explicitly.
    pub fn keys(&self) -> Keys {
        Keys::new(&self.jwt_secret)
            .with_api_keys(self.publishable_key.clone(), self.secret_key.clone())
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

fn non_empty(value: &str) -> Result<String, String> {
    if value.is_empty() {
        Err("must not be empty".to_owned())
    } else {
        Ok(value.to_owned())
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
        assert_eq!(config.jwt_secret, DEFAULT_JWT_SECRET);
        let auth = config.auth_settings("http://127.0.0.1:54321".to_owned());
        assert_eq!(auth, AuthSettings::default());
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
            "s",
        ])
        .unwrap();
        assert_eq!(config.port, 0);
        assert_eq!(config.db_location(), DbLocation::Memory);
        assert_eq!(config.jwt_secret, "s");
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
        let derived = Config::try_parse_from(["geocache-emulator"])
            .unwrap()
            .keys();
        let again = Config::try_parse_from(["geocache-emulator"])
            .unwrap()
            .keys();
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
        .keys();
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
    fn empty_secret_is_refused() {
        assert!(Config::try_parse_from(["geocache-emulator", "--jwt-secret", ""]).is_err());
    }
}
