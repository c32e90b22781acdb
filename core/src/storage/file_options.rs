//! Sending a file: `upload` (POST), `update` (PUT) and `uploadToSignedUrl`, with storage-js's
//! file options. A Blob goes as a new multipart form (`cacheControl`, `metadata`, the file under
//! `""`), a FormData as the caller built it, anything else raw with its headers.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::api::{FileApi, StorageCall};
use super::decode::Decode;
use super::path::{clean_path, final_path};
use super::request::{FileBody, StorageBody, StorageMethod, StorageRequest};
use crate::client::http::{percent_encode, Component};

/// What the caller's file is, which decides how it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A `Blob` (or `File`).
    Blob,
    /// A `FormData`.
    FormData,
    /// Anything else: a string, an `ArrayBuffer`, a typed array, a stream.
    Other,
}

/// storage-js's `FileOptions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOptions {
    /// Seconds, sent as `max-age=<n>` (default `3600`).
    pub cache_control: String,
    /// For a raw body only (default `text/plain;charset=UTF-8`); a Blob carries its own type.
    pub content_type: String,
    /// Overwrite an existing object (default false). `update` never sends it.
    pub upsert: bool,
    /// The user metadata as JSON text.
    pub metadata: Option<String>,
    /// Extra headers, set last (replacing any of the same name).
    pub headers: Vec<(String, String)>,
}

impl Default for FileOptions {
    fn default() -> Self {
        FileOptions {
            cache_control: "3600".into(),
            content_type: "text/plain;charset=UTF-8".into(),
            upsert: false,
            metadata: None,
            headers: Vec::new(),
        }
    }
}

impl FileOptions {
    /// Puts the file's body and headers on `request`.
    fn apply(&self, kind: FileKind, request: &mut StorageRequest) {
        let mut fields = vec![("cacheControl".to_owned(), self.cache_control.clone())];
        if let Some(metadata) = &self.metadata {
            fields.push(("metadata".to_owned(), metadata.clone()));
        }
        let body = match kind {
            FileKind::Blob => FileBody::NewForm { fields },
            FileKind::FormData => FileBody::CallerForm { fields },
            FileKind::Other => {
                request.set_header("cache-control", &format!("max-age={}", self.cache_control));
                request.set_header("content-type", &self.content_type);
                if let Some(metadata) = &self.metadata {
                    request.set_header("x-metadata", &STANDARD.encode(metadata));
                }
                FileBody::Raw
            }
        };
        request.body = StorageBody::File(body);
        for (name, value) in &self.headers {
            request.set_header(name, value);
        }
    }
}

