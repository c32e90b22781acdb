//! Refusing a body the client is still sending. Closing with unread bytes makes the kernel reset
//! the connection, and a client still writing (browsers, Node's fetch) reports the reset instead
//! of the answer. So, as nginx's lingering close does, the answer goes out at once and the rest
//! of the body is read and thrown away behind it, up to [`LINGER_BYTES`], for [`LINGER_TIME`] at
//! most and while bytes keep coming ([`LINGER_PAUSE`]); then the connection closes.

use axum::body::Body;
use http_body_util::BodyExt;
use std::time::Duration;

/// At most this many more bytes are read after the refusal.
pub const LINGER_BYTES: u64 = 64 * 1024 * 1024;

/// For at most this long.
pub const LINGER_TIME: Duration = Duration::from_secs(30);

/// A client that sends nothing for this long is not sending the rest (nginx's
/// `lingering_timeout`).
pub const LINGER_PAUSE: Duration = Duration::from_secs(5);

/// Discards the rest of `body` in the background, so the answer can go out now.
pub fn discard_later(body: Body) {
    tokio::spawn(discard(body, LINGER_BYTES, LINGER_TIME));
}

/// Reads and drops the rest of `body`, within `max_bytes` and `max_time`, while frames keep
/// coming at least every [`LINGER_PAUSE`].
pub async fn discard(body: Body, max_bytes: u64, max_time: Duration) {
    let mut body = body;
    let mut left = max_bytes;
    let drain = async {
        while let Ok(Some(Ok(frame))) = tokio::time::timeout(LINGER_PAUSE, body.frame()).await {
            if let Some(data) = frame.data_ref() {
                let length = u64::try_from(data.len()).unwrap_or(u64::MAX);
                if length >= left {
                    return;
                }
                left -= length;
            }
        }
    };
    let _ = tokio::time::timeout(max_time, drain).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::{Bytes, HttpBody};
    use hyper::body::Frame;
    use std::convert::Infallible;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// A body of `left` chunks of 1 KiB that counts the chunks read.
    struct Chunks {
        left: usize,
        read: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    }

    impl HttpBody for Chunks {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            if self.left == 0 {
                return Poll::Ready(None);
            }
            self.left -= 1;
            self.read.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Poll::Ready(Some(Ok(Frame::data(Bytes::from(vec![0_u8; 1024])))))
        }
    }

    async fn chunks_read(chunks: usize, max_bytes: u64) -> usize {
        let read = std::sync::Arc::default();
        let body = Body::new(Chunks {
            left: chunks,
            read: std::sync::Arc::clone(&read),
        });
        discard(body, max_bytes, LINGER_TIME).await;
        read.load(std::sync::atomic::Ordering::Relaxed)
    }

    #[tokio::test]
    async fn the_rest_is_read_within_the_byte_budget() {
        assert_eq!(chunks_read(5, LINGER_BYTES).await, 5);
        assert_eq!(chunks_read(100, 10 * 1024).await, 10);
    }

    #[tokio::test]
    async fn a_stalled_body_is_given_up_after_the_time_budget() {
        let started = std::time::Instant::now();
        discard(Body::new(Pending), LINGER_BYTES, Duration::from_millis(50)).await;
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    /// A body whose next frame never comes.
    struct Pending;

    impl HttpBody for Pending {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            Poll::Pending
        }
    }
}
