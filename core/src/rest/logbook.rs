//! The page's two calls on `geocache_logs`, as supabase-js makes them, and their outcomes.

use crate::client::config::ClientConfig;
use crate::client::http::{HttpRequest, HttpResponse, NoResponse};
use crate::logbook::entry_list::EntryList;
use crate::logbook::outcome::{expect_success, LogbookError};
use crate::rest::Postgrest;

pub const TABLE: &str = "geocache_logs";

/// `.from('geocache_logs').select('*').order('created_at', {ascending: false})`
pub fn list_entries_request(config: &ClientConfig, session_token: Option<&str>) -> HttpRequest {
    Postgrest::new(config, session_token)
        .from(TABLE)
        .select("*")
        .order("created_at", false)
        .build()
}

/// `.from('geocache_logs').select('*').order('created_at', {ascending: false}).limit(count)`: the
/// newest entries, a first screen to show while the whole list loads.
pub fn newest_entries_request(
    config: &ClientConfig,
    session_token: Option<&str>,
    count: u64,
) -> HttpRequest {
    Postgrest::new(config, session_token)
        .from(TABLE)
        .select("*")
        .order("created_at", false)
        .limit(count)
        .build()
}

/// The validated entries, newest first whatever order the server used.
pub fn list_entries_outcome(
    response: Result<HttpResponse, NoResponse>,
) -> Result<EntryList, LogbookError> {
    let response = expect_success(response)?;
    let status = response.status;
    EntryList::parse(response.body).map_err(|error| LogbookError::Body { status, error })
}

/// The rows the insert stored, or the classified failure. Whether a failed insert may still have
/// been stored is [`super::signing`]'s question.
///
/// A success is a success whatever its body says: the entry is in the table. A body that does not
/// hold valid rows (empty from a server that ignored `return=representation`, or not the table's
/// shape) gives no rows, and so does a resend of a sign already stored (`[]`): the reload after
/// the sign shows the entry then, and reports a schema mismatch as every read does.
pub fn sign_logbook_outcome(
    response: Result<HttpResponse, NoResponse>,
) -> Result<EntryList, LogbookError> {
    let response = expect_success(response)?;
    Ok(EntryList::parse(response.body).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::http::{Method, NetworkFailure};

    const KEY: &str = "eyJhbGciOiJIUzI1NiJ9.anon.sig";

    fn config() -> ClientConfig {
        ClientConfig::new("http://127.0.0.1:54321", KEY)
            .unwrap()
            .with_client_info("geocache-client/0.1.0; runtime=web")
    }

    fn headers(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn list_request_matches_supabase_js() {
        assert_eq!(
            list_entries_request(&config(), None),
            HttpRequest {
                method: Method::Get,
                url: "http://127.0.0.1:54321/rest/v1/geocache_logs?select=*&order=created_at.desc"
                    .into(),
                headers: headers(&[
                    ("x-client-info", "geocache-client/0.1.0; runtime=web"),
                    ("apikey", KEY),
                    ("authorization", &format!("Bearer {KEY}")),
                    ("accept-profile", "public"),
                ]),
                body: None,
            }
        );
    }

    #[test]
    fn newest_entries_request_is_the_list_request_with_a_limit() {
        let list = list_entries_request(&config(), None);
        let newest = newest_entries_request(&config(), None, 30);
        assert_eq!(newest.url, format!("{}&limit=30", list.url));
        assert_eq!(
            (newest.method, &newest.headers, &newest.body),
            (list.method, &list.headers, &list.body)
        );
    }

    fn ok(status: u16, body: &str) -> Result<HttpResponse, NoResponse> {
        Ok(HttpResponse::new(status, body))
    }

    #[test]
    fn listed_entries_come_back_newest_first() {
        let body = r#"[
            {"id":1,"created_at":"2024-05-01T10:00:00+00:00","name":"a","message":"x"},
            {"id":2,"created_at":"2024-05-01T12:00:00+00:00","name":"b","message":"y"},
            {"id":3,"created_at":"2024-05-01T13:00:00+02:00","name":"c","message":"z"}
        ]"#;
        let entries = list_entries_outcome(ok(200, body)).unwrap();
        let ids: Vec<f64> = entries.iter().map(|entry| entry.id).collect();
        assert_eq!(entries.get(0).map(|entry| entry.name), Some("b"));
        assert_eq!(ids, [2.0, 3.0, 1.0]);
    }

    #[test]
    fn list_failures_are_classified() {
        let error = list_entries_outcome(ok(200, r#"[{"id":"1"}]"#)).unwrap_err();
        assert_eq!((error.code(), error.status()), ("schema_mismatch", 200));
        assert_eq!(error.schema().and_then(|schema| schema.field()), Some("id"));

        let error = list_entries_outcome(ok(200, "<html>")).unwrap_err();
        assert_eq!(error.code(), "invalid_json");

        let error = list_entries_outcome(ok(503, "")).unwrap_err();
        assert_eq!((error.code(), error.retryable()), ("server_error", true));

        let error = list_entries_outcome(Err(NetworkFailure {
            message: "refused".into(),
        }
        .into()))
        .unwrap_err();
        assert_eq!(error.code(), "network_error");
    }

    #[test]
    fn signing_gives_the_stored_row_and_fails_on_refusal() {
        let stored =
            r#"[{"id":7,"created_at":"2024-05-01T10:00:00+00:00","name":"Ann","message":"Hi"}]"#;
        let rows = sign_logbook_outcome(ok(201, stored)).unwrap();
        let row = rows.get(0).unwrap();
        assert_eq!(
            (rows.len(), row.id, row.name, row.message),
            (1, 7.0, "Ann", "Hi")
        );
        assert_eq!(row.created_at, "2024-05-01T10:00:00+00:00");
        let body = r#"{"code":"23502","details":null,"hint":null,"message":"null value in column \"name\""}"#;
        let error = sign_logbook_outcome(ok(400, body)).unwrap_err();
        assert_eq!((error.code(), error.status()), ("23502", 400));
    }

    #[test]
    fn a_success_without_readable_rows_is_still_stored() {
        // A resend of a sign already stored, a server that ignored the preference, a stray shape.
        for body in ["[]", "", "{}", r#"[{"id":"7"}]"#, "<html>"] {
            let rows = sign_logbook_outcome(ok(201, body)).unwrap();
            assert!(rows.is_empty(), "{body:?}");
        }
    }
}
