//! GET and HEAD on /rest/v1/geocache_logs.

use crate::support::{TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

fn names(rows: &Value) -> Vec<&str> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|row| row["name"].as_str().unwrap())
        .collect()
}

async fn seed_three(app: &TestApp) {
    app.seed(json!([
        {"name": "alice", "message": "first", "created_at": "2024-05-01T10:00:00Z"},
        {"name": "bob", "message": "second", "created_at": "2024-05-02T10:00:00Z"},
        {"name": "carol", "message": "third", "created_at": "2024-05-03T10:00:00Z"},
    ]))
    .await;
}

#[tokio::test]
async fn empty_table_is_an_empty_array_with_star_range() {
    let app = TestApp::new();
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?select=*"))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.body, "[]");
    assert_eq!(response.header("content-range"), Some("*/*"));
    assert_eq!(
        response.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    assert_eq!(response.header("preference-applied"), None);
}

#[tokio::test]
async fn supabase_js_read_returns_newest_first_with_all_columns() {
    let app = TestApp::new();
    seed_three(&app).await;
    let response = app
        .anon(
            Method::GET,
            &format!("{TABLE_URL}?select=*&order=created_at.desc"),
        )
        .header("accept-profile", "public")
        .header("x-client-info", "supabase-js/2.109.0; runtime=web")
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.header("content-range"), Some("0-2/*"));
    assert_eq!(
        response.body,
        r#"[{"id":3,"created_at":"2024-05-03T10:00:00+00:00","name":"carol","message":"third"},{"id":2,"created_at":"2024-05-02T10:00:00+00:00","name":"bob","message":"second"},{"id":1,"created_at":"2024-05-01T10:00:00+00:00","name":"alice","message":"first"}]"#
    );
}

#[tokio::test]
async fn without_order_rows_come_in_insertion_order() {
    let app = TestApp::new();
    seed_three(&app).await;
    let response = app.anon(Method::GET, TABLE_URL).send().await;
    assert_eq!(names(&response.json()), ["alice", "bob", "carol"]);
}

#[tokio::test]
async fn created_at_is_serialised_like_postgrest() {
    let app = TestApp::new();
    let rows = app
        .seed(json!([
            {"name": "a", "message": "m", "created_at": "2024-05-01T12:34:56.789012Z"},
            {"name": "b", "message": "m", "created_at": "2024-05-01T12:34:56.120000+00:00"},
            {"name": "c", "message": "m", "created_at": "2024-05-01 14:34:56+02"},
            {"name": "d", "message": "m", "created_at": "2024-05-01T12:34:56.0000001Z"},
        ]))
        .await;
    let stamps: Vec<&str> = rows
        .iter()
        .map(|row| row["created_at"].as_str().unwrap())
        .collect();
    assert_eq!(
        stamps,
        [
            "2024-05-01T12:34:56.789012+00:00",
            "2024-05-01T12:34:56.12+00:00",
            "2024-05-01T12:34:56+00:00",
            "2024-05-01T12:34:56+00:00",
        ]
    );
}

#[tokio::test]
async fn server_assigned_created_at_has_the_postgrest_shape() {
    let app = TestApp::new();
    app.anon(Method::POST, TABLE_URL)
        .json(&json!({"name": "n", "message": "m"}))
        .send()
        .await;
    let rows = app.anon(Method::GET, TABLE_URL).send().await.json();
    let stamp = rows[0]["created_at"].as_str().unwrap();
    assert!(stamp.ends_with("+00:00"), "{stamp}");
    assert_eq!(&stamp[10..11], "T", "{stamp}");
    let fraction = stamp[19..stamp.len() - 6].trim_start_matches('.');
    assert!(fraction.len() <= 6 && !fraction.ends_with('0'), "{stamp}");
}

#[tokio::test]
async fn order_by_created_at_is_by_instant_not_text() {
    let app = TestApp::new();
    app.seed(json!([
        {"name": "later", "message": "m", "created_at": "2024-05-01T09:00:00Z"},
        {"name": "earlier", "message": "m", "created_at": "2024-05-01T10:00:00+02:00"},
    ]))
    .await;
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?order=created_at.asc"))
        .send()
        .await;
    assert_eq!(names(&response.json()), ["earlier", "later"]);
}

