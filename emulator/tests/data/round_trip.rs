//! Entries signed through the emulator (the hostile-text corpus among them, two 1 MiB messages
//! included) exported as CSV and as JSON and imported into fresh databases: every field comes
//! back, a second import adds nothing, and a sign after the import gets a larger id.

use crate::support::{arg, command, succeed, Served};
use serde_json::Value;
use std::path::Path;

/// The corpus's texts that a database can store (those with U+0000 are refused by design).
fn hostile_texts() -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hostile-texts.json");
    let corpus: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let text = |spec: &Value| match spec {
        Value::String(text) => text.clone(),
        spec => spec["repeat"]
            .as_str()
            .unwrap()
            .repeat(spec["count"].as_u64().unwrap() as usize),
    };
    corpus["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry.get("outcome").is_none())
        .map(|entry| (text(&entry["name"]), text(&entry["message"])))
        .collect()
}

#[tokio::test]
async fn csv_and_json_round_trips_keep_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("emulator.sqlite3");
    let served = Served::start(&["--db", arg(&db)]);
    let mut client = served.client().await;
    let texts = hostile_texts();
    assert!(texts.iter().any(|(_, message)| message.len() >= 1 << 20));
    for (name, message) in &texts {
        served.sign(&mut client, name, message).await;
    }
    for index in 0..50 {
        served
            .sign(&mut client, &format!("visitor {index}"), "TFTC")
            .await;
    }
    let original = served.rows().await;
    assert_eq!(original.len(), texts.len() + 50);

    for format in ["csv", "json"] {
        let exported = dir.path().join(format!("export.{format}"));
        let output = command(&["export", "--db", arg(&db), "--format", format]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        std::fs::write(&exported, &output.stdout).unwrap();

        let copy = dir.path().join(format!("from-{format}.sqlite3"));
        let added = succeed(&["import", "--db", arg(&copy), arg(&exported)]);
        assert!(
            added.starts_with(&format!("added {} entries", original.len())),
            "{format}: {added}"
        );
        let again = succeed(&["import", "--db", arg(&copy), arg(&exported)]);
        assert!(
            again.starts_with(&format!(
                "added 0 entries to {}; skipped {} already stored",
                arg(&copy),
                original.len()
            )),
            "{format}: {again}"
        );
        assert!(!again.contains("conflicts"), "{format}: {again}");

        let restored = Served::start(&["--db", arg(&copy)]);
        let rows = restored.rows().await;
        assert_eq!(rows.len(), original.len(), "{format}");
        for (row, expected) in rows.iter().zip(&original) {
            // Field for field, the time to the microsecond in PostgREST's own text.
            assert_eq!(row, expected, "{format}");
        }
        let mut restored_client = restored.client().await;
        let next = restored
            .sign(&mut restored_client, "after", "the import")
            .await;
        let largest = original.last().unwrap()["id"].as_i64().unwrap();
        assert!(next["id"].as_i64().unwrap() > largest, "{format}: {next}");
    }

    // The JSON export is what PostgREST returns for the same rows.
    let exported: Value =
        serde_json::from_slice(&command(&["export", "--db", arg(&db), "--format", "json"]).stdout)
            .unwrap();
    assert_eq!(exported.as_array().unwrap(), &original);
}

#[tokio::test]
async fn an_import_into_a_served_database_is_served_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("emulator.sqlite3");
    let served = Served::start(&["--db", arg(&db)]);
    let mut client = served.client().await;
    let first = served.sign(&mut client, "before", "the import").await;
    assert_eq!(first["id"], 1);

    let file = dir.path().join("home.json");
    std::fs::write(
        &file,
        r#"[{"id":1,"created_at":"2026-11-20T10:11:12Z","name":"other","message":"entry"},
            {"id":40,"created_at":"2026-11-20T10:11:12.000001+00:00","name":"Ada","message":"TFTC"},
            {"id":41,"created_at":"2025-01-01T00:00:00-05:00","name":"Grace","message":"older"}]"#,
    )
    .unwrap();
    let printed = succeed(&["import", "--db", arg(&db), arg(&file)]);
    assert!(printed.starts_with("added 2 entries"), "{printed}");
    assert!(
        printed.contains(
            "conflicts: 1 stored entries differ from the file's and were kept as stored: ids 1"
        ),
        "{printed}"
    );

    let rows = served.rows().await;
    let ids: Vec<i64> = rows.iter().map(|row| row["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [1, 40, 41]);
    assert_eq!(
        rows[0]["name"], "before",
        "a stored entry is never overwritten"
    );
    assert_eq!(rows[1]["created_at"], "2026-11-20T10:11:12.000001+00:00");
    assert_eq!(rows[2]["created_at"], "2025-01-01T05:00:00+00:00");
    let next = served.sign(&mut client, "after", "the import").await;
    assert_eq!(next["id"], 42);
}
