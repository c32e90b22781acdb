//! PostgREST calls: a generic request builder ([`Postgrest`], [`Builder`]), the logbook's calls,
//! the keyset pages that read the whole logbook ([`pager`]),
//! when a read is sent again ([`retry`]) and how a signing finds out whether it landed
//! ([`signing`]).

mod builder;
pub mod content_range;
mod filter;
pub mod logbook;
pub mod pager;
pub mod retry;
mod rows;
pub mod signing;

pub use builder::{Builder, Postgrest};
