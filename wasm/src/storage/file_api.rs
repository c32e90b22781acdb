//! `client.storage.from(bucket)`: storage-js's `StorageFileApi`, the object calls of one bucket.

use std::rc::Rc;

use geocache_core::storage::{FileApi, FileKind, FileOptions, StorageCall, StorageError};
use wasm_bindgen::prelude::*;

use super::context::Context;
use super::options::{self, expires_in, file_kind, string_argument, strings, Options};
use super::result::{object, respond};
use super::send;
use crate::error::ClientError;

/// The object calls of one bucket.
#[wasm_bindgen]
pub struct StorageFileApi {
    context: Rc<Context>,
    bucket: String,
}

impl StorageFileApi {
    pub(super) fn new(context: Rc<Context>, bucket: String) -> Self {
        StorageFileApi { context, bucket }
    }

    /// Sends the call `make` builds on this bucket (with the current token) and resolves to
    /// `{ data, error }`. Arguments are read before, so bad input is refused without a call.
    async fn run(
        &self,
        make: impl FnOnce(FileApi<'_>) -> StorageCall,
    ) -> Result<JsValue, ClientError> {
        self.run_with_file(&JsValue::UNDEFINED, make).await
    }

    /// [`Self::run`] for a call that carries the caller's file.
    async fn run_with_file(
        &self,
        file: &JsValue,
        make: impl FnOnce(FileApi<'_>) -> StorageCall,
    ) -> Result<JsValue, ClientError> {
        let api = self.context.api().await;
        let call = make(api.from(&self.bucket));
        self.context.run_with_file(call, file).await
    }

    /// Reads the caller's file and `fileOptions` (refusing bad ones before any call), then
    /// sends the file with the call `make` builds: `upload`, `update` and
    /// `uploadToSignedUrl` send a file the same way.
    async fn send_file(
        &self,
        file: &JsValue,
        file_options: &JsValue,
        make: impl FnOnce(FileApi<'_>, FileKind, &FileOptions) -> StorageCall,
    ) -> Result<JsValue, ClientError> {
        let kind = file_kind(file)?;
        let file_options = options::file_options(file_options)?;
        self.run_with_file(file, |bucket| make(bucket, kind, &file_options))
            .await
    }
}

#[wasm_bindgen]
impl StorageFileApi {
    /// Stores a file at `path` (refused if one is there, unless `upsert: true`): a Blob or File
    /// goes as a multipart form, a FormData as it is, a string, ArrayBuffer or typed array raw
    /// with `contentType` (default `text/plain;charset=UTF-8`). `{ id, path, fullPath }`.
    #[wasm_bindgen(
        unchecked_return_type = "StorageResult<{ id: string; path: string; fullPath: string }>"
    )]
    pub async fn upload(
        &self,
        path: String,
        #[wasm_bindgen(js_name = fileBody, unchecked_param_type = "FileBody")] file: JsValue,
        #[wasm_bindgen(js_name = fileOptions, unchecked_optional_param_type = "FileOptions")]
        file_options: JsValue,
    ) -> Result<JsValue, ClientError> {
        self.send_file(&file, &file_options, |bucket, kind, options| {
            bucket.upload(&path, kind, options)
        })
        .await
    }

    /// Replaces the file at `path` (sent as `upload` sends it): `{ id, path, fullPath }`.
    #[wasm_bindgen(
        unchecked_return_type = "StorageResult<{ id: string; path: string; fullPath: string }>"
    )]
    pub async fn update(
        &self,
        path: String,
        #[wasm_bindgen(js_name = fileBody, unchecked_param_type = "FileBody")] file: JsValue,
        #[wasm_bindgen(js_name = fileOptions, unchecked_optional_param_type = "FileOptions")]
        file_options: JsValue,
    ) -> Result<JsValue, ClientError> {
        self.send_file(&file, &file_options, |bucket, kind, options| {
            bucket.update(&path, kind, options)
        })
        .await
    }

    /// The file at `path` as a Blob.
    #[wasm_bindgen(unchecked_return_type = "StorageResult<Blob>")]
    pub async fn download(&self, path: String) -> Result<JsValue, ClientError> {
        let api = self.context.api().await;
        let call = api.from(&self.bucket).download(&path);
        let outcome: Result<JsValue, StorageError> = async {
            let response = send::send(&call.request, &JsValue::UNDEFINED).await?;
            if response.ok() {
                return Ok(send::blob(response).await?.into());
            }
            let reply = send::reply(response).await?;
            call.decode.data(&reply).map(|_| JsValue::NULL)
        }
        .await;
        Ok(respond(outcome))
    }

    /// Whether a file is at `path`: `{ data: true, error: null }`, or `data: false` with the
    /// refusal (a missing object is a 400 without a body; its message is the status text).
    #[wasm_bindgen(unchecked_return_type = "{ data: boolean; error: StorageError | null }")]
    pub async fn exists(&self, path: String) -> Result<JsValue, ClientError> {
        let answer = self.run(|bucket| bucket.exists(&path)).await?;
        // storage-js reports a missing file as `data: false`, not `null`.
        if !js_sys::Reflect::get(&answer, &"error".into()).is_ok_and(|error| error.is_null()) {
            let _ = js_sys::Reflect::set(&answer, &"data".into(), &false.into());
        }
        Ok(answer)
    }

    /// The files and folders under `path` (default: the bucket's top level), 100 at a time by
    /// name unless `{ limit, offset, search, sortBy: { column, order } }` say otherwise.
    #[wasm_bindgen(unchecked_return_type = "StorageResult<FileObject[]>")]
    pub async fn list(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "string")] path: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "SearchOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        // storage-js lists from `path || ''`.
        let prefix = if path.is_undefined() || path.is_null() {
            String::new()
        } else {
            string_argument("path", &path)?
        };
        let options = options::search(&options)?;
        self.run(|bucket| bucket.list(&prefix, &options)).await
    }

    /// Removes these files: the removed objects.
    #[wasm_bindgen(unchecked_return_type = "StorageResult<FileObject[]>")]
    pub async fn remove(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string[]")] paths: JsValue,
    ) -> Result<JsValue, ClientError> {
        let paths = strings("paths", &paths)?;
        self.run(|bucket| bucket.remove(&paths)).await
    }

    /// Moves a file (to `destinationBucket` if given): `{ message }`.
    #[wasm_bindgen(
        js_name = "move",
        unchecked_return_type = "StorageResult<{ message: string }>"
    )]
    pub async fn move_object(
        &self,
        #[wasm_bindgen(js_name = fromPath)] from_path: String,
        #[wasm_bindgen(js_name = toPath)] to_path: String,
        #[wasm_bindgen(unchecked_optional_param_type = "DestinationOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let destination = Options::read("options", &options)?.string("destinationBucket")?;
        self.run(|bucket| bucket.move_object(&from_path, &to_path, destination.as_deref()))
            .await
    }

    /// Copies a file (to `destinationBucket` if given): `{ path }`, the copy's key.
    #[wasm_bindgen(unchecked_return_type = "StorageResult<{ path: string }>")]
    pub async fn copy(
        &self,
        #[wasm_bindgen(js_name = fromPath)] from_path: String,
        #[wasm_bindgen(js_name = toPath)] to_path: String,
        #[wasm_bindgen(unchecked_optional_param_type = "DestinationOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let destination = Options::read("options", &options)?.string("destinationBucket")?;
        self.run(|bucket| bucket.copy(&from_path, &to_path, destination.as_deref()))
            .await
    }

    /// A URL that reads the file without a key for `expiresIn` seconds: `{ signedUrl }`.
    /// `download: true` (or a file name) makes a browser save it.
    #[wasm_bindgen(js_name = createSignedUrl, unchecked_return_type = "StorageResult<{ signedUrl: string }>")]
    pub async fn create_signed_url(
        &self,
        path: String,
        #[wasm_bindgen(js_name = expiresIn, unchecked_param_type = "number")] expires: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "DownloadOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let expires = expires_in(&expires)?;
        let download = Options::read("options", &options)?.download()?;
        self.run(|bucket| bucket.create_signed_url(&path, expires, download.as_deref()))
            .await
    }

    /// Signed URLs for several files: `[{ error, path, signedURL, signedUrl }]`.
    #[wasm_bindgen(js_name = createSignedUrls, unchecked_return_type = "StorageResult<SignedUrl[]>")]
    pub async fn create_signed_urls(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string[]")] paths: JsValue,
        #[wasm_bindgen(js_name = expiresIn, unchecked_param_type = "number")] expires: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "DownloadOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let paths = strings("paths", &paths)?;
        let expires = expires_in(&expires)?;
        let download = Options::read("options", &options)?.download()?;
        self.run(|bucket| bucket.create_signed_urls(&paths, expires, download.as_deref()))
            .await
    }

    /// The URL anyone reads the file at when the bucket is public (nothing is sent, nothing
    /// checked): `{ data: { publicUrl } }`.
    #[wasm_bindgen(js_name = getPublicUrl, unchecked_return_type = "{ data: { publicUrl: string } }")]
    pub fn get_public_url(
        &self,
        path: String,
        #[wasm_bindgen(unchecked_optional_param_type = "DownloadOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let download = Options::read("options", &options)?.download()?;
        // The public URL needs no token: the key alone builds it.
        let api = geocache_core::storage::StorageApi::new(&self.context.config, None);
        let url = api
            .from(&self.bucket)
            .public_url(&path, download.as_deref());
        let data = object(&[("publicUrl", url.into())]);
        Ok(object(&[("data", data)]))
    }

    /// A URL (valid 2 hours) that uploads to `path` without a key: `{ signedUrl, token, path }`;
    /// `upsert: true` lets it replace a file.
    #[wasm_bindgen(
        js_name = createSignedUploadUrl,
        unchecked_return_type = "StorageResult<{ signedUrl: string; token: string; path: string }>"
    )]
    pub async fn create_signed_upload_url(
        &self,
        path: String,
        #[wasm_bindgen(unchecked_optional_param_type = "{ upsert?: boolean }")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let upsert = Options::read("options", &options)?.boolean("upsert")?;
        self.run(|bucket| bucket.create_signed_upload_url(&path, upsert.unwrap_or(false)))
            .await
    }

    /// Uploads with a token from `createSignedUploadUrl` (sent as `upload` sends): `{ path,
    /// fullPath }`.
    #[wasm_bindgen(
        js_name = uploadToSignedUrl,
        unchecked_return_type = "StorageResult<{ path: string; fullPath: string }>"
    )]
    pub async fn upload_to_signed_url(
        &self,
        path: String,
        token: String,
        #[wasm_bindgen(js_name = fileBody, unchecked_param_type = "FileBody")] file: JsValue,
        #[wasm_bindgen(js_name = fileOptions, unchecked_optional_param_type = "FileOptions")]
        file_options: JsValue,
    ) -> Result<JsValue, ClientError> {
        self.send_file(&file, &file_options, |bucket, kind, options| {
            bucket.upload_to_signed_url(&path, &token, kind, options)
        })
        .await
    }
}
