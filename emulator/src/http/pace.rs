//! How fast a request body must arrive. Without a pace, a client that sends one byte now and then
//! keeps its connection busy forever (each byte resets the idle timeout), and a handful of them
//! hold every connection the server has. So, as Apache's `mod_reqtimeout` does, a body gets a
//! grace period and then must keep up a minimum average rate: from the first time its reader asks
//! for it, it may take `grace + received / min_rate`, and once it is later than that, reading it
//! fails with [`BodyTooSlow`] (the service answers, and the connection closes).
//!
//! Time spent by the reader between reads counts too, so the rate is set far below any real
//! link's (an upload streaming to disk reads again within microseconds).

use axum::body::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::error::Error;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// The body's pace: `grace`, then `min_rate` bytes a second on average.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyPace {
    pub grace: Duration,
    pub min_rate: u64,
}

/// Reading a body that fell behind its pace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyTooSlow;

impl std::fmt::Display for BodyTooSlow {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("the request body arrived too slowly")
    }
}

impl Error for BodyTooSlow {}

/// Whether `error`, or anything that caused it, is [`BodyTooSlow`].
pub fn is_too_slow(error: &(dyn Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.is::<BodyTooSlow>() {
            return true;
        }
        cause = error.source();
    }
    false
}

/// `inner` read at `pace`.
pub struct PacedBody<B> {
    inner: B,
    pace: BodyPace,
    /// When the reader first asked for the body.
    started: Option<Instant>,
    received: u64,
    /// Wakes the reader at the deadline while the client sends nothing.
    timer: Option<Pin<Box<Sleep>>>,
    expired: bool,
}

impl<B> PacedBody<B> {
    pub fn new(inner: B, pace: BodyPace) -> PacedBody<B> {
        PacedBody {
            inner,
            pace,
            started: None,
            received: 0,
            timer: None,
            expired: false,
        }
    }

    /// When the body must have been read by, given what has arrived.
    fn deadline(&self, started: Instant) -> Instant {
        let earned =
            Duration::from_secs_f64(self.received as f64 / self.pace.min_rate.max(1) as f64);
        started + self.pace.grace + earned
    }
}

impl<B> Body for PacedBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn Error + Send + Sync>>,
{
    type Data = Bytes;
    type Error = Box<dyn Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if self.expired {
            return Poll::Ready(Some(Err(Box::new(BodyTooSlow))));
        }
        let now = Instant::now();
        let started = *self.started.get_or_insert(now);
        match Pin::new(&mut self.inner).poll_frame(context) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    self.received += data.len() as u64;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(error))) => Poll::Ready(Some(Err(error.into()))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => {
                let deadline = self.deadline(started);
                let timer = self
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                if timer.deadline() != deadline {
                    timer.as_mut().reset(deadline);
                }
                match timer.as_mut().poll(context) {
                    Poll::Ready(()) => {
                        self.expired = true;
                        Poll::Ready(Some(Err(Box::new(BodyTooSlow))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;
    use std::convert::Infallible;

    /// A body that yields a byte every `gap`, `count` times.
    struct Trickle {
        gap: Duration,
        left: usize,
        next: Pin<Box<Sleep>>,
    }

    impl Body for Trickle {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            context: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            if self.left == 0 {
                return Poll::Ready(None);
            }
            match self.next.as_mut().poll(context) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(()) => {
                    self.left -= 1;
                    let gap = self.gap;
                    self.next.as_mut().reset(Instant::now() + gap);
                    Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"x")))))
                }
            }
        }
    }

    fn trickle(gap: Duration, count: usize) -> Trickle {
        Trickle {
            gap,
            left: count,
            next: Box::pin(tokio::time::sleep(Duration::ZERO)),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_trickle_is_cut_once_it_falls_behind_the_pace() {
        let pace = BodyPace {
            grace: Duration::from_secs(2),
            min_rate: 10,
        };
        let started = Instant::now();
        let read = PacedBody::new(trickle(Duration::from_secs(1), 100), pace)
            .collect()
            .await;
        let error = read.expect_err("cut");
        assert!(is_too_slow(error.as_ref()));
        // A byte a second never keeps up with 10 a second: cut within the grace and what the
        // first bytes earned.
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{:?}",
            started.elapsed()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_at_the_pace_is_read_to_its_end() {
        let pace = BodyPace {
            grace: Duration::from_secs(2),
            min_rate: 10,
        };
        // 20 bytes a second for 10 s.
        let read = PacedBody::new(trickle(Duration::from_millis(50), 200), pace)
            .collect()
            .await
            .unwrap();
        assert_eq!(read.to_bytes().len(), 200);
    }
}
