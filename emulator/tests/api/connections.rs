//! The accept loop over real sockets: the header deadline, the idle timeout, the body pace, the
//! connection cap (connections over it wait and are never reset), and a refused body the client
//! sees refused.

use crate::wire::TABLE_URL;
use geocache_emulator::db::DbLocation;
use geocache_emulator::http::pace::BodyPace;
use geocache_emulator::http::server::ConnectionLimits;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The emulator on a free loopback port within `limits`, stopped when the test's runtime ends.
async fn serve(limits: ConnectionLimits, state: AppState) -> (SocketAddr, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let key = state.keys.anon_key().to_owned();
    tokio::spawn(geocache_emulator::run_with_limits(
        listener,
        state,
        limits,
        std::future::pending(),
    ));
    (address, key)
}

fn state() -> AppState {
    AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET).unwrap()
}

fn limits(header_read: u64, idle: u64, max_connections: usize) -> ConnectionLimits {
    ConnectionLimits {
        header_read_timeout: Duration::from_secs(header_read),
        idle_timeout: Duration::from_secs(idle),
        max_connections,
        ..ConnectionLimits::default()
    }
}

fn get(key: &str) -> String {
    format!("GET {TABLE_URL} HTTP/1.1\r\nHost: emulator\r\napikey: {key}\r\n\r\n")
}

/// Reads one response (head and `Content-Length` body); None if the connection ends first.
async fn read_response(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut bytes = Vec::new();
    let mut chunk = [0_u8; 8192];
    loop {
        if let Some(end) = bytes.windows(4).position(|window| window == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
            let length: usize = head
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse().unwrap())
                })
                .unwrap_or(0);
            if bytes.len() >= end + 4 + length {
                return Some((head, bytes[end + 4..end + 4 + length].to_vec()));
            }
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(read) => bytes.extend_from_slice(&chunk[..read]),
        }
    }
}

