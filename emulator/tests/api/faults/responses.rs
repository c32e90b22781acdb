//! Injected statuses and broken 2xx bodies, over a real socket.

use super::support::{insert_body, install, seed, served, stats, stored_names};
use crate::wire::{request, TABLE_URL};
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

#[tokio::test]
async fn injected_statuses_carry_postgrest_or_plain_bodies_and_cors_headers() {
    let served = served().await;
    install(&served, json!({"rules": [
        {"methods": ["GET"], "every": 2, "fault": {"kind": "status", "status": 500, "body": "plain"}},
        {"methods": ["GET"], "fault": {"kind": "status", "status": 503}},
    ]}))
    .await;
    let mut client = served.client().await;
    let mut read = request(Method::GET, TABLE_URL, &served.anon, None);
    read.headers_mut()
        .insert("origin", "http://127.0.0.1:5173".parse().unwrap());

    let reply = client.send(read.clone()).await.unwrap();
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        reply.json(),
        json!({"code": "PGRST001", "details": "injected by the emulator's fault plan",
               "hint": null, "message": "Database client error. Retrying the connection."})
    );
    assert_eq!(
        reply.headers["content-type"],
        "application/json; charset=utf-8"
    );
    assert_eq!(reply.headers["proxy-status"], "PostgREST; error=PGRST001");
    // A browser must see the status, not a CORS failure.
    assert_eq!(reply.headers["access-control-allow-origin"], "*");

    let reply = client.send(read).await.unwrap();
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(reply.text(), "500 Internal Server Error");
    assert_eq!(reply.headers["content-type"], "text/plain; charset=utf-8");
    assert_eq!(reply.headers["access-control-allow-origin"], "*");
}

#[tokio::test]
async fn an_injected_error_on_an_insert_commits_it_only_when_applied() {
    let served = served().await;
    let mut client = served.client().await;
    for (apply, name) in [(false, "never landed"), (true, "landed anyway")] {
        install(
            &served,
            json!({"rules": [{"methods": ["POST"], "apply": apply,
            "fault": {"kind": "status", "status": 500}}]}),
        )
        .await;
        let reply = client
            .send(request(
                Method::POST,
                TABLE_URL,
                &served.anon,
                Some(&insert_body(name)),
            ))
            .await
            .unwrap();
        assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(reply.json()["code"], "XX000");
    }
    assert_eq!(stored_names(&served).await, ["landed anyway"]);
    // The keep-alive connection survives an injected status.
    let reply = client
        .send(request(Method::GET, TABLE_URL, &served.anon, None))
        .await
        .unwrap();
    assert_eq!(reply.status, StatusCode::OK);
}

#[tokio::test]
async fn truncated_bodies_are_cut_with_a_matching_length() {
    let served = served().await;
    seed(&served, &["ada", "bob"]).await;
    let mut client = served.client().await;
    let read = || request(Method::GET, TABLE_URL, &served.anon, None);
    let full = client.send(read()).await.unwrap().body;

    install(
        &served,
        json!({"rules": [{"methods": ["GET"], "limit": 1,
        "fault": {"kind": "truncate_body"}}]}),
    )
    .await;
    let reply = client.send(read()).await.unwrap();
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body, full.slice(..full.len() / 2));
    assert_eq!(
        reply.headers["content-length"],
        (full.len() / 2).to_string()
    );
    assert_eq!(
        reply.headers["content-type"],
        "application/json; charset=utf-8"
    );
    assert!(serde_json::from_slice::<Value>(&reply.body).is_err());
    assert_eq!(client.send(read()).await.unwrap().body, full);

    install(
        &served,
        json!({"rules": [{"fault": {"kind": "truncate_body", "keep_bytes": 7}}]}),
    )
    .await;
    assert_eq!(client.send(read()).await.unwrap().body, full.slice(..7));
    // Errors pass untouched.
    let reply = client
        .send(request(
            Method::GET,
            &format!("{TABLE_URL}?select=nope"),
            &served.anon,
            None,
        ))
        .await
        .unwrap();
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json()["code"], "42703");
}

