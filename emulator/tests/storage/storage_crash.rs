//! The served binary's file store: a killed emulator in the middle of an upload leaves, after a
//! restart, no object, no row and no file, temporary or not; an in-memory database's bytes live
//! in a temporary directory that goes when the emulator stops.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Running {
    child: Child,
    address: String,
    service: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(db: &Path) -> Running {
    start_with(db, std::env::temp_dir().as_path())
}

/// With `temp` as the system's temporary directory.
fn start_with(db: &Path, temp: &Path) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_geocache-emulator"))
        .args(["--port", "0", "--db"])
        .arg(db)
        .env("TMPDIR", temp)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = lines.next().unwrap().unwrap();
    let address = url.strip_prefix("API URL: http://").expect(&url).to_owned();
    let _anon = lines.next().unwrap().unwrap();
    let service = lines.next().unwrap().unwrap();
    let service = service
        .strip_prefix("service_role key: ")
        .expect(&service)
        .to_owned();
    // The emulator stops if its startup lines cannot be written: read them all.
    for _ in 0..2 {
        lines.next().unwrap().unwrap();
    }
    Running {
        child,
        address,
        service,
    }
}

/// One whole request; the response's text.
fn exchange(running: &Running, head: &str, body: &[u8]) -> String {
    let mut stream = TcpStream::connect(&running.address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let key = &running.service;
    write!(
        stream,
        "{head}\r\nHost: {}\r\napikey: {key}\r\nAuthorization: Bearer {key}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        running.address,
        body.len()
    )
    .unwrap();
    stream.write_all(body).unwrap();
    let mut response = Vec::new();
    // A reset after the answer (the server closing on unread bytes) still leaves the answer.
    let _ = stream.read_to_end(&mut response);
    String::from_utf8_lossy(&response).into_owned()
}

/// Every file under `directory`, recursively.
fn files_under(directory: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(directory).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            found.extend(files_under(&entry.path()));
        } else {
            found.push(entry.path());
        }
    }
    found
}

#[test]
fn storage_a_kill_mid_upload_leaves_nothing_after_a_restart() {
    let directory = tempfile::tempdir().unwrap();
    let db = directory.path().join("emulator.sqlite3");
    let storage = directory.path().join("storage");
    let first = start(&db);
    let created = exchange(
        &first,
        "POST /storage/v1/bucket HTTP/1.1\r\nContent-Type: application/json",
        br#"{"id":"b","name":"b"}"#,
    );
    assert!(created.starts_with("HTTP/1.1 200"), "{created}");

    // Half of a 1 MB body, then the process dies.
    let mut stream = TcpStream::connect(&first.address).unwrap();
    let key = &first.service;
    write!(
        stream,
        "POST /storage/v1/object/b/half.bin HTTP/1.1\r\nHost: {}\r\napikey: {key}\r\n\
         Authorization: Bearer {key}\r\nContent-Type: application/octet-stream\r\n\
         Content-Length: 1048576\r\n\r\n",
        first.address
    )
    .unwrap();
    stream.write_all(&vec![7u8; 512 * 1024]).unwrap();
    stream.flush().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    // The temporary file appears once the server has started writing.
    while !storage.exists() || files_under(&storage).is_empty() {
        assert!(Instant::now() < deadline, "no temporary file appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    let written = files_under(&storage);
    assert_eq!(written.len(), 1, "{written:?}");
    let temp_name = written[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(temp_name.starts_with(".upload-"), "{temp_name}");
    drop(first);
    drop(stream);
    assert!(written[0].exists(), "SIGKILL leaves the temporary file");

    let second = start(&db);
    assert!(
        files_under(&storage).is_empty(),
        "the start-up sweep removes it: {:?}",
        files_under(&storage)
    );
    let read = exchange(&second, "GET /storage/v1/object/b/half.bin HTTP/1.1", b"");
    assert!(read.contains("\"statusCode\":\"404\""), "{read}");
    let listed = exchange(
        &second,
        "POST /storage/v1/object/list/b HTTP/1.1\r\nContent-Type: application/json",
        br#"{"prefix":""}"#,
    );
    assert!(listed.ends_with("\r\n\r\n[]"), "{listed}");
    let uploaded = exchange(
        &second,
        "POST /storage/v1/object/b/whole.bin HTTP/1.1\r\nContent-Type: application/octet-stream",
        &[1u8; 1000],
    );
    assert!(uploaded.starts_with("HTTP/1.1 200"), "{uploaded}");
    assert_eq!(files_under(&storage).len(), 1);
}

#[test]
fn storage_a_memory_database_keeps_bytes_in_a_directory_removed_at_exit() {
    let temp = tempfile::tempdir().unwrap();
    let mut running = start_with(Path::new(":memory:"), temp.path());
    let created = exchange(
        &running,
        "POST /storage/v1/bucket HTTP/1.1\r\nContent-Type: application/json",
        br#"{"id":"b"}"#,
    );
    assert!(created.starts_with("HTTP/1.1 200"), "{created}");
    let uploaded = exchange(
        &running,
        "POST /storage/v1/object/b/a.bin HTTP/1.1\r\nContent-Type: application/octet-stream",
        &[1u8; 100],
    );
    assert!(uploaded.starts_with("HTTP/1.1 200"), "{uploaded}");
    let stores: Vec<_> = std::fs::read_dir(temp.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(stores.len(), 1, "{stores:?}");
    assert_eq!(files_under(&stores[0]).len(), 1);

    let status = Command::new("kill")
        .args(["-TERM", &running.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = running.child.wait().unwrap();
    assert!(exit.success(), "{exit:?}");
    assert!(
        !stores[0].exists(),
        "the throwaway store is removed at exit"
    );
}
