//! Drives `app()` in-process with `oneshot`, a fresh in-memory database per test.

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::Router;
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

pub const TABLE_URL: &str = "/rest/v1/geocache_logs";

/// What the tests' own work on the database (`Database::call`) returns.
pub type DbResult<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

pub struct TestApp {
    pub state: AppState,
    pub anon: String,
    pub service: String,
    pub publishable: String,
    pub secret: String,
}

impl TestApp {
    pub fn new() -> TestApp {
        TestApp::with_state(AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET).unwrap())
    }

    pub fn with_state(state: AppState) -> TestApp {
        let anon = state.keys.anon_key().to_owned();
        let service = state.keys.service_role_key().to_owned();
        let publishable = state.keys.publishable_key().to_owned();
        let secret = state.keys.secret_key().to_owned();
        TestApp {
            state,
            anon,
            service,
            publishable,
            secret,
        }
    }

    pub fn router(&self) -> Router {
        geocache_emulator::app(self.state.clone())
    }

    /// A request with the anon key as apikey and bearer, as supabase-js sends it.
    pub fn anon(&self, method: Method, uri: &str) -> RequestSpec {
        RequestSpec::new(self.router(), method, uri).key(&self.anon)
    }

    /// A request with the service_role key as apikey and bearer.
    pub fn service(&self, method: Method, uri: &str) -> RequestSpec {
        RequestSpec::new(self.router(), method, uri).key(&self.service)
    }

    /// A request with no credentials at all.
    pub fn bare(&self, method: Method, uri: &str) -> RequestSpec {
        RequestSpec::new(self.router(), method, uri)
    }

    /// Inserts rows as the service role and returns them.
    pub async fn seed(&self, rows: Value) -> Vec<Value> {
        let response = self
            .service(Method::POST, TABLE_URL)
            .header("prefer", "return=representation")
            .json(&rows)
            .send()
            .await;
        assert_eq!(response.status, StatusCode::CREATED, "{}", response.body);
        response.json().as_array().cloned().unwrap()
    }

    /// All rows, ordered by id, as the service role.
    pub async fn all_rows(&self) -> Vec<Value> {
        let response = self
            .service(Method::GET, &format!("{TABLE_URL}?order=id"))
            .send()
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        response.json().as_array().cloned().unwrap()
    }
}

pub struct RequestSpec {
    router: Router,
    builder: axum::http::request::Builder,
    body: Body,
}

impl RequestSpec {
    fn new(router: Router, method: Method, uri: &str) -> RequestSpec {
        RequestSpec {
            router,
            builder: Request::builder().method(method).uri(uri),
            body: Body::empty(),
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> RequestSpec {
        self.builder = self.builder.header(name, value);
        self
    }

    /// The socket's peer, as the server hands it over (`ip:port`); without it the request comes
    /// from inside the process.
    pub fn from(mut self, peer: &str) -> RequestSpec {
        let peer: std::net::SocketAddr = peer.parse().unwrap();
        self.builder = self.builder.extension(axum::extract::ConnectInfo(peer));
        self
    }

    /// `apikey` and `Authorization: Bearer`, both the same key.
    pub fn key(self, key: &str) -> RequestSpec {
        self.header("apikey", key)
            .header("authorization", &format!("Bearer {key}"))
    }

    pub fn json(self, value: &Value) -> RequestSpec {
        self.header("content-type", "application/json")
            .raw_body(value.to_string())
    }

    pub fn raw_body(mut self, body: impl Into<String>) -> RequestSpec {
        self.body = Body::from(body.into());
        self
    }

    pub async fn send(self) -> TestResponse {
        let request = self.builder.body(self.body).unwrap();
        let response = self.router.oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        TestResponse {
            status,
            headers,
            body: String::from_utf8(bytes.to_vec()).unwrap(),
        }
    }
}

#[derive(Debug)]
pub struct TestResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl TestResponse {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("body is not JSON ({error}): {:?}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|value| value.to_str().unwrap())
    }

    /// Asserts a PostgREST error: status, code and message; returns the body.
    #[track_caller]
    pub fn assert_postgrest_error(&self, status: StatusCode, code: &str, message: &str) -> Value {
        assert_eq!(self.status, status, "{}", self.body);
        let body = self.json();
        assert_eq!(body["code"], code, "{}", self.body);
        assert_eq!(body["message"], message, "{}", self.body);
        assert_eq!(body.as_object().unwrap().len(), 4, "{}", self.body);
        // PostgREST (Aeson) writes the keys in this order.
        let positions: Vec<usize> = ["\"code\":", "\"details\":", "\"hint\":", "\"message\":"]
            .iter()
            .map(|key| self.body.find(key).unwrap())
            .collect();
        assert!(
            positions.windows(2).all(|pair| pair[0] < pair[1]),
            "{}",
            self.body
        );
        assert_eq!(
            self.header("content-type"),
            Some("application/json; charset=utf-8")
        );
        body
    }
}
