//! `/storage/v1/bucket`: listing, reading, creating, updating, emptying and deleting buckets.
//!
//! `storage.buckets` has no policies on a new project, so only the service role sees or changes
//! buckets: to anyone else the list is empty, a bucket is not found, and creating one breaks
//! row-level security. A bucket with objects cannot be deleted; emptying it first can.

use crate::keys::Role;
use crate::storage::body::{self, JsonBody};
use crate::storage::caller::Caller;
use crate::storage::error::StorageError;
use crate::storage::names::check_bucket_name;
use crate::storage::query::QueryParams;
use crate::storage::store::{self, BucketRecord};
use crate::storage::StorageState;
use crate::storage::{mime, render};
use axum::extract::{Path, State};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

/// `file_size_limit`: bytes as a number, or a string such as `"5MB"` or `"20 KB"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum SizeLimit {
    Bytes(i64),
    Text(String),
}

#[derive(Debug, Deserialize)]
pub struct BucketBody {
    id: Option<String>,
    name: Option<String>,
    #[serde(default)]
    public: bool,
    file_size_limit: Option<SizeLimit>,
    allowed_mime_types: Option<Vec<String>>,
}

fn parse_size(limit: &SizeLimit) -> Result<i64, StorageError> {
    let invalid = || {
        StorageError::invalid_request("Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B")
    };
    match limit {
        SizeLimit::Bytes(bytes) if *bytes >= 0 => Ok(*bytes),
        SizeLimit::Bytes(_) => Err(invalid()),
        SizeLimit::Text(text) => {
            let text = text.trim().to_ascii_uppercase();
            let digits_end = text
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(text.len());
            let number: i64 = text[..digits_end].parse().map_err(|_| invalid())?;
            let unit: i64 = match text[digits_end..].trim() {
                "" | "B" => 1,
                "KB" => 1000,
                "MB" => 1000 * 1000,
                "GB" => 1000 * 1000 * 1000,
                _ => return Err(invalid()),
            };
            number.checked_mul(unit).ok_or_else(invalid)
        }
    }
}

/// The limit and types a request sets, checked against the global cap.
fn limits(
    body: &BucketBody,
    state: &StorageState,
) -> Result<(Option<i64>, Option<Vec<String>>), StorageError> {
    let limit = body.file_size_limit.as_ref().map(parse_size).transpose()?;
    // 0 means no limit of the bucket's own, as in Storage.
    let limit = limit.filter(|bytes| *bytes > 0);
    if limit.is_some_and(|bytes| bytes as u64 > state.settings.max_file_size) {
        return Err(StorageError::entity_too_large());
    }
    if let Some(types) = &body.allowed_mime_types {
        types
            .iter()
            .try_for_each(|entry| mime::check_allowed_entry(entry))?;
    }
    Ok((limit, body.allowed_mime_types.clone()))
}

pub async fn list(
    State(state): State<StorageState>,
    caller: Caller,
    query: QueryParams,
) -> Result<Json<Value>, StorageError> {
    let (limit, offset) = (query.number("limit")?, query.number("offset")?);
    if caller.role != Role::ServiceRole {
        return Ok(Json(json!([])));
    }
    let mut buckets = state
        .db
        .call(|c| store::all_buckets(c).map_err(StorageError::from))
        .await?;
    if let Some(search) = query.get("search").filter(|text| !text.is_empty()) {
        let search = search.to_lowercase();
        buckets.retain(|bucket| bucket.id.to_lowercase().contains(&search));
    }
    let descending = match query.get("sortOrder") {
        None => false,
        Some(order) if order.eq_ignore_ascii_case("asc") => false,
        Some(order) if order.eq_ignore_ascii_case("desc") => true,
        Some(_) => return Err(StorageError::invalid_parameter("sortOrder")),
    };
    match query.get("sortColumn").unwrap_or("name") {
        "id" | "name" => buckets.sort_by(|a, b| a.id.cmp(&b.id)),
        "created_at" => buckets.sort_by_key(|bucket| (bucket.created_at, bucket.id.clone())),
        "updated_at" => buckets.sort_by_key(|bucket| (bucket.updated_at, bucket.id.clone())),
        _ => return Err(StorageError::invalid_parameter("sortColumn")),
    }
    if descending {
        buckets.reverse();
    }
    let page = buckets
        .iter()
        .skip(offset.unwrap_or(0))
        .take(limit.unwrap_or(usize::MAX))
        .map(render::bucket)
        .collect();
    Ok(Json(Value::Array(page)))
}

