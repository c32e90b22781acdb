//! The auth server's transactions, apart from HTTP. Each function takes the connection and
//! explicit values (no request, no application state), does its work in one transaction and
//! returns what the handler answers with. A handler parses the request, calls one of these inside
//! `Database::call` and builds the response from the result.

pub mod challenge;
pub mod enrolment;
pub mod refresh;
pub mod sign_in;
pub mod sign_up;
pub mod verification;
