//! The exported `RealtimeChannel`: a handle (the shared realtime state, a channel id and its
//! topic) with supabase-js's `on`, `subscribe`, `send` and `unsubscribe`.

use std::rc::Rc;

use geocache_core::realtime::{ChannelId, RealtimeError};
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;

use super::options::listener;
use super::state::RealtimeState;
use crate::error::ClientError;
use crate::transport::token_source::TokenSource;

#[wasm_bindgen]
pub struct RealtimeChannel {
    client: Rc<RealtimeState>,
    tokens: TokenSource,
    id: ChannelId,
    /// Kept by the handle, as realtime-js's channel keeps it: a removed channel still has its
    /// topic, and still broadcasts (over HTTP) to it.
    topic: Rc<str>,
}

impl RealtimeChannel {
    pub(crate) fn new(
        client: Rc<RealtimeState>,
        tokens: TokenSource,
        id: ChannelId,
        topic: Rc<str>,
    ) -> Self {
        RealtimeChannel {
            client,
            tokens,
            id,
            topic,
        }
    }

    pub fn id(&self) -> ChannelId {
        self.id
    }

    fn handle(&self) -> RealtimeChannel {
        RealtimeChannel::new(
            Rc::clone(&self.client),
            self.tokens.clone(),
            self.id,
            Rc::clone(&self.topic),
        )
    }

    /// `unsubscribe()`'s promise, for `removeChannel` too.
    pub(crate) fn leave(client: &Rc<RealtimeState>, id: ChannelId) -> Promise {
        Promise::new(&mut |resolve, _reject| {
            // Leaving cannot fail: an unknown channel settles `ok` at once.
            let _ = client.push(resolve, |machine, now| Ok(machine.unsubscribe(id, now)));
        })
    }
}

fn function(value: JsValue, name: &'static str) -> Result<Function, ClientError> {
    value.dyn_into().map_err(|_| ClientError::Argument {
        name,
        reason: "expected a function".into(),
    })
}

#[wasm_bindgen]
impl RealtimeChannel {
    /// `realtime:<name>` (also once the channel is removed).
    #[wasm_bindgen(getter)]
    pub fn topic(&self) -> String {
        self.topic.to_string()
    }

    /// Listens for `postgres_changes` (`{ event, schema, table?, filter? }`), `broadcast`
    /// (`{ event }`, `*` for all) or `system` messages. Chainable, as supabase-js's. A wrong
    /// type or filter is a TypeError (`invalid_argument`); a removed channel a RealtimeError
    /// (`unknown_channel`).
    #[wasm_bindgen(unchecked_return_type = "RealtimeChannel")]
    pub fn on(
        &self,
        #[wasm_bindgen(js_name = type, unchecked_param_type = "RealtimeListenType")] kind: String,
        #[wasm_bindgen(unchecked_param_type = "RealtimeFilter")] filter: JsValue,
        #[wasm_bindgen(unchecked_param_type = "(payload: any) => void")] callback: JsValue,
    ) -> Result<RealtimeChannel, ClientError> {
        let listener = listener(&kind, &filter)?;
        let callback = function(callback, "callback")?;
        self.client
            .run(|machine, _| (machine.listen(self.id, listener), Vec::new()))?;
        self.client.add_listener(self.id, callback);
        Ok(self.handle())
    }

