//! `client.storage`: storage-js's `StorageClient` (the bucket calls and `from(bucket)`) and
//! `StorageFileApi` (the object calls of one bucket). Core builds each request and decodes each
//! answer ([`geocache_core::storage`]); `context` holds what every call shares, `send` sends it
//! with the caller's file, `options` reads the JS arguments, `result` shapes `{ data, error }`,
//! `types` declares them for TypeScript.

mod context;
mod file_api;
mod options;
mod result;
mod send;
mod types;

use std::rc::Rc;

use geocache_core::ClientConfig;
use wasm_bindgen::prelude::*;

use crate::transport::token_source::TokenSource;
use context::Context;
pub use file_api::StorageFileApi;

use crate::error::ClientError;

/// `client.storage`: the bucket calls, and `from(bucket)` for the objects.
#[wasm_bindgen]
pub struct StorageClient {
    context: Rc<Context>,
}

impl StorageClient {
    pub fn new(config: ClientConfig, token: TokenSource) -> Self {
        StorageClient {
            context: Rc::new(Context { config, token }),
        }
    }
}

#[wasm_bindgen]
impl StorageClient {
    /// The object calls of one bucket.
    pub fn from(&self, bucket: String) -> StorageFileApi {
        StorageFileApi::new(Rc::clone(&self.context), bucket)
    }

    /// The buckets, optionally `{ limit, offset, search, sortColumn, sortOrder }`.
    #[wasm_bindgen(js_name = listBuckets, unchecked_return_type = "StorageResult<Bucket[]>")]
    pub async fn list_buckets(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "ListBucketOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let options = options::list_buckets(&options)?;
        let call = self.context.api().await.list_buckets(&options);
        self.context.run(call).await
    }

    /// One bucket.
    #[wasm_bindgen(js_name = getBucket, unchecked_return_type = "StorageResult<Bucket>")]
    pub async fn get_bucket(&self, id: String) -> Result<JsValue, ClientError> {
        let call = self.context.api().await.get_bucket(&id);
        self.context.run(call).await
    }

    /// Creates a bucket (private unless `public: true`): `{ name }`.
    #[wasm_bindgen(js_name = createBucket, unchecked_return_type = "StorageResult<{ name: string }>")]
    pub async fn create_bucket(
        &self,
        id: String,
        #[wasm_bindgen(unchecked_optional_param_type = "BucketOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let given = !options.is_undefined();
        let mut options = options::bucket(&options)?;
        // Without options, storage-js sends its default `{ public: false }`.
        if !given {
            options.public = Some(false);
        }
        let call = self.context.api().await.create_bucket(&id, &options);
        self.context.run(call).await
    }

    /// Changes a bucket's visibility and limits: `{ message }`.
    #[wasm_bindgen(js_name = updateBucket, unchecked_return_type = "StorageResult<{ message: string }>")]
    pub async fn update_bucket(
        &self,
        id: String,
        #[wasm_bindgen(unchecked_param_type = "BucketOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let options = options::bucket(&options)?;
        let call = self.context.api().await.update_bucket(&id, &options);
        self.context.run(call).await
    }

    /// Removes every object of a bucket: `{ message }`.
    #[wasm_bindgen(js_name = emptyBucket, unchecked_return_type = "StorageResult<{ message: string }>")]
    pub async fn empty_bucket(&self, id: String) -> Result<JsValue, ClientError> {
        let call = self.context.api().await.empty_bucket(&id);
        self.context.run(call).await
    }

    /// Deletes an empty bucket: `{ message }`.
    #[wasm_bindgen(js_name = deleteBucket, unchecked_return_type = "StorageResult<{ message: string }>")]
    pub async fn delete_bucket(&self, id: String) -> Result<JsValue, ClientError> {
        let call = self.context.api().await.delete_bucket(&id);
        self.context.run(call).await
    }
}
