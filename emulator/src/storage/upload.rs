//! Uploads: `POST /object/<bucket>/<path>` (new, or replacing with `x-upsert: true`),
//! `PUT /object/<bucket>/<path>` (replacing) and `PUT /object/upload/sign/<bucket>/<path>`
//! (with a signed upload token).
//!
//! The body is a raw file (`content-type`, `cache-control` and a base64 JSON `x-metadata` in
//! headers) or a `multipart/form-data` form (fields `cacheControl` and `metadata`, then the
//! file, whose part's type is the object's). Everything that can be refused before the body is
//! read is: the policy, names, the bucket, a spent upload URL, a duplicate, a declared length over
//! the limit, a raw body's type. The body then streams into a temporary file in the bucket's
//! directory and is refused (413, the file removed, the connection closed) as soon as it passes
//! the bucket's `file_size_limit` or the global cap. Only a complete file is renamed into place
//! and only then is its row committed (spending the upload URL's token with it); a replaced
//! object's old file is removed last.
//!
//! An object's type is one media type, `type/subtype` with optional parameters ([`mime`]): a list
//! such as `image/png, text/html` is refused, whatever the bucket allows.

use crate::http::linger;
use crate::storage::error::StorageError;
use crate::storage::files::PendingFile;
use crate::storage::lookup;
use crate::storage::multipart::{self, FormReader};
use crate::storage::policy::Operation;
use crate::storage::query::QueryParams;
use crate::storage::signed_url::{self, UploadGrant};
use crate::storage::store::{self, BucketRecord, ObjectRecord};
use crate::storage::StorageState;
use crate::storage::{caller::Caller, mime};
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::Json;
use base64::Engine;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::io::Write;

/// A form field other than the file larger than this is refused.
const MAX_FIELD_BYTES: usize = 64 * 1024;

/// All the parts of a form but the file together may hold this many bytes: fields before it, and
/// parts after it, which Storage ignores but which are still read to find the form's end.
const MAX_OTHER_PARTS_BYTES: usize = 2 * MAX_FIELD_BYTES;

/// Whether an upload may replace an existing object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overwrite {
    Refuse,
    Allow,
}

impl Overwrite {
    /// The policies an upload needs: a new object's is `insert`; one that may replace an object
    /// is an upsert, which needs `insert`, `select` and `update` whether the object exists or not,
    /// as hosted Storage's (PostgreSQL's `INSERT ... ON CONFLICT DO UPDATE` under row-level
    /// security). Known before anything is looked up.
    pub fn operations(self) -> &'static [Operation] {
        match self {
            Overwrite::Refuse => &[Operation::Insert],
            Overwrite::Allow => &[Operation::Insert, Operation::Select, Operation::Update],
        }
    }
}

/// Who may upload: a caller checked against the policies, or a signed upload token's grant.
#[derive(Debug, Clone)]
pub enum Uploader {
    Caller(Caller),
    SignedToken(UploadGrant),
}

/// The headers and body of an upload request.
pub struct UploadRequest {
    pub headers: HeaderMap,
    pub body: Body,
}

/// What was received and where it waits.
struct Received {
    pending: PendingFile,
    size: i64,
    etag: String,
    content_type: String,
    cache_control: String,
    user_metadata: Option<String>,
}

fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// The object's row once stored. A refused body's unread rest is read and dropped behind the
/// answer, so the client sees the refusal rather than a reset connection.
pub async fn upload(
    state: &StorageState,
    uploader: Uploader,
    bucket_id: String,
    name: String,
    overwrite: Overwrite,
    request: UploadRequest,
) -> Result<ObjectRecord, StorageError> {
    let UploadRequest { headers, mut body } = request;
    let stored = store_upload(
        state, uploader, bucket_id, name, overwrite, &headers, &mut body,
    )
    .await;
    if stored.is_err() {
        linger::discard_later(body);
    }
    stored
}

