//! `client.storage` in headless Chromium against the emulator's `/storage/v1`: the cases
//! supabase-js's own storage client is checked against (upload, list, download and remove;
//! public URL, signed URL and its expiry; refusals by role), plus the bucket calls, signed
//! uploads, limits and the error shapes. The service role (the legacy key: a secret key is for
//! servers) writes; anon and a signed-in user, with no policy configured, are refused.
//!
//! `EMULATOR_URL=… EMULATOR_ANON_KEY=… EMULATOR_SERVICE_ROLE_KEY=… wasm-pack test --headless --chrome wasm`
#![cfg(all(target_arch = "wasm32", feature = "storage", feature = "auth"))]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod support;

use geocache_client::{create_client, Client, ClientError, StorageClient};
use js_sys::{Array, Uint8Array};
use support::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::{Blob, BlobPropertyBag, FormData};

wasm_bindgen_test_configure!(run_in_browser);

/// A client with this key and its own session store.
fn client_for(key: &str) -> Client {
    let options = object(&[(
        "auth",
        object(&[("storageKey", unique("sb-storage-").into())]),
    )]);
    create_client(Some(emulator().url.into()), Some(key.into()), options).unwrap()
}

fn service() -> StorageClient {
    client_for(emulator().service_role_key).storage()
}

fn anon() -> StorageClient {
    client_for(emulator().anon_key).storage()
}

/// A new bucket, made by the service role.
async fn new_bucket(public: bool) -> String {
    let id = unique("bucket-");
    let options = object(&[("public", public.into())]);
    let created = data(service().create_bucket(id.clone(), options).await);
    assert_eq!(string(&created, "name"), id);
    id
}

fn blob(text: &str, content_type: &str) -> Blob {
    let parts = Array::of1(&text.into());
    let options = BlobPropertyBag::new();
    options.set_type(content_type);
    Blob::new_with_str_sequence_and_options(&parts, &options).unwrap()
}

async fn blob_text(blob: &JsValue) -> String {
    let blob: &Blob = blob.dyn_ref().expect("download resolves to a Blob");
    JsFuture::from(blob.text())
        .await
        .unwrap()
        .as_string()
        .unwrap()
}

