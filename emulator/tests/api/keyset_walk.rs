//! Walking a large table by keyset pages, both ways: every row exactly once, in order, across
//! pages that end inside runs of tied instants written with different offsets.

use crate::support::{TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use chrono::{DateTime, FixedOffset, SecondsFormat};
use serde_json::{json, Value};

const ROWS: usize = 20_000;
const BATCH: usize = 1_000;
/// 2024-05-01T00:00:00Z in microseconds.
const BASE_MICROS: i64 = 1_714_521_600_000_000;

/// The stored instant of every row, by id; `None` for the batch written with the default
/// `created_at` (now, later than every explicit one).
struct Seeded(Vec<(i64, Option<i64>)>);

/// 19 batches with explicit instants, runs of 7 rows sharing one, each instant written in UTC,
/// +05:30 or -07:00 in turn; then one batch of 1,000 rows tied at the default.
async fn seed(app: &TestApp) -> Seeded {
    let mut seeded = Vec::with_capacity(ROWS);
    for batch in 0..ROWS / BATCH {
        let explicit = batch + 1 < ROWS / BATCH;
        let mut instants = Vec::with_capacity(BATCH);
        let rows: Vec<Value> = (0..BATCH)
            .map(|offset| {
                let index = batch * BATCH + offset;
                if !explicit {
                    instants.push(None);
                    return json!({"name": format!("n{index}"), "message": "m"});
                }
                // Not monotonic in the id, so the id order is not the instant order.
                let micros = BASE_MICROS + ((index / 7) as i64 * 7_919) % 2_000_003;
                instants.push(Some(micros));
                json!({
                    "name": format!("n{index}"),
                    "message": "m",
                    "created_at": written(micros, index),
                })
            })
            .collect();
        let returned = app.seed(Value::Array(rows)).await;
        seeded.extend(
            returned
                .iter()
                .map(|row| row["id"].as_i64().unwrap())
                .zip(instants),
        );
    }
    Seeded(seeded)
}

fn written(micros: i64, index: usize) -> String {
    let offset_seconds = [0, 5 * 3600 + 1800, -7 * 3600][index % 3];
    DateTime::from_timestamp_micros(micros)
        .unwrap()
        .with_timezone(&FixedOffset::east_opt(offset_seconds).unwrap())
        .to_rfc3339_opts(SecondsFormat::Micros, false)
}

impl Seeded {
    /// The ids in `created_at, id` order, oldest first.
    fn oldest_first(&self) -> Vec<i64> {
        let mut rows = self.0.clone();
        rows.sort_by_key(|&(id, micros)| (micros.map_or((1, 0), |micros| (0, micros)), id));
        rows.into_iter().map(|(id, _)| id).collect()
    }
}

/// Every page from the start, following postgrest-js `.or(...)` cursors after the last row.
async fn walk(app: &TestApp, newest_first: bool) -> Vec<i64> {
    let (direction, before) = if newest_first {
        ("desc", "lt")
    } else {
        ("asc", "gt")
    };
    let base = format!("select=*&order=created_at.{direction},id.{direction}&limit={BATCH}");
    let mut seen = Vec::with_capacity(ROWS);
    let mut cursor: Option<(String, i64)> = None;
    loop {
        let query = match &cursor {
            None => base.clone(),
            Some((created_at, id)) => {
                let tree = format!(
                    "(created_at.{before}.\"{created_at}\",and(created_at.eq.\"{created_at}\",id.{before}.{id}))"
                );
                let encoded: String = form_urlencoded::byte_serialize(tree.as_bytes()).collect();
                format!("{base}&or={encoded}")
            }
        };
        let response = app
            .anon(Method::GET, &format!("{TABLE_URL}?{query}"))
            .send()
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        let page = response.json().as_array().cloned().unwrap();
        seen.extend(page.iter().map(|row| row["id"].as_i64().unwrap()));
        let Some(last) = page.last().filter(|_| page.len() == BATCH) else {
            return seen;
        };
        cursor = Some((
            last["created_at"].as_str().unwrap().to_owned(),
            last["id"].as_i64().unwrap(),
        ));
    }
}

#[tokio::test]
async fn keyset_pages_return_every_row_once_in_order_both_ways() {
    let app = TestApp::new();
    let seeded = seed(&app).await;
    let oldest_first = seeded.oldest_first();
    assert_eq!(oldest_first.len(), ROWS);

    let newest_first: Vec<i64> = oldest_first.iter().rev().copied().collect();
    assert_eq!(walk(&app, true).await, newest_first);
    assert_eq!(walk(&app, false).await, oldest_first);
}
