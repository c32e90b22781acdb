//! A streaming `multipart/form-data` reader (RFC 7578): it is fed the body chunk by chunk and
//! hands back each part's headers and bytes as they arrive, holding back only enough bytes to
//! recognise a boundary split across chunks. storage-js sends a `File` or `Blob` this way
//! (fields `cacheControl` and `metadata`, then the file), and the file must reach the disk
//! without the whole body in memory.

/// Part headers larger than this are refused (a form field's headers are a few hundred bytes).
const MAX_HEADER_BYTES: usize = 16 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A part begins; its `Content-Disposition` name and filename and its `Content-Type`.
    Part {
        name: String,
        filename: Option<String>,
        content_type: Option<String>,
    },
    /// Bytes of the current part.
    Data(Vec<u8>),
    /// The current part ended.
    PartEnd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the first boundary (a preamble is skipped).
    Preamble,
    /// Just after a boundary: `--` ends the body, CRLF starts a part.
    AfterBoundary,
    Headers,
    Body,
    Done,
}

#[derive(Debug)]
pub struct MultipartReader {
    /// `CRLF--boundary`.
    delimiter: Vec<u8>,
    buffer: Vec<u8>,
    state: State,
}

/// The boundary of a `multipart/form-data` content type, if it is one.
pub fn boundary(content_type: &str) -> Option<String> {
    let mut parts = content_type.split(';');
    let essence = parts.next()?.trim();
    if !essence.eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    parts.find_map(|parameter| {
        let (key, value) = parameter.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"').to_owned())
            .filter(|value| !value.is_empty() && value.len() <= 70)
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

impl MultipartReader {
    pub fn new(boundary: &str) -> MultipartReader {
        MultipartReader {
            delimiter: format!("\r\n--{boundary}").into_bytes(),
            // The first boundary has no CRLF before it; this one stands in for it.
            buffer: b"\r\n".to_vec(),
            state: State::Preamble,
        }
    }

    /// Feeds the next chunk of the body; returns what it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<Event>, String> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        loop {
            match self.state {
                State::Preamble => match find(&self.buffer, &self.delimiter) {
                    Some(at) => {
                        self.buffer.drain(..at + self.delimiter.len());
                        self.state = State::AfterBoundary;
                    }
                    None => {
                        if self.buffer.len() > MAX_HEADER_BYTES {
                            return Err("no multipart boundary found".to_owned());
                        }
                        return Ok(events);
                    }
                },
                State::AfterBoundary => {
                    if self.buffer.len() < 2 {
                        return Ok(events);
                    }
                    if self.buffer.starts_with(b"--") {
                        self.state = State::Done;
                        self.buffer.clear();
                    } else if self.buffer.starts_with(b"\r\n") {
                        self.buffer.drain(..2);
                        self.state = State::Headers;
                    } else {
                        return Err("malformed multipart boundary".to_owned());
                    }
                }
                State::Headers => match find(&self.buffer, b"\r\n\r\n") {
                    Some(at) => {
                        let head: Vec<u8> = self.buffer.drain(..at + 4).collect();
                        events.push(parse_headers(&head[..at])?);
                        self.state = State::Body;
                    }
                    None => {
                        if self.buffer.len() > MAX_HEADER_BYTES {
                            return Err("multipart part headers are too large".to_owned());
                        }
                        return Ok(events);
                    }
                },
                State::Body => match find(&self.buffer, &self.delimiter) {
                    Some(at) => {
                        let data: Vec<u8> = self.buffer.drain(..at).collect();
                        if !data.is_empty() {
                            events.push(Event::Data(data));
                        }
                        self.buffer.drain(..self.delimiter.len());
                        events.push(Event::PartEnd);
                        self.state = State::AfterBoundary;
                    }
                    None => {
                        // The tail may be the start of a delimiter: keep it for the next chunk.
                        let keep = self.delimiter.len() - 1;
                        if self.buffer.len() > keep {
                            let data: Vec<u8> =
                                self.buffer.drain(..self.buffer.len() - keep).collect();
                            events.push(Event::Data(data));
                        }
                        return Ok(events);
                    }
                },
                State::Done => {
                    // An epilogue is ignored.
                    self.buffer.clear();
                    return Ok(events);
                }
            }
        }
    }

    /// Checks that the body ended with the closing boundary.
    pub fn finish(&self) -> Result<(), String> {
        if self.state == State::Done {
            Ok(())
        } else {
            Err("the multipart body ended early".to_owned())
        }
    }
}

fn parse_headers(head: &[u8]) -> Result<Event, String> {
    let text = std::str::from_utf8(head).map_err(|_| "multipart headers are not UTF-8")?;
    let mut name = None;
    let mut filename = None;
    let mut content_type = None;
    for line in text.split("\r\n") {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if key.eq_ignore_ascii_case("content-disposition") {
            for parameter in value.split(';').skip(1) {
                if let Some((key, value)) = parameter.split_once('=') {
                    let value = value.trim().trim_matches('"').to_owned();
                    match key.trim().to_ascii_lowercase().as_str() {
                        "name" => name = Some(value),
                        "filename" => filename = Some(value),
                        _ => {}
                    }
                }
            }
        } else if key.eq_ignore_ascii_case("content-type") {
            content_type = Some(value.trim().to_owned());
        }
    }
    Ok(Event::Part {
        name: name.ok_or("a multipart part has no name")?,
        filename,
        content_type,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n3600\r\n--XyZ\r\nContent-Disposition: form-data; name=\"\"; filename=\"blob\"\r\nContent-Type: image/png\r\n\r\nab\r\n--Xc\r\n--XyZ--\r\n";

    /// The events of `BODY` fed in chunks of `size`, data runs joined.
    fn events_in_chunks(size: usize) -> Vec<Event> {
        let mut reader = MultipartReader::new("XyZ");
        let mut events: Vec<Event> = Vec::new();
        for chunk in BODY.as_bytes().chunks(size) {
            for event in reader.feed(chunk).unwrap() {
                match (events.last_mut(), event) {
                    (Some(Event::Data(joined)), Event::Data(more)) => joined.extend(more),
                    (_, event) => events.push(event),
                }
            }
        }
        reader.finish().unwrap();
        events
    }

    #[test]
    fn parts_come_out_whatever_the_chunking() {
        let expected = vec![
            Event::Part {
                name: "cacheControl".to_owned(),
                filename: None,
                content_type: None,
            },
            Event::Data(b"3600".to_vec()),
            Event::PartEnd,
            Event::Part {
                name: String::new(),
                filename: Some("blob".to_owned()),
                content_type: Some("image/png".to_owned()),
            },
            // A near-boundary inside the data is data.
            Event::Data(b"ab\r\n--Xc".to_vec()),
            Event::PartEnd,
        ];
        for size in [1, 2, 3, 7, 16, BODY.len()] {
            assert_eq!(events_in_chunks(size), expected, "chunks of {size}");
        }
    }

    #[test]
    fn a_truncated_body_is_an_error() {
        let mut reader = MultipartReader::new("XyZ");
        reader.feed(&BODY.as_bytes()[..BODY.len() - 10]).unwrap();
        assert!(reader.finish().is_err());
    }

    #[test]
    fn the_boundary_is_read_from_the_content_type() {
        assert_eq!(
            boundary("multipart/form-data; boundary=----formdata-undici-0"),
            Some("----formdata-undici-0".to_owned())
        );
        assert_eq!(
            boundary("Multipart/Form-Data;boundary=\"q\""),
            Some("q".to_owned())
        );
        assert_eq!(boundary("text/plain; boundary=x"), None);
        assert_eq!(boundary("multipart/form-data"), None);
    }
}
