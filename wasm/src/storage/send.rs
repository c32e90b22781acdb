//! Sends a core [`StorageRequest`] with `fetch`, the caller's file attached as the request says
//! ([`FileBody`]). Storage calls have no deadline: an upload or download takes as long as its
//! bytes do, as with storage-js.
//!
//! Reads (GET, HEAD) revalidate with the server (`cache: 'no-cache'`). Storage answers downloads with
//! the object's `Cache-Control` (`max-age=3600` by default), and the browser's HTTP cache keys
//! them by URL alone: without this, a download after a `remove`, `update` or `move` would get the
//! old bytes, and a caller without access would get another caller's copy.

use geocache_core::storage::{
    FileBody, Reply, StorageBody, StorageError, StorageMethod, StorageRequest,
};
use gloo_net::http::{Headers, RequestBuilder, Response};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, FormData, RequestCache};

/// Sends `request`; `file` is the caller's body for a request that carries a file.
pub async fn send(request: &StorageRequest, file: &JsValue) -> Result<Response, StorageError> {
    let headers = web_sys::Headers::new().map_err(js_error)?;
    for (name, value) in &request.headers {
        headers.set(name, value).map_err(js_error)?;
    }
    let mut builder = RequestBuilder::new(&request.url)
        .method(method(request.method))
        .headers(Headers::from_raw(headers));
    if matches!(request.method, StorageMethod::Get | StorageMethod::Head) {
        builder = builder.cache(RequestCache::NoCache);
    }
    let prepared = match &request.body {
        StorageBody::None => builder.build(),
        StorageBody::Json(text) => builder.body(text.as_str()),
        StorageBody::File(body) => builder.body(file_body(body, file)?),
    };
    prepared
        .map_err(gloo_error)?
        .send()
        .await
        .map_err(gloo_error)
}

/// The status, status text and body text of an answer.
pub async fn reply(response: Response) -> Result<Reply, StorageError> {
    let status = response.status();
    let status_text = response.status_text();
    let body = response.text().await.map_err(gloo_error)?;
    Ok(Reply {
        status,
        status_text,
        body,
    })
}

/// The body of a 2xx answer as a Blob (`download`).
pub async fn blob(response: Response) -> Result<Blob, StorageError> {
    let raw = web_sys::Response::from(response);
    let promise = raw.blob().map_err(js_error)?;
    let blob = JsFuture::from(promise).await.map_err(js_error)?;
    blob.dyn_into::<Blob>().map_err(js_error)
}

/// A new form around a Blob, the caller's form with the missing fields, or the file itself.
fn file_body(body: &FileBody, file: &JsValue) -> Result<JsValue, StorageError> {
    match body {
        FileBody::NewForm { fields } => {
            let blob = file
                .dyn_ref::<Blob>()
                .ok_or_else(|| StorageError::network("the file is not a Blob"))?;
            let form = FormData::new().map_err(js_error)?;
            for (name, value) in fields {
                form.append_with_str(name, value).map_err(js_error)?;
            }
            form.append_with_blob("", blob).map_err(js_error)?;
            Ok(form.into())
        }
        FileBody::CallerForm { fields } => {
            let form = file
                .dyn_ref::<FormData>()
                .ok_or_else(|| StorageError::network("the file is not a FormData"))?;
            for (name, value) in fields {
                if !form.has(name) {
                    form.append_with_str(name, value).map_err(js_error)?;
                }
            }
            Ok(form.into())
        }
        FileBody::Raw => Ok(file.clone()),
    }
}

fn method(method: StorageMethod) -> gloo_net::http::Method {
    use gloo_net::http::Method as Gloo;
    match method {
        StorageMethod::Get => Gloo::GET,
        StorageMethod::Head => Gloo::HEAD,
        StorageMethod::Post => Gloo::POST,
        StorageMethod::Put => Gloo::PUT,
        StorageMethod::Delete => Gloo::DELETE,
    }
}

/// What `fetch` threw, by its message, as storage-js keeps it (`Failed to fetch`).
fn gloo_error(error: gloo_net::Error) -> StorageError {
    match error {
        gloo_net::Error::JsError(error) => StorageError::network(error.message),
        other => StorageError::network(other.to_string()),
    }
}

fn js_error(error: JsValue) -> StorageError {
    StorageError::network(String::from(js_sys::Error::from(error).message()))
}
