//! The state machine's one timer, as a guard: replacing or dropping it clears the `setTimeout`.

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::transport::timer::Timeout;

pub struct Alarm {
    // Cleared before the handler is dropped (fields drop in this order).
    _timeout: Timeout,
    _handler: Closure<dyn FnMut()>,
}

impl Alarm {
    /// Calls `fire` once, after `ms`.
    pub fn new(ms: u32, fire: impl FnMut() + 'static) -> Self {
        let handler = Closure::<dyn FnMut()>::new(fire);
        let function: &Function = handler.as_ref().unchecked_ref();
        Alarm {
            _timeout: Timeout::new(function, ms),
            _handler: handler,
        }
    }
}