/// The bucket, if the caller may see it.
async fn visible_bucket(
    state: &StorageState,
    caller: &Caller,
    id: String,
) -> Result<BucketRecord, StorageError> {
    if caller.role != Role::ServiceRole {
        return Err(StorageError::no_such_bucket());
    }
    state
        .db
        .call(move |c| store::find_bucket(c, &id).map_err(StorageError::from))
        .await?
        .ok_or_else(StorageError::no_such_bucket)
}

pub async fn get(
    State(state): State<StorageState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Value>, StorageError> {
    let bucket = visible_bucket(&state, &caller, id).await?;
    Ok(Json(render::bucket(&bucket)))
}

pub async fn create(
    State(state): State<StorageState>,
    caller: Caller,
    JsonBody(body): JsonBody<BucketBody>,
) -> Result<Json<Value>, StorageError> {
    let id = body
        .id
        .clone()
        .or_else(|| body.name.clone())
        .ok_or_else(|| StorageError::invalid_request("body must have required property 'name'"))?;
    check_bucket_name(&id)?;
    let (file_size_limit, allowed_mime_types) = limits(&body, &state)?;
    if caller.role != Role::ServiceRole {
        return Err(StorageError::row_level_security());
    }
    let now = state.clock.now_micros();
    let record = BucketRecord {
        id: id.clone(),
        owner: caller.owner,
        public: body.public,
        file_size_limit,
        allowed_mime_types,
        dir: crate::random::uuid()?.to_string(),
        created_at: now,
        updated_at: now,
    };
    let inserted = state
        .db
        .call(move |c| store::insert_bucket(c, &record).map_err(StorageError::from))
        .await?;
    if !inserted {
        return Err(StorageError::bucket_already_exists());
    }
    Ok(Json(json!({ "name": id })))
}

pub async fn update(
    State(state): State<StorageState>,
    caller: Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<BucketBody>,
) -> Result<Json<Value>, StorageError> {
    let (file_size_limit, allowed_mime_types) = limits(&body, &state)?;
    let bucket = visible_bucket(&state, &caller, id).await?;
    let record = BucketRecord {
        public: body.public,
        file_size_limit,
        allowed_mime_types,
        updated_at: state.clock.now_micros(),
        ..bucket
    };
    let updated = state
        .db
        .call(move |c| store::update_bucket(c, &record).map_err(StorageError::from))
        .await?;
    if !updated {
        return Err(StorageError::no_such_bucket());
    }
    Ok(Json(json!({ "message": "Successfully updated" })))
}

pub async fn empty(
    State(state): State<StorageState>,
    caller: Caller,
    Path(id): Path<String>,
    _body: body::IgnoredJson,
) -> Result<Json<Value>, StorageError> {
    let bucket = visible_bucket(&state, &caller, id).await?;
    let files = state.settings.files()?;
    let removed = state
        .db
        .call(move |c| -> Result<_, StorageError> {
            let transaction = c.transaction()?;
            let objects = store::objects_under(&transaction, &bucket.id, "")?;
            for object in &objects {
                store::delete_object(&transaction, &object.id)?;
            }
            transaction.commit()?;
            Ok((bucket.dir, objects))
        })
        .await?;
    // Rows first, then files: a crash in between leaves only files the sweep removes.
    let (dir, objects) = removed;
    for object in objects {
        files.remove(&dir, &object.file)?;
    }
    Ok(Json(json!({ "message": "Successfully emptied" })))
}

pub async fn delete(
    State(state): State<StorageState>,
    caller: Caller,
    Path(id): Path<String>,
    _body: body::IgnoredJson,
) -> Result<Json<Value>, StorageError> {
    let bucket = visible_bucket(&state, &caller, id).await?;
    let files = state.settings.files()?;
    let id = bucket.id.clone();
    let deleted = state
        .db
        .call(move |c| -> Result<_, StorageError> {
            if store::count_objects(c, &id)? > 0 {
                return Err(StorageError::bucket_not_empty());
            }
            Ok(store::delete_bucket(c, &id)?)
        })
        .await?;
    if !deleted {
        return Err(StorageError::no_such_bucket());
    }
    files.remove_bucket_dir(&bucket.dir)?;
    Ok(Json(json!({ "message": "Successfully deleted" })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_limits_read_numbers_and_units() {
        let size = |text: &str| parse_size(&SizeLimit::Text(text.to_owned()));
        assert_eq!(size("5MB"), Ok(5_000_000));
        assert_eq!(size("20 kb"), Ok(20_000));
        assert_eq!(size("3"), Ok(3));
        assert!(size("5 parsecs").is_err());
        assert!(size("MB").is_err());
        assert_eq!(parse_size(&SizeLimit::Bytes(1024)), Ok(1024));
        assert!(parse_size(&SizeLimit::Bytes(-1)).is_err());
    }
}
