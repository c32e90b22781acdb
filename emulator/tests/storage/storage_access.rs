//! Who may do what: no policies by default (a public bucket's public URL is the only read
//! anyone gets), the service role bypasses them, and configured policies grant one operation on
//! one bucket to one role.

use crate::storage_support::StorageApp;
use axum::http::{Method, StatusCode};
use geocache_emulator::storage::settings::DEFAULT_MAX_FILE_SIZE;
use serde_json::json;

const RLS: &str = "new row violates row-level security policy";

async fn setup(policies: &[&str]) -> StorageApp {
    let app = StorageApp::with(policies, DEFAULT_MAX_FILE_SIZE);
    app.create_bucket(json!({"id": "public", "public": true}))
        .await;
    app.create_bucket(json!({"id": "private", "public": false}))
        .await;
    app.put_object("public", "p.txt", b"public bytes", "text/plain")
        .await;
    app.put_object("private", "s.txt", b"secret bytes", "text/plain")
        .await;
    app
}

#[tokio::test]
async fn without_policies_only_public_urls_serve_anyone() {
    let app = setup(&[]).await;
    // No key at all: the public URL of a public bucket.
    let public = app
        .request(Method::GET, "/object/public/public/p.txt")
        .send()
        .await;
    assert_eq!(public.status, StatusCode::OK, "{}", public.text());
    assert_eq!(public.bytes, b"public bytes");
    app.request(Method::GET, "/object/public/private/s.txt")
        .send()
        .await
        .assert_error("404", "NoSuchBucket", "Bucket not found");

    for (bucket, name) in [("public", "p.txt"), ("private", "s.txt")] {
        for path in [
            format!("/object/{bucket}/{name}"),
            format!("/object/authenticated/{bucket}/{name}"),
        ] {
            app.anon(Method::GET, &path).send().await.assert_error(
                "404",
                "NoSuchKey",
                "Object not found",
            );
            app.user(Method::GET, &path, "u1")
                .send()
                .await
                .assert_error("404", "NoSuchKey", "Object not found");
        }
        let listed = app
            .anon(Method::POST, &format!("/object/list/{bucket}"))
            .json(&json!({"prefix": ""}))
            .send()
            .await;
        assert_eq!(listed.json(), json!([]));
        let removed = app
            .user(Method::DELETE, &format!("/object/{bucket}"), "u1")
            .json(&json!({"prefixes": [name]}))
            .send()
            .await;
        assert_eq!(removed.json(), json!([]));
        app.anon(Method::POST, &format!("/object/{bucket}/new.txt"))
            .header("content-type", "text/plain")
            .bytes(b"x".to_vec())
            .send()
            .await
            .assert_error("403", "AccessDenied", RLS);
        app.anon(Method::POST, &format!("/object/sign/{bucket}/{name}"))
            .json(&json!({"expiresIn": 60}))
            .send()
            .await
            .assert_error("404", "NoSuchKey", "Object not found");
    }
    app.user(Method::POST, "/object/move", "u1")
        .json(&json!({"bucketId": "private", "sourceKey": "s.txt", "destinationKey": "t.txt"}))
        .send()
        .await
        .assert_error("404", "NoSuchKey", "Object not found");
    app.anon(Method::POST, "/object/copy")
        .json(&json!({"bucketId": "public", "sourceKey": "p.txt", "destinationKey": "t.txt"}))
        .send()
        .await
        .assert_error("404", "NoSuchKey", "Object not found");
    // Nothing was changed by the refusals.
    assert_eq!(app.files_on_disk().len(), 2);
    // Without a key, the API routes are the gateway's to refuse.
    let keyless = app
        .request(Method::GET, "/object/private/s.txt")
        .send()
        .await;
    assert_eq!(
        keyless.status,
        StatusCode::UNAUTHORIZED,
        "{}",
        keyless.text()
    );
}

