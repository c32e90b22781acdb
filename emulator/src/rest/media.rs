//! Media types: what the client accepts (`Accept`) and what it sends (`Content-Type`).

use crate::rest::error::RestError;
use axum::http::{header, HeaderMap};

pub const JSON: &str = "application/json; charset=utf-8";
pub const OBJECT_JSON: &str = "application/vnd.pgrst.object+json; charset=utf-8";

/// How rows are returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// A JSON array (the default).
    Array,
    /// `application/vnd.pgrst.object+json`: exactly one row as an object (supabase-js `.single()`).
    SingleObject,
}

/// Picks the first type in `Accept` the emulator can produce; none → PGRST107 (406).
pub fn negotiate(headers: &HeaderMap) -> Result<Output, RestError> {
    let Some(accept) = headers.get(header::ACCEPT) else {
        return Ok(Output::Array);
    };
    let accept = accept.to_str().unwrap_or_default();
    if accept.trim().is_empty() {
        return Ok(Output::Array);
    }
    accept
        .split(',')
        .map(|item| {
            item.split(';')
                .next()
                .expect("split yields at least one piece")
                .trim()
                .to_ascii_lowercase()
        })
        .find_map(|media_type| match media_type.as_str() {
            "*/*" | "application/*" | "application/json" => Some(Output::Array),
            "application/vnd.pgrst.object+json" | "application/vnd.pgrst.object" => {
                Some(Output::SingleObject)
            }
            _ => None,
        })
        .ok_or_else(|| RestError::unavailable_media_type(accept))
}

/// Bodies must be JSON (PostgREST treats a missing `Content-Type` as JSON). CSV and form bodies
/// are valid for PostgREST but not implemented here, so they get PostgREST's refusal for an
/// unknown type.
pub fn require_json_body(headers: &HeaderMap) -> Result<(), RestError> {
    let Some(content_type) = headers.get(header::CONTENT_TYPE) else {
        return Ok(());
    };
    let content_type = content_type.to_str().unwrap_or_default();
    let essence = content_type
        .split(';')
        .next()
        .expect("split yields at least one piece")
        .trim()
        .to_ascii_lowercase();
    if essence.is_empty() || essence == "application/json" {
        Ok(())
    } else {
        Err(RestError::invalid_body(format!(
            "Content-Type not acceptable: {essence}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn json_and_wildcards_give_arrays() {
        assert_eq!(negotiate(&HeaderMap::new()).unwrap(), Output::Array);
        assert_eq!(negotiate(&accept("*/*")).unwrap(), Output::Array);
        assert_eq!(
            negotiate(&accept("text/html, application/json;q=0.9")).unwrap(),
            Output::Array
        );
    }

    #[test]
    fn object_type_gives_a_single_object() {
        assert_eq!(
            negotiate(&accept("application/vnd.pgrst.object+json")).unwrap(),
            Output::SingleObject
        );
    }

    #[test]
    fn unknown_types_are_406() {
        assert_eq!(
            negotiate(&accept("text/csv")).unwrap_err().code(),
            "PGRST107"
        );
    }
}
