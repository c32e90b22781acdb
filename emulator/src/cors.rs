//! CORS, so a page served from another origin (Vite on :5173) can call the emulator. Like
//! Supabase's gateway and PostgREST: any origin, every request header a preflight asks for
//! (reflected, so a header such as `Idempotency-Key` passes as it does on a hosted project), and
//! the response headers supabase-js and our client read.

use axum::http::{HeaderName, Method};
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};

const EXPOSED_HEADERS: [&str; 5] = [
    "content-range",
    "preference-applied",
    "x-supabase-api-version",
    // Edge Functions' relay errors: functions-js reads it to tell them from the function's own.
    "x-relay-error",
    // The Edge Functions gateway's own refusals name their code here too.
    "sb-error-code",
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
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers(EXPOSED_HEADERS.map(HeaderName::from_static))
        .max_age(std::time::Duration::from_secs(3600))
}
