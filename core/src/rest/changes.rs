//! What a device kept offline catches up on: `geocache_log_changes`, the removals and restores
//! (and imports) anyone may read, numbered by `seq`. A device keeps the last `seq` it applied and
//! reads the changes after it in keyset pages (`seq=gt.<cursor>`, oldest first, under the row
//! cap); a device without a copy starts from the newest cursor. Entries a change says were
//! added are read by id, since their `created_at` may be older than any read by time reaches.

use crate::client::config::ClientConfig;
use crate::client::http::{HttpRequest, HttpResponse, NoResponse};
use crate::logbook::entry_list::EntryList;
use crate::logbook::json_shape::Shape;
use crate::logbook::outcome::{expect_success, LogbookError};
use crate::logbook::schema::{read_rows, RowFields, SchemaError};
use crate::rest::pager::id_text;
use crate::rest::Postgrest;

pub const CHANGES_TABLE: &str = "geocache_log_changes";

/// Changes asked for per page: hosted Supabase's default row cap.
pub const CHANGES_PAGE_SIZE: u64 = 1000;

/// What happened to an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Deleted (by the owner, the service role or the SQL editor).
    Removed,
    /// Inserted with a `created_at` older than its insert: a restore or an import.
    Added,
}

/// One row of the changes table.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub seq: i64,
    pub entry_id: f64,
    pub change: ChangeKind,
}

/// `.from('geocache_log_changes').select('seq,entry_id,change').gt('seq', after).order('seq',
/// {ascending: true}).limit(limit)`
pub fn changes_request(
    config: &ClientConfig,
    session_token: Option<&str>,
    after: i64,
    limit: u64,
) -> HttpRequest {
    Postgrest::new(config, session_token)
        .from(CHANGES_TABLE)
        .select("seq,entry_id,change")
        .gt("seq", &after.to_string())
        .order("seq", true)
        .limit(limit)
        .build()
}

/// `.from('geocache_log_changes').select('seq').order('seq', {ascending: false}).limit(1)`: where
/// a device with no copy starts.
pub fn newest_change_request(config: &ClientConfig, session_token: Option<&str>) -> HttpRequest {
    Postgrest::new(config, session_token)
        .from(CHANGES_TABLE)
        .select("seq")
        .order("seq", false)
        .limit(1)
        .build()
}

/// The changes of a page, oldest first as asked; rows at or before `after` (a server that ignored
/// the filter) are dropped, so a caller paging until an empty page always ends.
pub fn changes_outcome(
    response: Result<HttpResponse, NoResponse>,
    after: i64,
) -> Result<Vec<Change>, LogbookError> {
    let mut changes = Vec::new();
    read_changes(response, &mut |index, [seq, entry_id, change, _]| {
        let entry_id = match entry_id.as_ref().and_then(Shape::as_f64) {
            Some(id) => id,
            None => {
                return Err(SchemaError::mismatch(
                    index,
                    "entry_id",
                    "a number",
                    entry_id.as_ref(),
                ))
            }
        };
        let change = match &change {
            Some(Shape::String(kind)) if kind == "removed" => ChangeKind::Removed,
            Some(Shape::String(kind)) if kind == "added" => ChangeKind::Added,
            _ => {
                return Err(SchemaError::mismatch(
                    index,
                    "change",
                    "\"removed\" or \"added\"",
                    change.as_ref(),
                ))
            }
        };
        changes.push(Change {
            seq: seq_of(index, seq)?,
            entry_id,
            change,
        });
        Ok(())
    })?;
    changes.retain(|change| change.seq > after);
    changes.sort_by_key(|change| change.seq);
    Ok(changes)
}

/// The newest `seq`, 0 when the table is empty.
pub fn newest_change_outcome(
    response: Result<HttpResponse, NoResponse>,
) -> Result<i64, LogbookError> {
    let mut newest = 0;
    read_changes(response, &mut |index, [seq, ..]| {
        newest = newest.max(seq_of(index, seq)?);
        Ok(())
    })?;
    Ok(newest)
}

/// The columns a change row is read by. The entries' reader takes four keys; a change has three,
/// and no column is named "".
const CHANGE_KEYS: [&str; 4] = ["seq", "entry_id", "change", ""];

