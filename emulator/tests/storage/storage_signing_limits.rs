//! What signing may cost and grant: at most 1,000 paths, looked up only with the policy, for a
//! week at most; an upload URL needs what its upload needs and serves one upload; a URL's token is
//! no credential.

use crate::storage_support::{Call, Reply, StorageApp};
use axum::http::{Method, StatusCode};
use geocache_emulator::storage::settings::DEFAULT_MAX_FILE_SIZE;
use geocache_emulator::storage::signing::{MAX_EXPIRES_IN_SECONDS, MAX_SIGNED_PATHS};
use serde_json::json;

const RLS: &str = "new row violates row-level security policy";
const NOT_SIGNED: &str = "Either the object does not exist or you do not have access to it";

async fn app_with(policies: &[&str]) -> StorageApp {
    let app = StorageApp::with(policies, DEFAULT_MAX_FILE_SIZE);
    app.create_bucket(json!({"id": "b"})).await;
    app
}

fn sign_many(app: &StorageApp, paths: &[String]) -> Call {
    app.anon(Method::POST, "/object/sign/b")
        .json(&json!({"expiresIn": 60, "paths": paths}))
}

#[tokio::test]
async fn signing_many_paths_is_capped_and_refused_before_any_lookup() {
    let app = app_with(&["b:select:anon"]).await;
    let too_many: Vec<String> = (0..=MAX_SIGNED_PATHS).map(|i| format!("{i}.txt")).collect();
    sign_many(&app, &too_many).send().await.assert_error(
        "400",
        "InvalidRequest",
        &format!("body/paths must NOT have more than {MAX_SIGNED_PATHS} items"),
    );
    // A list far past the cap is read over, not kept, and gets the same answer.
    let huge: Vec<String> = (0..50_000).map(|i| format!("{i}")).collect();
    sign_many(&app, &huge).send().await.assert_error(
        "400",
        "InvalidRequest",
        &format!("body/paths must NOT have more than {MAX_SIGNED_PATHS} items"),
    );
}

#[tokio::test]
async fn up_to_the_cap_every_path_is_answered_in_order_across_lookup_batches() {
    let app = app_with(&["b:select:anon"]).await;
    let stored = [0, 150, 999];
    for index in stored {
        app.put_object("b", &format!("{index}.txt"), b"x", "text/plain")
            .await;
    }
    let paths: Vec<String> = (0..MAX_SIGNED_PATHS).map(|i| format!("{i}.txt")).collect();
    let body = sign_many(&app, &paths).send().await.json();
    let entries = body.as_array().unwrap();
    assert_eq!(entries.len(), MAX_SIGNED_PATHS);
    for (index, entry) in entries.iter().enumerate() {
        assert_eq!(entry["path"], format!("{index}.txt"));
        assert_eq!(
            entry["signedURL"].is_string(),
            stored.contains(&index),
            "{entry}"
        );
    }
}

#[tokio::test]
async fn without_the_select_policy_no_path_is_signed_and_none_is_told_apart() {
    let app = app_with(&[]).await;
    app.put_object("b", "there.txt", b"x", "text/plain").await;
    let paths = ["there.txt".to_owned(), "missing.txt".to_owned()];
    let body = sign_many(&app, &paths).send().await.json();
    // Hosted Storage's answer for a path one may not sign, whether or not it exists.
    for (entry, path) in body.as_array().unwrap().iter().zip(paths) {
        assert_eq!(
            entry,
            &json!({"error": NOT_SIGNED, "path": path, "signedURL": null})
        );
    }
    for path in ["there.txt", "missing.txt"] {
        app.anon(Method::POST, &format!("/object/sign/b/{path}"))
            .json(&json!({"expiresIn": 60}))
            .send()
            .await
            .assert_error("404", "NoSuchKey", "Object not found");
    }
}

#[tokio::test]
async fn a_signed_url_lasts_a_week_at_most() {
    let app = app_with(&[]).await;
    app.put_object("b", "a.txt", b"x", "text/plain").await;
    let sign = |expires_in: i64| {
        app.service(Method::POST, "/object/sign/b/a.txt")
            .json(&json!({"expiresIn": expires_in}))
            .send()
    };
    assert_eq!(sign(MAX_EXPIRES_IN_SECONDS).await.status, StatusCode::OK);
    sign(MAX_EXPIRES_IN_SECONDS + 1).await.assert_error(
        "400",
        "InvalidRequest",
        &format!("body/expiresIn must be <= {MAX_EXPIRES_IN_SECONDS}"),
    );
    app.service(Method::POST, "/object/sign/b")
        .json(&json!({"expiresIn": i64::MAX, "paths": ["a.txt"]}))
        .send()
        .await
        .assert_error(
            "400",
            "InvalidRequest",
            &format!("body/expiresIn must be <= {MAX_EXPIRES_IN_SECONDS}"),
        );
}