/// Waits for the server to close `stream`; the time it took.
async fn closed_after(stream: &mut TcpStream, limit: Duration) -> Duration {
    let started = Instant::now();
    let mut chunk = [0_u8; 1024];
    let closed = tokio::time::timeout(limit, async {
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(
        closed.is_ok(),
        "the connection is still open after {limit:?}"
    );
    started.elapsed()
}

#[tokio::test]
async fn a_connection_that_trickles_its_headers_is_closed() {
    let (address, key) = serve(limits(1, 60, 8), state()).await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    let request = get(&key);
    let trickle = async {
        for byte in request.as_bytes() {
            if stream.write_all(&[*byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    // Sending it all would take far longer than the deadline.
    let started = Instant::now();
    trickle.await;
    let mut stream = stream;
    let elapsed = started.elapsed() + closed_after(&mut stream, Duration::from_secs(5)).await;
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
}

#[tokio::test]
async fn a_silent_connection_is_closed_by_the_header_deadline() {
    let (address, _) = serve(limits(1, 60, 8), state()).await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    let elapsed = closed_after(&mut stream, Duration::from_secs(5)).await;
    assert!(elapsed >= Duration::from_millis(900), "{elapsed:?}");
}

#[tokio::test]
async fn a_stalled_upload_is_dropped_after_the_idle_timeout() {
    let (address, key) = serve(limits(30, 1, 8), state()).await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    let head = format!(
        "POST {TABLE_URL} HTTP/1.1\r\nHost: emulator\r\napikey: {key}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"name\":"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    // Asked to close after 1 s of silence, which a request in flight may finish, then dropped.
    let elapsed = closed_after(&mut stream, Duration::from_secs(5)).await;
    assert!(elapsed >= Duration::from_millis(1900), "{elapsed:?}");
}

#[tokio::test]
async fn a_connection_silent_past_the_idle_timeout_is_closed() {
    let (address, key) = serve(limits(30, 1, 8), state()).await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(get(&key).as_bytes()).await.unwrap();
    let (head, _) = read_response(&mut stream).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    let elapsed = closed_after(&mut stream, Duration::from_secs(5)).await;
    assert!(elapsed >= Duration::from_millis(900), "{elapsed:?}");
}

#[tokio::test]
async fn connections_over_the_cap_wait_and_are_never_reset() {
    let (address, key) = serve(limits(30, 60, 1), state()).await;
    let mut first = TcpStream::connect(address).await.unwrap();
    first.write_all(get(&key).as_bytes()).await.unwrap();
    assert!(read_response(&mut first).await.is_some());

    // The second connection waits in the listen backlog: connected, but not answered.
    let mut second = TcpStream::connect(address).await.unwrap();
    second.write_all(get(&key).as_bytes()).await.unwrap();
    let early = tokio::time::timeout(Duration::from_millis(700), read_response(&mut second)).await;
    assert!(early.is_err(), "answered over the cap: {early:?}");

    // Once the first closes, the second is served on the same connection.
    drop(first);
    let (head, _) = tokio::time::timeout(Duration::from_secs(5), read_response(&mut second))
        .await
        .expect("served once a slot frees")
        .expect("not reset");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
}

#[tokio::test]
async fn an_oversized_body_is_refused_and_the_client_sees_the_413() {
    let (address, key) = serve(
        ConnectionLimits::default(),
        state().with_max_body_bytes(1024 * 1024),
    )
    .await;
    for chunked in [false, true] {
        let stream = TcpStream::connect(address).await.unwrap();
        let (mut reader, mut writer) = stream.into_split();
        let total = 32 * 1024 * 1024;
        let framing = if chunked {
            "Transfer-Encoding: chunked".to_owned()
        } else {
            format!("Content-Length: {total}")
        };
        let head = format!(
            "POST {TABLE_URL} HTTP/1.1\r\nHost: emulator\r\napikey: {key}\r\n\
             Content-Type: application/json\r\n{framing}\r\n\r\n"
        );
        // The client writes the whole body as a browser would, whatever comes back meanwhile.
        let sender = tokio::spawn(async move {
            writer.write_all(head.as_bytes()).await?;
            let block = vec![b' '; 64 * 1024];
            for _ in 0..total / block.len() {
                if chunked {
                    writer
                        .write_all(format!("{:x}\r\n", block.len()).as_bytes())
                        .await?;
                    writer.write_all(&block).await?;
                    writer.write_all(b"\r\n").await?;
                } else {
                    writer.write_all(&block).await?;
                }
            }
            if chunked {
                writer.write_all(b"0\r\n\r\n").await?;
            }
            writer.flush().await
        });
        let mut response = Vec::new();
        reader.read_to_end(&mut response).await.expect("no reset");
        sender
            .await
            .unwrap()
            .expect("the whole body was taken, no reset");
        let text = String::from_utf8_lossy(&response);
        assert!(
            text.starts_with("HTTP/1.1 413 Payload Too Large\r\n"),
            "chunked {chunked}: {text}"
        );
        assert!(
            text.ends_with(r#"{"message":"Request size limit exceeded"}"#),
            "{text}"
        );
    }
}

#[tokio::test]
async fn a_kept_alive_connection_waits_for_its_next_request_only_until_the_header_deadline() {
    let (address, key) = serve(limits(1, 60, 8), state()).await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(get(&key).as_bytes()).await.unwrap();
    assert!(read_response(&mut stream).await.is_some());
    let elapsed = closed_after(&mut stream, Duration::from_secs(5)).await;
    assert!(elapsed >= Duration::from_millis(900), "{elapsed:?}");
}

/// Six POSTs that each send a body byte now and then would hold all six connections, and
/// `/health` would wait behind them for ever; a body must keep its pace, so they lose them.
#[tokio::test]
async fn trickling_bodies_lose_their_connections_and_health_still_answers() {
    let limits = ConnectionLimits {
        body_pace: BodyPace {
            grace: Duration::from_secs(1),
            min_rate: 1024,
        },
        ..limits(30, 60, 6)
    };
    let (address, key) = serve(limits, state()).await;
    // Far longer than the pace allows: a trickle still held after this has not been cut.
    let patience = Duration::from_secs(20);
    let mut tricklers = Vec::new();
    for _ in 0..6 {
        let stream = TcpStream::connect(address).await.unwrap();
        let (mut reader, mut writer) = stream.into_split();
        let head = format!(
            "POST {TABLE_URL} HTTP/1.1\r\nHost: emulator\r\napikey: {key}\r\n\
             Content-Type: application/json\r\nContent-Length: 10000\r\n\r\n"
        );
        tricklers.push(tokio::spawn(async move {
            writer.write_all(head.as_bytes()).await.unwrap();
            let trickle = tokio::spawn(async move {
                while writer.write_all(b" ").await.is_ok() {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            });
            let mut answer = Vec::new();
            let ended = tokio::time::timeout(patience, async {
                let mut chunk = [0_u8; 1024];
                while let Ok(read @ 1..) = reader.read(&mut chunk).await {
                    answer.extend_from_slice(&chunk[..read]);
                }
            })
            .await;
            trickle.abort();
            (ended.is_ok(), String::from_utf8_lossy(&answer).into_owned())
        }));
    }
    // A seventh client: answered once a trickle has lost its connection.
    let mut health = TcpStream::connect(address).await.unwrap();
    health
        .write_all(b"GET /health HTTP/1.1\r\nHost: emulator\r\n\r\n")
        .await
        .unwrap();
    let (head, _) = tokio::time::timeout(patience, read_response(&mut health))
        .await
        .expect("/health answered while bodies trickled")
        .expect("not reset");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    for trickler in tricklers {
        let (ended, answer) = trickler.await.unwrap();
        assert!(ended, "a trickling body kept its connection: {answer}");
        assert!(
            answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
            "{answer}"
        );
    }
}
