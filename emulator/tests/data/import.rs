//! `import` refuses a malformed file as a whole: a non-zero exit, a message naming the line or
//! array index, and nothing imported (nor a database created); what it adds, returning devices
//! learn of.

use crate::support::{arg, command, dashboard_csv, succeed, Served};
use crate::wire::request;
use axum::http::{Method, StatusCode};

#[test]
fn a_malformed_file_is_refused_and_nothing_is_imported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("emulator.sqlite3");
    let file = dir.path().join("entries");
    let good = dashboard_csv(1, 3, "TFTC");
    let mut invalid_utf8 = format!("{good}\r\n4,2026-11-20 10:11:12+00,Ada,").into_bytes();
    invalid_utf8.extend_from_slice(b"caf\xe9");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            format!("{good}\r\n4,2026-11-20 10:11:12+00,Ada,\"open").into_bytes(),
            "line 5: a quoted field is never closed",
        ),
        (
            format!("{good}\r\n4,2026-11-20 10:11:12+00,Ada").into_bytes(),
            "line 5: 3 fields",
        ),
        (
            format!("{good}\r\n4,2026-11-20 10:11:12+00,Ada,m,x").into_bytes(),
            "line 5: 5 fields",
        ),
        (
            format!("{good}\r\n4,2026-11-20 25:00:00+00,Ada,m").into_bytes(),
            "line 5: created_at",
        ),
        (
            format!("{good}\r\n4,2026-11-20 10:11:12,Ada,m").into_bytes(),
            "line 5: created_at",
        ),
        (
            format!("{good}\r\nfour,2026-11-20 10:11:12+00,Ada,m").into_bytes(),
            "line 5: id \"four\"",
        ),
        (
            format!("{good}\r\n4,2026-11-20 10:11:12+00,Ada,a\0b").into_bytes(),
            "line 5: the message holds U+0000",
        ),
        (invalid_utf8, "line 5: the message is not valid UTF-8"),
        (
            br#"[{"id":1,"created_at":"2026-11-20T10:11:12Z","name":"A","message":"m"},{"id":2}]"#
                .to_vec(),
            "entry at index 1: ",
        ),
        (b"[{\"id\":1,".to_vec(), "line 1, column"),
    ];
    for (bytes, says) in cases {
        std::fs::write(&file, &bytes).unwrap();
        let output = command(&["import", "--db", arg(&db), arg(&file)]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{says}");
        assert!(stderr.contains(says), "expected {says:?} in {stderr:?}");
        assert!(stderr.contains("nothing was imported"), "{stderr}");
        assert!(!db.exists(), "{says}: a refused import creates no database");
    }

    // Into an existing database: still nothing of the file.
    std::fs::write(&file, &good).unwrap();
    succeed(&["import", "--db", arg(&db), arg(&file)]);
    std::fs::write(
        &file,
        format!("{}\r\n9,not a time,Ada,m", dashboard_csv(4, 2, "new")),
    )
    .unwrap();
    assert!(!command(&["import", "--db", arg(&db), arg(&file)])
        .status
        .success());
    let exported = succeed(&["export", "--db", arg(&db), "--format", "csv"]);
    assert_eq!(
        exported, good,
        "the dashboard's CSV comes back byte for byte"
    );
}

/// A returning device learns of entries older than its catch-up window from
/// `geocache_log_changes`: an import, into a database an emulator is serving, records each entry
/// it adds whose `created_at` is older than the import's time as `added`, at the time of its
/// transaction (one for a small file), as a restore does. An entry stamped later than the
/// import, a skipped id and a visitor's sign record nothing.
#[tokio::test]
async fn imported_entries_older_than_the_import_are_recorded_as_added() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("emulator.sqlite3");
    let served = Served::start(&["--db", arg(&db)]);
    let mut client = served.client().await;
    let signed = served.sign(&mut client, "Before", "signed first").await;
    let signed_id = signed["id"].as_i64().unwrap();

    let file = dir.path().join("entries.csv");
    let first = signed_id + 10;
    let later = "2999-01-01 00:00:00+00";
    std::fs::write(
        &file,
        format!(
            "{}\r\n{},{later},Future,stamped after the import",
            dashboard_csv(first, 3, "TFTC"),
            first + 3
        ),
    )
    .unwrap();
    let before = timestamp_now();
    succeed(&["import", "--db", arg(&db), arg(&file)]);
    let after = timestamp_now();
    // Again: every id is skipped, and nothing more is recorded.
    assert!(succeed(&["import", "--db", arg(&db), arg(&file)]).contains("skipped 4"));
    served.sign(&mut client, "After", "signed last").await;

    let path = "/rest/v1/geocache_log_changes?select=seq,entry_id,change,changed_at&order=seq.asc";
    let reply = client
        .send(request(Method::GET, path, &served.anon, None))
        .await
        .unwrap();
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let changes = reply.json().as_array().cloned().unwrap();
    let recorded: Vec<(i64, &str)> = changes
        .iter()
        .map(|change| {
            (
                change["entry_id"].as_i64().unwrap(),
                change["change"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        recorded,
        [(first, "added"), (first + 1, "added"), (first + 2, "added")]
    );
    let times: Vec<&str> = changes
        .iter()
        .map(|change| change["changed_at"].as_str().unwrap())
        .collect();
    assert!(times.iter().all(|time| *time == times[0]), "{times:?}");
    let at = chrono::DateTime::parse_from_rfc3339(times[0]).unwrap();
    assert!(before <= at && at <= after, "{before} <= {at} <= {after}");
}

fn timestamp_now() -> chrono::DateTime<chrono::FixedOffset> {
    chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now()).fixed_offset()
}
