//! The request `functions.invoke(name, { body, headers, method, region })` sends, as supabase-js
//! builds it: `POST <project>/functions/v1/<name>` unless another method is named; headers in the
//! order invoke > client (`x-client-info`, `apikey`, the bearer) > defaults (the body's
//! `Content-Type`, `x-region`); the bearer is the user's token when signed in, else the key,
//! except a new-format key, which is no JWT and is not sent as one ([`base_headers`]).

use crate::client::base_headers::{base_headers, Service};
use crate::client::config::ClientConfig;
use crate::client::http::{encode_query, percent_encode, Component};
use crate::functions::error::InvokeArgumentError;

/// What the body is, which decides its default `Content-Type` (the wasm layer tells it from the
/// JS value: `typeof`, `instanceof Blob`, …).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BodyKind {
    /// No body (supabase-js also sends none for a falsy one: `""`, `0`, `false`, `null`).
    #[default]
    None,
    /// A string, sent as is.
    Text,
    /// A `Blob` (or `File`) or an `ArrayBuffer`, sent as is.
    Binary,
    /// A `FormData`: `fetch` writes its multipart `Content-Type` with the boundary.
    FormData,
    /// Anything else, sent as `JSON.stringify(body)`.
    Json,
}

impl BodyKind {
    /// The `Content-Type` supabase-js gives this kind when the caller names none.
    pub fn default_content_type(self) -> Option<&'static str> {
        match self {
            BodyKind::Text => Some("text/plain"),
            BodyKind::Binary => Some("application/octet-stream"),
            BodyKind::Json => Some("application/json"),
            BodyKind::None | BodyKind::FormData => None,
        }
    }

    /// Whether the body goes out as `JSON.stringify(body)`, whatever `Content-Type` it is given.
    pub fn is_serialized_as_json(self) -> bool {
        self == BodyKind::Json
    }
}

/// `invoke`'s options, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InvokeOptions {
    /// `GET`, `POST`, `PUT`, `PATCH` or `DELETE` (any case); `None` is `POST`.
    pub method: Option<String>,
    /// The caller's headers, in the caller's order; they win over every other header.
    pub headers: Vec<(String, String)>,
    pub body: BodyKind,
    /// A region other than `any` pins the call there (`x-region` and `?forceFunctionRegion=`).
    pub region: Option<String>,
}

/// The request as `fetch` gets it; the body is the caller's value, sent by the wasm layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvokeRequest {
    pub method: &'static str,
    pub url: String,
    /// Lower-case names, each once.
    pub headers: Vec<(String, String)>,
}

impl InvokeRequest {
    /// The value of a header, matching the name case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Builds the request for function `name`. `name` is a function's slug (as the Supabase CLI
/// allows: a letter, then letters, digits, `-` and `_`), optionally followed by `/`-separated
/// path segments the function reads itself; each segment is percent-encoded, so no name can
/// leave `/functions/v1/<name>`.
pub fn invoke_request(
    config: &ClientConfig,
    session_token: Option<&str>,
    name: &str,
    options: &InvokeOptions,
) -> Result<InvokeRequest, InvokeArgumentError> {
    let path = function_path(name)?;
    let method = method(options.method.as_deref())?;
    let region = options
        .region
        .as_deref()
        .filter(|region| !region.is_empty() && *region != "any");
    let mut url = format!("{}functions/v1/{path}", config.base_url());
    if let Some(region) = region {
        url.push('?');
        url.push_str(&encode_query(&[(
            "forceFunctionRegion".to_owned(),
            region.to_owned(),
        )]));
    }
    let mut headers = Vec::new();
    let caller_sets_content_type = options
        .headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("content-type"));
    if !caller_sets_content_type {
        if let Some(content_type) = options.body.default_content_type() {
            set(&mut headers, "content-type", content_type);
        }
    }
    if let Some(region) = region {
        set(&mut headers, "x-region", region);
    }
    for (name, value) in base_headers(config, Service::Functions, session_token) {
        set(&mut headers, &name, &value);
    }
    for (name, value) in &options.headers {
        set(&mut headers, name, value);
    }
    Ok(InvokeRequest {
        method,
        url,
        headers,
    })
}

