//! PATCH and DELETE: PATCH is service_role's only; a signed-in DELETE reaches rows only for an
//! owner at aal2 (tests/api/owners.rs); filters required.

use crate::support::{TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use serde_json::json;

async fn seeded() -> TestApp {
    let app = TestApp::new();
    app.seed(json!([
        {"name": "a", "message": "one", "created_at": "2024-01-01T00:00:00Z"},
        {"name": "b", "message": "two", "created_at": "2024-01-02T00:00:00Z"},
        {"name": "c", "message": "three", "created_at": "2024-01-03T00:00:00Z"},
    ]))
    .await;
    app
}

#[tokio::test]
async fn anon_cannot_update_or_delete() {
    let app = seeded().await;
    let patch = app
        .anon(Method::PATCH, &format!("{TABLE_URL}?id=eq.1"))
        .json(&json!({"message": "defaced"}))
        .send()
        .await;
    patch.assert_postgrest_error(
        StatusCode::UNAUTHORIZED,
        "42501",
        "permission denied for table geocache_logs",
    );
    assert_eq!(patch.header("www-authenticate"), Some("Bearer"));
    let delete = app
        .anon(Method::DELETE, &format!("{TABLE_URL}?id=eq.1"))
        .send()
        .await;
    delete.assert_postgrest_error(
        StatusCode::UNAUTHORIZED,
        "42501",
        "permission denied for table geocache_logs",
    );
    let rows = app.all_rows().await;
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["message"], "one");
}

#[tokio::test]
async fn authenticated_users_may_not_update_and_their_deletes_remove_nothing() {
    let app = seeded().await;
    let user = app
        .state
        .keys
        .sign(&json!({"role": "authenticated", "sub": "u1", "aal": "aal2"}));
    let request = |method: Method| {
        app.bare(method, &format!("{TABLE_URL}?id=eq.1"))
            .header("apikey", &app.anon)
            .header("authorization", &format!("Bearer {user}"))
    };
    request(Method::PATCH)
        .json(&json!({"message": "x"}))
        .send()
        .await
        .assert_postgrest_error(
            StatusCode::FORBIDDEN,
            "42501",
            "permission denied for table geocache_logs",
        );
    // The delete privilege, but row-level security lets only an owner's delete reach a row.
    let deleted = request(Method::DELETE)
        .header("prefer", "return=representation")
        .send()
        .await;
    assert_eq!(
        (deleted.status, deleted.body.as_str()),
        (StatusCode::OK, "[]")
    );
    assert_eq!(app.all_rows().await.len(), 3);
}

