//! PostgREST calls: a generic request builder ([`Postgrest`], [`Builder`]), the logbook's calls,
//! the keyset pages that read the whole logbook ([`pager`]), the owner's removals and restores
//! ([`moderation`]) and the removals and restores every device catches up on ([`changes`]),
//! when a read is sent again ([`retry`]), and how a sign is sent with its idempotency key
//! ([`sign_key`]) and resent until it is answered ([`signing`]).

mod builder;
pub mod changes;
pub mod content_range;
mod filter;
pub mod logbook;
pub mod moderation;
pub mod pager;
pub mod retry;
pub mod sign_key;
pub mod signing;

pub use builder::{Builder, Postgrest};
