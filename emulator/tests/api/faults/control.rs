//! `/emulator/v1/faults` and `--faults`: guarded by the service_role key, validated, never
//! faulted itself.

use super::support::{install, served, stats};
use crate::support::{TestApp, TABLE_URL};
use crate::wire::{request, Binary, Client};
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

const ROUTE: &str = "/emulator/v1/faults";

fn status_rule() -> Value {
    json!({"methods": ["GET"], "paths": [TABLE_URL],
           "fault": {"kind": "status", "status": 503}})
}

#[tokio::test]
async fn the_plan_needs_the_service_role_key() {
    let app = TestApp::new();
    for method in [Method::GET, Method::POST, Method::DELETE] {
        let response = app
            .bare(method.clone(), ROUTE)
            .json(&json!({}))
            .send()
            .await;
        assert_eq!(response.status, StatusCode::UNAUTHORIZED, "{method}");
        assert_eq!(response.json()["message"], "No API key found in request");
        let response = app
            .anon(method.clone(), ROUTE)
            .json(&json!({}))
            .send()
            .await;
        assert_eq!(response.status, StatusCode::UNAUTHORIZED, "{method}");
        assert_eq!(
            response.json()["message"],
            "This endpoint requires the service_role key"
        );
    }
    let response = app
        .anon(Method::POST, ROUTE)
        .json(&json!({"rules": [status_rule()]}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::UNAUTHORIZED);
    assert!(app.state.faults.report().plan.rules.is_empty());
}

#[tokio::test]
async fn a_plan_is_installed_read_back_with_its_counts_and_cleared() {
    let app = TestApp::new();
    let plan = json!({"seed": 11, "rules": [status_rule(),
        {"methods": ["post"], "apply": true, "limit": 1,
         "fault": {"kind": "drop_before_response"}}]});
    let response = app.service(Method::POST, ROUTE).json(&plan).send().await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    let installed = response.json();
    assert_eq!(installed["plan"]["seed"], 11);
    assert_eq!(installed["plan"]["rules"][1]["methods"], json!(["POST"]));
    assert_eq!(installed["plan"]["rules"][0]["probability"], 1.0);
    assert_eq!(
        installed["stats"],
        json!([{"matched": 0, "fired": 0}, {"matched": 0, "fired": 0}])
    );

    for _ in 0..3 {
        let response = app.anon(Method::GET, TABLE_URL).send().await;
        assert_eq!(response.status, StatusCode::SERVICE_UNAVAILABLE);
    }
    let report = app.service(Method::GET, ROUTE).send().await.json();
    assert_eq!(report["plan"], installed["plan"]);
    assert_eq!(
        report["stats"],
        json!([{"matched": 3, "fired": 3}, {"matched": 0, "fired": 0}])
    );

    let response = app.service(Method::DELETE, ROUTE).send().await;
    assert_eq!(response.status, StatusCode::NO_CONTENT);
    assert_eq!(
        app.service(Method::GET, ROUTE).send().await.json(),
        json!({"plan": {"seed": 0, "rules": []}, "stats": []})
    );
    assert_eq!(
        app.anon(Method::GET, TABLE_URL).send().await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn invalid_plans_are_400_and_keep_the_previous_plan() {
    let app = TestApp::new();
    let response = app
        .service(Method::POST, ROUTE)
        .json(&json!({"rules": [status_rule()]}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    let cases = [
        (
            json!({"rules": [{"fault": {"kind": "status", "status": 404}}]}).to_string(),
            "invalid fault plan: rule 0: status 404 is not a 5xx",
        ),
        (
            json!({"rules": [status_rule(), {"every": 0, "fault": {"kind": "drop_mid_response"}}]})
                .to_string(),
            "invalid fault plan: rule 1: every must be at least 1",
        ),
        (
            "{\"rules\": [".to_owned(),
            "invalid fault plan: EOF while parsing a list at line 1 column 11",
        ),
    ];
    for (body, message) in cases {
        let response = app
            .service(Method::POST, ROUTE)
            .header("content-type", "application/json")
            .raw_body(body)
            .send()
            .await;
        assert_eq!(
            response.status,
            StatusCode::BAD_REQUEST,
            "{}",
            response.body
        );
        assert_eq!(response.json(), json!({"message": message}));
    }
    let response = app
        .service(Method::POST, ROUTE)
        .json(&json!({"rules": [{"fault": {"kind": "explode"}}]}))
        .send()
        .await;
    assert!(
        response.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid fault plan: unknown variant `explode`"),
        "{}",
        response.body
    );
    assert_eq!(app.state.faults.report().plan.rules.len(), 1);
}

#[tokio::test]
async fn faults_never_touch_the_emulators_own_routes_or_health() {
    let app = TestApp::new();
    let plan = json!({"rules": [
        {"paths": ["/emulator/v1/*", "/health", "/"], "fault": {"kind": "status", "status": 500}},
        {"fault": {"kind": "status", "status": 500}},
    ]});
    let response = app.service(Method::POST, ROUTE).json(&plan).send().await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(
        app.service(Method::GET, ROUTE).send().await.status,
        StatusCode::OK
    );
    assert_eq!(
        app.service(Method::GET, "/emulator/v1/sms")
            .send()
            .await
            .status,
        StatusCode::OK
    );
    for path in ["/", "/health"] {
        assert_eq!(
            app.bare(Method::GET, path).send().await.status,
            StatusCode::OK
        );
    }
    // The catch-all rule still faults the APIs.
    for path in [TABLE_URL, "/auth/v1/user"] {
        let response = app.anon(Method::GET, path).send().await;
        assert_eq!(response.status, StatusCode::INTERNAL_SERVER_ERROR, "{path}");
    }
    let stats = app.state.faults.report().stats;
    assert_eq!((stats[0].matched, stats[1].matched), (0, 2));
}

#[tokio::test]
async fn other_methods_on_the_control_endpoint_are_405() {
    let app = TestApp::new();
    let response = app.service(Method::PUT, ROUTE).send().await;
    assert_eq!(response.status, StatusCode::METHOD_NOT_ALLOWED);
    let allow = response.header("allow").unwrap();
    for method in ["GET", "POST", "DELETE"] {
        assert!(allow.contains(method), "{allow}");
    }
}

#[tokio::test]
async fn dropping_a_connection_needs_the_emulators_listener() {
    // In-process requests have no socket to close: the emulator says so instead of pretending.
    let app = TestApp::new();
    let response = app
        .service(Method::POST, ROUTE)
        .json(&json!({"rules": [{"fault": {"kind": "drop_before_response"}}]}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    let response = app.anon(Method::GET, TABLE_URL).send().await;
    assert_eq!(response.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(response.json()["code"], "XX000");
}

#[tokio::test]
async fn a_new_plan_resets_the_counts() {
    let served = served().await;
    let plan = json!({"rules": [{"methods": ["GET"], "every": 2,
        "fault": {"kind": "status", "status": 503}}]});
    install(&served, plan.clone()).await;
    let mut client = served.client().await;
    let read = || request(Method::GET, TABLE_URL, &served.anon, None);
    assert_eq!(client.send(read()).await.unwrap().status, StatusCode::OK);
    install(&served, plan).await;
    // Counting starts again: the first read after the new plan is the first, not the second.
    assert_eq!(client.send(read()).await.unwrap().status, StatusCode::OK);
    assert_eq!(
        client.send(read()).await.unwrap().status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_eq!(stats(&served), [(2, 1)]);
}

#[tokio::test]
async fn the_binary_starts_with_the_plan_of_the_faults_flag() {
    let plan = json!({"seed": 3, "rules": [{"methods": ["GET"], "paths": [TABLE_URL],
        "fault": {"kind": "status", "status": 503, "body": "plain"}}]});
    let binary = Binary::start(&["--db", ":memory:", "--faults", &plan.to_string()]);
    let mut client = Client::connect(binary.address).await.unwrap();
    let reply = client
        .send(request(Method::GET, TABLE_URL, &binary.anon, None))
        .await
        .unwrap();
    assert_eq!(
        (reply.status, reply.text().as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, "503 Service Unavailable")
    );
    let report = client
        .send(request(Method::GET, ROUTE, &binary.service, None))
        .await
        .unwrap()
        .json();
    assert_eq!(report["plan"]["seed"], 3);
    assert_eq!(report["stats"], json!([{"matched": 1, "fired": 1}]));
}
