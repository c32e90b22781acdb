//! Reading every entry in keyset pages, whatever the server's row cap (`db-max-rows`, 1,000 on
//! hosted projects): newest first by `created_at` then `id`, both descending, each page starting
//! strictly after the last entry seen so far. The [`Pager`] is the whole decision, over explicit
//! values: it names the next request, takes that request's outcome and says whether another page
//! follows. The caller only sends requests (with the read retries) and keeps the entries.
//!
//! The listing ends on a page with nothing past the cursor, never on a short page: a server whose
//! cap is below the page size asked for (7 rows of 1,000) still gets its next page. Rows at or
//! before the cursor are dropped, so a server that ignores the filter ends the listing instead of
//! looping, and rows inserted while it pages (newer than the cursor) cannot come back. N pages
//! cost at most N + 1 requests.
//!
//! [`Pager::newer_than`] reads only the entries created at or after an instant, in the same order
//! and pages (`created_at=gte.<instant>` on every request): what a copy of the logbook kept on the
//! device needs to catch up. The instant is inclusive so entries committed in the same instant as
//! the newest one kept are read again rather than missed; the caller drops the ids it has.

use std::collections::HashSet;

use crate::client::config::ClientConfig;
use crate::client::http::{HttpRequest, HttpResponse, NoResponse};
use crate::logbook::entry_list::{id_bits, EntryKey, EntryList};
use crate::logbook::outcome::{expect_success, LogbookError};
use crate::logbook::timestamp::{Timestamp, TimestampError};
use crate::rest::content_range;
use crate::rest::logbook::TABLE;
use crate::rest::Postgrest;

/// Rows asked for per page: hosted Supabase's default cap, so a page is one capped read.
pub const PAGE_SIZE: u64 = 1000;

/// A page that failed, after its retries: which one (1-based) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("page {page}: {error}")]
pub struct PageError {
    pub page: u32,
    #[source]
    pub error: LogbookError,
}

/// What to do after a page.
#[derive(Debug, Clone, PartialEq)]
pub enum PageStep {
    /// The page's new entries, in order, to append to those read before; another page follows.
    /// Empty when every row past the cursor repeated an id already read.
    Next(EntryList),
    /// The page had nothing past the cursor: every entry has been read.
    Done,
}

/// Where the next page starts: the last entry read, its `created_at` exactly as the server sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct Cursor {
    created_at: String,
    key: EntryKey,
}

impl Cursor {
    /// `created_at.lt."C",and(created_at.eq."C",id.lt.I)`: the rows strictly after this one in
    /// (created_at desc, id desc) order. The timestamp is quoted (it holds `:`, `.`, `+`, which
    /// PostgREST's grammar reserves), with `"` and `\` escaped inside the quotes.
    pub fn filter(&self) -> String {
        let quoted = quote(&self.created_at);
        let id = id_text(self.key.id);
        format!("created_at.lt.{quoted},and(created_at.eq.{quoted},id.lt.{id})")
    }
}

/// `id` as a filter value: a whole id (every id a `bigint` column holds) as an integer, without an exponent
/// (42.0 is "42"), and any other as JSON writes it (not a `bigint` either way). f64's `Display` would do the same
/// for whole ids, but it links a second float printer into the page's wasm, which every visitor downloads.
pub(crate) fn id_text(id: f64) -> String {
    /// 2^63: every whole f64 below it in magnitude is an exact i64.
    const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if id.fract() == 0.0 && id.abs() < I64_LIMIT {
        // Whole and in range, so the cast is exact.
        (id as i64).to_string()
    } else {
        crate::client::request_timeout::json_number(id)
    }
}

