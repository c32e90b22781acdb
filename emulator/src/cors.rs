//! CORS, so a page served from another origin (Vite on :5173) can call the emulator. Like
//! Supabase's gateway: any origin, the headers supabase-js and our client send, and the
//! response headers they read.

use axum::http::{HeaderName, Method};
use tower_http::cors::{AllowOrigin, CorsLayer};

const ALLOWED_HEADERS: [&str; 14] = [
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
    "accept",
];

const EXPOSED_HEADERS: [&str; 3] = [
    "content-range",
    "preference-applied",
    "x-supabase-api-version",
];

pub fn layer() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::any())
        .allow_methods([
            Method::GET,
            Method::HEAD,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers(ALLOWED_HEADERS.map(HeaderName::from_static))
        .expose_headers(EXPOSED_HEADERS.map(HeaderName::from_static))
        .max_age(std::time::Duration::from_secs(3600))
}
