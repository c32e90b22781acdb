//! The validated entries as the page reads them: one text buffer and a fixed-size row per entry,
//! newest first. A 100,000-entry list is parsed once, straight into this shape, and a row is only
//! turned into strings when someone asks for it (the virtualised list asks for the rows it shows).

use std::borrow::Cow;
use std::cmp::{Ordering, Reverse};

use crate::logbook::entry::Entry;
use crate::logbook::ordering::sort_newest_first;
use crate::logbook::schema::{validate_entries, SchemaError};

/// Entries newest first, their strings kept in one buffer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EntryList {
    /// The response body, with the unescaped copies of strings that had escapes appended.
    text: String,
    rows: Vec<Row>,
}

/// One entry: its id, and where its strings are in `text`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Row {
    id: f64,
    /// The instant `created_at` denotes, in nanoseconds since the Unix epoch: the sort key.
    instant: i128,
    created_at: Span,
    name: Span,
    message: Span,
}

/// A byte range of `text`, always on character boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
}

/// One entry, borrowed from the list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntryRef<'a> {
    pub id: f64,
    /// The server's timestamp text, verbatim.
    pub created_at: &'a str,
    pub name: &'a str,
    pub message: &'a str,
}

impl EntryList {
    /// Parses and validates a response body (see [`parse_entries`] for the rules) and orders it
    /// newest first. Strings without escapes stay where they are in the body, which becomes the
    /// list's buffer: no per-string copies for the usual list.
    ///
    /// [`parse_entries`]: crate::logbook::schema::parse_entries
    ///
    /// ```
    /// use geocache_core::EntryList;
    ///
    /// let list = EntryList::parse(
    ///     r#"[{"id": 1, "created_at": "2026-05-01T10:00:00Z", "name": "Ada", "message": "Hi"}]"#
    ///         .to_owned(),
    /// )?;
    /// let newest = list.get(0).expect("one entry");
    /// assert_eq!((newest.id, newest.name, newest.message), (1.0, "Ada", "Hi"));
    /// assert!(list.get(1).is_none());
    /// # Ok::<(), geocache_core::SchemaError>(())
    /// ```
    pub fn parse(mut text: String) -> Result<EntryList, SchemaError> {
        let (mut rows, unescaped) = Self::rows_of(&text)?;
        text.push_str(&unescaped);
        // Stable, and nearly free on the server's own newest-first order.
        rows.sort_by_key(|row| Reverse(row.instant));
        Ok(EntryList { text, rows })
    }

    /// Parses and validates one keyset page as [`EntryList::parse`] does, but ordered by the
    /// keyset's own key, `created_at` then `id`, both descending, so that the page's last entry
    /// is where the next page starts.
    pub fn parse_keyset_page(mut text: String) -> Result<EntryList, SchemaError> {
        let (mut rows, unescaped) = Self::rows_of(&text)?;
        text.push_str(&unescaped);
        rows.sort_by_key(|row| Reverse(row.key()));
        Ok(EntryList { text, rows })
    }

