//! Refreshing the session: single-flight (everyone asking while a refresh runs shares it, no
//! cross-tab lock), retried with core's back-off, guarded against a sign-out that happened
//! meanwhile, and cooled down after a failure (auth-js `_callRefreshToken`, `_refreshAccessToken`).

use std::rc::Rc;

use futures_util::future::FutureExt;
use geocache_core::auth::refresh_policy::remove_session_after_failure;
use geocache_core::auth::{expect_json, parse_session_response, AuthError, RefreshPolicy, Session};
use gloo_timers::future::TimeoutFuture;

use super::client::{now_ms, AuthClient};
use super::events::AuthChangeEvent;

impl AuthClient {
    /// A new session for `refresh_token`, joining the refresh in flight if there is one.
    pub async fn call_refresh_token(
        self: &Rc<Self>,
        refresh_token: &str,
    ) -> Result<Session, AuthError> {
        if refresh_token.is_empty() {
            return Err(AuthError::SessionMissing);
        }
        let in_flight = self.refreshing.borrow().clone();
        if let Some(flight) = in_flight {
            return flight.await;
        }
        let cached = self
            .cooldown
            .borrow()
            .cached(refresh_token, now_ms())
            .cloned();
        if let Some(error) = cached {
            return Err(error);
        }
        let flight = Rc::clone(self)
            .refresh_flight(refresh_token.to_owned())
            .boxed_local()
            .shared();
        *self.refreshing.borrow_mut() = Some(flight.clone());
        flight.await
    }

    /// Whether a refresh is under way (the tick then skips).
    pub fn is_refreshing(&self) -> bool {
        self.refreshing.borrow().is_some()
    }

    async fn refresh_flight(self: Rc<Self>, refresh_token: String) -> Result<Session, AuthError> {
        let stored_at_start = self.stored_refresh_token();
        let epoch_at_start = self.removal_epoch.get();
        let result = match self.refresh_access_token(&refresh_token).await {
            Ok(session) => {
                // Commit guard: a sign-out (or another writer) changed the stored session while
                // the request ran; the rotated tokens must not bring the session back.
                let replaced =
                    stored_at_start.is_some() && self.stored_refresh_token() != stored_at_start;
                if replaced || self.removal_epoch.get() != epoch_at_start {
                    Err(AuthError::RefreshDiscarded)
                } else {
                    self.save_session(&session);
                    self.cooldown.borrow_mut().clear();
                    Ok(session)
                }
            }
            Err(error) => Err(error),
        };
        // Leave the flight before telling anyone, so a subscriber that refreshes again starts a
        // new request instead of waiting on this one (which waits on the subscriber).
        *self.refreshing.borrow_mut() = None;
        match &result {
            Ok(session) => self.notify(AuthChangeEvent::TokenRefreshed, Some(session)),
            Err(AuthError::RefreshDiscarded) => {}
            Err(error) => {
                let stored_expires_at = self.stored_session().map(|session| session.expires_at);
                if remove_session_after_failure(error, stored_expires_at, now_ms()) {
                    self.remove_session();
                }
                // After the removal, which clears the cache.
                self.cooldown.borrow_mut().record(
                    self.policy,
                    &refresh_token,
                    error.clone(),
                    now_ms(),
                );
            }
        }
        result
    }

    /// `POST token?grant_type=refresh_token`, retried while core's policy allows.
    async fn refresh_access_token(&self, refresh_token: &str) -> Result<Session, AuthError> {
        let request = self.api.refresh_session(refresh_token);
        let started_at = now_ms();
        let mut attempt = 0;
        loop {
            if attempt > 0 {
                TimeoutFuture::new(RefreshPolicy::retry_delay_ms(attempt)).await;
            }
            let result = expect_json(self.transport.send(&request).await)
                .and_then(|data| parse_session_response(&data, now_ms()))
                .and_then(|response| response.session.ok_or(AuthError::SessionMissing));
            match result {
                Err(error)
                    if self
                        .policy
                        .should_retry(attempt, &error, now_ms(), started_at) =>
                {
                    attempt += 1;
                }
                result => return result,
            }
        }
    }
}
