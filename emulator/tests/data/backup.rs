//! `backup` while a visitor signs one entry at a time: the copy holds every id acknowledged
//! before the backup began and serves them; the original keeps taking signs throughout.

use crate::support::{arg, command, dashboard_csv, succeed, Served};
use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_signs_stream_in_holds_every_acknowledged_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("emulator.sqlite3");
    let out = dir.path().join("copies/backup.sqlite3");
    // Some history first, so the copy takes a while to read.
    let history = dir.path().join("history.csv");
    std::fs::write(&history, dashboard_csv(1, 2_000, &"x".repeat(200))).unwrap();
    succeed(&["import", "--db", arg(&db), arg(&history)]);

    let served = Arc::new(Served::start(&["--db", arg(&db)]));
    let acknowledged: Arc<Mutex<Vec<i64>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let signer = {
        let (served, acknowledged, stop) = (served.clone(), acknowledged.clone(), stop.clone());
        tokio::spawn(async move {
            let mut client = served.client().await;
            for index in 0.. {
                if stop.load(Ordering::SeqCst) {
                    return index;
                }
                let row = served
                    .sign(&mut client, &format!("streamer {index}"), "m")
                    .await;
                acknowledged
                    .lock()
                    .unwrap()
                    .push(row["id"].as_i64().unwrap());
            }
            unreachable!()
        })
    };
    while acknowledged.lock().unwrap().len() < 20 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let before: Vec<i64> = acknowledged.lock().unwrap().clone();
    let (db_arg, out_arg) = (arg(&db).to_owned(), arg(&out).to_owned());
    let written =
        tokio::task::spawn_blocking(move || succeed(&["backup", "--db", &db_arg, &out_arg]))
            .await
            .unwrap();
    let during = acknowledged.lock().unwrap().len();
    // The original goes on taking signs after the backup too.
    while acknowledged.lock().unwrap().len() < during + 20 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    stop.store(true, Ordering::SeqCst);
    signer.await.unwrap();
    assert!(
        written.starts_with(&format!("wrote {}", arg(&out))),
        "{written}"
    );

    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let restored = Served::start(&["--db", arg(&out)]);
    let ids: BTreeSet<i64> = restored
        .rows()
        .await
        .iter()
        .map(|row| row["id"].as_i64().unwrap())
        .collect();
    let missing: Vec<&i64> = before.iter().filter(|id| !ids.contains(id)).collect();
    assert!(
        missing.is_empty(),
        "acknowledged before the backup but missing: {missing:?}"
    );
    assert!((1..=2_000).all(|id| ids.contains(&id)));
    // Nothing half-written: every id in the copy is one the original acknowledged or imported.
    let all = acknowledged.lock().unwrap().clone();
    assert!(ids.iter().all(|id| *id <= 2_000 || all.contains(id)));
    assert!(
        written.contains(&format!("{} entries", ids.len())),
        "{written}"
    );
}

#[test]
fn an_existing_copy_is_kept_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("emulator.sqlite3");
    let out = dir.path().join("backup.sqlite3");
    let history = dir.path().join("history.csv");
    std::fs::write(&history, dashboard_csv(1, 3, "m")).unwrap();
    succeed(&["import", "--db", arg(&db), arg(&history)]);
    std::fs::write(&out, b"an older copy").unwrap();

    let refused = command(&["backup", "--db", arg(&db), arg(&out)]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), b"an older copy");

    let forced = succeed(&["backup", "--db", arg(&db), arg(&out), "--force"]);
    assert!(forced.contains("3 entries"), "{forced}");

    // A database that is not there is an error, and is not created.
    let missing = dir.path().join("missing.sqlite3");
    let failed = command(&["backup", "--db", arg(&missing), arg(&dir.path().join("x"))]);
    assert!(!failed.status.success());
    assert!(!missing.exists());
}
