//! What the publishable key must not learn or plant through Storage: whether a private bucket
//! holds an object, a type that is two types, bytes hidden after a form's file, script served on
//! the API's origin.

use crate::storage_support::{form, StorageApp};
use axum::body::Body;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn a_private_buckets_public_url_says_nothing_of_what_it_holds() {
    let app = StorageApp::new();
    app.create_bucket(json!({"id": "private"})).await;
    app.create_bucket(json!({"id": "open", "public": true}))
        .await;
    app.put_object("private", "there.txt", b"secret", "text/plain")
        .await;
    let answer = |path: &str| {
        let call = app.request(Method::GET, &format!("/object/public/{path}"));
        async move {
            let reply = call.send().await;
            (reply.status, reply.json())
        }
    };
    let existing = answer("private/there.txt").await;
    assert_eq!(answer("private/missing.txt").await, existing);
    assert_eq!(answer("no-such-bucket/there.txt").await, existing);
    assert_eq!(existing.1["code"], "NoSuchBucket");
    // A public bucket's own objects are told apart: they are public.
    assert_eq!(answer("open/missing.txt").await.1["code"], "NoSuchKey");
}

#[tokio::test]
async fn an_upload_is_one_media_type() {
    let app = StorageApp::new();
    app.create_bucket(json!({"id": "images", "allowed_mime_types": ["image/*"]}))
        .await;
    app.create_bucket(json!({"id": "any"})).await;
    let two_types = "image/png, text/html";
    for bucket in ["images", "any"] {
        let raw = app
            .service(Method::POST, &format!("/object/{bucket}/x.png"))
            .header("content-type", two_types)
            .bytes(b"<script>".to_vec());
        let in_a_form = app
            .service(Method::POST, &format!("/object/{bucket}/y.png"))
            .header("content-type", "multipart/form-data; boundary=q")
            .bytes(form("q", "3600", two_types, b"<script>"));
        for call in [raw, in_a_form] {
            call.send().await.assert_error(
                "415",
                "InvalidMimeType",
                "mime type image/png, text/html is not supported",
            );
        }
    }
    assert!(app.files_on_disk().is_empty());
}

#[tokio::test]
async fn parts_after_the_file_are_bounded() {
    let app = StorageApp::new();
    app.create_bucket(json!({"id": "b"})).await;
    let mut head = form("q", "3600", "text/plain", b"ten bytes!");
    // Reopen the form after the file: a trailing part of 1 MiB, arriving as a network may deliver
    // it, in small chunks (which the form's parser hands out as they come, so they never count
    // as the form's overhead).
    head.truncate(head.len() - b"--\r\n".len());
    head.extend_from_slice(b"\r\nContent-Disposition: form-data; name=\"trailer\"\r\n\r\n");
    let chunks = std::iter::once(head)
        .chain((0..1024).map(|_| vec![b'x'; 1024]))
        .chain(std::iter::once(b"\r\n--q--\r\n".to_vec()))
        .map(Ok::<_, std::io::Error>);
    app.service(Method::POST, "/object/b/form.txt")
        .header("content-type", "multipart/form-data; boundary=q")
        .body(Body::from_stream(futures_util::stream::iter(chunks)))
        .send()
        .await
        .assert_too_large();
    assert!(app.files_on_disk().is_empty());
    // A small trailing part is still read over and ignored, as Storage does.
    let mut body = form("q", "3600", "text/plain", b"ten bytes!");
    body.truncate(body.len() - b"--\r\n".len());
    body.extend_from_slice(
        b"\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhi\r\n--q--\r\n",
    );
    let stored = app
        .service(Method::POST, "/object/b/form.txt")
        .header("content-type", "multipart/form-data; boundary=q")
        .bytes(body)
        .send()
        .await;
    assert_eq!(stored.status, StatusCode::OK, "{}", stored.text());
}

/// How an object stored as `content_type` comes back: its type and the two protective headers.
async fn served(app: &StorageApp, name: &str, content_type: &str) -> (String, Option<String>) {
    app.put_object("open", name, b"<svg onload=alert(1)>", content_type)
        .await;
    let signed = app
        .service(Method::POST, &format!("/object/sign/open/{name}"))
        .json(&json!({"expiresIn": 60}))
        .send()
        .await
        .json();
    let routes = [
        app.request(Method::GET, &format!("/object/public/open/{name}")),
        app.service(Method::GET, &format!("/object/open/{name}")),
        app.service(Method::GET, &format!("/object/authenticated/open/{name}")),
        app.request(Method::GET, signed["signedURL"].as_str().unwrap()),
    ];
    let mut answers: Vec<(String, Option<String>)> = Vec::new();
    for route in routes {
        let reply = route.send().await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
        answers.push((
            reply.header("content-type").unwrap().to_owned(),
            reply.header("content-security-policy").map(str::to_owned),
        ));
    }
    answers.dedup();
    assert_eq!(answers.len(), 1, "every route serves it alike: {answers:?}");
    answers.remove(0)
}

#[tokio::test]
async fn nothing_uploaded_runs_script_on_the_apis_origin() {
    let app = StorageApp::new();
    app.create_bucket(json!({"id": "open", "public": true}))
        .await;
    let sandbox = Some("default-src 'none'; sandbox".to_owned());
    // HTML of any spelling is text, as hosted Storage serves it.
    assert_eq!(
        served(&app, "page.html", "text/html; charset=utf-8").await,
        ("text/plain".to_owned(), sandbox.clone())
    );
    for (name, content_type) in [
        ("drawing.svg", "image/svg+xml"),
        ("feed.xml", "application/xml"),
        ("page.xhtml", "application/xhtml+xml"),
        ("data.bin", "application/octet-stream"),
    ] {
        assert_eq!(
            served(&app, name, content_type).await,
            (content_type.to_owned(), sandbox.clone()),
            "{content_type}"
        );
    }
    for (name, content_type) in [("photo.png", "image/png"), ("doc.pdf", "application/pdf")] {
        assert_eq!(
            served(&app, name, content_type).await,
            (content_type.to_owned(), None),
            "{content_type}"
        );
    }
}
