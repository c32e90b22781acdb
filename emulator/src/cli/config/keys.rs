//! The flags that decide the project's keys: the JWT secret, and the new-format keys when they
//! are not derived from it.

use crate::cli::secret::{self, JwtSecret, SecretError};
use crate::db::DbLocation;
use crate::keys::{api_keys, Keys};
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct KeyFlags {
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
}

impl KeyFlags {
    /// The JWT secret: the flag, else the database's secret file, else a fresh one.
    pub fn jwt_secret(&self, db: &DbLocation) -> Result<JwtSecret, SecretError> {
        secret::resolve(self.jwt_secret.as_deref(), db)
    }

    /// The keys: legacy JWTs and new-format keys derived from `secret`, or given explicitly.
    pub fn keys(&self, secret: &JwtSecret) -> Keys {
        Keys::new(&secret.value)
            .with_api_keys(self.publishable_key.clone(), self.secret_key.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::config::flag_groups::parse;

    #[test]
    fn new_format_keys_are_derived_or_given() {
        let secret = JwtSecret {
            value: "a-secret-of-at-least-32-bytes-long".to_owned(),
            source: secret::SecretSource::Given,
        };
        let derived = parse::<KeyFlags>(&[]).unwrap().keys(&secret);
        let again = parse::<KeyFlags>(&[]).unwrap().keys(&secret);
        assert_eq!(derived.publishable_key(), again.publishable_key());
        assert_eq!(derived.secret_key(), again.secret_key());
        let given = parse::<KeyFlags>(&[
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
            assert!(parse::<KeyFlags>(&[flag, value]).is_err(), "{flag} {value}");
        }
    }

    #[test]
    fn secrets_shorter_than_32_bytes_are_refused() {
        for short in ["", "s", &"x".repeat(31)] {
            let error = parse::<KeyFlags>(&["--jwt-secret", short])
                .unwrap_err()
                .to_string();
            assert!(error.contains("at least 32"), "{error}");
        }
    }
}