#[tokio::test]
async fn policies_grant_one_operation_on_one_bucket_to_one_role() {
    let app = setup(&[
        "private:select:anon",
        "private:insert:authenticated",
        "private:select:authenticated",
        "private:delete:authenticated",
    ])
    .await;
    let read = app.anon(Method::GET, "/object/private/s.txt").send().await;
    assert_eq!(read.bytes, b"secret bytes");
    let listed = app
        .anon(Method::POST, "/object/list/private")
        .json(&json!({"prefix": ""}))
        .send()
        .await;
    assert_eq!(listed.json().as_array().unwrap().len(), 1);
    // Another bucket is still closed to anon.
    app.anon(Method::GET, "/object/authenticated/public/p.txt")
        .send()
        .await
        .assert_error("404", "NoSuchKey", "Object not found");
    // Anon may not write; a signed-in user may, and becomes the owner.
    app.anon(Method::POST, "/object/private/a.txt")
        .header("content-type", "text/plain")
        .bytes(b"a".to_vec())
        .send()
        .await
        .assert_error("403", "AccessDenied", RLS);
    let uploaded = app
        .user(Method::POST, "/object/private/u.txt", "user-1")
        .header("content-type", "text/plain")
        .bytes(b"mine".to_vec())
        .send()
        .await;
    assert_eq!(uploaded.status, StatusCode::OK, "{}", uploaded.text());
    // Replacing needs `update`, which no one was granted.
    app.user(Method::POST, "/object/private/u.txt", "user-1")
        .header("content-type", "text/plain")
        .header("x-upsert", "true")
        .bytes(b"again".to_vec())
        .send()
        .await
        .assert_error("403", "AccessDenied", RLS);
    let removed = app
        .user(Method::DELETE, "/object/private", "user-1")
        .json(&json!({"prefixes": ["u.txt"]}))
        .send()
        .await
        .json();
    assert_eq!(removed[0]["owner"], "user-1");
    // Anon cannot remove: nothing is deleted.
    let removed = app
        .anon(Method::DELETE, "/object/private")
        .json(&json!({"prefixes": ["s.txt"]}))
        .send()
        .await;
    assert_eq!(removed.json(), json!([]));
    let still = app
        .service(Method::GET, "/object/private/s.txt")
        .send()
        .await;
    assert_eq!(still.status, StatusCode::OK);
}

#[tokio::test]
async fn an_invalid_bearer_token_is_refused() {
    let app = setup(&[]).await;
    let response = app
        .request(Method::GET, "/object/private/s.txt")
        .header("apikey", &app.anon)
        .header("authorization", "Bearer not.a.jwt")
        .send()
        .await;
    response.assert_error("403", "AccessDenied", "Invalid Compact JWS");
}

#[tokio::test]
async fn an_expired_session_is_refused_with_the_jwt_librarys_reason() {
    let app = setup(&["private:select:authenticated"]).await;
    let token = app.user_token("u1");
    app.clock.advance_seconds(4000);
    app.request(Method::GET, "/object/private/s.txt")
        .header("apikey", &app.anon)
        .header("authorization", &format!("Bearer {token}"))
        .send()
        .await
        .assert_error(
            "403",
            "AccessDenied",
            "\"exp\" claim timestamp check failed",
        );
}

/// What `npm start` runs with (`--config supabase/config.toml`, which brings in `emulator.toml`
/// beside it): no policy, as docs/emulator.md promises and a new hosted project has.
#[test]
fn the_shipped_config_sets_no_policies() {
    use clap::Parser;
    use geocache_emulator::cli::config::Config;
    use geocache_emulator::storage::policy::Policies;
    let supabase = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../supabase");
    // Both files are read: a policy in either would show below.
    assert!(supabase.join("emulator.toml").is_file());
    let config = Config::try_parse_from([
        "geocache-emulator",
        "--db",
        ":memory:",
        "--config",
        supabase.join("config.toml").to_str().unwrap(),
    ])
    .unwrap();
    let file = config.project_file().unwrap();
    assert_eq!(file.storage.policies, []);
    assert_eq!(
        config
            .storage
            .settings(&config.db_location(), &file)
            .unwrap()
            .policies,
        Policies::default()
    );
}