impl FileApi<'_> {
    /// POST `/object/<bucket>/<path>` with `x-upsert`: answers `{Id, Key}`, which becomes
    /// `{path, id, fullPath}`.
    pub fn upload(&self, path: &str, kind: FileKind, options: &FileOptions) -> StorageCall {
        self.send_file(StorageMethod::Post, path, kind, options)
    }

    /// PUT `/object/<bucket>/<path>`: replaces an object; the same answer as `upload`.
    pub fn update(&self, path: &str, kind: FileKind, options: &FileOptions) -> StorageCall {
        self.send_file(StorageMethod::Put, path, kind, options)
    }

    fn send_file(
        &self,
        method: StorageMethod,
        path: &str,
        kind: FileKind,
        options: &FileOptions,
    ) -> StorageCall {
        let clean = clean_path(path);
        let url_path = format!("/object/{}", final_path(self.bucket, &clean));
        let mut request = self.api.request(method, &url_path);
        if method == StorageMethod::Post {
            request.set_header("x-upsert", if options.upsert { "true" } else { "false" });
        }
        options.apply(kind, &mut request);
        StorageCall {
            request,
            decode: Decode::Uploaded { path: clean },
        }
    }

    /// PUT `/object/upload/sign/<bucket>/<path>?token=<token>`, sent as `upload` sends (its
    /// `x-upsert` included; the token's own upsert is what counts): answers `{Key}`, which
    /// becomes `{path, fullPath}`.
    pub fn upload_to_signed_url(
        &self,
        path: &str,
        token: &str,
        kind: FileKind,
        options: &FileOptions,
    ) -> StorageCall {
        let clean = clean_path(path);
        let url_path = format!(
            "/object/upload/sign/{}?token={}",
            final_path(self.bucket, &clean),
            percent_encode(token, Component::Query)
        );
        let mut request = self.api.request(StorageMethod::Put, &url_path);
        request.set_header("x-upsert", if options.upsert { "true" } else { "false" });
        options.apply(kind, &mut request);
        StorageCall {
            request,
            decode: Decode::UploadedToSignedUrl { path: clean },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::api::StorageApi;
    use crate::ClientConfig;

    fn api() -> StorageApi {
        StorageApi::new(&ClientConfig::new("http://h", "key").unwrap(), Some("jwt"))
    }

    fn fields(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_blob_goes_as_a_new_form_with_cache_control_and_metadata() {
        let options = FileOptions {
            upsert: true,
            metadata: Some(r#"{"a":1}"#.into()),
            ..FileOptions::default()
        };
        let call = api()
            .from("b")
            .upload("/teaser//box.jpg/", FileKind::Blob, &options);
        let request = &call.request;
        assert_eq!(request.method, StorageMethod::Post);
        assert_eq!(request.url, "http://h/storage/v1/object/b/teaser/box.jpg");
        assert_eq!(request.header("x-upsert"), Some("true"));
        assert_eq!(request.header("authorization"), Some("Bearer jwt"));
        assert_eq!(request.header("content-type"), None);
        assert_eq!(request.header("cache-control"), None);
        assert_eq!(
            request.body,
            StorageBody::File(FileBody::NewForm {
                fields: fields(&[("cacheControl", "3600"), ("metadata", r#"{"a":1}"#)])
            })
        );
        assert_eq!(
            call.decode,
            Decode::Uploaded {
                path: "teaser/box.jpg".into()
            }
        );
    }

    #[test]
    fn a_form_data_keeps_its_fields_and_gets_the_missing_ones() {
        let options = FileOptions {
            cache_control: "60".into(),
            ..FileOptions::default()
        };
        let call = api()
            .from("b")
            .upload("a.txt", FileKind::FormData, &options);
        assert_eq!(call.request.header("x-upsert"), Some("false"));
        assert_eq!(
            call.request.body,
            StorageBody::File(FileBody::CallerForm {
                fields: fields(&[("cacheControl", "60")])
            })
        );
    }

    #[test]
    fn other_bodies_go_raw_with_type_cache_control_and_base64_metadata() {
        let call = api()
            .from("b")
            .upload("a.txt", FileKind::Other, &FileOptions::default());
        assert_eq!(call.request.body, StorageBody::File(FileBody::Raw));
        assert_eq!(
            call.request.header("content-type"),
            Some("text/plain;charset=UTF-8")
        );
        assert_eq!(call.request.header("cache-control"), Some("max-age=3600"));
        assert_eq!(call.request.header("x-metadata"), None);

        let options = FileOptions {
            content_type: "image/png".into(),
            cache_control: "10".into(),
            metadata: Some(r#"{"é":1}"#.into()),
            headers: vec![
                ("Content-Type".into(), "image/webp".into()),
                ("x-extra".into(), "1".into()),
            ],
            ..FileOptions::default()
        };
        let call = api().from("b").upload("a.png", FileKind::Other, &options);
        assert_eq!(call.request.header("cache-control"), Some("max-age=10"));
        assert_eq!(call.request.header("content-type"), Some("image/webp"));
        assert_eq!(call.request.header("x-extra"), Some("1"));
        // UTF-8 bytes of the JSON, base64: what storage-js's toBase64 gives.
        assert_eq!(call.request.header("x-metadata"), Some("eyLDqSI6MX0="));
    }

    #[test]
    fn update_puts_without_x_upsert() {
        let options = FileOptions {
            upsert: true,
            ..FileOptions::default()
        };
        let call = api().from("b").update("a.txt", FileKind::Other, &options);
        assert_eq!(call.request.method, StorageMethod::Put);
        assert_eq!(call.request.url, "http://h/storage/v1/object/b/a.txt");
        assert_eq!(call.request.header("x-upsert"), None);
        assert_eq!(
            call.decode,
            Decode::Uploaded {
                path: "a.txt".into()
            }
        );
    }

    #[test]
    fn upload_to_signed_url_puts_to_the_token_url() {
        let call = api().from("b").upload_to_signed_url(
            "/d/a.txt",
            "t.k+n",
            FileKind::Blob,
            &FileOptions::default(),
        );
        assert_eq!(call.request.method, StorageMethod::Put);
        assert_eq!(
            call.request.url,
            "http://h/storage/v1/object/upload/sign/b/d/a.txt?token=t.k%2Bn"
        );
        assert_eq!(call.request.header("x-upsert"), Some("false"));
        assert_eq!(
            call.decode,
            Decode::UploadedToSignedUrl {
                path: "d/a.txt".into()
            }
        );
    }
}
