//! The plain request value every builder ends in, the response the transport hands back (or why
//! there is none), and the one percent-encoder for URLs.

use std::fmt::Write as _;

use crate::client::request_timeout::RequestTimeout;

/// The HTTP methods the client uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Post,
    Patch,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// A fully built request: the transport sends it as is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    /// Absolute URL including the encoded query string.
    pub url: String,
    /// Names in lower case, as supabase-js hands them to `fetch`.
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

impl HttpRequest {
    /// The value of a header, matching the name case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// What came back from the server: the status, the headers `fetch` exposes, and the body text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    /// Names as the transport reports them (lower case from `fetch`); only CORS-exposed ones.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    /// A response without headers.
    pub fn new(status: u16, body: impl Into<String>) -> Self {
        HttpResponse {
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// Adds a response header.
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// The value of a header, matching the name case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// A body's bytes as text, exactly as `Response.text()` decodes them: UTF-8, a leading byte order
/// mark dropped, and each invalid sequence replaced by U+FFFD (the WHATWG decoder's maximal-subpart
/// rule, which `from_utf8_lossy` follows too). Valid text is taken over without a copy, which
/// matters for a 20 MB entry list.
pub fn decode_body(bytes: Vec<u8>) -> String {
    let mut text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    };
    if text.starts_with('\u{FEFF}') {
        text.drain(..'\u{FEFF}'.len_utf8());
    }
    text
}

/// `fetch` itself failed (connection refused or dropped, DNS, CORS): no status at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkFailure {
    pub message: String,
}

/// Why no (whole) response arrived: what the transport hands back instead of an [`HttpResponse`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoResponse {
    /// `fetch` rejected, or the body broke off.
    Network(NetworkFailure),
    /// The request's deadline passed (headers or body still missing) and it was aborted.
    TimedOut(RequestTimeout),
}

impl From<NetworkFailure> for NoResponse {
    fn from(failure: NetworkFailure) -> Self {
        NoResponse::Network(failure)
    }
}

/// Where an encoded string goes in a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Component {
    /// A query key or value, encoded as `URLSearchParams` serialises it
    /// (application/x-www-form-urlencoded): `*-._` and alphanumerics literal, space as `+`.
    Query,
    /// One path segment: RFC 3986 unreserved characters literal, everything else (`/` included)
    /// percent-encoded, so an id can never add or climb path segments.
    PathSegment,
}

/// Percent-encodes `value` (as UTF-8, upper-case hex) for the given URL component.
pub fn percent_encode(value: &str, component: Component) -> String {
    match component {
        // The WHATWG form serialiser, the one URLSearchParams uses.
        Component::Query => form_urlencoded::byte_serialize(value.as_bytes()).collect(),
        Component::PathSegment => {
            let mut encoded = String::with_capacity(value.len());
            for byte in value.bytes() {
                if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
                    encoded.push(char::from(byte));
                } else {
                    // Writing to a String cannot fail.
                    let _ = write!(encoded, "%{byte:02X}");
                }
            }
            encoded
        }
    }
}

/// `key=value&key=value`, both sides encoded with [`Component::Query`].
pub fn encode_query(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(key, value)| {
            format!(
                "{}={}",
                percent_encode(key, Component::Query),
                percent_encode(value, Component::Query)
            )
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_encoding_follows_url_search_params() {
        let cases = [
            ("*", "*"),
            ("created_at.desc", "created_at.desc"),
            ("a-b_c", "a-b_c"),
            ("a,b", "a%2Cb"),
            ("\"a\"", "%22a%22"),
            ("a b", "a+b"),
            ("~", "%7E"),
            ("a+b", "a%2Bb"),
            ("a&b=c", "a%26b%3Dc"),
            ("%", "%25"),
            ("/?#", "%2F%3F%23"),
            ("()!'", "%28%29%21%27"),
            ("é", "%C3%A9"),
            ("😀", "%F0%9F%98%80"),
            ("", ""),
        ];
        for (raw, encoded) in cases {
            assert_eq!(percent_encode(raw, Component::Query), encoded, "{raw:?}");
        }
    }

    #[test]
    fn path_segment_encoding_keeps_only_unreserved_characters() {
        let cases = [
            ("geocache_logs", "geocache_logs"),
            ("a-b.c~d", "a-b.c~d"),
            ("a b", "a%20b"),
            ("../x", "..%2Fx"),
            ("a/b", "a%2Fb"),
            ("a?b#c", "a%3Fb%23c"),
            ("*", "%2A"),
            ("+", "%2B"),
            ("é", "%C3%A9"),
        ];
        for (raw, encoded) in cases {
            assert_eq!(
                percent_encode(raw, Component::PathSegment),
                encoded,
                "{raw:?}"
            );
        }
    }

    #[test]
    fn query_pairs_are_joined_with_ampersands() {
        let pairs = [
            ("select", "*"),
            ("order", "a.desc,b.asc"),
            ("name eq", "x&y"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
        assert_eq!(
            encode_query(&pairs),
            "select=*&order=a.desc%2Cb.asc&name+eq=x%26y"
        );
        assert_eq!(encode_query(&[]), "");
    }

    #[test]
    fn header_lookup_ignores_case() {
        let request = HttpRequest {
            method: Method::Get,
            url: "http://h/".into(),
            headers: vec![("accept-profile".into(), "public".into())],
            body: None,
        };
        assert_eq!(request.header("Accept-Profile"), Some("public"));
        assert_eq!(request.header("content-profile"), None);
    }

    #[test]
    fn methods_have_their_wire_names() {
        let names = [
            Method::Get,
            Method::Head,
            Method::Post,
            Method::Patch,
            Method::Delete,
        ]
        .map(Method::as_str);
        assert_eq!(names, ["GET", "HEAD", "POST", "PATCH", "DELETE"]);
    }

    #[test]
    fn response_headers_are_found_by_any_case() {
        let response =
            HttpResponse::new(200, "").with_header("x-supabase-api-version", "2024-01-01");
        assert_eq!(
            response.header("X-Supabase-Api-Version"),
            Some("2024-01-01")
        );
        assert_eq!(response.header("content-type"), None);
    }

    #[test]
    fn bodies_decode_as_response_text_does() {
        assert_eq!(decode_body(b"[]".to_vec()), "[]");
        assert_eq!(decode_body("שלום 😀".as_bytes().to_vec()), "שלום 😀");
        // One U+FFFD per maximal invalid subpart, as TextDecoder gives.
        assert_eq!(decode_body(b"a\xffb".to_vec()), "a\u{FFFD}b");
        assert_eq!(decode_body(b"x\xf0\x9f\x98".to_vec()), "x\u{FFFD}");
        assert_eq!(decode_body(b"\xe2\x28\xa1".to_vec()), "\u{FFFD}(\u{FFFD}");
        // Only one leading byte order mark is dropped; one elsewhere is text.
        assert_eq!(decode_body(b"\xef\xbb\xbf[]".to_vec()), "[]");
        assert_eq!(
            decode_body(b"\xef\xbb\xbf\xef\xbb\xbf[]".to_vec()),
            "\u{FEFF}[]"
        );
        assert_eq!(decode_body(b"[\xef\xbb\xbf]".to_vec()), "[\u{FEFF}]");
        assert_eq!(decode_body(b"\xef\xbb\xbf\xff".to_vec()), "\u{FFFD}");
        assert_eq!(decode_body(Vec::new()), "");
    }
}
