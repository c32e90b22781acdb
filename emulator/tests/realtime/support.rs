//! A served emulator on a free port and a raw Phoenix client over tokio-tungstenite, speaking
//! either serializer, so the tests see the frames themselves.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use futures_util::{SinkExt, StreamExt};
use geocache_emulator::clock::Clock;
use geocache_emulator::db::DbLocation;
use geocache_emulator::http::server::ConnectionLimits;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::read_access::ReadAccess;
use geocache_emulator::realtime::RealtimeLimits;
use geocache_emulator::state::AppState;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tower::ServiceExt;

pub const TOPIC: &str = "realtime:logbook";
/// Long enough for anything the server does at once; a test waiting this long has failed.
const PATIENCE: Duration = Duration::from_secs(10);

pub struct Server {
    pub state: AppState,
    pub address: String,
    _stop: oneshot::Sender<()>,
}

impl Server {
    pub async fn start() -> Server {
        Server::with_limits(RealtimeLimits::default()).await
    }

    pub async fn with_limits(limits: RealtimeLimits) -> Server {
        Server::with_all_limits(limits, ConnectionLimits::default()).await
    }

    /// With the HTTP listener's limits too.
    pub async fn with_all_limits(limits: RealtimeLimits, connections: ConnectionLimits) -> Server {
        let state = AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET)
            .unwrap()
            .with_realtime_limits(limits);
        Server::serving(state, connections).await
    }

    /// Over a clock the test moves: a token expires when the test says, however slow the machine.
    pub async fn with_clock(clock: Clock) -> Server {
        let state = AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET)
            .unwrap()
            .with_clock(clock);
        Server::serving(state, ConnectionLimits::default()).await
    }

    /// Over a table whose read access is not the migration's.
    pub async fn with_read_access(access: ReadAccess) -> Server {
        let state = AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET)
            .unwrap()
            .with_read_access(access);
        Server::serving(state, ConnectionLimits::default()).await
    }

    async fn serving(state: AppState, connections: ConnectionLimits) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let (stop, stopped) = oneshot::channel::<()>();
        let served = state.clone();
        tokio::spawn(async move {
            geocache_emulator::run_with_limits(listener, served, connections, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        Server {
            state,
            address,
            _stop: stop,
        }
    }

    /// Another handle on a running server's state, for requests from other tasks.
    pub fn over(state: AppState) -> Server {
        let (stop, _) = oneshot::channel::<()>();
        Server {
            state,
            address: String::new(),
            _stop: stop,
        }
    }

    pub fn publishable(&self) -> String {
        self.state.keys.publishable_key().to_owned()
    }

    pub fn secret(&self) -> String {
        self.state.keys.secret_key().to_owned()
    }

    pub fn url(&self, key: &str, vsn: &str) -> String {
        format!(
            "ws://{}/realtime/v1/websocket?apikey={key}&vsn={vsn}",
            self.address
        )
    }

    /// A socket with the publishable key.
    pub async fn connect(&self, vsn: &str) -> Client {
        self.connect_with(&self.publishable(), vsn).await
    }

    pub async fn connect_with(&self, key: &str, vsn: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(self.url(key, vsn))
            .await
            .unwrap();
        Client {
            ws,
            v2: vsn == "2.0.0",
            next_ref: 0,
        }
    }

    /// A request to the app itself (the same state, so the same Realtime hub).
    pub async fn request(&self, request: Request<Body>) -> (StatusCode, Value) {
        let response = geocache_emulator::app(self.state.clone())
            .oneshot(request)
            .await
            .unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// A REST write as the service role: `method` on `geocache_logs?query` with `body`.
    pub async fn rest(&self, method: &str, query: &str, body: Value) -> Value {
        let key = self.secret();
        let request = Request::builder()
            .method(method)
            .uri(format!("/rest/v1/geocache_logs?{query}"))
            .header("apikey", &key)
            .header("content-type", "application/json")
            .header("prefer", "return=representation")
            .body(Body::from(body.to_string()))
            .unwrap();
        let (status, body) = self.request(request).await;
        assert!(status.is_success(), "{status}: {body}");
        body
    }

    pub async fn insert(&self, rows: Value) -> Vec<Value> {
        self.rest("POST", "", rows)
            .await
            .as_array()
            .cloned()
            .unwrap()
    }
}

/// A message as both serializers carry it.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub join_ref: Value,
    pub reference: Value,
    pub topic: String,
    pub event: String,
    pub payload: Value,
}

pub struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub v2: bool,
    next_ref: u64,
}

/// What the server sent next.
#[derive(Debug)]
pub enum Received {
    Text(Frame),
    Binary(Vec<u8>),
    Closed(Option<u16>),
}

