//! Hostile input: traversal and odd names, bodies over the limits, types a bucket does not
//! allow. Each is refused with Storage's error, and nothing is left on disk, in the bucket or
//! outside it.

use crate::storage_support::{form, StorageApp};
use axum::body::Body;
use axum::http::{Method, StatusCode};
use serde_json::json;

async fn app_with_bucket(max_file_size: u64) -> StorageApp {
    let app = StorageApp::with(&[], max_file_size);
    app.create_bucket(
        json!({"id": "b", "file_size_limit": 100, "allowed_mime_types": ["image/*", "text/plain"]}),
    )
    .await;
    app
}

/// Every entry directly beside the storage root: a write that escaped would land here.
fn siblings(app: &StorageApp) -> Vec<String> {
    let parent = app.root.parent().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(parent)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("escaped") || name == "x.txt")
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn traversal_and_odd_names_are_refused_and_nothing_is_written() {
    let app = app_with_bucket(1024).await;
    let before = siblings(&app);
    for (path, key) in [
        ("/object/b/../escaped.txt", "../escaped.txt"),
        ("/object/b/%2e%2e%2fescaped.txt", "../escaped.txt"),
        ("/object/b/%2E%2E/%2E%2E/escaped.txt", "../../escaped.txt"),
        (
            "/object/b/a/%2e%2e/%2e%2e/escaped.txt",
            "a/../../escaped.txt",
        ),
        ("/object/b/..%5cescaped.txt", "..\\escaped.txt"),
        ("/object/b/%2fetc%2fescaped.txt", "/etc/escaped.txt"),
        ("/object/b/a//escaped.txt", "a//escaped.txt"),
        ("/object/b/./escaped.txt", "./escaped.txt"),
        ("/object/b/bell%07.txt", "bell\u{7}.txt"),
        ("/object/b/nul%00.txt", "nul\u{0}.txt"),
        ("/object/b/new%0aline.txt", "new\nline.txt"),
    ] {
        let response = app
            .service(Method::POST, path)
            .header("content-type", "text/plain")
            .bytes(b"x".to_vec())
            .send()
            .await;
        response.assert_error("400", "InvalidKey", &format!("Invalid key: {key}"));
    }
    let long = "a".repeat(1025);
    let response = app
        .service(Method::POST, &format!("/object/b/{long}"))
        .header("content-type", "text/plain")
        .bytes(b"x".to_vec())
        .send()
        .await;
    response.assert_error("400", "InvalidKey", &format!("Invalid key: {long}"));
    // Reads, signs and listings check names the same way.
    app.service(Method::GET, "/object/b/%2e%2e%2fescaped.txt")
        .send()
        .await
        .assert_error("400", "InvalidKey", "Invalid key: ../escaped.txt");
    app.request(Method::GET, "/object/public/b/..%2F..%2Fx.txt")
        .send()
        .await
        .assert_error("400", "InvalidKey", "Invalid key: ../../x.txt");
    app.service(Method::POST, "/object/list/b")
        .json(&json!({"prefix": "../"}))
        .send()
        .await
        .assert_error("400", "InvalidKey", "Invalid key: ..");
    // A bucket named like a path is no bucket.
    app.service(Method::GET, "/object/..%2F..%2Fetc/passwd")
        .send()
        .await
        .assert_error("404", "NoSuchBucket", "Bucket not found");
    assert!(app.files_on_disk().is_empty(), "{:?}", app.files_on_disk());
    assert_eq!(siblings(&app), before);
}

