//! `createClient` and the exported `Client` class: the logbook's reads and signs, and the way to
//! the other services (`client.auth`, `client.storage`, `client.functions` and, in `channels`,
//! `client.channel(...)`). What `createClient` reads besides the URL and key is in `options`,
//! `signLogbook`'s options in `sign_options`, and the entries a read resolves to in
//! [`entry_list`].

mod changes;
#[cfg(feature = "realtime")]
mod channels;
pub mod entry_list;
#[cfg(feature = "auth")]
mod moderation;
mod options;
mod sign_options;

use std::cell::RefCell;
use std::rc::Rc;

use geocache_core::rest::logbook;
use geocache_core::rest::pager::{PageStep, Pager, PAGE_SIZE};
use geocache_core::rest::sign_key::SignKey;
use geocache_core::rest::signing::{sign_request, SignAnswer, SignError, SignStep, Signing};
use geocache_core::{ClientConfig, NewEntry};
use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[cfg(feature = "auth")]
use crate::auth::{Auth, AuthClient};
use crate::client::entry_list::{log_entry, new_entry, EntryList};
use crate::client::options::Options;
use crate::client::sign_options::sign_key;
use crate::config::client_config;
use crate::error::ClientError;
#[cfg(feature = "realtime")]
use crate::realtime::Realtime;
use crate::transport::timer::sleep;
use crate::transport::token_source::TokenSource;
use crate::transport::Transport;

/// Creates a client for a Supabase project (or the local emulator).
///
/// Throws a `ConfigError` with supabase-js's message when the URL is missing, not http(s) or
/// malformed, or when the key is missing; a `TypeError` (`invalid_argument`) when `options` is
/// not an object or holds a wrong value, e.g. a `requestTimeoutMs` that is not a whole number of
/// milliseconds from 1 to 2^31 - 1. With the auth client (the npm build), the client restores a
/// stored session and, while the page is visible, keeps it refreshed.
#[wasm_bindgen(js_name = createClient)]
pub fn create_client(
    #[wasm_bindgen(js_name = supabaseUrl, unchecked_param_type = "string")] supabase_url: Option<
        String,
    >,
    #[wasm_bindgen(js_name = supabaseKey, unchecked_param_type = "string")] supabase_key: Option<
        String,
    >,
    #[wasm_bindgen(unchecked_optional_param_type = "ClientOptions")] options: JsValue,
) -> Result<Client, ClientError> {
    let config = client_config(
        supabase_url.as_deref().unwrap_or_default(),
        supabase_key.as_deref().unwrap_or_default(),
    )?;
    let options = Options::read(options)?;
    let transport = Transport::new(options.request_timeout);
    #[cfg(feature = "auth")]
    let auth = {
        let auth = AuthClient::new(&config, &options.auth, transport).map_err(|error| {
            ClientError::Argument {
                name: "options",
                reason: error.to_string(),
            }
        })?;
        auth.initialize();
        auth
    };
    #[cfg(feature = "auth")]
    let token = crate::transport::token_source::session_of(&auth);
    #[cfg(not(feature = "auth"))]
    let token = crate::transport::token_source::no_session();
    #[cfg(all(feature = "realtime", feature = "auth"))]
    let realtime = Realtime::following(&config, &auth, Rc::clone(&token));
    #[cfg(all(feature = "realtime", not(feature = "auth")))]
    let realtime = Realtime::with_key(&config);
    Ok(Client {
        state: Rc::new(ClientState {
            config,
            transport,
            token,
            #[cfg(feature = "auth")]
            auth,
            #[cfg(feature = "realtime")]
            realtime,
        }),
    })
}

/// `listEntries`' options, read.
#[derive(Default)]
struct ListOptions {
    on_page: Option<Function>,
    /// Only entries created at or after this timestamp.
    since: Option<String>,
}

