//! The HTTP plumbing around the services, which none of them routes itself: the accept loop and
//! its connections ([`server`], [`connection`]), how fast a request body must arrive ([`pace`]),
//! CORS ([`cors`]), refusing a body still being sent ([`linger`]), the liveness routes
//! ([`health`]) and who sent a request ([`client_address`]).

pub mod client_address;
pub mod connection;
pub mod cors;
pub mod health;
pub mod linger;
pub mod pace;
pub mod server;