#[tokio::test]
async fn a_body_over_the_bucket_limit_is_refused_and_nothing_is_kept() {
    let app = app_with_bucket(1024).await;
    // Declared too long: refused before reading.
    app.service(Method::POST, "/object/b/big.txt")
        .header("content-type", "text/plain")
        .header("content-length", "101")
        .bytes(vec![b'x'; 101])
        .send()
        .await
        .assert_too_large();
    // Streamed with no length: refused when it passes the limit.
    let streamed = Body::new(Chunks(vec![vec![b'x'; 60], vec![b'x'; 60]]));
    let response = app
        .service(Method::POST, "/object/b/big.txt")
        .header("content-type", "text/plain")
        .body(streamed)
        .send()
        .await;
    response.assert_too_large();
    assert_eq!(response.header("connection"), Some("close"));
    // Multipart counts the file's bytes against the same limit.
    app.service(Method::POST, "/object/b/big.png")
        .header("content-type", "multipart/form-data; boundary=q")
        .bytes(form("q", "3600", "image/png", &[0; 101]))
        .send()
        .await
        .assert_too_large();
    assert!(app.files_on_disk().is_empty(), "{:?}", app.files_on_disk());
    let listed = app
        .service(Method::POST, "/object/list/b")
        .json(&json!({"prefix": ""}))
        .send()
        .await;
    assert_eq!(listed.json(), json!([]));
    // Exactly the limit is fine, raw or as a form (whose length counts its other parts too).
    app.put_object("b", "fits.txt", &[b'x'; 100], "text/plain")
        .await;
    let body = form("q", "3600", "image/png", &[0; 100]);
    let length = body.len().to_string();
    let fits = app
        .service(Method::POST, "/object/b/fits.png")
        .header("content-type", "multipart/form-data; boundary=q")
        .header("content-length", &length)
        .bytes(body)
        .send()
        .await;
    assert_eq!(fits.status, StatusCode::OK, "{}", fits.text());
}

#[tokio::test]
async fn the_global_cap_holds_for_buckets_without_a_limit() {
    let app = StorageApp::with(&[], 10);
    app.create_bucket(json!({"id": "open"})).await;
    app.service(Method::POST, "/object/open/a.bin")
        .header("content-type", "application/octet-stream")
        .bytes(vec![0; 11])
        .send()
        .await
        .assert_too_large();
    assert!(app.files_on_disk().is_empty());
}

#[tokio::test]
async fn a_type_the_bucket_does_not_allow_is_refused() {
    let app = app_with_bucket(1024).await;
    app.service(Method::POST, "/object/b/doc.pdf")
        .header("content-type", "application/pdf")
        .bytes(b"%PDF".to_vec())
        .send()
        .await
        .assert_error(
            "415",
            "InvalidMimeType",
            "mime type application/pdf is not supported",
        );
    app.service(Method::POST, "/object/b/doc.pdf")
        .header("content-type", "multipart/form-data; boundary=q")
        .bytes(form("q", "3600", "application/pdf", b"%PDF"))
        .send()
        .await
        .assert_error(
            "415",
            "InvalidMimeType",
            "mime type application/pdf is not supported",
        );
    let allowed = app
        .service(Method::POST, "/object/b/a.png")
        .header("content-type", "image/png")
        .bytes(b"png".to_vec())
        .send()
        .await;
    assert_eq!(allowed.status, StatusCode::OK, "{}", allowed.text());
    assert_eq!(app.files_on_disk().len(), 1);
}

/// A body of `chunks` without a declared length, as a chunked upload arrives.
struct Chunks(Vec<Vec<u8>>);

impl hyper::body::Body for Chunks {
    type Data = axum::body::Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        std::task::Poll::Ready(if this.0.is_empty() {
            None
        } else {
            Some(Ok(hyper::body::Frame::data(this.0.remove(0).into())))
        })
    }
}

/// A form whose file part's headers and data are `file_part`, closed or not by the caller.
fn form_around(file_part: &str) -> Vec<u8> {
    format!(
        "--q\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n3600\r\n--q\r\n{file_part}"
    )
    .into_bytes()
}