#[tokio::test]
async fn non_json_bodies_replace_successful_answers() {
    let served = served().await;
    seed(&served, &["ada"]).await;
    let mut client = served.client().await;
    install(
        &served,
        json!({"rules": [{"methods": ["GET"], "every": 2,
        "fault": {"kind": "non_json_body", "body": "<h1>oops</h1>", "content_type": "text/html"}},
        {"fault": {"kind": "non_json_body"}}]}),
    )
    .await;
    let reply = client
        .send(request(Method::GET, TABLE_URL, &served.anon, None))
        .await
        .unwrap();
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.text(),
        "<html><body><h1>502 Bad Gateway</h1></body></html>"
    );
    // The header still claims JSON: the nastiest case for a client.
    assert_eq!(
        reply.headers["content-type"],
        "application/json; charset=utf-8"
    );
    let reply = client
        .send(request(Method::GET, TABLE_URL, &served.anon, None))
        .await
        .unwrap();
    assert_eq!(
        (reply.text().as_str(), &reply.headers["content-type"]),
        (
            "<h1>oops</h1>",
            &"text/html".parse::<axum::http::HeaderValue>().unwrap()
        )
    );
    // A minimal insert (201, no body) gets a body it should not have, and the row lands.
    let reply = client
        .send(request(
            Method::POST,
            TABLE_URL,
            &served.anon,
            Some(&insert_body("bob")),
        ))
        .await
        .unwrap();
    assert_eq!(reply.status, StatusCode::CREATED);
    assert_eq!(
        reply.text(),
        "<html><body><h1>502 Bad Gateway</h1></body></html>"
    );
    assert_eq!(stored_names(&served).await, ["ada", "bob"]);
}

#[tokio::test]
async fn scopes_every_nth_limits_and_seeded_probabilities_pick_the_requests() {
    let served = served().await;
    let mut client = served.client().await;
    install(
        &served,
        json!({"rules": [{"methods": ["GET"], "paths": [TABLE_URL], "every": 2,
        "limit": 2, "fault": {"kind": "status", "status": 503}}]}),
    )
    .await;
    let mut statuses = Vec::new();
    for _ in 0..6 {
        let reply = client
            .send(request(Method::GET, TABLE_URL, &served.anon, None))
            .await
            .unwrap();
        statuses.push(reply.status.as_u16());
        // Out of scope: another method and another API.
        let insert = client
            .send(request(
                Method::POST,
                TABLE_URL,
                &served.anon,
                Some(&insert_body("n")),
            ))
            .await
            .unwrap();
        assert_eq!(insert.status, StatusCode::CREATED);
        let user = client
            .send(request(Method::GET, "/auth/v1/user", &served.anon, None))
            .await
            .unwrap();
        assert_eq!(user.status, StatusCode::FORBIDDEN);
    }
    assert_eq!(statuses, [200, 503, 200, 503, 200, 200]);
    assert_eq!(stats(&served), [(6, 2)]);

    let plan = json!({"seed": 9, "rules": [{"probability": 0.5,
        "fault": {"kind": "status", "status": 503}}]});
    let mut runs = Vec::new();
    for _ in 0..2 {
        install(&served, plan.clone()).await;
        let mut run = Vec::new();
        for _ in 0..24 {
            let reply = client
                .send(request(Method::GET, TABLE_URL, &served.anon, None))
                .await
                .unwrap();
            run.push(reply.status == StatusCode::SERVICE_UNAVAILABLE);
        }
        runs.push(run);
    }
    assert_eq!(runs[0], runs[1], "the same seed faults the same requests");
    let faulted = runs[0].iter().filter(|faulted| **faulted).count();
    assert!((4..=20).contains(&faulted), "{faulted} of 24");
}
