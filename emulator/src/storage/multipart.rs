//! `multipart/form-data` bodies (RFC 7578), read with multer part by part as the bytes arrive.
//! storage-js sends a `File` or `Blob` this way (fields `cacheControl` and `metadata`, then the
//! file), and the file must reach the disk without the whole body in memory.
//!
//! multer buffers whatever it has not handed out yet: the preamble, boundaries and part headers
//! until they are complete. The body is therefore fed to it one chunk per poll, and a form whose
//! bytes outside the parts' data pass [`MAX_FORM_OVERHEAD`] is refused, so a body that never
//! finishes a part's headers cannot fill the memory.

use crate::storage::error::StorageError;
use axum::body::HttpBody;
use axum::body::{Body, Bytes};
use futures_util::Stream;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

/// The preamble, boundaries and part headers of one form together may take this many bytes (a
/// storage-js form's take a few hundred).
pub const MAX_FORM_OVERHEAD: usize = 64 * 1024;

/// RFC 2046: a boundary is 1 to 70 characters.
const MAX_BOUNDARY_CHARS: usize = 70;

/// The boundary of a `multipart/form-data` content type; `None` if the body is not a form. A
/// form without a usable boundary cannot be read and is refused.
pub fn boundary(content_type: &str) -> Result<Option<String>, StorageError> {
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    if !essence.eq_ignore_ascii_case("multipart/form-data") {
        return Ok(None);
    }
    match multer::parse_boundary(content_type) {
        Ok(boundary) if !boundary.is_empty() && boundary.len() <= MAX_BOUNDARY_CHARS => {
            Ok(Some(boundary))
        }
        _ => Err(malformed("the multipart form has no valid boundary")),
    }
}

fn malformed(problem: &str) -> StorageError {
    StorageError::invalid_request(problem).closing()
}

/// The request body refused mid-form: too many bytes outside the parts' data.
#[derive(Debug)]
struct TooMuchOverhead;

impl std::fmt::Display for TooMuchOverhead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "more than {MAX_FORM_OVERHEAD} bytes outside the parts' data"
        )
    }
}

impl std::error::Error for TooMuchOverhead {}

/// The body as multer's byte stream, one chunk per poll, counting the bytes multer holds.
struct Chunks<'a> {
    body: &'a mut Body,
    /// Bytes fed to multer and not yet handed out as part data.
    held: Arc<AtomicUsize>,
    /// A chunk was just given: the next poll yields so multer hands it out before taking more.
    just_fed: bool,
}

impl Stream for Chunks<'_> {
    type Item = Result<Bytes, Box<dyn std::error::Error + Send + Sync>>;

    fn poll_next(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if std::mem::take(&mut self.just_fed) {
            context.waker().wake_by_ref();
            return Poll::Pending;
        }
        if self.held.load(Ordering::Relaxed) > MAX_FORM_OVERHEAD {
            return Poll::Ready(Some(Err(Box::new(TooMuchOverhead))));
        }
        loop {
            let frame = match Pin::new(&mut *self.body).poll_frame(context) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Ready(Some(Err(error))) => return Poll::Ready(Some(Err(Box::new(error)))),
                Poll::Ready(Some(Ok(frame))) => frame,
            };
            // Trailers carry nothing of the form.
            if let Ok(data) = frame.into_data() {
                self.held.fetch_add(data.len(), Ordering::Relaxed);
                self.just_fed = true;
                return Poll::Ready(Some(Ok(data)));
            }
        }
    }
}

/// Storage's answer to what multer found wrong.
fn refusal(error: multer::Error) -> StorageError {
    match error {
        multer::Error::StreamReadFailed(cause) if cause.is::<TooMuchOverhead>() => {
            malformed("multipart part headers are too large")
        }
        multer::Error::StreamReadFailed(_) => StorageError::unreadable_body(),
        multer::Error::IncompleteStream
        | multer::Error::IncompleteFieldData { .. }
        | multer::Error::IncompleteHeaders => malformed("the multipart body ended early"),
        multer::Error::ReadHeaderFailed(_)
        | multer::Error::DecodeHeaderName { .. }
        | multer::Error::DecodeHeaderValue { .. } => malformed("malformed multipart part headers"),
        other => malformed(&format!("malformed multipart body: {other}")),
    }
}

/// A form being read.
pub struct FormReader<'a> {
    multipart: multer::Multipart<'a>,
    held: Arc<AtomicUsize>,
}

/// One part: its `Content-Disposition` name and filename, its `Content-Type` as sent, and its
/// bytes through [`Part::chunk`].
pub struct Part<'a> {
    pub name: String,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    field: multer::Field<'a>,
    held: Arc<AtomicUsize>,
}

impl<'a> FormReader<'a> {
    pub fn new(body: &'a mut Body, boundary: String) -> FormReader<'a> {
        let held = Arc::new(AtomicUsize::new(0));
        let chunks = Chunks {
            body,
            held: Arc::clone(&held),
            just_fed: false,
        };
        FormReader {
            multipart: multer::Multipart::new(chunks, boundary),
            held,
        }
    }

    /// The next part, or `None` after the closing boundary. A part must be read to its end
    /// before the next is asked for (its unread rest would count as overhead).
    pub async fn next_part(&mut self) -> Result<Option<Part<'a>>, StorageError> {
        let Some(field) = self.multipart.next_field().await.map_err(refusal)? else {
            return Ok(None);
        };
        let name = field
            .name()
            .ok_or_else(|| malformed("a multipart part has no name"))?
            .to_owned();
        let content_type = match field.headers().get(axum::http::header::CONTENT_TYPE) {
            None => None,
            Some(value) => Some(
                value
                    .to_str()
                    .map_err(|_| malformed("malformed multipart part headers"))?
                    .trim()
                    .to_owned(),
            ),
        };
        Ok(Some(Part {
            name,
            filename: field.file_name().map(str::to_owned),
            content_type,
            field,
            held: Arc::clone(&self.held),
        }))
    }
}

impl Part<'_> {
    /// The part's next bytes, or `None` at its end.
    pub async fn chunk(&mut self) -> Result<Option<Bytes>, StorageError> {
        let chunk = self.field.chunk().await.map_err(refusal)?;
        if let Some(bytes) = &chunk {
            // Handed out: no longer held. (The boundary multer drops stays counted.)
            let _ = self
                .held
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                    Some(held.saturating_sub(bytes.len()))
                });
        }
        Ok(chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boundary_is_read_from_the_content_type() {
        assert_eq!(
            boundary("multipart/form-data; boundary=----formdata-undici-0").unwrap(),
            Some("----formdata-undici-0".to_owned())
        );
        assert_eq!(
            boundary("Multipart/Form-Data;boundary=\"q\"").unwrap(),
            Some("q".to_owned())
        );
        assert_eq!(boundary("text/plain; boundary=x").unwrap(), None);
        assert_eq!(boundary("image/png").unwrap(), None);
    }

    #[test]
    fn a_form_without_a_usable_boundary_is_refused() {
        for content_type in [
            "multipart/form-data",
            "multipart/form-data; charset=utf-8",
            "multipart/form-data; boundary=\"\"",
            &format!("multipart/form-data; boundary={}", "b".repeat(71)),
        ] {
            assert!(boundary(content_type).is_err(), "{content_type}");
        }
    }
}
