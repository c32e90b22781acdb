//! `GET /emulator/v1/sms`: the text messages the auth server "sent" (MFA codes), oldest first, for
//! test harnesses. Not a Supabase API: it needs a service-role key (the secret key or the
//! service_role key) in the `apikey` header (never the URL), and answers in the emulator's own
//! error shapes, not GoTrue's.

use crate::auth::store::sent_sms;
use crate::auth::AuthState;
use crate::error::ApiError;
use crate::gateway::{self, Gateway, ServiceRoleKey};
use crate::timestamp::to_go_json_text;
use axum::extract::State;
use axum::routing::get;
use axum::{middleware, Json, Router};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct SmsJson {
    phone: String,
    body: String,
    sent_at: String,
}

pub fn router(state: AuthState, gateway: Gateway) -> Router {
    Router::new()
        .route("/emulator/v1/sms", get(list))
        .route_layer(middleware::from_fn_with_state(
            gateway,
            gateway::require_api_key_header,
        ))
        .with_state(state)
}

async fn list(
    State(state): State<AuthState>,
    _: ServiceRoleKey,
) -> Result<Json<Vec<SmsJson>>, ApiError> {
    let messages = state
        .db
        .call(|connection| sent_sms::list(connection).map_err(ApiError::internal))
        .await?;
    Ok(Json(
        messages
            .into_iter()
            .map(|sms| SmsJson {
                phone: sms.phone,
                body: sms.body,
                sent_at: to_go_json_text(sms.sent_at),
            })
            .collect(),
    ))
}
