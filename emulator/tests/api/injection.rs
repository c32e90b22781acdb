//! SQL-looking text in every parameter is refused or treated as data; the table survives.

use crate::support::{DbResult, TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use serde_json::json;

const HOSTILE: [&str; 6] = [
    "name; drop table geocache_logs",
    "name'; drop table geocache_logs; --",
    "name\"; drop table geocache_logs; --",
    "name -- comment",
    "name/**/",
    "1=1) or (1=1",
];

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[tokio::test]
async fn hostile_select_order_and_filter_keys_are_400_and_the_table_survives() {
    let app = TestApp::new();
    app.seed(json!({"name": "survivor", "message": "still here"}))
        .await;
    for hostile in HOSTILE {
        for query in [
            format!("select={}", encode(hostile)),
            format!("order={}", encode(hostile)),
            format!("{}=eq.1", encode(hostile)),
            format!("columns={}", encode(hostile)),
            format!("limit={}", encode(hostile)),
        ] {
            for method in [Method::GET, Method::POST, Method::DELETE] {
                let response = app
                    .service(method.clone(), &format!("{TABLE_URL}?{query}"))
                    .json(&json!({"name": "n", "message": "m"}))
                    .send()
                    .await;
                assert!(
                    response.status == StatusCode::BAD_REQUEST
                        || (method == Method::POST && response.status == StatusCode::CREATED),
                    "{method} {query}: {} {}",
                    response.status,
                    response.body
                );
            }
        }
    }
    let rows = app.all_rows().await;
    assert_eq!(rows[0]["name"], "survivor");
}

#[tokio::test]
async fn hostile_filter_values_are_plain_data() {
    let app = TestApp::new();
    app.seed(json!({"name": "survivor", "message": "still here"}))
        .await;
    for hostile in HOSTILE {
        let response = app
            .anon(
                Method::GET,
                &format!("{TABLE_URL}?name=eq.{}", encode(hostile)),
            )
            .send()
            .await;
        assert_eq!(
            (response.status, response.body.as_str()),
            (StatusCode::OK, "[]")
        );
        let response = app
            .anon(
                Method::GET,
                &format!("{TABLE_URL}?id=eq.{}", encode(hostile)),
            )
            .send()
            .await;
        assert_eq!(response.json()["code"], "22P02", "{hostile}");
        let response = app
            .service(
                Method::DELETE,
                &format!("{TABLE_URL}?name=eq.{}", encode(hostile)),
            )
            .send()
            .await;
        assert_eq!(response.status, StatusCode::NO_CONTENT);
    }
    // A value that matches exactly is found, quotes and all.
    let tricky = "O'Brien \"--\"; drop";
    app.seed(json!({"name": tricky, "message": "m"})).await;
    let response = app
        .anon(
            Method::GET,
            &format!("{TABLE_URL}?select=name&name=eq.{}", encode(tricky)),
        )
        .send()
        .await;
    assert_eq!(response.json(), json!([{"name": tricky}]));
    assert_eq!(app.all_rows().await.len(), 2);
}

/// Classic injections: quoting, stacking, comments, unions, tautologies, schema probes,
/// encodings and look-alike characters.
const INJECTIONS: [&str; 20] = [
    "' OR '1'='1",
    "\" OR \"1\"=\"1",
    "1 OR 1=1",
    "1; DROP TABLE geocache_logs",
    "x'); DELETE FROM geocache_logs; --",
    "name\"; DELETE FROM geocache_logs; --",
    "id) UNION SELECT sql, name, tbl_name, type FROM sqlite_master --",
    "name,(SELECT group_concat(name) FROM sqlite_master)",
    "created_at.desc;PRAGMA writable_schema=1",
    "*/ DROP TABLE geocache_logs /*",
    "name -- ",
    "name#",
    "0x27204f522031",
    "%27%20OR%201%3D1",
    "name\u{0}; DROP TABLE geocache_logs",
    "\u{2019} OR \u{2019}1\u{2019}=\u{2019}1",
    "name`; ATTACH DATABASE '/tmp/x' AS x; --",
    "randomblob(1000000000)",
    "name.asc,load_extension('x')",
    "1 AND sleep(5)",
];

/// Everything in the database file that an injection could touch: the schema and every row.
async fn snapshot(app: &TestApp) -> (Vec<String>, Vec<(i64, i64, String, String)>) {
    app.state
        .db
        .call(|connection| -> DbResult<_> {
            let mut schema = connection
                .prepare("SELECT type || ' ' || name || ' ' || ifnull(sql, '') FROM sqlite_master ORDER BY name")?;
            let schema = schema
                .query_map([], |row| row.get(0))?
                .collect::<Result<Vec<String>, _>>()?;
            let mut rows = connection
                .prepare("SELECT id, created_at, name, message FROM geocache_logs ORDER BY id")?;
            let rows = rows
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok((schema, rows))
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn a_table_of_injections_in_every_parameter_leaves_the_database_intact() {
    let app = TestApp::new();
    app.seed(json!([
        {"name": "ada", "message": "first"},
        {"name": "bob", "message": "second"}
    ]))
    .await;
    let before = snapshot(&app).await;
    for injection in INJECTIONS {
        let text = encode(injection);
        // Where the text is a name or syntax: refused (400) before any SQL runs.
        let refused = [
            format!("select={text}"),
            format!("order={text}"),
            format!("{text}=eq.ada"),
            format!("name=eq.ada&{text}=is.null"),
            format!("columns={text}"),
            format!("limit={text}"),
            format!("offset={text}"),
            format!("id=eq.{text}"),
            format!("id=in.(1,{text})"),
            format!("created_at=lt.{text}"),
        ];
        // Where the text is a value for a text column: plain data, matching nothing.
        let data = [
            format!("name=eq.{text}"),
            format!("message=in.({text},x)"),
            format!("name=eq.ada&message=eq.{text}"),
        ];
        for method in [Method::GET, Method::HEAD, Method::PATCH, Method::DELETE] {
            for query in refused.iter().chain(&data) {
                // `columns=` names the body's keys: only writes read it.
                if query.starts_with("columns=") && method != Method::PATCH {
                    continue;
                }
                let response = app
                    .service(method.clone(), &format!("{TABLE_URL}?{query}"))
                    .json(&json!({"message": "overwritten"}))
                    .send()
                    .await;
                let expected = match (refused.contains(query), &method) {
                    (true, _) => StatusCode::BAD_REQUEST,
                    // PostgreSQL's text cannot hold NUL (22021).
                    (false, _) if injection.contains('\u{0}') => StatusCode::BAD_REQUEST,
                    (false, m) if *m == Method::GET || *m == Method::HEAD => StatusCode::OK,
                    (false, _) => StatusCode::NO_CONTENT,
                };
                assert_eq!(
                    response.status, expected,
                    "{method} ?{query} ({injection:?}): {}",
                    response.body
                );
                if method == Method::GET && expected == StatusCode::OK {
                    assert_eq!(response.body, "[]", "{query}");
                }
            }
        }
        assert_eq!(snapshot(&app).await, before, "{injection:?}");
        // As a value to store, it is stored as typed.
        if !injection.contains('\u{0}') {
            let response = app
                .anon(Method::POST, TABLE_URL)
                .header("prefer", "return=representation")
                .json(&json!({"name": injection, "message": injection}))
                .send()
                .await;
            assert_eq!(response.status, StatusCode::CREATED, "{}", response.body);
            assert_eq!(response.json()[0]["message"], injection);
            let id = response.json()[0]["id"].as_i64().unwrap();
            let response = app
                .service(Method::DELETE, &format!("{TABLE_URL}?id=eq.{id}"))
                .send()
                .await;
            assert_eq!(response.status, StatusCode::NO_CONTENT);
        }
    }
    let (schema, rows) = snapshot(&app).await;
    assert_eq!(schema, before.0);
    assert_eq!(rows, before.1);
}
