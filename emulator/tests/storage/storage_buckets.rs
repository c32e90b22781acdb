//! Buckets: creating, reading, listing, updating, emptying and deleting, as the service role;
//! and what everyone else sees of them (nothing).

use crate::storage_support::StorageApp;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn a_bucket_is_created_read_updated_and_deleted() {
    let app = StorageApp::new();
    let response = app
        .service(Method::POST, "/bucket")
        .json(&json!({"id": "photos", "name": "photos", "public": true,
                      "file_size_limit": "1MB", "allowed_mime_types": ["image/*"]}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.text());
    assert_eq!(response.json(), json!({"name": "photos"}));

    let bucket = app
        .service(Method::GET, "/bucket/photos")
        .send()
        .await
        .json();
    assert_eq!(bucket["id"], "photos");
    assert_eq!(bucket["name"], "photos");
    assert_eq!(bucket["public"], true);
    assert_eq!(bucket["file_size_limit"], 1_000_000);
    assert_eq!(bucket["allowed_mime_types"], json!(["image/*"]));
    assert!(bucket["created_at"].as_str().unwrap().ends_with('Z'));

    let response = app
        .service(Method::PUT, "/bucket/photos")
        .json(&json!({"id": "photos", "public": false, "file_size_limit": 10}))
        .send()
        .await;
    assert_eq!(response.json(), json!({"message": "Successfully updated"}));
    let bucket = app
        .service(Method::GET, "/bucket/photos")
        .send()
        .await
        .json();
    assert_eq!(
        (&bucket["public"], &bucket["file_size_limit"]),
        (&json!(false), &json!(10))
    );

    let response = app
        .service(Method::DELETE, "/bucket/photos")
        .json(&json!({}))
        .send()
        .await;
    assert_eq!(response.json(), json!({"message": "Successfully deleted"}));
    app.service(Method::GET, "/bucket/photos")
        .send()
        .await
        .assert_error("404", "NoSuchBucket", "Bucket not found");
}

#[tokio::test]
async fn a_bucket_with_objects_is_refused_deletion_until_emptied() {
    let app = StorageApp::new();
    app.create_bucket(json!({"id": "b", "name": "b", "public": false}))
        .await;
    app.put_object("b", "a.txt", b"a", "text/plain").await;
    app.put_object("b", "f/b.txt", b"b", "text/plain").await;
    app.service(Method::DELETE, "/bucket/b")
        .json(&json!({}))
        .send()
        .await
        .assert_error(
            "409",
            "ResourceNotEmpty",
            "The bucket you tried to delete is not empty",
        );
    let response = app
        .service(Method::POST, "/bucket/b/empty")
        .json(&json!({}))
        .send()
        .await;
    assert_eq!(response.json(), json!({"message": "Successfully emptied"}));
    assert!(app.files_on_disk().is_empty(), "emptying removes the files");
    let response = app.service(Method::DELETE, "/bucket/b").send().await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.text());
}

#[tokio::test]
async fn duplicate_and_invalid_buckets_are_refused() {
    let app = StorageApp::new();
    app.create_bucket(json!({"id": "b", "name": "b"})).await;
    app.service(Method::POST, "/bucket")
        .json(&json!({"id": "b", "name": "b"}))
        .send()
        .await
        .assert_error("409", "BucketAlreadyExists", "The resource already exists");
    for name in ["", "a/b", "..", "caf\u{e9}", &"x".repeat(101)] {
        app.service(Method::POST, "/bucket")
            .json(&json!({"id": name, "name": name}))
            .send()
            .await
            .assert_error("400", "InvalidBucketName", "Bucket name invalid");
    }
    app.service(Method::POST, "/bucket")
        .json(&json!({"id": "m", "allowed_mime_types": ["not a type"]}))
        .send()
        .await
        .assert_error(
            "415",
            "InvalidMimeType",
            "mime type not a type is not supported",
        );
    // A bucket cannot allow more than the global cap.
    app.service(Method::POST, "/bucket")
        .json(&json!({"id": "huge", "file_size_limit": "60GB"}))
        .send()
        .await
        .assert_too_large();
}

#[tokio::test]
async fn bucket_lists_search_sort_and_page() {
    let app = StorageApp::new();
    for id in ["cherry", "apple", "banana", "apricot"] {
        app.create_bucket(json!({"id": id})).await;
        app.clock.advance_seconds(1);
    }
    let ids = |path: &'static str| {
        let app = &app;
        async move {
            let response = app.service(Method::GET, path).send().await;
            assert_eq!(response.status, StatusCode::OK, "{}", response.text());
            response
                .json()
                .as_array()
                .unwrap()
                .iter()
                .map(|bucket| bucket["id"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        ids("/bucket").await,
        ["apple", "apricot", "banana", "cherry"]
    );
    assert_eq!(ids("/bucket?search=ap").await, ["apple", "apricot"]);
    assert_eq!(
        ids("/bucket?sortColumn=created_at&sortOrder=desc").await,
        ["apricot", "banana", "apple", "cherry"]
    );
    assert_eq!(ids("/bucket?limit=2&offset=1").await, ["apricot", "banana"]);
    app.service(Method::GET, "/bucket?sortColumn=size")
        .send()
        .await
        .assert_error("400", "InvalidParameter", "Invalid Parameter sortColumn");
}

#[tokio::test]
async fn only_the_service_role_sees_or_changes_buckets() {
    let app = StorageApp::new();
    app.create_bucket(json!({"id": "b", "public": true})).await;
    let listed = app.anon(Method::GET, "/bucket").send().await;
    assert_eq!(listed.json(), json!([]));
    app.anon(Method::GET, "/bucket/b")
        .send()
        .await
        .assert_error("404", "NoSuchBucket", "Bucket not found");
    app.user(Method::POST, "/bucket", "u1")
        .json(&json!({"id": "mine"}))
        .send()
        .await
        .assert_error(
            "403",
            "AccessDenied",
            "new row violates row-level security policy",
        );
    app.anon(Method::DELETE, "/bucket/b")
        .send()
        .await
        .assert_error("404", "NoSuchBucket", "Bucket not found");
    // The new-format secret key is the service role too.
    let secret = app.state.keys.secret_key().to_owned();
    let listed = app
        .request(Method::GET, "/bucket")
        .key(&secret)
        .send()
        .await;
    assert_eq!(listed.json().as_array().unwrap().len(), 1);
}