/// Status and body text of a plain GET (what an `<img>` or a link would get).
async fn fetch(url: &str) -> (u16, String) {
    let response = gloo_net::http::Request::get(url).send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

/// The `error` of a `{ data, error }` result: storage-js's class name, status, statusCode and
/// code, with `data: null`.
fn storage_error(
    result: Result<JsValue, ClientError>,
    name: &str,
    status: Option<u16>,
    status_code: Option<&str>,
    code: Option<&str>,
) -> JsValue {
    let result = result.unwrap_or_else(|error| panic!("rejected: {error}"));
    assert!(get(&result, "data").is_null(), "{}", json(&result));
    let error = get(&result, "error");
    assert!(error.is_instance_of::<js_sys::Error>(), "{}", json(&result));
    assert_eq!(
        string(&error, "name"),
        name,
        "{}",
        string(&error, "message")
    );
    assert_eq!(get(&error, "status").as_f64(), status.map(f64::from));
    assert_eq!(
        get(&error, "statusCode").as_string().as_deref(),
        status_code
    );
    assert_eq!(get(&error, "code").as_string().as_deref(), code);
    assert_eq!(get(&error, "__isStorageError").as_bool(), Some(true));
    error
}

fn names(listing: &JsValue) -> Vec<String> {
    array(listing.clone())
        .iter()
        .map(|item| string(item, "name"))
        .collect()
}

fn paths(items: &[&str]) -> JsValue {
    items
        .iter()
        .map(|item| JsValue::from(*item))
        .collect::<Array>()
        .into()
}

#[wasm_bindgen_test]
async fn upload_list_download_and_remove() {
    let bucket = new_bucket(false).await;
    let files = service().from(bucket.clone());

    let text = object(&[("contentType", "text/plain".into())]);
    let uploaded = data(
        files
            .upload("/teaser/note.txt".into(), "found it".into(), text)
            .await,
    );
    assert_eq!(string(&uploaded, "path"), "teaser/note.txt");
    assert_eq!(
        string(&uploaded, "fullPath"),
        format!("{bucket}/teaser/note.txt")
    );
    assert!(!string(&uploaded, "id").is_empty());

    let photo = blob("<svg/>", "image/svg+xml");
    let uploaded = data(
        files
            .upload("teaser/box.svg".into(), photo.into(), JsValue::UNDEFINED)
            .await,
    );
    assert_eq!(string(&uploaded, "path"), "teaser/box.svg");

    let bytes = Uint8Array::from(&[1u8, 2, 3][..]);
    let raw = object(&[("contentType", "application/octet-stream".into())]);
    data(
        files
            .upload("teaser/raw.bin".into(), bytes.into(), raw)
            .await,
    );

    let top = data(files.list(JsValue::UNDEFINED, JsValue::UNDEFINED).await);
    assert_eq!(names(&top), ["teaser"]);
    assert!(get(&array(top)[0], "id").is_null(), "a folder has no id");
    let listing = data(files.list("teaser".into(), JsValue::UNDEFINED).await);
    assert_eq!(names(&listing), ["box.svg", "note.txt", "raw.bin"]);
    let note = &array(listing)[1];
    assert_eq!(number(note, "metadata.size"), 8.0);
    assert_eq!(string(note, "metadata.mimetype"), "text/plain");

    let page = object(&[
        ("limit", 1.into()),
        ("offset", 1.into()),
        (
            "sortBy",
            object(&[("column", "name".into()), ("order", "desc".into())]),
        ),
    ]);
    assert_eq!(
        names(&data(files.list("teaser".into(), page).await)),
        ["note.txt"]
    );
    let search = object(&[("search", "box".into())]);
    assert_eq!(
        names(&data(files.list("teaser".into(), search).await)),
        ["box.svg"]
    );

    let downloaded = data(files.download("teaser/note.txt".into()).await);
    assert_eq!(blob_text(&downloaded).await, "found it");
    let downloaded = data(files.download("teaser/box.svg".into()).await);
    assert_eq!(blob_text(&downloaded).await, "<svg/>");
    assert_eq!(downloaded.unchecked_ref::<Blob>().type_(), "image/svg+xml");
    let downloaded = data(files.download("teaser/raw.bin".into()).await);
    assert_eq!(downloaded.unchecked_ref::<Blob>().size(), 3.0);

    assert_eq!(
        data(files.exists("teaser/note.txt".into()).await),
        JsValue::TRUE
    );

    let removed = data(
        files
            .remove(paths(&["teaser/note.txt", "teaser/raw.bin"]))
            .await,
    );
    let mut removed = names(&removed);
    removed.sort();
    assert_eq!(removed, ["teaser/note.txt", "teaser/raw.bin"]);
    let listing = data(files.list("teaser".into(), JsValue::UNDEFINED).await);
    assert_eq!(names(&listing), ["box.svg"]);
    let gone = files.exists("teaser/note.txt".into()).await.unwrap();
    assert_eq!(get(&gone, "data"), JsValue::FALSE);
    assert_eq!(string(&get(&gone, "error"), "name"), "StorageApiError");
    // Downloaded above with `max-age=3600`: the client asks the server again, not the browser's cache.
    storage_error(
        files.download("teaser/note.txt".into()).await,
        "StorageApiError",
        Some(400),
        Some("404"),
        Some("NoSuchKey"),
    );
}

#[wasm_bindgen_test]
async fn a_duplicate_is_refused_unless_upserted_and_update_replaces() {
    let bucket = new_bucket(false).await;
    let files = service().from(bucket);
    data(
        files
            .upload("a.txt".into(), "one".into(), JsValue::UNDEFINED)
            .await,
    );
    let error = storage_error(
        files
            .upload("a.txt".into(), "two".into(), JsValue::UNDEFINED)
            .await,
        "StorageApiError",
        Some(400),
        Some("409"),
        Some("KeyAlreadyExists"),
    );
    assert_eq!(string(&error, "message"), "The resource already exists");

    let upsert = object(&[("upsert", true.into())]);
    data(files.upload("a.txt".into(), "two".into(), upsert).await);
    assert_eq!(
        blob_text(&data(files.download("a.txt".into()).await)).await,
        "two"
    );

    let updated = data(
        files
            .update(
                "a.txt".into(),
                blob("three", "text/plain").into(),
                JsValue::UNDEFINED,
            )
            .await,
    );
    assert_eq!(string(&updated, "path"), "a.txt");
    assert_eq!(
        blob_text(&data(files.download("a.txt".into()).await)).await,
        "three"
    );

    // A caller's own form goes as it is, with cacheControl added.
    let form = FormData::new().unwrap();
    form.append_with_blob("", &blob("four", "text/plain"))
        .unwrap();
    data(
        files
            .update("a.txt".into(), form.into(), JsValue::UNDEFINED)
            .await,
    );
    assert_eq!(
        blob_text(&data(files.download("a.txt".into()).await)).await,
        "four"
    );
}

#[wasm_bindgen_test]
async fn move_and_copy() {
    let bucket = new_bucket(false).await;
    let other = new_bucket(false).await;
    let files = service().from(bucket.clone());
    data(
        files
            .upload("a.txt".into(), "moved".into(), JsValue::UNDEFINED)
            .await,
    );

    let moved = data(
        files
            .move_object("a.txt".into(), "d/b.txt".into(), JsValue::UNDEFINED)
            .await,
    );
    assert!(!string(&moved, "message").is_empty());
    let copied = data(
        files
            .copy("d/b.txt".into(), "c.txt".into(), JsValue::UNDEFINED)
            .await,
    );
    assert_eq!(string(&copied, "path"), format!("{bucket}/c.txt"));
    let elsewhere = object(&[("destinationBucket", other.clone().into())]);
    let copied = data(files.copy("c.txt".into(), "e.txt".into(), elsewhere).await);
    assert_eq!(string(&copied, "path"), format!("{other}/e.txt"));

    let mut top = names(&data(
        files.list(JsValue::UNDEFINED, JsValue::UNDEFINED).await,
    ));
    top.sort();
    assert_eq!(top, ["c.txt", "d"]);
    let copy = data(service().from(other).download("e.txt".into()).await);
    assert_eq!(blob_text(&copy).await, "moved");
    storage_error(
        files.download("a.txt".into()).await,
        "StorageApiError",
        Some(400),
        Some("404"),
        Some("NoSuchKey"),
    );
}

#[wasm_bindgen_test]
async fn a_public_url_serves_a_public_bucket_to_anyone() {
    let public = new_bucket(true).await;
    let private = new_bucket(false).await;
    for bucket in [&public, &private] {
        data(
            service()
                .from(bucket.clone())
                .upload("box photo.txt".into(), "teaser".into(), JsValue::UNDEFINED)
                .await,
        );
    }

    let result = anon()
        .from(public.clone())
        .get_public_url("box photo.txt".into(), JsValue::UNDEFINED)
        .unwrap();
    let url = string(&result, "data.publicUrl");
    assert_eq!(
        url,
        format!(
            "{}/storage/v1/object/public/{public}/box%20photo.txt",
            emulator().url
        )
    );
    assert_eq!(fetch(&url).await, (200, "teaser".to_owned()));

    let download = object(&[("download", true.into())]);
    let result = anon()
        .from(public)
        .get_public_url("box photo.txt".into(), download)
        .unwrap();
    assert!(string(&result, "data.publicUrl").ends_with("?download="));

    let result = anon()
        .from(private)
        .get_public_url("box photo.txt".into(), JsValue::UNDEFINED)
        .unwrap();
    let (status, _) = fetch(&string(&result, "data.publicUrl")).await;
    assert_ne!(status, 200, "a private bucket has no public URLs");
}

#[wasm_bindgen_test]
async fn a_signed_url_reads_until_it_expires() {
    let bucket = new_bucket(false).await;
    let files = service().from(bucket.clone());
    data(
        files
            .upload("d/a.txt".into(), "signed".into(), JsValue::UNDEFINED)
            .await,
    );

    let signed = data(
        files
            .create_signed_url("d/a.txt".into(), 60.into(), JsValue::UNDEFINED)
            .await,
    );
    let url = string(&signed, "signedUrl");
    assert!(
        url.starts_with(&format!(
            "{}/storage/v1/object/sign/{bucket}/d/a.txt?token=",
            emulator().url
        )),
        "{url}"
    );
    assert_eq!(fetch(&url).await, (200, "signed".to_owned()));

    let download = object(&[("download", "saved.txt".into())]);
    let signed = data(
        files
            .create_signed_url("d/a.txt".into(), 60.into(), download)
            .await,
    );
    assert!(string(&signed, "signedUrl").ends_with("&download=saved.txt"));

    let short = data(
        files
            .create_signed_url("d/a.txt".into(), 1.into(), JsValue::UNDEFINED)
            .await,
    );
    sleep(2_100).await;
    let (status, body) = fetch(&string(&short, "signedUrl")).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("exp"), "{body}");

    let many = data(
        files
            .create_signed_urls(
                paths(&["d/a.txt", "d/missing.txt"]),
                60.into(),
                JsValue::UNDEFINED,
            )
            .await,
    );
    let many = array(many);
    assert_eq!(string(&many[0], "path"), "d/a.txt");
    assert!(get(&many[0], "error").is_null());
    assert_eq!(
        fetch(&string(&many[0], "signedUrl")).await,
        (200, "signed".to_owned())
    );
    assert!(get(&many[1], "signedUrl").is_null());
    assert!(!string(&many[1], "error").is_empty());

    storage_error(
        files
            .create_signed_url("d/missing.txt".into(), 60.into(), JsValue::UNDEFINED)
            .await,
        "StorageApiError",
        Some(400),
        Some("404"),
        Some("NoSuchKey"),
    );
}

