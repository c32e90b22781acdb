//! Load and durability over loopback sockets: concurrent inserts from several clients, and the
//! emulator binary killed with SIGKILL in the middle of a stream of inserts; and, run by hand, the
//! emulator's memory under floods of Realtime and Storage requests.

// Tests unwrap: a panic there is a failed test, and the line it points at says what broke.
#![cfg_attr(test, allow(clippy::unwrap_used))]

#[path = "../wire/mod.rs"]
mod wire;

mod concurrent;
mod crash;
mod flood_memory;