    /// Keeps the entries `keep` accepts, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(EntryKey) -> bool) {
        self.rows.retain(|row| keep(row.key()));
    }

    /// The (created_at, id) key of the entry at `index`.
    pub fn key(&self, index: usize) -> Option<EntryKey> {
        self.rows.get(index).map(Row::key)
    }

    /// Appends `other`'s entries after this list's, moving its text over once: the caller keeps
    /// the order (a keyset page only holds entries that come after everything before it).
    pub fn append(&mut self, other: EntryList) {
        let offset = self.text.len();
        self.text.push_str(&other.text);
        let shift = |span: Span| Span {
            start: span.start + offset,
            end: span.end + offset,
        };
        self.rows.extend(other.rows.into_iter().map(|row| Row {
            created_at: shift(row.created_at),
            name: shift(row.name),
            message: shift(row.message),
            ..row
        }));
    }

    /// The first `len` entries of this list, then the entries among the first `older_len` of
    /// `older` that come strictly after the last of them in keyset order (all of them when `len`
    /// is 0) and whose id is not among them: what to show while a fresh read is still paging.
    pub fn with_older_from(&self, len: usize, older: &EntryList, older_len: usize) -> EntryList {
        let newer = &self.rows[..len.min(self.rows.len())];
        let older = (older, &older.rows[..older_len.min(older.rows.len())]);
        let ids: std::collections::HashSet<u64> = newer.iter().map(|row| id_bits(row.id)).collect();
        let last = newer.last().map(Row::key);
        let mut list = EntryList::default();
        for row in newer {
            list.push_copy(self, row);
        }
        for row in older.1 {
            if last.is_none_or(|last| row.key() < last) && !ids.contains(&id_bits(row.id)) {
                list.push_copy(older.0, row);
            }
        }
        list
    }

    /// Appends a copy of `row` of `from`, its strings copied into this list's buffer.
    fn push_copy(&mut self, from: &EntryList, row: &Row) {
        let created_at = append(&mut self.text, 0, from.str(row.created_at));
        let name = append(&mut self.text, 0, from.str(row.name));
        let message = append(&mut self.text, 0, from.str(row.message));
        self.rows.push(Row {
            created_at,
            name,
            message,
            ..*row
        });
    }

    /// Each row in the server's order, and the text of the strings that had escapes; their
    /// spans point past the end of `text`, where that text goes.
    fn rows_of(text: &str) -> Result<(Vec<Row>, String), SchemaError> {
        let mut rows = Vec::new();
        let mut unescaped = String::new();
        validate_entries(text, |entry| {
            let mut span = |value: Cow<'_, str>| match value {
                Cow::Borrowed(borrowed) => match borrowed_span(text, borrowed) {
                    Some(span) => span,
                    None => append(&mut unescaped, text.len(), borrowed),
                },
                Cow::Owned(owned) => append(&mut unescaped, text.len(), &owned),
            };
            let row = Row {
                id: entry.id,
                instant: entry.instant,
                created_at: span(entry.created_at),
                name: span(entry.name),
                message: span(entry.message),
            };
            rows.push(row);
        })?;
        Ok((rows, unescaped))
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The entry at `index` (0 is the newest), or `None` past the end.
    pub fn get(&self, index: usize) -> Option<EntryRef<'_>> {
        self.rows.get(index).map(|row| self.entry(row))
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = EntryRef<'_>> + '_ {
        self.rows.iter().map(|row| self.entry(row))
    }

    fn entry(&self, row: &Row) -> EntryRef<'_> {
        EntryRef {
            id: row.id,
            created_at: self.str(row.created_at),
            name: self.str(row.name),
            message: self.str(row.message),
        }
    }

    fn str(&self, span: Span) -> &str {
        self.text
            .get(span.start..span.end)
            .expect("spans are made from string slices of `text`: in range, on char boundaries")
    }
}

/// Where an entry stands in the keyset order: its `created_at` instant, then its id. Entries
/// compare as these do; newest first is descending.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntryKey {
    pub instant: i128,
    pub id: f64,
}

impl Eq for EntryKey {}

impl PartialOrd for EntryKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for EntryKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.instant
            .cmp(&other.instant)
            .then_with(|| self.id.total_cmp(&other.id))
    }
}

impl Row {
    fn key(&self) -> EntryKey {
        EntryKey {
            instant: self.instant,
            id: self.id,
        }
    }
}

/// An id as a set member: its bits, with `-0` folded into `0`.
pub(crate) fn id_bits(id: f64) -> u64 {
    (id + 0.0).to_bits()
}

