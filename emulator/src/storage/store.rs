//! Buckets and object metadata in SQLite. Object bytes live in files ([`crate::storage::files`]):
//! a row names its file, and a row is only written once its file is complete on disk.

use rusqlite::{params, Connection, OptionalExtension, Row};

/// `storage_buckets.dir` and `storage_objects.file` are names the emulator makes itself (UUIDs),
/// never taken from a request. Times are microseconds since the Unix epoch, UTC.
/// `allowed_mime_types` is a JSON array, or NULL for any type.
const STORAGE_TABLES_SQL: &str = "
CREATE TABLE IF NOT EXISTS storage_buckets (
    id TEXT PRIMARY KEY,
    owner TEXT,
    public INTEGER NOT NULL,
    file_size_limit INTEGER,
    allowed_mime_types TEXT,
    dir TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS storage_objects (
    id TEXT PRIMARY KEY,
    bucket_id TEXT NOT NULL REFERENCES storage_buckets (id),
    name TEXT NOT NULL,
    owner TEXT,
    file TEXT NOT NULL,
    size INTEGER NOT NULL,
    mimetype TEXT NOT NULL,
    cache_control TEXT NOT NULL,
    etag TEXT NOT NULL,
    user_metadata TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    last_accessed_at INTEGER NOT NULL,
    UNIQUE (bucket_id, name)
) STRICT;
CREATE TABLE IF NOT EXISTS storage_spent_upload_tokens (
    id TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
) STRICT;
";

/// Creates the storage tables where they are missing.
pub fn migrate(connection: &Connection) -> rusqlite::Result<()> {
    connection.execute_batch(STORAGE_TABLES_SQL)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketRecord {
    pub id: String,
    pub owner: Option<String>,
    pub public: bool,
    pub file_size_limit: Option<i64>,
    pub allowed_mime_types: Option<Vec<String>>,
    pub dir: String,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRecord {
    pub id: String,
    pub bucket_id: String,
    pub name: String,
    pub owner: Option<String>,
    pub file: String,
    pub size: i64,
    pub mimetype: String,
    pub cache_control: String,
    pub etag: String,
    pub user_metadata: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub last_accessed_at: i64,
}

const BUCKET_COLUMNS: &str =
    "id, owner, public, file_size_limit, allowed_mime_types, dir, created_at, updated_at";
const OBJECT_COLUMNS: &str = "id, bucket_id, name, owner, file, size, mimetype, cache_control, \
     etag, user_metadata, created_at, updated_at, last_accessed_at";

fn bucket_from(row: &Row<'_>) -> rusqlite::Result<BucketRecord> {
    let types: Option<String> = row.get(4)?;
    Ok(BucketRecord {
        id: row.get(0)?,
        owner: row.get(1)?,
        public: row.get(2)?,
        file_size_limit: row.get(3)?,
        // Written by `insert_bucket` from a Vec, so it parses; a hand-edited row loses its list.
        allowed_mime_types: types.and_then(|text| serde_json::from_str(&text).ok()),
        dir: row.get(5)?,
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
    })
}

fn object_from(row: &Row<'_>) -> rusqlite::Result<ObjectRecord> {
    Ok(ObjectRecord {
        id: row.get(0)?,
        bucket_id: row.get(1)?,
        name: row.get(2)?,
        owner: row.get(3)?,
        file: row.get(4)?,
        size: row.get(5)?,
        mimetype: row.get(6)?,
        cache_control: row.get(7)?,
        etag: row.get(8)?,
        user_metadata: row.get(9)?,
        created_at: row.get(10)?,
        updated_at: row.get(11)?,
        last_accessed_at: row.get(12)?,
    })
}

fn types_json(types: Option<&Vec<String>>) -> Option<String> {
    types.map(|types| serde_json::Value::from(types.clone()).to_string())
}

pub fn all_buckets(connection: &Connection) -> rusqlite::Result<Vec<BucketRecord>> {
    let mut statement =
        connection.prepare(&format!("SELECT {BUCKET_COLUMNS} FROM storage_buckets"))?;
    let rows = statement.query_map([], bucket_from)?;
    rows.collect()
}

pub fn find_bucket(connection: &Connection, id: &str) -> rusqlite::Result<Option<BucketRecord>> {
    connection
        .query_row(
            &format!("SELECT {BUCKET_COLUMNS} FROM storage_buckets WHERE id = ?1"),
            [id],
            bucket_from,
        )
        .optional()
}

/// Inserts the bucket; `false` when its id is taken.
pub fn insert_bucket(connection: &Connection, bucket: &BucketRecord) -> rusqlite::Result<bool> {
    let inserted = connection.execute(
        "INSERT INTO storage_buckets (id, owner, public, file_size_limit, allowed_mime_types, dir, \
         created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (id) DO NOTHING",
        params![
            bucket.id,
            bucket.owner,
            bucket.public,
            bucket.file_size_limit,
            types_json(bucket.allowed_mime_types.as_ref()),
            bucket.dir,
            bucket.created_at,
            bucket.updated_at
        ],
    )?;
    Ok(inserted == 1)
}

/// Replaces the bucket's settings; `false` when there is no such bucket.
pub fn update_bucket(connection: &Connection, bucket: &BucketRecord) -> rusqlite::Result<bool> {
    let updated = connection.execute(
        "UPDATE storage_buckets SET public = ?2, file_size_limit = ?3, allowed_mime_types = ?4, \
         updated_at = ?5 WHERE id = ?1",
        params![
            bucket.id,
            bucket.public,
            bucket.file_size_limit,
            types_json(bucket.allowed_mime_types.as_ref()),
            bucket.updated_at
        ],
    )?;
    Ok(updated == 1)
}

pub fn delete_bucket(connection: &Connection, id: &str) -> rusqlite::Result<bool> {
    Ok(connection.execute("DELETE FROM storage_buckets WHERE id = ?1", [id])? == 1)
}

pub fn count_objects(connection: &Connection, bucket_id: &str) -> rusqlite::Result<i64> {
    connection.query_row(
        "SELECT count(*) FROM storage_objects WHERE bucket_id = ?1",
        [bucket_id],
        |row| row.get(0),
    )
}

pub fn find_object(
    connection: &Connection,
    bucket_id: &str,
    name: &str,
) -> rusqlite::Result<Option<ObjectRecord>> {
    connection
        .query_row(
            &format!(
                "SELECT {OBJECT_COLUMNS} FROM storage_objects WHERE bucket_id = ?1 AND name = ?2"
            ),
            [bucket_id, name],
            object_from,
        )
        .optional()
}

/// Whether the signed upload token `id` has served an upload.
pub fn upload_token_spent(connection: &Connection, id: &str) -> rusqlite::Result<bool> {
    connection
        .query_row(
            "SELECT 1 FROM storage_spent_upload_tokens WHERE id = ?1",
            [id],
            |_| Ok(()),
        )
        .optional()
        .map(|row| row.is_some())
}

/// Spends the signed upload token `id` (valid until `expires_at`, Unix seconds); false if it was
/// spent already. Ids of tokens expired by `now` are forgotten: their tokens no longer verify.
pub fn spend_upload_token(
    connection: &Connection,
    id: &str,
    expires_at: i64,
    now: i64,
) -> rusqlite::Result<bool> {
    connection.execute(
        "DELETE FROM storage_spent_upload_tokens WHERE expires_at <= ?1",
        [now],
    )?;
    let inserted = connection.execute(
        "INSERT INTO storage_spent_upload_tokens (id, expires_at) VALUES (?1, ?2) \
         ON CONFLICT (id) DO NOTHING",
        params![id, expires_at],
    )?;
    Ok(inserted == 1)
}

/// Which of `names` are objects of the bucket, in one query (the caller keeps `names` short:
/// each is a bound parameter).
pub fn existing_names(
    connection: &Connection,
    bucket_id: &str,
    names: &[String],
) -> rusqlite::Result<std::collections::HashSet<String>> {
    if names.is_empty() {
        return Ok(std::collections::HashSet::new());
    }
    let placeholders = vec!["?"; names.len()].join(", ");
    let mut statement = connection.prepare(&format!(
        "SELECT name FROM storage_objects WHERE bucket_id = ? AND name IN ({placeholders})"
    ))?;
    let values = std::iter::once(bucket_id).chain(names.iter().map(String::as_str));
    let rows = statement.query_map(rusqlite::params_from_iter(values), |row| row.get(0))?;
    rows.collect()
}

/// The bucket's objects whose names start with `prefix` (compared byte for byte).
pub fn objects_under(
    connection: &Connection,
    bucket_id: &str,
    prefix: &str,
) -> rusqlite::Result<Vec<ObjectRecord>> {
    let mut statement = connection.prepare(&format!(
        "SELECT {OBJECT_COLUMNS} FROM storage_objects WHERE bucket_id = ?1 \
         AND substr(name, 1, length(?2)) = ?2 ORDER BY name"
    ))?;
    let rows = statement.query_map([bucket_id, prefix], object_from)?;
    rows.collect()
}

/// Inserts a new object or replaces an existing one's content (same id, new file).
pub fn upsert_object(connection: &Connection, object: &ObjectRecord) -> rusqlite::Result<()> {
    connection.execute(
        "INSERT INTO storage_objects (id, bucket_id, name, owner, file, size, mimetype, \
         cache_control, etag, user_metadata, created_at, updated_at, last_accessed_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) \
         ON CONFLICT (bucket_id, name) DO UPDATE SET owner = excluded.owner, file = excluded.file, \
         size = excluded.size, mimetype = excluded.mimetype, cache_control = excluded.cache_control, \
         etag = excluded.etag, user_metadata = excluded.user_metadata, \
         updated_at = excluded.updated_at, last_accessed_at = excluded.last_accessed_at",
        params![
            object.id,
            object.bucket_id,
            object.name,
            object.owner,
            object.file,
            object.size,
            object.mimetype,
            object.cache_control,
            object.etag,
            object.user_metadata,
            object.created_at,
            object.updated_at,
            object.last_accessed_at
        ],
    )?;
    Ok(())
}

pub fn delete_object(connection: &Connection, id: &str) -> rusqlite::Result<bool> {
    Ok(connection.execute("DELETE FROM storage_objects WHERE id = ?1", [id])? == 1)
}

/// Renames (and possibly re-buckets) an object, keeping its file.
pub fn rename_object(
    connection: &Connection,
    id: &str,
    bucket_id: &str,
    name: &str,
    now: i64,
) -> rusqlite::Result<()> {
    connection.execute(
        "UPDATE storage_objects SET bucket_id = ?2, name = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, bucket_id, name, now],
    )?;
    Ok(())
}

/// Every file a row names, by bucket directory: what the start-up sweep keeps.
pub fn referenced_files(connection: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    let mut statement = connection.prepare(
        "SELECT b.dir, o.file FROM storage_objects o JOIN storage_buckets b ON b.id = o.bucket_id",
    )?;
    let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    rows.collect()
}

/// Every bucket directory a row names.
pub fn bucket_dirs(connection: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut statement = connection.prepare("SELECT dir FROM storage_buckets")?;
    let rows = statement.query_map([], |row| row.get(0))?;
    rows.collect()
}
