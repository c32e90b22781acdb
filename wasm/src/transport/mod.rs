//! Sends a core [`HttpRequest`] with the browser's `fetch` (through gloo-net) under a deadline,
//! and hands back the status, the readable headers and the body text, or why there is none.
//! Reads go through [`Transport::send_read`], which sends them again as core's retry policy says.
//! Beside it: the timers a deadline and a back-off take ([`timer`]), and where each call's bearer
//! comes from (`token_source`).

pub mod timer;
pub(crate) mod token_source;

use geocache_core::client::http::decode_body;
use geocache_core::rest::retry;
use geocache_core::{
    HttpRequest, HttpResponse, Method, NetworkFailure, NoResponse, RequestTimeout,
};
use gloo_net::http::{Headers, RequestBuilder};
use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{AbortController, AbortSignal};

use crate::transport::timer::{sleep, Timeout};

/// Every request of one client goes through its transport, so they share one deadline.
#[derive(Debug, Clone, Copy, Default)]
pub struct Transport {
    timeout: RequestTimeout,
}

impl Transport {
    pub fn new(timeout: RequestTimeout) -> Self {
        Transport { timeout }
    }

    pub fn timeout(&self) -> RequestTimeout {
        self.timeout
    }

    /// Sends `request` once. When the deadline passes before the whole body has arrived, the
    /// request is aborted and the outcome is [`NoResponse::TimedOut`].
    pub async fn send(&self, request: &HttpRequest) -> Result<HttpResponse, NoResponse> {
        let controller = AbortController::new().map_err(js_failure)?;
        let signal = controller.signal();
        // Dropped (so cleared) when this function returns, whichever way it does.
        let _deadline = Timeout::new(&abort_function(&controller)?, self.timeout.ms());
        exchange(request, &signal).await.map_err(|failure| {
            // Only the deadline aborts this controller.
            if signal.aborted() {
                NoResponse::TimedOut(self.timeout)
            } else {
                NoResponse::Network(failure)
            }
        })
    }

    /// Sends a read, and again after a network failure, a timeout or a 503/520, waiting as
    /// core's [`retry`] policy says (1 s, 2 s, 4 s; `X-Retry-Count` on each retry). Writes are
    /// sent once whatever this is given.
    pub async fn send_read(&self, request: &HttpRequest) -> Result<HttpResponse, NoResponse> {
        let mut retries = 0;
        loop {
            let outcome = self.send(&retry::attempt(request, retries)).await;
            match retry::retry_delay_ms(request.method, &outcome, retries) {
                Some(delay_ms) => {
                    sleep(delay_ms).await;
                    retries += 1;
                }
                None => return outcome,
            }
        }
    }
}

/// `controller.abort` bound to the controller: a plain JS function the timer can call, so no
/// Rust closure has to outlive the request.
fn abort_function(controller: &AbortController) -> Result<Function, NetworkFailure> {
    let abort = Reflect::get(controller, &"abort".into()).map_err(js_failure)?;
    let abort: Function = abort.dyn_into().map_err(js_failure)?;
    Ok(abort.bind0(controller))
}

/// The whole exchange, headers and body, so the deadline covers a body that stalls too.
async fn exchange(
    request: &HttpRequest,
    signal: &AbortSignal,
) -> Result<HttpResponse, NetworkFailure> {
    let response = prepare(request, signal)?.send().await.map_err(failure)?;
    let status = response.status();
    // Cross-origin, fetch exposes only safelisted headers and those the server lists in
    // Access-Control-Expose-Headers (the auth server lists X-Supabase-Api-Version).
    let headers = response.headers().entries().collect();
    // The bytes, decoded here as `text()` would: a large list then crosses into wasm memory as
    // one copy, without a round trip through a JS (UTF-16) string.
    let body = decode_body(response.binary().await.map_err(failure)?);
    Ok(HttpResponse {
        status,
        headers,
        body,
    })
}

fn prepare(
    request: &HttpRequest,
    signal: &AbortSignal,
) -> Result<gloo_net::http::Request, NetworkFailure> {
    // web_sys::Headers reports a header value fetch refuses (e.g. a key outside Latin-1) as an
    // error; gloo's `header()` would throw instead. supabase-js sees the same TypeError from fetch.
    let headers = web_sys::Headers::new().map_err(js_failure)?;
    for (name, value) in &request.headers {
        headers.set(name, value).map_err(js_failure)?;
    }
    let builder = RequestBuilder::new(&request.url)
        .method(method(request.method))
        .headers(Headers::from_raw(headers))
        .abort_signal(Some(signal));
    match &request.body {
        Some(body) => builder.body(body.as_str()),
        None => builder.build(),
    }
    .map_err(failure)
}

fn method(method: Method) -> gloo_net::http::Method {
    use gloo_net::http::Method as Gloo;
    match method {
        Method::Get => Gloo::GET,
        Method::Head => Gloo::HEAD,
        Method::Post => Gloo::POST,
        Method::Patch => Gloo::PATCH,
        Method::Delete => Gloo::DELETE,
    }
}

fn failure(error: gloo_net::Error) -> NetworkFailure {
    NetworkFailure {
        message: error.to_string(),
    }
}

fn js_failure(error: JsValue) -> NetworkFailure {
    let message = js_sys::Error::from(error).to_string();
    NetworkFailure {
        message: String::from(message),
    }
}
