//! URLs to objects: `createSignedUrl(s)` and `createSignedUploadUrl` (signed by the server) and
//! `getPublicUrl` (built here, no request). `download` is storage-js's option: `Some("")` for
//! `true` (the stored name), `Some(name)` to save under another name.

use serde_json::json;

use super::api::{FileApi, StorageCall};
use super::decode::Decode;
use super::path::final_path;
use super::request::StorageMethod;
use super::uri::encode_uri;
use crate::client::http::encode_query;

/// `download=<name>` as URLSearchParams writes it, or nothing.
fn download_query(download: Option<&str>) -> String {
    download.map_or_else(String::new, |name| {
        encode_query(&[("download".to_owned(), name.to_owned())])
    })
}

impl FileApi<'_> {
    /// POST `/object/sign/<bucket>/<path>` `{expiresIn}`: answers `{signedURL}`, a path with
    /// `?token=`, which becomes the absolute `{signedUrl}`.
    pub fn create_signed_url(
        &self,
        path: &str,
        expires_in: i64,
        download: Option<&str>,
    ) -> StorageCall {
        let url_path = format!("/object/sign/{}", final_path(self.bucket, path));
        let mut call = self.api.json_call(
            StorageMethod::Post,
            &url_path,
            &json!({ "expiresIn": expires_in }),
        );
        call.decode = Decode::SignedUrl {
            base: self.api.url().to_owned(),
            query: download_query(download),
        };
        call
    }

    /// POST `/object/sign/<bucket>` `{expiresIn, paths}`: one `{error, path, signedURL}` per
    /// path, each given its absolute `signedUrl` (`null` where the server signed nothing).
    pub fn create_signed_urls(
        &self,
        paths: &[String],
        expires_in: i64,
        download: Option<&str>,
    ) -> StorageCall {
        let url_path = format!("/object/sign/{}", self.bucket);
        let body = json!({ "expiresIn": expires_in, "paths": paths });
        let mut call = self.api.json_call(StorageMethod::Post, &url_path, &body);
        call.decode = Decode::SignedUrls {
            base: self.api.url().to_owned(),
            query: download_query(download),
        };
        call
    }

    /// POST `/object/upload/sign/<bucket>/<path>` `{}` (`x-upsert: true` if asked): answers
    /// `{url}`, which becomes `{signedUrl, token, path}`.
    pub fn create_signed_upload_url(&self, path: &str, upsert: bool) -> StorageCall {
        let url_path = format!("/object/upload/sign/{}", final_path(self.bucket, path));
        let mut call = self
            .api
            .json_call(StorageMethod::Post, &url_path, &json!({}));
        if upsert {
            call.request.set_header("x-upsert", "true");
        }
        call.decode = Decode::SignedUploadUrl {
            base: self.api.url().to_owned(),
            path: path.to_owned(),
        };
        call
    }

    /// `<storage>/object/public/<bucket>/<path>[?download=…]`: where anyone reads an object of a
    /// public bucket. Nothing checks that the bucket is public.
    pub fn public_url(&self, path: &str, download: Option<&str>) -> String {
        let url = encode_uri(&format!(
            "{}/object/public/{}",
            self.api.url(),
            final_path(self.bucket, path)
        ));
        match download_query(download) {
            query if query.is_empty() => url,
            query => format!("{url}?{query}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::api::StorageApi;
    use crate::ClientConfig;

    fn api() -> StorageApi {
        StorageApi::new(&ClientConfig::new("http://h:9", "key").unwrap(), None)
    }

    #[test]
    fn create_signed_url_posts_the_expiry_and_keeps_the_download_for_the_answer() {
        let call = api().from("b").create_signed_url("/d/a.txt", 60, Some(""));
        assert_eq!(call.request.method, StorageMethod::Post);
        assert_eq!(
            call.request.url,
            "http://h:9/storage/v1/object/sign/b/d/a.txt"
        );
        assert_eq!(call.request.json(), Some(json!({"expiresIn": 60})));
        assert_eq!(
            call.decode,
            Decode::SignedUrl {
                base: "http://h:9/storage/v1".into(),
                query: "download=".into()
            }
        );
        let call = api().from("b").create_signed_url("a.txt", 1, None);
        assert_eq!(
            call.decode,
            Decode::SignedUrl {
                base: "http://h:9/storage/v1".into(),
                query: String::new()
            }
        );
    }

    #[test]
    fn create_signed_urls_posts_every_path() {
        let call = api().from("b").create_signed_urls(
            &["a".into(), "c/d".into()],
            30,
            Some("my file.txt"),
        );
        assert_eq!(call.request.url, "http://h:9/storage/v1/object/sign/b");
        assert_eq!(
            call.request.json(),
            Some(json!({"expiresIn": 30, "paths": ["a", "c/d"]}))
        );
        assert_eq!(
            call.decode,
            Decode::SignedUrls {
                base: "http://h:9/storage/v1".into(),
                query: "download=my+file.txt".into()
            }
        );
    }

    #[test]
    fn create_signed_upload_url_asks_for_upsert_only_when_wanted() {
        let call = api().from("b").create_signed_upload_url("d/a.txt", false);
        assert_eq!(
            call.request.url,
            "http://h:9/storage/v1/object/upload/sign/b/d/a.txt"
        );
        assert_eq!(call.request.json(), Some(json!({})));
        assert_eq!(call.request.header("x-upsert"), None);
        assert_eq!(
            call.decode,
            Decode::SignedUploadUrl {
                base: "http://h:9/storage/v1".into(),
                path: "d/a.txt".into()
            }
        );
        let call = api().from("b").create_signed_upload_url("a", true);
        assert_eq!(call.request.header("x-upsert"), Some("true"));
    }

    #[test]
    fn public_urls_are_encoded_as_encode_uri_does() {
        let files = api();
        let files = files.from("b");
        assert_eq!(
            files.public_url("/d/a.txt", None),
            "http://h:9/storage/v1/object/public/b/d/a.txt"
        );
        assert_eq!(
            files.public_url("a b/é.txt", Some("")),
            "http://h:9/storage/v1/object/public/b/a%20b/%C3%A9.txt?download="
        );
        assert_eq!(
            files.public_url("a", Some("x&y")),
            "http://h:9/storage/v1/object/public/b/a?download=x%26y"
        );
    }
}
