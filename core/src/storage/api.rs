//! The storage client's two entry points, as storage-js has them: [`StorageApi`] (buckets) and
//! [`FileApi`] (`from(bucket)`: the objects of one bucket). Each call ends in a [`StorageCall`].

use serde_json::Value;

use super::decode::Decode;
use super::request::{StorageBody, StorageMethod, StorageRequest};
use crate::client::base_headers::{base_headers, Service};
use crate::client::config::ClientConfig;

/// A call: the request to send and how its answer becomes `data`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageCall {
    pub request: StorageRequest,
    pub decode: Decode,
}

/// `<project>/storage/v1` and the headers every storage request starts with: `apikey`, and the
/// session's token (else the key) as the bearer, as for the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageApi {
    url: String,
    headers: Vec<(String, String)>,
}

impl StorageApi {
    pub fn new(config: &ClientConfig, session_token: Option<&str>) -> Self {
        StorageApi {
            url: format!("{}storage/v1", config.base_url()),
            headers: base_headers(config, Service::Rest, session_token),
        }
    }

    /// The storage URL, without a trailing slash.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The object calls of one bucket (storage-js's `from(id)`).
    pub fn from<'a>(&'a self, bucket: &'a str) -> FileApi<'a> {
        FileApi { api: self, bucket }
    }

    /// A request to `<storage url><path>` with the common headers and no body.
    pub(crate) fn request(&self, method: StorageMethod, path: &str) -> StorageRequest {
        StorageRequest {
            method,
            url: format!("{}{path}", self.url),
            headers: self.headers.clone(),
            body: StorageBody::None,
        }
    }

    /// A request carrying `body` as JSON (storage-js sends every plain object so).
    pub(crate) fn json_request(
        &self,
        method: StorageMethod,
        path: &str,
        body: &Value,
    ) -> StorageRequest {
        let mut request = self.request(method, path);
        request.set_header("content-type", "application/json");
        request.body = StorageBody::Json(body.to_string());
        request
    }

    /// A JSON call whose answer is the data as it is.
    pub(crate) fn json_call(&self, method: StorageMethod, path: &str, body: &Value) -> StorageCall {
        StorageCall {
            request: self.json_request(method, path, body),
            decode: Decode::Json,
        }
    }
}

/// The calls on the objects of one bucket.
#[derive(Debug, Clone, Copy)]
pub struct FileApi<'a> {
    pub(crate) api: &'a StorageApi,
    pub(crate) bucket: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_carries_the_key_and_the_bearer() {
        let config = ClientConfig::new("http://127.0.0.1:54321", "sb_publishable_k").unwrap();
        let api = StorageApi::new(&config, None);
        assert_eq!(api.url(), "http://127.0.0.1:54321/storage/v1");
        let request = api.request(StorageMethod::Get, "/bucket");
        assert_eq!(request.url, "http://127.0.0.1:54321/storage/v1/bucket");
        assert_eq!(request.header("apikey"), Some("sb_publishable_k"));
        assert_eq!(
            request.header("authorization"),
            Some("Bearer sb_publishable_k")
        );
        assert_eq!(request.header("content-type"), None);

        let signed_in = StorageApi::new(&config, Some("user.jwt"));
        let request = signed_in.json_request(StorageMethod::Post, "/x", &serde_json::json!({}));
        assert_eq!(request.header("apikey"), Some("sb_publishable_k"));
        assert_eq!(request.header("authorization"), Some("Bearer user.jwt"));
        assert_eq!(request.header("content-type"), Some("application/json"));
        assert_eq!(request.body, StorageBody::Json("{}".into()));
    }
}
