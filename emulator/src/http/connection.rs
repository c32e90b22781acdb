//! Dropped connections need the socket, which handlers never see: the emulator's listener wraps
//! every accepted stream, and hands the request middleware a [`ConnectionTap`] (as connect info)
//! through which it can order the stream to cut the next response short.
//!
//! HTTP/1.1 answers requests on a connection one after another, so the next bytes written after
//! a cut is ordered belong to the response of the request that ordered it.

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// Where the next response on a connection stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// Nothing of it is sent.
    BeforeResponse,
    /// Half of the status line and headers are sent.
    InHead,
    /// The status line, the headers and this many body bytes are sent.
    AfterHead { body_bytes: usize },
}

/// The per-connection handle given to the middleware (via `ConnectInfo`).
#[derive(Debug, Clone)]
pub struct ConnectionTap {
    pub remote: SocketAddr,
    order: Arc<Mutex<Option<Cut>>>,
}

impl ConnectionTap {
    fn new(remote: SocketAddr) -> ConnectionTap {
        ConnectionTap {
            remote,
            order: Arc::default(),
        }
    }

    /// Orders the connection to cut the next response it writes, then close.
    pub fn cut_next_response(&self, cut: Cut) {
        *lock(&self.order) = Some(cut);
    }
}

fn lock(order: &Mutex<Option<Cut>>) -> std::sync::MutexGuard<'_, Option<Cut>> {
    order
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Connected<IncomingStream<'_, TappedListener>> for ConnectionTap {
    fn connect_info(stream: IncomingStream<'_, TappedListener>) -> Self {
        stream.remote_addr().clone()
    }
}

/// A TCP listener whose streams can be cut by their [`ConnectionTap`].
#[derive(Debug)]
pub struct TappedListener {
    inner: TcpListener,
}

impl TappedListener {
    pub fn new(inner: TcpListener) -> TappedListener {
        TappedListener { inner }
    }
}

impl Listener for TappedListener {
    type Io = TappedStream;
    type Addr = ConnectionTap;

    async fn accept(&mut self) -> (TappedStream, ConnectionTap) {
        // axum's own accept loop for TCP retries failed accepts.
        let (stream, remote) = Listener::accept(&mut self.inner).await;
        // Responses go out in one piece; Nagle's delay would only blur latency figures.
        let _ = stream.set_nodelay(true);
        let tap = ConnectionTap::new(remote);
        let stream = TappedStream {
            inner: stream,
            order: Arc::clone(&tap.order),
            state: WriteState::Open,
        };
        (stream, tap)
    }

    fn local_addr(&self) -> io::Result<ConnectionTap> {
        self.inner.local_addr().map(ConnectionTap::new)
    }
}

#[derive(Debug)]
enum WriteState {
    Open,
    /// Writing the response being cut: `head_progress` counts the matched bytes of the
    /// `\r\n\r\n` ending the head; after it, `body_left` bytes may still pass.
    Cutting {
        head_progress: usize,
        body_left: usize,
    },
    /// This many more bytes may pass.
    Passing {
        left: usize,
    },
    /// Cut: every write fails and reads see the end of the stream.
    Closed,
}

const HEAD_END: &[u8] = b"\r\n\r\n";

#[derive(Debug)]
pub struct TappedStream {
    inner: TcpStream,
    order: Arc<Mutex<Option<Cut>>>,
    state: WriteState,
}

impl TappedStream {
    /// How many bytes of `buf` may be written now.
    fn allowance(&mut self, buf: &[u8]) -> usize {
        if let WriteState::Open = self.state {
            if let Some(cut) = lock(&self.order).take() {
                self.state = match cut {
                    Cut::BeforeResponse => WriteState::Closed,
                    Cut::InHead => WriteState::Passing {
                        left: head_length(buf) / 2,
                    },
                    Cut::AfterHead { body_bytes } => WriteState::Cutting {
                        head_progress: 0,
                        body_left: body_bytes,
                    },
                };
            }
        }
        match self.state {
            WriteState::Open => buf.len(),
            WriteState::Closed => 0,
            WriteState::Passing { left } => left.min(buf.len()),
            WriteState::Cutting {
                head_progress,
                body_left,
            } => {
                let (head_bytes, _) = scan_head(head_progress, buf);
                match head_bytes {
                    Some(head_bytes) => (head_bytes + body_left).min(buf.len()),
                    None => buf.len(),
                }
            }
        }
    }

    /// Accounts for `written` bytes of `buf`, and closes once nothing more may pass.
    fn advance(&mut self, buf: &[u8], written: usize) {
        self.state = match self.state {
            WriteState::Open => WriteState::Open,
            WriteState::Closed => WriteState::Closed,
            WriteState::Passing { left } => WriteState::Passing {
                left: left - written,
            },
            WriteState::Cutting {
                head_progress,
                body_left,
            } => match scan_head(head_progress, &buf[..written]) {
                (Some(head_bytes), _) => WriteState::Passing {
                    left: body_left - (written - head_bytes),
                },
                (None, progress) => WriteState::Cutting {
                    head_progress: progress,
                    body_left,
                },
            },
        };
    }
}

/// The length of the head at the start of `buf` (all of `buf` when it does not end there).
fn head_length(buf: &[u8]) -> usize {
    scan_head(0, buf).0.unwrap_or(buf.len())
}

/// Looks for the end of the head given `progress` bytes of `\r\n\r\n` already seen: returns how
/// many bytes of `buf` belong to the head when it ends within `buf`, else the new progress.
fn scan_head(mut progress: usize, buf: &[u8]) -> (Option<usize>, usize) {
    for (index, &byte) in buf.iter().enumerate() {
        progress = if byte == HEAD_END[progress] {
            progress + 1
        } else if byte == HEAD_END[0] {
            1
        } else {
            0
        };
        if progress == HEAD_END.len() {
            return (Some(index + 1), progress);
        }
    }
    (None, progress)
}

fn cut_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionAborted,
        "connection cut by the fault plan",
    )
}

impl AsyncRead for TappedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let WriteState::Closed = self.state {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(context, buf)
    }
}

impl AsyncWrite for TappedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if buf.is_empty() {
            return Pin::new(&mut self.inner).poll_write(context, buf);
        }
        let allowed = self.allowance(buf);
        if allowed == 0 {
            // Failing the write makes hyper drop the connection, which closes the socket.
            self.state = WriteState::Closed;
            return Poll::Ready(Err(cut_error()));
        }
        let result = Pin::new(&mut self.inner).poll_write(context, &buf[..allowed]);
        if let Poll::Ready(Ok(written)) = result {
            self.advance(buf, written);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_of_the_head_is_found_across_writes() {
        assert_eq!(scan_head(0, b"HTTP/1.1 200 OK\r\n\r\nbody"), (Some(19), 4));
        assert_eq!(scan_head(0, b"HTTP/1.1 200 OK\r\n\r"), (None, 3));
        assert_eq!(scan_head(3, b"\nbody"), (Some(1), 4));
        assert_eq!(scan_head(0, b"a\r\r\n\r\n"), (Some(6), 4));
        assert_eq!(head_length(b"no end"), 6);
    }
}
