//! Command-line flags (the contract other tools rely on; see the team brief).

use crate::auth::settings::AuthSettings;
use crate::db::DbLocation;
use crate::keys::DEFAULT_JWT_SECRET;
use clap::Parser;

/// A local Supabase-compatible backend for the geocache logbook: the PostgREST subset for
/// `public.geocache_logs` and the auth server (/auth/v1: email sign-up and sign-in, refresh
/// tokens, TOTP and phone MFA, SMS codes readable at GET /emulator/v1/sms with the service_role
/// key), stored in SQLite.
///
/// After binding it prints `API URL: ...`, `anon key: ...` and `service_role key: ...`, one per
/// line, and serves until SIGINT or SIGTERM. The auth tuning flags can also be set through the
/// environment variables named below (flags win).
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
}

impl Config {
    pub fn db_location(&self) -> DbLocation {
        DbLocation::from_arg(&self.db)
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
    fn empty_secret_is_refused() {
        assert!(Config::try_parse_from(["geocache-emulator", "--jwt-secret", ""]).is_err());
    }
}
