//! `or=`/`and=` logic trees: the keyset pages the client reads newest first, and bad trees.

use crate::support::{TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

/// As URLSearchParams encodes a parameter value (`+` as `%2B`, `"` as `%22`, ...).
fn encode(value: &str) -> String {
    form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

/// postgrest-js's `.or(...)` filter for the rows strictly after `(created_at, id)` in
/// `created_at desc, id desc` order.
fn after(created_at: &str, id: i64) -> String {
    let tree =
        format!("(created_at.lt.\"{created_at}\",and(created_at.eq.\"{created_at}\",id.lt.{id}))");
    format!("or={}", encode(&tree))
}

const NEWEST_FIRST: &str = "select=*&order=created_at.desc,id.desc";

async fn get(app: &TestApp, query: &str) -> Vec<Value> {
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?{query}"))
        .send()
        .await;
    assert_eq!(
        response.status,
        StatusCode::OK,
        "{query}: {}",
        response.body
    );
    response.json().as_array().cloned().unwrap()
}

fn ids(rows: &[Value]) -> Vec<i64> {
    rows.iter().map(|row| row["id"].as_i64().unwrap()).collect()
}

/// Rows that share instants down to the microsecond, some written with other offsets, and
/// neighbours one microsecond either side.
async fn seed_ties(app: &TestApp) {
    app.seed(json!([
        {"name": "a", "message": "m", "created_at": "2026-11-22T10:00:00.123456+00:00"},
        {"name": "b", "message": "m", "created_at": "2026-11-22T10:00:00.123457Z"},
        {"name": "c", "message": "m", "created_at": "2026-11-22T12:00:00.123456+02:00"},
        {"name": "d", "message": "m", "created_at": "2026-11-22T10:00:00.123455Z"},
        {"name": "e", "message": "m", "created_at": "2026-11-22T05:30:00.123456-04:30"},
        {"name": "f", "message": "m", "created_at": "2026-11-21T10:00:00Z"},
        {"name": "g", "message": "m", "created_at": "2026-11-22T10:00:00.123456Z"},
    ]))
    .await;
}

#[tokio::test]
async fn after_each_row_come_exactly_the_rows_that_follow_it_newest_first() {
    let app = TestApp::new();
    seed_ties(&app).await;
    let all = get(&app, NEWEST_FIRST).await;
    assert_eq!(ids(&all), [2, 7, 5, 3, 1, 4, 6]);
    for (index, row) in all.iter().enumerate() {
        let created_at = row["created_at"].as_str().unwrap();
        let id = row["id"].as_i64().unwrap();
        let rest = get(&app, &format!("{NEWEST_FIRST}&{}", after(created_at, id))).await;
        assert_eq!(
            ids(&rest),
            ids(&all[index + 1..]),
            "after ({created_at}, {id})"
        );
    }
}

#[tokio::test]
async fn pages_of_two_cover_every_row_once() {
    let app = TestApp::new();
    seed_ties(&app).await;
    let mut seen = Vec::new();
    let mut cursor: Option<(String, i64)> = None;
    loop {
        let mut query = format!("{NEWEST_FIRST}&limit=2");
        if let Some((created_at, id)) = &cursor {
            query = format!("{query}&{}", after(created_at, *id));
        }
        let page = get(&app, &query).await;
        let Some(last) = page.last() else { break };
        cursor = Some((
            last["created_at"].as_str().unwrap().to_owned(),
            last["id"].as_i64().unwrap(),
        ));
        seen.extend(ids(&page));
    }
    assert_eq!(seen, [2, 7, 5, 3, 1, 4, 6]);
}

#[tokio::test]
async fn timestamps_compare_as_instants_whatever_the_offset() {
    let app = TestApp::new();
    seed_ties(&app).await;
    // The same instant as 10:00:00.123456 UTC, written three ways: the four tied rows.
    for written in [
        "2026-11-22T10:00:00.123456Z",
        "2026-11-22T11:00:00.123456+01:00",
        "2026-11-22 03:00:00.123456-07",
    ] {
        let tree = format!("(created_at.eq.\"{written}\")");
        let rows = get(&app, &format!("order=id&or={}", encode(&tree))).await;
        assert_eq!(ids(&rows), [1, 3, 5, 7], "{written}");
        // Strictly before it: not the ties, and not the row one microsecond later.
        let tree = format!("(created_at.lt.\"{written}\")");
        let rows = get(&app, &format!("order=id&or={}", encode(&tree))).await;
        assert_eq!(ids(&rows), [4, 6], "{written}");
    }
    // After the tie at id 3, given with another offset: the same rows as the UTC cursor.
    let shifted = get(
        &app,
        &format!(
            "{NEWEST_FIRST}&{}",
            after("2026-11-22T12:00:00.123456+02:00", 3)
        ),
    )
    .await;
    assert_eq!(ids(&shifted), [1, 4, 6]);
}

#[tokio::test]
async fn several_trees_and_filters_must_all_hold() {
    let app = TestApp::new();
    seed_ties(&app).await;
    let rows = get(
        &app,
        "order=id&or=(id.eq.1,id.eq.2,id.eq.3)&or=(name.eq.b,name.eq.c,name.eq.d)&id=neq.3",
    )
    .await;
    assert_eq!(ids(&rows), [2]);
    let rows = get(&app, "order=id&not.or=(id.lt.3,id.gt.5)").await;
    assert_eq!(ids(&rows), [3, 4, 5]);
    let rows = get(
        &app,
        "order=id&and=(id.gt.1,not.or(name.eq.b,name.in.(c,e)))",
    )
    .await;
    assert_eq!(ids(&rows), [4, 6, 7]);
    let rows = get(&app, "order=id&or=(id.not.lt.6,name.is.null)").await;
    assert_eq!(ids(&rows), [6, 7]);
}

#[tokio::test]
async fn quoted_values_are_bound_not_spliced() {
    let app = TestApp::new();
    app.seed(json!([
        {"name": "Hebdon,John", "message": "a (b): c."},
        {"name": "x'); drop table geocache_logs; --", "message": "say \"hi\""},
    ]))
    .await;
    let tree = r#"(name.eq."Hebdon,John",message.eq."say \"hi\"")"#;
    let rows = get(&app, &format!("order=id&or={}", encode(tree))).await;
    assert_eq!(ids(&rows), [1, 2]);
    let tree = r#"(name.eq."x'); drop table geocache_logs; --")"#;
    let rows = get(&app, &format!("or={}", encode(tree))).await;
    assert_eq!(ids(&rows), [2]);
    assert_eq!(app.all_rows().await.len(), 2);
}

#[tokio::test]
async fn trees_select_the_rows_of_updates_and_deletes() {
    let app = TestApp::new();
    seed_ties(&app).await;
    // Without any filter Supabase's safeupdate refuses a DELETE; a tree is a WHERE clause.
    let response = app
        .service(Method::DELETE, &format!("{TABLE_URL}?or=(id.eq.2,id.eq.4)"))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::NO_CONTENT, "{}", response.body);
    assert_eq!(ids(&app.all_rows().await), [1, 3, 5, 6, 7]);
}

#[tokio::test]
async fn malformed_trees_are_pgrst100_with_postgrest_positions() {
    let app = TestApp::new();
    let cases = [
        (
            "or=(id.eq.1",
            "\"failed to parse logic tree ((id.eq.1)\" (line 1, column 11)",
            "unexpected end of input expecting \",\" or \")\"",
        ),
        (
            "or=()",
            "\"failed to parse logic tree (())\" (line 1, column 4)",
            "unexpected \")\" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)",
        ),
        (
            "not.and=(id.eq.1,xor(id.eq.2))",
            "\"failed to parse logic tree ((id.eq.1,xor(id.eq.2)))\" (line 1, column 20)",
            "unexpected \"(\" expecting letter, digit, \"-\", \"->>\", \"->\" or delimiter (.)",
        ),
    ];
    for (query, message, details) in cases {
        let response = app
            .anon(Method::GET, &format!("{TABLE_URL}?{query}"))
            .send()
            .await;
        let body = response.assert_postgrest_error(StatusCode::BAD_REQUEST, "PGRST100", message);
        assert_eq!(body["details"], details, "{query}");
    }
}

#[tokio::test]
async fn trees_report_the_errors_single_filters_would() {
    let app = TestApp::new();
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?or=(nope.eq.1)"))
        .send()
        .await;
    assert_eq!(response.json()["code"], "42703", "{}", response.body);
    let response = app
        .anon(
            Method::GET,
            &format!("{TABLE_URL}?{}", after("not a time", 1)),
        )
        .send()
        .await;
    assert_eq!(response.json()["code"], "22007", "{}", response.body);
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?caches.or=(id.eq.1)"))
        .send()
        .await;
    assert_eq!(response.json()["code"], "PGRST108", "{}", response.body);
}

#[tokio::test]
async fn deep_nesting_is_refused_and_the_server_keeps_serving() {
    let app = TestApp::new();
    let deep = format!(
        "{TABLE_URL}?or=({}id.eq.1{})",
        "or(".repeat(10_000),
        ")".repeat(10_000)
    );
    let response = app.anon(Method::GET, &deep).send().await;
    assert_eq!(
        response.status,
        StatusCode::BAD_REQUEST,
        "{}",
        response.body
    );
    assert_eq!(response.json()["code"], "PGRST127");
    let response = app.anon(Method::GET, TABLE_URL).send().await;
    assert_eq!(response.status, StatusCode::OK);
}
