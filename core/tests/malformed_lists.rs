//! Replays the malformed entry-list corpus, `tests/fixtures/malformed-lists/cases.json`, through the
//! public parser exactly as the wasm client runs it on a 200 response: the bytes decoded as
//! `Response.text()` decodes them ([`decode_body`]), then [`EntryList::parse`]. Every case must give
//! the manifest's code, index and field, `parse_entries` must give the same error, and nothing may
//! panic. The e2e spec `tests/e2e/malformed-lists.spec.ts` replays the same corpus in the browser.
#![cfg_attr(test, allow(clippy::unwrap_used))]

use std::collections::BTreeSet;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use geocache_core::client::http::decode_body;
use geocache_core::logbook::schema::parse_entries;
use geocache_core::{EntryList, SchemaError};
use serde_json::Value;

/// The corpus needs at least this many cases, so every kind of malformed body is covered more than once.
const MIN_CASES: usize = 50;

/// An error message never quotes more than a short excerpt of the body, however large the body.
const MAX_MESSAGE_LEN: usize = 400;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/malformed-lists")
}

fn manifest() -> Vec<Value> {
    let path = corpus_dir().join("cases.json");
    let text =
        fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let manifest: Value = serde_json::from_str(&text).expect("cases.json is JSON");
    manifest["cases"]
        .as_array()
        .expect("cases.json has a \"cases\" array")
        .clone()
}

fn name(case: &Value) -> &str {
    case["name"].as_str().expect("every case has a name")
}

/// The response body: the stored file, or the generated text (`parts`, each `text` × `count`).
fn body(case: &Value) -> Vec<u8> {
    if let Some(file) = case["body"].as_str() {
        let path = corpus_dir().join(file);
        return fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    }
    let generate = &case["generate"];
    let parts = generate["parts"]
        .as_array()
        .expect("a generated case has parts");
    let mut body = String::new();
    for part in parts {
        let text = part["text"].as_str().expect("a part has a text");
        let count = part
            .get("count")
            .map_or(1, |count| count.as_u64().expect("count is an integer"));
        let count = usize::try_from(count).expect("count fits in usize");
        body.reserve(text.len() * count);
        for _ in 0..count {
            body.push_str(text);
        }
    }
    if let Some(min) = generate.get("minBytes") {
        let min = usize::try_from(min.as_u64().expect("minBytes is an integer")).unwrap();
        assert!(
            body.len() >= min,
            "{}: {} bytes, fewer than {min}",
            name(case),
            body.len()
        );
    }
    body.into_bytes()
}

/// (code, index, field) as the manifest writes them: null where the error has none.
fn expected(case: &Value) -> (String, Option<u64>, Option<String>) {
    let expected = &case["expected"];
    let code = expected["code"]
        .as_str()
        .expect("expected.code is a string")
        .to_owned();
    let index = match &expected["index"] {
        Value::Null => None,
        index => Some(
            index
                .as_u64()
                .expect("expected.index is null or an integer"),
        ),
    };
    let field = match &expected["field"] {
        Value::Null => None,
        field => Some(
            field
                .as_str()
                .expect("expected.field is null or a string")
                .to_owned(),
        ),
    };
    (code, index, field)
}

fn actual(error: &SchemaError) -> (String, Option<u64>, Option<String>) {
    (
        error.code().to_owned(),
        error.index().map(|index| index as u64),
        error.field().map(str::to_owned),
    )
}

/// Runs one case; `Err` says how it differs from the manifest.
fn check(case: &Value) -> Result<(), String> {
    let body = body(case);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        let text = decode_body(body);
        let reference = parse_entries(&text).map(|entries| entries.len());
        (EntryList::parse(text).map(|list| list.len()), reference)
    }));
    let (list, reference) = outcome.map_err(|_| "panicked".to_owned())?;
    let error = match list {
        Ok(len) => return Err(format!("parsed as a valid list of {len} entries")),
        Err(error) => error,
    };
    if reference.as_ref().err() != Some(&error) {
        return Err(format!(
            "EntryList::parse gives {error:?} but parse_entries gives {reference:?}"
        ));
    }
    let message = error.to_string();
    if message.is_empty() || message.len() > MAX_MESSAGE_LEN {
        return Err(format!("message of {} bytes: {message:?}", message.len()));
    }
    let want = expected(case);
    let got = actual(&error);
    if got != want {
        return Err(format!("expected {want:?}, got {got:?} ({message})"));
    }
    Ok(())
}

#[test]
fn every_malformed_list_gives_its_expected_error_without_panicking() {
    let cases = manifest();
    assert!(cases.len() >= MIN_CASES, "only {} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            check(case)
                .err()
                .map(|why| format!("{}: {why}", name(case)))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn the_manifest_is_complete_and_consistent() {
    let cases = manifest();
    let mut names = BTreeSet::new();
    let mut files = BTreeSet::new();
    for case in &cases {
        let name = name(case);
        assert!(names.insert(name.to_owned()), "case {name} is listed twice");
        assert!(
            case["description"]
                .as_str()
                .is_some_and(|text| !text.is_empty()),
            "{name}: no description"
        );
        match (case["body"].as_str(), case.get("generate")) {
            (Some(file), None) => assert!(files.insert(file.to_owned()), "{file} is used twice"),
            (None, Some(_)) => {}
            _ => panic!("{name}: give exactly one of body and generate"),
        }
        let (code, index, field) = expected(case);
        match code.as_str() {
            "invalid_json" => assert_eq!(
                (index, field.as_deref()),
                (None, None),
                "{name}: invalid_json has no index or field"
            ),
            "schema_mismatch" => assert!(
                field.is_none() || index.is_some(),
                "{name}: a field needs an index"
            ),
            other => panic!("{name}: unknown code {other}"),
        }
        if let Some(field) = field {
            assert!(
                ["id", "created_at", "name", "message"].contains(&field.as_str()),
                "{name}: unknown field {field}"
            );
        }
    }
    // Every stored body belongs to exactly one case.
    let stored: BTreeSet<String> = fs::read_dir(corpus_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|file| file != "cases.json" && !file.starts_with('.'))
        .collect();
    assert_eq!(
        stored, files,
        "files in the corpus directory and bodies in cases.json differ"
    );
    // Both kinds of failure a body can cause are represented.
    for kind in ["invalid_json", "schema_mismatch"] {
        assert!(
            cases.iter().any(|case| expected(case).0 == kind),
            "no {kind} case"
        );
    }
    assert!(
        files.iter().any(|file| file.ends_with(".bin")),
        "no stored bytes"
    );
}