#[tokio::test]
async fn malformed_forms_are_refused_with_storage_errors_and_leave_nothing() {
    let app = app_with_bucket(1024).await;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        // A form content type without a boundary cannot be read.
        (
            "multipart/form-data",
            form("q", "3600", "image/png", b"png"),
            "the multipart form has no valid boundary",
        ),
        (
            "multipart/form-data; boundary=\"\"",
            form("q", "3600", "image/png", b"png"),
            "the multipart form has no valid boundary",
        ),
        // The body never shows the boundary it was announced with.
        (
            "multipart/form-data; boundary=q",
            form("other", "3600", "image/png", b"png"),
            "the multipart body ended early",
        ),
        // Cut inside the file part's headers.
        (
            "multipart/form-data; boundary=q",
            form_around(
                "Content-Disposition: form-data; name=\"\"; filename=\"blob\"\r\nContent-Ty",
            ),
            "the multipart body ended early",
        ),
        // Cut inside the file's data, before the closing boundary.
        (
            "multipart/form-data; boundary=q",
            form_around(
                "Content-Disposition: form-data; name=\"\"; filename=\"blob\"\r\n\
                 Content-Type: image/png\r\n\r\npng",
            ),
            "the multipart body ended early",
        ),
        // After a boundary comes CRLF or the closing `--`.
        (
            "multipart/form-data; boundary=q",
            b"--q garbage".to_vec(),
            "the multipart body ended early",
        ),
        (
            "multipart/form-data; boundary=q",
            form_around("Content-Disposition form-data\r\n\r\npng\r\n--q--\r\n"),
            "malformed multipart part headers",
        ),
        (
            "multipart/form-data; boundary=q",
            form_around(
                "Content-Disposition: form-data; filename=\"blob\"\r\n\r\npng\r\n--q--\r\n",
            ),
            "a multipart part has no name",
        ),
        // A well-formed form without a file.
        (
            "multipart/form-data; boundary=q",
            b"--q\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n60\r\n--q--\r\n"
                .to_vec(),
            "No content provided",
        ),
    ];
    for (content_type, body, message) in cases {
        let response = app
            .service(Method::POST, "/object/b/form.png")
            .header("content-type", content_type)
            .bytes(body)
            .send()
            .await;
        response.assert_error("400", "InvalidRequest", message);
        assert_eq!(response.header("connection"), Some("close"), "{message}");
        assert!(app.files_on_disk().is_empty(), "{message}");
    }
    let listed = app
        .service(Method::POST, "/object/list/b")
        .json(&json!({"prefix": ""}))
        .send()
        .await;
    assert_eq!(listed.json(), json!([]));
}

#[tokio::test]
async fn a_form_whose_headers_never_end_is_refused_before_it_fills_the_memory() {
    let app = app_with_bucket(1024).await;
    // 16 MiB of one part's headers in 4 KiB chunks, with no blank line to end them.
    let mut chunks = vec![b"--q\r\nX-Padding: ".to_vec()];
    chunks.extend(std::iter::repeat_n(vec![b'a'; 4096], 4096));
    let response = app
        .service(Method::POST, "/object/b/form.png")
        .header("content-type", "multipart/form-data; boundary=q")
        .body(Body::new(Chunks(chunks)))
        .send()
        .await;
    response.assert_error(
        "400",
        "InvalidRequest",
        "multipart part headers are too large",
    );
    assert!(app.files_on_disk().is_empty());
}

#[tokio::test]
async fn a_file_part_far_larger_than_the_form_overhead_streams_through() {
    // The file's bytes arrive in many chunks at once; only bytes outside the parts' data count
    // against the form's overhead, so a file many times that size is stored whole.
    let app = StorageApp::with(&[], 4 * 1024 * 1024);
    app.create_bucket(json!({"id": "open"})).await;
    let file: Vec<u8> = (0..1024 * 1024).map(|i| (i % 251) as u8).collect();
    let body = form("q", "3600", "application/octet-stream", &file);
    let chunks = body.chunks(4096).map(<[u8]>::to_vec).collect();
    let response = app
        .service(Method::POST, "/object/open/big.bin")
        .header("content-type", "multipart/form-data; boundary=q")
        .body(Body::new(Chunks(chunks)))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.text());
    let read = app
        .service(Method::GET, "/object/open/big.bin")
        .send()
        .await;
    assert_eq!(read.bytes, file);
}
