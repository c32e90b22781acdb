//! A bounded soak of the emulator binary: several clients mix reads (the newest 50 entries, as a
//! page would) and inserts into a file database for `GEOCACHE_SOAK_SECONDS` (default 60). Every
//! request succeeds and the server's memory (VmRSS) of the last window stays close to the first
//! window's. The latency figures go to target/emulator-soak.json with the memory's, and are not
//! asserted: they follow whatever else the machine runs meanwhile. That reads of the newest page
//! stay fast as the table grows rests on their index, which rest/sql.rs's query-plan test checks.

// Tests unwrap: a panic there is a failed test, and the line it points at says what broke.
#![cfg_attr(test, allow(clippy::unwrap_used))]

#[path = "../wire/mod.rs"]
mod wire;

use axum::http::{Method, StatusCode};
use serde_json::json;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wire::{request, Binary, Client, TABLE_URL};

const CLIENTS: usize = 4;
/// One request in this many is an insert.
const WRITE_EVERY: u64 = 5;
/// Pause between a client's requests, so the soak measures steady service, not saturation.
const THINK: Duration = Duration::from_millis(10);
/// Ignored at the start: the first connections, page cache and allocator warm up.
const WARM_UP: Duration = Duration::from_secs(3);

/// One finished request: when it started (since the soak began), how long it took, its kind.
#[derive(Clone, Copy)]
struct Sample {
    at: Duration,
    latency: Duration,
    write: bool,
}

fn soak_duration() -> Duration {
    let seconds = std::env::var("GEOCACHE_SOAK_SECONDS")
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
        .unwrap_or(60);
    Duration::from_secs(seconds.max(10))
}

fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/<pid>/status")
}

/// The `fraction` quantile in milliseconds, to the microsecond.
fn percentile(sorted: &[Duration], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((sorted.len() - 1) as f64 * fraction).round() as usize;
    (sorted[index].as_secs_f64() * 1_000_000.0).round() / 1000.0
}

struct Window {
    p50_ms: f64,
    p99_ms: f64,
    requests: usize,
    rss_kb: u64,
}

fn window(samples: &[Sample], rss: &[(Duration, u64)], from: Duration, to: Duration) -> Window {
    let mut latencies: Vec<Duration> = samples
        .iter()
        .filter(|sample| sample.at >= from && sample.at < to)
        .map(|sample| sample.latency)
        .collect();
    latencies.sort();
    let in_window: Vec<u64> = rss
        .iter()
        .filter(|(at, _)| *at >= from && *at < to)
        .map(|(_, kb)| *kb)
        .collect();
    Window {
        p50_ms: percentile(&latencies, 0.50),
        p99_ms: percentile(&latencies, 0.99),
        requests: latencies.len(),
        rss_kb: in_window.iter().copied().max().unwrap_or(0),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_stays_flat_under_mixed_reads_and_writes() {
    let duration = soak_duration();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("soak.sqlite3");
    let binary = Binary::start(&["--db", db.to_str().unwrap()]);
    let pid = binary.pid();
    let started = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let samples: Arc<Mutex<Vec<Sample>>> = Arc::default();
    let mut clients = Vec::new();
    for client_index in 0..CLIENTS {
        let mut client = Client::connect(binary.address).await.unwrap();
        let (key, stop, samples) = (binary.anon.clone(), Arc::clone(&stop), Arc::clone(&samples));
        clients.push(tokio::spawn(async move {
            let mut count: u64 = client_index as u64;
            while !stop.load(Ordering::Relaxed) {
                count += 1;
                let write = count % WRITE_EVERY == 0;
                let request = if write {
                    let body = json!({"name": format!("soak {client_index}"),
                                      "message": format!("entry {count}")});
                    request(Method::POST, TABLE_URL, &key, Some(&body.to_string()))
                } else {
                    let page = format!("{TABLE_URL}?select=*&order=created_at.desc&limit=50");
                    request(Method::GET, &page, &key, None)
                };
                let at = started.elapsed();
                let begun = Instant::now();
                let reply = client.send(request).await.expect("no request fails");
                let latency = begun.elapsed();
                let expected = if write {
                    StatusCode::CREATED
                } else {
                    StatusCode::OK
                };
                assert_eq!(reply.status, expected, "{}", reply.text());
                samples.lock().unwrap().push(Sample { at, latency, write });
                tokio::time::sleep(THINK).await;
            }
        }));
    }
    let mut rss = Vec::new();
    while started.elapsed() < duration {
        rss.push((started.elapsed(), rss_kb(pid)));
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.await.unwrap();
    }
    let end_rss = rss_kb(pid);
    drop(binary);

    let samples = samples.lock().unwrap().clone();
    let span = (duration - WARM_UP) / 4;
    let first = window(&samples, &rss, WARM_UP, WARM_UP + span);
    let last = window(&samples, &rss, duration - span, duration);
    let mut all: Vec<Duration> = samples.iter().map(|sample| sample.latency).collect();
    all.sort();
    let writes = samples.iter().filter(|sample| sample.write).count();
    let window_json = |window: &Window| {
        json!({"requests": window.requests, "p50_ms": window.p50_ms,
               "p99_ms": window.p99_ms, "max_rss_kb": window.rss_kb})
    };
    let report = json!({
        "duration_s": duration.as_secs(),
        "clients": CLIENTS,
        "build": if cfg!(debug_assertions) { "debug" } else { "release" },
        "requests": samples.len(),
        "reads": samples.len() - writes,
        "writes": writes,
        "errors": 0,
        "latency_ms": {
            "p50": percentile(&all, 0.50),
            "p90": percentile(&all, 0.90),
            "p99": percentile(&all, 0.99),
            "max": percentile(&all, 1.0),
        },
        "rss_kb": {
            "start": rss.first().map(|(_, kb)| *kb),
            "end": end_rss,
            "max": rss.iter().map(|(_, kb)| *kb).max(),
        },
        "first_window": window_json(&first),
        "last_window": window_json(&last),
    });
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("emulator-soak.json");
    std::fs::write(&target, serde_json::to_string_pretty(&report).unwrap()).unwrap();
    println!("soak figures ({}): {report:#}", target.display());

    assert!(samples.len() > 100, "only {} requests", samples.len());
    assert!(first.requests > 0 && last.requests > 0);
    assert!(
        last.rss_kb <= first.rss_kb + (first.rss_kb / 2).max(16 * 1024),
        "RSS grew from {} kB to {} kB",
        first.rss_kb,
        last.rss_kb
    );
}
