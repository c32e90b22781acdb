//! The logbook's spam limit over HTTP: the migration's rule and answer, the client named by a
//! trusted proxy only, and local clients exempt.

use crate::support::{TestApp, TestResponse, TABLE_URL};
use axum::http::{Method, StatusCode};
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::rest::sign_limit::SignLimits;
use geocache_emulator::state::AppState;
use serde_json::{json, Value};

const PROXY: &str = "10.0.0.1:443";

fn app(limits: SignLimits) -> TestApp {
    let state = AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET)
        .unwrap()
        .with_trusted_proxies(vec!["10.0.0.1".parse().unwrap()])
        .with_sign_limits(limits);
    TestApp::with_state(state)
}

fn entries(count: usize) -> Value {
    Value::Array(
        (0..count)
            .map(|index| json!({"name": format!("visitor {index}"), "message": "found it"}))
            .collect(),
    )
}

async fn sign(app: &TestApp, peer: &str, client: Option<&str>, count: usize) -> TestResponse {
    let mut request = app.anon(Method::POST, TABLE_URL).from(peer);
    if let Some(client) = client {
        request = request.header("cf-connecting-ip", client);
    }
    request.json(&entries(count)).send().await
}

#[tokio::test]
async fn a_list_of_thousands_is_refused_whole_with_the_migrations_answer() {
    let app = app(SignLimits::default());
    let refused = sign(&app, PROXY, Some("203.0.113.30"), 10_000).await;
    let body = refused.assert_postgrest_error(
        StatusCode::TOO_MANY_REQUESTS,
        "PT429",
        "Too many entries in one request: 10000, at most 10.",
    );
    assert_eq!(
        body["details"],
        "The logbook takes a few entries per request, not a whole list."
    );
    assert_eq!(body["hint"], "Sign one entry at a time.");
    assert!(app.all_rows().await.is_empty());
    // The refusal used none of the minute's budget: three full requests of ten still fit.
    for _ in 0..3 {
        assert_eq!(
            sign(&app, PROXY, Some("203.0.113.30"), 10).await.status,
            StatusCode::CREATED
        );
    }
    let over = sign(&app, PROXY, Some("203.0.113.30"), 1).await;
    let body = over.assert_postgrest_error(
        StatusCode::TOO_MANY_REQUESTS,
        "PT429",
        "Too many signs from your network in the last minute.",
    );
    assert_eq!(
        body["details"],
        "At most 30 signs a minute come from one address."
    );
    assert_eq!(body["hint"], "Wait a minute, then sign again.");
    assert_eq!(app.all_rows().await.len(), 30);
    // Another client behind the same proxy has its own budget.
    assert_eq!(
        sign(&app, PROXY, Some("203.0.113.31"), 1).await.status,
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn everyone_together_meets_the_ceiling() {
    let app = app(SignLimits {
        max_signs_per_minute: Some(5),
        ..SignLimits::default()
    });
    for client in ["203.0.113.1", "203.0.113.2"] {
        assert_eq!(
            sign(&app, PROXY, Some(client), 2).await.status,
            StatusCode::CREATED
        );
    }
    let body = sign(&app, PROXY, Some("203.0.113.3"), 2)
        .await
        .assert_postgrest_error(
            StatusCode::TOO_MANY_REQUESTS,
            "PT429",
            "The logbook is taking too many signs right now.",
        );
    assert_eq!(
        body["details"],
        "At most 5 signs a minute are taken from all visitors together."
    );
    assert_eq!(app.all_rows().await.len(), 4);
}

#[tokio::test]
async fn the_header_names_the_client_only_behind_a_trusted_proxy() {
    let app = app(SignLimits {
        max_signs_per_address_minute: Some(1),
        ..SignLimits::default()
    });
    // A client writing its own header changes nothing: it is counted by its socket address.
    let direct = "198.51.100.7:5000";
    assert_eq!(
        sign(&app, direct, Some("203.0.113.1"), 1).await.status,
        StatusCode::CREATED
    );
    let again = sign(&app, direct, Some("203.0.113.2"), 1).await;
    assert_eq!(
        again.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        again.body
    );
    // Behind the proxy, requests without a usable address share one budget.
    assert_eq!(sign(&app, PROXY, None, 1).await.status, StatusCode::CREATED);
    assert_eq!(
        sign(&app, PROXY, Some("not an address"), 1).await.status,
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[tokio::test]
async fn local_clients_and_the_service_role_are_not_limited_unless_asked() {
    let app = app(SignLimits {
        max_signs_per_request: Some(1),
        max_signs_per_address_minute: Some(1),
        max_signs_per_minute: Some(1),
        limit_loopback: false,
    });
    for peer in ["127.0.0.1:5000", "[::1]:5000"] {
        assert_eq!(sign(&app, peer, None, 3).await.status, StatusCode::CREATED);
    }
    // In-process callers have no socket at all.
    assert_eq!(
        app.anon(Method::POST, TABLE_URL)
            .json(&entries(3))
            .send()
            .await
            .status,
        StatusCode::CREATED
    );
    let service = app
        .service(Method::POST, TABLE_URL)
        .from("203.0.113.9:5000")
        .json(&entries(3))
        .send()
        .await;
    assert_eq!(service.status, StatusCode::CREATED, "{}", service.body);

    let strict = self::app(SignLimits {
        max_signs_per_request: Some(1),
        limit_loopback: true,
        ..SignLimits::default()
    });
    assert_eq!(
        sign(&strict, "127.0.0.1:5000", None, 2).await.status,
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[tokio::test]
async fn a_signed_in_visitor_is_limited_as_anon_is() {
    let app = app(SignLimits {
        max_signs_per_request: Some(2),
        ..SignLimits::default()
    });
    let token = app
        .state
        .keys
        .sign(&json!({"role": "authenticated", "sub": "u1", "exp": 4_000_000_000_i64}));
    let response = app
        .bare(Method::POST, TABLE_URL)
        .from(PROXY)
        .header("cf-connecting-ip", "203.0.113.40")
        .header("apikey", &app.anon)
        .header("authorization", &format!("Bearer {token}"))
        .json(&entries(3))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::TOO_MANY_REQUESTS,
        "PT429",
        "Too many entries in one request: 3, at most 2.",
    );
}

/// The repository's `supabase/` directory.
fn supabase_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../supabase")
}

#[test]
fn the_defaults_and_the_emulator_file_match_the_migration() {
    let migration = std::fs::read_to_string(
        supabase_dir().join("migrations/20261123000000_geocache_logs_sign_limit.sql"),
    )
    .unwrap();
    // `values\n  (10, 30, 300, 'cf-connecting-ip')` of the insert into private.sign_limits.
    let inserted = migration
        .split("insert into private.sign_limits")
        .nth(1)
        .and_then(|rest| rest.split("values").nth(1))
        .and_then(|rest| rest.split_once('(').map(|(_, tail)| tail))
        .and_then(|rest| rest.split_once(')').map(|(values, _)| values))
        .unwrap();
    let values: Vec<&str> = inserted.split(',').map(str::trim).collect();
    let numbers: Vec<u32> = values[..3]
        .iter()
        .map(|value| value.parse().unwrap())
        .collect();
    assert_eq!(
        values[3],
        format!(
            "'{}'",
            geocache_emulator::http::client_address::CLIENT_ADDRESS_HEADER
        )
    );
    let defaults = SignLimits::default();
    let expected = [
        defaults.max_signs_per_request,
        defaults.max_signs_per_address_minute,
        defaults.max_signs_per_minute,
    ];
    assert_eq!(
        expected,
        numbers.iter().map(|&n| Some(n)).collect::<Vec<_>>()[..]
    );
    let file = geocache_emulator::cli::project_file::ProjectFile::load(
        &supabase_dir().join("config.toml"),
    )
    .unwrap();
    let section = file.sign_limit;
    assert_eq!(
        [
            section.max_signs_per_request,
            section.max_signs_per_address_minute,
            section.max_signs_per_minute
        ],
        expected
    );
    // And config.toml carries the Supabase CLI's auth rate limits.
    let limits = file.auth.rate_limit;
    assert_eq!(
        (
            limits.sign_in_sign_ups,
            limits.token_refresh,
            limits.token_verifications
        ),
        (Some(30), Some(150), Some(30))
    );
}
