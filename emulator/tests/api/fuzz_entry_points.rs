//! The fuzz targets' entry points in the regular suite: every crash the fuzzers ever found (and
//! the seed inputs kept beside them) replayed from `fuzz/regressions/<target>/`, and the same
//! entry points on random input (proptest), so CI covers them without cargo-fuzz.

use geocache_emulator::fuzzing;
use proptest::prelude::*;
use serde_json::Value;
use std::path::PathBuf;

/// The client's entry-list parser (geocache-core), the third fuzz target: it never panics, and
/// what it accepts is a JSON array with one element per entry.
fn entry_list(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(entries) = geocache_core::logbook::schema::parse_entries(text) {
        let json: Value = serde_json::from_str(text).expect("accepted text is JSON");
        assert_eq!(
            json.as_array().map(Vec::len),
            Some(entries.len()),
            "{text:?}"
        );
    }
}

fn regressions(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(target);
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    files
}

fn replay(target: &str, entry_point: fn(&[u8])) {
    for (path, bytes) in regressions(target) {
        let outcome = std::panic::catch_unwind(|| entry_point(&bytes));
        assert!(outcome.is_ok(), "{} fails again", path.display());
    }
}

#[test]
fn query_string_regressions_pass() {
    replay("query_string", fuzzing::query_string);
}

#[test]
fn jwt_regressions_pass() {
    replay("jwt", fuzzing::jwt);
}

#[test]
fn entry_list_regressions_pass() {
    replay("entry_list", entry_list);
}

/// Pieces of PostgREST query strings, hostile ones included, so random input gets past the
/// first character.
const QUERY_PIECES: &[&str] = &[
    "select=",
    "order=",
    "columns=",
    "limit=",
    "offset=",
    "&",
    "=",
    ".",
    ",",
    "(",
    ")",
    ":",
    "::",
    "->",
    "->>",
    "*",
    "!",
    "\"",
    "\\",
    "'",
    ";",
    "--",
    "/*",
    " ",
    "%20",
    "%27",
    "%00",
    "+",
    "id",
    "name",
    "message",
    "created_at",
    "nope",
    "eq.",
    "neq.",
    "gt.",
    "lte.",
    "in.",
    "is.",
    "null",
    "not_null",
    "not.",
    "isdistinct.",
    "like.",
    "fts(english).",
    "eq(any).",
    "asc",
    "desc",
    "nullsfirst",
    "nullslast",
    "owner",
    "1",
    "-1",
    "0",
    "99999999999999999999",
    "2024-05-01T00:00:00Z",
    "drop table geocache_logs",
    "é",
    "\u{202e}",
    "🧭",
];

const JWT_PIECES: &[&str] = &[
    "{",
    "}",
    "\"alg\":",
    "\"HS256\"",
    "\"HS512\"",
    "\"none\"",
    "\"RS256\"",
    "\"role\":",
    "\"anon\"",
    "\"service_role\"",
    "\"authenticated\"",
    "\"postgres\"",
    "\"exp\":",
    "\"nbf\":",
    "\"iat\":",
    "\"aud\":",
    "\"sub\":",
    "1983812996",
    "1",
    "-1",
    "1.5e300",
    "null",
    "[",
    "]",
    ",",
    "\"x\"",
    "\u{0}",
    ".",
    "eyJhbGciOiJIUzI1NiJ9",
];

const ENTRY_PIECES: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"id\"",
    "\"created_at\"",
    "\"name\"",
    "\"message\"",
    "1",
    "-1",
    "1e400",
    "9007199254740993",
    "null",
    "true",
    "\"x\"",
    "\"2024-05-01T12:34:56+00:00\"",
    "\"2024-13-01T00:00:00Z\"",
    "\"\\u0000\"",
    "\"\\ud800\"",
    " ",
];

fn pieces(alphabet: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(alphabet), 0..32)
        .prop_map(|pieces| pieces.concat().into_bytes())
}

proptest! {
    #[test]
    fn the_query_string_parser_keeps_its_invariants(bytes in prop_oneof![
        pieces(QUERY_PIECES),
        prop::collection::vec(any::<u8>(), 0..64),
    ]) {
        fuzzing::query_string(&bytes);
    }

    #[test]
    fn the_key_and_token_checks_keep_their_invariants(bytes in prop_oneof![
        pieces(JWT_PIECES),
        prop::collection::vec(any::<u8>(), 0..96),
    ]) {
        fuzzing::jwt(&bytes);
    }

    #[test]
    fn the_entry_list_parser_keeps_its_invariants(bytes in prop_oneof![
        pieces(ENTRY_PIECES),
        prop::collection::vec(any::<u8>(), 0..64),
    ]) {
        entry_list(&bytes);
    }
}