#[tokio::test]
async fn equal_timestamps_put_the_later_insert_first_when_newest_first() {
    let app = TestApp::new();
    // One request, one transaction: both rows get the same now().
    app.anon(Method::POST, TABLE_URL)
        .json(&json!([{"name": "one", "message": "m"}, {"name": "two", "message": "m"}]))
        .send()
        .await;
    let rows = app
        .anon(Method::GET, &format!("{TABLE_URL}?order=created_at.desc"))
        .send()
        .await
        .json();
    assert_eq!(rows[0]["created_at"], rows[1]["created_at"]);
    assert_eq!(names(&rows), ["two", "one"]);
    let rows = app
        .anon(Method::GET, &format!("{TABLE_URL}?order=created_at.asc"))
        .send()
        .await
        .json();
    assert_eq!(names(&rows), ["one", "two"]);
}

#[tokio::test]
async fn select_column_lists_aliases_and_whitespace() {
    let app = TestApp::new();
    seed_three(&app).await;
    let response = app
        .anon(
            Method::GET,
            &format!("{TABLE_URL}?select=%20name%20,%20author:name,%22id%22&order=id&limit=1"),
        )
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(
        response.body,
        r#"[{"name":"alice","author":"alice","id":1}]"#
    );
}

#[tokio::test]
async fn unknown_select_column_is_42703() {
    let app = TestApp::new();
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?select=id,secret"))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "42703",
        "column geocache_logs.secret does not exist",
    );
}

#[tokio::test]
async fn order_with_several_terms_and_null_placement() {
    let app = TestApp::new();
    app.seed(json!([
        {"name": "b", "message": "1", "created_at": "2024-01-01T00:00:00Z"},
        {"name": "a", "message": "2", "created_at": "2024-01-02T00:00:00Z"},
        {"name": "b", "message": "3", "created_at": "2024-01-03T00:00:00Z"},
    ]))
    .await;
    let response = app
        .anon(
            Method::GET,
            &format!(
                "{TABLE_URL}?select=message&order=name.desc.nullslast,created_at.asc.nullsfirst"
            ),
        )
        .send()
        .await;
    assert_eq!(
        response.body,
        r#"[{"message":"1"},{"message":"3"},{"message":"2"}]"#
    );
    let response = app
        .anon(
            Method::GET,
            &format!("{TABLE_URL}?select=message&order=name,id.desc"),
        )
        .send()
        .await;
    assert_eq!(
        response.body,
        r#"[{"message":"2"},{"message":"3"},{"message":"1"}]"#
    );
}

#[tokio::test]
async fn unknown_order_column_is_42703() {
    let app = TestApp::new();
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?order=rank.desc"))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "42703",
        "column geocache_logs.rank does not exist",
    );
}

#[tokio::test]
async fn comparison_filters_on_every_column() {
    let app = TestApp::new();
    seed_three(&app).await;
    let cases = [
        ("id=eq.2", vec!["bob"]),
        ("id=neq.2", vec!["alice", "carol"]),
        ("id=gt.1", vec!["bob", "carol"]),
        ("id=gte.2", vec!["bob", "carol"]),
        ("id=lt.2", vec!["alice"]),
        ("id=lte.2", vec!["alice", "bob"]),
        ("name=eq.carol", vec!["carol"]),
        ("name=gt.b", vec!["bob", "carol"]),
        ("message=neq.first", vec!["bob", "carol"]),
        (
            "created_at=gte.2024-05-02T10:00:00%2B00:00",
            vec!["bob", "carol"],
        ),
        ("created_at=lt.2024-05-02T12:00:00%2B02:00", vec!["alice"]),
        (
            "created_at=lte.2024-05-02T12:00:00%2B02:00",
            vec!["alice", "bob"],
        ),
        ("created_at=eq.2024-05-03%2010:00:00", vec!["carol"]),
        ("id=gt.1&name=lt.carol", vec!["bob"]),
        ("id=gt.1&id=lt.3", vec!["bob"]),
        ("id=not.eq.2", vec!["alice", "carol"]),
        ("id=in.(1,3)", vec!["alice", "carol"]),
        ("name=not.in.(alice,bob)", vec!["carol"]),
        ("name=is.null", vec![]),
        ("name=not.is.null", vec!["alice", "bob", "carol"]),
        ("name=eq.nobody", vec![]),
    ];
    for (filter, expected) in cases {
        let response = app
            .anon(Method::GET, &format!("{TABLE_URL}?{filter}&order=id"))
            .send()
            .await;
        assert_eq!(
            response.status,
            StatusCode::OK,
            "{filter}: {}",
            response.body
        );
        assert_eq!(names(&response.json()), expected, "{filter}");
    }
}