/// `listEntries`' options: `undefined`, `null`, or an object whose `onPage` is absent or a
/// function and whose `since` is absent or a string. Anything else is an `invalid_argument`
/// TypeError, before any request is made.
fn list_options(options: &JsValue) -> Result<ListOptions, ClientError> {
    let invalid = |reason: &str| ClientError::Argument {
        name: "options",
        reason: reason.to_owned(),
    };
    if options.is_undefined() || options.is_null() {
        return Ok(ListOptions::default());
    }
    if !options.is_object() {
        return Err(invalid("expected an object"));
    }
    let on_page = match Reflect::get(options, &"onPage".into()) {
        Ok(value) if value.is_undefined() => None,
        Ok(value) => Some(
            value
                .dyn_into::<Function>()
                .map_err(|_| invalid("onPage is not a function"))?,
        ),
        Err(_) => return Err(invalid("onPage cannot be read")),
    };
    let since = match Reflect::get(options, &"since".into()) {
        Ok(value) if value.is_undefined() => None,
        Ok(value) => Some(
            value
                .as_string()
                .ok_or_else(|| invalid("since is not a string"))?,
        ),
        Err(_) => return Err(invalid("since cannot be read")),
    };
    Ok(ListOptions { on_page, since })
}

/// A request as plain data (`{ method, url, headers, body }`) for code that sends it without
/// this client, e.g. a service worker replaying a sign kept on the device.
fn plain_request(request: &geocache_core::HttpRequest) -> Object {
    let headers = Object::new();
    for (name, value) in &request.headers {
        // Setting a property of a fresh plain object cannot fail.
        let _ = Reflect::set(&headers, &name.into(), &value.into());
    }
    let object = Object::new();
    let body = request
        .body
        .as_deref()
        .map_or(JsValue::NULL, JsValue::from_str);
    let fields: [(&str, JsValue); 4] = [
        ("method", request.method.as_str().into()),
        ("url", request.url.as_str().into()),
        ("headers", headers.into()),
        ("body", body),
    ];
    for (key, value) in fields {
        let _ = Reflect::set(&object, &key.into(), &value);
    }
    object
}

/// A logbook client with its auth client (`client.auth`). Both share one state (`Rc`).
#[wasm_bindgen]
pub struct Client {
    state: Rc<ClientState>,
}

struct ClientState {
    config: ClientConfig,
    transport: Transport,
    /// The bearer of every call: REST, storage, functions and realtime ask the same source.
    token: TokenSource,
    #[cfg(feature = "auth")]
    auth: Rc<AuthClient>,
    #[cfg(feature = "realtime")]
    realtime: Realtime,
}

impl ClientState {
    /// The signed-in user's access token (supabase-js's `_getAccessToken`), `None` while nobody
    /// is signed in; core then sends the key as the bearer.
    async fn session_token(&self) -> Option<String> {
        (self.token)().await
    }

    /// Core's signing flow ([`Signing`]): the insert with its key, resent with the same key
    /// after a lost answer or a gateway failure, waiting as core says.
    async fn sign(
        &self,
        entry: &NewEntry,
        key: SignKey,
    ) -> Result<geocache_core::EntryList, SignError> {
        let session_token = self.session_token().await;
        let mut signing = Signing::new(&self.config, session_token.as_deref(), entry, key);
        loop {
            let outcome = self.transport.send(&signing.request()).await;
            match signing.accept(outcome) {
                SignStep::Stored(rows) => return Ok(rows),
                SignStep::Resend { delay_ms } => sleep(delay_ms).await,
                SignStep::Failed(error) => return Err(error),
            }
        }
    }
}

