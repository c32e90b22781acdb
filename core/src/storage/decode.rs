//! Answers to data: each call's [`Decode`] turns the server's reply into storage-js's `data`, or
//! a [`StorageError`].

use serde_json::{Map, Value};

use super::error::StorageError;
use super::uri::encode_uri;

/// What the server answered: status, status text and body text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub status_text: String,
    pub body: String,
}

impl Reply {
    pub fn new(status: u16, body: impl Into<String>) -> Self {
        Reply {
            status,
            status_text: String::new(),
            body: body.into(),
        }
    }

    /// A 2xx status, `Response.ok`.
    pub fn is_ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// How a call's successful answer becomes its `data`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decode {
    /// The JSON as it is.
    Json,
    /// `{Id, Key}` → `{path, id, fullPath}` (`upload`, `update`).
    Uploaded { path: String },
    /// `{Key}` → `{path, fullPath}` (`uploadToSignedUrl`).
    UploadedToSignedUrl { path: String },
    /// `{Key}` → `{path}` (`copy`).
    Copied,
    /// `{signedURL}` → `{signedUrl}`: `encodeURI(base + signedURL [+ "&" + query])`.
    SignedUrl { base: String, query: String },
    /// Each `{error, path, signedURL}` gains `signedUrl`, as above or `null`.
    SignedUrls { base: String, query: String },
    /// `{url}` → `{signedUrl, path, token}`.
    SignedUploadUrl { base: String, path: String },
    /// The body itself is the data (`download`); only a refusal is decoded here.
    Blob,
    /// A HEAD answer: `true` for 2xx (`exists`). A refusal has no body, so its message is the
    /// status text.
    Exists,
}

impl Decode {
    /// The call's `data`, or why there is none: a refusal (non-2xx) or an answer that is not
    /// the JSON the call expects. For [`Decode::Blob`] a 2xx answer gives `null`: the wasm layer
    /// reads its body as a Blob instead.
    pub fn data(&self, reply: &Reply) -> Result<Value, StorageError> {
        if !reply.is_ok() {
            return Err(StorageError::refused(
                reply.status,
                &reply.status_text,
                &reply.body,
            ));
        }
        match self {
            Decode::Blob => return Ok(Value::Null),
            Decode::Exists => return Ok(Value::Bool(true)),
            _ => {}
        }
        let body: Value = serde_json::from_str(&reply.body).map_err(|error| {
            StorageError::network(format!("invalid JSON in the answer: {error}"))
        })?;
        Ok(match self {
            Decode::Json | Decode::Blob | Decode::Exists => body,
            Decode::Uploaded { path } => object([
                ("path", Some(path.as_str().into())),
                ("id", body.get("Id").cloned()),
                ("fullPath", body.get("Key").cloned()),
            ]),
            Decode::UploadedToSignedUrl { path } => object([
                ("path", Some(path.as_str().into())),
                ("fullPath", body.get("Key").cloned()),
            ]),
            Decode::Copied => object([("path", body.get("Key").cloned())]),
            Decode::SignedUrl { base, query } => {
                let signed = signed_url(base, body.get("signedURL"), query).ok_or_else(|| {
                    StorageError::Invalid {
                        message: "No signedURL returned by API".into(),
                    }
                })?;
                object([("signedUrl", Some(signed.into()))])
            }
            Decode::SignedUrls { base, query } => match body {
                Value::Array(items) => Value::Array(
                    items
                        .into_iter()
                        .map(|mut item| {
                            let signed = signed_url(base, item.get("signedURL"), query);
                            if let Value::Object(fields) = &mut item {
                                fields.insert(
                                    "signedUrl".into(),
                                    signed.map_or(Value::Null, Value::from),
                                );
                            }
                            item
                        })
                        .collect(),
                ),
                other => other,
            },
            Decode::SignedUploadUrl { base, path } => {
                let url = format!(
                    "{base}{}",
                    body.get("url").and_then(Value::as_str).unwrap_or_default()
                );
                let token = token_of(&url)
                    .filter(|token| !token.is_empty())
                    .ok_or_else(|| StorageError::Invalid {
                        message: "No token returned by API".into(),
                    })?;
                object([
                    ("signedUrl", Some(encode_uri(&url).into())),
                    ("path", Some(path.as_str().into())),
                    ("token", Some(token.into())),
                ])
            }
        })
    }
}

/// `encodeURI(base + signedURL + "&" + query)`, or `None` without a (non-empty) `signedURL`.
fn signed_url(base: &str, signed: Option<&Value>, query: &str) -> Option<String> {
    let signed = signed?.as_str().filter(|signed| !signed.is_empty())?;
    let extra = if query.is_empty() {
        String::new()
    } else {
        format!("&{query}")
    };
    Some(encode_uri(&format!("{base}{signed}{extra}")))
}

/// The token of a signed upload URL, read from its query as `URLSearchParams.get` reads it.
fn token_of(url: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    let query = query.split('#').next().unwrap_or_default();
    form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "token")
        .map(|(_, value)| value.into_owned())
}