/// Sets a header, replacing one of the same name in any case.
fn set(headers: &mut Vec<(String, String)>, name: &str, value: &str) {
    let name = name.to_ascii_lowercase();
    headers.retain(|(existing, _)| *existing != name);
    headers.push((name, value.to_owned()));
}

/// `<slug>[/<segment>...]`, each segment encoded.
fn function_path(name: &str) -> Result<String, InvokeArgumentError> {
    let mut segments = name.split('/');
    let slug = segments.next().unwrap_or_default();
    let mut chars = slug.chars();
    let valid_slug = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid_slug {
        return Err(InvokeArgumentError::Name(name.to_owned()));
    }
    let mut path = slug.to_owned();
    for segment in segments {
        if segment.is_empty() || segment == "." || segment == ".." {
            return Err(InvokeArgumentError::PathSegment(segment.to_owned()));
        }
        path.push('/');
        path.push_str(&percent_encode(segment, Component::PathSegment));
    }
    Ok(path)
}

fn method(method: Option<&str>) -> Result<&'static str, InvokeArgumentError> {
    let Some(method) = method else {
        return Ok("POST");
    };
    ["GET", "POST", "PUT", "PATCH", "DELETE"]
        .into_iter()
        .find(|known| known.eq_ignore_ascii_case(method))
        .ok_or_else(|| InvokeArgumentError::Method(method.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEGACY: &str = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.sig";
    const PUBLISHABLE: &str = "sb_publishable_abc";

    fn config(key: &str) -> ClientConfig {
        ClientConfig::new("https://abc.supabase.co", key)
            .unwrap()
            .with_client_info("info")
    }

    fn request(key: &str, token: Option<&str>, options: &InvokeOptions) -> InvokeRequest {
        invoke_request(&config(key), token, "echo", options).unwrap()
    }

    fn with_body(body: BodyKind) -> InvokeOptions {
        InvokeOptions {
            body,
            ..InvokeOptions::default()
        }
    }

    #[test]
    fn posts_to_the_functions_path_by_default() {
        let request = request(LEGACY, None, &InvokeOptions::default());
        assert_eq!(request.method, "POST");
        assert_eq!(request.url, "https://abc.supabase.co/functions/v1/echo");
        assert_eq!(
            request.headers,
            [
                ("x-client-info", "info".to_owned()),
                ("apikey", LEGACY.to_owned()),
                ("authorization", format!("Bearer {LEGACY}")),
            ]
            .map(|(name, value)| (name.to_owned(), value))
        );
    }

    #[test]
    fn the_bearer_follows_the_key_rules() {
        let bearer = |key: &str, token: Option<&str>| {
            request(key, token, &InvokeOptions::default())
                .header("authorization")
                .map(str::to_owned)
        };
        assert_eq!(bearer(PUBLISHABLE, None), None);
        assert_eq!(bearer("sb_secret_abc", None), None);
        assert_eq!(bearer(LEGACY, None), Some(format!("Bearer {LEGACY}")));
        assert_eq!(
            bearer("sb_temp_x", None).as_deref(),
            Some("Bearer sb_temp_x")
        );
        assert_eq!(
            bearer(PUBLISHABLE, Some("user.jwt")).as_deref(),
            Some("Bearer user.jwt")
        );
        let signed_in = request(PUBLISHABLE, Some("user.jwt"), &InvokeOptions::default());
        assert_eq!(signed_in.header("apikey"), Some(PUBLISHABLE));
    }

    #[test]
    fn the_body_kind_picks_the_content_type() {
        let content_type = |body| {
            request(LEGACY, None, &with_body(body))
                .header("content-type")
                .map(str::to_owned)
        };
        assert_eq!(content_type(BodyKind::Text).as_deref(), Some("text/plain"));
        assert_eq!(
            content_type(BodyKind::Binary).as_deref(),
            Some("application/octet-stream")
        );
        assert_eq!(
            content_type(BodyKind::Json).as_deref(),
            Some("application/json")
        );
        assert_eq!(content_type(BodyKind::FormData), None);
        assert_eq!(content_type(BodyKind::None), None);
        assert!(BodyKind::Json.is_serialized_as_json());
        assert!(!BodyKind::Text.is_serialized_as_json());
    }

    #[test]
    fn invoke_headers_win_over_client_and_default_ones_in_any_case() {
        let options = InvokeOptions {
            headers: vec![
                ("Content-Type".into(), "application/x-custom".into()),
                ("Authorization".into(), "Bearer mine".into()),
                ("X-Extra".into(), "1".into()),
            ],
            body: BodyKind::Json,
            ..InvokeOptions::default()
        };
        let request = request(LEGACY, Some("user.jwt"), &options);
        assert_eq!(request.header("content-type"), Some("application/x-custom"));
        assert_eq!(request.header("authorization"), Some("Bearer mine"));
        assert_eq!(request.header("x-extra"), Some("1"));
        let names: Vec<&str> = request.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "x-client-info",
                "apikey",
                "content-type",
                "authorization",
                "x-extra"
            ]
        );
    }

    #[test]
    fn methods_are_the_five_supabase_js_allows() {
        let method = |name: &str| {
            let options = InvokeOptions {
                method: Some(name.to_owned()),
                ..InvokeOptions::default()
            };
            invoke_request(&config(LEGACY), None, "echo", &options).map(|r| r.method)
        };
        assert_eq!(method("GET"), Ok("GET"));
        assert_eq!(method("delete"), Ok("DELETE"));
        assert_eq!(method("Put"), Ok("PUT"));
        assert_eq!(method("PATCH"), Ok("PATCH"));
        assert_eq!(
            method("TRACE"),
            Err(InvokeArgumentError::Method("TRACE".into()))
        );
        assert!(method("").is_err());
    }

    #[test]
    fn names_are_slugs_and_further_segments_are_encoded() {
        let url = |name: &str| {
            invoke_request(&config(LEGACY), None, name, &InvokeOptions::default()).map(|r| r.url)
        };
        assert_eq!(
            url("notify_owner-2").unwrap(),
            "https://abc.supabase.co/functions/v1/notify_owner-2"
        );
        assert_eq!(
            url("echo/a b/c?d#e").unwrap(),
            "https://abc.supabase.co/functions/v1/echo/a%20b/c%3Fd%23e"
        );
        for bad in ["", "2fa", "-x", "a b", "é", "../x", "a?b", "%2e%2e"] {
            assert_eq!(
                url(bad),
                Err(InvokeArgumentError::Name(bad.to_owned())),
                "{bad}"
            );
        }
        for (name, segment) in [
            ("echo/..", ".."),
            ("echo/.", "."),
            ("echo//x", ""),
            ("echo/", ""),
        ] {
            assert_eq!(
                url(name),
                Err(InvokeArgumentError::PathSegment(segment.to_owned())),
                "{name}"
            );
        }
    }

    #[test]
    fn a_region_other_than_any_pins_the_call() {
        let options = |region: &str| InvokeOptions {
            region: Some(region.to_owned()),
            headers: vec![("x-region".into(), "caller".into())],
            ..InvokeOptions::default()
        };
        let pinned = request(LEGACY, None, &options("eu-west-1"));
        assert_eq!(
            pinned.url,
            "https://abc.supabase.co/functions/v1/echo?forceFunctionRegion=eu-west-1"
        );
        // The caller's own header still wins, as in supabase-js.
        assert_eq!(pinned.header("x-region"), Some("caller"));
        let any = request(LEGACY, None, &options("any"));
        assert_eq!(any.url, "https://abc.supabase.co/functions/v1/echo");
        let plain = InvokeOptions {
            region: Some("us-east-1".into()),
            ..InvokeOptions::default()
        };
        assert_eq!(
            request(LEGACY, None, &plain).header("x-region"),
            Some("us-east-1")
        );
    }
}
