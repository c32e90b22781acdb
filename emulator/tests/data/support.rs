//! The binary's commands run as an owner runs them, an emulator whose log lines a test can wait
//! for, and the table read back through the REST API.

use crate::wire::{request, Announced, Client, TABLE_URL};
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub const BINARY: &str = env!("CARGO_BIN_EXE_geocache-emulator");

/// Runs `geocache-emulator ARGS` to completion.
pub fn command(args: &[&str]) -> Output {
    Command::new(BINARY).args(args).output().unwrap()
}

/// Runs a command that must succeed; returns its standard output.
pub fn succeed(args: &[&str]) -> String {
    let output = command(args);
    assert!(
        output.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// A path as the command line takes it.
pub fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The emulator binary serving `--db`, with its standard error readable line by line.
pub struct Served {
    child: Child,
    pub address: SocketAddr,
    pub anon: String,
    pub service: String,
    log: Mutex<Receiver<String>>,
}

impl Served {
    pub fn start(args: &[&str]) -> Served {
        let mut child = Command::new(BINARY)
            .args(["--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (send, log) = mpsc::channel();
        let stderr = BufReader::new(child.stderr.take().unwrap());
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let announced = Announced::read(&mut stdout);
        // The rest of standard output is drained, so the emulator never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        Served {
            child,
            address: announced.address,
            anon: announced.anon,
            service: announced.service,
            log: Mutex::new(log),
        }
    }

    /// Waits (at most `within`) for a log line holding `text`, and returns it.
    pub fn wait_for_log(&self, text: &str, within: Duration) -> String {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.log.lock().unwrap().recv_timeout(left) {
                Ok(line) if line.contains(text) => return line,
                Ok(_) => {}
                Err(_) => panic!("no log line with {text:?} within {within:?}"),
            }
        }
    }

    pub async fn client(&self) -> Client {
        Client::connect(self.address).await.unwrap()
    }

    /// Signs as a visitor does; returns the stored row.
    pub async fn sign(&self, client: &mut Client, name: &str, message: &str) -> Value {
        let body = json!({"name": name, "message": message}).to_string();
        let mut sent = request(Method::POST, TABLE_URL, &self.anon, Some(&body));
        sent.headers_mut()
            .insert("prefer", "return=representation".parse().unwrap());
        let reply = client.send(sent).await.unwrap();
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
        reply.json()[0].clone()
    }

    /// Every row, in id order, read page by page as a client would (the row cap holds).
    pub async fn rows(&self) -> Vec<Value> {
        let mut client = self.client().await;
        let mut rows: Vec<Value> = Vec::new();
        loop {
            let after = rows.last().map_or(0, |row| row["id"].as_i64().unwrap());
            let path = format!("{TABLE_URL}?select=*&order=id.asc&id=gt.{after}&limit=1000");
            let reply = client
                .send(request(Method::GET, &path, &self.service, None))
                .await
                .unwrap();
            assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
            let page = reply.json().as_array().cloned().unwrap();
            if page.is_empty() {
                return rows;
            }
            rows.extend(page);
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A CSV file of `count` entries with ids from `first`, each second apart, written as the hosted
/// dashboard writes it.
pub fn dashboard_csv(first: i64, count: i64, message: &str) -> String {
    let mut text = String::from("id,created_at,name,message");
    for id in first..first + count {
        let seconds = 1_795_169_472 + id;
        let time = chrono::DateTime::from_timestamp(seconds, (id % 1000) as u32 * 1000).unwrap();
        let time = time.format("%Y-%m-%d %H:%M:%S%.6f").to_string();
        let time = time.trim_end_matches('0').trim_end_matches('.');
        text.push_str(&format!("\r\n{id},{time}+00,Visitor {id},{message}"));
    }
    text
}
