//! The JSON Storage answers with for buckets and objects.

use crate::storage::listing::Entry;
use crate::storage::store::{BucketRecord, ObjectRecord};
use crate::timestamp;
use serde_json::{json, Value};

/// Storage's times: ISO 8601 with milliseconds and `Z` (JavaScript's `toISOString`).
pub fn time(micros: i64) -> String {
    chrono::DateTime::from_timestamp_micros(micros)
        .map(|at| at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_else(|| timestamp::to_json_text(micros))
}

pub fn bucket(bucket: &BucketRecord) -> Value {
    json!({
        "id": bucket.id,
        "name": bucket.id,
        "owner": bucket.owner.clone().unwrap_or_default(),
        "public": bucket.public,
        "type": "STANDARD",
        "file_size_limit": bucket.file_size_limit,
        "allowed_mime_types": bucket.allowed_mime_types,
        "created_at": time(bucket.created_at),
        "updated_at": time(bucket.updated_at),
    })
}

/// The object's `metadata` column as Storage fills it.
pub fn metadata(object: &ObjectRecord) -> Value {
    json!({
        "eTag": object.etag,
        "size": object.size,
        "mimetype": object.mimetype,
        "cacheControl": object.cache_control,
        "lastModified": time(object.updated_at),
        "contentLength": object.size,
        "httpStatusCode": 200,
    })
}

fn user_metadata(object: &ObjectRecord) -> Value {
    object
        .user_metadata
        .as_deref()
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or(Value::Null)
}

/// A listing entry; folders have no row, so everything but the name is null.
pub fn entry(entry: &Entry<'_>) -> Value {
    match entry {
        Entry::Folder { name } => json!({
            "name": name,
            "id": null,
            "updated_at": null,
            "created_at": null,
            "last_accessed_at": null,
            "metadata": null,
        }),
        Entry::File { name, object } => json!({
            "name": name,
            "id": object.id,
            "updated_at": time(object.updated_at),
            "created_at": time(object.created_at),
            "last_accessed_at": time(object.last_accessed_at),
            "metadata": metadata(object),
        }),
    }
}

/// A whole row, as `remove` returns the objects it deleted.
pub fn object_row(object: &ObjectRecord) -> Value {
    json!({
        "bucket_id": object.bucket_id,
        "name": object.name,
        "owner": object.owner,
        "id": object.id,
        "updated_at": time(object.updated_at),
        "created_at": time(object.created_at),
        "last_accessed_at": time(object.last_accessed_at),
        "metadata": metadata(object),
        "user_metadata": user_metadata(object),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_javascript_iso_strings() {
        assert_eq!(time(1_700_000_000_123_456), "2023-11-14T22:13:20.123Z");
        assert_eq!(time(0), "1970-01-01T00:00:00.000Z");
    }
}