pub(crate) fn quote(value: &str) -> String {
    let mut quoted = String::with_capacity(value.len() + 2);
    quoted.push('"');
    for c in value.chars() {
        if matches!(c, '"' | '\\') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

/// The keyset read of the whole logbook, one page at a time.
#[derive(Debug, Clone)]
pub struct Pager {
    page_size: u64,
    /// The page the next request asks for, from 1.
    page: u32,
    cursor: Option<Cursor>,
    /// Only entries created at or after this instant (the server's timestamp text, validated).
    since: Option<Timestamp>,
    /// Ids already read (as bits, `-0` folded into `0`): a row is kept once.
    seen: HashSet<u64>,
}

impl Default for Pager {
    fn default() -> Self {
        Pager::new(PAGE_SIZE)
    }
}

impl Pager {
    /// A pager asking for `page_size` rows a page (at least 1).
    ///
    /// ```
    /// use geocache_core::rest::pager::Pager;
    /// use geocache_core::ClientConfig;
    ///
    /// let config = ClientConfig::new("https://abc.supabase.co", "key")?;
    /// let pager = Pager::new(500);
    /// assert_eq!(pager.page(), 1);
    /// let request = pager.request(&config, None);
    /// assert!(request.url.starts_with("https://abc.supabase.co/rest/v1/geocache_logs?"));
    /// assert!(request.url.contains("limit=500"));
    /// # Ok::<(), geocache_core::ConfigError>(())
    /// ```
    pub fn new(page_size: u64) -> Self {
        Pager {
            page_size: page_size.max(1),
            page: 1,
            cursor: None,
            since: None,
            seen: HashSet::new(),
        }
    }

    /// A pager reading only the entries whose `created_at` is at or after `since` (a timestamp as
    /// PostgREST writes them, any offset), newest first, `page_size` rows a page. A `since` that is
    /// not a timestamp is refused before anything is sent.
    ///
    /// ```
    /// use geocache_core::rest::pager::Pager;
    /// use geocache_core::ClientConfig;
    ///
    /// let config = ClientConfig::new("https://abc.supabase.co", "key")?;
    /// let pager = Pager::newer_than(1000, "2024-05-01T10:00:00+00:00").expect("a timestamp");
    /// let request = pager.request(&config, None);
    /// assert!(request.url.contains("&created_at=gte.2024-05-01T10%3A00%3A00%2B00%3A00"));
    /// assert!(Pager::newer_than(1000, "yesterday").is_err());
    /// # Ok::<(), geocache_core::ConfigError>(())
    /// ```
    pub fn newer_than(page_size: u64, since: &str) -> Result<Self, TimestampError> {
        let since = Timestamp::parse(since)?;
        Ok(Pager {
            since: Some(since),
            ..Pager::new(page_size)
        })
    }

    /// The number of the page [`Pager::request`] asks for, from 1.
    pub fn page(&self) -> u32 {
        self.page
    }

    /// `.from('geocache_logs').select('*').order('created_at', {ascending: false}).order('id',
    /// {ascending: false}).limit(page_size)`, and after the first page `.or(cursor filter)`.
    pub fn request(&self, config: &ClientConfig, session_token: Option<&str>) -> HttpRequest {
        let builder = Postgrest::new(config, session_token)
            .from(TABLE)
            .select("*")
            .order("created_at", false)
            .order("id", false)
            .limit(self.page_size);
        let builder = match &self.since {
            Some(since) => builder.gte("created_at", since.as_str()),
            None => builder,
        };
        match &self.cursor {
            Some(cursor) => builder.or(&cursor.filter()),
            None => builder,
        }
        .build()
    }

    /// Takes the outcome of [`Pager::request`] (after its retries). The body is validated as the
    /// whole list is, its `Content-Range` (when the server sends one) must describe its rows,
    /// and an error names the page. On success the cursor moves to the page's last row.
    pub fn accept(
        &mut self,
        response: Result<HttpResponse, NoResponse>,
    ) -> Result<PageStep, PageError> {
        let page = self.page;
        let mut entries = page_entries(response).map_err(|error| PageError { page, error })?;
        if let Some(cursor) = &self.cursor {
            entries.retain(|key| key < cursor.key);
        }
        let Some(last) = entries.len().checked_sub(1) else {
            return Ok(PageStep::Done);
        };
        self.cursor = entries.get(last).map(|entry| Cursor {
            created_at: entry.created_at.to_owned(),
            key: EntryKey {
                instant: entries.key(last).map_or(0, |key| key.instant),
                id: entry.id,
            },
        });
        let seen = &mut self.seen;
        entries.retain(|key| seen.insert(id_bits(key.id)));
        self.page += 1;
        Ok(PageStep::Next(entries))
    }
}

/// A page's entries in keyset order, checked against its `Content-Range`.
fn page_entries(response: Result<HttpResponse, NoResponse>) -> Result<EntryList, LogbookError> {
    let response = expect_success(response)?;
    let status = response.status;
    let range = response.header("content-range").map(str::to_owned);
    let entries = EntryList::parse_keyset_page(response.body)
        .map_err(|error| LogbookError::Body { status, error })?;
    match range {
        Some(value) if !content_range::matches_rows(&value, entries.len()) => {
            Err(LogbookError::ContentRange {
                status,
                value,
                rows: entries.len(),
            })
        }
        _ => Ok(entries),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_written_as_integers_without_an_exponent() {
        for (id, text) in [
            (42.0, "42"),
            (-7.0, "-7"),
            (0.0, "0"),
            (-0.0, "0"),
            (9_007_199_254_740_993.0, "9007199254740992"),
            (1e18, "1000000000000000000"),
        ] {
            assert_eq!(id_text(id), text, "{id}");
        }
        // Not a bigint: as JSON writes it (the server refuses it either way).
        assert_eq!(id_text(1.5), "1.5");
        assert_eq!(id_text(1e300), "1e+300");
    }
    use crate::client::http::NetworkFailure;
    use crate::logbook::timestamp::Timestamp;

    /// A row of the fake table: id, created_at text.
    type Row = (i64, String);

    fn config() -> ClientConfig {
        ClientConfig::new("https://x.supabase.co", "sb_publishable_k")
            .unwrap()
            .with_client_info("info")
    }

    /// `count` rows, two per second (so every page boundary also crosses a tie on created_at),
    /// in a mix of offset forms.
    fn rows(count: i64) -> Vec<Row> {
        (1..=count)
            .map(|id| {
                let second = id / 2;
                let text = match id % 3 {
                    0 => format!("2024-05-01T10:{:02}:{:02}+00:00", second / 60, second % 60),
                    1 => format!("2024-05-01 12:{:02}:{:02}+02", second / 60, second % 60),
                    _ => format!("2024-05-01T10:{:02}:{:02}.000Z", second / 60, second % 60),
                };
                (id, text)
            })
            .collect()
    }

    fn body(rows: &[Row]) -> String {
        let objects: Vec<String> = rows
            .iter()
            .map(|(id, created_at)| {
                format!(r#"{{"id":{id},"created_at":"{created_at}","name":"n{id}","message":"m"}}"#)
            })
            .collect();
        format!("[{}]", objects.join(","))
    }

    fn key(row: &Row) -> (i128, i64) {
        (Timestamp::parse(&row.1).unwrap().unix_nanos(), row.0)
    }

    /// PostgREST over `table`: reads `limit` and the keyset `or=` back out of the URL, serves
    /// at most `cap` rows newest first, with a Content-Range, or ignores the filter if asked.
    struct Server {
        table: Vec<Row>,
        cap: usize,
        ignore_filter: bool,
        requests: Vec<String>,
    }

    impl Server {
        fn new(table: Vec<Row>, cap: usize) -> Self {
            Server {
                table,
                cap,
                ignore_filter: false,
                requests: Vec::new(),
            }
        }

        fn answer(&mut self, request: &HttpRequest) -> Result<HttpResponse, NoResponse> {
            self.requests.push(request.url.clone());
            let query = request.url.split_once('?').unwrap().1;
            let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
                .into_owned()
                .collect();
            let value = |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| key == name)
                    .map(|(_, value)| value.clone())
            };
            assert_eq!(value("order").as_deref(), Some("created_at.desc,id.desc"));
            let limit: usize = value("limit").unwrap().parse().unwrap();
            let after = value("or").filter(|_| !self.ignore_filter).map(|filter| {
                // (created_at.lt."C",and(created_at.eq."C",id.lt.I))
                let created_at = filter.split('"').nth(1).unwrap();
                let id = filter.rsplit("id.lt.").next().unwrap();
                let id: i64 = id.trim_end_matches(')').parse().unwrap();
                key(&(id, created_at.to_owned()))
            });
            let since = value("created_at").map(|filter| {
                let instant = filter.strip_prefix("gte.").expect("only gte is sent");
                Timestamp::parse(instant).unwrap().unix_nanos()
            });
            let mut rows: Vec<Row> = self
                .table
                .iter()
                .filter(|row| after.is_none_or(|after| key(row) < after))
                .filter(|row| since.is_none_or(|since| key(row).0 >= since))
                .cloned()
                .collect();
            rows.sort_by_key(|row| std::cmp::Reverse(key(row)));
            rows.truncate(limit.min(self.cap));
            let range = match rows.len() {
                0 => "*/*".to_owned(),
                n => format!("0-{}/*", n - 1),
            };
            Ok(HttpResponse::new(200, body(&rows)).with_header("Content-Range", range))
        }
    }

    fn ids(list: &EntryList) -> Vec<i64> {
        list.iter().map(|entry| entry.id as i64).collect()
    }

    /// Pages through `server` to the end: every id read, newest first, or the page error.
    fn read_all(
        pager: &mut Pager,
        server: &mut Server,
        mut between_pages: impl FnMut(&mut Server),
    ) -> Result<Vec<i64>, PageError> {
        let mut all = EntryList::default();
        loop {
            let request = pager.request(&config(), None);
            match pager.accept(server.answer(&request))? {
                PageStep::Next(page) => all.append(page),
                PageStep::Done => return Ok(ids(&all)),
            }
            between_pages(server);
            assert!(server.requests.len() < 1000, "the listing does not end");
        }
    }

    fn newest_first(table: &[Row]) -> Vec<i64> {
        let mut sorted = table.to_vec();
        sorted.sort_by_key(|row| std::cmp::Reverse(key(row)));
        sorted.iter().map(|row| row.0).collect()
    }

    #[test]
    fn requests_are_keyset_pages_as_postgrest_js_encodes_them() {
        let mut pager = Pager::default();
        let first = pager.request(&config(), None);
        assert_eq!(
            first.url,
            "https://x.supabase.co/rest/v1/geocache_logs?select=*&order=created_at.desc%2Cid.desc&limit=1000"
        );
        assert_eq!(
            first.header("authorization"),
            Some("Bearer sb_publishable_k")
        );
        assert_eq!(first.header("apikey"), Some("sb_publishable_k"));
        let page =
            r#"[{"id":7,"created_at":"2024-05-01T10:00:00.5+00:00","name":"a","message":"b"}]"#;
        let step = pager.accept(Ok(HttpResponse::new(200, page))).unwrap();
        assert!(matches!(step, PageStep::Next(ref list) if list.len() == 1));
        assert_eq!(pager.page(), 2);
        let second = pager.request(&config(), Some("user.jwt"));
        assert_eq!(
            second.url,
            "https://x.supabase.co/rest/v1/geocache_logs?select=*&order=created_at.desc%2Cid.desc&limit=1000\
             &or=%28created_at.lt.%222024-05-01T10%3A00%3A00.5%2B00%3A00%22%2Cand%28created_at.eq.%222024-05-01T10%3A00%3A00.5%2B00%3A00%22%2Cid.lt.7%29%29"
        );
        assert_eq!(second.header("authorization"), Some("Bearer user.jwt"));
    }

    #[test]
    fn a_newer_than_read_filters_every_page_and_pages_across_ties() {
        let table = rows(25);
        // Row 10 is at second 5: ids 10 and 11 share it, so the bound is inclusive of both.
        let since = table[9].1.clone();
        let mut server = Server::new(table.clone(), usize::MAX);
        let mut pager = Pager::newer_than(4, &since).unwrap();
        let ids = read_all(&mut pager, &mut server, |_| {}).unwrap();
        let newer: Vec<i64> = newest_first(&table)
            .into_iter()
            .filter(|id| *id >= 10)
            .collect();
        assert_eq!(ids, newer);
        // 16 rows in pages of 4, then one with nothing past the cursor.
        assert_eq!(server.requests.len(), 5);
        let encoded: String = form_urlencoded::byte_serialize(since.as_bytes()).collect();
        assert!(server
            .requests
            .iter()
            .all(|url| url.contains(&format!("&created_at=gte.{encoded}"))));
        assert!(server.requests[1].contains("&or="));
    }

    #[test]
    fn a_newer_than_read_without_newer_rows_ends_at_once() {
        let mut server = Server::new(rows(5), usize::MAX);
        let mut pager = Pager::newer_than(1000, "2030-01-01T00:00:00Z").unwrap();
        assert_eq!(
            read_all(&mut pager, &mut server, |_| {}).unwrap(),
            Vec::<i64>::new()
        );
        assert_eq!(server.requests.len(), 1);
    }

    #[test]
    fn a_newer_than_read_refuses_what_is_not_a_timestamp() {
        for since in ["", "yesterday", "2024-13-01T00:00:00Z", "2024-05-01"] {
            assert!(Pager::newer_than(1000, since).is_err(), "{since:?}");
        }
    }

    #[test]
    fn cursor_values_are_quoted_and_escaped() {
        let cursor = Cursor {
            created_at: r#"a"b\c"#.to_owned(),
            key: EntryKey {
                instant: 0,
                id: 12.0,
            },
        };
        assert_eq!(
            cursor.filter(),
            r#"created_at.lt."a\"b\\c",and(created_at.eq."a\"b\\c",id.lt.12)"#
        );
    }

    #[test]
    fn every_row_is_read_across_pages_and_ties() {
        let table = rows(25);
        let mut server = Server::new(table.clone(), usize::MAX);
        let ids = read_all(&mut Pager::new(4), &mut server, |_| {}).unwrap();
        assert_eq!(ids, newest_first(&table));
        // 7 pages with rows, then one with nothing past the cursor.
        assert_eq!(server.requests.len(), 8);
    }

    #[test]
    fn a_cap_below_the_page_size_does_not_end_the_listing() {
        let table = rows(23);
        let mut server = Server::new(table.clone(), 7);
        let ids = read_all(&mut Pager::default(), &mut server, |_| {}).unwrap();
        assert_eq!(ids, newest_first(&table));
        assert_eq!(server.requests.len(), 5);
        assert!(server
            .requests
            .iter()
            .all(|url| url.contains("&limit=1000")));
    }

    #[test]
    fn a_server_that_ignores_the_filter_ends_the_listing_after_one_page() {
        let table = rows(23);
        let mut server = Server::new(table.clone(), 7);
        server.ignore_filter = true;
        let ids = read_all(&mut Pager::default(), &mut server, |_| {}).unwrap();
        assert_eq!(ids, newest_first(&table)[..7]);
        assert_eq!(server.requests.len(), 2);
    }

    #[test]
    fn rows_inserted_while_paging_neither_repeat_nor_break_the_order() {
        let table = rows(30);
        let mut server = Server::new(table.clone(), 10);
        let mut next_id = 1000;
        let ids = read_all(&mut Pager::default(), &mut server, |server| {
            // Newer than everything read: before the cursor, so not in this listing.
            next_id += 1;
            server
                .table
                .push((next_id, "2030-01-01T00:00:00Z".to_owned()));
        })
        .unwrap();
        assert_eq!(ids, newest_first(&table));
    }

    fn page_of(rows: &[Row]) -> Result<HttpResponse, NoResponse> {
        Ok(HttpResponse::new(200, body(rows)))
    }

    fn next_ids(step: PageStep) -> Vec<i64> {
        match step {
            PageStep::Next(list) => ids(&list),
            PageStep::Done => panic!("the listing ended"),
        }
    }

    #[test]
    fn repeated_rows_are_kept_once_and_wrong_order_is_sorted() {
        let table = rows(6);
        let mut pager = Pager::default();
        // Out of order, with row 5 twice.
        let first = [&table[3], &table[5], &table[4], &table[2], &table[4]].map(Clone::clone);
        assert_eq!(
            next_ids(pager.accept(page_of(&first)).unwrap()),
            [6, 5, 4, 3]
        );
        // The cursor is row 3, whatever order the page came in.
        let request = pager.request(&config(), None);
        assert!(request.url.contains("id.lt.3%29%29"), "{}", request.url);
        // Row 3 again (at the cursor), row 4 again (before it), and an id already read with a
        // created_at past the cursor: only row 1 and 2 are new.
        let moved = (5, "2000-01-01T00:00:00Z".to_owned());
        let second = [&table[2], &table[3], &table[1], &moved, &table[0]].map(Clone::clone);
        assert_eq!(next_ids(pager.accept(page_of(&second)).unwrap()), [2, 1]);
        // The cursor went past the moved row, so the next page starts after it.
        let request = pager.request(&config(), None);
        assert!(request.url.contains("id.lt.5%29%29"), "{}", request.url);
        assert_eq!(pager.accept(page_of(&[])), Ok(PageStep::Done));
    }

    #[test]
    fn a_page_of_rows_that_were_all_read_already_still_moves_on() {
        let mut pager = Pager::default();
        let first = [(2, "2024-01-02T00:00:00Z".to_owned())];
        assert_eq!(next_ids(pager.accept(page_of(&first)).unwrap()), [2]);
        let again = [(2, "2024-01-01T00:00:00Z".to_owned())];
        assert_eq!(
            next_ids(pager.accept(page_of(&again)).unwrap()),
            Vec::<i64>::new()
        );
        assert_eq!(pager.page(), 3);
        assert_eq!(pager.accept(page_of(&again)), Ok(PageStep::Done));
    }

    #[test]
    fn a_malformed_content_range_is_an_error_naming_the_page() {
        let table = rows(3);
        let mut pager = Pager::default();
        let page = HttpResponse::new(200, body(&table[2..])).with_header("content-range", "0-0/*");
        assert!(matches!(pager.accept(Ok(page)), Ok(PageStep::Next(_))));
        for value in ["0-0", "0-5/*", "*/*", "rows 0-1/*"] {
            let page =
                HttpResponse::new(200, body(&table[..2])).with_header("content-range", value);
            let error = pager.clone().accept(Ok(page)).unwrap_err();
            assert_eq!(error.page, 2);
            assert_eq!(error.error.code(), "invalid_content_range");
            assert!(!error.error.retryable());
            assert_eq!(
                error.to_string(),
                format!("page 2: malformed Content-Range {value:?} for a body of 2 rows")
            );
        }
    }

    #[test]
    fn a_malformed_row_is_an_error_naming_the_page_and_the_row() {
        let table = rows(9);
        let mut pager = Pager::new(3);
        for chunk in [&table[6..], &table[3..6]] {
            assert!(matches!(
                pager.accept(page_of(chunk)),
                Ok(PageStep::Next(_))
            ));
        }
        let bad = r#"[{"id":3,"created_at":"2024-05-01T10:00:00Z","name":"a","message":"b"},
                      {"id":2,"created_at":"yesterday","name":"a","message":"b"}]"#;
        let error = pager.accept(Ok(HttpResponse::new(200, bad))).unwrap_err();
        assert_eq!(error.page, 3);
        assert_eq!(error.error.code(), "schema_mismatch");
        assert_eq!(
            error.to_string(),
            "page 3: entry 1: field \"created_at\": expected a timestamp string, found string \"yesterday\""
        );
        // Nothing moved: the same page can be asked for again.
        assert_eq!(pager.page(), 3);
    }

    #[test]
    fn failed_requests_name_the_page() {
        let mut pager = Pager::default();
        let failure = Err(NoResponse::Network(NetworkFailure {
            message: "refused".into(),
        }));
        let error = pager.accept(failure).unwrap_err();
        assert_eq!((error.page, error.error.code()), (1, "network_error"));
        assert_eq!(error.to_string(), "page 1: network failure: refused");
        let error = pager.accept(Ok(HttpResponse::new(503, ""))).unwrap_err();
        assert_eq!((error.page, error.error.status()), (1, 503));
    }
}
