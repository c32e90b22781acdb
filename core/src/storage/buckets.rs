//! The bucket calls: `listBuckets`, `getBucket`, `createBucket`, `updateBucket`, `emptyBucket`,
//! `deleteBucket`. Bucket ids go into the path as storage-js puts them, unencoded.

use serde_json::{json, Map, Value};

use super::api::{StorageApi, StorageCall};
use super::decode::Decode;
use super::request::StorageMethod;
use crate::client::http::encode_query;

/// `listBuckets`' options; each one given goes into the query string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListBucketsOptions {
    pub limit: Option<u64>,
    pub offset: Option<u64>,
    pub search: Option<String>,
    /// `id`, `name`, `created_at` or `updated_at`.
    pub sort_column: Option<String>,
    /// `asc` or `desc`.
    pub sort_order: Option<String>,
}

/// A bucket's size limit: bytes, or text the server reads (`"1mb"`, `"500KB"`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileSizeLimit {
    Bytes(u64),
    Text(String),
}

/// `createBucket` and `updateBucket`'s options. `None` leaves a field out of the body; the inner
/// `None` of the limits sends `null` (no limit).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BucketOptions {
    pub public: Option<bool>,
    pub file_size_limit: Option<Option<FileSizeLimit>>,
    pub allowed_mime_types: Option<Option<Vec<String>>>,
    /// `STANDARD` or `ANALYTICS`; only `createBucket` sends it.
    pub bucket_type: Option<String>,
}

impl BucketOptions {
    /// `{id, name: id, type?, public?, file_size_limit?, allowed_mime_types?}`.
    fn body(&self, id: &str, with_type: bool) -> Value {
        let mut body = Map::new();
        body.insert("id".into(), id.into());
        body.insert("name".into(), id.into());
        if let (true, Some(bucket_type)) = (with_type, &self.bucket_type) {
            body.insert("type".into(), bucket_type.as_str().into());
        }
        if let Some(public) = self.public {
            body.insert("public".into(), public.into());
        }
        if let Some(limit) = &self.file_size_limit {
            let limit = match limit {
                Some(FileSizeLimit::Bytes(bytes)) => (*bytes).into(),
                Some(FileSizeLimit::Text(text)) => text.as_str().into(),
                None => Value::Null,
            };
            body.insert("file_size_limit".into(), limit);
        }
        if let Some(types) = &self.allowed_mime_types {
            body.insert("allowed_mime_types".into(), json!(types));
        }
        Value::Object(body)
    }
}

impl StorageApi {
    /// GET `/bucket[?limit&offset&search&sortColumn&sortOrder]`: the buckets.
    pub fn list_buckets(&self, options: &ListBucketsOptions) -> StorageCall {
        let mut query = Vec::new();
        let mut add = |name: &str, value: Option<String>| {
            if let Some(value) = value {
                query.push((name.to_owned(), value));
            }
        };
        add("limit", options.limit.map(|limit| limit.to_string()));
        add("offset", options.offset.map(|offset| offset.to_string()));
        // storage-js skips an empty search, sortColumn or sortOrder.
        let text = |value: &Option<String>| value.clone().filter(|value| !value.is_empty());
        add("search", text(&options.search));
        add("sortColumn", text(&options.sort_column));
        add("sortOrder", text(&options.sort_order));
        let path = if query.is_empty() {
            "/bucket".to_owned()
        } else {
            format!("/bucket?{}", encode_query(&query))
        };
        self.plain_call(StorageMethod::Get, &path)
    }

    /// GET `/bucket/<id>`: one bucket.
    pub fn get_bucket(&self, id: &str) -> StorageCall {
        self.plain_call(StorageMethod::Get, &format!("/bucket/{id}"))
    }

    /// POST `/bucket`: answers `{name}`.
    pub fn create_bucket(&self, id: &str, options: &BucketOptions) -> StorageCall {
        self.json_call(StorageMethod::Post, "/bucket", &options.body(id, true))
    }

    /// PUT `/bucket/<id>`, the create body without `type`: answers `{message}`.
    pub fn update_bucket(&self, id: &str, options: &BucketOptions) -> StorageCall {
        let path = format!("/bucket/{id}");
        self.json_call(StorageMethod::Put, &path, &options.body(id, false))
    }

    /// POST `/bucket/<id>/empty` with `{}`: answers `{message}`.
    pub fn empty_bucket(&self, id: &str) -> StorageCall {
        self.json_call(
            StorageMethod::Post,
            &format!("/bucket/{id}/empty"),
            &json!({}),
        )
    }

