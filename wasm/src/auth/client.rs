//! The auth state one client shares (`Rc`) between `client.auth`, `auth.mfa`, the logbook calls
//! and its own timers. It owns four parts, each with its own small API: the [`SessionStore`], the
//! [`RefreshFlight`], the [`AutoRefresh`] (which holds only a `Weak` back to it) and the
//! [`Subscribers`]; this file runs the flows over them. The flows mirror auth-js 2.109's
//! GoTrueClient; the decisions are core's.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use futures_util::future::{FutureExt, LocalBoxFuture, Shared};
use geocache_core::auth::options::TickLengthError;
use geocache_core::auth::refresh_policy::{access_token_expired, remove_session_after_failure};
use geocache_core::auth::{
    decode_jwt_claims, expect_json, expect_ok, parse_session_response, AuthApi, AuthError,
    AuthOptions, PasswordCredentials, RefreshPolicy, Session, SessionResponse, SignOutScope,
    SignUpCredentials, TickDecision, User,
};
use geocache_core::{ClientConfig, UnixTime};
use serde::Deserialize;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::spawn_local;

use super::auto_refresh::{AutoRefresh, RefreshTarget, TICK_FAILED_MESSAGE};
use super::clock::now;
use super::events::{AuthChangeEvent, Subscribers};
use super::refresh::{request_session, RefreshFlight};
use super::session_store::{NotASession, SessionStore};
use crate::error::ClientError;
use crate::js;
use crate::transport::Transport;

pub struct AuthClient {
    api: AuthApi,
    /// The client's transport: auth requests share the REST calls' deadline, but keep auth-js's
    /// own retries (only the session refresh is retried).
    transport: Transport,
    policy: RefreshPolicy,
    auto_refresh_token: bool,
    store: SessionStore,
    subscribers: Rc<Subscribers>,
    refresh: RefreshFlight,
    auto_refresh: Rc<AutoRefresh>,
    initialized: RefCell<Option<Shared<LocalBoxFuture<'static, ()>>>>,
}

impl AuthClient {
    pub fn new(
        config: &ClientConfig,
        options: &AuthOptions,
        transport: Transport,
    ) -> Result<Rc<Self>, TickLengthError> {
        let policy = options.refresh_policy()?;
        let key = options
            .storage_key
            .clone()
            .unwrap_or_else(|| config.storage_key().to_owned());
        Ok(Rc::new_cyclic(|this: &Weak<AuthClient>| {
            let target: Weak<dyn RefreshTarget> = this.clone();
            AuthClient {
                api: AuthApi::new(config),
                transport,
                policy,
                auto_refresh_token: options.auto_refresh_token,
                store: SessionStore::new(key, options.persist_session),
                subscribers: Rc::default(),
                refresh: RefreshFlight::default(),
                auto_refresh: AutoRefresh::new(
                    options.auto_refresh_token,
                    policy.tick_ms(),
                    target,
                ),
                initialized: RefCell::new(None),
            }
        }))
    }

    /// Starts initialisation in the background: recover the stored session, then let page
    /// visibility drive the ticker. Every public call waits for it first, as auth-js's do.
    pub fn initialize(self: &Rc<Self>) {
        let auto_refresh = Rc::downgrade(&self.auto_refresh);
        let initialization = async move {
            if let Some(auto_refresh) = auto_refresh.upgrade() {
                auto_refresh.initialize().await;
            }
        }
        .boxed_local()
        .shared();
        *self.initialized.borrow_mut() = Some(initialization.clone());
        spawn_local(initialization);
    }

    /// Resolves once initialisation has finished.
    pub async fn ready(&self) {
        let initialization = self.initialized.borrow().clone();
        if let Some(initialization) = initialization {
            initialization.await;
        }
    }

    pub fn subscribers(&self) -> &Rc<Subscribers> {
        &self.subscribers
    }

    /// The auth API's request builders (for the MFA calls).
    pub(super) fn api(&self) -> &AuthApi {
        &self.api
    }

    pub(super) fn transport(&self) -> &Transport {
        &self.transport
    }

    // --- Auto-refresh -------------------------------------------------------------------------

