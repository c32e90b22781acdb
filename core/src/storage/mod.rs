//! The storage client (`client.storage`) as plain values, as storage-js builds and reads them:
//! [`StorageApi`] turns each call into a [`StorageCall`], the [`StorageRequest`] to send and the
//! [`Decode`] that turns its answer into storage-js's `data` or a [`StorageError`]. The file
//! itself never enters core: a request says only how the wasm layer sends it ([`FileBody`]).
//!
//! ```
//! use geocache_core::storage::{StorageApi, StorageMethod};
//! use geocache_core::ClientConfig;
//!
//! let config = ClientConfig::new("https://abc.supabase.co", "sb_publishable_key")?;
//! let api = StorageApi::new(&config, None);
//! let call = api.from("caches").remove(&["teaser/box.jpg".to_owned()]);
//! assert_eq!(call.request.method, StorageMethod::Delete);
//! assert_eq!(call.request.url, "https://abc.supabase.co/storage/v1/object/caches");
//! assert_eq!(call.request.header("authorization"), Some("Bearer sb_publishable_key"));
//! # Ok::<(), geocache_core::ConfigError>(())
//! ```

pub mod api;
pub mod buckets;
pub mod decode;
pub mod error;
pub mod file_options;
pub mod objects;
pub mod path;
pub mod request;
pub mod signed_urls;
pub mod uri;

pub use api::{FileApi, StorageApi, StorageCall};
pub use decode::{Decode, Reply};
pub use error::StorageError;
pub use file_options::{FileKind, FileOptions};
pub use request::{FileBody, StorageBody, StorageMethod, StorageRequest};