    /// DELETE `/bucket/<id>` with `{}`: answers `{message}`.
    pub fn delete_bucket(&self, id: &str) -> StorageCall {
        self.json_call(StorageMethod::Delete, &format!("/bucket/{id}"), &json!({}))
    }

    fn plain_call(&self, method: StorageMethod, path: &str) -> StorageCall {
        StorageCall {
            request: self.request(method, path),
            decode: Decode::Json,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::request::StorageBody;
    use crate::ClientConfig;

    fn api() -> StorageApi {
        StorageApi::new(&ClientConfig::new("http://h", "key").unwrap(), None)
    }

    #[test]
    fn list_buckets_puts_each_given_option_in_the_query() {
        let call = api().list_buckets(&ListBucketsOptions::default());
        assert_eq!(call.request.method, StorageMethod::Get);
        assert_eq!(call.request.url, "http://h/storage/v1/bucket");
        assert_eq!(call.request.body, StorageBody::None);
        assert_eq!(call.decode, Decode::Json);
        let options = ListBucketsOptions {
            limit: Some(10),
            offset: Some(0),
            search: Some("pro d".into()),
            sort_column: Some("created_at".into()),
            sort_order: Some("desc".into()),
        };
        assert_eq!(
            api().list_buckets(&options).request.url,
            "http://h/storage/v1/bucket?limit=10&offset=0&search=pro+d&sortColumn=created_at&sortOrder=desc"
        );
        let options = ListBucketsOptions {
            search: Some(String::new()),
            offset: Some(5),
            ..ListBucketsOptions::default()
        };
        assert_eq!(
            api().list_buckets(&options).request.url,
            "http://h/storage/v1/bucket?offset=5"
        );
    }

    #[test]
    fn get_bucket_names_the_bucket_in_the_path() {
        let call = api().get_bucket("photos");
        assert_eq!(call.request.method, StorageMethod::Get);
        assert_eq!(call.request.url, "http://h/storage/v1/bucket/photos");
    }

    #[test]
    fn create_bucket_sends_id_name_and_the_given_options() {
        let options = BucketOptions {
            public: Some(true),
            file_size_limit: Some(Some(FileSizeLimit::Text("1mb".into()))),
            allowed_mime_types: Some(Some(vec!["image/*".into()])),
            bucket_type: Some("STANDARD".into()),
        };
        let call = api().create_bucket("photos", &options);
        assert_eq!(call.request.method, StorageMethod::Post);
        assert_eq!(call.request.url, "http://h/storage/v1/bucket");
        assert_eq!(
            call.request.header("content-type"),
            Some("application/json")
        );
        assert_eq!(
            call.request.json(),
            Some(
                json!({"id": "photos", "name": "photos", "type": "STANDARD", "public": true,
                "file_size_limit": "1mb", "allowed_mime_types": ["image/*"]})
            )
        );
        let bare = api().create_bucket("b", &BucketOptions::default());
        assert_eq!(bare.request.json(), Some(json!({"id": "b", "name": "b"})));
    }

    #[test]
    fn update_bucket_puts_the_body_without_type_and_sends_nulls() {
        let options = BucketOptions {
            public: Some(false),
            file_size_limit: Some(None),
            allowed_mime_types: Some(None),
            bucket_type: Some("ANALYTICS".into()),
        };
        let call = api().update_bucket("b", &options);
        assert_eq!(call.request.method, StorageMethod::Put);
        assert_eq!(call.request.url, "http://h/storage/v1/bucket/b");
        assert_eq!(
            call.request.json(),
            Some(
                json!({"id": "b", "name": "b", "public": false, "file_size_limit": null,
                "allowed_mime_types": null})
            )
        );
        let options = BucketOptions {
            file_size_limit: Some(Some(FileSizeLimit::Bytes(1024))),
            ..BucketOptions::default()
        };
        let body = api().update_bucket("b", &options).request.json().unwrap();
        assert_eq!(body["file_size_limit"], json!(1024));
    }

    #[test]
    fn empty_and_delete_send_an_empty_object() {
        let call = api().empty_bucket("b");
        assert_eq!(call.request.method, StorageMethod::Post);
        assert_eq!(call.request.url, "http://h/storage/v1/bucket/b/empty");
        assert_eq!(call.request.body, StorageBody::Json("{}".into()));
        let call = api().delete_bucket("b");
        assert_eq!(call.request.method, StorageMethod::Delete);
        assert_eq!(call.request.url, "http://h/storage/v1/bucket/b");
        assert_eq!(call.request.body, StorageBody::Json("{}".into()));
    }
}
