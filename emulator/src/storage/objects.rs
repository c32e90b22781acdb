//! Listing, removing, moving and copying objects. Each needs a policy for anon and
//! authenticated callers, and what a missing policy does is what row-level security would: a
//! listing or a removal sees no rows (an empty answer), a move or copy finds no object, and a
//! copy into a bucket without an `insert` policy breaks the policy.

use crate::storage::body::JsonBody;
use crate::storage::caller::Caller;
use crate::storage::error::StorageError;
use crate::storage::listing::{self, Sort, SortBy};
use crate::storage::names::{check_bucket_name, check_object_name, check_prefix};
use crate::storage::policy::Operation;
use crate::storage::render;
use crate::storage::store::{self, ObjectRecord};
use crate::storage::StorageState;
use axum::extract::{Path, State};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

/// Storage's most names in one removal.
const MAX_PREFIXES: usize = 1000;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListBody {
    prefix: Option<String>,
    limit: Option<usize>,
    offset: Option<usize>,
    sort_by: Option<SortBy>,
    search: Option<String>,
}

pub async fn list(
    State(state): State<StorageState>,
    caller: Caller,
    Path(bucket_id): Path<String>,
    JsonBody(body): JsonBody<ListBody>,
) -> Result<Json<Value>, StorageError> {
    let prefix = body.prefix.ok_or_else(|| {
        StorageError::invalid_request("body must have required property 'prefix'")
    })?;
    check_prefix(&prefix)?;
    let sort = Sort::parse(body.sort_by.as_ref())?;
    if !state
        .settings
        .policies
        .allows(caller.role, &bucket_id, Operation::Select)
    {
        return Ok(Json(json!([])));
    }
    let prefix = listing::folder_prefix(&prefix);
    let objects = {
        let prefix = prefix.clone();
        state
            .db
            .call(move |c| store::objects_under(c, &bucket_id, &prefix).map_err(StorageError::from))
            .await?
    };
    let entries = listing::level(
        &objects,
        &prefix,
        body.search.as_deref().unwrap_or_default(),
        sort,
        body.offset.unwrap_or(0),
        body.limit.unwrap_or(100),
    );
    Ok(Json(Value::Array(
        entries.iter().map(render::entry).collect(),
    )))
}

#[derive(Debug, Deserialize)]
pub struct RemoveBody {
    prefixes: Vec<String>,
}

