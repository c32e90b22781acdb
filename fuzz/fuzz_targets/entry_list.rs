//! The client's entry-list parser (`geocache_core::logbook::schema::parse_entries`): it never
//! panics, and what it accepts is a JSON array with one element per entry. The same check is
//! replayed by emulator/tests/api/fuzz_entry_points.rs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(entries) = geocache_core::logbook::schema::parse_entries(text) {
        let json: serde_json::Value = serde_json::from_str(text).expect("accepted text is JSON");
        assert_eq!(
            json.as_array().map(Vec::len),
            Some(entries.len()),
            "{text:?}"
        );
    }
});
