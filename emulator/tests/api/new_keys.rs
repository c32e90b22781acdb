//! The new-format API keys at the gateway: `sb_publishable_...` acts as anon, `sb_secret_...` as
//! service_role, on every route family; unknown `sb_` keys, mismatched bearer keys and secret
//! keys from browsers are refused.

use crate::support::{TestApp, TestResponse, TABLE_URL};
use axum::http::{Method, StatusCode};
use geocache_emulator::db::{Database, DbLocation};
use geocache_emulator::keys::{Keys, DEFAULT_JWT_SECRET};
use geocache_emulator::state::{AppState, MIGRATIONS};
use serde_json::json;

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                       Chrome/140.0.0.0 Safari/537.36";

fn now() -> i64 {
    geocache_emulator::timestamp::now_micros() / 1_000_000
}

/// A DELETE of every row: 204 for service_role, PostgreSQL's 42501 (401) for anon.
async fn delete_all(app: &TestApp, apikey: &str, bearer: Option<&str>) -> TestResponse {
    let mut request = app
        .bare(Method::DELETE, &format!("{TABLE_URL}?id=gt.0"))
        .header("apikey", apikey);
    if let Some(bearer) = bearer {
        request = request.header("authorization", &format!("Bearer {bearer}"));
    }
    request.send().await
}

#[tokio::test]
async fn the_publishable_key_acts_as_anon_alone_or_as_its_own_bearer() {
    let app = TestApp::new();
    app.seed(json!({"name": "n", "message": "m"})).await;
    for bearer in [None, Some(app.publishable.as_str())] {
        let read = app
            .bare(Method::GET, TABLE_URL)
            .header("apikey", &app.publishable);
        let read = match bearer {
            Some(key) => read.header("authorization", &format!("Bearer {key}")),
            None => read,
        };
        let read = read.send().await;
        assert_eq!(read.status, StatusCode::OK, "{}", read.body);
        assert_eq!(read.json().as_array().unwrap().len(), 1);
        delete_all(&app, &app.publishable, bearer)
            .await
            .assert_postgrest_error(
                StatusCode::UNAUTHORIZED,
                "42501",
                "permission denied for table geocache_logs",
            );
    }
}

