//! POST /rest/v1/geocache_logs.

use crate::support::{TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

#[tokio::test]
async fn supabase_js_insert_is_201_minimal() {
    let app = TestApp::new();
    let response = app
        .anon(Method::POST, TABLE_URL)
        .header("content-profile", "public")
        .json(&json!({"name": "Ada", "message": "Found it!"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED);
    assert_eq!(response.body, "");
    assert_eq!(response.header("content-range"), Some("*/*"));
    assert_eq!(response.header("content-type"), None);
    assert_eq!(response.header("preference-applied"), None);
    let rows = app.all_rows().await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["id"], 1);
    assert_eq!(rows[0]["name"], "Ada");
    assert_eq!(rows[0]["message"], "Found it!");
}

#[tokio::test]
async fn explicit_minimal_is_applied() {
    let app = TestApp::new();
    let response = app
        .anon(Method::POST, TABLE_URL)
        .header("prefer", "return=minimal")
        .json(&json!({"name": "a", "message": "b"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED);
    assert_eq!(response.body, "");
    assert_eq!(
        response.header("preference-applied"),
        Some("return=minimal")
    );
}

#[tokio::test]
async fn headers_only_points_at_the_new_row() {
    let app = TestApp::new();
    let response = app
        .anon(Method::POST, TABLE_URL)
        .header("prefer", "return=headers-only")
        .json(&json!({"name": "a", "message": "b"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED);
    assert_eq!(response.body, "");
    assert_eq!(response.header("location"), Some("/geocache_logs?id=eq.1"));
    assert_eq!(
        response.header("preference-applied"),
        Some("return=headers-only")
    );
}

#[tokio::test]
async fn representation_returns_inserted_rows_through_select() {
    let app = TestApp::new();
    let response = app
        .anon(Method::POST, &format!("{TABLE_URL}?select=*"))
        .header("prefer", "return=representation")
        .json(&json!({"name": "Ada", "message": "hi"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED);
    assert_eq!(
        response.header("preference-applied"),
        Some("return=representation")
    );
    assert_eq!(
        response.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    let rows = response.json();
    assert_eq!(rows.as_array().unwrap().len(), 1);
    let row = rows[0].as_object().unwrap();
    let keys: Vec<&str> = row.keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 4);
    assert_eq!(rows[0]["id"], 1);
    assert!(rows[0]["created_at"].as_str().unwrap().ends_with("+00:00"));

    let response = app
        .anon(Method::POST, &format!("{TABLE_URL}?select=id,message"))
        .header("prefer", "return=representation, count=exact")
        .json(&json!({"name": "Bo", "message": "yo"}))
        .send()
        .await;
    assert_eq!(response.body, r#"[{"id":2,"message":"yo"}]"#);
    assert_eq!(response.header("content-range"), Some("*/1"));
    assert_eq!(
        response.header("preference-applied"),
        Some("return=representation, count=exact")
    );
}

#[tokio::test]
async fn arrays_insert_in_order_and_columns_param_is_honoured() {
    let app = TestApp::new();
    let response = app
        .anon(
            Method::POST,
            &format!("{TABLE_URL}?columns=%22name%22,%22message%22&select=name,message"),
        )
        .header("prefer", "return=representation")
        .json(&json!([
            {"name": "one", "message": "1", "ignored": true},
            {"name": "two", "message": "2"},
        ]))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED, "{}", response.body);
    assert_eq!(
        response.body,
        r#"[{"name":"one","message":"1"},{"name":"two","message":"2"}]"#
    );
    assert_eq!(app.all_rows().await.len(), 2);
}

#[tokio::test]
async fn empty_array_inserts_nothing() {
    let app = TestApp::new();
    let response = app
        .anon(Method::POST, TABLE_URL)
        .json(&json!([]))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED);
    assert_eq!(response.body, "");
    let response = app
        .anon(Method::POST, TABLE_URL)
        .header("prefer", "return=representation")
        .json(&json!([]))
        .send()
        .await;
    assert_eq!(
        (response.status, response.body.as_str()),
        (StatusCode::CREATED, "[]")
    );
    assert!(app.all_rows().await.is_empty());
}

#[tokio::test]
async fn a_failing_row_rolls_back_the_whole_array() {
    let app = TestApp::new();
    let response = app
        .anon(Method::POST, TABLE_URL)
        .json(&json!([
            {"name": "ok", "message": "fine"},
            {"name": null, "message": "broken"},
        ]))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::BAD_REQUEST);
    assert!(app.all_rows().await.is_empty());
}

#[tokio::test]
async fn invalid_json_is_pgrst102() {
    let app = TestApp::new();
    for body in ["{\"name\": ", "", "not json", "{\"name\":\"a\",}"] {
        let response = app
            .anon(Method::POST, TABLE_URL)
            .header("content-type", "application/json")
            .raw_body(body)
            .send()
            .await;
        let error = response.assert_postgrest_error(
            StatusCode::BAD_REQUEST,
            "PGRST102",
            "Empty or invalid json",
        );
        assert_eq!(error["details"], Value::Null);
    }
}

#[tokio::test]
async fn mismatched_array_keys_are_pgrst102() {
    let app = TestApp::new();
    let response = app
        .anon(Method::POST, TABLE_URL)
        .json(&json!([{"name": "a", "message": "b"}, {"name": "c"}]))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "PGRST102",
        "All object keys must match",
    );
}

#[tokio::test]
async fn non_json_content_type_is_refused() {
    let app = TestApp::new();
    let response = app
        .anon(Method::POST, TABLE_URL)
        .header("content-type", "text/plain")
        .raw_body("name=a")
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "PGRST102",
        "Content-Type not acceptable: text/plain",
    );
}

#[tokio::test]
async fn unknown_body_column_is_pgrst204() {
    let app = TestApp::new();
    let response = app
        .anon(Method::POST, TABLE_URL)
        .json(&json!({"name": "a", "message": "b", "mood": "happy"}))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "PGRST204",
        "Could not find the 'mood' column of 'geocache_logs' in the schema cache",
    );
    let response = app
        .anon(Method::POST, &format!("{TABLE_URL}?columns=name,mood"))
        .json(&json!({"name": "a"}))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "PGRST204",
        "Could not find the 'mood' column of 'geocache_logs' in the schema cache",
    );
}

#[tokio::test]
async fn null_or_missing_name_and_message_are_23502() {
    let app = TestApp::new();
    let cases = [
        (json!({"name": null, "message": "m"}), "name"),
        (json!({"message": "m"}), "name"),
        (json!({"name": "n", "message": null}), "message"),
        (json!({"name": "n"}), "message"),
        (json!({}), "name"),
    ];
    for (body, column) in cases {
        let response = app.anon(Method::POST, TABLE_URL).json(&body).send().await;
        let error = response.assert_postgrest_error(
            StatusCode::BAD_REQUEST,
            "23502",
            &format!(
                "null value in column \"{column}\" of relation \"geocache_logs\" violates not-null constraint"
            ),
        );
        let details = error["details"].as_str().unwrap();
        assert!(
            details.starts_with("Failing row contains (1, "),
            "{details}"
        );
        assert!(details.contains("null"), "{details}");
    }
    assert!(app.all_rows().await.is_empty());
}

#[tokio::test]
async fn non_string_name_or_message_is_22p02() {
    let app = TestApp::new();
    for (body, column, found) in [
        (json!({"name": 5, "message": "m"}), "name", "number"),
        (json!({"name": "n", "message": true}), "message", "boolean"),
        (json!({"name": ["n"], "message": "m"}), "name", "array"),
        (
            json!({"name": "n", "message": {"text": "m"}}),
            "message",
            "object",
        ),
    ] {
        let response = app.anon(Method::POST, TABLE_URL).json(&body).send().await;
        response.assert_postgrest_error(
            StatusCode::BAD_REQUEST,
            "22P02",
            &format!(
                "invalid input for column \"{column}\" of relation \"geocache_logs\": expected a JSON string, found {found}"
            ),
        );
    }
    assert!(app.all_rows().await.is_empty());
}

#[tokio::test]
async fn id_is_generated_always_for_every_role() {
    let app = TestApp::new();
    for (spec, body) in [
        (
            app.anon(Method::POST, TABLE_URL),
            json!({"id": 99, "name": "n", "message": "m"}),
        ),
        (
            app.service(Method::POST, TABLE_URL),
            json!({"id": 99, "name": "n", "message": "m"}),
        ),
        (
            app.service(Method::POST, TABLE_URL),
            json!({"id": null, "name": "n", "message": "m"}),
        ),
    ] {
        let response = spec.json(&body).send().await;
        let error = response.assert_postgrest_error(
            StatusCode::BAD_REQUEST,
            "428C9",
            "cannot insert a non-DEFAULT value into column \"id\"",
        );
        assert_eq!(
            error["details"],
            "Column \"id\" is an identity column defined as GENERATED ALWAYS."
        );
        assert_eq!(error["hint"], "Use OVERRIDING SYSTEM VALUE to override.");
    }
    assert!(app.all_rows().await.is_empty());
    // With `columns=name,message` the extra key is not written, so the insert is allowed.
    let response = app
        .anon(Method::POST, &format!("{TABLE_URL}?columns=name,message"))
        .json(&json!({"id": 99, "name": "n", "message": "m"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED);
    assert_eq!(app.all_rows().await[0]["id"], 1);
}

#[tokio::test]
async fn only_the_service_role_may_set_created_at() {
    let app = TestApp::new();
    let body = json!({"created_at": "2020-01-01T00:00:00Z", "name": "n", "message": "m"});
    let response = app.anon(Method::POST, TABLE_URL).json(&body).send().await;
    response.assert_postgrest_error(
        StatusCode::UNAUTHORIZED,
        "42501",
        "permission denied for table geocache_logs",
    );
    let user = app
        .state
        .keys
        .sign(&json!({"role": "authenticated", "sub": "u1"}));
    let response = app
        .bare(Method::POST, TABLE_URL)
        .header("apikey", &app.anon)
        .header("authorization", &format!("Bearer {user}"))
        .json(&body)
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::FORBIDDEN,
        "42501",
        "permission denied for table geocache_logs",
    );
    assert!(app.all_rows().await.is_empty());

    let rows = app
        .seed(json!({"created_at": "2001-02-03T04:05:06.5+01:00", "name": "n", "message": "m"}))
        .await;
    assert_eq!(rows[0]["created_at"], "2001-02-03T03:05:06.5+00:00");
    let response = app
        .service(Method::POST, TABLE_URL)
        .json(&json!({"created_at": "soon", "name": "n", "message": "m"}))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "22007",
        "invalid input syntax for type timestamp with time zone: \"soon\"",
    );
    let response = app
        .service(Method::POST, TABLE_URL)
        .json(&json!({"created_at": null, "name": "n", "message": "m"}))
        .send()
        .await;
    assert_eq!(response.json()["code"], "23502");
}

#[tokio::test]
async fn missing_default_is_applied_and_echoed() {
    let app = TestApp::new();
    let response = app
        .anon(Method::POST, &format!("{TABLE_URL}?columns=name,message"))
        .header("prefer", "missing=default, return=representation")
        .json(&json!({"name": "n"}))
        .send()
        .await;
    // `message` has no default, so its default is NULL and the constraint still applies.
    assert_eq!(response.status, StatusCode::BAD_REQUEST);
    assert_eq!(response.json()["code"], "23502");
    let response = app
        .anon(Method::POST, TABLE_URL)
        .header("prefer", "missing=default")
        .json(&json!({"name": "n", "message": "m"}))
        .send()
        .await;
    assert_eq!(
        response.header("preference-applied"),
        Some("missing=default")
    );
}

#[tokio::test]
async fn hostile_text_is_stored_byte_for_byte() {
    let app = TestApp::new();
    let long = "x".repeat(10_000);
    let texts = [
        "<img src=x onerror=alert(1)>",
        "<script>alert('x')</script>",
        "'; DROP TABLE geocache_logs; --",
        "\" OR 1=1 --",
        "emoji 🎉🧭👩‍👩‍👧 and combining é",
        "\u{202e}RTL override שלום مرحبا",
        "control\u{1}chars, \ttabs and\nnewlines",
        long.as_str(),
    ];
    for text in texts {
        let response = app
            .anon(Method::POST, TABLE_URL)
            .json(&json!({"name": text, "message": text}))
            .send()
            .await;
        assert_eq!(response.status, StatusCode::CREATED, "{}", response.body);
    }
    let rows = app.all_rows().await;
    let stored: Vec<&str> = rows
        .iter()
        .map(|row| row["message"].as_str().unwrap())
        .collect();
    assert_eq!(stored, texts);
    assert!(rows.iter().all(|row| row["name"] == row["message"]));
}

#[tokio::test]
async fn nul_characters_are_refused_like_postgresql() {
    let app = TestApp::new();
    let response = app
        .anon(Method::POST, TABLE_URL)
        .json(&json!({"name": "a\u{0}b", "message": "m"}))
        .send()
        .await;
    let error = response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "22P05",
        "unsupported Unicode escape sequence",
    );
    assert_eq!(error["details"], "\\u0000 cannot be converted to text.");
    assert!(app.all_rows().await.is_empty());
}