#[wasm_bindgen_test]
async fn a_signed_upload_url_lets_anyone_upload_once() {
    let bucket = new_bucket(false).await;
    let signed = data(
        service()
            .from(bucket.clone())
            .create_signed_upload_url("in/drop.txt".into(), JsValue::UNDEFINED)
            .await,
    );
    assert_eq!(string(&signed, "path"), "in/drop.txt");
    let token = string(&signed, "token");
    assert!(string(&signed, "signedUrl").ends_with(&format!("?token={token}")));

    let uploaded = data(
        anon()
            .from(bucket.clone())
            .upload_to_signed_url(
                "in/drop.txt".into(),
                token.clone(),
                blob("dropped", "text/plain").into(),
                JsValue::UNDEFINED,
            )
            .await,
    );
    assert_eq!(string(&uploaded, "path"), "in/drop.txt");
    assert_eq!(
        string(&uploaded, "fullPath"),
        format!("{bucket}/in/drop.txt")
    );
    let stored = data(
        service()
            .from(bucket.clone())
            .download("in/drop.txt".into())
            .await,
    );
    assert_eq!(blob_text(&stored).await, "dropped");

    // An upload URL serves one upload: its second use is refused before it could replace anything.
    let again = anon()
        .from(bucket.clone())
        .upload_to_signed_url(
            "in/drop.txt".into(),
            token,
            "again".into(),
            JsValue::UNDEFINED,
        )
        .await;
    storage_error(
        again,
        "StorageApiError",
        Some(400),
        Some("400"),
        Some("InvalidJWT"),
    );
    let kept = data(service().from(bucket).download("in/drop.txt".into()).await);
    assert_eq!(blob_text(&kept).await, "dropped");
}

