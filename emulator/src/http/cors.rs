//! CORS, so a page served from another origin (Vite on :5173) can call the emulator. Like
//! Supabase's gateway and PostgREST: any origin, every request header a preflight asks for
//! (reflected, so a header such as `Idempotency-Key` passes as it does on a hosted project), and
//! the response headers supabase-js and our client read.

use axum::http::{HeaderName, Method};
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};

const EXPOSED_HEADERS: [&str; 3] = [
    "content-range",
    "preference-applied",
    "x-supabase-api-version",
];

/// Edge Functions' answers also expose the relay's headers: `x-relay-error`, which functions-js
/// reads to tell a relay error from the function's own, and `sb-error-code`, which names the
/// gateway's refusals. Only there: the other APIs' answers keep their headers as they are.
const FUNCTIONS_EXPOSED_HEADERS: [&str; 2] = ["x-relay-error", "sb-error-code"];

pub fn layer() -> CorsLayer {
    with_exposed(&EXPOSED_HEADERS)
}

/// [`layer`] for `/functions/v1`.
pub fn functions_layer() -> CorsLayer {
    let mut exposed = EXPOSED_HEADERS.to_vec();
    exposed.extend(FUNCTIONS_EXPOSED_HEADERS);
    with_exposed(&exposed)
}

fn with_exposed(exposed: &[&'static str]) -> CorsLayer {
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
        .expose_headers(
            exposed
                .iter()
                .map(|name| HeaderName::from_static(name))
                .collect::<Vec<_>>(),
        )
        .max_age(std::time::Duration::from_secs(3600))
}