#[tokio::test]
async fn the_secret_key_acts_as_service_role_alone_or_as_its_own_bearer() {
    let app = TestApp::new();
    for bearer in [None, Some(app.secret.as_str())] {
        app.seed(json!({"name": "n", "message": "m"})).await;
        let response = delete_all(&app, &app.secret, bearer).await;
        assert_eq!(response.status, StatusCode::NO_CONTENT, "{}", response.body);
        assert!(app.all_rows().await.is_empty());
    }
    // A client-sent created_at is the service role's privilege.
    let response = app
        .bare(Method::POST, TABLE_URL)
        .key(&app.secret)
        .json(&json!({"name": "n", "message": "m", "created_at": "2024-05-01T00:00:00Z"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED, "{}", response.body);
}

#[tokio::test]
async fn new_format_keys_work_as_the_apikey_query_parameter() {
    let app = TestApp::new();
    let response = app
        .bare(
            Method::GET,
            &format!("{TABLE_URL}?select=id&apikey={}", app.publishable),
        )
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
}

#[tokio::test]
async fn unknown_sb_keys_are_refused_and_never_read_as_jwts() {
    let app = TestApp::new();
    let foreign =
        AppState::open(&DbLocation::Memory, "another-secret-of-at-least-32-chars!").unwrap();
    for key in [
        "sb_publishable_wrong".to_owned(),
        "sb_secret_wrong".to_owned(),
        "sb_temp_abc".to_owned(),
        "sb_".to_owned(),
        foreign.keys.publishable_key().to_owned(),
        foreign.keys.secret_key().to_owned(),
        // A valid JWT behind the prefix is still not a key of this project.
        format!("sb_{}", app.service),
    ] {
        let response = app.bare(Method::GET, TABLE_URL).key(&key).send().await;
        assert_eq!(response.status, StatusCode::UNAUTHORIZED, "{key}");
        assert_eq!(response.json()["message"], "Invalid API key", "{key}");
    }
}

#[tokio::test]
async fn a_bearer_sb_key_must_equal_the_apikey() {
    let app = TestApp::new();
    for (apikey, bearer) in [
        (&app.publishable, &app.secret),
        (&app.secret, &app.publishable),
        (&app.anon, &app.publishable),
        (&app.service, &app.secret),
        (&app.publishable, &"sb_publishable_other".to_owned()),
    ] {
        let response = delete_all(&app, apikey, Some(bearer)).await;
        assert_eq!(response.status, StatusCode::UNAUTHORIZED, "{bearer}");
        assert_eq!(
            response.json()["message"],
            "Invalid API key in Authorization header",
            "{bearer}"
        );
    }
}

#[tokio::test]
async fn a_users_jwt_as_bearer_is_that_user_beside_a_new_format_key() {
    let app = TestApp::new();
    let user = app.state.keys.sign(&json!({
        "role": "authenticated", "sub": "user-1", "aud": "authenticated", "exp": now() + 3600
    }));
    // authenticated may not write created_at: 403 (anon would get 401).
    let response = app
        .bare(Method::POST, TABLE_URL)
        .header("apikey", &app.publishable)
        .header("authorization", &format!("Bearer {user}"))
        .json(&json!({"name": "n", "message": "m", "created_at": "2024-05-01T00:00:00Z"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::FORBIDDEN, "{}", response.body);
    // And a user JWT beside the secret key runs as the user, not as service_role: its delete
    // reaches no row (it is no owner).
    app.seed(json!({"name": "n", "message": "m"})).await;
    let response = delete_all(&app, &app.secret, Some(&user)).await;
    assert_eq!(response.status, StatusCode::NO_CONTENT, "{}", response.body);
    assert_eq!(app.all_rows().await.len(), 1);
}

#[tokio::test]
async fn a_secret_key_from_a_browser_is_refused_on_every_route_family() {
    let app = TestApp::new();
    for (method, path) in [
        (Method::GET, TABLE_URL),
        (Method::POST, "/auth/v1/signup"),
        (Method::GET, "/emulator/v1/sms"),
        (Method::GET, "/emulator/v1/faults"),
    ] {
        for bearer in [false, true] {
            let mut request = app
                .bare(method.clone(), path)
                .header("apikey", &app.secret)
                .header("user-agent", BROWSER);
            if bearer {
                request = request.header("authorization", &format!("Bearer {}", app.secret));
            }
            let response = request.send().await;
            assert_eq!(response.status, StatusCode::UNAUTHORIZED, "{path}");
            assert_eq!(
                response.json()["message"],
                "Forbidden use of secret API key in browser",
                "{path}"
            );
        }
    }
}

#[tokio::test]
async fn browsers_may_use_the_publishable_key_and_the_legacy_service_role_key() {
    let app = TestApp::new();
    let publishable = app
        .bare(Method::GET, TABLE_URL)
        .key(&app.publishable)
        .header("user-agent", BROWSER)
        .send()
        .await;
    assert_eq!(publishable.status, StatusCode::OK, "{}", publishable.body);
    let legacy = app
        .bare(Method::GET, "/emulator/v1/sms")
        .key(&app.service)
        .header("user-agent", BROWSER)
        .send()
        .await;
    assert_eq!(legacy.status, StatusCode::OK, "{}", legacy.body);
    // The same secret key from a server-side client is fine.
    let server = app
        .bare(Method::GET, "/emulator/v1/sms")
        .key(&app.secret)
        .header("user-agent", "node")
        .send()
        .await;
    assert_eq!(server.status, StatusCode::OK, "{}", server.body);
}

#[tokio::test]
async fn the_emulator_endpoints_take_the_secret_key_but_not_the_publishable_key() {
    let app = TestApp::new();
    for path in ["/emulator/v1/sms", "/emulator/v1/faults"] {
        let secret = app.bare(Method::GET, path).key(&app.secret).send().await;
        assert_eq!(secret.status, StatusCode::OK, "{path}: {}", secret.body);
        let publishable = app
            .bare(Method::GET, path)
            .key(&app.publishable)
            .send()
            .await;
        assert_eq!(publishable.status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(
            publishable.json()["message"],
            "This endpoint requires the service_role key"
        );
    }
}

#[tokio::test]
async fn the_auth_server_sees_the_keys_role_as_the_legacy_key_would_give_it() {
    let app = TestApp::new();
    let signup = app
        .bare(Method::POST, "/auth/v1/signup")
        .key(&app.publishable)
        .json(&json!({"email": "walker@example.com", "password": "correct horse battery"}))
        .send()
        .await;
    assert_eq!(signup.status, StatusCode::OK, "{}", signup.body);
    // The key as bearer on a signed-in route: the answer for the anon JWT, not a JWT error
    // about an `sb_` string.
    let with_new = app
        .bare(Method::GET, "/auth/v1/user")
        .key(&app.publishable)
        .send()
        .await;
    let with_legacy = app
        .bare(Method::GET, "/auth/v1/user")
        .key(&app.anon)
        .send()
        .await;
    assert_eq!(
        (with_new.status, with_new.json()),
        (with_legacy.status, with_legacy.json())
    );
}

#[tokio::test]
async fn keys_are_derived_from_the_secret_or_set_explicitly() {
    let first = TestApp::new();
    let second = TestApp::new();
    assert_eq!(first.publishable, second.publishable);
    assert_eq!(first.secret, second.secret);
    assert!(first.publishable.starts_with("sb_publishable_"));
    assert!(first.secret.starts_with("sb_secret_"));

    let keys = Keys::new(DEFAULT_JWT_SECRET).with_api_keys(
        Some("sb_publishable_mine".to_owned()),
        Some("sb_secret_mine".to_owned()),
    );
    let app = TestApp::with_state(AppState::new(
        Database::open(&DbLocation::Memory, &MIGRATIONS).unwrap(),
        keys,
    ));
    let mine = app
        .bare(Method::GET, "/emulator/v1/sms")
        .key("sb_secret_mine")
        .send()
        .await;
    assert_eq!(mine.status, StatusCode::OK, "{}", mine.body);
    let derived = app
        .bare(Method::GET, TABLE_URL)
        .key(&first.publishable)
        .send()
        .await;
    assert_eq!(derived.status, StatusCode::UNAUTHORIZED);
    // The legacy keys still follow the JWT secret.
    assert_eq!(app.anon, first.anon);
}
