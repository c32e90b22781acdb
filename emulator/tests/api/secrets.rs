//! The built binary's JWT secret: its own random one kept beside the database, one from the
//! environment, and the refusals (short secrets, the public demo secret off loopback).

use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

const BINARY: &str = env!("CARGO_BIN_EXE_geocache-emulator");

/// The five key lines a started emulator prints, after which it is stopped.
fn printed_keys(args: &[&str], env: &[(&str, &str)]) -> Vec<String> {
    let mut child = Command::new(BINARY)
        .args(["--port", "0", "--password-hash-cost", "4"])
        .args(args)
        .envs(env.iter().copied())
        .env_remove_if_absent(env)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines: Vec<String> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .take(5)
        .map(Result::unwrap)
        .collect();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(lines.len(), 5, "{lines:?}");
    // The API URL differs per start; the keys are what matters.
    lines[1..].to_vec()
}

/// Runs the binary expecting it to refuse to start; returns its stderr.
fn refusal(args: &[&str], env: &[(&str, &str)]) -> String {
    let output = Command::new(BINARY)
        .args(["--port", "0", "--db", ":memory:"])
        .args(args)
        .envs(env.iter().copied())
        .env_remove_if_absent(env)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    String::from_utf8(output.stderr).unwrap()
}

trait WithoutInheritedSecret {
    /// Drops an inherited secret variable unless the test sets it.
    fn env_remove_if_absent(&mut self, env: &[(&str, &str)]) -> &mut Self;
}

impl WithoutInheritedSecret for Command {
    fn env_remove_if_absent(&mut self, env: &[(&str, &str)]) -> &mut Self {
        if !env.iter().any(|(name, _)| *name == SECRET_VARIABLE) {
            self.env_remove(SECRET_VARIABLE);
        }
        self
    }
}

const SECRET_VARIABLE: &str = "GEOCACHE_EMULATOR_JWT_SECRET";

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_data_directory_keeps_its_own_random_keys_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("data/emulator.sqlite3");
    let db = db.to_str().unwrap();
    let first = printed_keys(&["--db", db], &[]);
    let second = printed_keys(&["--db", db], &[]);
    assert_eq!(first, second);
    let demo = printed_keys(
        &["--db", ":memory:", "--jwt-secret", DEFAULT_JWT_SECRET],
        &[],
    );
    for (own, public) in first.iter().zip(&demo) {
        assert_ne!(own, public);
    }
    let secret_file = dir.path().join("data/jwt-secret");
    let secret = std::fs::read_to_string(&secret_file).unwrap();
    assert!(secret.trim().len() >= 32, "{secret}");
    #[cfg(unix)]
    {
        assert_eq!(mode(&secret_file), 0o600);
        assert_eq!(mode(&dir.path().join("data/emulator.sqlite3")), 0o600);
    }
    // The kept secret is the one that signs: giving it explicitly prints the same keys.
    assert_eq!(
        printed_keys(&["--db", ":memory:", "--jwt-secret", secret.trim()], &[]),
        first
    );

    let elsewhere = dir.path().join("other/emulator.sqlite3");
    let other = printed_keys(&["--db", elsewhere.to_str().unwrap()], &[]);
    assert_ne!(other, first);
}

#[test]
fn memory_databases_get_fresh_keys_each_start() {
    let one = printed_keys(&["--db", ":memory:"], &[]);
    let two = printed_keys(&["--db", ":memory:"], &[]);
    assert_ne!(one, two);
}

#[test]
fn the_secret_can_come_from_the_environment_and_help_never_shows_it() {
    let secret = "a-secret-from-the-environment-0123456789";
    let from_env = printed_keys(&["--db", ":memory:"], &[(SECRET_VARIABLE, secret)]);
    let from_flag = printed_keys(&["--db", ":memory:", "--jwt-secret", secret], &[]);
    assert_eq!(from_env, from_flag);
    let help = Command::new(BINARY)
        .arg("--help")
        .env(SECRET_VARIABLE, secret)
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains(SECRET_VARIABLE), "{help}");
    assert!(!help.contains(secret), "{help}");
}

#[test]
fn secrets_shorter_than_32_bytes_are_refused() {
    for short in ["short", &"x".repeat(31)] {
        let stderr = refusal(&["--jwt-secret", short], &[]);
        assert!(stderr.contains("at least 32"), "{stderr}");
        let stderr = refusal(&[], &[(SECRET_VARIABLE, short)]);
        assert!(stderr.contains("at least 32"), "{stderr}");
    }
}

#[test]
fn a_short_secret_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("jwt-secret"), "short\n").unwrap();
    let db = dir.path().join("emulator.sqlite3");
    let output = Command::new(BINARY)
        .args(["--port", "0", "--db", db.to_str().unwrap()])
        .env_remove(SECRET_VARIABLE)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("at least 32"), "{stderr}");
    assert!(stderr.contains("jwt-secret"), "{stderr}");
}

#[test]
fn the_public_demo_secret_is_refused_off_loopback() {
    for host in ["0.0.0.0", "::"] {
        let stderr = refusal(&["--host", host, "--jwt-secret", DEFAULT_JWT_SECRET], &[]);
        assert!(stderr.contains("public demo JWT secret"), "{stderr}");
        assert!(stderr.contains("service_role"), "{stderr}");
        assert!(stderr.contains("--host 127.0.0.1"), "{stderr}");
    }
    // Still allowed on loopback, for tools that expect the demo keys.
    let keys = printed_keys(
        &[
            "--host",
            "127.0.0.1",
            "--db",
            ":memory:",
            "--jwt-secret",
            DEFAULT_JWT_SECRET,
        ],
        &[],
    );
    assert!(
        keys[0].ends_with(".CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0"),
        "{keys:?}"
    );
}
