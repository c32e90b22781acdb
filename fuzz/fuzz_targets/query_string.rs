//! The emulator's PostgREST query-string parser, planner and SQL builder
//! (`geocache_emulator::fuzzing::query_string` states the invariants).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    geocache_emulator::fuzzing::query_string(data);
});