#[tokio::test]
async fn service_role_updates_filtered_rows() {
    let app = seeded().await;
    let response = app
        .service(Method::PATCH, &format!("{TABLE_URL}?id=gte.2"))
        .json(&json!({"message": "edited"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::NO_CONTENT);
    assert_eq!(response.body, "");
    assert_eq!(response.header("content-range"), Some("0-1/*"));
    let messages: Vec<_> = app
        .all_rows()
        .await
        .iter()
        .map(|row| row["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(messages, ["one", "edited", "edited"]);
}

#[tokio::test]
async fn update_representation_returns_the_rows() {
    let app = seeded().await;
    let response = app
        .service(
            Method::PATCH,
            &format!("{TABLE_URL}?name=eq.b&select=id,name,message"),
        )
        .header("prefer", "return=representation, count=exact")
        .json(&json!({"name": "bee"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.body, r#"[{"id":2,"name":"bee","message":"two"}]"#);
    assert_eq!(response.header("content-range"), Some("0-0/1"));
    assert_eq!(
        response.header("preference-applied"),
        Some("return=representation, count=exact")
    );
    let response = app
        .service(Method::PATCH, &format!("{TABLE_URL}?name=eq.nobody"))
        .header("prefer", "return=representation")
        .json(&json!({"name": "x"}))
        .send()
        .await;
    assert_eq!(
        (response.status, response.body.as_str()),
        (StatusCode::OK, "[]")
    );
    assert_eq!(response.header("content-range"), Some("*/*"));
}

#[tokio::test]
async fn update_values_are_checked() {
    let app = seeded().await;
    let response = app
        .service(Method::PATCH, &format!("{TABLE_URL}?id=eq.1"))
        .json(&json!({"name": null}))
        .send()
        .await;
    let error = response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "23502",
        "null value in column \"name\" of relation \"geocache_logs\" violates not-null constraint",
    );
    assert_eq!(
        error["details"],
        "Failing row contains (1, 2024-01-01 00:00:00+00, null, one)."
    );
    let response = app
        .service(Method::PATCH, &format!("{TABLE_URL}?id=eq.2"))
        .json(&json!({"name": null, "message": null}))
        .send()
        .await;
    assert_eq!(
        response.json()["details"],
        "Failing row contains (2, 2024-01-02 00:00:00+00, null, null)."
    );
    // No targeted row, no constraint to violate.
    let response = app
        .service(Method::PATCH, &format!("{TABLE_URL}?id=eq.99"))
        .json(&json!({"name": null}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::NO_CONTENT);
    let response = app
        .service(Method::PATCH, &format!("{TABLE_URL}?id=eq.1"))
        .json(&json!({"message": 7}))
        .send()
        .await;
    assert_eq!(response.json()["code"], "22P02");
    let response = app
        .service(Method::PATCH, &format!("{TABLE_URL}?id=eq.1"))
        .json(&json!({"mood": "x"}))
        .send()
        .await;
    assert_eq!(response.json()["code"], "PGRST204");
    let response = app
        .service(Method::PATCH, &format!("{TABLE_URL}?id=eq.1"))
        .json(&json!({"id": 2}))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "428C9",
        "column \"id\" can only be updated to DEFAULT",
    );
    let response = app
        .service(Method::PATCH, &format!("{TABLE_URL}?id=eq.1"))
        .json(&json!([{"name": "x"}]))
        .send()
        .await;
    assert_eq!(response.json()["code"], "22023");
    let rows = app.all_rows().await;
    assert_eq!(
        (rows[0]["id"].clone(), rows[0]["name"].clone()),
        (json!(1), json!("a"))
    );
}

#[tokio::test]
async fn service_role_may_move_a_row_in_time() {
    let app = seeded().await;
    let response = app
        .service(
            Method::PATCH,
            &format!("{TABLE_URL}?id=eq.1&select=id,created_at"),
        )
        .header("prefer", "return=representation")
        .json(&json!({"created_at": "2030-01-01T00:00:00.25Z"}))
        .send()
        .await;
    assert_eq!(
        response.body,
        r#"[{"id":1,"created_at":"2030-01-01T00:00:00.25+00:00"}]"#
    );
}

#[tokio::test]
async fn empty_update_body_changes_nothing() {
    let app = seeded().await;
    let response = app
        .service(Method::PATCH, TABLE_URL)
        .header("prefer", "return=representation")
        .json(&json!({}))
        .send()
        .await;
    assert_eq!(
        (response.status, response.body.as_str()),
        (StatusCode::OK, "[]")
    );
}

#[tokio::test]
async fn unfiltered_update_and_delete_need_a_where_clause() {
    let app = seeded().await;
    let response = app
        .service(Method::PATCH, TABLE_URL)
        .json(&json!({"message": "all"}))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "21000",
        "UPDATE requires a WHERE clause",
    );
    let response = app.service(Method::DELETE, TABLE_URL).send().await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "21000",
        "DELETE requires a WHERE clause",
    );
    assert_eq!(app.all_rows().await.len(), 3);
}

#[tokio::test]
async fn service_role_deletes_filtered_rows() {
    let app = seeded().await;
    let response = app
        .service(Method::DELETE, &format!("{TABLE_URL}?name=in.(a,c)"))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::NO_CONTENT);
    assert_eq!(response.header("content-range"), Some("*/*"));
    let rows = app.all_rows().await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["name"], "b");
}

#[tokio::test]
async fn delete_representation_and_count() {
    let app = seeded().await;
    let response = app
        .service(Method::DELETE, &format!("{TABLE_URL}?id=eq.3&select=name"))
        .header("prefer", "return=representation, count=exact")
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.body, r#"[{"name":"c"}]"#);
    assert_eq!(response.header("content-range"), Some("*/1"));
}

#[tokio::test]
async fn limited_delete_uses_order_and_limit() {
    let app = seeded().await;
    let response = app
        .service(
            Method::DELETE,
            &format!("{TABLE_URL}?order=created_at.desc&limit=2&select=name"),
        )
        .header("prefer", "return=representation")
        .send()
        .await;
    let mut names: Vec<String> = response
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["b", "c"]);
    assert_eq!(app.all_rows().await.len(), 1);
}

#[tokio::test]
async fn mutation_filters_are_parsed_and_checked_first() {
    let app = seeded().await;
    let response = app
        .service(Method::DELETE, &format!("{TABLE_URL}?id=1"))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "PGRST100",
        "\"failed to parse filter (1)\" (line 1, column 1)",
    );
    let response = app
        .anon(Method::DELETE, &format!("{TABLE_URL}?ghost=eq.1"))
        .send()
        .await;
    assert_eq!(response.json()["code"], "42703");
    assert_eq!(app.all_rows().await.len(), 3);
}
