//! Making signed URLs: `POST /object/sign/<bucket>/<path>` (one), `POST /object/sign/<bucket>`
//! (several) and `POST /object/upload/sign/<bucket>/<path>` (an upload URL). The URLs are
//! relative to `/storage/v1` and carry the token as `?token=`. Signing a download needs what
//! reading does (a `select` policy); signing an upload needs what uploading does.

use crate::storage::body::{IgnoredJson, JsonBody};
use crate::storage::caller::Caller;
use crate::storage::download;
use crate::storage::error::StorageError;
use crate::storage::lookup;
use crate::storage::policy::Operation;
use crate::storage::signed_url;
use crate::storage::store;
use crate::storage::upload::{self, Overwrite};
use crate::storage::StorageState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignBody {
    expires_in: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignManyBody {
    expires_in: Option<i64>,
    paths: Vec<String>,
}

fn expiry(expires_in: Option<i64>) -> Result<i64, StorageError> {
    match expires_in {
        None => Err(StorageError::invalid_request(
            "body must have required property 'expiresIn'",
        )),
        Some(seconds) if seconds < 1 => {
            Err(StorageError::invalid_request("body/expiresIn must be >= 1"))
        }
        Some(seconds) => Ok(seconds),
    }
}

fn signed_path(state: &StorageState, bucket: &str, name: &str, expires_in: i64) -> String {
    let url = format!("{bucket}/{name}");
    let token = signed_url::sign_download(&state.keys, &url, state.clock.now_seconds(), expires_in);
    format!("/object/sign/{url}?token={token}")
}

pub async fn sign_one(
    State(state): State<StorageState>,
    caller: Caller,
    Path((bucket_id, name)): Path<(String, String)>,
    JsonBody(body): JsonBody<SignBody>,
) -> Result<Json<Value>, StorageError> {
    let expires_in = expiry(body.expires_in)?;
    let (bucket, object) = download::find(&state, &bucket_id, &name).await?;
    if !state
        .settings
        .policies
        .allows(caller.role, &bucket.id, Operation::Select)
    {
        return Err(StorageError::no_such_key());
    }
    Ok(Json(
        json!({ "signedURL": signed_path(&state, &bucket.id, &object.name, expires_in) }),
    ))
}

pub async fn sign_many(
    State(state): State<StorageState>,
    caller: Caller,
    Path(bucket_id): Path<String>,
    JsonBody(body): JsonBody<SignManyBody>,
) -> Result<Json<Value>, StorageError> {
    let expires_in = expiry(body.expires_in)?;
    let readable = state
        .settings
        .policies
        .allows(caller.role, &bucket_id, Operation::Select);
    let found = {
        let (bucket_id, paths) = (bucket_id.clone(), body.paths.clone());
        state
            .db
            .call(move |c| -> Result<_, StorageError> {
                paths
                    .iter()
                    .map(|path| Ok(store::find_object(c, &bucket_id, path)?.is_some()))
                    .collect::<Result<Vec<bool>, _>>()
            })
            .await?
    };
    let entries = body
        .paths
        .iter()
        .zip(found)
        .map(|(path, exists)| {
            if exists && readable {
                json!({
                    "error": null,
                    "path": path,
                    "signedURL": signed_path(&state, &bucket_id, path, expires_in),
                })
            } else {
                json!({
                    "error": "Either the object does not exist or you do not have access to it",
                    "path": path,
                    "signedURL": null,
                })
            }
        })
        .collect();
    Ok(Json(Value::Array(entries)))
}

pub async fn sign_upload(
    State(state): State<StorageState>,
    caller: Caller,
    Path((bucket_id, name)): Path<(String, String)>,
    headers: HeaderMap,
    _body: IgnoredJson,
) -> Result<Json<Value>, StorageError> {
    let (bucket, existing) = lookup::bucket_and_object(&state, &bucket_id, &name).await?;
    let overwrite = upload::is_upsert(&headers);
    let operation = overwrite.operation(existing.is_some());
    if !state
        .settings
        .policies
        .allows(caller.role, &bucket.id, operation)
    {
        return Err(StorageError::row_level_security());
    }
    if existing.is_some() && overwrite == Overwrite::Refuse {
        return Err(StorageError::key_already_exists());
    }
    let url = format!("{}/{name}", bucket.id);
    let token = signed_url::sign_upload(
        &state.keys,
        &url,
        caller.owner.as_deref(),
        overwrite == Overwrite::Allow,
        state.clock.now_seconds(),
    );
    Ok(Json(
        json!({ "url": format!("/object/upload/sign/{url}?token={token}") }),
    ))
}