    /// `startAutoRefresh()`: the caller takes over from visibility handling.
    pub fn start_auto_refresh(&self) {
        self.auto_refresh.start();
    }

    /// `stopAutoRefresh()`: the caller takes over from visibility handling.
    pub fn stop_auto_refresh(&self) {
        self.auto_refresh.stop();
    }

    /// Removes the listener and timers and forgets every subscriber. Idempotent.
    pub fn dispose(&self) {
        self.auto_refresh.dispose();
        self.subscribers.clear();
    }

    /// Whether the visibility listener and the ticker are live.
    pub fn auto_refresh_state(&self) -> (bool, bool) {
        self.auto_refresh.state()
    }

    // --- The stored session -------------------------------------------------------------------

    /// The stored session; a stored value that is not a session is removed (SIGNED_OUT).
    fn load_session(&self) -> Option<Session> {
        match self.store.load() {
            Ok(session) => session,
            Err(NotASession) => {
                self.remove_session();
                None
            }
        }
    }

    /// Stores `session` and tells the subscribers (`event`).
    pub(super) fn adopt_session(&self, session: &Session, event: AuthChangeEvent) {
        self.store.save(session);
        self.notify(event, Some(session));
    }

    fn remove_session(&self) {
        self.store.remove();
        self.refresh.clear_failures();
        self.notify(AuthChangeEvent::SignedOut, None);
    }

    fn notify(&self, event: AuthChangeEvent, session: Option<&Session>) {
        let session = session
            .and_then(|session| js::to_js(session).ok())
            .unwrap_or(JsValue::NULL);
        self.subscribers.notify(event, &session);
    }

    /// `getSession()`: the stored session, refreshed first when it expires within the margin. A
    /// failed refresh still returns the stored session while its access token is valid and it is
    /// still the stored one.
    pub async fn get_session(self: &Rc<Self>) -> Result<Option<Session>, AuthError> {
        self.ready().await;
        let Some(current) = self.load_session() else {
            return Ok(None);
        };
        if current.expires_at == 0.0 || !self.policy.needs_refresh(current.expiry(), now()) {
            return Ok(Some(current));
        }
        match self.call_refresh_token(&current.refresh_token).await {
            Ok(session) => Ok(Some(session)),
            Err(error) => {
                let still_valid = !access_token_expired(current.expiry(), now());
                let still_stored = self
                    .store
                    .session()
                    .is_some_and(|stored| stored.refresh_token == current.refresh_token);
                if still_valid && still_stored {
                    Ok(Some(current))
                } else {
                    Err(error)
                }
            }
        }
    }

    /// The bearer for REST calls: the session's access token, `None` when signed out (the
    /// caller then uses the anon key, as supabase-js's `_getAccessToken`).
    pub async fn access_token(self: &Rc<Self>) -> Option<String> {
        self.get_session()
            .await
            .ok()
            .flatten()
            .map(|session| session.access_token)
    }

    // --- Sign up, sign in, sign out, user -----------------------------------------------------

    pub async fn sign_up(
        self: &Rc<Self>,
        credentials: &SignUpCredentials,
    ) -> Result<SessionResponse, AuthError> {
        self.ready().await;
        let request = self.api.sign_up(credentials)?;
        let data = expect_json(self.transport.send(&request).await)?;
        let response = parse_session_response(&data, now())?;
        if let Some(session) = &response.session {
            self.adopt_session(session, AuthChangeEvent::SignedIn);
        }
        Ok(response)
    }

    pub async fn sign_in_with_password(
        self: &Rc<Self>,
        credentials: &PasswordCredentials,
    ) -> Result<SessionResponse, AuthError> {
        self.ready().await;
        let request = self.api.sign_in_with_password(credentials)?;
        let data = expect_json(self.transport.send(&request).await)?;
        let response = parse_session_response(&data, now())?;
        let Some(session) = &response.session else {
            return Err(AuthError::InvalidTokenResponse { reason: None });
        };
        self.adopt_session(session, AuthChangeEvent::SignedIn);
        Ok(response)
    }

