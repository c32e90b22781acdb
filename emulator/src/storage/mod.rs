//! The Supabase Storage subset under `/storage/v1`: buckets, objects, public and signed URLs.
//!
//! Buckets and object metadata are rows in the emulator's SQLite database ([`store`]); object
//! bytes are files under the data directory ([`files`]). Access follows hosted Storage on a new
//! project: no policies, so anon and authenticated callers can only read objects of public
//! buckets through their public URLs, unless the configuration grants more ([`policy`]); the
//! service role does everything. Errors take Storage's shape ([`error`]).
//!
//! The routes other than public and signed URLs need an API key (the gateway's check, without
//! reading the body: uploads stream to disk under their own limits). Public and signed URLs
//! need none, as on the hosted platform, so a browser can load them in an `<img>`.

pub mod body;
pub mod buckets;
pub mod caller;
pub mod download;
pub mod error;
pub mod file_body;
pub mod files;
pub mod listing;
pub mod lookup;
pub mod mime;
pub mod multipart;
pub mod names;
pub mod objects;
pub mod policy;
pub mod query;
pub mod render;
pub mod serving;
pub mod settings;
pub mod signed_url;
pub mod signing;
pub mod store;
pub mod upload;

pub use store::migrate;

use crate::clock::Clock;
use crate::db::Database;
use crate::gateway::{self, Gateway};
use crate::keys::Keys;
use crate::storage::error::StorageError;
use crate::storage::settings::StorageSettings;
use axum::middleware;
use axum::routing::{any, get, post, put};
use axum::Router;
use std::sync::Arc;

/// What the storage routes need; cheap to clone.
#[derive(Clone, Debug)]
pub struct StorageState {
    pub db: Database,
    pub keys: Arc<Keys>,
    pub clock: Clock,
    /// Where object bytes live, the storage policies and the size cap.
    pub settings: Arc<StorageSettings>,
    /// JSON bodies are read up to the gateway's limit, which does not read these routes' bodies.
    pub max_body_bytes: usize,
}

pub fn router(state: StorageState, gateway: Gateway) -> Router {
    let keyed = Router::new()
        .route(
            "/storage/v1/bucket",
            get(buckets::list).post(buckets::create),
        )
        .route(
            "/storage/v1/bucket/{id}",
            get(buckets::get)
                .put(buckets::update)
                .delete(buckets::delete),
        )
        .route("/storage/v1/bucket/{id}/empty", post(buckets::empty))
        .route("/storage/v1/object/list/{bucket}", post(objects::list))
        .route("/storage/v1/object/move", post(objects::move_object))
        .route("/storage/v1/object/copy", post(objects::copy))
        .route("/storage/v1/object/sign/{bucket}", post(signing::sign_many))
        .route(
            "/storage/v1/object/sign/{bucket}/{*path}",
            post(signing::sign_one),
        )
        .route(
            "/storage/v1/object/upload/sign/{bucket}/{*path}",
            post(signing::sign_upload),
        )
        .route(
            "/storage/v1/object/{bucket}",
            axum::routing::delete(objects::remove),
        )
        .route(
            "/storage/v1/object/{bucket}/{*path}",
            get(download::authenticated)
                .post(upload::create)
                .put(upload::replace),
        )
        .route(
            "/storage/v1/object/authenticated/{bucket}/{*path}",
            get(download::authenticated),
        )
        .route("/storage/v1/render/image/{*rest}", any(no_transformations))
        .route_layer(middleware::from_fn_with_state(
            gateway,
            gateway::require_api_key_streaming,
        ));
    let open = Router::new()
        .route(
            "/storage/v1/object/public/{bucket}/{*path}",
            get(download::public),
        )
        .route(
            "/storage/v1/object/sign/{bucket}/{*path}",
            get(download::signed),
        )
        .route(
            "/storage/v1/object/upload/sign/{bucket}/{*path}",
            put(upload::with_signed_token),
        );
    keyed.merge(open).with_state(state)
}

/// Image transformations are not emulated.
async fn no_transformations() -> StorageError {
    StorageError::transformations_not_supported()
}

/// Removes what a crash left in the file store (temporary and unreferenced files); run at start,
/// before serving. A throwaway store (an in-memory database's) is new, so there is nothing to
/// sweep, and it is not made before it is used. Returns how many entries went.
pub async fn sweep(state: &StorageState) -> Result<usize, StorageError> {
    let Some(files) = state.settings.existing_files() else {
        return Ok(0);
    };
    let (referenced, buckets) = state
        .db
        .call(|c| -> Result<_, StorageError> {
            Ok((store::referenced_files(c)?, store::bucket_dirs(c)?))
        })
        .await?;
    let removed = tokio::task::spawn_blocking(move || files.sweep(&referenced, &buckets))
        .await
        .map_err(StorageError::internal)??;
    Ok(removed)
}
