//! Integration tests for geocache-emulator, one binary for fast linking.

mod auth;
mod cors;
mod injection;
mod insert;
mod internal;
mod keys;
mod mutate;
mod persistence;
mod read;
mod routing;
mod socket;
mod support;