async fn store_upload(
    state: &StorageState,
    uploader: Uploader,
    bucket_id: String,
    name: String,
    overwrite: Overwrite,
    headers: &HeaderMap,
    body: &mut Body,
) -> Result<ObjectRecord, StorageError> {
    if let Uploader::Caller(caller) = &uploader {
        if !state
            .settings
            .policies
            .allows_all(caller.role, &bucket_id, overwrite.operations())
        {
            return Err(StorageError::row_level_security().closing());
        }
    }
    let (bucket, existing) = lookup::bucket_and_object(state, &bucket_id, &name).await?;
    let (owner, token) = match uploader {
        Uploader::Caller(caller) => (caller.owner, None),
        Uploader::SignedToken(grant) => {
            let id = grant.id.clone();
            let spent = state
                .db
                .call(move |c| store::upload_token_spent(c, &id).map_err(StorageError::from))
                .await?;
            if spent {
                return Err(StorageError::upload_url_spent().closing());
            }
            (grant.owner.clone(), Some(grant))
        }
    };
    if existing.is_some() && overwrite == Overwrite::Refuse {
        return Err(StorageError::key_already_exists().closing());
    }
    let limit = bucket
        .file_size_limit
        .map_or(state.settings.max_file_size, |bytes| {
            (bytes as u64).min(state.settings.max_file_size)
        });
    let file_name = crate::random::uuid()?.to_string();
    let pending = state.settings.files()?.begin(&bucket.dir, &file_name)?;
    let received = receive(&bucket, pending, limit, headers, body).await?;
    let Received {
        pending,
        size,
        etag,
        content_type,
        cache_control,
        user_metadata,
    } = received;
    tokio::task::spawn_blocking(move || pending.commit())
        .await
        .map_err(StorageError::internal)??;
    let now = state.clock.now_micros();
    let record = ObjectRecord {
        id: existing.as_ref().map_or_else(
            || Ok(crate::random::uuid()?.to_string()),
            |o| Ok::<_, StorageError>(o.id.clone()),
        )?,
        bucket_id: bucket.id.clone(),
        name,
        owner,
        file: file_name.clone(),
        size,
        mimetype: content_type,
        cache_control,
        etag,
        user_metadata,
        created_at: existing.as_ref().map_or(now, |o| o.created_at),
        updated_at: now,
        last_accessed_at: now,
    };
    let committed = {
        let record = record.clone();
        let now = state.clock.now_seconds();
        state
            .db
            .call(move |c| -> Result<_, StorageError> {
                let transaction = c.transaction()?;
                // Two uploads may have streamed with one token: the first to commit spends it.
                if let Some(grant) = &token {
                    if !store::spend_upload_token(&transaction, &grant.id, grant.expires_at, now)? {
                        return Err(StorageError::upload_url_spent());
                    }
                }
                let current = store::find_object(&transaction, &record.bucket_id, &record.name)?;
                // Another upload may have created the object while this one streamed.
                if current.is_some() && overwrite == Overwrite::Refuse {
                    return Err(StorageError::key_already_exists());
                }
                let record = ObjectRecord {
                    id: current.as_ref().map_or(record.id.clone(), |o| o.id.clone()),
                    created_at: current.as_ref().map_or(record.created_at, |o| o.created_at),
                    ..record
                };
                store::upsert_object(&transaction, &record)?;
                transaction.commit()?;
                Ok((record, current.map(|o| o.file)))
            })
            .await
    };
    let files = state.settings.files()?;
    match committed {
        Ok((record, replaced)) => {
            if let Some(old) = replaced.filter(|old| *old != file_name) {
                files.remove(&bucket.dir, &old)?;
            }
            Ok(record)
        }
        Err(refusal) => {
            files.remove(&bucket.dir, &file_name)?;
            Err(refusal)
        }
    }
}

/// Bytes written so far, their hash, and the limit they must stay under.
struct Sink {
    pending: PendingFile,
    size: u64,
    limit: u64,
    hash: Sha256,
}

impl Sink {
    /// Writes a chunk. The writes are synchronous: a chunk goes to the page cache (the one
    /// slow step, fsync, runs on the blocking pool at commit).
    fn write(&mut self, bytes: &[u8]) -> Result<(), StorageError> {
        self.size += bytes.len() as u64;
        if self.size > self.limit {
            return Err(StorageError::entity_too_large().closing());
        }
        self.hash.update(bytes);
        self.pending.file()?.write_all(bytes)?;
        Ok(())
    }

