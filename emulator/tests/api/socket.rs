//! Over real sockets: the router behind `axum::serve` on port 0, and the built binary's
//! command-line contract (startup lines, shutdown on SIGTERM).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One HTTP/1.1 exchange with `Connection: close`; returns the raw response text.
async fn exchange(address: &str, request: String) -> String {
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}

#[tokio::test]
async fn the_real_deal_over_a_socket() {
    let state = AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET).unwrap();
    let key = state.keys.anon_key().to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let server = tokio::spawn(async move {
        axum::serve(listener, geocache_emulator::app(state))
            .await
            .unwrap();
    });

    let body = r#"{"name":"socket","message":"over tcp"}"#;
    let response = exchange(
        &address,
        format!(
            "POST /rest/v1/geocache_logs HTTP/1.1\r\nHost: {address}\r\napikey: {key}\r\n\
             Authorization: Bearer {key}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
    .await;
    assert!(
        response.starts_with("HTTP/1.1 201 Created\r\n"),
        "{response}"
    );

    let response = exchange(
        &address,
        format!(
            "GET /rest/v1/geocache_logs?select=name,message&order=created_at.desc HTTP/1.1\r\n\
             Host: {address}\r\napikey: {key}\r\nOrigin: http://127.0.0.1:5173\r\n\
             Connection: close\r\n\r\n"
        ),
    )
    .await;
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    let lower = response.to_ascii_lowercase();
    assert!(lower.contains("content-range: 0-0/*\r\n"), "{response}");
    assert!(
        lower.contains("access-control-allow-origin: *\r\n"),
        "{response}"
    );
    assert!(
        response.ends_with(r#"[{"name":"socket","message":"over tcp"}]"#),
        "{response}"
    );
    server.abort();
}

#[test]
fn binary_prints_the_startup_lines_serves_and_stops_on_sigterm() {
    run_binary_until("TERM", Some(DEFAULT_JWT_SECRET));
}

#[test]
fn binary_stops_on_sigint() {
    run_binary_until("INT", None);
}

/// Starts the binary (with `secret`, else its own), checks its startup lines and one request,
/// then stops it with `signal`.
fn run_binary_until(signal: &str, secret: Option<&str>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_geocache-emulator"));
    command.args(["--port", "0", "--db", ":memory:"]);
    if let Some(secret) = secret {
        command.args(["--jwt-secret", secret]);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next_line = || lines.next().unwrap().unwrap();
    let url_line = next_line();
    let anon_line = next_line();
    let service_line = next_line();

    let url = url_line
        .strip_prefix("API URL: http://127.0.0.1:")
        .expect(&url_line);
    let port: u16 = url.parse().expect(&url_line);
    assert_ne!(port, 0);
    let anon = anon_line.strip_prefix("anon key: ").expect(&anon_line);
    let service = service_line
        .strip_prefix("service_role key: ")
        .expect(&service_line);
    // The demo secret yields the Supabase CLI's demo keys; without a secret the keys are the
    // emulator's own.
    let demo = secret == Some(DEFAULT_JWT_SECRET);
    assert_eq!(
        anon.ends_with(".CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0"),
        demo,
        "{anon}"
    );
    assert_eq!(
        service.ends_with(".EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU"),
        demo,
        "{service}"
    );

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let address = format!("127.0.0.1:{port}");
    let response = runtime.block_on(exchange(
        &address,
        format!(
            "GET /rest/v1/geocache_logs HTTP/1.1\r\nHost: {address}\r\napikey: {anon}\r\n\
             Connection: close\r\n\r\n"
        ),
    ));
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");

    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        assert!(
            Instant::now() < deadline,
            "the emulator did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exit.success(), "{exit:?}");
}

#[test]
fn help_documents_every_flag() {
    let output = Command::new(env!("CARGO_BIN_EXE_geocache-emulator"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for flag in [
        "--host",
        "--port",
        "--db",
        "--jwt-secret",
        "GEOCACHE_EMULATOR_JWT_SECRET",
        "at least 32 bytes",
        "jwt-secret",
        "--header-read-timeout",
        "GEOCACHE_EMULATOR_HEADER_READ_TIMEOUT",
        "--idle-timeout",
        "GEOCACHE_EMULATOR_IDLE_TIMEOUT",
        "--max-connections",
        "GEOCACHE_EMULATOR_MAX_CONNECTIONS",
        ":memory:",
        "54321",
        "--jwt-expiry",
        "GEOCACHE_EMULATOR_JWT_EXPIRY",
        "--mfa-challenge-expiry",
        "GEOCACHE_EMULATOR_MFA_CHALLENGE_EXPIRY",
        "--mfa-rate-limit",
        "GEOCACHE_EMULATOR_MFA_RATE_LIMIT",
        "--password-hash-cost",
        "GEOCACHE_EMULATOR_PASSWORD_HASH_COST",
        "/emulator/v1/sms",
        "--max-body-bytes",
        "GEOCACHE_EMULATOR_MAX_BODY_BYTES",
        "8388608",
        "--faults",
        "GEOCACHE_EMULATOR_FAULTS",
        "/emulator/v1/faults",
        "drop_before_response",
        "drop_mid_response",
        "truncate_body",
        "non_json_body",
        "out_of_order",
        "\"every\"",
        "\"probability\"",
        "\"apply\"",
        "\"seed\"",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}

#[test]
fn the_binary_issues_tokens_for_its_real_url_with_settings_from_the_environment() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_geocache-emulator"))
        .args([
            "--port",
            "0",
            "--db",
            ":memory:",
            "--password-hash-cost",
            "4",
        ])
        .env("GEOCACHE_EMULATOR_JWT_EXPIRY", "7")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = lines.next().unwrap().unwrap();
    let url = url.strip_prefix("API URL: ").unwrap().to_owned();
    let anon = lines.next().unwrap().unwrap();
    let anon = anon.strip_prefix("anon key: ").unwrap().to_owned();
    let address = url.strip_prefix("http://").unwrap().to_owned();
    let body = r#"{"email":"socket@example.com","password":"secret123"}"#;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let response = runtime.block_on(exchange(
        &address,
        format!(
            "POST /auth/v1/signup HTTP/1.1\r\nHost: {address}\r\napikey: {anon}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    ));
    let _ = child.kill();
    let _ = child.wait();
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    let json: serde_json::Value =
        serde_json::from_str(&response[response.find("\r\n\r\n").unwrap() + 4..]).unwrap();
    assert_eq!(json["expires_in"], 7);
    let payload = json["access_token"]
        .as_str()
        .unwrap()
        .split('.')
        .nth(1)
        .unwrap();
    let claims: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    assert_eq!(claims["iss"], format!("{url}/auth/v1"));
}

#[test]
fn an_unusable_database_path_fails_before_printing() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_geocache-emulator"))
        .args(["--port", "0", "--db"])
        .arg(blocker.join("db.sqlite3"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("cannot open database"), "{stderr}");
}