/// A successful body's rows, each handed to `check`, or the classified failure. Through the
/// entries' own reader: a parser of its own would be another copy of serde_json's in the wasm.
fn read_changes(
    response: Result<HttpResponse, NoResponse>,
    check: &mut dyn FnMut(usize, RowFields<'_>) -> Result<(), SchemaError>,
) -> Result<(), LogbookError> {
    let response = expect_success(response)?;
    let status = response.status;
    read_rows(&response.body, &CHANGE_KEYS, check)
        .map_err(|error| LogbookError::Body { status, error })
}

fn seq_of(index: usize, seq: Option<Shape<'_>>) -> Result<i64, SchemaError> {
    let integer = match &seq {
        Some(Shape::Number(number)) => number.as_i64(),
        _ => None,
    };
    integer.ok_or_else(|| SchemaError::mismatch(index, "seq", "an integer", seq.as_ref()))
}

/// `.from('geocache_logs').select('*').in('id', ids).order('created_at', {ascending: false})`:
/// the entries a change says were added (at most a page's worth at a time: the caller splits).
pub fn entries_by_id_request(
    config: &ClientConfig,
    session_token: Option<&str>,
    ids: &[f64],
) -> HttpRequest {
    let ids: Vec<String> = ids.iter().map(|&id| id_text(id)).collect();
    Postgrest::new(config, session_token)
        .from(crate::rest::logbook::TABLE)
        .select("*")
        .in_list("id", &ids)
        .order("created_at", false)
        .build()
}

/// Entries read by id: validated as any list is.
pub fn entries_by_id_outcome(
    response: Result<HttpResponse, NoResponse>,
) -> Result<EntryList, LogbookError> {
    crate::rest::logbook::list_entries_outcome(response)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::http::Method;

    fn config() -> ClientConfig {
        ClientConfig::new("http://127.0.0.1:54321", "sb_publishable_k").unwrap()
    }

    #[test]
    fn changes_are_read_after_a_cursor_oldest_first() {
        let request = changes_request(&config(), None, 41, 1000);
        assert_eq!(request.method, Method::Get);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/rest/v1/geocache_log_changes?select=seq%2Centry_id%2Cchange&seq=gt.41&order=seq.asc&limit=1000"
        );
        assert_eq!(
            request.header("authorization"),
            Some("Bearer sb_publishable_k")
        );
    }

    #[test]
    fn the_newest_cursor_is_one_row_newest_first() {
        let request = newest_change_request(&config(), None);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/rest/v1/geocache_log_changes?select=seq&order=seq.desc&limit=1"
        );
        assert_eq!(
            newest_change_outcome(Ok(HttpResponse::new(200, "[]"))),
            Ok(0)
        );
        assert_eq!(
            newest_change_outcome(Ok(HttpResponse::new(200, r#"[{"seq":17}]"#))),
            Ok(17)
        );
    }

    #[test]
    fn changes_are_classified_once() {
        let body = r#"[{"seq":3,"entry_id":9,"change":"added"},{"seq":2,"entry_id":8,"change":"removed"},{"seq":1,"entry_id":7,"change":"removed"}]"#;
        let changes = changes_outcome(Ok(HttpResponse::new(200, body)), 1).unwrap();
        assert_eq!(
            changes,
            vec![
                Change {
                    seq: 2,
                    entry_id: 8.0,
                    change: ChangeKind::Removed
                },
                Change {
                    seq: 3,
                    entry_id: 9.0,
                    change: ChangeKind::Added
                },
            ]
        );
        let unknown = changes_outcome(
            Ok(HttpResponse::new(
                200,
                r#"[{"seq":1,"entry_id":1,"change":"edited"}]"#,
            )),
            0,
        )
        .unwrap_err();
        assert_eq!(unknown.code(), "schema_mismatch");
        let not_a_cursor =
            newest_change_outcome(Ok(HttpResponse::new(200, r#"[{"seq":"7"}]"#))).unwrap_err();
        assert_eq!(not_a_cursor.code(), "schema_mismatch");
        let not_json = newest_change_outcome(Ok(HttpResponse::new(200, "[{"))).unwrap_err();
        assert_eq!(not_json.code(), "invalid_json");
        let refused = changes_outcome(
            Ok(HttpResponse::new(
                404,
                r#"{"code":"PGRST205","message":"no table"}"#,
            )),
            0,
        )
        .unwrap_err();
        assert_eq!((refused.status(), refused.code()), (404, "PGRST205"));
    }

    #[test]
    fn added_entries_are_read_by_id() {
        let request = entries_by_id_request(&config(), None, &[4.0, 12.0]);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/rest/v1/geocache_logs?select=*&id=in.%284%2C12%29&order=created_at.desc"
        );
    }
}