#[wasm_bindgen_test]
async fn anon_and_a_signed_in_user_are_refused_without_a_policy() {
    let bucket = new_bucket(false).await;
    data(
        service()
            .from(bucket.clone())
            .upload("a.txt".into(), "secret".into(), JsValue::UNDEFINED)
            .await,
    );

    let user = client_for(emulator().anon_key);
    sign_up(&user).await;
    for (role, storage) in [("anon", anon()), ("authenticated", user.storage())] {
        let files = storage.from(bucket.clone());
        let error = storage_error(
            files
                .upload("b.txt".into(), "x".into(), JsValue::UNDEFINED)
                .await,
            "StorageApiError",
            Some(400),
            Some("403"),
            Some("AccessDenied"),
        );
        assert_eq!(
            string(&error, "message"),
            "new row violates row-level security policy",
            "{role}"
        );
        // Row-level security hides rows: an empty listing, a missing object.
        assert_eq!(
            array(data(
                files.list(JsValue::UNDEFINED, JsValue::UNDEFINED).await
            ))
            .len(),
            0,
            "{role}"
        );
        storage_error(
            files.download("a.txt".into()).await,
            "StorageApiError",
            Some(400),
            Some("404"),
            Some("NoSuchKey"),
        );
        storage_error(
            files
                .create_signed_url("a.txt".into(), 60.into(), JsValue::UNDEFINED)
                .await,
            "StorageApiError",
            Some(400),
            Some("404"),
            Some("NoSuchKey"),
        );
        assert_eq!(
            array(data(files.remove(paths(&["a.txt"])).await)).len(),
            0,
            "{role}"
        );
        storage_error(
            storage
                .create_bucket(unique("bucket-"), JsValue::UNDEFINED)
                .await,
            "StorageApiError",
            Some(400),
            Some("403"),
            Some("AccessDenied"),
        );
    }
    let still_there = data(service().from(bucket).download("a.txt".into()).await);
    assert_eq!(blob_text(&still_there).await, "secret");
}

