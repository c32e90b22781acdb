//! The path a call is forwarded with: `/<name>` and whatever the caller put after it, still
//! encoded. The function server resolves it as a URL (Deno.serve handlers and most routers do),
//! so it must still name the checked function once resolved: a `.` or `..` segment in any
//! encoding (`..`, `%2e%2E`, `.%2e`, twice encoded), a backslash (`\`, `%5c`, which WHATWG URLs
//! read as a slash), an encoded slash (`%2f`) or an empty segment (`//`) could move it to another
//! function, or out of the function server's URL prefix, past this function's `verify_jwt`. Such a
//! path is refused, never rewritten.

/// Percent-decoding rounds after which a segment must be plain (deeper encodings are refused).
const MAX_DECODINGS: usize = 3;

/// Whether `rest` (the path after `/<name>`, empty or starting with `/`) is safe to forward.
pub fn is_forwardable(rest: &str) -> bool {
    let Some(segments) = rest.strip_prefix('/') else {
        return rest.is_empty();
    };
    segments.split('/').all(is_plain_segment)
}

/// A segment that is not empty, and that decodes (however many times) to no dot segment and no
/// slash or backslash.
fn is_plain_segment(segment: &str) -> bool {
    if segment.is_empty() {
        return false;
    }
    let mut text = segment.to_owned();
    for _ in 0..=MAX_DECODINGS {
        if text.contains(['/', '\\']) || text == "." || text == ".." {
            return false;
        }
        let decoded = percent_decode(&text);
        if decoded == text {
            return true;
        }
        text = decoded;
    }
    false
}

/// `%XX` escapes decoded to their bytes (read as UTF-8, lossily); anything else kept as it is.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = (bytes[index] == b'%')
            .then(|| bytes.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                index += 3;
            }
            None => {
                decoded.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_paths_are_forwarded() {
        for rest in [
            "",
            "/",
            "/x",
            "/a/b.json",
            "/a%20b",
            "/caf%C3%A9",
            "/...",
            "/.well-known",
        ] {
            // A trailing slash is an empty last segment: refused like the others.
            assert_eq!(is_forwardable(rest), rest != "/", "{rest:?}");
        }
    }

    #[test]
    fn traversal_in_any_encoding_is_refused() {
        for rest in [
            "/..",
            "/../secret",
            "/./secret",
            "/x/../../admin",
            "/%2e%2e/secret",
            "/%2E%2e/secret",
            "/.%2e/secret",
            "/%2e./secret",
            "/%2e/secret",
            "/%252e%252e/secret",
            "/%25252e%25252e/secret",
            "/..\\secret",
            "/..%5csecret",
            "/..%5Csecret",
            "/x%2f..%2fsecret",
            "/x%2F..",
            "//secret",
            "/x//y",
            "x",
        ] {
            assert!(!is_forwardable(rest), "{rest:?}");
        }
    }
}
