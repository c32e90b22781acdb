//! `ClientAddress` as a handler argument: the peer from the connection, the header and the trusted
//! proxies from the application state. Apart from the address rules so that the limiters, which
//! the state holds, can name an address without depending on the state.

use crate::http::client_address::ClientAddress;
use crate::http::connection::ConnectionTap;
use crate::state::AppState;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};

/// The socket's peer: the server hands it over as a [`ConnectionTap`]; in-process callers may
/// give a plain `SocketAddr` instead.
fn peer(parts: &Parts) -> Option<IpAddr> {
    parts
        .extensions
        .get::<ConnectInfo<ConnectionTap>>()
        .map(|ConnectInfo(tap)| tap.remote.ip())
        .or_else(|| {
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(address)| address.ip())
        })
}

impl FromRequestParts<AppState> for ClientAddress {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Infallible> {
        Ok(ClientAddress::resolve(
            peer(parts),
            &parts.headers,
            &state.trusted_proxies,
        ))
    }
}
