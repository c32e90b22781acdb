//! Refreshing the session, the parts that need no client: the refresh in flight that everyone
//! asking meanwhile shares (no cross-tab lock), the cool-down after a failure, and the request
//! itself, retried with core's back-off (auth-js `_callRefreshToken`, `_refreshAccessToken`). The
//! client commits the result (see `AuthClient::call_refresh_token`).

use std::cell::{Ref, RefCell};
use std::future::Future;

use futures_util::future::{FutureExt, LocalBoxFuture, Shared};
use geocache_core::auth::{
    expect_json, parse_session_response, AuthApi, AuthError, FailureCooldown, RefreshPolicy,
    Session,
};
use gloo_timers::future::TimeoutFuture;

use super::clock::now;
use crate::transport::Transport;

/// One refresh request shared by everyone who asks while it runs.
type Flight = Shared<LocalBoxFuture<'static, Result<Session, AuthError>>>;

/// The refresh in flight, if any, and the failures to answer from cache for a while.
#[derive(Default)]
pub struct RefreshFlight {
    running: RefCell<Option<Flight>>,
    cooldown: RefCell<FailureCooldown>,
}

impl RefreshFlight {
    /// Whether a refresh is under way (the tick then skips).
    pub fn is_running(&self) -> bool {
        self.running.borrow().is_some()
    }

    /// The refresh in flight, or the failure still cached for `refresh_token`, or else starts
    /// `refresh` as the new flight. Its result, whichever it is.
    pub async fn join_or_start(
        &self,
        refresh_token: &str,
        refresh: impl Future<Output = Result<Session, AuthError>> + 'static,
    ) -> Result<Session, AuthError> {
        let in_flight = self.running.borrow().clone();
        if let Some(flight) = in_flight {
            return flight.await;
        }
        let cached = self.cooldown.borrow().cached(refresh_token, now()).cloned();
        if let Some(error) = cached {
            return Err(error);
        }
        let flight = refresh.boxed_local().shared();
        *self.running.borrow_mut() = Some(flight.clone());
        flight.await
    }

    /// Leaves the flight: whoever asks from now on starts a new request.
    pub fn land(&self) {
        *self.running.borrow_mut() = None;
    }

    /// Answers `refresh_token` with `error` for the policy's cool-down.
    pub fn record_failure(&self, policy: RefreshPolicy, refresh_token: &str, error: AuthError) {
        self.cooldown
            .borrow_mut()
            .record(policy, refresh_token, error, now());
    }

    /// Forgets cached failures (after a success, or when the session is removed).
    pub fn clear_failures(&self) {
        self.cooldown.borrow_mut().clear();
    }

    /// The cool-down, for core's tick decision.
    pub fn cooldown(&self) -> Ref<'_, FailureCooldown> {
        self.cooldown.borrow()
    }
}

/// `POST token?grant_type=refresh_token`, retried while core's policy allows.
pub async fn request_session(
    api: &AuthApi,
    transport: &Transport,
    policy: RefreshPolicy,
    refresh_token: &str,
) -> Result<Session, AuthError> {
    let request = api.refresh_session(refresh_token);
    let started_at = now();
    let mut attempt = 0;
    loop {
        if attempt > 0 {
            TimeoutFuture::new(RefreshPolicy::retry_delay_ms(attempt)).await;
        }
        let result = expect_json(transport.send(&request).await)
            .and_then(|data| parse_session_response(&data, now()))
            .and_then(|response| response.session.ok_or(AuthError::SessionMissing));
        match result {
            Err(error) if policy.should_retry(attempt, &error, now(), started_at) => {
                attempt += 1;
            }
            result => return result,
        }
    }
}
