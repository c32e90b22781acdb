//! `ClientAddress` as a handler argument: the peer from the connection, the header and the trusted
//! proxies from the state of whichever service asks. Apart from the address rules so that the
//! limiters, which that state holds, can name an address without depending on it.

use crate::http::client_address::{ClientAddress, TrustedProxies};
use crate::http::connection::ConnectionTap;
use axum::extract::{ConnectInfo, FromRef, FromRequestParts};
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

impl<S> FromRequestParts<S> for ClientAddress
where
    S: Send + Sync,
    TrustedProxies: FromRef<S>,
{
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Infallible> {
        let TrustedProxies(trusted) = TrustedProxies::from_ref(state);
        Ok(ClientAddress::resolve(
            peer(parts),
            &parts.headers,
            &trusted,
        ))
    }
}