#[wasm_bindgen_test]
async fn buckets_from_creation_to_deletion_with_their_limits() {
    let storage = service();
    let id = unique("bucket-");
    let options = object(&[
        ("public", false.into()),
        ("fileSizeLimit", "1kb".into()),
        ("allowedMimeTypes", paths(&["text/*"])),
    ]);
    data(storage.create_bucket(id.clone(), options).await);
    let bucket = data(storage.get_bucket(id.clone()).await);
    assert_eq!(string(&bucket, "id"), id);
    assert_eq!(get(&bucket, "public").as_bool(), Some(false));
    assert_eq!(number(&bucket, "file_size_limit"), 1000.0);

    let search = object(&[("search", id.clone().into())]);
    let listed = data(storage.list_buckets(search).await);
    assert_eq!(names(&listed), [id.as_str()]);

    let files = storage.from(id.clone());
    storage_error(
        files
            .upload(
                "big.txt".into(),
                "x".repeat(2_000).into(),
                JsValue::UNDEFINED,
            )
            .await,
        "StorageApiError",
        Some(400),
        Some("413"),
        Some("EntityTooLarge"),
    );
    storage_error(
        files
            .upload(
                "a.png".into(),
                blob("png", "image/png").into(),
                JsValue::UNDEFINED,
            )
            .await,
        "StorageApiError",
        Some(400),
        Some("415"),
        Some("InvalidMimeType"),
    );

    let update = object(&[("public", true.into()), ("fileSizeLimit", JsValue::NULL)]);
    let updated = data(storage.update_bucket(id.clone(), update).await);
    assert!(!string(&updated, "message").is_empty());
    let bucket = data(storage.get_bucket(id.clone()).await);
    assert_eq!(get(&bucket, "public").as_bool(), Some(true));
    data(
        files
            .upload(
                "big.txt".into(),
                "x".repeat(2_000).into(),
                JsValue::UNDEFINED,
            )
            .await,
    );

    storage_error(
        storage.delete_bucket(id.clone()).await,
        "StorageApiError",
        Some(400),
        Some("409"),
        Some("ResourceNotEmpty"),
    );
    data(storage.empty_bucket(id.clone()).await);
    data(storage.delete_bucket(id.clone()).await);
    storage_error(
        storage.get_bucket(id).await,
        "StorageApiError",
        Some(400),
        Some("404"),
        Some("NoSuchBucket"),
    );
}

#[wasm_bindgen_test]
async fn no_answer_is_a_storage_unknown_error() {
    // Port 9 (discard) has no HTTP server on the test machine: the fetch fails.
    let options = object(&[(
        "auth",
        object(&[("storageKey", unique("sb-storage-").into())]),
    )]);
    let client =
        create_client(Some("http://127.0.0.1:9".into()), Some("k".into()), options).unwrap();
    let error = storage_error(
        client.storage().list_buckets(JsValue::UNDEFINED).await,
        "StorageUnknownError",
        None,
        None,
        None,
    );
    assert_eq!(string(&error, "message"), "Failed to fetch");
}

#[wasm_bindgen_test]
async fn bad_arguments_are_thrown_before_anything_is_sent() {
    let files = anon().from("b".into());
    let thrown = |result: Result<JsValue, ClientError>| {
        let error = JsValue::from(result.expect_err("thrown"));
        assert!(error.is_instance_of::<js_sys::TypeError>());
        assert_eq!(string(&error, "code"), "invalid_argument");
        string(&error, "message")
    };
    let message = thrown(
        files
            .create_signed_url("a".into(), 1.5.into(), JsValue::UNDEFINED)
            .await,
    );
    assert!(message.contains("expiresIn"), "{message}");
    let message = thrown(
        files
            .upload("a".into(), JsValue::from(5), JsValue::UNDEFINED)
            .await,
    );
    assert!(message.contains("fileBody"), "{message}");
    let upsert = object(&[("upsert", "yes".into())]);
    let message = thrown(files.upload("a".into(), "x".into(), upsert).await);
    assert!(message.contains("upsert"), "{message}");
    let message = thrown(files.remove("a".into()).await);
    assert!(message.contains("paths"), "{message}");
    let limit = object(&[("fileSizeLimit", true.into())]);
    let message = thrown(anon().create_bucket("b".into(), limit).await);
    assert!(message.contains("fileSizeLimit"), "{message}");
}
