//! The entries crossing to JS: an `EntryList` handle whose rows stay in wasm memory and are read by
//! index, so a 100,000-entry logbook costs JS one object, not 100,000, and a virtualised list
//! reads only the rows it shows. The snapshots a paged read hands to `onPage` share one
//! append-only store, each seeing its own prefix, so 100 pages cost 100 handles, not 100 copies.
//! Also the one reader of a `NewEntry` from JS.

use std::cell::RefCell;
use std::rc::Rc;

use geocache_core::{EntryRef, NewEntry};
use js_sys::{Array, JsString, Object, RangeError, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::ClientError;

/// All entries, newest first. `length` and the per-row readers (`id(i)`, `createdAt(i)`,
/// `name(i)`, `message(i)`) copy only what is asked for; `get(i)` and `toArray()` give
/// `LogEntry` objects. An index that is not an integer in `0..length` throws a `RangeError`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct EntryList {
    /// Entries are only ever appended to the store, so the first `len` never change.
    store: Rc<RefCell<geocache_core::EntryList>>,
    len: usize,
}

impl EntryList {
    pub fn new(entries: geocache_core::EntryList) -> Self {
        let len = entries.len();
        EntryList::prefix(Rc::new(RefCell::new(entries)), len)
    }

    /// The first `len` entries of a store that may still grow.
    pub fn prefix(store: Rc<RefCell<geocache_core::EntryList>>, len: usize) -> Self {
        EntryList { store, len }
    }

    /// Reads one entry. Indexes arrive as JS numbers: anything but an integer in range is refused
    /// rather than truncated (`1.5`, `NaN` and `-1` would otherwise become real indexes).
    fn with_entry<T>(
        &self,
        index: f64,
        read: impl FnOnce(EntryRef<'_>) -> T,
    ) -> Result<T, RangeError> {
        let position = index as usize;
        let store = self.store.borrow();
        match store.get(position) {
            Some(entry) if position as f64 == index && position < self.len => Ok(read(entry)),
            _ => Err(RangeError::new(&format!(
                "index out of range: the list has {} entries",
                self.len
            ))),
        }
    }

    /// Every entry of this list, in order.
    fn each<T>(&self, read: impl FnMut(EntryRef<'_>) -> T) -> Vec<T> {
        self.store
            .borrow()
            .iter()
            .take(self.len)
            .map(read)
            .collect()
    }
}

#[wasm_bindgen]
impl EntryList {
    /// How many entries there are.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.len
    }

    /// The entry's id.
    pub fn id(&self, index: f64) -> Result<f64, RangeError> {
        self.with_entry(index, |entry| entry.id)
    }

    /// Every id, newest first, in one copy: for keying all rows (a virtualised list keys rows it
    /// has not rendered) without a call into wasm per row.
    pub fn ids(&self) -> Vec<f64> {
        self.each(|entry| entry.id)
    }

    /// The entry's `created_at`: the server's timestamp text, verbatim.
    #[wasm_bindgen(js_name = createdAt)]
    pub fn created_at(&self, index: f64) -> Result<JsString, RangeError> {
        self.with_entry(index, |entry| entry.created_at.into())
    }

    /// The entry's name, as the visitor wrote it.
    pub fn name(&self, index: f64) -> Result<JsString, RangeError> {
        self.with_entry(index, |entry| entry.name.into())
    }

    /// The entry's message, as the visitor wrote it.
    pub fn message(&self, index: f64) -> Result<JsString, RangeError> {
        self.with_entry(index, |entry| entry.message.into())
    }

    /// The entry as a plain `LogEntry` object.
    #[wasm_bindgen(unchecked_return_type = "LogEntry")]
    pub fn get(&self, index: f64) -> Result<Object, RangeError> {
        self.with_entry(index, log_entry)
    }

    /// Every entry as a plain `LogEntry` object, newest first (what `JSON.parse` would give).
    #[wasm_bindgen(js_name = toArray, unchecked_return_type = "LogEntry[]")]
    pub fn to_array(&self) -> Array {
        self.each(log_entry).into_iter().collect()
    }

    /// This list (the newest entries of a fresh read, still paging), then the entries of `older`
    /// that come strictly after this list's last entry in (created_at desc, id desc) order and
    /// whose id is not in this list: what to show during a reload while the rest of the fresh
    /// read is on its way. A new list; neither argument changes.
    #[wasm_bindgen(js_name = withOlderFrom)]
    pub fn with_older_from(&self, older: &EntryList) -> EntryList {
        let merged =
            self.store
                .borrow()
                .with_older_from(self.len, &older.store.borrow(), older.len);
        EntryList::new(merged)
    }
}

/// The entry as a plain `LogEntry` object.
pub fn log_entry(entry: EntryRef<'_>) -> Object {
    let object = Object::new();
    let fields: [(&str, JsValue); 4] = [
        ("id", entry.id.into()),
        ("created_at", entry.created_at.into()),
        ("name", entry.name.into()),
        ("message", entry.message.into()),
    ];
    for (key, value) in fields {
        // Setting a property of a fresh plain object cannot fail.
        let _ = Reflect::set(&object, &key.into(), &value);
    }
    object
}

/// Reads `signLogbook`'s argument: an object with string `name` and `message` (other properties
/// are ignored). Anything else is an `invalid_argument` TypeError, before any request is made.
pub fn new_entry(value: &JsValue) -> Result<NewEntry, ClientError> {
    let invalid = |reason: &str| ClientError::Argument {
        name: "entry",
        reason: reason.to_owned(),
    };
    if !value.is_object() {
        return Err(invalid(
            "expected an object with string fields name and message",
        ));
    }
    let field = |key: &str| match Reflect::get(value, &key.into()) {
        Ok(text) if text.is_string() => Ok(text.as_string().expect("checked to be a string")),
        Ok(missing) if missing.is_undefined() => Err(invalid(&format!("missing field \"{key}\""))),
        _ => Err(invalid(&format!("field \"{key}\" is not a string"))),
    };
    Ok(NewEntry {
        name: field("name")?,
        message: field("message")?,
    })
}

/// How fast the core parses and validates a body into the list the page reads: the same work
/// as `listEntries` after the response arrives (decoding, validation, ordering). Returns the
/// number of entries, or throws the `LogbookError` the page would get. For `npm run bench` only;
/// not in the page's build.
#[cfg(feature = "bench")]
#[wasm_bindgen(js_name = parseEntriesForBenchmark)]
pub fn parse_entries_for_benchmark(body: Vec<u8>) -> Result<usize, ClientError> {
    let response =
        geocache_core::HttpResponse::new(200, geocache_core::client::http::decode_body(body));
    let entries = geocache_core::rest::logbook::list_entries_outcome(Ok(response))?;
    Ok(entries.len())
}
