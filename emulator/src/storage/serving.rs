//! How an object's bytes are served, so that nothing uploaded runs script on the API's origin
//! (where a page could read other objects and the project's API with the visitor's session):
//!
//! - a type holding `text/html` is served as `text/plain`, as hosted Storage does;
//! - every object carries `X-Content-Type-Options: nosniff`, so a browser renders the type it is
//!   told and never guesses a document into HTML;
//! - every type a browser could run script in as a document (SVG, XML, XHTML and anything else
//!   not listed next) carries `Content-Security-Policy: default-src 'none'; sandbox`: it still
//!   renders, but runs no script, loads nothing and gets an opaque origin;
//! - raster images, audio, video and PDFs stay viewable inline without it (a sandboxed document
//!   cannot show them).
//!
//! Hosted Storage sends neither header and serves SVG as uploaded: a deliberate difference.

use crate::storage::mime;
use axum::http::{header, HeaderMap, HeaderValue};

/// What a sandboxed object may do as a document: nothing.
const SANDBOX: &str = "default-src 'none'; sandbox";

/// The `Content-Type` an object stored as `stored` is served with.
pub fn served_type(stored: &str) -> &str {
    if stored.to_ascii_lowercase().contains("text/html") {
        "text/plain"
    } else {
        stored
    }
}

/// Whether a browser shows `content_type` itself as a document, without running anything:
/// raster images, audio, video and PDFs.
fn shown_inline(content_type: &str) -> bool {
    let essence = mime::essence(content_type);
    let Some((kind, subtype)) = essence.split_once('/') else {
        return false;
    };
    match kind {
        "image" => subtype != "svg+xml" && !subtype.ends_with("+xml"),
        "audio" | "video" => true,
        "application" => subtype == "pdf",
        _ => false,
    }
}

/// Sets the object's served `Content-Type` and the headers that keep it from running script.
pub fn insert_headers(
    headers: &mut HeaderMap,
    stored: &str,
) -> Result<(), header::InvalidHeaderValue> {
    let served = served_type(stored);
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_str(served)?);
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if !shown_inline(served) {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(SANDBOX),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(stored: &str) -> (String, Option<String>) {
        let mut headers = HeaderMap::new();
        insert_headers(&mut headers, stored).unwrap();
        assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        (
            headers[header::CONTENT_TYPE].to_str().unwrap().to_owned(),
            headers
                .get(header::CONTENT_SECURITY_POLICY)
                .map(|value| value.to_str().unwrap().to_owned()),
        )
    }

    #[test]
    fn html_of_any_spelling_is_served_as_text() {
        for stored in [
            "text/html",
            "TEXT/HTML; charset=utf-8",
            "image/png, text/html",
        ] {
            assert_eq!(served(stored).0, "text/plain", "{stored}");
        }
    }

    #[test]
    fn types_that_can_run_script_are_sandboxed() {
        for stored in [
            "image/svg+xml",
            "application/xml",
            "text/xml",
            "application/xhtml+xml",
            "application/javascript",
            "text/html",
            "application/octet-stream",
            "application/json",
        ] {
            assert_eq!(served(stored).1.as_deref(), Some(SANDBOX), "{stored}");
        }
    }

    #[test]
    fn images_media_and_pdfs_stay_viewable_inline() {
        for stored in [
            "image/png",
            "image/jpeg",
            "IMAGE/WEBP",
            "image/gif; x=1",
            "audio/mpeg",
            "video/mp4",
            "application/pdf",
        ] {
            assert_eq!(served(stored), (stored.to_owned(), None), "{stored}");
        }
    }
}
