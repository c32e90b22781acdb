//! What every service's client is built on, whatever it calls: the configuration derived from the
//! project URL and key ([`config`], the URL parsed by [`project_url`]), the headers every request
//! starts with ([`base_headers`]), the plain request and response values ([`http`]), one request's
//! deadline ([`request_timeout`]) and the moment a decision is taken at ([`unix_time`]). Nothing
//! here knows the logbook or any one service.

pub mod base_headers;
pub mod config;
pub mod http;
pub mod project_url;
pub mod request_timeout;
pub mod unix_time;
