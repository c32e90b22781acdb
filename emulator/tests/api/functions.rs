//! `/functions/v1/<name>`: relayed to a function server started here, with the platform's own
//! answers for missing functions, `verify_jwt` and an unreachable server.

use crate::support::TestApp;
use crate::wire::{raw_exchange, raw_request, Served};
use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use geocache_emulator::clock::ManualClock;
use geocache_emulator::functions::settings::{FunctionServer, FunctionSettings, FunctionsSettings};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// `echo` answers with what it got; `fail` with 500; `own-404` with its own 404; `stream` with
/// three chunks of an event stream.
async fn function(request: Request) -> Response {
    let path = request.uri().path().to_owned();
    if path.starts_with("/fail") {
        return (StatusCode::INTERNAL_SERVER_ERROR, "function crashed").into_response();
    }
    if path.starts_with("/own-cors") {
        // What Supabase's function templates send on every answer.
        let headers = [
            ("access-control-allow-origin", "*"),
            (
                "access-control-allow-headers",
                "authorization, x-client-info, apikey, content-type",
            ),
        ];
        return (headers, "with its own CORS").into_response();
    }
    if path.starts_with("/own-404") {
        return (StatusCode::NOT_FOUND, "no such entry").into_response();
    }
    if path.starts_with("/stream") {
        let chunks = ["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"].map(Ok::<_, std::io::Error>);
        let body = Body::from_stream(futures_util::stream::iter(chunks));
        return ([("content-type", "text/event-stream")], body).into_response();
    }
    let method = request.method().to_string();
    let query = request.uri().query().map(str::to_owned);
    let headers: BTreeMap<String, String> = request
        .headers()
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_owned()))
        .collect();
    let body = request.into_body().collect().await.unwrap().to_bytes();
    let echoed = json!({
        "method": method,
        "path": path,
        "query": query,
        "headers": headers,
        "body": String::from_utf8_lossy(&body),
    });
    (
        StatusCode::CREATED,
        [("content-type", "application/json"), ("x-function", "echo")],
        echoed.to_string(),
    )
        .into_response()
}

/// A function server on a free port; the listener's address.
async fn start_function_server() -> FunctionServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, Router::new().fallback(any(function)))
            .await
            .unwrap();
    });
    FunctionServer::parse(&format!("http://{address}")).unwrap()
}

/// A port nothing listens on: bound, then released.
fn closed_port_server() -> FunctionServer {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    FunctionServer::parse(&format!("http://{address}")).unwrap()
}

fn app(server: Option<FunctionServer>) -> TestApp {
    let open = FunctionSettings {
        enabled: true,
        verify_jwt: false,
    };
    let listed = BTreeMap::from([
        ("echo".to_owned(), open),
        ("fail".to_owned(), open),
        ("own-404".to_owned(), open),
        ("own-cors".to_owned(), open),
        ("stream".to_owned(), open),
        ("guarded".to_owned(), FunctionSettings::default()),
        (
            "retired".to_owned(),
            FunctionSettings {
                enabled: false,
                verify_jwt: false,
            },
        ),
    ]);
    let app = TestApp::new();
    let state = app.state.clone().with_functions(FunctionsSettings {
        server,
        listed,
        directory: None,
    });
    TestApp::with_state(state)
}

#[tokio::test]
async fn calls_pass_through_with_method_path_query_headers_body_and_status() {
    let app = app(Some(start_function_server().await));
    let response = app
        .bare(Method::PUT, "/functions/v1/echo/a%20b/c?x=1&y=%2F")
        .header("content-type", "text/plain")
        .header("x-custom", "value")
        .header("connection", "keep-alive, x-private")
        .header("x-private", "hop")
        .raw_body("hello body")
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED, "{}", response.body);
    assert_eq!(response.header("x-function"), Some("echo"));
    assert_eq!(response.header("x-relay-error"), None);
    let echoed = response.json();
    assert_eq!(echoed["method"], "PUT");
    assert_eq!(echoed["path"], "/echo/a%20b/c");
    assert_eq!(echoed["query"], "x=1&y=%2F");
    assert_eq!(echoed["body"], "hello body");
    assert_eq!(echoed["headers"]["x-custom"], "value");
    assert_eq!(echoed["headers"]["content-type"], "text/plain");
    assert_eq!(echoed["headers"]["x-private"], Value::Null);
    assert_eq!(echoed["headers"]["connection"], Value::Null);
}

