//! Load and durability over loopback sockets: concurrent inserts from several clients, and the
//! emulator binary killed with SIGKILL in the middle of a stream of inserts.

#[path = "../wire/mod.rs"]
mod wire;

mod concurrent;
mod crash;
