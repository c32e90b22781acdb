//! Resident memory of an emulator binary under the floods anyone with the publishable key can
//! send: presence tracks (three of 4 MiB, and one of 15 MiB), 4 MiB broadcasts, and one Storage
//! sign request of 700,000 paths. Each flood gets a fresh emulator on a free loopback port, so
//! its VmHWM (the process's peak) is the flood's own; VmRSS is read from /proc idle, every 10 ms
//! during the flood, once it is answered (its sockets still open), and after they close, with
//! what the server answered. Ignored: it measures this machine and asserts nothing but that
//! it ran (Linux only). It floods `GEOCACHE_FLOOD_BINARY` if set, else the binary cargo built for
//! the tests; it passes only flags every emulator so far takes, so an older build can be measured
//! against the current one:
//!
//! `cargo build --profile emulator -p geocache-emulator`
//! `GEOCACHE_FLOOD_BINARY=$PWD/target/emulator/geocache-emulator cargo test -p geocache-emulator --test load -- --ignored --nocapture flood_memory`

use crate::wire::{request, Announced, Client};
use axum::http::Method;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::future::Future;
use std::io::BufReader;
use std::net::SocketAddr;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

const MIB: usize = 1024 * 1024;
const TOPIC: &str = "realtime:flood";
const BUCKET: &str = "flood";
const SIGNED_PATHS: usize = 700_000;
const BROADCASTS: usize = 8;
/// The longest any one step may take: generous, as a flood may hold an unguarded server for
/// many seconds, yet a hung step still ends the run.
const STEP: Duration = Duration::from_secs(180);
/// Time for the server to finish what a flood left it (fan-out, freeing) before memory is read.
const SETTLE: Duration = Duration::from_secs(1);

/// Fails the run if `step` outlasts `STEP`, so no flood can hang it.
async fn bounded<T>(what: &str, step: impl Future<Output = T>) -> T {
    tokio::time::timeout(STEP, step)
        .await
        .unwrap_or_else(|_| panic!("{what}: nothing within {STEP:?}"))
}

/// The emulator under test, started on a free loopback port with an in-memory database and one
/// bucket anon may sign in; killed when dropped.
struct Emulator {
    child: Child,
    address: SocketAddr,
    service: String,
    publishable: String,
    /// Kept open so the emulator's stdout never breaks.
    _stdout: BufReader<ChildStdout>,
}

impl Emulator {
    fn binary() -> String {
        std::env::var("GEOCACHE_FLOOD_BINARY")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_geocache-emulator").to_owned())
    }

    fn start() -> Emulator {
        let policy = format!("{BUCKET}:select:anon");
        let mut child = Command::new(Emulator::binary())
            .args(["--host", "127.0.0.1", "--port", "0", "--db", ":memory:"])
            .args(["--storage-policy", &policy])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let announced = Announced::read(&mut stdout);
        let address = announced.address;
        assert!(address.ip().is_loopback(), "{address}");
        Emulator {
            child,
            address,
            service: announced.service,
            publishable: announced.publishable,
            _stdout: stdout,
        }
    }

