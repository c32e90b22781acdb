//! The owner's calls, each sent with the owner's access token as the bearer (row-level security
//! and the two functions decide; the page never decides who is an owner): a removal is
//! PostgREST's own delete, asking for the deleted row back to know one happened; the removed
//! entries are read newest removed first in keyset pages under the row cap ([`RemovedPager`]);
//! a restore is one function call.

use std::collections::HashSet;

use serde::Deserialize;

use crate::client::config::ClientConfig;
use crate::client::http::{HttpRequest, HttpResponse, NoResponse};
use crate::logbook::entry_list::{id_bits, EntryList};
use crate::logbook::outcome::{expect_success, LogbookError};
use crate::logbook::schema::SchemaError;
use crate::logbook::timestamp::Timestamp;
use crate::rest::logbook::TABLE;
use crate::rest::pager::{id_text, quote, PageError, PAGE_SIZE};
use crate::rest::Postgrest;

pub const REMOVED_FUNCTION: &str = "removed_geocache_logs";
pub const RESTORE_FUNCTION: &str = "restore_geocache_log";

/// `.from('geocache_logs').delete().eq('id', id).select()`: `Prefer: return=representation`, so
/// the answer holds the row removed, or nothing when row-level security let nothing go.
pub fn remove_entry_request(
    config: &ClientConfig,
    access_token: Option<&str>,
    id: f64,
) -> HttpRequest {
    Postgrest::new(config, access_token)
        .from(TABLE)
        .delete()
        .eq("id", &id_text(id))
        .header("Prefer", "return=representation")
        .build()
}

/// Whether the entry was removed: false when the server removed nothing (not an owner, not at
/// AAL2, or already gone), which PostgREST answers as success with no row.
pub fn remove_entry_outcome(
    response: Result<HttpResponse, NoResponse>,
) -> Result<bool, LogbookError> {
    let response = expect_success(response)?;
    let status = response.status;
    if status == 204 {
        return Ok(false);
    }
    let removed =
        EntryList::parse(response.body).map_err(|error| LogbookError::Body { status, error })?;
    Ok(!removed.is_empty())
}

/// `.rpc('restore_geocache_log', {entry_id: id})`
pub fn restore_entry_request(
    config: &ClientConfig,
    access_token: Option<&str>,
    id: f64,
) -> HttpRequest {
    Postgrest::new(config, access_token)
        .rpc(
            RESTORE_FUNCTION,
            format!(r#"{{"entry_id":{}}}"#, id_text(id)),
        )
        .build()
}

/// The restored entry (the function returns it as its one row).
pub fn restore_entry_outcome(
    response: Result<HttpResponse, NoResponse>,
) -> Result<EntryList, LogbookError> {
    crate::rest::logbook::list_entries_outcome(response)
}

/// A removed entry as the owner's list shows it: the entry and when it was removed (the server's
/// timestamp texts, verbatim).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RemovedEntry {
    pub id: f64,
    pub created_at: String,
    pub name: String,
    pub message: String,
    pub removed_at: String,
}

/// What to do after a page of removed entries.
#[derive(Debug, Clone, PartialEq)]
pub enum RemovedStep {
    /// The page's new rows, in order; another page follows.
    Next(Vec<RemovedEntry>),
    /// Nothing past the cursor: every removed entry has been read.
    Done,
}

/// The removed entries, most recently removed first, in keyset pages as [`super::pager::Pager`]
/// reads the entries: on (`removed_at` desc, `id` desc), each page strictly after the last row,
/// ending on a page with nothing new, so a cap below the page size still reads every row.
#[derive(Debug, Clone)]
pub struct RemovedPager {
    page_size: u64,
    page: u32,
    /// The last row read: its `removed_at` text verbatim and its instant, and its id.
    cursor: Option<(String, i128, f64)>,
    seen: HashSet<u64>,
}

impl Default for RemovedPager {
    fn default() -> Self {
        RemovedPager::new(PAGE_SIZE)
    }
}

impl RemovedPager {
    pub fn new(page_size: u64) -> Self {
        RemovedPager {
            page_size: page_size.max(1),
            page: 1,
            cursor: None,
            seen: HashSet::new(),
        }
    }