#[tokio::test]
async fn the_functions_own_errors_and_streams_pass_through() {
    let app = app(Some(start_function_server().await));
    let failed = app.bare(Method::POST, "/functions/v1/fail").send().await;
    assert_eq!(failed.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(failed.body, "function crashed");
    assert_eq!(failed.header("x-relay-error"), None);
    // A function's own 404 is not the platform's NOT_FOUND.
    let own = app.bare(Method::GET, "/functions/v1/own-404").send().await;
    assert_eq!(own.status, StatusCode::NOT_FOUND);
    assert_eq!(own.body, "no such entry");
    let stream = app.bare(Method::POST, "/functions/v1/stream").send().await;
    assert_eq!(stream.status, StatusCode::OK);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    assert_eq!(stream.body, "data: 1\n\ndata: 2\n\ndata: 3\n\n");
}

#[tokio::test]
async fn missing_functions_answer_not_found_without_a_relay_error() {
    let app = app(Some(start_function_server().await));
    for path in [
        "/functions/v1/missing",
        "/functions/v1/retired",
        "/functions/v1/..%2Fecho",
        "/functions/v1/_shared",
        "/functions/v1/1echo/x",
    ] {
        let response = app.bare(Method::POST, path).send().await;
        assert_eq!(response.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            response.json(),
            json!({"code": "NOT_FOUND", "message": "Requested function was not found"}),
            "{path}"
        );
        assert_eq!(response.header("x-relay-error"), None, "{path}");
    }
}

#[tokio::test]
async fn an_unreachable_or_unset_function_server_is_a_relay_error() {
    for server in [Some(closed_port_server()), None] {
        let app = app(server.clone());
        let response = app.bare(Method::POST, "/functions/v1/echo").send().await;
        assert_eq!(
            response.status,
            StatusCode::BAD_GATEWAY,
            "{}",
            response.body
        );
        assert_eq!(response.header("x-relay-error"), Some("true"));
        assert_eq!(response.json()["code"], "RELAY_ERROR");
        // Where the function server listens is for the log, not for callers.
        if let Some(server) = &server {
            let address = server.authority.as_str();
            assert!(!response.body.contains(address), "{}", response.body);
            assert!(!response.body.contains("127.0.0.1"), "{}", response.body);
        }
    }
}

#[tokio::test]
async fn a_path_that_could_leave_its_function_is_refused_before_the_relay() {
    let app = app(Some(start_function_server().await));
    for path in [
        "/functions/v1/echo/../guarded",
        "/functions/v1/echo/x/../../guarded",
        "/functions/v1/echo/./x",
        "/functions/v1/echo/%2e%2e/guarded",
        "/functions/v1/echo/%2E%2e/guarded",
        "/functions/v1/echo/.%2E/guarded",
        "/functions/v1/echo/%252e%252e/guarded",
        "/functions/v1/echo/..\\guarded",
        "/functions/v1/echo/.\\guarded",
        "/functions/v1/echo/..%5cguarded",
        "/functions/v1/echo/..%5Cguarded",
        "/functions/v1/echo/x%2f..%2f..%2fadmin",
        "/functions/v1/echo//guarded",
        "/functions/v1/echo/x//y",
    ] {
        let response = app.bare(Method::POST, path).send().await;
        assert_eq!(
            response.status,
            StatusCode::BAD_REQUEST,
            "{path}: {}",
            response.body
        );
        assert_eq!(response.json()["code"], "INVALID_PATH", "{path}");
        assert_eq!(response.header("x-relay-error"), None, "{path}");
    }
    // Dots inside a segment are a name like any other.
    let dotted = app
        .bare(Method::POST, "/functions/v1/echo/v1.2/.well-known/x..y")
        .send()
        .await;
    assert_eq!(dotted.status, StatusCode::CREATED, "{}", dotted.body);
    assert_eq!(dotted.json()["path"], "/echo/v1.2/.well-known/x..y");
}

#[tokio::test]
async fn a_literal_backslash_over_the_wire_is_refused_before_the_relay() {
    // Clients (fetch, curl) send `\` as `/`; raw bytes reach the server as they are, and the
    // function server would read them as a slash.
    let app = app(Some(start_function_server().await));
    let served = Served::start(app.state.clone()).await;
    for path in [
        "/functions/v1/echo/..\\guarded",
        "/functions/v1/echo/.\\guarded",
    ] {
        let raw = raw_exchange(served.address, &raw_request("POST", path, &app.anon, None)).await;
        let (head, body) = raw.split().unwrap();
        assert!(head.starts_with("HTTP/1.1 400 "), "{path}: {}", raw.text());
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["code"], "INVALID_PATH", "{path}");
    }
    served.stop().await;
}

