//! SQL-looking text in every parameter is refused or treated as data; the table survives.

use crate::support::{TestApp, TABLE_URL};
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