    /// Ends the session on the server (401, 403 and 404 mean it is already gone there), then
    /// locally unless only the other sessions were meant.
    pub async fn sign_out(self: &Rc<Self>, scope: SignOutScope) -> Result<(), AuthError> {
        let session = match self.get_session().await {
            Ok(session) => session,
            Err(AuthError::SessionMissing) => None,
            Err(error) => return Err(error),
        };
        if let Some(session) = session {
            let request = self.api.sign_out(&session.access_token, scope);
            match expect_ok(self.transport.send(&request).await) {
                Ok(_)
                | Err(AuthError::SessionMissing)
                | Err(AuthError::Api {
                    status: 401 | 403 | 404,
                    ..
                }) => {}
                Err(error) => return Err(error),
            }
        }
        if scope != SignOutScope::Others {
            self.remove_session();
        }
        Ok(())
    }

    /// `getUser(jwt?)`: the user the server knows for this token (or the session's). A server
    /// that no longer knows the session signs the user out here.
    pub async fn get_user(self: &Rc<Self>, jwt: Option<&str>) -> Result<User, AuthError> {
        let jwt = match jwt {
            Some(jwt) => jwt.to_owned(),
            None => match self.get_session().await {
                Ok(Some(session)) => session.access_token,
                Ok(None) => return Err(AuthError::SessionMissing),
                Err(error) => return Err(self.signed_out_if_missing(error)),
            },
        };
        let result = async {
            let data = expect_json(self.transport.send(&self.api.get_user(&jwt)).await)?;
            // `data.user ?? data`
            let user = match data.get("user") {
                Some(user) if !user.is_null() => user,
                _ => &data,
            };
            User::deserialize(user).map_err(|error| AuthError::Unknown {
                message: format!("unexpected user response: {error}"),
            })
        }
        .await;
        match result {
            Ok(user) => Ok(user),
            Err(error) => Err(self.signed_out_if_missing(error)),
        }
    }

    fn signed_out_if_missing(&self, error: AuthError) -> AuthError {
        if error == AuthError::SessionMissing {
            self.remove_session();
        }
        error
    }

    /// `setSession`: adopts tokens obtained elsewhere. An expired access token is refreshed;
    /// otherwise the user is fetched with it and the session saved (SIGNED_IN).
    pub async fn set_session(
        self: &Rc<Self>,
        access_token: &str,
        refresh_token: &str,
    ) -> Result<Session, AuthError> {
        self.ready().await;
        if access_token.is_empty() || refresh_token.is_empty() {
            return Err(AuthError::SessionMissing);
        }
        let checked_at = now();
        // Unix seconds, as the token's `exp` claim has them.
        let expires_at = decode_jwt_claims(access_token)?
            .exp
            .filter(|exp| *exp != 0.0);
        let Some(expires_at) = expires_at
            .filter(|exp| !access_token_expired(UnixTime::from_seconds(*exp), checked_at))
        else {
            return self.call_refresh_token(refresh_token).await;
        };
        let user = self.get_user(Some(access_token)).await?;
        let session = Session::from_tokens(
            access_token.to_owned(),
            refresh_token.to_owned(),
            user,
            expires_at,
            checked_at,
        );
        self.adopt_session(&session, AuthChangeEvent::SignedIn);
        Ok(session)
    }

    /// `refreshSession(current?)`: a new session whatever the expiry, from the given refresh
    /// token or the stored session's.
    pub async fn refresh_session(
        self: &Rc<Self>,
        refresh_token: Option<String>,
    ) -> Result<Session, AuthError> {
        self.ready().await;
        let refresh_token = match refresh_token {
            Some(token) => token,
            None => match self.get_session().await? {
                Some(session) => session.refresh_token,
                None => return Err(AuthError::SessionMissing),
            },
        };
        self.call_refresh_token(&refresh_token).await
    }

    /// The signed-in user's access token for MFA calls (none: the server refuses the anon key).
    pub(super) async fn session_jwt(self: &Rc<Self>) -> Result<Option<String>, AuthError> {
        Ok(self
            .get_session()
            .await?
            .map(|session| session.access_token))
    }

    // --- Refreshing ---------------------------------------------------------------------------