    /// Joins the channel (connecting first if need be); `callback(status, err)` hears
    /// SUBSCRIBED, TIMED_OUT, CLOSED and CHANNEL_ERROR (`err`: a RealtimeError when the server
    /// gave a reason). The join carries the signed-in user's access token, else the key.
    /// Subscribing twice is a RealtimeError (`already_subscribed`).
    #[wasm_bindgen(unchecked_return_type = "RealtimeChannel")]
    pub fn subscribe(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "RealtimeSubscribeCallback")]
        callback: JsValue,
    ) -> Result<RealtimeChannel, ClientError> {
        let callback = if callback.is_undefined() || callback.is_null() {
            None
        } else {
            Some(function(callback, "callback")?)
        };
        if self.client.read(|machine| machine.topic(self.id).is_none()) {
            return Err(RealtimeError::UnknownChannel.into());
        }
        if !self.client.start_subscribing(self.id) {
            return Err(RealtimeError::AlreadySubscribed.into());
        }
        self.client.set_status_callback(self.id, callback);
        let (client, tokens, id) = (Rc::clone(&self.client), self.tokens.clone(), self.id);
        spawn_local(async move {
            let token = tokens().await;
            client.end_subscribing(id);
            let subscribed = client.run(|machine, now| {
                let mut actions = machine.set_access_token(token);
                match machine.subscribe(id, now) {
                    Ok(more) => {
                        actions.extend(more);
                        (Ok(()), actions)
                    }
                    Err(error) => (Err(error), actions),
                }
            });
            if let Err(error) = subscribed {
                web_sys::console::error_1(&ClientError::from(error).into());
            }
        });
        Ok(self.handle())
    }

    /// `send({ type: 'broadcast', event, payload })`: resolves 'ok' once sent (with
    /// `broadcast.ack`, once the server acknowledged it), 'timed out' after 10 s without. A
    /// channel that is not joined (never subscribed, not yet joined, its socket down, or removed)
    /// sends it over HTTP (`POST /realtime/v1/api/broadcast`), as supabase-js does: 'ok' on a 2xx
    /// answer, 'timed out' after 10 s, else 'error'. Another type, or no string event, is a
    /// TypeError.
    #[wasm_bindgen(unchecked_return_type = "Promise<RealtimeSendResult>")]
    pub fn send(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RealtimeBroadcastMessage")] message: JsValue,
    ) -> Result<Promise, ClientError> {
        let invalid = |reason: &str| ClientError::Argument {
            name: "message",
            reason: reason.to_owned(),
        };
        let field =
            |key: &str| js_sys::Reflect::get(&message, &key.into()).unwrap_or(JsValue::UNDEFINED);
        if !message.is_object() || field("type").as_string().as_deref() != Some("broadcast") {
            return Err(invalid("type must be 'broadcast'"));
        }
        let event = field("event")
            .as_string()
            .ok_or_else(|| invalid("event is not a string"))?;
        let payload = payload_text(&field("payload"))?;
        let (client, id, topic) = (Rc::clone(&self.client), self.id, Rc::clone(&self.topic));
        if !client.read(|machine| machine.can_push(id)) {
            // Over HTTP, with the bearer the client's other calls have now (the session's token
            // may be newer than the last one the socket was given).
            let tokens = self.tokens.clone();
            return Ok(Promise::new(&mut |resolve, _reject| {
                let (client, topic, event, payload) = (
                    Rc::clone(&client),
                    Rc::clone(&topic),
                    event.clone(),
                    payload.clone(),
                );
                let tokens = tokens.clone();
                spawn_local(async move {
                    let token = tokens().await;
                    client.run(|machine, _| ((), machine.set_access_token(token)));
                    let sent = client.push(resolve.clone(), |machine, now| {
                        machine.broadcast(id, &topic, &event, &payload, now)
                    });
                    // The payload is JSON.stringify's, so this is not expected; the promise
                    // settles all the same.
                    if sent.is_err() {
                        let _ = resolve.call1(&JsValue::NULL, &"error".into());
                    }
                });
            }));
        }
        let mut failure = None;
        let promise = Promise::new(&mut |resolve, _reject| {
            let sent = client.push(resolve, |machine, now| {
                machine.broadcast(id, &topic, &event, &payload, now)
            });
            failure = sent.err();
        });
        match failure {
            Some(error) => Err(error.into()),
            None => Ok(promise),
        }
    }

    /// Leaves the channel: resolves 'ok' on the server's reply (at once when not joined) or
    /// 'timed out' after 10 s; the channel is then CLOSED and removed.
    #[wasm_bindgen(unchecked_return_type = "Promise<RealtimeSendResult>")]
    pub fn unsubscribe(&self) -> Promise {
        RealtimeChannel::leave(&self.client, self.id)
    }
}

/// A broadcast's payload as JSON text (`JSON.stringify`); `undefined` is `null`. A value JSON
/// cannot hold (a BigInt, a cycle) is a TypeError.
fn payload_text(payload: &JsValue) -> Result<String, ClientError> {
    if payload.is_undefined() {
        return Ok("null".to_owned());
    }
    let invalid = || ClientError::Argument {
        name: "message",
        reason: "payload cannot be written as JSON".to_owned(),
    };
    js_sys::JSON::stringify(payload)
        .map_err(|_| invalid())?
        .as_string()
        .ok_or_else(invalid)
}
