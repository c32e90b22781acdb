//! The accept loop in front of the router: each connection gets a deadline for its request
//! headers, each request body a pace it must keep ([`crate::http::pace`]), a connection is closed
//! once idle, and at most `max_connections` are served at once. Over the
//! cap the loop stops accepting, so new connections wait in the kernel's listen backlog (they are
//! never reset) until one closes. Shutdown stops accepting, closes idle connections and lets
//! exchanges in flight finish.
//!
//! Connections come from [`TappedListener`], whose [`ConnectionTap`] reaches the fault middleware
//! as `ConnectInfo`, as under `axum::serve`.

use crate::http::connection::{ConnectionTap, TappedListener, TappedStream};
use crate::http::pace::{BodyPace, PacedBody};
use axum::extract::ConnectInfo;
use axum::serve::Listener;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::io;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tower::Service;

/// Also how long a kept-alive connection may wait for its next request: longer than Node's
/// fetch keeps idle connections (4 s), so the client, not the server, closes them.
pub const DEFAULT_HEADER_READ_TIMEOUT_SECONDS: u64 = 10;
/// nginx's `client_body_timeout` and `send_timeout`.
pub const DEFAULT_IDLE_TIMEOUT_SECONDS: u64 = 60;
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// A request body's grace before it must keep up [`DEFAULT_BODY_MIN_RATE`]: a trickling client
/// loses its connection within seconds, while any real upload is far faster.
pub const DEFAULT_BODY_GRACE_SECONDS: u64 = 10;
/// Bytes a second a request body must average after its grace (Apache's `MinRate` is 500).
pub const DEFAULT_BODY_MIN_RATE: u64 = 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// From the start of a connection, or the end of the previous response, to the end of the
    /// next request's headers (hyper's deadline, which so also closes idle kept-alive
    /// connections).
    pub header_read_timeout: Duration,
    /// Without a byte read or written, a connection is asked to close (an exchange in flight
    /// may finish), and after twice this long it is dropped.
    pub idle_timeout: Duration,
    pub max_connections: usize,
    /// How fast a request body must arrive once its reader first asks for it.
    pub body_pace: BodyPace,
}

impl Default for ConnectionLimits {
    fn default() -> ConnectionLimits {
        ConnectionLimits {
            header_read_timeout: Duration::from_secs(DEFAULT_HEADER_READ_TIMEOUT_SECONDS),
            idle_timeout: Duration::from_secs(DEFAULT_IDLE_TIMEOUT_SECONDS),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            body_pace: BodyPace {
                grace: Duration::from_secs(DEFAULT_BODY_GRACE_SECONDS),
                min_rate: DEFAULT_BODY_MIN_RATE,
            },
        }
    }
}

/// Serves `router` on `listener` within `limits` until `shutdown` completes, then waits for the
/// open connections to close.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let mut listener = TappedListener::new(listener);
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let (stopping, stop) = watch::channel(false);
    let mut shutdown = pin!(shutdown);
    loop {
        // The permit comes first: without one, nothing is accepted.
        let permit = tokio::select! {
            permit = Arc::clone(&permits).acquire_owned() => permit.map_err(io::Error::other)?,
            () = shutdown.as_mut() => break,
        };
        let (stream, tap) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.as_mut() => break,
        };
        tokio::spawn(serve_connection(
            stream,
            tap,
            router.clone(),
            limits,
            stop.clone(),
            permit,
        ));
    }
    // Closing the listening socket refuses new connections at once.
    drop(listener);
    stopping.send_replace(true);
    // Every connection holds a permit until it ends.
    let all = u32::try_from(limits.max_connections).map_err(io::Error::other)?;
    let _closed = permits.acquire_many(all).await.map_err(io::Error::other)?;
    Ok(())
}

async fn serve_connection(
    stream: TappedStream,
    tap: ConnectionTap,
    router: Router,
    limits: ConnectionLimits,
    mut stop: watch::Receiver<bool>,
    _permit: OwnedSemaphorePermit,
) {
    let activity = Activity::default();
    let io = TokioIo::new(Tracked {
        inner: stream,
        activity: activity.clone(),
    });
    let pace = limits.body_pace;
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let mut request = request.map(|body| PacedBody::new(body, pace));
        request.extensions_mut().insert(ConnectInfo(tap.clone()));
        router.clone().call(request)
    });
    let mut connection = pin!(http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .serve_connection(io, service)
        // WebSockets (Realtime) take the connection over once upgraded.
        .with_upgrades());
    let mut closing = false;
    loop {
        tokio::select! {
            // Errors are the client's doing (a reset, a malformed or trickled head).
            _ = connection.as_mut() => return,
            _ = stop.wait_for(|stop| *stop), if !closing => {
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
            () = activity.idle_for(limits.idle_timeout) => {
                if closing {
                    // Still silent after being asked to close: a stalled client.
                    return;
                }
                connection.as_mut().graceful_shutdown();
                closing = true;
                activity.touch();
            }
        }
    }
}

/// When a connection last moved a byte.
#[derive(Debug, Clone)]
struct Activity {
    start: Instant,
    last_millis: Arc<AtomicU64>,
}

impl Default for Activity {
    fn default() -> Activity {
        Activity {
            start: Instant::now(),
            last_millis: Arc::default(),
        }
    }
}

impl Activity {
    fn touch(&self) {
        let millis = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_millis.store(millis, Ordering::Relaxed);
    }

    /// Completes once nothing has moved for `timeout`.
    async fn idle_for(&self, timeout: Duration) {
        loop {
            let last = self.start + Duration::from_millis(self.last_millis.load(Ordering::Relaxed));
            let deadline = last + timeout;
            if Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep_until(deadline).await;
        }
    }
}

/// A stream that records its [`Activity`].
struct Tracked {
    inner: TappedStream,
    activity: Activity,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(context, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        result
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(context, buf);
        if let Poll::Ready(Ok(written)) = result {
            if written > 0 {
                self.activity.touch();
            }
        }
        result
    }

    fn poll_flush(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(context)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(context)
    }
}
