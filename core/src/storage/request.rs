//! The plain request a storage call ends in. Storage sends PUT and file bodies, which the table
//! client never does, hence its own request type beside [`crate::HttpRequest`].

/// The HTTP methods storage-js uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageMethod {
    Get,
    Head,
    Post,
    Put,
    Delete,
}

impl StorageMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            StorageMethod::Get => "GET",
            StorageMethod::Head => "HEAD",
            StorageMethod::Post => "POST",
            StorageMethod::Put => "PUT",
            StorageMethod::Delete => "DELETE",
        }
    }
}

/// How the caller's file goes out; the bytes stay with the caller (a Blob, a FormData, a string,
/// an ArrayBuffer …) and only the wasm layer touches them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileBody {
    /// A new multipart form: these text fields in order, then the file under the name `""`.
    NewForm { fields: Vec<(String, String)> },
    /// The caller's own form, with each of these fields appended unless it already has one.
    CallerForm { fields: Vec<(String, String)> },
    /// The file as it is; the request's headers carry its type, cache control and metadata.
    Raw,
}

/// What a request carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageBody {
    None,
    /// JSON text (the request has `content-type: application/json`).
    Json(String),
    File(FileBody),
}

/// A fully built storage request: the wasm layer sends it as is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageRequest {
    pub method: StorageMethod,
    /// Absolute URL. Object paths are not percent-encoded (as storage-js leaves them): `fetch`
    /// encodes what the URL syntax needs.
    pub url: String,
    /// Names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: StorageBody,
}

impl StorageRequest {
    /// The value of a header, matching the name case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// Sets a header, replacing one of the same name whatever its case (storage-js's
    /// `setHeader`).
    pub fn set_header(&mut self, name: &str, value: &str) {
        self.headers
            .retain(|(key, _)| !key.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.to_owned()));
    }

    /// The JSON body, if it is one.
    pub fn json(&self) -> Option<serde_json::Value> {
        match &self.body {
            StorageBody::Json(text) => serde_json::from_str(text).ok(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_header_replaces_a_name_of_any_case() {
        let mut request = StorageRequest {
            method: StorageMethod::Put,
            url: "http://h/".into(),
            headers: vec![
                ("Content-Type".into(), "a".into()),
                ("x".into(), "1".into()),
            ],
            body: StorageBody::None,
        };
        request.set_header("content-type", "b");
        assert_eq!(request.header("CONTENT-TYPE"), Some("b"));
        assert_eq!(request.headers.len(), 2);
        assert_eq!(StorageMethod::Put.as_str(), "PUT");
        assert_eq!(request.json(), None);
    }
}
