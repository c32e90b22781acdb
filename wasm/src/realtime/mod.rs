//! Supabase Realtime for `client.channel(...)` and the standalone `RealtimeClient`: core's state
//! machine decides, this layer owns the WebSocket ([`socket`]), the one timer ([`alarm`]), the
//! JS callbacks and the `fetch` of a broadcast sent over HTTP ([`state`]), and exports
//! [`RealtimeChannel`] ([`channel`]) with supabase-js's API. Channels join with the signed-in
//! user's access token, else the key (a [`TokenSource`]). [`client`] exports the standalone
//! `createRealtimeClient` and its `RealtimeClient`.

mod alarm;
mod channel;
pub mod client;
mod options;
#[cfg(feature = "auth")]
mod session_follower;
mod socket;
mod state;

use std::rc::Rc;

use geocache_core::ClientConfig;
use js_sys::{Array, Promise};
use wasm_bindgen::JsValue;

use crate::transport::token_source::{no_session, TokenSource};
pub use channel::RealtimeChannel;
pub use state::RealtimeState;

use crate::error::ClientError;

/// One client's realtime part: the shared state, where tokens come from, and (a `Client` of the
/// auth build) the subscriber that follows the session.
pub struct Realtime {
    client: Rc<RealtimeState>,
    tokens: TokenSource,
    #[cfg(feature = "auth")]
    _follower: Option<session_follower::SessionFollower>,
}

impl Realtime {
    /// Channels that always join with the key: nobody signs in through this client (the
    /// standalone `RealtimeClient`, or a `Client` built without auth).
    pub fn with_key(config: &ClientConfig) -> Self {
        Realtime {
            client: RealtimeState::new(config),
            tokens: no_session(),
            #[cfg(feature = "auth")]
            _follower: None,
        }
    }

    /// Channels that join with `auth`'s session token and follow its changes.
    #[cfg(feature = "auth")]
    pub fn following(
        config: &ClientConfig,
        auth: &Rc<crate::auth::AuthClient>,
        tokens: TokenSource,
    ) -> Self {
        let client = RealtimeState::new(config);
        let follower = session_follower::SessionFollower::new(auth, Rc::downgrade(&client));
        Realtime {
            client,
            tokens,
            _follower: Some(follower),
        }
    }

    /// The shared state (tests read its socket and timer).
    pub fn client(&self) -> &Rc<RealtimeState> {
        &self.client
    }

    /// `client.channel(name, options)`: the channel of that name (the same one again for the
    /// same name).
    pub fn channel(&self, name: &str, options: &JsValue) -> Result<RealtimeChannel, ClientError> {
        let options = options::channel_options(options)?;
        let id = self
            .client
            .run(|machine, _| (machine.channel(name, options), Vec::new()));
        Ok(self.handle(id))
    }

    /// `client.getChannels()`, in creation order.
    pub fn channels(&self) -> Vec<RealtimeChannel> {
        let ids = self.client.read(|machine| machine.channel_ids());
        ids.into_iter().map(|id| self.handle(id)).collect()
    }

    /// `client.removeChannel(channel)`: its `unsubscribe()`.
    pub fn remove(&self, channel: &RealtimeChannel) -> Promise {
        RealtimeChannel::leave(&self.client, channel.id())
    }

    /// `client.removeAllChannels()`: every channel's `unsubscribe()`, together.
    pub fn remove_all(&self) -> Promise {
        let ids = self.client.read(|machine| machine.channel_ids());
        let leaves: Array = ids
            .into_iter()
            .map(|id| JsValue::from(RealtimeChannel::leave(&self.client, id)))
            .collect();
        Promise::all(&leaves)
    }

    pub fn dispose(&self) {
        self.client.dispose();
    }

    fn handle(&self, id: geocache_core::realtime::ChannelId) -> RealtimeChannel {
        let topic = self
            .client
            .read(|machine| machine.topic(id).map(Rc::from))
            .unwrap_or_else(|| Rc::from(""));
        RealtimeChannel::new(Rc::clone(&self.client), self.tokens.clone(), id, topic)
    }
}
