//! Integration tests for geocache-emulator, one binary for fast linking.

mod auth;
mod connections;
mod cors;
mod faults;
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
