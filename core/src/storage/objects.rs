//! The object calls besides sending files and signing URLs: `download`, `list`, `remove`,
//! `move` and `copy`.

use serde_json::{json, Map, Value};

use super::api::{FileApi, StorageCall};
use super::decode::Decode;
use super::path::final_path;
use super::request::StorageMethod;

/// `list`'s options. Left out, storage-js's defaults apply: 100 from 0, by name ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchOptions {
    pub limit: Option<u64>,
    pub offset: Option<u64>,
    pub search: Option<String>,
    /// The sort column (default `name`).
    pub sort_column: Option<String>,
    /// `asc` (default) or `desc`.
    pub sort_order: Option<String>,
}

impl FileApi<'_> {
    /// GET `/object/<bucket>/<path>`: the object's bytes (the wasm layer makes a Blob of them).
    pub fn download(&self, path: &str) -> StorageCall {
        let url_path = format!("/object/{}", final_path(self.bucket, path));
        StorageCall {
            request: self.api.request(StorageMethod::Get, &url_path),
            decode: Decode::Blob,
        }
    }

    /// HEAD `/object/<bucket>/<path>`: `true` when the object is there.
    pub fn exists(&self, path: &str) -> StorageCall {
        let url_path = format!("/object/{}", final_path(self.bucket, path));
        StorageCall {
            request: self.api.request(StorageMethod::Head, &url_path),
            decode: Decode::Exists,
        }
    }

    /// POST `/object/list/<bucket>` `{limit, offset, sortBy, search?, prefix}`: the files and
    /// folders under `prefix` (`""`: the bucket's top level).
    pub fn list(&self, prefix: &str, options: &SearchOptions) -> StorageCall {
        let mut body = Map::new();
        body.insert("limit".into(), options.limit.unwrap_or(100).into());
        body.insert("offset".into(), options.offset.unwrap_or(0).into());
        body.insert(
            "sortBy".into(),
            json!({
                "column": options.sort_column.as_deref().unwrap_or("name"),
                "order": options.sort_order.as_deref().unwrap_or("asc"),
            }),
        );
        if let Some(search) = &options.search {
            body.insert("search".into(), search.as_str().into());
        }
        body.insert("prefix".into(), prefix.into());
        let path = format!("/object/list/{}", self.bucket);
        self.api
            .json_call(StorageMethod::Post, &path, &Value::Object(body))
    }

    /// DELETE `/object/<bucket>` `{prefixes}`: the removed objects.
    pub fn remove(&self, paths: &[String]) -> StorageCall {
        let path = format!("/object/{}", self.bucket);
        self.api
            .json_call(StorageMethod::Delete, &path, &json!({ "prefixes": paths }))
    }

    /// POST `/object/move`: answers `{message}`.
    pub fn move_object(
        &self,
        from: &str,
        to: &str,
        destination_bucket: Option<&str>,
    ) -> StorageCall {
        let body = self.transfer_body(from, to, destination_bucket);
        self.api
            .json_call(StorageMethod::Post, "/object/move", &body)
    }

    /// POST `/object/copy`: answers `{Key}`, which becomes `{path}`.
    pub fn copy(&self, from: &str, to: &str, destination_bucket: Option<&str>) -> StorageCall {
        let body = self.transfer_body(from, to, destination_bucket);
        let mut call = self
            .api
            .json_call(StorageMethod::Post, "/object/copy", &body);
        call.decode = Decode::Copied;
        call
    }

    /// `{bucketId, sourceKey, destinationKey, destinationBucket?}`.
    fn transfer_body(&self, from: &str, to: &str, destination_bucket: Option<&str>) -> Value {
        let mut body = json!({
            "bucketId": self.bucket,
            "sourceKey": from,
            "destinationKey": to,
        });
        if let Some(bucket) = destination_bucket {
            body["destinationBucket"] = bucket.into();
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::api::StorageApi;
    use crate::storage::request::StorageBody;
    use crate::ClientConfig;

    fn api() -> StorageApi {
        StorageApi::new(&ClientConfig::new("http://h", "key").unwrap(), None)
    }

    #[test]
    fn download_gets_the_object_and_decodes_a_blob() {
        let call = api().from("b").download("/d/a b.txt");
        assert_eq!(call.request.method, StorageMethod::Get);
        assert_eq!(call.request.url, "http://h/storage/v1/object/b/d/a b.txt");
        assert_eq!(call.request.body, StorageBody::None);
        assert_eq!(call.decode, Decode::Blob);
    }

    #[test]
    fn exists_asks_with_head() {
        let call = api().from("b").exists("/d/a.txt");
        assert_eq!(call.request.method, StorageMethod::Head);
        assert_eq!(call.request.url, "http://h/storage/v1/object/b/d/a.txt");
        assert_eq!(call.request.body, StorageBody::None);
        assert_eq!(call.decode, Decode::Exists);
    }

    #[test]
    fn list_fills_in_storage_js_defaults() {
        let call = api().from("b").list("", &SearchOptions::default());
        assert_eq!(call.request.method, StorageMethod::Post);
        assert_eq!(call.request.url, "http://h/storage/v1/object/list/b");
        assert_eq!(
            call.request.json(),
            Some(
                json!({"limit": 100, "offset": 0, "sortBy": {"column": "name", "order": "asc"}, "prefix": ""})
            )
        );
        let options = SearchOptions {
            limit: Some(2),
            offset: Some(4),
            search: Some("box".into()),
            sort_column: Some("created_at".into()),
            sort_order: None,
        };
        assert_eq!(
            api().from("b").list("teaser", &options).request.json(),
            Some(json!({"limit": 2, "offset": 4, "search": "box",
                "sortBy": {"column": "created_at", "order": "asc"}, "prefix": "teaser"}))
        );
    }

    #[test]
    fn remove_sends_the_paths_as_prefixes() {
        let call = api().from("b").remove(&["a.txt".into(), "d/c.txt".into()]);
        assert_eq!(call.request.method, StorageMethod::Delete);
        assert_eq!(call.request.url, "http://h/storage/v1/object/b");
        assert_eq!(
            call.request.json(),
            Some(json!({"prefixes": ["a.txt", "d/c.txt"]}))
        );
        assert_eq!(call.decode, Decode::Json);
    }

    #[test]
    fn move_and_copy_name_source_and_destination() {
        let call = api().from("b").move_object("a.txt", "d/a.txt", None);
        assert_eq!(call.request.url, "http://h/storage/v1/object/move");
        assert_eq!(
            call.request.json(),
            Some(json!({"bucketId": "b", "sourceKey": "a.txt", "destinationKey": "d/a.txt"}))
        );
        assert_eq!(call.decode, Decode::Json);
        let call = api().from("b").copy("a.txt", "a2.txt", Some("other"));
        assert_eq!(call.request.method, StorageMethod::Post);
        assert_eq!(call.request.url, "http://h/storage/v1/object/copy");
        assert_eq!(
            call.request.json(),
            Some(
                json!({"bucketId": "b", "sourceKey": "a.txt", "destinationKey": "a2.txt",
                "destinationBucket": "other"})
            )
        );
        assert_eq!(call.decode, Decode::Copied);
    }
}