    /// `.rpc('removed_geocache_logs', {}).order('removed_at', {ascending: false}).order('id',
    /// {ascending: false}).limit(page_size)`, and after the first page the keyset `or`.
    pub fn request(&self, config: &ClientConfig, access_token: Option<&str>) -> HttpRequest {
        let builder = Postgrest::new(config, access_token)
            .rpc(REMOVED_FUNCTION, "{}")
            .order("removed_at", false)
            .order("id", false)
            .limit(self.page_size);
        match &self.cursor {
            Some((removed_at, _, id)) => {
                let quoted = quote(removed_at);
                let id = id_text(*id);
                builder.or(&format!(
                    "removed_at.lt.{quoted},and(removed_at.eq.{quoted},id.lt.{id})"
                ))
            }
            None => builder,
        }
        .build()
    }

    /// Takes the outcome of [`RemovedPager::request`]; an error names the page.
    pub fn accept(
        &mut self,
        response: Result<HttpResponse, NoResponse>,
    ) -> Result<RemovedStep, PageError> {
        let page = self.page;
        let fail = |error| PageError { page, error };
        let mut keyed = Vec::new();
        let status = response.as_ref().map_or(0, |response| response.status);
        for row in rows::<RemovedEntry>(response).map_err(fail)? {
            let instant = Timestamp::parse(&row.removed_at)
                .map_err(|error| {
                    fail(LogbookError::Body {
                        status,
                        error: SchemaError::InvalidJson {
                            reason: format!("removed_at: {error}"),
                        },
                    })
                })?
                .unix_nanos();
            keyed.push((instant, row));
        }
        // Newest removed first, whatever order the server used; rows at or before the cursor go.
        keyed.sort_by(|(a, x), (b, y)| b.cmp(a).then(y.id.total_cmp(&x.id)));
        if let Some((_, instant, id)) = &self.cursor {
            keyed.retain(|(at, row)| (*at, row.id) < (*instant, *id));
        }
        let Some((instant, last)) = keyed.last() else {
            return Ok(RemovedStep::Done);
        };
        self.cursor = Some((last.removed_at.clone(), *instant, last.id));
        let seen = &mut self.seen;
        let fresh = keyed
            .into_iter()
            .map(|(_, row)| row)
            .filter(|row| seen.insert(id_bits(row.id)))
            .collect();
        self.page += 1;
        Ok(RemovedStep::Next(fresh))
    }
}

