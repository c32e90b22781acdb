//! The auth state one client shares (`Rc`) between `client.auth`, `auth.mfa`, the logbook calls
//! and its own timers: the stored session, subscribers, the refresh in flight and the
//! auto-refresh guards. The flows mirror auth-js 2.109's GoTrueClient; the decisions are core's.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use futures_util::future::{FutureExt, LocalBoxFuture, Shared};
use geocache_core::auth::options::TickLengthError;
use geocache_core::auth::refresh_policy::access_token_expired;
use geocache_core::auth::{
    decode_jwt_claims, expect_json, expect_ok, parse_session_response, AuthApi, AuthError,
    AuthOptions, FailureCooldown, PasswordCredentials, RefreshPolicy, Session, SessionResponse,
    SignOutScope, SignUpCredentials, User,
};
use geocache_core::ClientConfig;
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::spawn_local;

use super::auto_refresh::AutoRefresh;
use super::events::{AuthChangeEvent, Subscribers};
use super::storage::SessionStore;
use crate::js;
use crate::transport::Transport;

/// One refresh request shared by everyone who asks while it runs.
pub(super) type Flight = Shared<LocalBoxFuture<'static, Result<Session, AuthError>>>;

pub struct AuthClient {
    pub(super) api: AuthApi,
    /// The client's transport: auth requests share the REST calls' deadline, but keep auth-js's
    /// own retries (only the session refresh is retried).
    pub(super) transport: Transport,
    pub(super) policy: RefreshPolicy,
    pub(super) auto_refresh_token: bool,
    store: SessionStore,
    subscribers: Subscribers,
    pub(super) refreshing: RefCell<Option<Flight>>,
    pub(super) cooldown: RefCell<FailureCooldown>,
    /// Bumped whenever the session is removed, so a refresh that raced a sign-out is dropped.
    pub(super) removal_epoch: Cell<u64>,
    pub(super) auto_refresh: RefCell<AutoRefresh>,
    initialized: RefCell<Option<Shared<LocalBoxFuture<'static, ()>>>>,
}

/// Milliseconds since the epoch, the `now` every core decision takes.
pub(super) fn now_ms() -> f64 {
    js_sys::Date::now()
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
        Ok(Rc::new(AuthClient {
            api: AuthApi::new(config),
            transport,
            policy,
            auto_refresh_token: options.auto_refresh_token,
            store: SessionStore::new(key, options.persist_session),
            subscribers: Subscribers::default(),
            refreshing: RefCell::new(None),
            cooldown: RefCell::new(FailureCooldown::default()),
            removal_epoch: Cell::new(0),
            auto_refresh: RefCell::new(AutoRefresh::new(options.auto_refresh_token)),
            initialized: RefCell::new(None),
        }))
    }

    /// Starts initialisation in the background: recover the stored session, then let page
    /// visibility drive the ticker. Every public call waits for it first, as auth-js's do.
    pub fn initialize(self: &Rc<Self>) {
        let this = Rc::downgrade(self);
        let initialization = async move {
            if let Some(client) = this.upgrade() {
                client.run_initialization().await;
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

    pub fn subscribers(&self) -> &Subscribers {
        &self.subscribers
    }

    pub(super) fn weak(self: &Rc<Self>) -> Weak<Self> {
        Rc::downgrade(self)
    }

    // --- The stored session -------------------------------------------------------------------

    /// The stored session as it is, or `None` (nothing stored, or not a session).
    pub(super) fn stored_session(&self) -> Option<Session> {
        Session::from_storage(&self.store.load()?).ok()
    }

    /// The stored session; a stored value that is not a session is removed (SIGNED_OUT).
    pub(super) fn load_session(&self) -> Option<Session> {
        let text = self.store.load()?;
        match Session::from_storage(&text) {
            Ok(session) => Some(session),
            Err(_) => {
                self.remove_session();
                None
            }
        }
    }

    pub(super) fn save_session(&self, session: &Session) {
        let text = session
            .to_storage()
            .expect("a session is strings, numbers and JSON maps: serialising it cannot fail");
        self.store.save(&text);
    }

    pub(super) fn remove_session(&self) {
        self.removal_epoch.set(self.removal_epoch.get() + 1);
        self.cooldown.borrow_mut().clear();
        self.store.remove();
        self.notify(AuthChangeEvent::SignedOut, None);
    }

    pub(super) fn notify(&self, event: AuthChangeEvent, session: Option<&Session>) {
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
        if current.expires_at == 0.0 || !self.policy.needs_refresh(current.expires_at, now_ms()) {
            return Ok(Some(current));
        }
        match self.call_refresh_token(&current.refresh_token).await {
            Ok(session) => Ok(Some(session)),
            Err(error) => {
                let still_valid = !access_token_expired(current.expires_at, now_ms());
                let still_stored = self
                    .stored_session()
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
        let response = parse_session_response(&data, now_ms())?;
        if let Some(session) = &response.session {
            self.save_session(session);
            self.notify(AuthChangeEvent::SignedIn, Some(session));
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
        let response = parse_session_response(&data, now_ms())?;
        let Some(session) = &response.session else {
            return Err(AuthError::InvalidTokenResponse { reason: None });
        };
        self.save_session(session);
        self.notify(AuthChangeEvent::SignedIn, Some(session));
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
        let now = now_ms();
        let expires_at = decode_jwt_claims(access_token)?
            .exp
            .filter(|exp| *exp != 0.0);
        let Some(expires_at) = expires_at.filter(|exp| !access_token_expired(*exp, now)) else {
            return self.call_refresh_token(refresh_token).await;
        };
        let user = self.get_user(Some(access_token)).await?;
        let session = Session::from_tokens(
            access_token.to_owned(),
            refresh_token.to_owned(),
            user,
            expires_at,
            now,
        );
        self.save_session(&session);
        self.notify(AuthChangeEvent::SignedIn, Some(&session));
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

    /// `{"refresh_token"}` of a session-shaped value, used by the refresh commit guard.
    pub(super) fn stored_refresh_token(&self) -> Option<String> {
        let value: Value = serde_json::from_str(&self.store.load()?).ok()?;
        value.get("refresh_token")?.as_str().map(str::to_owned)
    }
}
