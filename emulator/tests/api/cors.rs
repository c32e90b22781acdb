//! CORS for a page on another origin.

use crate::support::{TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};

#[tokio::test]
async fn preflight_allows_the_supabase_headers() {
    let app = TestApp::new();
    let response = app
        .bare(Method::OPTIONS, TABLE_URL)
        .header("origin", "http://127.0.0.1:5173")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "apikey,authorization,content-type,x-client-info,prefer,accept-profile,content-profile,\
             range,x-retry-count,x-supabase-api-version,baggage,traceparent,tracestate",
        )
        .send()
        .await;
    assert!(response.status.is_success(), "{:?}", response.status);
    assert_eq!(response.header("access-control-allow-origin"), Some("*"));
    let methods = response.header("access-control-allow-methods").unwrap();
    for method in ["GET", "HEAD", "POST", "PATCH", "DELETE", "OPTIONS"] {
        assert!(methods.contains(method), "{methods}");
    }
    let headers = response.header("access-control-allow-headers").unwrap();
    for header in [
        "apikey",
        "authorization",
        "content-type",
        "x-client-info",
        "prefer",
        "accept-profile",
        "content-profile",
        "range",
        "x-retry-count",
        "x-supabase-api-version",
        "baggage",
        "traceparent",
        "tracestate",
    ] {
        assert!(
            headers.split(',').any(|allowed| allowed == header),
            "{header} in {headers}"
        );
    }
}

#[tokio::test]
async fn responses_and_errors_carry_allow_origin_and_expose_headers() {
    let app = TestApp::new();
    let ok = app
        .anon(Method::GET, TABLE_URL)
        .header("origin", "http://127.0.0.1:5173")
        .send()
        .await;
    assert_eq!(ok.status, StatusCode::OK);
    assert_eq!(ok.header("access-control-allow-origin"), Some("*"));
    let exposed = ok.header("access-control-expose-headers").unwrap();
    for header in [
        "content-range",
        "preference-applied",
        "x-supabase-api-version",
    ] {
        assert!(exposed.contains(header), "{exposed}");
    }
    let refused = app
        .bare(Method::GET, TABLE_URL)
        .header("origin", "http://127.0.0.1:5173")
        .send()
        .await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    assert_eq!(refused.header("access-control-allow-origin"), Some("*"));
}