    /// A new session for `refresh_token`, joining the refresh in flight if there is one.
    pub async fn call_refresh_token(
        self: &Rc<Self>,
        refresh_token: &str,
    ) -> Result<Session, AuthError> {
        if refresh_token.is_empty() {
            return Err(AuthError::SessionMissing);
        }
        let flight = Rc::clone(self).refresh_and_commit(refresh_token.to_owned());
        self.refresh.join_or_start(refresh_token, flight).await
    }

    /// One refresh request, its result committed: saved unless a sign-out (or another writer)
    /// changed the stored session meanwhile; after a failure the session is removed when core
    /// says so, and the failure cached.
    async fn refresh_and_commit(
        self: Rc<Self>,
        refresh_token: String,
    ) -> Result<Session, AuthError> {
        let stored_at_start = self.store.refresh_token();
        let removals_at_start = self.store.removals();
        let result =
            match request_session(&self.api, &self.transport, self.policy, &refresh_token).await {
                Ok(session) => {
                    // Commit guard: the rotated tokens must not bring a removed session back.
                    let replaced =
                        stored_at_start.is_some() && self.store.refresh_token() != stored_at_start;
                    if replaced || self.store.removals() != removals_at_start {
                        Err(AuthError::RefreshDiscarded)
                    } else {
                        self.store.save(&session);
                        self.refresh.clear_failures();
                        Ok(session)
                    }
                }
                Err(error) => Err(error),
            };
        // Leave the flight before telling anyone, so a subscriber that refreshes again starts a
        // new request instead of waiting on this one (which waits on the subscriber).
        self.refresh.land();
        match &result {
            Ok(session) => self.notify(AuthChangeEvent::TokenRefreshed, Some(session)),
            Err(AuthError::RefreshDiscarded) => {}
            Err(error) => {
                let stored_expires_at = self.store.session().map(|session| session.expiry());
                if remove_session_after_failure(error, stored_expires_at, now()) {
                    self.remove_session();
                }
                // After the removal, which clears the cache.
                self.refresh
                    .record_failure(self.policy, &refresh_token, error.clone());
            }
        }
        result
    }

    /// One tick: read the stored session now, refresh it if core says so, log a failure.
    async fn tick(self: Rc<Self>) {
        self.ready().await;
        let in_flight = self.refresh.is_running();
        let session = if in_flight { None } else { self.load_session() };
        let decision =
            self.policy
                .tick(now(), in_flight, session.as_ref(), &self.refresh.cooldown());
        let TickDecision::Refresh { refresh_token } = decision else {
            return;
        };
        match self.call_refresh_token(&refresh_token).await {
            // A sign-out raced the refresh: nothing failed.
            Ok(_) | Err(AuthError::RefreshDiscarded) => {}
            Err(error) => web_sys::console::error_2(
                &TICK_FAILED_MESSAGE.into(),
                &ClientError::Auth(error).into(),
            ),
        }
    }

    /// `_recoverAndRefresh`: refresh a stored session close to expiry (when auto-refresh is on),
    /// otherwise announce it (SIGNED_IN); remove a stored value that is not a session.
    async fn recover_and_refresh(self: Rc<Self>) {
        let Some(session) = self.load_session() else {
            return;
        };
        if self.policy.needs_refresh(session.expiry(), now()) {
            if self.auto_refresh_token && !session.refresh_token.is_empty() {
                // Failures are handled (and the session kept or removed) inside the refresh.
                let _ = self.call_refresh_token(&session.refresh_token).await;
            }
        } else {
            self.notify(AuthChangeEvent::SignedIn, Some(&session));
        }
    }
}

impl RefreshTarget for AuthClient {
    fn wait_ready(self: Rc<Self>) -> LocalBoxFuture<'static, ()> {
        async move { AuthClient::ready(&self).await }.boxed_local()
    }

    fn tick_once(self: Rc<Self>) -> LocalBoxFuture<'static, ()> {
        AuthClient::tick(self).boxed_local()
    }

    fn recover_session(self: Rc<Self>) -> LocalBoxFuture<'static, ()> {
        self.recover_and_refresh().boxed_local()
    }
}