    /// VmRSS and VmHWM, in MiB.
    fn memory(&self) -> (f64, f64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let field = |name: &str| {
            let line = status.lines().find(|line| line.starts_with(name)).unwrap();
            let kib: f64 = line[name.len()..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .unwrap();
            kib / 1024.0
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    fn socket_url(&self) -> String {
        format!(
            "ws://{}/realtime/v1/websocket?apikey={}&vsn=1.0.0",
            self.address, self.publishable
        )
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a socket's reader saw: a small frame parsed, or only that a large one came.
#[derive(Debug)]
enum Incoming {
    Frame(Value),
    Large,
    Closed(String),
}

/// A Phoenix client (1.0.0 serializer) whose frames a task reads as they come, so the server
/// never waits on it.
struct Socket {
    sink: SplitSink<WebSocketStream<MaybeTlsStream<TcpStream>>, Message>,
    incoming: mpsc::UnboundedReceiver<Incoming>,
    /// Holds the stream's half: the connection lasts until it ends.
    reader: JoinHandle<()>,
    next_ref: u64,
}

impl Socket {
    async fn connect(emulator: &Emulator) -> Socket {
        let (ws, _) = bounded(
            "connect",
            tokio_tungstenite::connect_async(emulator.socket_url()),
        )
        .await
        .unwrap();
        let (sink, stream) = ws.split();
        let (send, incoming) = mpsc::unbounded_channel();
        let reader = tokio::spawn(read_frames(stream, send));
        Socket {
            sink,
            incoming,
            reader,
            next_ref: 0,
        }
    }

    /// Says goodbye (a close frame) and drops the connection whether or not the server answers.
    async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(2), self.sink.close()).await;
        let _ = tokio::time::timeout(Duration::from_secs(2), &mut self.reader).await;
    }

    /// Sends a push with `payload` (JSON text, so a flood's megabytes are never a `Value` here);
    /// its ref, or why it could not be sent.
    async fn push(&mut self, event: &str, payload: &str) -> Result<String, String> {
        self.next_ref += 1;
        let reference = self.next_ref.to_string();
        let text = format!(
            r#"{{"join_ref":"j","ref":"{reference}","topic":"{TOPIC}","event":"{event}","payload":{payload}}}"#
        );
        match bounded("send", self.sink.send(Message::text(text))).await {
            Ok(()) => Ok(reference),
            Err(error) => Err(format!("send failed ({error})")),
        }
    }

    /// The reply to `reference` (skipping everything else), or how the socket ended.
    async fn reply(&mut self, reference: &str) -> Result<Value, String> {
        loop {
            match bounded("reply", self.incoming.recv()).await {
                Some(Incoming::Frame(frame))
                    if frame["event"] == "phx_reply" && frame["ref"] == reference =>
                {
                    return Ok(frame["payload"].clone())
                }
                Some(Incoming::Closed(how)) => return Err(how),
                None => return Err("reader gone".into()),
                Some(_) => {}
            }
        }
    }

    async fn join(&mut self, config: Value) {
        let reference = self
            .push("phx_join", &json!({"config": config}).to_string())
            .await
            .unwrap();
        let reply = self.reply(&reference).await.unwrap();
        assert_eq!(reply["status"], "ok", "{reply}");
    }

    /// Sends `event`: the reply's status (and reason), or how the socket ended (after a failed
    /// send, with what its reader saw last).
    async fn answer(&mut self, event: &str, payload: &str) -> Result<String, String> {
        let reference = match self.push(event, payload).await {
            Ok(reference) => reference,
            Err(failed) => {
                let seen = tokio::time::timeout(Duration::from_secs(5), async {
                    loop {
                        match self.incoming.recv().await {
                            Some(Incoming::Closed(how)) => return how,
                            None => return "reader gone".to_owned(),
                            Some(_) => {}
                        }
                    }
                })
                .await;
                return Err(format!(
                    "{failed}, then {}",
                    seen.unwrap_or("nothing".into())
                ));
            }
        };
        let reply = self.reply(&reference).await?;
        let status = reply["status"].as_str().unwrap_or("?").to_owned();
        Ok(match reply["response"]["reason"].as_str() {
            Some(reason) => format!("{status}: {reason}"),
            None => status,
        })
    }

    /// How many large frames arrived so far, without waiting.
    fn large_frames(&mut self) -> usize {
        let mut large = 0;
        while let Ok(incoming) = self.incoming.try_recv() {
            if matches!(incoming, Incoming::Large) {
                large += 1;
            }
        }
        large
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

async fn read_frames(
    mut stream: SplitStream<WebSocketStream<MaybeTlsStream<TcpStream>>>,
    send: mpsc::UnboundedSender<Incoming>,
) {
    loop {
        let incoming = match stream.next().await {
            Some(Ok(Message::Text(text))) if text.len() > 64 * 1024 => Incoming::Large,
            Some(Ok(Message::Text(text))) => {
                Incoming::Frame(serde_json::from_str(text.as_str()).unwrap_or(Value::Null))
            }
            Some(Ok(Message::Binary(_))) => Incoming::Large,
            Some(Ok(Message::Close(frame))) => Incoming::Closed(match frame {
                Some(frame) => format!("closed {}", u16::from(frame.code)),
                None => "closed".into(),
            }),
            Some(Ok(_)) => continue,
            Some(Err(error)) => Incoming::Closed(format!("connection error ({error})")),
            None => Incoming::Closed("connection ended".into()),
        };
        let last = matches!(incoming, Incoming::Closed(_));
        if send.send(incoming).is_err() || last {
            return;
        }
    }
}

/// One flood's line of the table, in MiB.
struct Figures {
    flood: &'static str,
    idle: f64,
    after: f64,
    peak: f64,
    sampled: f64,
    closed: f64,
    answer: String,
}

/// Where a flood stops while its memory is read: its answers are in, its sockets still open.
struct Checkpoint {
    reached: oneshot::Sender<()>,
    measured: oneshot::Receiver<()>,
}

impl Checkpoint {
    async fn reach(self) {
        let _ = self.reached.send(());
        let _ = bounded("measuring", self.measured).await;
    }
}

/// Starts a fresh emulator, reads its memory idle, runs `flood` on it, reads its memory at the
/// flood's checkpoint, and again once the flood has ended and closed its sockets.
async fn measure<F, Fut>(flood: &'static str, run: F) -> Figures
where
    F: FnOnce(Arc<Emulator>, Checkpoint) -> Fut,
    Fut: Future<Output = String> + Send + 'static,
{
    let emulator = Arc::new(Emulator::start());
    tokio::time::sleep(SETTLE).await;
    let (idle, _) = emulator.memory();
    // The kernel raises VmHWM only at some events (an unmap, not a page the allocator hands back
    // with madvise), so a brief peak may pass it by: VmRSS is also read every 10 ms.
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (emulator, stop) = (emulator.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut most: f64 = 0.0;
            let limit = STEP.as_millis() / 10;
            for _ in 0..limit {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                most = most.max(emulator.memory().0);
                std::thread::sleep(Duration::from_millis(10));
            }
            most
        })
    };
    let (reached, at_checkpoint) = oneshot::channel();
    let (measured, measuring) = oneshot::channel();
    let task = tokio::spawn(run(
        emulator.clone(),
        Checkpoint {
            reached,
            measured: measuring,
        },
    ));
    let _ = bounded(flood, at_checkpoint).await;
    tokio::time::sleep(SETTLE).await;
    let (after, _) = emulator.memory();
    let _ = measured.send(());
    let answer = bounded(flood, task).await.unwrap();
    tokio::time::sleep(SETTLE).await;
    stop.store(true, Ordering::SeqCst);
    let sampled = sampler.join().unwrap();
    let (closed, peak) = emulator.memory();
    Figures {
        flood,
        idle,
        after,
        peak,
        sampled,
        closed,
        answer,
    }
}

/// A JSON object of about `bytes` bytes, shaped to cost a parser most: a list of zeros, each two
/// bytes of text a value of its own once parsed.
fn sized(bytes: usize) -> String {
    format!(r#"{{"zeros":[{}0]}}"#, "0,".repeat(bytes / 2))
}

/// `count` sockets each track `bytes` of presence state on one channel.
async fn presence_flood(
    emulator: Arc<Emulator>,
    checkpoint: Checkpoint,
    count: usize,
    bytes: usize,
) -> String {
    let mut sockets = Vec::new();
    for index in 0..count {
        let mut socket = Socket::connect(&emulator).await;
        let key = format!("k{index}");
        socket
            .join(json!({"presence": {"enabled": true, "key": key}}))
            .await;
        sockets.push(socket);
    }
    let mut answers = Vec::new();
    for socket in &mut sockets {
        let track = format!(
            r#"{{"type":"presence","event":"track","payload":{}}}"#,
            sized(bytes)
        );
        answers.push(match socket.answer("presence", &track).await {
            Ok(reply) => reply,
            Err(ended) => ended,
        });
    }
    // Presence lives as long as its socket: the sockets stay open while memory is read.
    checkpoint.reach().await;
    let diffs: Vec<usize> = sockets.iter_mut().map(Socket::large_frames).collect();
    for socket in sockets {
        socket.close().await;
    }
    format!(
        "track: {}; large frames received per socket: {diffs:?}",
        tally(&answers)
    )
}

/// A sender broadcasts `BROADCASTS` payloads of 4 MiB to two listeners, waiting for each one's
/// ack; a sender the server closes is replaced by a new one.
async fn broadcast_flood(emulator: Arc<Emulator>, checkpoint: Checkpoint) -> String {
    let mut listeners = Vec::new();
    for _ in 0..2 {
        let mut listener = Socket::connect(&emulator).await;
        listener.join(json!({})).await;
        listeners.push(listener);
    }
    let config = json!({"broadcast": {"ack": true, "self": false}});
    let mut answers: Vec<String> = Vec::new();
    let mut sender: Option<Socket> = None;
    for _ in 0..BROADCASTS {
        let socket = match sender.as_mut() {
            Some(socket) => socket,
            None => {
                let mut socket = Socket::connect(&emulator).await;
                socket.join(config.clone()).await;
                sender.insert(socket)
            }
        };
        let message = format!(
            r#"{{"type":"broadcast","event":"big","payload":{}}}"#,
            sized(4 * MIB)
        );
        match socket.answer("broadcast", &message).await {
            Ok(reply) => answers.push(reply),
            Err(ended) => {
                answers.push(ended);
                sender = None;
            }
        }
    }
    checkpoint.reach().await;
    let heard: Vec<usize> = listeners.iter_mut().map(Socket::large_frames).collect();
    for socket in listeners.into_iter().chain(sender) {
        socket.close().await;
    }
    format!(
        "{}; large broadcasts received per listener: {heard:?}",
        tally(&answers)
    )
}

/// Each distinct answer with its count (`8× ok`).
fn tally(answers: &[String]) -> String {
    let mut counted: Vec<(String, usize)> = Vec::new();
    for answer in answers {
        match counted.iter_mut().find(|(seen, _)| seen == answer) {
            Some((_, count)) => *count += 1,
            None => counted.push((answer.clone(), 1)),
        }
    }
    counted
        .iter()
        .map(|(answer, count)| format!("{count}× {answer}"))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// One `object/sign/<bucket>` request of `SIGNED_PATHS` paths with the publishable key, while a
/// REST read is timed over and over beside it.
async fn signing_flood(emulator: Arc<Emulator>, checkpoint: Checkpoint) -> String {
    let mut client = Client::connect(emulator.address).await.unwrap();
    let bucket = json!({"id": BUCKET, "name": BUCKET, "public": false}).to_string();
    let created = bounded(
        "create bucket",
        client.send(request(
            Method::POST,
            "/storage/v1/bucket",
            &emulator.service,
            Some(&bucket),
        )),
    )
    .await
    .unwrap();
    assert!(created.status.is_success(), "{}", created.text());
    let paths: Vec<String> = (0..SIGNED_PATHS).map(|index| index.to_string()).collect();
    let body = json!({"expiresIn": 60, "paths": paths}).to_string();
    let body_bytes = body.len();
    let (done, mut finished) = oneshot::channel::<()>();
    let prober = {
        let emulator = emulator.clone();
        tokio::spawn(async move {
            let mut client = Client::connect(emulator.address).await.unwrap();
            let read = "/rest/v1/geocache_logs?select=id&limit=1";
            let mut longest = Duration::ZERO;
            let mut reads = 0;
            while finished.try_recv().is_err() && reads < 10_000 {
                let started = Instant::now();
                let reply = bounded(
                    "REST read",
                    client.send(request(Method::GET, read, &emulator.publishable, None)),
                )
                .await
                .unwrap();
                assert!(reply.status.is_success(), "{}", reply.text());
                longest = longest.max(started.elapsed());
                reads += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            (reads, longest)
        })
    };
    let sign = format!("/storage/v1/object/sign/{BUCKET}");
    let started = Instant::now();
    let reply = bounded(
        "sign",
        client.send(request(
            Method::POST,
            &sign,
            &emulator.publishable,
            Some(&body),
        )),
    )
    .await;
    let took = started.elapsed();
    let _ = done.send(());
    let (reads, longest) = bounded("REST reads", prober).await.unwrap();
    let answer = match reply {
        Ok(reply) => {
            let text = reply.text();
            let head: String = text.chars().take(160).collect();
            format!(
                "HTTP {} after {took:.2?}, {} bytes: {head}",
                reply.status.as_u16(),
                reply.body.len()
            )
        }
        Err(error) => format!("no answer ({error})"),
    };
    checkpoint.reach().await;
    format!(
        "request {body_bytes} bytes; {answer}; longest of {reads} REST reads beside it: {longest:.2?}"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measures this machine; run by hand"]
async fn flood_memory() {
    println!("binary: {}", Emulator::binary());
    let mut figures = Vec::new();
    figures.push(
        measure("presence: 3 tracks of 4 MiB", |emulator, checkpoint| {
            presence_flood(emulator, checkpoint, 3, 4 * MIB)
        })
        .await,
    );
    figures.push(
        measure("presence: 1 track of 15 MiB", |emulator, checkpoint| {
            presence_flood(emulator, checkpoint, 1, 15 * MIB)
        })
        .await,
    );
    figures.push(measure("broadcast: 8 of 4 MiB, 2 listeners", broadcast_flood).await);
    figures.push(measure("storage sign: 700,000 paths", signing_flood).await);
    println!(
        "| flood | VmRSS idle | VmRSS after | VmHWM peak | VmRSS most sampled | VmRSS once closed | answer |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for line in &figures {
        println!(
            "| {} | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.1} MiB | {} |",
            line.flood, line.idle, line.after, line.peak, line.sampled, line.closed, line.answer
        );
    }
}