#[tokio::test]
async fn filter_values_are_typed_by_column() {
    let app = TestApp::new();
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?id=eq.abc"))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "22P02",
        "invalid input syntax for type bigint: \"abc\"",
    );
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?created_at=gt.yesterday"))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "22007",
        "invalid input syntax for type timestamp with time zone: \"yesterday\"",
    );
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?nope=eq.1"))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "42703",
        "column geocache_logs.nope does not exist",
    );
}

#[tokio::test]
async fn malformed_parameters_are_pgrst100() {
    let app = TestApp::new();
    let cases = [
        (
            "select=id,,name",
            "\"failed to parse select parameter (id,,name)\" (line 1, column 4)",
        ),
        (
            "order=id.up",
            "\"failed to parse order (id.up)\" (line 1, column 4)",
        ),
        (
            "name=bob",
            "\"failed to parse filter (bob)\" (line 1, column 1)",
        ),
        (
            "name=like",
            "\"failed to parse filter (like)\" (line 1, column 5)",
        ),
        (
            "limit=all",
            "\"failed to parse limit parameter (all)\" (line 1, column 1)",
        ),
        (
            "offset=1.5",
            "\"failed to parse offset parameter (1.5)\" (line 1, column 2)",
        ),
    ];
    for (query, message) in cases {
        let response = app
            .anon(Method::GET, &format!("{TABLE_URL}?{query}"))
            .send()
            .await;
        let body = response.assert_postgrest_error(StatusCode::BAD_REQUEST, "PGRST100", message);
        assert!(
            body["details"].as_str().unwrap().starts_with("unexpected "),
            "{query}"
        );
        assert_eq!(body["hint"], Value::Null);
        assert_eq!(
            response.header("proxy-status"),
            Some("PostgREST; error=PGRST100")
        );
    }
}

#[tokio::test]
async fn limit_and_offset_page_with_offset_based_ranges() {
    let app = TestApp::new();
    seed_three(&app).await;
    let response = app
        .anon(
            Method::GET,
            &format!("{TABLE_URL}?select=name&order=id&limit=2&offset=1"),
        )
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.body, r#"[{"name":"bob"},{"name":"carol"}]"#);
    assert_eq!(response.header("content-range"), Some("1-2/*"));

    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?order=id&limit=1"))
        .send()
        .await;
    assert_eq!(names(&response.json()), ["alice"]);
    assert_eq!(response.header("content-range"), Some("0-0/*"));

    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?limit=0"))
        .send()
        .await;
    assert_eq!(response.body, "[]");
    assert_eq!(response.header("content-range"), Some("*/*"));

    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?offset=10"))
        .send()
        .await;
    assert_eq!(
        (response.status, response.body.as_str()),
        (StatusCode::OK, "[]")
    );
    assert_eq!(response.header("content-range"), Some("*/*"));
}

#[tokio::test]
async fn negative_limit_and_offset_are_refused() {
    let app = TestApp::new();
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?limit=-1"))
        .send()
        .await;
    let body = response.assert_postgrest_error(
        StatusCode::RANGE_NOT_SATISFIABLE,
        "PGRST103",
        "Requested range not satisfiable",
    );
    assert_eq!(
        body["details"],
        "Limit should be greater than or equal to zero."
    );
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?offset=-1"))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "2201X",
        "OFFSET must not be negative",
    );
}

