//! The two timers the logbook calls need, on the global `setTimeout` (window or worker) without
//! gloo-timers, which only the auth build carries: a deadline that calls a JS function unless it
//! is dropped first, and a sleep for the retry back-off.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    /// The id is a number in browsers and an object in Node, hence `JsValue`.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: u32) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}

/// A pending `setTimeout(handler, ms)`, cleared when dropped: whoever holds it decides how long
/// the handler may still fire, and no timer outlives its request.
#[must_use = "the timer is cleared when dropped"]
pub struct Timeout {
    id: JsValue,
}

impl Timeout {
    /// `ms` at most 2^31 - 1 (core validates every delay it hands over).
    pub fn new(handler: &Function, ms: u32) -> Self {
        Timeout {
            id: set_timeout(handler, ms),
        }
    }
}

impl Drop for Timeout {
    fn drop(&mut self) {
        clear_timeout(&self.id);
    }
}

/// Resolves after `ms`. The timer's handler is the promise's own `resolve`, so no Rust closure
/// has to be kept alive (or leaked) for it.
pub async fn sleep(ms: u32) {
    let promise = Promise::new(&mut |resolve, _reject| {
        set_timeout(&resolve, ms);
    });
    // A promise that only ever resolves.
    let _ = JsFuture::from(promise).await;
}
