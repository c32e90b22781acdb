//! Sends a function call on to the developer's function server and its answer back: method,
//! path (`/<name>` and whatever follows it, under the server URL's own path), query, headers and
//! status as they are, bodies streamed both ways. Hop-by-hop headers (RFC 9110 section 7.6.1)
//! belong to one connection and are dropped; `Host` names the function server.

use crate::functions::error::FunctionsError;
use crate::functions::settings::FunctionServer;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Uri};
use axum::response::Response;
use hyper_util::rt::TokioIo;
use std::time::Duration;
use tokio::net::TcpStream;

/// How long connecting to the function server may take before the call is a relay error.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The headers of one connection, never forwarded.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "upgrade",
];

/// Forwards `request` (whose path is `/functions/v1/<name>...`) to `server` as
/// `<server path>/<name>...`.
pub async fn forward(
    server: &FunctionServer,
    function_path: &str,
    request: Request,
) -> Result<Response, FunctionsError> {
    let unreachable = |reason: String| {
        FunctionsError::Relay(format!(
            "The function server at {} did not answer: {reason}",
            server.url()
        ))
    };
    let (mut parts, body) = request.into_parts();
    let path_and_query = match parts.uri.query() {
        Some(query) => format!("{}{function_path}?{query}", server.prefix),
        None => format!("{}{function_path}", server.prefix),
    };
    parts.uri = Uri::builder()
        .path_and_query(path_and_query)
        .build()
        .map_err(|error| unreachable(error.to_string()))?;
    strip_hop_by_hop(&mut parts.headers);
    let host = HeaderValue::from_str(server.authority.as_str())
        .map_err(|error| unreachable(error.to_string()))?;
    parts.headers.insert(header::HOST, host);
    // The client's HTTP version is the incoming connection's; this one is HTTP/1.1.
    parts.version = axum::http::Version::HTTP_11;
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(server.address()))
        .await
        .map_err(|_| unreachable("connecting timed out".to_owned()))?
        .map_err(|error| unreachable(error.to_string()))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|error| unreachable(error.to_string()))?;
    // Drives the connection until the response body has been read to its end.
    tokio::spawn(connection);
    let response = sender
        .send_request(Request::from_parts(parts, body))
        .await
        .map_err(|error| unreachable(error.to_string()))?;
    let (mut parts, body) = response.into_parts();
    strip_hop_by_hop(&mut parts.headers);
    Ok(Response::from_parts(parts, Body::new(body)))
}

/// Drops the hop-by-hop headers and those the `Connection` header names. `Transfer-Encoding`
/// is left to hyper, which sets its own framing for the streamed body either way.
fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
    headers.remove(header::TRANSFER_ENCODING);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_are_dropped_and_the_rest_kept() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("connection", "keep-alive, x-private"),
            ("keep-alive", "timeout=5"),
            ("x-private", "1"),
            ("te", "trailers"),
            ("upgrade", "websocket"),
            ("transfer-encoding", "chunked"),
            ("proxy-authorization", "Basic x"),
            ("authorization", "Bearer t"),
            ("apikey", "k"),
            ("x-custom", "v"),
        ] {
            headers.append(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        strip_hop_by_hop(&mut headers);
        let mut left: Vec<&str> = headers.keys().map(HeaderName::as_str).collect();
        left.sort_unstable();
        assert_eq!(left, ["apikey", "authorization", "x-custom"]);
    }
}
