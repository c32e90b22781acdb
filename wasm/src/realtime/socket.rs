//! The one WebSocket, as a guard: dropping it detaches its handlers and closes it, so a socket
//! the state machine has let go of can never report back.

use geocache_core::realtime::Frame;
use js_sys::{ArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{BinaryType, MessageEvent, WebSocket};

/// What the socket reports.
pub enum SocketEvent {
    Opened,
    Frame(Frame),
    Closed,
}

pub struct Socket {
    socket: WebSocket,
    _on_open: Closure<dyn FnMut()>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_close: Closure<dyn FnMut()>,
}

impl Socket {
    /// Opens `url`; `report` gets every event (an `error` event is followed by `close`, which
    /// is the one reported). A URL the browser refuses outright is an `Err`.
    pub fn open(
        url: &str,
        report: impl Fn(SocketEvent) + Clone + 'static,
    ) -> Result<Self, JsValue> {
        let socket = WebSocket::new(url)?;
        socket.set_binary_type(BinaryType::Arraybuffer);
        let opened = report.clone();
        let on_open = Closure::<dyn FnMut()>::new(move || opened(SocketEvent::Opened));
        let received = report.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some(frame) = frame(event.data()) {
                received(SocketEvent::Frame(frame));
            }
        });
        let on_close = Closure::<dyn FnMut()>::new(move || report(SocketEvent::Closed));
        socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        Ok(Socket {
            socket,
            _on_open: on_open,
            _on_message: on_message,
            _on_close: on_close,
        })
    }

    /// Sends a frame; a socket that is no longer open drops it (its close event follows).
    pub fn send(&self, frame: &Frame) {
        let _ = match frame {
            Frame::Text(text) => self.socket.send_with_str(text),
            Frame::Binary(bytes) => self.socket.send_with_u8_array(bytes),
        };
    }

    /// Closes with this code and reason, without reporting it.
    pub fn close(self, code: u16, reason: &str) {
        self.detach();
        let _ = self.socket.close_with_code_and_reason(code, reason);
    }

    fn detach(&self) {
        self.socket.set_onopen(None);
        self.socket.set_onmessage(None);
        self.socket.set_onclose(None);
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.detach();
        // Closing a closed socket does nothing.
        let _ = self.socket.close();
    }
}

/// A text frame, or a binary one (the socket delivers `ArrayBuffer`s).
fn frame(data: JsValue) -> Option<Frame> {
    if let Some(text) = data.as_string() {
        return Some(Frame::Text(text));
    }
    let buffer = data.dyn_into::<ArrayBuffer>().ok()?;
    Some(Frame::Binary(Uint8Array::new(&buffer).to_vec()))
}