async fn upload_url(app: &StorageApp, user: &str, path: &str, upsert: bool) -> Reply {
    let mut call = app.user(Method::POST, &format!("/object/upload/sign/b/{path}"), user);
    if upsert {
        call = call.header("x-upsert", "true");
    }
    call.json(&json!({})).send().await
}

fn put_via(app: &StorageApp, url: &str, bytes: &[u8]) -> Call {
    app.request(Method::PUT, url)
        .header("content-type", "text/plain")
        .bytes(bytes.to_vec())
}

#[tokio::test]
async fn an_upsert_upload_url_needs_what_an_upsert_needs() {
    // Allowed only to add objects: an upload URL that may replace one is refused, even while
    // the object does not exist yet (the service role could publish it there before the upload).
    let app = app_with(&["b:insert:authenticated"]).await;
    upload_url(&app, "u1", "later.txt", true)
        .await
        .assert_error("403", "AccessDenied", RLS);
    app.user(Method::POST, "/object/b/later.txt", "u1")
        .header("x-upsert", "true")
        .header("content-type", "text/plain")
        .bytes(b"mine".to_vec())
        .send()
        .await
        .assert_error("403", "AccessDenied", RLS);
    let plain = upload_url(&app, "u1", "later.txt", false).await;
    assert_eq!(plain.status, StatusCode::OK, "{}", plain.text());

    let app = app_with(&[
        "b:insert:authenticated",
        "b:select:authenticated",
        "b:update:authenticated",
    ])
    .await;
    let upsert = upload_url(&app, "u1", "later.txt", true).await;
    assert_eq!(upsert.status, StatusCode::OK, "{}", upsert.text());
}

#[tokio::test]
async fn an_upload_url_serves_one_upload() {
    let app = app_with(&[]).await;
    let response = app
        .service(Method::POST, "/object/upload/sign/b/once.txt")
        .header("x-upsert", "true")
        .json(&json!({}))
        .send()
        .await;
    let url = response.json()["url"].as_str().unwrap().to_owned();
    let first = put_via(&app, &url, b"first").send().await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text());
    put_via(&app, &url, b"second").send().await.assert_error(
        "400",
        "InvalidJWT",
        "The upload URL has been used already",
    );
    let read = app.service(Method::GET, "/object/b/once.txt").send().await;
    assert_eq!(read.bytes, b"first");
    // A refused upload does not spend it: another URL whose first upload is too large still
    // takes a smaller one.
    let small = StorageApp::with(&[], 4);
    small.create_bucket(json!({"id": "b"})).await;
    let response = small
        .service(Method::POST, "/object/upload/sign/b/retry.txt")
        .json(&json!({}))
        .send()
        .await;
    let url = response.json()["url"].as_str().unwrap().to_owned();
    put_via(&small, &url, b"too large")
        .send()
        .await
        .assert_too_large();
    let retried = put_via(&small, &url, b"ok").send().await;
    assert_eq!(retried.status, StatusCode::OK, "{}", retried.text());
}

#[tokio::test]
async fn a_signed_urls_token_is_no_api_key_and_no_bearer() {
    let app = app_with(&[]).await;
    app.put_object("b", "a.txt", b"x", "text/plain").await;
    let response = app
        .service(Method::POST, "/object/sign/b/a.txt")
        .json(&json!({"expiresIn": 60}))
        .send()
        .await;
    let url = response.json()["signedURL"].as_str().unwrap().to_owned();
    let token = url.split("token=").nth(1).unwrap().to_owned();
    let as_key = app
        .request(Method::GET, "/object/b/a.txt")
        .header("apikey", &token)
        .send()
        .await;
    assert_eq!(as_key.status, StatusCode::UNAUTHORIZED, "{}", as_key.text());
    assert_eq!(as_key.json()["message"], "Invalid API key");
    app.request(Method::GET, "/object/b/a.txt")
        .header("apikey", &app.anon)
        .header("authorization", &format!("Bearer {token}"))
        .send()
        .await
        .assert_error("403", "AccessDenied", "unexpected \"aud\" claim value");
}
