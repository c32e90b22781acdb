//! The emulator's API-key and JWT checks (`geocache_emulator::fuzzing::jwt` states the
//! invariants).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    geocache_emulator::fuzzing::jwt(data);
});