/// Where a string serde borrowed from the body lies in it.
fn borrowed_span(text: &str, borrowed: &str) -> Option<Span> {
    let start = (borrowed.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start + borrowed.len();
    text.get(start..end)?;
    Some(Span { start, end })
}

/// Appends a string to the text that will follow the body, returning its final span.
fn append(unescaped: &mut String, body_len: usize, value: &str) -> Span {
    let start = body_len + unescaped.len();
    unescaped.push_str(value);
    Span {
        start,
        end: start + value.len(),
    }
}

/// Orders the entries newest first and packs their strings into one buffer.
impl From<Vec<Entry>> for EntryList {
    fn from(mut entries: Vec<Entry>) -> Self {
        sort_newest_first(&mut entries);
        let mut text = String::new();
        let rows = entries
            .iter()
            .map(|entry| Row {
                id: entry.id,
                instant: entry.created_at.unix_nanos(),
                created_at: append(&mut text, 0, entry.created_at.as_str()),
                name: append(&mut text, 0, &entry.name),
                message: append(&mut text, 0, &entry.message),
            })
            .collect();
        EntryList { text, rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logbook::schema::reference::parse_entries;
    use crate::logbook::test_support::entries;
    use crate::logbook::timestamp::Timestamp;
    use proptest::prelude::*;

    /// What the reference path makes of a body: its entries, newest first.
    fn reference(body: &str) -> Result<Vec<Entry>, SchemaError> {
        let mut entries = parse_entries(body)?;
        sort_newest_first(&mut entries);
        Ok(entries)
    }

    fn owned(list: &EntryList) -> Vec<Entry> {
        list.iter()
            .map(|entry| Entry {
                id: entry.id,
                created_at: Timestamp::parse(entry.created_at).unwrap(),
                name: entry.name.into(),
                message: entry.message.into(),
            })
            .collect()
    }

    fn parse(body: &str) -> Result<EntryList, SchemaError> {
        EntryList::parse(body.to_owned())
    }

    #[test]
    fn reads_rows_newest_first_with_the_server_text() {
        let body = r#"[
            {"id":1,"created_at":"2024-05-01T10:00:00+00:00","name":"a","message":"x","extra":[1,{"y":null}]},
            {"id":2.5e1,"created_at":"2024-05-01 12:00:00+02","name":"<b>b</b>","message":""},
            {"id":3,"created_at":"2024-05-01T13:00:00Z","name":"c","message":"z"}
        ]"#;
        let list = parse(body).unwrap();
        assert_eq!(list.len(), 3);
        let ids: Vec<f64> = list.iter().map(|entry| entry.id).collect();
        assert_eq!(ids, [3.0, 1.0, 25.0]);
        assert_eq!(
            list.get(2),
            Some(EntryRef {
                id: 25.0,
                created_at: "2024-05-01 12:00:00+02",
                name: "<b>b</b>",
                message: "",
            })
        );
        assert_eq!(list.get(3), None);
        assert!(parse("[]").unwrap().is_empty());
    }

    #[test]
    fn escaped_strings_are_unescaped() {
        let body = r#"[{"id":1,"created_at":"2024-05-01T10:00:00\u002B00:00","name":"A \"quoted\"\nname","message":"\ud83d\ude00 \u05e9 \\ \/"}]"#;
        let list = parse(body).unwrap();
        let entry = list.get(0).unwrap();
        assert_eq!(entry.created_at, "2024-05-01T10:00:00+00:00");
        assert_eq!(entry.name, "A \"quoted\"\nname");
        assert_eq!(entry.message, "😀 ש \\ /");
    }

    #[test]
    fn ties_keep_the_server_order() {
        let body = r#"[
            {"id":1,"created_at":"2024-05-01T10:00:00Z","name":"a","message":""},
            {"id":2,"created_at":"2024-05-01T12:00:00+02:00","name":"b","message":""},
            {"id":3,"created_at":"2024-05-01T11:00:00Z","name":"c","message":""}
        ]"#;
        let ids: Vec<f64> = parse(body).unwrap().iter().map(|entry| entry.id).collect();
        assert_eq!(ids, [3.0, 1.0, 2.0]);
    }

    #[test]
    fn mismatches_are_reported_exactly() {
        let cases = [
            (r#"[{"id":1,"created_at":5,"name":"n","message":"m"}]"#, "entry 0: field \"created_at\": expected a timestamp string, found number 5"),
            (r#"[{"id":1,"created_at":"2024-02-30T00:00:00Z","name":"n","message":"m"}]"#, "entry 0: field \"created_at\": expected a timestamp string, found string \"2024-02-30T00:00:00Z\""),
            (r#"[{"id":"1","created_at":"2024-01-01T00:00:00Z","name":"n","message":"m"}]"#, "entry 0: field \"id\": expected a number, found string \"1\""),
            (r#"[{"id":1,"created_at":"2024-01-01T00:00:00Z","name":"n"}]"#, "entry 0: field \"message\": expected a string, found nothing"),
            (r#"{"id":1}"#, "expected an array of entries, found object"),
            (r#"[{"id":1,"created_at":"2024-01-01T00:00:00Z","name":"n","message":"m"},7]"#, "entry 1: expected an object, found number 7"),
        ];
        for (body, message) in cases {
            assert_eq!(parse(body).unwrap_err().to_string(), message, "{body}");
        }
        let error = parse("[{]").unwrap_err();
        assert_eq!(error.code(), "invalid_json");
    }

    #[test]
    fn duplicate_keys_count_the_last_one_as_the_reference_does() {
        let body = r#"[{"id":1,"id":2,"created_at":"2024-01-01T00:00:00Z","name":"a","name":"b","message":"m"}]"#;
        let list = parse(body).unwrap();
        let entry = list.get(0).unwrap();
        assert_eq!((entry.id, entry.name), (2.0, "b"));
        let body =
            r#"[{"id":1,"id":"x","created_at":"2024-01-01T00:00:00Z","name":"a","message":"m"}]"#;
        assert_eq!(parse(body).unwrap_err().field(), Some("id"));
    }

    proptest! {
        #[test]
        fn agrees_with_the_reference_on_any_valid_list(entries in entries(0..12)) {
            let body = serde_json::to_string(&entries).unwrap();
            let list = parse(&body).unwrap();
            prop_assert_eq!(owned(&list), reference(&body).unwrap());
            prop_assert_eq!(list.len(), entries.len());
        }

        #[test]
        fn agrees_with_the_reference_on_any_text(body in prop_oneof![
            "[\\[\\]{}\",:a-z0-9\\\\ -]{0,40}",
            entries(1..4).prop_flat_map(|entries| {
                let body = serde_json::to_string(&entries).unwrap();
                let len = body.len();
                (Just(body), 0..len, "[\\[\\]{}\",:a-z0-9\\\\ -]{0,3}")
            }).prop_map(|(body, at, insert)| {
                let at = (0..=at).rev().find(|&at| body.is_char_boundary(at)).unwrap_or(0);
                format!("{}{insert}{}", &body[..at], &body[at..])
            }),
        ]) {
            match (parse(&body), reference(&body)) {
                (Ok(list), Ok(entries)) => prop_assert_eq!(owned(&list), entries),
                (Err(error), Err(expected)) => prop_assert_eq!(error, expected),
                (got, expected) => prop_assert!(false, "{body:?}: {got:?} but the reference gives {expected:?}"),
            }
        }

        #[test]
        fn building_from_entries_is_the_same_list(entries in entries(0..12)) {
            let body = serde_json::to_string(&entries).unwrap();
            prop_assert_eq!(
                owned(&EntryList::from(entries.clone())),
                owned(&parse(&body).unwrap())
            );
        }
    }

    #[test]
    fn appended_pages_keep_their_text_and_order() {
        let mut list = parse(
            r#"[{"id":2,"created_at":"2024-05-02T00:00:00Z","name":"b","message":"\u00e9"}]"#,
        )
        .unwrap();
        list.append(
            parse(r#"[{"id":1,"created_at":"2024-05-01T00:00:00Z","name":"a","message":"x"}]"#)
                .unwrap(),
        );
        let names: Vec<&str> = list.iter().map(|entry| entry.name).collect();
        assert_eq!(names, ["b", "a"]);
        assert_eq!(list.get(0).unwrap().message, "é");
        assert_eq!(list.get(1).unwrap().created_at, "2024-05-01T00:00:00Z");
    }

    #[test]
    fn keyset_pages_break_ties_on_created_at_by_id() {
        let body = r#"[
            {"id":1,"created_at":"2024-05-01T10:00:00Z","name":"a","message":""},
            {"id":3,"created_at":"2024-05-01T12:00:00+02:00","name":"c","message":""},
            {"id":2,"created_at":"2024-05-01T10:00:01Z","name":"b","message":""}
        ]"#;
        let list = EntryList::parse_keyset_page(body.to_owned()).unwrap();
        let ids: Vec<f64> = list.iter().map(|entry| entry.id).collect();
        assert_eq!(ids, [2.0, 3.0, 1.0]);
    }

    #[test]
    fn older_entries_follow_the_fresh_ones_after_their_last() {
        let row = |id: u32, day: u32| {
            format!(
                r#"{{"id":{id},"created_at":"2024-05-{day:02}T00:00:00Z","name":"n{id}","message":""}}"#
            )
        };
        let fresh = parse(&format!("[{},{},{}]", row(9, 9), row(8, 8), row(7, 7))).unwrap();
        // 8 was edited since (it is older now), 6 and 5 come after the fresh list's 7, 10 is newer.
        let older = parse(&format!(
            "[{},{},{},{},{}]",
            row(10, 10),
            row(8, 6),
            row(7, 7),
            row(6, 6),
            row(5, 5)
        ))
        .unwrap();
        let ids = |list: &EntryList| list.iter().map(|entry| entry.id).collect::<Vec<_>>();
        assert_eq!(
            ids(&fresh.with_older_from(3, &older, 5)),
            [9.0, 8.0, 7.0, 6.0, 5.0]
        );
        assert_eq!(
            ids(&fresh.with_older_from(2, &older, 5)),
            [9.0, 8.0, 7.0, 6.0, 5.0]
        );
        assert_eq!(
            ids(&fresh.with_older_from(1, &older, 4)),
            [9.0, 7.0, 8.0, 6.0]
        );
        assert_eq!(ids(&fresh.with_older_from(0, &older, 2)), [10.0, 7.0]);
        let merged = fresh.with_older_from(1, &older, 5);
        assert_eq!(merged.get(3).unwrap().name, "n6");
        assert_eq!(merged.get(2).unwrap().created_at, "2024-05-06T00:00:00Z");
    }
}
