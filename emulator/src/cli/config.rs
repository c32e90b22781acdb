//! Command-line flags (the contract other tools rely on; see the team brief).

use crate::db::DbLocation;
use crate::keys::DEFAULT_JWT_SECRET;
use clap::Parser;

/// A local Supabase-compatible backend for the geocache logbook: the PostgREST subset for
/// `public.geocache_logs`, stored in SQLite.
///
/// After binding it prints `API URL: ...`, `anon key: ...` and `service_role key: ...`, one per
/// line, and serves until SIGINT or SIGTERM.
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
}

impl Config {
    pub fn db_location(&self) -> DbLocation {
        DbLocation::from_arg(&self.db)
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
