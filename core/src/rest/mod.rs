//! PostgREST calls: a generic request builder ([`Postgrest`], [`Builder`]), the logbook's calls,
//! when a read is sent again ([`retry`]) and how a signing finds out whether it landed
//! ([`signing`]).

mod builder;
mod filter;
pub mod logbook;
pub mod retry;
mod rows;
pub mod signing;

pub use builder::{Builder, Postgrest};
