//! Scheduled backups in a serving emulator, with a short interval: written on schedule, the
//! newest N kept, each logged with its size and entry count; a failing one is logged and tried
//! again at the next tick while the server goes on serving.

use crate::support::{arg, dashboard_csv, succeed, Served};
use std::time::Duration;

/// How long a test waits for a log line: a deadline for a stuck server, far beyond any tick's
/// lateness on a busy machine.
const WITHIN: Duration = Duration::from_secs(120);

fn backups(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn backups_are_written_on_schedule_and_the_newest_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("logbook.sqlite3");
    let history = dir.path().join("history.csv");
    std::fs::write(&history, dashboard_csv(1, 5, "m")).unwrap();
    succeed(&["import", "--db", arg(&db), arg(&history)]);
    let backup_dir = dir.path().join("backups");
    let served = Served::start(&[
        "--db",
        arg(&db),
        "--backup-dir",
        arg(&backup_dir),
        "--backup-every",
        "1s",
        "--backup-keep",
        "2",
    ]);
    let first = served.wait_for_log("backup: wrote", WITHIN);
    assert!(first.contains("bytes, 5 entries)"), "{first}");
    let mut client = served.client().await;
    served.sign(&mut client, "between", "backups").await;
    served.wait_for_log("bytes, 6 entries)", WITHIN);
    let third = served.wait_for_log("backup: wrote", WITHIN);
    drop(served);
    let removed = third
        .split_once("; removed ")
        .map(|(_, removed)| removed.to_owned())
        .unwrap_or_else(|| panic!("the oldest goes once three exist: {third}"));
    assert!(!std::path::Path::new(&removed).exists(), "{removed}");
    // The newest N, or one more when the server was stopped between a backup and its removals;
    // staging files (`.logbook-...partial-...`) are never among them.
    let names: Vec<String> = backups(&backup_dir)
        .into_iter()
        .filter(|name| name.starts_with("logbook-") && name.ends_with("Z.sqlite3"))
        .collect();
    assert!((2..=3).contains(&names.len()), "{names:?}");
    // The newest, taken after the sign, is a database an emulator serves, with it.
    let newest = backup_dir.join(names.last().unwrap());
    let restored = Served::start(&["--db", arg(&newest)]);
    assert_eq!(restored.rows().await.len(), 6);
}

#[tokio::test]
async fn a_failing_backup_is_logged_retried_and_never_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("emulator.sqlite3");
    // A file where the directory should be: every backup fails until it is gone.
    let blocked = dir.path().join("backups");
    std::fs::write(&blocked, b"not a directory").unwrap();
    let served = Served::start(&[
        "--db",
        arg(&db),
        "--backup-dir",
        arg(&blocked),
        "--backup-every",
        "1s",
    ]);
    let failed = served.wait_for_log("backup: failed", WITHIN);
    assert!(failed.contains("trying again in 1s"), "{failed}");
    let mut client = served.client().await;
    served.sign(&mut client, "still", "serving").await;
    served.wait_for_log("backup: failed", WITHIN);
    std::fs::remove_file(&blocked).unwrap();
    let wrote = served.wait_for_log("backup: wrote", WITHIN);
    assert!(wrote.contains("1 entries"), "{wrote}");
    served.sign(&mut client, "and", "after").await;
}
