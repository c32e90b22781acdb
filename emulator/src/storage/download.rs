//! Reading an object: through the API (`/object/<bucket>/<path>` and
//! `/object/authenticated/...`, which need a `select` policy or the service role; without one
//! the object is not found, as row-level security hides the row), through a public bucket's
//! public URL (`/object/public/...`, no key needed) or through a signed URL
//! (`/object/sign/...?token=`, no key needed). `?download` (or `?download=<name>`) asks for an
//! attachment.

use crate::storage::caller::Caller;
use crate::storage::error::StorageError;
use crate::storage::file_body::FileBody;
use crate::storage::lookup;
use crate::storage::policy::Operation;
use crate::storage::query::QueryParams;
use crate::storage::serving;
use crate::storage::signed_url;
use crate::storage::store::{BucketRecord, ObjectRecord};
use crate::storage::StorageState;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;

/// The bucket and the object, found without regard to policies.
pub async fn find(
    state: &StorageState,
    bucket_id: &str,
    name: &str,
) -> Result<(BucketRecord, ObjectRecord), StorageError> {
    let (bucket, object) = lookup::bucket_and_object(state, bucket_id, name).await?;
    let object = object.ok_or_else(StorageError::no_such_key)?;
    Ok((bucket, object))
}

pub async fn authenticated(
    State(state): State<StorageState>,
    caller: Caller,
    Path((bucket_id, name)): Path<(String, String)>,
    params: QueryParams,
) -> Result<Response, StorageError> {
    let (bucket, object) = find(&state, &bucket_id, &name).await?;
    if !state
        .settings
        .policies
        .allows(caller.role, &bucket.id, Operation::Select)
    {
        return Err(StorageError::no_such_key());
    }
    serve(&state, &bucket, &object, &params)
}

pub async fn public(
    State(state): State<StorageState>,
    Path((bucket_id, name)): Path<(String, String)>,
    params: QueryParams,
) -> Result<Response, StorageError> {
    // The bucket is asked about first, as hosted Storage does: a private bucket's answer is the
    // same whether the object, or the bucket, exists.
    lookup::public_bucket(&state, &bucket_id, &name).await?;
    let (bucket, object) = find(&state, &bucket_id, &name).await?;
    // Made private since the first look.
    if !bucket.public {
        return Err(StorageError::no_such_bucket());
    }
    serve(&state, &bucket, &object, &params)
}

pub async fn signed(
    State(state): State<StorageState>,
    Path((bucket_id, name)): Path<(String, String)>,
    params: QueryParams,
) -> Result<Response, StorageError> {
    let token = params.get("token").unwrap_or_default();
    signed_url::verify_download(
        &state.keys,
        token,
        &format!("{bucket_id}/{name}"),
        state.clock.now_seconds(),
    )?;
    let (bucket, object) = find(&state, &bucket_id, &name).await?;
    serve(&state, &bucket, &object, &params)
}

/// `Content-Disposition` for `?download[=name]`: the given name, else the object's last segment.
fn disposition(object: &ObjectRecord, params: &QueryParams) -> Option<String> {
    let wanted = params.get("download")?;
    let name = if wanted.is_empty() {
        object.name.rsplit('/').next().unwrap_or(&object.name)
    } else {
        wanted
    };
    let escaped: String = name
        .chars()
        .filter(|c| !c.is_control())
        .map(|c| if c == '"' { '\'' } else { c })
        .collect();
    Some(format!("attachment; filename=\"{escaped}\""))
}

fn serve(
    state: &StorageState,
    bucket: &BucketRecord,
    object: &ObjectRecord,
    params: &QueryParams,
) -> Result<Response, StorageError> {
    let path = state
        .settings
        .files()?
        .file_path(&bucket.dir, &object.file)?;
    // An object removed since its row was read is gone.
    let file = std::fs::File::open(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => StorageError::no_such_key(),
        _ => error.into(),
    })?;
    let length = u64::try_from(object.size).unwrap_or_default();
    let mut response = Response::new(Body::new(FileBody::new(file, length)));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    let value = |text: &str| HeaderValue::from_str(text).map_err(StorageError::internal);
    serving::insert_headers(headers, &object.mimetype).map_err(StorageError::internal)?;
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    headers.insert(header::CACHE_CONTROL, value(&object.cache_control)?);
    headers.insert(header::ETAG, value(&object.etag)?);
    let modified = chrono::DateTime::from_timestamp_micros(object.updated_at)
        .map(|at| at.format("%a, %d %b %Y %H:%M:%S GMT").to_string());
    if let Some(modified) = modified {
        headers.insert(header::LAST_MODIFIED, value(&modified)?);
    }
    if let Some(disposition) = disposition(object, params) {
        headers.insert(header::CONTENT_DISPOSITION, value(&disposition)?);
    }
    Ok(response)
}
