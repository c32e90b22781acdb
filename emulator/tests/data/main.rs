//! The owner's data through the emulator's binary: backups taken while signs stream in, the
//! scheduled backups of a serving emulator, exports and imports round-tripped, and malformed
//! files refused. `figures` (ignored) measures them at 100,000 entries.

// Tests unwrap: a panic there is a failed test, and the line it points at says what broke.
#![cfg_attr(test, allow(clippy::unwrap_used))]

#[path = "../wire/mod.rs"]
mod wire;

mod backup;
mod figures;
mod import;
mod round_trip;
mod schedule;
mod support;
