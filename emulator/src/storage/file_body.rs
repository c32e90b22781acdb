//! A response body read from a file chunk by chunk, so a download never holds the whole object
//! in memory. Reads are synchronous: a 64 KiB read of a local file is as short as the page
//! cache makes it, and the emulator serves a developer, not a crowd.

use axum::body::Bytes;
use hyper::body::{Frame, SizeHint};
use std::fs::File;
use std::io::Read;
use std::pin::Pin;
use std::task::{Context, Poll};

const CHUNK_BYTES: usize = 64 * 1024;

#[derive(Debug)]
pub struct FileBody {
    file: File,
    remaining: u64,
}

impl FileBody {
    /// The first `length` bytes of `file` (its size when it was stored).
    pub fn new(file: File, length: u64) -> FileBody {
        FileBody {
            file,
            remaining: length,
        }
    }
}

impl hyper::body::Body for FileBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = self.get_mut();
        if this.remaining == 0 {
            return Poll::Ready(None);
        }
        let want = usize::try_from(this.remaining.min(CHUNK_BYTES as u64)).unwrap_or(CHUNK_BYTES);
        let mut buffer = vec![0u8; want];
        match this.file.read(&mut buffer) {
            Ok(0) => Poll::Ready(Some(Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a stored file is shorter than its row says",
            )))),
            Ok(read) => {
                buffer.truncate(read);
                this.remaining -= read as u64;
                Poll::Ready(Some(Ok(Frame::data(Bytes::from(buffer)))))
            }
            Err(error) => Poll::Ready(Some(Err(error))),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.remaining == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;
    use std::io::Write;

    #[tokio::test]
    async fn the_body_is_the_file_in_chunks() {
        let mut file = tempfile::tempfile().unwrap();
        let content: Vec<u8> = (0..200_000u32).map(|n| (n % 251) as u8).collect();
        file.write_all(&content).unwrap();
        std::io::Seek::rewind(&mut file).unwrap();
        let body = FileBody::new(file, content.len() as u64);
        let collected = body.collect().await.unwrap().to_bytes();
        assert_eq!(collected.as_ref(), content.as_slice());
    }
}
