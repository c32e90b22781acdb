//! Supabase's API gateway in front of every API (`/rest/v1`, `/auth/v1`): a request
//! must carry an API key (`apikey` header or query parameter) signed with the project's secret
//! whose role is `anon` or `service_role`.

use crate::db::AppState;
use crate::error::ApiError;
use crate::keys::{Keys, Role};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The role of the request's verified API key, for the services behind the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiKeyRole(pub Role);

pub async fn require_api_key(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    match api_key_role(&state.keys, &request, state.clock.now_seconds()) {
        Ok(role) => {
            request.extensions_mut().insert(ApiKeyRole(role));
            next.run(request).await
        }
        Err(error) => error.into_response(),
    }
}

fn api_key_role(keys: &Keys, request: &Request, now: i64) -> Result<Role, ApiError> {
    let from_header = request
        .headers()
        .get("apikey")
        .map(|value| value.to_str().unwrap_or_default().to_owned());
    let from_query = || {
        form_urlencoded::parse(request.uri().query().unwrap_or_default().as_bytes())
            .find(|(key, _)| key == "apikey")
            .map(|(_, value)| value.into_owned())
    };
    let key = from_header
        .or_else(from_query)
        .ok_or_else(ApiError::no_api_key)?;
    let claims = keys
        .verify(key.trim(), now)
        .map_err(|_| ApiError::invalid_api_key())?;
    match Keys::role_of(&claims) {
        Ok(role @ (Role::Anon | Role::ServiceRole)) => Ok(role),
        _ => Err(ApiError::invalid_api_key()),
    }
}
