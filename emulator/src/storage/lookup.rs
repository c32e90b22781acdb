//! Finding the bucket and object a request names, before any policy is asked.

use crate::storage::error::StorageError;
use crate::storage::names::{check_bucket_name, check_object_name};
use crate::storage::store::{self, BucketRecord, ObjectRecord};
use crate::storage::StorageState;

/// The bucket `bucket_id` if it is public, once the object's name is valid (which depends on no
/// bucket); any other bucket, private or missing, is not found, so the answer tells nothing of
/// private buckets or their objects.
pub async fn public_bucket(
    state: &StorageState,
    bucket_id: &str,
    name: &str,
) -> Result<BucketRecord, StorageError> {
    check_bucket_name(bucket_id).map_err(|_| StorageError::no_such_bucket())?;
    check_object_name(name)?;
    let id = bucket_id.to_owned();
    let bucket = state
        .db
        .call(move |c| store::find_bucket(c, &id).map_err(StorageError::from))
        .await?;
    bucket
        .filter(|bucket| bucket.public)
        .ok_or_else(StorageError::no_such_bucket)
}

/// The bucket and the object at `name` in it (if there is one), once both names are valid, read
/// in one call. A bucket name that cannot exist is a bucket not found, as in Storage.
pub async fn bucket_and_object(
    state: &StorageState,
    bucket_id: &str,
    name: &str,
) -> Result<(BucketRecord, Option<ObjectRecord>), StorageError> {
    check_bucket_name(bucket_id).map_err(|_| StorageError::no_such_bucket())?;
    check_object_name(name)?;
    let (bucket_id, name) = (bucket_id.to_owned(), name.to_owned());
    let (bucket, object) = state
        .db
        .call(move |c| -> Result<_, StorageError> {
            Ok((
                store::find_bucket(c, &bucket_id)?,
                store::find_object(c, &bucket_id, &name)?,
            ))
        })
        .await?;
    let bucket = bucket.ok_or_else(StorageError::no_such_bucket)?;
    Ok((bucket, object))
}
