//! The owner's data: backups of the whole database, and the logbook's entries exported and
//! imported, so they can move to a hosted project and back with their ids and times.
//!
//! Each works on a database file while an emulator serves it. Backups and exports read through a
//! connection of their own, opened read-only, inside one read transaction: under WAL that is a
//! snapshot of what was committed when it began, and the serving emulator's writers never wait for
//! it. An import checks the whole file before it writes, so a malformed one imports nothing, then
//! writes in short transactions the server's writers take turns with.
//!
//! This sits above the services: a new database gets every service's tables
//! ([`crate::state::MIGRATIONS`]).

pub mod backup;
pub mod error;
pub mod export;
pub mod import;
pub mod schedule;
mod source;

pub use error::DataError;
