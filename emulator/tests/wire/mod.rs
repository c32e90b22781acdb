//! The emulator over real loopback sockets, shared by the test binaries (`#[path]`-included):
//! served in-process on port 0 through `geocache_emulator::run`, or as the built binary; raw
//! exchanges that show exactly which bytes arrived; and a keep-alive HTTP/1.1 client (hyper).

#![allow(dead_code)] // Each test binary uses its own part.

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use geocache_emulator::state::AppState;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub const TABLE_URL: &str = "/rest/v1/geocache_logs";

/// The app served in-process on a free loopback port.
pub struct Served {
    pub address: SocketAddr,
    pub state: AppState,
    pub anon: String,
    pub service: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl Served {
    pub async fn start(state: AppState) -> Served {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(geocache_emulator::run(
            listener,
            state.clone(),
            async move {
                let _ = stopped.await;
            },
        ));
        let task = tokio::spawn(async move {
            task.await.unwrap().unwrap();
        });
        Served {
            address,
            anon: state.keys.anon_key().to_owned(),
            service: state.keys.service_role_key().to_owned(),
            state,
            stop: Some(stop),
            task: Some(task),
        }
    }

    pub async fn client(&self) -> Client {
        Client::connect(self.address).await.unwrap()
    }

    /// Stops accepting and waits for open exchanges to finish.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            tokio::time::timeout(Duration::from_secs(10), task)
                .await
                .expect("the server stops")
                .unwrap();
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// What arrived on a raw exchange before the server closed the connection.
#[derive(Debug)]
pub struct Raw {
    pub bytes: Vec<u8>,
    /// The read ended with an error (a reset) rather than a clean end of stream.
    pub reset: bool,
}

impl Raw {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// The head (status line and headers) and the body, split at the first blank line.
    pub fn split(&self) -> Option<(String, Vec<u8>)> {
        let end = self.bytes.windows(4).position(|w| w == b"\r\n\r\n")?;
        Some((
            String::from_utf8_lossy(&self.bytes[..end]).into_owned(),
            self.bytes[end + 4..].to_vec(),
        ))
    }

    pub fn content_length(&self) -> Option<usize> {
        let (head, _) = self.split()?;
        head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
    }
}

/// Sends `request` on a new connection and reads until the server closes it (at most 10 s).
pub async fn raw_exchange(address: SocketAddr, request: &[u8]) -> Raw {
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut reset = false;
    let read_all = async {
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) => break,
                Ok(read) => bytes.extend_from_slice(&chunk[..read]),
                Err(_) => {
                    reset = true;
                    break;
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read_all)
        .await
        .expect("the server closes the connection");
    Raw { bytes, reset }
}

/// A raw HTTP/1.1 request text that asks the server to close the connection after it.
pub fn raw_request(method: &str, path: &str, key: &str, body: Option<&str>) -> Vec<u8> {
    let mut text = format!(
        "{method} {path} HTTP/1.1\r\nHost: emulator\r\napikey: {key}\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n"
    );
    if let Some(body) = body {
        text.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ));
    } else {
        text.push_str("\r\n");
    }
    text.into_bytes()
}

/// A keep-alive HTTP/1.1 connection.
pub struct Client {
    sender: SendRequest<Full<Bytes>>,
}

#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|error| {
            panic!(
                "not JSON ({error}): {:?}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Client {
    pub async fn connect(address: SocketAddr) -> std::io::Result<Client> {
        let stream = TcpStream::connect(address).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(std::io::Error::other)?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Client { sender })
    }

    /// Sends one request and reads the whole answer; an error means the connection failed.
    pub async fn send(&mut self, request: Request<Full<Bytes>>) -> Result<Reply, hyper::Error> {
        self.sender.ready().await?;
        let response = self.sender.send_request(request).await?;
        let (parts, body) = response.into_parts();
        let body = body.collect().await?.to_bytes();
        Ok(Reply {
            status: parts.status,
            headers: parts.headers,
            body,
        })
    }
}

/// A request as supabase-js sends it with `key` as apikey and bearer.
pub fn request(method: Method, path: &str, key: &str, body: Option<&str>) -> Request<Full<Bytes>> {
    let mut builder = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "emulator")
        .header("apikey", key)
        .header("authorization", format!("Bearer {key}"));
    if body.is_some() {
        builder = builder.header("content-type", "application/json");
    }
    builder
        .body(Full::new(Bytes::from(body.unwrap_or_default().to_owned())))
        .unwrap()
}

/// What the emulator prints first on standard output: its address and its four keys.
pub struct Announced {
    pub address: SocketAddr,
    pub anon: String,
    pub service: String,
    pub publishable: String,
    pub secret: String,
}

impl Announced {
    /// Reads the five lines, in the order the emulator prints them, from a process's standard output.
    pub fn read(stdout: &mut impl BufRead) -> Announced {
        let mut line = |prefix: &str| {
            let mut text = String::new();
            stdout.read_line(&mut text).unwrap();
            text.trim_end()
                .strip_prefix(prefix)
                .unwrap_or_else(|| panic!("expected {prefix:?}, got {text:?}"))
                .to_owned()
        };
        let address = line("API URL: http://").parse().unwrap();
        Announced {
            address,
            anon: line("anon key: "),
            service: line("service_role key: "),
            publishable: line("Publishable key: "),
            secret: line("Secret key: "),
        }
    }
}

/// The built binary, started with `--port 0` and `args`; killed (SIGKILL) when dropped.
pub struct Binary {
    child: Child,
    pub address: SocketAddr,
    pub anon: String,
    pub service: String,
    pub publishable: String,
    pub secret: String,
    /// Kept open so the emulator's stdout never breaks.
    _stdout: BufReader<ChildStdout>,
}

impl Binary {
    pub fn start(args: &[&str]) -> Binary {
        let mut child = Command::new(env!("CARGO_BIN_EXE_geocache-emulator"))
            .args(["--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let Announced {
            address,
            anon,
            service,
            publishable,
            secret,
        } = Announced::read(&mut stdout);
        Binary {
            child,
            address,
            anon,
            service,
            publishable,
            secret,
            _stdout: stdout,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL: no chance to flush or close anything.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