    fn finish(self) -> (PendingFile, i64, String) {
        let digest = self.hash.finalize();
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        (
            self.pending,
            i64::try_from(self.size).unwrap_or(i64::MAX),
            format!("\"{hex}\""),
        )
    }
}

/// A form value that is served back as a header must be a valid header value.
fn header_safe(text: String) -> Result<String, StorageError> {
    match HeaderValue::from_str(&text) {
        Ok(_) => Ok(text),
        Err(_) => Err(StorageError::invalid_request(format!(
            "Invalid header value: {}",
            text.escape_debug()
        ))
        .closing()),
    }
}

async fn receive(
    bucket: &BucketRecord,
    pending: PendingFile,
    limit: u64,
    headers: &HeaderMap,
    body: &mut Body,
) -> Result<Received, StorageError> {
    let mut sink = Sink {
        pending,
        size: 0,
        limit,
        hash: Sha256::new(),
    };
    let content_type = header_text(headers, header::CONTENT_TYPE.as_str())
        .unwrap_or("application/octet-stream")
        .to_owned();
    if let Some(boundary) = multipart::boundary(&content_type)? {
        return receive_form(bucket, sink, boundary, body).await;
    }
    mime::check_upload(bucket.allowed_mime_types.as_deref(), &content_type)
        .map_err(StorageError::closing)?;
    // A raw body is the file: a declared length over the limit is refused before reading. (A
    // form's length includes its other parts, so only its file's bytes are counted.)
    let declared = header_text(headers, header::CONTENT_LENGTH.as_str())
        .and_then(|text| text.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit) {
        return Err(StorageError::entity_too_large().closing());
    }
    let user_metadata = match header_text(headers, "x-metadata") {
        None => None,
        Some(encoded) => Some(decode_metadata(encoded)?),
    };
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| StorageError::unreadable_body())?;
        if let Some(data) = frame.data_ref() {
            sink.write(data)?;
        }
    }
    let (pending, size, etag) = sink.finish();
    Ok(Received {
        pending,
        size,
        etag,
        content_type,
        cache_control: header_text(headers, header::CACHE_CONTROL.as_str())
            .unwrap_or("no-cache")
            .to_owned(),
        user_metadata,
    })
}

/// `x-metadata`: base64 of a JSON object.
fn decode_metadata(encoded: &str) -> Result<String, StorageError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|_| StorageError::invalid_request("Invalid x-metadata header: not base64"))?;
    json_object_text(&bytes)
}

fn json_object_text(bytes: &[u8]) -> Result<String, StorageError> {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(value @ serde_json::Value::Object(_)) => Ok(value.to_string()),
        _ => Err(StorageError::invalid_request(
            "Invalid metadata: a JSON object is expected",
        )),
    }
}

