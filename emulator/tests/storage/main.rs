//! Integration tests for the emulator's `/storage/v1`, one binary for fast linking. Every test
//! module's name starts with `storage_`, so `cargo test -p geocache-emulator storage` runs them.

// Tests unwrap: a panic there is a failed test, and the line it points at says what broke.
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod storage_access;
mod storage_buckets;
mod storage_crash;
mod storage_hostile;
mod storage_objects;
mod storage_serving;
mod storage_signed;
mod storage_signing_limits;
mod storage_support;
