//! Drives `app()` in-process with `oneshot`: a fresh in-memory database and a throwaway file
//! store per test.

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use geocache_emulator::clock::ManualClock;
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use geocache_emulator::storage::files::Files;
use geocache_emulator::storage::policy::{Policies, Policy};
use geocache_emulator::storage::settings::{StorageSettings, DEFAULT_MAX_FILE_SIZE};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tower::ServiceExt;

pub const STORAGE: &str = "/storage/v1";

pub struct StorageApp {
    pub state: AppState,
    pub clock: ManualClock,
    pub root: PathBuf,
    pub anon: String,
    pub service: String,
}

impl StorageApp {
    pub fn new() -> StorageApp {
        StorageApp::with(&[], DEFAULT_MAX_FILE_SIZE)
    }

    /// With policies in the `--storage-policy` form and a global size cap.
    pub fn with(policies: &[&str], max_file_size: u64) -> StorageApp {
        let files = Files::temporary().unwrap();
        let root = files.root().to_owned();
        let policies = policies
            .iter()
            .map(|text| Policy::parse(text).unwrap())
            .collect();
        let clock = ManualClock::starting_now();
        let state = AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET)
            .unwrap()
            .with_clock(clock.clock())
            .with_storage(StorageSettings::new(
                Some(files),
                Policies::new(policies),
                max_file_size,
            ));
        StorageApp {
            anon: state.keys.anon_key().to_owned(),
            service: state.keys.service_role_key().to_owned(),
            state,
            clock,
            root,
        }
    }

    /// A signed-in user's access token, as the auth server makes them.
    pub fn user_token(&self, user_id: &str) -> String {
        let now = self.clock.clock().now_seconds();
        self.state.keys.sign(&json!({
            "sub": user_id,
            "role": "authenticated",
            "aud": "authenticated",
            "iat": now,
            "exp": now + 3600,
        }))
    }

    pub fn request(&self, method: Method, path: &str) -> Call {
        Call {
            router: geocache_emulator::app(self.state.clone()),
            builder: Request::builder()
                .method(method)
                .uri(format!("{STORAGE}{path}")),
            body: Body::empty(),
        }
    }

    pub fn service(&self, method: Method, path: &str) -> Call {
        self.request(method, path).key(&self.service)
    }

    pub fn anon(&self, method: Method, path: &str) -> Call {
        self.request(method, path).key(&self.anon)
    }

    /// A signed-in user: the anon key as apikey, the user's token as bearer.
    pub fn user(&self, method: Method, path: &str, user_id: &str) -> Call {
        self.request(method, path)
            .header("apikey", &self.anon)
            .header(
                "authorization",
                &format!("Bearer {}", self.user_token(user_id)),
            )
    }

    pub async fn create_bucket(&self, body: Value) {
        let response = self
            .service(Method::POST, "/bucket")
            .json(&body)
            .send()
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.text());
    }

    /// Uploads `bytes` as the service role and returns the response.
    pub async fn put_object(&self, bucket: &str, name: &str, bytes: &[u8], content_type: &str) {
        let response = self
            .service(Method::POST, &format!("/object/{bucket}/{name}"))
            .header("content-type", content_type)
            .bytes(bytes.to_vec())
            .send()
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.text());
    }

    /// Every regular file under the storage root, temporary ones included.
    pub fn files_on_disk(&self) -> Vec<PathBuf> {
        fn walk(path: &Path, found: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(path).unwrap() {
                let entry = entry.unwrap();
                if entry.file_type().unwrap().is_dir() {
                    walk(&entry.path(), found);
                } else {
                    found.push(entry.path());
                }
            }
        }
        let mut found = Vec::new();
        walk(&self.root, &mut found);
        found
    }
}

pub struct Call {
    router: axum::Router,
    builder: axum::http::request::Builder,
    body: Body,
}

impl Call {
    pub fn header(mut self, name: &str, value: &str) -> Call {
        self.builder = self.builder.header(name, value);
        self
    }

    pub fn key(self, key: &str) -> Call {
        self.header("apikey", key)
            .header("authorization", &format!("Bearer {key}"))
    }

    pub fn json(self, value: &Value) -> Call {
        self.header("content-type", "application/json")
            .bytes(value.to_string().into_bytes())
    }

    pub fn bytes(mut self, bytes: Vec<u8>) -> Call {
        self.body = Body::from(bytes);
        self
    }

    pub fn body(mut self, body: Body) -> Call {
        self.body = body;
        self
    }

    pub async fn send(self) -> Reply {
        let request = self.builder.body(self.body).unwrap();
        let response = self.router.oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        Reply {
            status,
            headers,
            bytes: bytes.to_vec(),
        }
    }
}

#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub bytes: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.text()))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|value| value.to_str().unwrap())
    }

    /// Asserts Storage's error: HTTP 400 (500 for internal errors) with the status, code,
    /// error and message in the body.
    #[track_caller]
    pub fn assert_error(&self, status: &str, code: &str, message: &str) {
        let expected_http = if status == "500" {
            StatusCode::INTERNAL_SERVER_ERROR
        } else {
            StatusCode::BAD_REQUEST
        };
        assert_eq!(self.status, expected_http, "{}", self.text());
        let body = self.json();
        assert_eq!(body["statusCode"], status, "{}", self.text());
        assert_eq!(body["code"], code, "{}", self.text());
        assert_eq!(body["message"], message, "{}", self.text());
        assert!(body["error"].is_string(), "{}", self.text());
    }

    /// Storage's answer to an object, or a form, over its size limit.
    pub fn assert_too_large(&self) {
        self.assert_error(
            "413",
            "EntityTooLarge",
            "The object exceeded the maximum allowed size",
        );
    }
}

/// A `multipart/form-data` body as storage-js builds it from a Blob: `cacheControl`, then the
/// file under the empty name.
pub fn form(boundary: &str, cache_control: &str, content_type: &str, file: &[u8]) -> Vec<u8> {
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n\
         {cache_control}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"\"; \
         filename=\"blob\"\r\nContent-Type: {content_type}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    body
}