#[tokio::test]
async fn verify_jwt_needs_a_project_jwt_as_bearer() {
    let clock = ManualClock::starting_now();
    let app = TestApp::with_state(
        app(Some(start_function_server().await))
            .state
            .with_clock(clock.clock()),
    );
    let now = clock.clock().now_seconds();
    let user = app.state.keys.sign(&json!({
        "sub": "u1",
        "role": "authenticated",
        "aud": "authenticated",
        "iat": now,
        "exp": now + 3600,
    }));
    let call = |authorization: Option<String>| {
        let mut spec = app.bare(Method::POST, "/functions/v1/guarded/x");
        if let Some(value) = authorization {
            spec = spec.header("authorization", &value);
        }
        spec.header("apikey", &app.publishable).send()
    };
    let missing = call(None).await;
    assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
    assert_eq!(missing.json()["code"], "UNAUTHORIZED_NO_AUTH_HEADER");
    assert_eq!(missing.header("x-relay-error"), None);
    let signed = |claims: Value| format!("Bearer {}", app.state.keys.sign(&claims));
    let url_token =
        geocache_emulator::storage::signed_url::sign_download(&app.state.keys, "b/a", now, 60);
    for bad in [
        format!("Bearer {}", app.publishable),
        format!("Bearer {}", app.secret),
        "Bearer not.a.jwt".to_owned(),
        // Only the project's roles are callers: no role is not anon, and no other role passes.
        signed(json!({"sub": "u1", "exp": now + 3600})),
        signed(json!({"role": "supabase_admin", "exp": now + 3600})),
        // A signed URL's token is nobody's.
        format!("Bearer {url_token}"),
        // No clock skew: a token expired a second ago is expired.
        signed(json!({"role": "authenticated", "exp": now - 1})),
    ] {
        let refused = call(Some(bad.clone())).await;
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{bad}");
        assert_eq!(refused.json()["message"], "Invalid JWT", "{bad}");
    }
    for good in [&app.anon, &app.service, &user] {
        let passed = call(Some(format!("Bearer {good}"))).await;
        assert_eq!(passed.status, StatusCode::CREATED, "{}", passed.body);
        assert_eq!(passed.json()["path"], "/guarded/x");
    }
    // A user's token past its expiry (and the clock skew JWTs are allowed) is refused as a bad
    // one is, before the function runs.
    clock.advance_seconds(3600 + 60);
    let expired = call(Some(format!("Bearer {user}"))).await;
    assert_eq!(expired.status, StatusCode::UNAUTHORIZED, "{}", expired.body);
    assert_eq!(
        expired.json(),
        json!({"code": "UNAUTHORIZED_INVALID_JWT_FORMAT", "message": "Invalid JWT"})
    );
    assert_eq!(
        expired.header("sb-error-code"),
        Some("UNAUTHORIZED_INVALID_JWT_FORMAT")
    );
    assert_eq!(expired.header("x-relay-error"), None);
    // With verify_jwt off no credentials are needed at all.
    let open = app.bare(Method::GET, "/functions/v1/echo").send().await;
    assert_eq!(open.status, StatusCode::CREATED);
}

#[tokio::test]
async fn cors_headers_are_the_emulators_and_never_doubled() {
    let app = app(Some(start_function_server().await));
    for name in ["echo", "own-cors", "missing"] {
        let response = app
            .bare(Method::POST, &format!("/functions/v1/{name}"))
            .header("origin", "http://127.0.0.1:5173")
            .send()
            .await;
        let allowed: Vec<_> = response
            .headers
            .get_all("access-control-allow-origin")
            .iter()
            .collect();
        assert_eq!(allowed, ["*"], "{name}");
        let exposed = response.header("access-control-expose-headers").unwrap();
        assert!(exposed.contains("x-relay-error"), "{name}: {exposed}");
    }
    // A preflight is answered by the emulator, for any header the client asks for.
    let preflight = app
        .bare(Method::OPTIONS, "/functions/v1/echo")
        .header("origin", "http://127.0.0.1:5173")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "apikey, x-client-info, content-type",
        )
        .send()
        .await;
    assert!(preflight.status.is_success(), "{}", preflight.status);
    assert_eq!(
        preflight.header("access-control-allow-headers"),
        Some("apikey, x-client-info, content-type")
    );
}

#[tokio::test]
async fn an_answer_streams_through_before_the_function_has_finished() {
    use tower::ServiceExt;
    // The function sends one event, then waits for the test's go before the second.
    let (go, wait) = tokio::sync::oneshot::channel::<()>();
    let wait = std::sync::Mutex::new(Some(wait));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let held = std::sync::Arc::new(wait);
    let server = Router::new().fallback(any(move || {
        let held = std::sync::Arc::clone(&held);
        async move {
            let wait = held.lock().unwrap().take().unwrap();
            let second = async move {
                wait.await.unwrap();
                Ok::<_, std::io::Error>("data: 2\n\n")
            };
            let first = futures_util::stream::once(async { Ok("data: 1\n\n") });
            let body = Body::from_stream(futures_util::StreamExt::chain(
                first,
                futures_util::stream::once(second),
            ));
            ([("content-type", "text/event-stream")], body)
        }
    }));
    tokio::spawn(async move { axum::serve(listener, server).await.unwrap() });
    let app = app(Some(
        FunctionServer::parse(&format!("http://{address}")).unwrap(),
    ));
    let request = axum::http::Request::builder()
        .method(Method::POST)
        .uri("/functions/v1/stream")
        .body(Body::empty())
        .unwrap();
    let response = app.router().oneshot(request).await.unwrap();
    let mut body = response.into_body();
    let first = tokio::time::timeout(std::time::Duration::from_secs(5), body.frame())
        .await
        .expect("the first event arrives while the function still runs")
        .unwrap()
        .unwrap();
    assert_eq!(first.into_data().unwrap(), "data: 1\n\n");
    go.send(()).unwrap();
    let rest = body.collect().await.unwrap().to_bytes();
    assert_eq!(rest, "data: 2\n\n");
}
