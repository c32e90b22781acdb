//! Sends a core [`HttpRequest`] with the browser's `fetch` (through gloo-net) and hands back the
//! status, the readable headers and the body text, or the reason `fetch` failed.

use geocache_core::outcome::decode_body;
use geocache_core::{HttpRequest, Method, NetworkFailure, RawResponse};
use gloo_net::http::{Headers, RequestBuilder};

pub async fn send(request: &HttpRequest) -> Result<RawResponse, NetworkFailure> {
    let response = prepare(request)?.send().await.map_err(failure)?;
    let status = response.status();
    // Cross-origin, fetch exposes only safelisted headers and those the server lists in
    // Access-Control-Expose-Headers (the auth server lists X-Supabase-Api-Version).
    let headers = response.headers().entries().collect();
    // The bytes, decoded here as `text()` would: a large list then crosses into wasm memory as
    // one copy, without a round trip through a JS (UTF-16) string.
    let body = decode_body(response.binary().await.map_err(failure)?);
    Ok(RawResponse {
        status,
        headers,
        body,
    })
}

fn prepare(request: &HttpRequest) -> Result<gloo_net::http::Request, NetworkFailure> {
    // web_sys::Headers reports a header value fetch refuses (e.g. a key outside Latin-1) as an
    // error; gloo's `header()` would throw instead. supabase-js sees the same TypeError from fetch.
    let headers = web_sys::Headers::new().map_err(js_failure)?;
    for (name, value) in &request.headers {
        headers.set(name, value).map_err(js_failure)?;
    }
    let builder = RequestBuilder::new(&request.url)
        .method(method(request.method))
        .headers(Headers::from_raw(headers));
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

fn js_failure(error: wasm_bindgen::JsValue) -> NetworkFailure {
    let message = js_sys::Error::from(error).to_string();
    NetworkFailure {
        message: String::from(message),
    }
}
