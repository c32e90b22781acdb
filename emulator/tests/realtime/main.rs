//! Integration tests of the emulator's Realtime endpoint over real sockets.

// Tests unwrap: a panic there is a failed test, and the line it points at says what broke.
#![cfg_attr(test, allow(clippy::unwrap_used))]

/// Named `realtime`, so `cargo test realtime` selects these with the unit tests.
#[path = "suite.rs"]
mod realtime;
mod support;
