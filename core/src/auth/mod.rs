//! Auth and MFA as supabase-js 2.109's auth client speaks them, ending in plain values: request
//! builders ([`AuthApi`], [`Mfa`]), typed responses ([`Session`], [`User`], [`Factor`], MFA
//! results), one classified [`AuthError`], and the refresh timing as pure functions
//! ([`RefreshPolicy`], [`AutoRefreshControl`]). The wasm crate performs the I/O and owns timers.

pub mod auto_refresh;
pub mod error;
pub mod jwt_claims;
pub mod mfa;
pub mod options;
pub mod refresh_policy;
pub mod requests;
pub mod session;
pub mod user;

pub use auto_refresh::{Action, AutoRefreshControl, Visibility};
pub use error::{expect_json, expect_ok, AuthError};
pub use jwt_claims::{decode_jwt_claims, JwtClaims};
pub use mfa::{
    AssuranceLevel, Challenge, ChallengeAndVerifyParams, ChallengeParams, EnrollParams, Enrolled,
    FactorLists, Mfa, UnenrollParams, Unenrolled, VerifyParams,
};
pub use options::{AuthOptions, ClientOptions};
pub use refresh_policy::{FailureCooldown, RefreshPolicy, TickDecision, TickSkip};
pub use requests::{AuthApi, Channel, PasswordCredentials, SignOutScope, SignUpCredentials};
pub use session::{parse_session_response, Session, SessionResponse, WeakPassword};
pub use user::{Factor, FactorStatus, FactorType, User};
