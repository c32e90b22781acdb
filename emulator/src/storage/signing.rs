//! Making signed URLs: `POST /object/sign/<bucket>/<path>` (one), `POST /object/sign/<bucket>`
//! (several) and `POST /object/upload/sign/<bucket>/<path>` (an upload URL). The URLs are
//! relative to `/storage/v1` and carry the token as `?token=`. Signing a download needs what
//! reading does (a `select` policy), asked before anything is looked up; signing an upload needs
//! what uploading does, and an upload URL that may replace an object needs what an upsert does
//! (`insert`, `select` and `update`), whether or not the object exists yet.
//!
//! One request signs at most [`MAX_SIGNED_PATHS`] paths (hosted Storage takes any number): a
//! longer list is refused before the database is read, and the paths are looked up a batch at a
//! time, so one request never holds the database for long.

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
use serde::de::{self, Deserializer, IgnoredAny, SeqAccess};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashSet;

/// The most paths one `object/sign` request may name, as in one removal.
pub const MAX_SIGNED_PATHS: usize = 1000;

/// Paths looked up in one database call.
const LOOKUP_BATCH: usize = 100;

/// The longest a signed download URL may last: a week, as S3's presigned URLs. A signed URL
/// cannot be revoked short of changing the JWT secret, so it must not outlive the access it
/// stands for by long (hosted Storage sets no bound).
pub const MAX_EXPIRES_IN_SECONDS: i64 = 7 * 24 * 60 * 60;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignBody {
    expires_in: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignManyBody {
    expires_in: Option<i64>,
    paths: PathList,
}

/// `paths`, kept up to the cap: past it, the rest of the list is read over without being kept.
#[derive(Debug)]
enum PathList {
    Within(Vec<String>),
    TooMany,
}

impl<'de> Deserialize<'de> for PathList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<PathList, D::Error> {
        struct Paths;

        impl<'de> de::Visitor<'de> for Paths {
            type Value = PathList;

            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a list of object paths")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<PathList, A::Error> {
                let mut paths = Vec::new();
                while let Some(path) = items.next_element::<String>()? {
                    if paths.len() == MAX_SIGNED_PATHS {
                        while items.next_element::<IgnoredAny>()?.is_some() {}
                        return Ok(PathList::TooMany);
                    }
                    paths.push(path);
                }
                Ok(PathList::Within(paths))
            }
        }

        deserializer.deserialize_seq(Paths)
    }
}

fn expiry(expires_in: Option<i64>) -> Result<i64, StorageError> {
    match expires_in {
        None => Err(StorageError::invalid_request(
            "body must have required property 'expiresIn'",
        )),
        Some(seconds) if seconds < 1 => {
            Err(StorageError::invalid_request("body/expiresIn must be >= 1"))
        }
        Some(seconds) if seconds > MAX_EXPIRES_IN_SECONDS => Err(StorageError::invalid_request(
            format!("body/expiresIn must be <= {MAX_EXPIRES_IN_SECONDS}"),
        )),
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
    if !state
        .settings
        .policies
        .allows(caller.role, &bucket_id, Operation::Select)
    {
        return Err(StorageError::no_such_key());
    }
    let (bucket, object) = download::find(&state, &bucket_id, &name).await?;
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
    let PathList::Within(paths) = body.paths else {
        return Err(StorageError::invalid_request(format!(
            "body/paths must NOT have more than {MAX_SIGNED_PATHS} items"
        )));
    };
    let expires_in = expiry(body.expires_in)?;
    // Without the policy no path is signed, so none is looked up.
    let found = if state
        .settings
        .policies
        .allows(caller.role, &bucket_id, Operation::Select)
    {
        existing(&state, &bucket_id, &paths).await?
    } else {
        HashSet::new()
    };
    let entries = paths
        .iter()
        .map(|path| {
            if found.contains(path) {
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

/// Which of `paths` are objects of the bucket, a batch per database call so that other requests
/// are served between them.
async fn existing(
    state: &StorageState,
    bucket_id: &str,
    paths: &[String],
) -> Result<HashSet<String>, StorageError> {
    let mut found = HashSet::new();
    for batch in paths.chunks(LOOKUP_BATCH) {
        let (bucket_id, batch) = (bucket_id.to_owned(), batch.to_vec());
        let names = state
            .db
            .call(move |c| store::existing_names(c, &bucket_id, &batch).map_err(StorageError::from))
            .await?;
        found.extend(names);
    }
    Ok(found)
}

pub async fn sign_upload(
    State(state): State<StorageState>,
    caller: Caller,
    Path((bucket_id, name)): Path<(String, String)>,
    headers: HeaderMap,
    _body: IgnoredJson,
) -> Result<Json<Value>, StorageError> {
    let overwrite = upload::is_upsert(&headers);
    if !state
        .settings
        .policies
        .allows_all(caller.role, &bucket_id, overwrite.operations())
    {
        return Err(StorageError::row_level_security());
    }
    let (bucket, existing) = lookup::bucket_and_object(&state, &bucket_id, &name).await?;
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
    )?;
    Ok(Json(
        json!({ "url": format!("/object/upload/sign/{url}?token={token}") }),
    ))
}
