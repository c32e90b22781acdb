//! The figures an owner asks about, at 100,000 entries: how long export and import take and how
//! large their files are, and how long a backup holds up a visitor's sign (the longest sign
//! latency while one runs). Ignored: it measures this machine, and asserts nothing but success.
//! Run it on a release-speed build:
//!
//! `cargo test --profile emulator -p geocache-emulator --test data -- --ignored --nocapture figures`

use crate::support::{arg, command, succeed, Served};
use std::time::{Duration, Instant};

const ENTRIES: i64 = 100_000;

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// A dashboard CSV of `ENTRIES` entries with messages of 20 to 400 characters.
fn logbook_csv() -> String {
    let mut text = String::from("id,created_at,name,message");
    for id in 1..=ENTRIES {
        let time =
            chrono::DateTime::from_timestamp(1_700_000_000 + id * 37, (id % 997) as u32 * 1_000)
                .unwrap()
                .format("%Y-%m-%d %H:%M:%S%.6f")
                .to_string();
        let length = 20 + (id * 7919 % 381) as usize;
        let message: String = "Found it, thanks for the cache! "
            .chars()
            .cycle()
            .take(length)
            .collect();
        text.push_str(&format!("\r\n{id},{time}+00,Visitor {id},\"{message}\""));
    }
    text
}

fn timed(args: &[&str]) -> (Duration, Vec<u8>) {
    let started = Instant::now();
    let output = command(args);
    let took = started.elapsed();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (took, output.stdout)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measures this machine; run by hand"]
async fn figures() {
    println!("load average before: {}", load_average());
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source.csv");
    std::fs::write(&source, logbook_csv()).unwrap();
    let db = dir.path().join("emulator.sqlite3");
    let (took, _) = timed(&["import", "--db", arg(&db), arg(&source)]);
    println!(
        "import csv into a new database: {took:.2?}, file {} bytes, database {} bytes",
        std::fs::metadata(&source).unwrap().len(),
        std::fs::metadata(&db).unwrap().len()
    );
    for format in ["sql", "csv", "json"] {
        let (took, bytes) = timed(&["export", "--db", arg(&db), "--format", format]);
        println!("export {format}: {took:.2?}, {} bytes", bytes.len());
        if format != "sql" {
            let file = dir.path().join(format!("export.{format}"));
            std::fs::write(&file, &bytes).unwrap();
            let fresh = dir.path().join(format!("from-{format}.sqlite3"));
            let (took, _) = timed(&["import", "--db", arg(&fresh), arg(&file)]);
            println!("import {format} into a new database: {took:.2?}");
            let (took, _) = timed(&["import", "--db", arg(&fresh), arg(&file)]);
            println!("import {format} again (every id skipped): {took:.2?}");
        }
    }

    // Signs one at a time while the whole logbook is imported into the database they go to (its
    // identity first moved past the file's ids, so the two never meet).
    let busy = dir.path().join("busy.sqlite3");
    let past = dir.path().join("past.csv");
    std::fs::write(
        &past,
        format!(
            "id,created_at,name,message\r\n{},2026-01-01 00:00:00+00,a,b",
            ENTRIES + 1
        ),
    )
    .unwrap();
    succeed(&["import", "--db", arg(&busy), arg(&past)]);
    let served = std::sync::Arc::new(Served::start(&["--db", arg(&busy)]));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let signer = {
        let (served, stop) = (served.clone(), stop.clone());
        tokio::spawn(async move {
            let mut client = served.client().await;
            let mut latencies = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let started = Instant::now();
                served.sign(&mut client, "latency", "probe").await;
                latencies.push((started, started.elapsed()));
            }
            latencies
        })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (busy_arg, source_arg) = (arg(&busy).to_owned(), arg(&source).to_owned());
    let started = Instant::now();
    let printed =
        tokio::task::spawn_blocking(move || succeed(&["import", "--db", &busy_arg, &source_arg]))
            .await
            .unwrap();
    let window = (started, Instant::now());
    tokio::time::sleep(Duration::from_secs(1)).await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let latencies = signer.await.unwrap();
    drop(served);
    println!(
        "import csv into a served database: {:.2?}: {}",
        window.1 - window.0,
        printed.trim()
    );
    let (during, outside): (Vec<_>, Vec<_>) = latencies
        .iter()
        .partition(|(started, took)| *started < window.1 && *started + *took > window.0);
    println!(
        "signs during the import: {}",
        spread(during.iter().map(|(_, took)| *took).collect())
    );
    println!(
        "signs outside it: {}",
        spread(outside.iter().map(|(_, took)| *took).collect())
    );

    // Signs one at a time while backups run, each sign's latency recorded.
    let served = std::sync::Arc::new(Served::start(&["--db", arg(&db)]));
    let signer = {
        let served = served.clone();
        tokio::spawn(async move {
            let mut client = served.client().await;
            let mut latencies = Vec::new();
            let until = Instant::now() + Duration::from_secs(8);
            while Instant::now() < until {
                let started = Instant::now();
                served.sign(&mut client, "latency", "probe").await;
                latencies.push((started, started.elapsed()));
            }
            latencies
        })
    };
    let mut windows = Vec::new();
    tokio::time::sleep(Duration::from_secs(1)).await;
    for round in 0..3 {
        let out = dir.path().join(format!("backup-{round}.sqlite3"));
        let (db, out) = (arg(&db).to_owned(), arg(&out).to_owned());
        let started = Instant::now();
        let printed = tokio::task::spawn_blocking(move || succeed(&["backup", "--db", &db, &out]))
            .await
            .unwrap();
        let took = started.elapsed();
        println!("backup {round}: {took:.2?}: {}", printed.trim());
        windows.push((started, started + took));
        tokio::time::sleep(Duration::from_millis(700)).await;
    }
    let latencies = signer.await.unwrap();
    let during: Vec<Duration> = latencies
        .iter()
        .filter(|(started, took)| {
            windows
                .iter()
                .any(|(from, to)| *started < *to && *started + *took > *from)
        })
        .map(|(_, took)| *took)
        .collect();
    let outside: Vec<Duration> = latencies
        .iter()
        .map(|(_, took)| *took)
        .filter(|took| !during.contains(took))
        .collect();
    println!("signs during backups: {}", spread(during));
    println!("signs outside them: {}", spread(outside));
    println!("load average after: {}", load_average());
}

/// How many, and the median, 99th percentile and longest of `latencies`.
fn spread(mut latencies: Vec<Duration>) -> String {
    latencies.sort();
    let at = |share: f64| {
        let index = ((latencies.len() as f64 - 1.0) * share).round() as usize;
        latencies.get(index).copied().unwrap_or_default()
    };
    format!(
        "{}, median {:.2?}, p99 {:.2?}, longest {:.2?}",
        latencies.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    )
}
