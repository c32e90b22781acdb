//! Signed URLs: made for an object, served without a key until they expire, refused when
//! tampered with or used for another object; signed upload URLs likewise.

use crate::storage_support::StorageApp;
use axum::http::{Method, StatusCode};
use serde_json::json;

/// `jose`'s words for an expired token, which Storage passes on.
const EXPIRED: &str = "\"exp\" claim timestamp check failed";

async fn app_with_object() -> StorageApp {
    let app = StorageApp::new();
    app.create_bucket(json!({"id": "b"})).await;
    app.put_object("b", "f/a.txt", b"signed bytes", "text/plain")
        .await;
    app
}

async fn sign(app: &StorageApp, path: &str, expires_in: i64) -> String {
    let response = app
        .service(Method::POST, &format!("/object/sign/b/{path}"))
        .json(&json!({"expiresIn": expires_in}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.text());
    let body = response.json();
    assert_eq!(body.as_object().unwrap().len(), 1, "{body}");
    body["signedURL"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_signed_url_serves_its_object_without_a_key_until_it_expires() {
    let app = app_with_object().await;
    let url = sign(&app, "f/a.txt", 60).await;
    assert!(url.starts_with("/object/sign/b/f/a.txt?token="), "{url}");
    let read = app.request(Method::GET, &url).send().await;
    assert_eq!(read.status, StatusCode::OK, "{}", read.text());
    assert_eq!(read.bytes, b"signed bytes");

    app.clock.advance_seconds(60);
    app.request(Method::GET, &url)
        .send()
        .await
        .assert_error("400", "InvalidJWT", EXPIRED);
}

#[tokio::test]
async fn tampered_tokens_and_tokens_for_other_objects_are_refused() {
    let app = app_with_object().await;
    app.put_object("b", "other.txt", b"other", "text/plain")
        .await;
    let url = sign(&app, "f/a.txt", 60).await;
    let token = url.split("token=").nth(1).unwrap();
    // The signature's first character carries six whole bits: changing it changes the signature.
    let at = url.rfind('.').unwrap() + 1;
    let first = &url[at..=at];
    let tampered = format!(
        "{}{}{}",
        &url[..at],
        if first == "A" { "B" } else { "A" },
        &url[at + 1..]
    );
    app.request(Method::GET, &tampered)
        .send()
        .await
        .assert_error("400", "InvalidJWT", "signature verification failed");
    app.request(
        Method::GET,
        &format!("/object/sign/b/other.txt?token={token}"),
    )
    .send()
    .await
    .assert_error("400", "InvalidSignature", "Invalid signature");
    app.request(Method::GET, "/object/sign/b/f/a.txt")
        .send()
        .await
        .assert_error("400", "InvalidSignature", "Missing token");
    // The project's API keys are JWTs signed with the same secret, but no signed URL.
    let service = app.service.clone();
    app.request(
        Method::GET,
        &format!("/object/sign/b/f/a.txt?token={service}"),
    )
    .send()
    .await
    .assert_error("400", "InvalidSignature", "Invalid signature");
    app.service(Method::POST, "/object/sign/b/f/a.txt")
        .json(&json!({"expiresIn": 0}))
        .send()
        .await
        .assert_error("400", "InvalidRequest", "body/expiresIn must be >= 1");
    app.service(Method::POST, "/object/sign/b/missing.txt")
        .json(&json!({"expiresIn": 10}))
        .send()
        .await
        .assert_error("404", "NoSuchKey", "Object not found");
}

#[tokio::test]
async fn several_urls_are_signed_at_once() {
    let app = app_with_object().await;
    let response = app
        .service(Method::POST, "/object/sign/b")
        .json(&json!({"expiresIn": 60, "paths": ["f/a.txt", "missing.txt"]}))
        .send()
        .await;
    let body = response.json();
    assert_eq!(body[0]["error"], serde_json::Value::Null);
    assert_eq!(body[0]["path"], "f/a.txt");
    let url = body[0]["signedURL"].as_str().unwrap();
    let read = app.request(Method::GET, url).send().await;
    assert_eq!(read.bytes, b"signed bytes");
    assert_eq!(
        body[1],
        json!({"error": "Either the object does not exist or you do not have access to it",
               "path": "missing.txt", "signedURL": null})
    );
}

#[tokio::test]
async fn a_signed_upload_url_takes_one_upload_without_a_key() {
    let app = StorageApp::with(&["b:insert:anon"], 1024);
    app.create_bucket(json!({"id": "b"})).await;
    let response = app
        .anon(Method::POST, "/object/upload/sign/b/up/new.txt")
        .json(&json!({}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.text());
    let url = response.json()["url"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with("/object/upload/sign/b/up/new.txt?token="),
        "{url}"
    );

    let uploaded = app
        .request(Method::PUT, &url)
        .header("content-type", "text/plain")
        .bytes(b"via signed url".to_vec())
        .send()
        .await;
    assert_eq!(uploaded.status, StatusCode::OK, "{}", uploaded.text());
    assert_eq!(uploaded.json(), json!({"Key": "b/up/new.txt"}));
    let read = app
        .service(Method::GET, "/object/b/up/new.txt")
        .send()
        .await;
    assert_eq!(read.bytes, b"via signed url");

    // An upload URL serves one upload.
    app.request(Method::PUT, &url)
        .header("content-type", "text/plain")
        .bytes(b"again".to_vec())
        .send()
        .await
        .assert_error("400", "InvalidJWT", "The upload URL has been used already");
    // An upload token is no download token.
    let token = url.split("token=").nth(1).unwrap();
    app.request(
        Method::GET,
        &format!("/object/sign/b/up/new.txt?token={token}"),
    )
    .send()
    .await
    .assert_error("400", "InvalidSignature", "Invalid signature");
    // Nor does it upload elsewhere.
    app.request(
        Method::PUT,
        &format!("/object/upload/sign/b/elsewhere.txt?token={token}"),
    )
    .header("content-type", "text/plain")
    .bytes(b"x".to_vec())
    .send()
    .await
    .assert_error("400", "InvalidSignature", "Invalid signature");
    // Signing an upload needs the insert policy.
    app.anon(Method::POST, "/object/upload/sign/b/up/new.txt")
        .header("x-upsert", "true")
        .json(&json!({}))
        .send()
        .await
        .assert_error(
            "403",
            "AccessDenied",
            "new row violates row-level security policy",
        );
}

/// A signed upload URL lives two hours, as hosted Storage's do: it still takes an upload in the
/// last second, and is refused with the JWT library's reason from the two-hour mark on.
#[tokio::test]
async fn a_signed_upload_url_expires_after_two_hours() {
    const TWO_HOURS: i64 = 2 * 60 * 60;
    let app = StorageApp::with(&["b:insert:anon"], 1024);
    app.create_bucket(json!({"id": "b"})).await;
    let sign = |name: &'static str| {
        let call = app.anon(Method::POST, &format!("/object/upload/sign/b/{name}"));
        async move {
            let response = call.send().await;
            assert_eq!(response.status, StatusCode::OK, "{}", response.text());
            response.json()["url"].as_str().unwrap().to_owned()
        }
    };
    let in_time = sign("in-time.txt").await;
    let late = sign("late.txt").await;
    let put = |url: &str| {
        app.request(Method::PUT, url)
            .header("content-type", "text/plain")
            .bytes(b"bytes".to_vec())
            .send()
    };

    app.clock.advance_seconds(TWO_HOURS - 1);
    let uploaded = put(&in_time).await;
    assert_eq!(uploaded.status, StatusCode::OK, "{}", uploaded.text());
    app.clock.advance_seconds(1);
    put(&late).await.assert_error("400", "InvalidJWT", EXPIRED);
    app.service(Method::GET, "/object/b/late.txt")
        .send()
        .await
        .assert_error("404", "NoSuchKey", "Object not found");
}