/// An object of the fields that have a value (storage-js's `undefined` ones vanish in JSON).
fn object<const N: usize>(fields: [(&str, Option<Value>); N]) -> Value {
    let mut object = Map::new();
    for (name, value) in fields {
        if let Some(value) = value {
            object.insert(name.to_owned(), value);
        }
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const BASE: &str = "http://h/storage/v1";

    fn ok(decode: Decode, body: &str) -> Value {
        decode.data(&Reply::new(200, body)).unwrap()
    }

    #[test]
    fn refusals_become_api_errors_whatever_the_call() {
        let reply = Reply {
            status: 403,
            status_text: "Forbidden".into(),
            body: r#"{"statusCode":"403","error":"Unauthorized","message":"new row violates row-level security policy"}"#.into(),
        };
        for decode in [Decode::Json, Decode::Blob, Decode::Copied] {
            let error = decode.data(&reply).unwrap_err();
            assert_eq!(error.name(), "StorageApiError");
            assert_eq!(error.status(), Some(403));
            assert_eq!(error.status_code(), Some("403"));
            assert_eq!(
                error.to_string(),
                "new row violates row-level security policy"
            );
        }
    }

    #[test]
    fn json_answers_pass_through_and_bad_json_is_unknown() {
        assert_eq!(
            ok(Decode::Json, r#"[{"name":"b"}]"#),
            json!([{"name": "b"}])
        );
        assert_eq!(ok(Decode::Blob, "bytes"), Value::Null);
        let error = Decode::Json.data(&Reply::new(200, "<html>")).unwrap_err();
        assert_eq!(error.name(), "StorageUnknownError");
        assert!(error.to_string().starts_with("invalid JSON"), "{error}");
    }

    #[test]
    fn exists_is_true_for_2xx_and_a_refusal_without_a_body_otherwise() {
        assert_eq!(ok(Decode::Exists, ""), Value::Bool(true));
        let reply = Reply {
            status: 400,
            status_text: "Bad Request".into(),
            body: String::new(),
        };
        let error = Decode::Exists.data(&reply).unwrap_err();
        assert_eq!(error.status(), Some(400));
        assert_eq!(error.status_code(), Some("400"));
        assert_eq!(error.to_string(), "Bad Request");
    }

    #[test]
    fn upload_answers_are_renamed() {
        let uploaded = Decode::Uploaded {
            path: "d/a.txt".into(),
        };
        assert_eq!(
            ok(uploaded, r#"{"Id":"u-1","Key":"b/d/a.txt"}"#),
            json!({"path": "d/a.txt", "id": "u-1", "fullPath": "b/d/a.txt"})
        );
        let signed = Decode::UploadedToSignedUrl { path: "a".into() };
        assert_eq!(
            ok(signed, r#"{"Key":"b/a"}"#),
            json!({"path": "a", "fullPath": "b/a"})
        );
        assert_eq!(
            ok(Decode::Copied, r#"{"Key":"b/c"}"#),
            json!({"path": "b/c"})
        );
        assert_eq!(ok(Decode::Copied, r#"{}"#), json!({}));
    }

    #[test]
    fn signed_urls_are_made_absolute_with_the_download_appended() {
        let decode = Decode::SignedUrl {
            base: BASE.into(),
            query: "download=".into(),
        };
        assert_eq!(
            ok(
                decode,
                r#"{"signedURL":"/object/sign/b/a b.txt?token=t.k"}"#
            ),
            json!({"signedUrl": "http://h/storage/v1/object/sign/b/a%20b.txt?token=t.k&download="})
        );
        let decode = Decode::SignedUrl {
            base: BASE.into(),
            query: String::new(),
        };
        assert_eq!(
            ok(
                decode.clone(),
                r#"{"signedURL":"/object/sign/b/a?token=t"}"#
            ),
            json!({"signedUrl": "http://h/storage/v1/object/sign/b/a?token=t"})
        );
        let error = decode.data(&Reply::new(200, "{}")).unwrap_err();
        assert_eq!(error.name(), "StorageError");
    }

    #[test]
    fn each_signed_url_of_many_gets_its_absolute_form_or_null() {
        let decode = Decode::SignedUrls {
            base: BASE.into(),
            query: String::new(),
        };
        let body = r#"[{"error":null,"path":"a","signedURL":"/object/sign/b/a?token=t"},
                       {"error":"Either the object does not exist or you do not have access to it","path":"x","signedURL":null}]"#;
        assert_eq!(
            ok(decode, body),
            json!([
                {"error": null, "path": "a", "signedURL": "/object/sign/b/a?token=t",
                 "signedUrl": "http://h/storage/v1/object/sign/b/a?token=t"},
                {"error": "Either the object does not exist or you do not have access to it",
                 "path": "x", "signedURL": null, "signedUrl": null}
            ])
        );
    }

    #[test]
    fn signed_upload_urls_yield_their_token() {
        let decode = Decode::SignedUploadUrl {
            base: BASE.into(),
            path: "d/a.txt".into(),
        };
        assert_eq!(
            ok(
                decode.clone(),
                r#"{"url":"/object/upload/sign/b/d/a.txt?token=abc"}"#
            ),
            json!({"signedUrl": "http://h/storage/v1/object/upload/sign/b/d/a.txt?token=abc",
                   "path": "d/a.txt", "token": "abc"})
        );
        let error = decode
            .data(&Reply::new(200, r#"{"url":"/object/upload/sign/b/a"}"#))
            .unwrap_err();
        assert_eq!(error.to_string(), "No token returned by API");
        assert_eq!(error.name(), "StorageError");
    }

    #[test]
    fn tokens_are_read_from_the_query() {
        assert_eq!(
            token_of("/object/upload/sign/b/a?token=abc.def"),
            Some("abc.def".into())
        );
        assert_eq!(token_of("/x?a=1&token=a%2Bb#f"), Some("a+b".into()));
        assert_eq!(token_of("/x?a=1"), None);
        assert_eq!(token_of("/x"), None);
    }
}
