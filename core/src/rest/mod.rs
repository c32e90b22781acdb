//! PostgREST calls: a generic request builder ([`Postgrest`], [`Builder`]) and the logbook's two calls.

mod builder;
mod filter;
pub mod logbook;

pub use builder::{Builder, Postgrest};
