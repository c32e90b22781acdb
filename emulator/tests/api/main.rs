//! Integration tests for geocache-emulator, one binary for fast linking.

// Tests unwrap: a panic there is a failed test, and the line it points at says what broke.
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod auth;
mod connections;
mod cors;
mod faults;
mod functions;
mod fuzz_entry_points;
mod injection;
mod insert;
mod internal;
mod keys;
mod keyset_walk;
mod limits;
mod logic_trees;
mod mutate;
mod new_keys;
mod owner_command;
mod owners;
mod persistence;
mod read;
mod routing;
mod row_cap;
mod secrets;
mod sign_limit;
mod sign_once;
mod socket;
mod support;
#[path = "../wire/mod.rs"]
mod wire;