#[tokio::test]
async fn exact_count_reports_the_total() {
    let app = TestApp::new();
    seed_three(&app).await;
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?select=id"))
        .header("prefer", "count=exact")
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.header("content-range"), Some("0-2/3"));
    assert_eq!(response.header("preference-applied"), Some("count=exact"));

    // A counted page smaller than the total is 206 Partial Content.
    let response = app
        .anon(
            Method::GET,
            &format!("{TABLE_URL}?select=id&limit=1&offset=1&id=gt.0"),
        )
        .header("prefer", "count=exact")
        .send()
        .await;
    assert_eq!(response.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(response.header("content-range"), Some("1-1/3"));

    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?name=eq.nobody"))
        .header("prefer", "count=exact")
        .send()
        .await;
    assert_eq!(response.header("content-range"), Some("*/0"));

    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?offset=5"))
        .header("prefer", "count=exact")
        .send()
        .await;
    let body = response.assert_postgrest_error(
        StatusCode::RANGE_NOT_SATISFIABLE,
        "PGRST103",
        "Requested range not satisfiable",
    );
    assert_eq!(
        body["details"],
        "An offset of 5 was requested, but there are only 3 rows."
    );
}

#[tokio::test]
async fn head_has_the_get_headers_and_no_body() {
    let app = TestApp::new();
    seed_three(&app).await;
    let response = app
        .anon(Method::HEAD, &format!("{TABLE_URL}?select=*&limit=2"))
        .header("prefer", "count=exact")
        .send()
        .await;
    assert_eq!(response.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(response.body, "");
    assert_eq!(response.header("content-range"), Some("0-1/3"));
    assert_eq!(response.header("preference-applied"), Some("count=exact"));
    assert_eq!(
        response.header("content-type"),
        Some("application/json; charset=utf-8")
    );
}

#[tokio::test]
async fn single_object_accept_header() {
    let app = TestApp::new();
    seed_three(&app).await;
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?select=name&id=eq.2"))
        .header("accept", "application/vnd.pgrst.object+json")
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.body, r#"{"name":"bob"}"#);
    assert_eq!(
        response.header("content-type"),
        Some("application/vnd.pgrst.object+json; charset=utf-8")
    );
    let response = app
        .anon(Method::GET, TABLE_URL)
        .header("accept", "application/vnd.pgrst.object+json")
        .send()
        .await;
    let body = response.assert_postgrest_error(
        StatusCode::NOT_ACCEPTABLE,
        "PGRST116",
        "Cannot coerce the result to a single JSON object",
    );
    assert_eq!(body["details"], "The result contains 3 rows");
}

#[tokio::test]
async fn unavailable_media_type_is_406() {
    let app = TestApp::new();
    let response = app
        .anon(Method::GET, TABLE_URL)
        .header("accept", "text/csv")
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::NOT_ACCEPTABLE,
        "PGRST107",
        "None of these media types are available: text/csv",
    );
}

#[tokio::test]
async fn embedding_and_unimplemented_features_are_refused_clearly() {
    let app = TestApp::new();
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?select=*,caches(*)"))
        .send()
        .await;
    let body = response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "PGRST200",
        "Could not find a relationship between 'geocache_logs' and 'caches' in the schema cache",
    );
    assert_eq!(
        body["details"],
        "Searched for a foreign key relationship between 'geocache_logs' and 'caches' in the schema 'public', but no matches were found."
    );
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?caches.id=eq.1"))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "PGRST108",
        "'caches' is not an embedded resource in this request",
    );
    let response = app
        .anon(Method::GET, &format!("{TABLE_URL}?name=ilike.*bob*"))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "PGRST127",
        "Feature not implemented",
    );
}

#[tokio::test]
async fn strict_handling_refuses_unknown_preferences() {
    let app = TestApp::new();
    let response = app
        .anon(Method::GET, TABLE_URL)
        .header("prefer", "handling=strict, tx=rollback")
        .send()
        .await;
    let body = response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "PGRST122",
        "Invalid preferences given with handling=strict",
    );
    assert_eq!(body["details"], "Invalid preferences: tx=rollback");
    let response = app
        .anon(Method::GET, TABLE_URL)
        .header("prefer", "handling=lenient, tx=rollback")
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(
        response.header("preference-applied"),
        Some("handling=lenient")
    );
}
