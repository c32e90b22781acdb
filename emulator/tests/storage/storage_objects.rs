//! Objects as the service role: upload (raw and multipart), replace, download, list, remove,
//! move and copy, with Storage's bodies.

use crate::storage_support::{form, StorageApp};
use axum::http::{Method, StatusCode};
use base64::Engine;
use serde_json::{json, Value};

async fn app_with_bucket() -> StorageApp {
    let app = StorageApp::new();
    app.create_bucket(json!({"id": "b", "name": "b", "public": false}))
        .await;
    app
}

#[tokio::test]
async fn a_raw_upload_is_stored_and_read_back_with_its_headers() {
    let app = app_with_bucket().await;
    let metadata = base64::engine::general_purpose::STANDARD.encode(r#"{"owner":"cacher"}"#);
    let response = app
        .service(Method::POST, "/object/b/folder/note.txt")
        .header("content-type", "text/plain;charset=UTF-8")
        .header("cache-control", "max-age=3600")
        .header("x-upsert", "false")
        .header("x-metadata", &metadata)
        .bytes(b"hello cache".to_vec())
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.text());
    let body = response.json();
    assert_eq!(body["Key"], "b/folder/note.txt");
    assert_eq!(body.as_object().unwrap().len(), 2, "{body}");
    let id = body["Id"].as_str().unwrap().to_owned();

    let download = app
        .service(Method::GET, "/object/b/folder/note.txt")
        .send()
        .await;
    assert_eq!(download.status, StatusCode::OK);
    assert_eq!(download.bytes, b"hello cache");
    assert_eq!(
        download.header("content-type"),
        Some("text/plain;charset=UTF-8")
    );
    assert_eq!(download.header("cache-control"), Some("max-age=3600"));
    assert_eq!(download.header("content-length"), Some("11"));
    assert!(download.header("etag").unwrap().starts_with('"'));
    // The authenticated route is the same read.
    let same = app
        .service(
            Method::GET,
            "/object/authenticated/b/folder/note.txt?download",
        )
        .send()
        .await;
    assert_eq!(same.bytes, b"hello cache");
    assert_eq!(
        same.header("content-disposition"),
        Some("attachment; filename=\"note.txt\"")
    );

    let removed = app
        .service(Method::DELETE, "/object/b")
        .json(&json!({"prefixes": ["folder/note.txt", "not/there.txt"]}))
        .send()
        .await
        .json();
    assert_eq!(removed.as_array().unwrap().len(), 1, "{removed}");
    assert_eq!(removed[0]["id"], id.as_str());
    assert_eq!(removed[0]["name"], "folder/note.txt");
    assert_eq!(removed[0]["user_metadata"], json!({"owner": "cacher"}));
    assert!(app.files_on_disk().is_empty(), "removal removes the file");
    app.service(Method::GET, "/object/b/folder/note.txt")
        .send()
        .await
        .assert_error("404", "NoSuchKey", "Object not found");
}

#[tokio::test]
async fn an_existing_object_is_replaced_only_when_asked() {
    let app = app_with_bucket().await;
    app.put_object("b", "a.txt", b"first", "text/plain").await;
    app.service(Method::POST, "/object/b/a.txt")
        .header("content-type", "text/plain")
        .bytes(b"second".to_vec())
        .send()
        .await
        .assert_error("409", "KeyAlreadyExists", "The resource already exists");
    let upsert = app
        .service(Method::POST, "/object/b/a.txt")
        .header("content-type", "text/plain")
        .header("x-upsert", "true")
        .bytes(b"second".to_vec())
        .send()
        .await;
    assert_eq!(upsert.status, StatusCode::OK, "{}", upsert.text());
    let update = app
        .service(Method::PUT, "/object/b/a.txt")
        .header("content-type", "application/json")
        .bytes(b"{\"third\":3}".to_vec())
        .send()
        .await;
    assert_eq!(update.status, StatusCode::OK, "{}", update.text());
    assert_eq!(update.json()["Id"], upsert.json()["Id"], "the id stays");
    let read = app.service(Method::GET, "/object/b/a.txt").send().await;
    assert_eq!(read.bytes, b"{\"third\":3}");
    assert_eq!(read.header("content-type"), Some("application/json"));
    assert_eq!(app.files_on_disk().len(), 1, "old files are removed");
}

#[tokio::test]
async fn a_multipart_upload_takes_the_parts_type_and_cache_control() {
    let app = app_with_bucket().await;
    let png = [0x89, b'P', b'N', b'G', 0, 1, 2, 3];
    let response = app
        .service(Method::POST, "/object/b/cache.png")
        .header(
            "content-type",
            "multipart/form-data; boundary=----formdata-0",
        )
        .bytes(form("----formdata-0", "60", "image/png", &png))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.text());
    let read = app.service(Method::GET, "/object/b/cache.png").send().await;
    assert_eq!(read.bytes, png);
    assert_eq!(read.header("content-type"), Some("image/png"));
    assert_eq!(read.header("cache-control"), Some("max-age=60"));
    // A body cut short is refused and leaves nothing.
    let mut truncated = form("----formdata-0", "60", "image/png", &png);
    truncated.truncate(truncated.len() - 8);
    app.service(Method::POST, "/object/b/cut.png")
        .header(
            "content-type",
            "multipart/form-data; boundary=----formdata-0",
        )
        .bytes(truncated)
        .send()
        .await
        .assert_error("400", "InvalidRequest", "the multipart body ended early");
    assert_eq!(app.files_on_disk().len(), 1);
}