/// Reads a form: fields `cacheControl` and `metadata` are kept, the first part with a filename is
/// the file (its part's type is the object's) and streams into `sink`; Storage reads only that
/// first file, so later parts are read and ignored. Every part but the file counts against
/// [`MAX_OTHER_PARTS_BYTES`], so neither fields nor what trails the file can be made endless.
async fn receive_form(
    bucket: &BucketRecord,
    mut sink: Sink,
    boundary: String,
    body: &mut Body,
) -> Result<Received, StorageError> {
    let mut form = FormReader::new(body, boundary);
    let mut file_type: Option<String> = None;
    let mut cache_control: Option<String> = None;
    let mut user_metadata: Option<String> = None;
    let mut other_bytes = 0;
    let mut count_other = |bytes: &[u8]| {
        other_bytes += bytes.len();
        if other_bytes > MAX_OTHER_PARTS_BYTES {
            Err(StorageError::entity_too_large().closing())
        } else {
            Ok(())
        }
    };
    while let Some(mut part) = form.next_part().await? {
        if file_type.is_some() {
            while let Some(bytes) = part.chunk().await? {
                count_other(&bytes)?;
            }
        } else if part.filename.is_some() {
            let part_type = header_safe(
                part.content_type
                    .take()
                    .unwrap_or_else(|| "application/octet-stream".to_owned()),
            )?;
            mime::check_upload(bucket.allowed_mime_types.as_deref(), &part_type)
                .map_err(StorageError::closing)?;
            file_type = Some(part_type);
            while let Some(bytes) = part.chunk().await? {
                sink.write(&bytes)?;
            }
        } else {
            let mut field = Vec::new();
            while let Some(bytes) = part.chunk().await? {
                count_other(&bytes)?;
                if field.len() + bytes.len() > MAX_FIELD_BYTES {
                    return Err(StorageError::entity_too_large().closing());
                }
                field.extend_from_slice(&bytes);
            }
            match part.name.as_str() {
                "cacheControl" => {
                    let text = String::from_utf8_lossy(&field).trim().to_owned();
                    cache_control = Some(header_safe(format!("max-age={text}"))?);
                }
                "metadata" => user_metadata = Some(json_object_text(&field)?),
                _ => {}
            }
        }
    }
    let content_type =
        file_type.ok_or_else(|| StorageError::invalid_request("No content provided").closing())?;
    let (pending, size, etag) = sink.finish();
    Ok(Received {
        pending,
        size,
        etag,
        content_type,
        cache_control: cache_control.unwrap_or_else(|| "no-cache".to_owned()),
        user_metadata,
    })
}

/// A caller's upload (`POST` or `PUT`), checked against the policies and answered with
/// `{ "Id", "Key" }` as Storage does; the two differ only in whether it may overwrite.
async fn caller_upload(
    state: &StorageState,
    caller: Caller,
    bucket_id: String,
    name: String,
    overwrite: Overwrite,
    request: UploadRequest,
) -> Result<Json<Value>, StorageError> {
    let uploader = Uploader::Caller(caller);
    let object = upload(state, uploader, bucket_id, name, overwrite, request).await?;
    Ok(Json(
        json!({ "Id": object.id, "Key": format!("{}/{}", object.bucket_id, object.name) }),
    ))
}

/// `x-upsert: true` lets an upload (or an upload URL) replace an existing object.
pub fn is_upsert(headers: &HeaderMap) -> Overwrite {
    match header_text(headers, "x-upsert") {
        Some(value) if value.trim().eq_ignore_ascii_case("true") => Overwrite::Allow,
        _ => Overwrite::Refuse,
    }
}

/// `POST /object/<bucket>/<path>`.
pub async fn create(
    State(state): State<StorageState>,
    caller: Caller,
    Path((bucket_id, name)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, StorageError> {
    let overwrite = is_upsert(&headers);
    let request = UploadRequest { headers, body };
    caller_upload(&state, caller, bucket_id, name, overwrite, request).await
}

/// `PUT /object/<bucket>/<path>`: replaces the object (or creates it).
pub async fn replace(
    State(state): State<StorageState>,
    caller: Caller,
    Path((bucket_id, name)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, StorageError> {
    let request = UploadRequest { headers, body };
    caller_upload(&state, caller, bucket_id, name, Overwrite::Allow, request).await
}

/// `PUT /object/upload/sign/<bucket>/<path>?token=`: the token is the only credential.
pub async fn with_signed_token(
    State(state): State<StorageState>,
    Path((bucket_id, name)): Path<(String, String)>,
    params: QueryParams,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, StorageError> {
    let token = params.get("token").unwrap_or_default();
    let grant = signed_url::verify_upload(
        &state.keys,
        token,
        &format!("{bucket_id}/{name}"),
        state.clock.now_seconds(),
    );
    let grant = match grant {
        Ok(grant) => grant,
        Err(error) => {
            linger::discard_later(body);
            return Err(error.closing());
        }
    };
    let overwrite = if grant.upsert {
        Overwrite::Allow
    } else {
        Overwrite::Refuse
    };
    let request = UploadRequest { headers, body };
    let object = upload(
        &state,
        Uploader::SignedToken(grant),
        bucket_id,
        name,
        overwrite,
        request,
    )
    .await?;
    Ok(Json(
        json!({ "Key": format!("{}/{}", object.bucket_id, object.name) }),
    ))
}