pub async fn remove(
    State(state): State<StorageState>,
    caller: Caller,
    Path(bucket_id): Path<String>,
    JsonBody(body): JsonBody<RemoveBody>,
) -> Result<Json<Value>, StorageError> {
    if body.prefixes.is_empty() || body.prefixes.len() > MAX_PREFIXES {
        return Err(StorageError::invalid_parameter("prefixes"));
    }
    let allowed = state
        .settings
        .policies
        .allows(caller.role, &bucket_id, Operation::Delete)
        && state
            .settings
            .policies
            .allows(caller.role, &bucket_id, Operation::Select);
    if !allowed {
        return Ok(Json(json!([])));
    }
    let files = state.settings.files()?;
    let (dir, removed) = state
        .db
        .call(move |c| -> Result<_, StorageError> {
            let transaction = c.transaction()?;
            let Some(bucket) = store::find_bucket(&transaction, &bucket_id)? else {
                return Ok((None, Vec::new()));
            };
            let mut removed: Vec<ObjectRecord> = Vec::new();
            for name in &body.prefixes {
                if let Some(object) = store::find_object(&transaction, &bucket_id, name)? {
                    if store::delete_object(&transaction, &object.id)? {
                        removed.push(object);
                    }
                }
            }
            transaction.commit()?;
            Ok((Some(bucket.dir), removed))
        })
        .await?;
    if let Some(dir) = dir {
        // Rows first, then files: a crash in between leaves files the sweep removes.
        for object in &removed {
            files.remove(&dir, &object.file)?;
        }
    }
    Ok(Json(Value::Array(
        removed.iter().map(render::object_row).collect(),
    )))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransferBody {
    bucket_id: String,
    source_key: String,
    destination_key: String,
    destination_bucket: Option<String>,
}

/// A checked move or copy: the source's row and bucket dir, and the destination's bucket.
struct Transfer {
    source: ObjectRecord,
    source_dir: String,
    destination_bucket: String,
    destination_dir: String,
    destination_key: String,
}

async fn check_transfer(
    state: &StorageState,
    caller: &Caller,
    body: TransferBody,
    source_operation: Operation,
) -> Result<Transfer, StorageError> {
    check_object_name(&body.source_key)?;
    check_object_name(&body.destination_key)?;
    let destination_bucket = body
        .destination_bucket
        .unwrap_or_else(|| body.bucket_id.clone());
    check_bucket_name(&body.bucket_id).map_err(|_| StorageError::no_such_bucket())?;
    check_bucket_name(&destination_bucket).map_err(|_| StorageError::no_such_bucket())?;
    let policies = &state.settings.policies;
    let source_visible = policies.allows(caller.role, &body.bucket_id, Operation::Select)
        && policies.allows(caller.role, &body.bucket_id, source_operation);
    let (source_bucket, source, target_bucket, target) = {
        let (bucket_id, key) = (body.bucket_id.clone(), body.source_key.clone());
        let (to_bucket, to_key) = (destination_bucket.clone(), body.destination_key.clone());
        state
            .db
            .call(move |c| -> Result<_, StorageError> {
                Ok((
                    store::find_bucket(c, &bucket_id)?,
                    store::find_object(c, &bucket_id, &key)?,
                    store::find_bucket(c, &to_bucket)?,
                    store::find_object(c, &to_bucket, &to_key)?,
                ))
            })
            .await?
    };
    let source_bucket = source_bucket.ok_or_else(StorageError::no_such_bucket)?;
    let source = source
        .filter(|_| source_visible)
        .ok_or_else(StorageError::no_such_key)?;
    let target_bucket = target_bucket.ok_or_else(StorageError::no_such_bucket)?;
    if !policies.allows(caller.role, &target_bucket.id, Operation::Insert) {
        return Err(StorageError::row_level_security());
    }
    if target.is_some() {
        return Err(StorageError::key_already_exists());
    }
    Ok(Transfer {
        source,
        source_dir: source_bucket.dir,
        destination_bucket: target_bucket.id,
        destination_dir: target_bucket.dir,
        destination_key: body.destination_key,
    })
}

pub async fn move_object(
    State(state): State<StorageState>,
    caller: Caller,
    JsonBody(body): JsonBody<TransferBody>,
) -> Result<Json<Value>, StorageError> {
    let transfer = check_transfer(&state, &caller, body, Operation::Update).await?;
    let files = state.settings.files()?;
    let across = transfer.source_dir != transfer.destination_dir;
    if across {
        files.link(
            &transfer.source_dir,
            &transfer.destination_dir,
            &transfer.source.file,
        )?;
    }
    let now = state.clock.now_micros();
    let outcome = {
        let (id, bucket, key) = (
            transfer.source.id.clone(),
            transfer.destination_bucket.clone(),
            transfer.destination_key.clone(),
        );
        state
            .db
            .call(move |c| -> Result<_, StorageError> {
                if store::find_object(c, &bucket, &key)?.is_some() {
                    return Err(StorageError::key_already_exists());
                }
                store::rename_object(c, &id, &bucket, &key, now)?;
                Ok(())
            })
            .await
    };
    if across {
        // The row names one of the two directories; the other name goes.
        let unused = if outcome.is_ok() {
            &transfer.source_dir
        } else {
            &transfer.destination_dir
        };
        files.remove(unused, &transfer.source.file)?;
    }
    outcome?;
    Ok(Json(json!({ "message": "Successfully moved" })))
}

pub async fn copy(
    State(state): State<StorageState>,
    caller: Caller,
    JsonBody(body): JsonBody<TransferBody>,
) -> Result<Json<Value>, StorageError> {
    let transfer = check_transfer(&state, &caller, body, Operation::Select).await?;
    let files = state.settings.files()?;
    let file = crate::random::uuid()?.to_string();
    {
        let (files, transfer_dir, destination_dir, source_file, file) = (
            files.clone(),
            transfer.source_dir.clone(),
            transfer.destination_dir.clone(),
            transfer.source.file.clone(),
            file.clone(),
        );
        tokio::task::spawn_blocking(move || {
            files.copy(&transfer_dir, &source_file, &destination_dir, &file)
        })
        .await
        .map_err(StorageError::internal)??;
    }
    let now = state.clock.now_micros();
    let record = ObjectRecord {
        id: crate::random::uuid()?.to_string(),
        bucket_id: transfer.destination_bucket.clone(),
        name: transfer.destination_key.clone(),
        owner: caller.owner.clone(),
        file: file.clone(),
        created_at: now,
        updated_at: now,
        last_accessed_at: now,
        ..transfer.source.clone()
    };
    let outcome = {
        let record = record.clone();
        state
            .db
            .call(move |c| -> Result<_, StorageError> {
                if store::find_object(c, &record.bucket_id, &record.name)?.is_some() {
                    return Err(StorageError::key_already_exists());
                }
                store::upsert_object(c, &record)?;
                Ok(())
            })
            .await
    };
    if outcome.is_err() {
        files.remove(&transfer.destination_dir, &file)?;
    }
    outcome?;
    Ok(Json(
        json!({ "Key": format!("{}/{}", record.bucket_id, record.name) }),
    ))
}