impl Client {
    /// Sends a message in this socket's serializer; returns its ref.
    pub async fn push(
        &mut self,
        join_ref: Option<&str>,
        topic: &str,
        event: &str,
        payload: Value,
    ) -> String {
        self.next_ref += 1;
        let reference = self.next_ref.to_string();
        let text = if self.v2 {
            json!([join_ref, reference, topic, event, payload])
        } else {
            json!({"join_ref": join_ref, "ref": reference, "topic": topic, "event": event, "payload": payload})
        };
        self.ws
            .send(WsMessage::text(text.to_string()))
            .await
            .unwrap();
        reference
    }

    pub async fn send_binary(&mut self, bytes: Vec<u8>) {
        self.ws.send(WsMessage::binary(bytes)).await.unwrap();
    }

    pub async fn next(&mut self) -> Received {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("the server said nothing in time");
            match message {
                None | Some(Err(_)) => return Received::Closed(None),
                Some(Ok(WsMessage::Text(text))) => {
                    let value: Value = serde_json::from_str(text.as_str()).unwrap();
                    return Received::Text(self.frame(value));
                }
                Some(Ok(WsMessage::Binary(bytes))) => return Received::Binary(bytes.to_vec()),
                Some(Ok(WsMessage::Close(close))) => {
                    return Received::Closed(close.map(|frame| u16::from(frame.code)))
                }
                Some(Ok(_)) => continue,
            }
        }
    }

    fn frame(&self, value: Value) -> Frame {
        if self.v2 {
            let items = value
                .as_array()
                .expect("2.0.0 text frames are arrays")
                .clone();
            assert_eq!(items.len(), 5, "{value}");
            Frame {
                join_ref: items[0].clone(),
                reference: items[1].clone(),
                topic: items[2].as_str().unwrap().to_owned(),
                event: items[3].as_str().unwrap().to_owned(),
                payload: items[4].clone(),
            }
        } else {
            assert!(value.is_object(), "1.0.0 frames are objects: {value}");
            assert_eq!(value.as_object().unwrap().len(), 5, "{value}");
            Frame {
                join_ref: value["join_ref"].clone(),
                reference: value["ref"].clone(),
                topic: value["topic"].as_str().unwrap().to_owned(),
                event: value["event"].as_str().unwrap().to_owned(),
                payload: value["payload"].clone(),
            }
        }
    }

    /// The next text frame; panics on anything else.
    pub async fn frame_next(&mut self) -> Frame {
        match self.next().await {
            Received::Text(frame) => frame,
            other => panic!("expected a text frame, got {other:?}"),
        }
    }

    /// Joins `topic` with `config` (and an access token) and returns the join reply.
    pub async fn join(
        &mut self,
        topic: &str,
        config: Value,
        token: Option<&str>,
    ) -> (String, Frame) {
        self.next_ref += 1;
        let join_ref = format!("j{}", self.next_ref);
        let mut payload = json!({"config": config});
        if let Some(token) = token {
            payload["access_token"] = token.into();
        }
        let reference = self.push(Some(&join_ref), topic, "phx_join", payload).await;
        let reply = self.frame_next().await;
        assert_eq!(reply.event, "phx_reply", "{reply:?}");
        assert_eq!(reply.reference, Value::from(reference));
        assert_eq!(reply.join_ref, Value::from(join_ref.as_str()));
        (join_ref, reply)
    }

    /// Joins with postgres_changes entries and expects ok, then the "Subscribed" system message.
    pub async fn subscribe(
        &mut self,
        topic: &str,
        changes: Value,
        token: Option<&str>,
    ) -> (String, Vec<Value>) {
        let (join_ref, reply) = self
            .join(topic, json!({"postgres_changes": changes}), token)
            .await;
        assert_eq!(reply.payload["status"], "ok", "{reply:?}");
        let ids = reply.payload["response"]["postgres_changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry["id"].clone())
            .collect();
        let system = self.frame_next().await;
        assert_eq!(system.event, "system");
        assert_eq!(system.payload["message"], "Subscribed to PostgreSQL");
        (join_ref, ids)
    }

    /// The next `postgres_changes` message's payload.
    pub async fn change(&mut self) -> Value {
        let frame = self.frame_next().await;
        assert_eq!(frame.event, "postgres_changes", "{frame:?}");
        frame.payload
    }

    /// Asserts that nothing arrives for a short while.
    pub async fn quiet(&mut self) {
        let waited = tokio::time::timeout(Duration::from_millis(300), self.ws.next()).await;
        assert!(waited.is_err(), "unexpected message: {waited:?}");
    }
}