/// A successful body as rows of `T`, or the classified failure. Only the owner's builds carry
/// this serde parser; the visitor's reads go through the entries' own reader.
fn rows<T: for<'de> Deserialize<'de>>(
    response: Result<HttpResponse, NoResponse>,
) -> Result<Vec<T>, LogbookError> {
    let response = expect_success(response)?;
    let status = response.status;
    serde_json::from_str(&response.body).map_err(|error| LogbookError::Body {
        status,
        error: SchemaError::InvalidJson {
            reason: error.to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::http::{Method, NetworkFailure};

    fn config() -> ClientConfig {
        ClientConfig::new("http://127.0.0.1:54321", "sb_publishable_k").unwrap()
    }

    #[test]
    fn a_removal_is_postgrest_delete_with_the_owner_token_asking_for_the_row() {
        let request = remove_entry_request(&config(), Some("owner-token"), 42.0);
        assert_eq!(request.method, Method::Delete);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/rest/v1/geocache_logs?id=eq.42"
        );
        assert_eq!(request.header("authorization"), Some("Bearer owner-token"));
        assert_eq!(request.header("prefer"), Some("return=representation"));
        assert_eq!(request.body, None);
    }

    #[test]
    fn a_removal_tells_whether_a_row_went() {
        let row =
            r#"[{"id":42,"created_at":"2024-05-01T10:00:00+00:00","name":"a","message":"b"}]"#;
        assert_eq!(
            remove_entry_outcome(Ok(HttpResponse::new(200, row))),
            Ok(true)
        );
        assert_eq!(
            remove_entry_outcome(Ok(HttpResponse::new(200, "[]"))),
            Ok(false)
        );
        assert_eq!(
            remove_entry_outcome(Ok(HttpResponse::new(204, ""))),
            Ok(false)
        );
        let anon = remove_entry_outcome(Ok(HttpResponse::new(
            401,
            r#"{"code":"42501","message":"permission denied for table geocache_logs"}"#,
        )))
        .unwrap_err();
        assert_eq!((anon.status(), anon.code()), (401, "42501"));
        let lost = remove_entry_outcome(Err(NoResponse::Network(NetworkFailure {
            message: "offline".into(),
        })))
        .unwrap_err();
        assert_eq!(lost.code(), "network_error");
    }

    #[test]
    fn a_restore_calls_the_function_with_the_id() {
        let request = restore_entry_request(&config(), Some("owner-token"), 7.0);
        assert_eq!(request.method, Method::Post);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/rest/v1/rpc/restore_geocache_log"
        );
        assert_eq!(request.body.as_deref(), Some(r#"{"entry_id":7}"#));
        assert_eq!(request.header("content-type"), Some("application/json"));
        let missing = restore_entry_outcome(Ok(HttpResponse::new(
            500,
            r#"{"code":"P0002","message":"Entry 7 is not a removed entry."}"#,
        )))
        .unwrap_err();
        assert_eq!(missing.code(), "P0002");
        assert_eq!(missing.to_string(), "Entry 7 is not a removed entry.");
    }

    fn removed(id: i64, second: i64) -> String {
        format!(
            r#"{{"id":{id},"created_at":"2024-01-01T00:00:00+00:00","name":"n{id}","message":"m","removed_at":"2024-05-01T10:00:{second:02}+00:00"}}"#
        )
    }

    /// Serves `table` (id, removed second) newest removed first, `cap` rows a page, honouring
    /// the keyset `or` read back out of the URL.
    fn serve(table: &[(i64, i64)], cap: usize, request: &HttpRequest) -> HttpResponse {
        let query = request.url.split_once('?').unwrap().1;
        let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        assert!(pairs.contains(&("order".into(), "removed_at.desc,id.desc".into())));
        let after = pairs.iter().find(|(key, _)| key == "or").map(|(_, value)| {
            let at = value.find("10:00:").unwrap() + 6;
            let second: i64 = value[at..at + 2].parse().unwrap();
            let id: i64 = value
                .rsplit("id.lt.")
                .next()
                .unwrap()
                .trim_end_matches("))")
                .parse()
                .unwrap();
            (second, id)
        });
        let mut rows: Vec<(i64, i64)> = table
            .iter()
            .copied()
            .filter(|&(id, second)| after.is_none_or(|cursor| (second, id) < cursor))
            .collect();
        rows.sort_by_key(|&(id, second)| std::cmp::Reverse((second, id)));
        rows.truncate(cap);
        let body: Vec<String> = rows
            .iter()
            .map(|&(id, second)| removed(id, second))
            .collect();
        HttpResponse::new(200, format!("[{}]", body.join(",")))
    }

    #[test]
    fn the_removed_list_pages_under_the_row_cap_newest_removed_first() {
        // Two rows removed each second, so page boundaries cross ties on removed_at.
        let table: Vec<(i64, i64)> = (1..=9).map(|id| (id, id / 2)).collect();
        let mut pager = RemovedPager::new(4);
        let mut read = Vec::new();
        let mut requests = 0;
        loop {
            let request = pager.request(&config(), Some("owner-token"));
            assert_eq!(request.method, Method::Post);
            assert!(request
                .url
                .starts_with("http://127.0.0.1:54321/rest/v1/rpc/removed_geocache_logs?"));
            assert_eq!(request.body.as_deref(), Some("{}"));
            requests += 1;
            // A cap of 3 below the page size of 4.
            match pager.accept(Ok(serve(&table, 3, &request))).unwrap() {
                RemovedStep::Next(rows) => read.extend(rows.into_iter().map(|row| row.id as i64)),
                RemovedStep::Done => break,
            }
        }
        assert_eq!(read, vec![9, 8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(requests, 4);
    }

    #[test]
    fn a_failed_page_is_named_and_a_malformed_row_is_refused() {
        let mut pager = RemovedPager::default();
        let refused = pager
            .accept(Ok(HttpResponse::new(
                403,
                r#"{"code":"42501","message":"Only the logbook's owner may list removed entries."}"#,
            )))
            .unwrap_err();
        assert_eq!((refused.page, refused.error.code()), (1, "42501"));
        let malformed = pager
            .accept(Ok(HttpResponse::new(200, r#"[{"id":1}]"#)))
            .unwrap_err();
        assert_eq!(malformed.error.code(), "invalid_json");
        let bad_time = removed(1, 0).replace("2024-05-01T10:00:00+00:00", "soon");
        let malformed = pager
            .accept(Ok(HttpResponse::new(200, format!("[{bad_time}]"))))
            .unwrap_err();
        assert!(malformed.error.to_string().contains("removed_at"));
    }
}
