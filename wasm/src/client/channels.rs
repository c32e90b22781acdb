//! `client.channel`, `getChannels`, `removeChannel` and `removeAllChannels` on the exported
//! `Client`, as supabase-js's (the realtime module itself knows nothing of `Client`; the
//! standalone `RealtimeClient` has the same four, in realtime/client.rs).

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use crate::client::Client;
use crate::error::ClientError;
use crate::realtime::RealtimeChannel;

#[wasm_bindgen]
impl Client {
    /// The channel `name` (topic `realtime:<name>`; the same channel again for the same name),
    /// with `options.config`: `broadcast: { self, ack }` and `presence: { key }`. Nothing is sent
    /// before `subscribe()`. Options of the wrong shape are a TypeError (`invalid_argument`).
    pub fn channel(
        &self,
        name: &str,
        #[wasm_bindgen(unchecked_optional_param_type = "RealtimeChannelOptions")] options: JsValue,
    ) -> Result<RealtimeChannel, ClientError> {
        self.realtime().channel(name, &options)
    }

    /// Every channel not yet removed, in creation order.
    #[wasm_bindgen(js_name = getChannels)]
    pub fn get_channels(&self) -> Vec<RealtimeChannel> {
        self.realtime().channels()
    }

    /// `channel.unsubscribe()`: resolves 'ok', 'timed out' or 'error'; the channel is gone after.
    #[wasm_bindgen(js_name = removeChannel, unchecked_return_type = "Promise<RealtimeSendResult>")]
    pub fn remove_channel(&self, channel: &RealtimeChannel) -> Promise {
        self.realtime().remove(channel)
    }

    /// Every channel's `unsubscribe()`; resolves to their results.
    #[wasm_bindgen(
        js_name = removeAllChannels,
        unchecked_return_type = "Promise<RealtimeSendResult[]>"
    )]
    pub fn remove_all_channels(&self) -> Promise {
        self.realtime().remove_all()
    }
}
