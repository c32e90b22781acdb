//! The auth server's configuration (GoTrue's environment, reduced to what the emulator has).

/// GoTrue's defaults unless noted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthSettings {
    /// The URL clients use (the printed `API URL`); tokens are issued by `<api_url>/auth/v1`.
    pub api_url: String,
    /// Access-token lifetime in seconds (`GOTRUE_JWT_EXP`, 3600).
    pub jwt_expiry: i64,
    /// MFA challenge lifetime in seconds (`GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION`, 300; GoTrue never
    /// goes below 300, the emulator allows less for tests).
    pub challenge_expiry: i64,
    /// An unverified factor expires this many seconds after its enrolment or its latest
    /// challenge, whichever is later (300, GoTrue's `MFA_FACTOR_EXPIRY_DURATION`).
    pub factor_expiry: i64,
    /// Challenge requests, and separately verify requests, allowed per user per minute (15).
    pub mfa_rate_limit: u32,
    /// bcrypt cost of stored passwords (GoTrue: 10; tests use the minimum, 4).
    pub password_hash_cost: u32,
    /// Per client address per five minutes, as the Supabase CLI's `[auth.rate_limit]`: sign-ins
    /// and sign-ups together (`sign_in_sign_ups`, 30).
    pub sign_in_sign_ups_limit: u32,
    /// Session refreshes (`token_refresh`, 150).
    pub token_refresh_limit: u32,
    /// OTP and MFA verifications (`token_verifications`, 30).
    pub token_verifications_limit: u32,
}

/// The Supabase CLI's `[auth.rate_limit]` defaults (per client address per five minutes).
pub const DEFAULT_SIGN_IN_SIGN_UPS_LIMIT: u32 = 30;
pub const DEFAULT_TOKEN_REFRESH_LIMIT: u32 = 150;
pub const DEFAULT_TOKEN_VERIFICATIONS_LIMIT: u32 = 30;

/// Passwords shorter than this are weak (`GOTRUE_PASSWORD_MIN_LENGTH`, 6).
pub const MIN_PASSWORD_LENGTH: usize = 6;
/// bcrypt reads at most 72 bytes, so GoTrue refuses longer passwords.
pub const MAX_PASSWORD_LENGTH: usize = 72;
/// `GOTRUE_MFA_MAX_ENROLLED_FACTORS` and `GOTRUE_MFA_MAX_VERIFIED_FACTORS`.
pub const MAX_FACTORS: usize = 10;
/// TOTP parameters GoTrue uses (pquerna/otp defaults).
pub const TOTP_PERIOD_SECONDS: u64 = 30;
pub const TOTP_DIGITS: usize = 6;
pub const TOTP_SKEW_STEPS: u8 = 1;
pub const TOTP_SECRET_BYTES: usize = 20;
/// `GOTRUE_MFA_PHONE_OTP_LENGTH` and the default SMS template.
pub const PHONE_CODE_DIGITS: usize = 6;

impl Default for AuthSettings {
    fn default() -> Self {
        AuthSettings {
            api_url: "http://127.0.0.1:54321".to_owned(),
            jwt_expiry: 3600,
            challenge_expiry: 300,
            factor_expiry: 300,
            mfa_rate_limit: 15,
            password_hash_cost: 10,
            sign_in_sign_ups_limit: DEFAULT_SIGN_IN_SIGN_UPS_LIMIT,
            token_refresh_limit: DEFAULT_TOKEN_REFRESH_LIMIT,
            token_verifications_limit: DEFAULT_TOKEN_VERIFICATIONS_LIMIT,
        }
    }
}

impl AuthSettings {
    /// The `iss` claim of access tokens, as hosted Supabase sets it.
    pub fn issuer(&self) -> String {
        format!("{}/auth/v1", self.api_url.trim_end_matches('/'))
    }

    /// The TOTP issuer when the client sends none: the host (and port) of the site URL, here the
    /// API URL.
    pub fn site_host(&self) -> &str {
        let without_scheme = self
            .api_url
            .split_once("://")
            .map_or(self.api_url.as_str(), |(_, rest)| rest);
        without_scheme
            .split('/')
            .next()
            .expect("split yields at least one piece")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issuer_and_site_host_come_from_the_api_url() {
        let settings = AuthSettings {
            api_url: "http://127.0.0.1:40123".to_owned(),
            ..AuthSettings::default()
        };
        assert_eq!(settings.issuer(), "http://127.0.0.1:40123/auth/v1");
        assert_eq!(settings.site_host(), "127.0.0.1:40123");
        let with_path = AuthSettings {
            api_url: "https://[::1]:5/".to_owned(),
            ..AuthSettings::default()
        };
        assert_eq!(with_path.issuer(), "https://[::1]:5/auth/v1");
        assert_eq!(with_path.site_host(), "[::1]:5");
    }
}