fn names(listing: &Value) -> Vec<String> {
    listing
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_listing_is_one_level_with_folders_searched_sorted_and_paged() {
    let app = app_with_bucket().await;
    for name in ["b.txt", "a/x.txt", "a/y/z.txt", "c.txt", "Abc.txt"] {
        app.put_object("b", name, b"x", "text/plain").await;
        app.clock.advance_seconds(1);
    }
    let list = |body: Value| {
        let app = &app;
        async move {
            let response = app
                .service(Method::POST, "/object/list/b")
                .json(&body)
                .send()
                .await;
            assert_eq!(response.status, StatusCode::OK, "{}", response.text());
            response.json()
        }
    };
    let top = list(json!({"prefix": "", "limit": 100, "offset": 0,
                          "sortBy": {"column": "name", "order": "asc"}}))
    .await;
    assert_eq!(names(&top), ["Abc.txt", "a", "b.txt", "c.txt"]);
    let folder = &top[1];
    assert_eq!(folder["id"], Value::Null);
    assert_eq!(folder["metadata"], Value::Null);
    let file = &top[2];
    assert!(file["id"].is_string());
    assert_eq!(file["metadata"]["size"], 1);
    assert_eq!(file["metadata"]["mimetype"], "text/plain");

    assert_eq!(names(&list(json!({"prefix": "a"})).await), ["x.txt", "y"]);
    assert_eq!(
        names(&list(json!({"prefix": "", "search": "a"})).await),
        ["Abc.txt", "a"]
    );
    assert_eq!(
        names(
            &list(json!({"prefix": "", "sortBy": {"column": "created_at", "order": "desc"}})).await
        ),
        ["a", "Abc.txt", "c.txt", "b.txt"]
    );
    assert_eq!(
        names(&list(json!({"prefix": "", "limit": 2, "offset": 1})).await),
        ["a", "b.txt"]
    );
    app.service(Method::POST, "/object/list/b")
        .json(&json!({"limit": 1}))
        .send()
        .await
        .assert_error(
            "400",
            "InvalidRequest",
            "body must have required property 'prefix'",
        );
}

#[tokio::test]
async fn objects_move_and_copy_within_and_across_buckets() {
    let app = app_with_bucket().await;
    app.create_bucket(json!({"id": "other"})).await;
    app.put_object("b", "a.txt", b"moving", "text/plain").await;
    app.put_object("b", "taken.txt", b"t", "text/plain").await;

    let moved = app
        .service(Method::POST, "/object/move")
        .json(&json!({"bucketId": "b", "sourceKey": "a.txt", "destinationKey": "f/a.txt"}))
        .send()
        .await;
    assert_eq!(moved.json(), json!({"message": "Successfully moved"}));
    app.service(Method::GET, "/object/b/a.txt")
        .send()
        .await
        .assert_error("404", "NoSuchKey", "Object not found");

    let across = app
        .service(Method::POST, "/object/move")
        .json(&json!({"bucketId": "b", "sourceKey": "f/a.txt",
                      "destinationKey": "a.txt", "destinationBucket": "other"}))
        .send()
        .await;
    assert_eq!(across.status, StatusCode::OK, "{}", across.text());
    let read = app.service(Method::GET, "/object/other/a.txt").send().await;
    assert_eq!(read.bytes, b"moving");

    let copied = app
        .service(Method::POST, "/object/copy")
        .json(&json!({"bucketId": "other", "sourceKey": "a.txt",
                      "destinationKey": "copy.txt", "destinationBucket": "b"}))
        .send()
        .await;
    assert_eq!(copied.json(), json!({"Key": "b/copy.txt"}));
    let read = app.service(Method::GET, "/object/b/copy.txt").send().await;
    assert_eq!(read.bytes, b"moving");
    assert_eq!(app.files_on_disk().len(), 3);

    app.service(Method::POST, "/object/copy")
        .json(&json!({"bucketId": "b", "sourceKey": "copy.txt", "destinationKey": "taken.txt"}))
        .send()
        .await
        .assert_error("409", "KeyAlreadyExists", "The resource already exists");
    app.service(Method::POST, "/object/move")
        .json(&json!({"bucketId": "b", "sourceKey": "nothing.txt", "destinationKey": "x.txt"}))
        .send()
        .await
        .assert_error("404", "NoSuchKey", "Object not found");
    app.service(Method::POST, "/object/move")
        .json(&json!({"bucketId": "b", "sourceKey": "copy.txt", "destinationKey": "../x.txt"}))
        .send()
        .await
        .assert_error("400", "InvalidKey", "Invalid key: ../x.txt");
}

#[tokio::test]
async fn image_transformations_are_not_emulated() {
    let app = app_with_bucket().await;
    app.service(Method::GET, "/render/image/authenticated/b/a.png?width=10")
        .send()
        .await
        .assert_error(
            "409",
            "NotSupported",
            "The feature image transformation is not enabled for this resource",
        );
}