#[wasm_bindgen]
impl Client {
    /// Every entry, newest first, whatever the server's row cap: core's keyset pages of 1,000
    /// ([`Pager`]), each request with the client's deadline and retried as postgrest-js retries
    /// reads (network failure, timeout, 503, 520; 1 s, 2 s, 4 s). The entries stay in wasm
    /// memory: read them by index (`length`, `name(i)`, …, or `get(i)` for a `LogEntry`).
    /// `options.onPage(entriesSoFar)` is called after each page that brought entries, with a new
    /// `EntryList` of every entry read so far; the last call's list equals the resolved one. A
    /// page that finally fails rejects with a ClientError whose message starts with `page N: `
    /// and whose `page` is N (from 1); the pages before it were already handed to `onPage`.
    /// `options.since` (a timestamp) reads only the entries created at or after it, in the same
    /// order and pages; one that is not a timestamp is a TypeError (`invalid_argument`).
    #[wasm_bindgen(js_name = listEntries)]
    pub async fn list_entries(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "ListOptions")] options: JsValue,
    ) -> Result<EntryList, ClientError> {
        let options = list_options(&options)?;
        let pager = match &options.since {
            Some(since) => {
                Pager::newer_than(PAGE_SIZE, since).map_err(|error| ClientError::Argument {
                    name: "options",
                    reason: format!("since: {error}"),
                })?
            }
            None => Pager::new(PAGE_SIZE),
        };
        self.list_with(pager, options.on_page.as_ref()).await
    }

    /// The insert `signLogbook(entry, options)` would send first, as plain data
    /// (`{ method, url, headers, body }`, header names in lower case), with its
    /// `Idempotency-Key`: `options.idempotencyKey` or a new random one, but asking for no row
    /// back: whoever sends it later reads only the status. Sending it again later, without this
    /// client, stores the entry at most once with every other attempt of that key. The same
    /// argument errors as `signLogbook`, thrown.
    #[wasm_bindgen(js_name = signRequest, unchecked_return_type = "PlainRequest")]
    pub async fn sign_request(
        &self,
        #[wasm_bindgen(unchecked_param_type = "NewEntry")] entry: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "SignOptions")] options: JsValue,
    ) -> Result<Object, ClientError> {
        let entry = new_entry(&entry)?;
        let key = sign_key(&options)?;
        let state = &self.state;
        let session_token = state.session_token().await;
        let request = sign_request(
            &state.config,
            session_token.as_deref(),
            &entry,
            &key,
            SignAnswer::StatusOnly,
        );
        Ok(plain_request(&request))
    }

    /// The newest `count` entries, read (and retried), validated and ordered as `listEntries`
    /// does: a first screen to show while the whole list loads. Rejects with a ClientError.
    #[wasm_bindgen(js_name = listNewestEntries)]
    pub async fn list_newest_entries(&self, count: u32) -> Result<EntryList, ClientError> {
        let state = &self.state;
        let session_token = state.session_token().await;
        let request =
            logbook::newest_entries_request(&state.config, session_token.as_deref(), count.into());
        let entries = logbook::list_entries_outcome(state.transport.send_read(&request).await)?;
        Ok(EntryList::new(entries))
    }

    /// Inserts one entry, stored once however often it is sent: the insert carries an
    /// `Idempotency-Key` (`options.idempotencyKey`, a UUID string, or a new random one) and is
    /// resent with it after a network failure, a timeout or a 502, 503, 504, 520, 522 or 524, at
    /// most 3 times (1 s, 2 s, 4 s, or `Retry-After`). Resolves once stored, to the entry as the
    /// server stored it (its `id` and `created_at` too), or to undefined when the answer did not
    /// hold it (a resend of a sign already stored). Rejects with a ClientError whose `outcome`
    /// says whether the entry may have been stored (`not_stored`: every attempt was refused;
    /// `unknown`: some attempt went unanswered or ended in a 5xx) and whose `idempotencyKey` is
    /// the key used: signing again with it cannot double the entry. A malformed key is a
    /// TypeError (`invalid_argument`), thrown before anything is sent.
    #[wasm_bindgen(js_name = signLogbook, unchecked_return_type = "LogEntry | undefined")]
    pub async fn sign_logbook(
        &self,
        #[wasm_bindgen(unchecked_param_type = "NewEntry")] entry: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "SignOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let entry = new_entry(&entry)?;
        let key = sign_key(&options)?;
        let stored = self.state.sign(&entry, key).await?;
        Ok(stored
            .get(0)
            .map_or(JsValue::UNDEFINED, |row| log_entry(row).into()))
    }

    /// The auth client (sessions, auto-refresh, MFA), sharing this client's state.
    #[cfg(feature = "auth")]
    #[wasm_bindgen(getter)]
    pub fn auth(&self) -> Auth {
        Auth::new(Rc::clone(&self.state.auth))
    }

    /// The storage client (`client.storage`): buckets, and `from(bucket)` for their objects.
    /// Each call sends the signed-in user's token (else the key) as the bearer.
    #[cfg(feature = "storage")]
    #[wasm_bindgen(getter)]
    pub fn storage(&self) -> crate::storage::StorageClient {
        crate::storage::StorageClient::new(self.state.config.clone(), Rc::clone(&self.state.token))
    }

    /// The Edge Functions client (`client.functions.invoke`), sharing this client's key and
    /// session.
    #[cfg(feature = "functions")]
    #[wasm_bindgen(getter)]
    pub fn functions(&self) -> crate::functions::Functions {
        crate::functions::Functions::new(self.state.config.clone(), Rc::clone(&self.state.token))
    }

    /// Removes the auth client's visibility listener and refresh timers and forgets its
    /// subscribers, and closes the realtime socket, clears its timer and forgets its channels
    /// (also done when the client is garbage-collected). Safe to call more than once.
    #[cfg(any(feature = "auth", feature = "realtime"))]
    pub fn dispose(&self) {
        #[cfg(feature = "auth")]
        self.state.auth.dispose();
        #[cfg(feature = "realtime")]
        self.state.realtime.dispose();
    }
}

