//! The flags of `/auth/v1`: token and challenge lifetimes, the password hash's cost and the rate
//! limits.

use crate::auth::settings::AuthSettings;
use crate::cli::project_file::ProjectFile;
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct AuthFlags {
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
}

impl AuthFlags {
    /// The auth server's settings for a server reachable at `api_url`: the flags, and the rate
    /// limits of the file where no flag sets them.
    pub fn settings(&self, api_url: String, file: &ProjectFile) -> AuthSettings {
        let defaults = AuthSettings::default();
        let limits = &file.auth.rate_limit;
        AuthSettings {
            api_url,
            jwt_expiry: self.jwt_expiry,
            challenge_expiry: self.mfa_challenge_expiry,
            mfa_rate_limit: self.mfa_rate_limit,
            password_hash_cost: self.password_hash_cost,
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::config::flag_groups::parse;

    #[test]
    fn auth_flags_reach_the_settings() {
        let flags: AuthFlags = parse(&[
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
        let auth = flags.settings("http://h:1".to_owned(), &ProjectFile::default());
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
                parse::<AuthFlags>(&[flag, value]).is_err(),
                "{flag} {value}"
            );
        }
    }

    #[test]
    fn auth_rate_limits_come_from_the_flag_then_the_file_then_the_clis_defaults() {
        let mut file = ProjectFile::default();
        let settings = |args: &[&str], file: &ProjectFile| {
            parse::<AuthFlags>(args)
                .unwrap()
                .settings("http://h:1".to_owned(), file)
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
            assert!(parse::<AuthFlags>(&["--auth-rate-limit-token-refresh", bad]).is_err());
        }
    }
}