impl Client {
    /// `listEntries` with `page_size` rows asked for per page (tests read many pages from a
    /// small table with it).
    pub async fn list_in_pages(
        &self,
        page_size: u64,
        on_page: Option<&Function>,
    ) -> Result<EntryList, ClientError> {
        self.list_with(Pager::new(page_size), on_page).await
    }

    /// Reads every page `pager` asks for, handing each list so far to `on_page`.
    async fn list_with(
        &self,
        mut pager: Pager,
        on_page: Option<&Function>,
    ) -> Result<EntryList, ClientError> {
        let state = &self.state;
        let store = Rc::new(RefCell::new(geocache_core::EntryList::default()));
        loop {
            let session_token = state.session_token().await;
            let request = pager.request(&state.config, session_token.as_deref());
            let response = state.transport.send_read(&request).await;
            match pager.accept(response)? {
                PageStep::Next(page) => store.borrow_mut().append(page),
                PageStep::Done => break,
            }
            if let Some(on_page) = on_page {
                let so_far = EntryList::prefix(Rc::clone(&store), store.borrow().len());
                // The callback is the caller's: its exception does not stop the read, it is
                // reported where an uncaught one would be.
                if let Err(thrown) = on_page.call1(&JsValue::NULL, &so_far.into()) {
                    web_sys::console::error_1(&thrown);
                }
            }
        }
        let len = store.borrow().len();
        Ok(EntryList::prefix(store, len))
    }

    /// The realtime part (`channel`, `getChannels`, ...; see the realtime module).
    #[cfg(feature = "realtime")]
    pub fn realtime(&self) -> &Realtime {
        &self.state.realtime
    }

    /// The validated configuration (URLs, storage key, client info).
    pub fn config(&self) -> &ClientConfig {
        &self.state.config
    }
}

#[cfg(test)]
mod tests {
    use geocache_core::ConfigError;

    use super::*;

    fn create(url: Option<&str>, key: Option<&str>) -> Result<Client, ClientError> {
        create_client(url.map(Into::into), key.map(Into::into), JsValue::UNDEFINED)
    }

    #[test]
    fn absent_arguments_are_reported_like_empty_ones() {
        let error = create(None, Some("k")).err().expect("refused");
        assert!(matches!(
            error,
            ClientError::Config(ConfigError::UrlRequired)
        ));
        let error = create(Some("http://h"), None).err().expect("refused");
        assert!(matches!(
            error,
            ClientError::Config(ConfigError::KeyRequired)
        ));
    }
}
