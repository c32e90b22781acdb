//! Where the JWT secret comes from: `--jwt-secret` (or its environment variable), else a random
//! secret kept beside the database, so a data directory keeps its keys across restarts and a
//! web page cannot know them. `--db :memory:` gets a fresh random secret each start.
//!
//! The Supabase CLI's public demo secret is allowed only on loopback: anyone who can reach the
//! port could sign a service_role key with it.

use crate::db::DbLocation;
use crate::keys::DEFAULT_JWT_SECRET;
use crate::private_file;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// HS256 keys shorter than the hash are weak; GoTrue asks for at least 32 characters too.
pub const MIN_SECRET_BYTES: usize = 32;

/// The secret file's name, in the database's directory.
pub const SECRET_FILE_NAME: &str = "jwt-secret";

/// Random bytes in a generated secret (encoded as 43 URL-safe base64 characters).
const GENERATED_SECRET_BYTES: usize = 32;

/// The secret, and where it came from (for the startup message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwtSecret {
    pub value: String,
    pub source: SecretSource,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretSource {
    /// `--jwt-secret` or its environment variable.
    Given,
    /// The file beside the database; `created` on its first start.
    File { path: PathBuf, created: bool },
    /// Random for this run only (`--db :memory:`).
    Ephemeral,
}

impl std::fmt::Display for SecretSource {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SecretSource::Given => formatter.write_str("JWT secret as given"),
            SecretSource::File {
                path,
                created: true,
            } => write!(
                formatter,
                "new random JWT secret saved to {}",
                path.display()
            ),
            SecretSource::File {
                path,
                created: false,
            } => write!(formatter, "JWT secret read from {}", path.display()),
            SecretSource::Ephemeral => {
                formatter.write_str("random JWT secret for this run (the database is in memory)")
            }
        }
    }
}

#[derive(Debug)]
pub enum SecretError {
    /// The secret file cannot be read or written.
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// The secret file holds too short a secret.
    TooShort { path: PathBuf, bytes: usize },
    /// The public demo secret on an address other machines can reach.
    DemoSecretExposed { host: String },
    /// No random bytes from the operating system.
    Random(String),
}

impl std::fmt::Display for SecretError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SecretError::Io { path, cause } => {
                write!(formatter, "cannot use the JWT secret file {}: {cause}", path.display())
            }
            SecretError::TooShort { path, bytes } => write!(
                formatter,
                "the JWT secret in {} is {bytes} bytes long; it must be at least {MIN_SECRET_BYTES} \
                 (delete the file to have a new random one made, which changes every key)",
                path.display()
            ),
            SecretError::DemoSecretExposed { host } => write!(
                formatter,
                "refusing to listen on {host} with the Supabase CLI's public demo JWT secret: \
                 anyone who can reach the port could sign a service_role key with it. Leave out \
                 --jwt-secret to use the random secret kept beside the database, give a secret of \
                 your own, or listen on loopback (--host 127.0.0.1)"
            ),
            SecretError::Random(cause) => write!(formatter, "no random bytes for a JWT secret: {cause}"),
        }
    }
}

impl std::error::Error for SecretError {}

/// The `--jwt-secret` value parser: at least [`MIN_SECRET_BYTES`] bytes.
pub fn parse_given(value: &str) -> Result<String, String> {
    if value.len() < MIN_SECRET_BYTES {
        Err(format!(
            "the JWT secret is {} bytes long; it must be at least {MIN_SECRET_BYTES} (leave it out \
             to have a random one kept beside the database)",
            value.len()
        ))
    } else {
        Ok(value.to_owned())
    }
}

/// The secret to sign with: `given`, else the one beside the database at `db` (made on first
/// start), else (in memory) a fresh random one.
pub fn resolve(given: Option<&str>, db: &DbLocation) -> Result<JwtSecret, SecretError> {
    if let Some(value) = given {
        return Ok(JwtSecret {
            value: value.to_owned(),
            source: SecretSource::Given,
        });
    }
    match db {
        DbLocation::Memory => Ok(JwtSecret {
            value: random_secret()?,
            source: SecretSource::Ephemeral,
        }),
        DbLocation::File(database) => persisted(&secret_file_for(database)),
    }
}

/// `jwt-secret` in the directory of the database file `database`.
pub fn secret_file_for(database: &Path) -> PathBuf {
    database.with_file_name(SECRET_FILE_NAME)
}

fn persisted(path: &Path) -> Result<JwtSecret, SecretError> {
    let io_error = |cause| SecretError::Io {
        path: path.to_owned(),
        cause,
    };
    private_file::create_parent_dirs(path).map_err(io_error)?;
    let created = match std::fs::metadata(path) {
        Ok(_) => false,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let value = random_secret()?;
            // Another emulator starting on the same directory may have won the race.
            private_file::create_new_private(path, format!("{value}\n").as_bytes())
                .map_err(io_error)?
        }
        Err(error) => return Err(io_error(error)),
    };
    private_file::restrict_if_present(path).map_err(io_error)?;
    let text = std::fs::read_to_string(path).map_err(io_error)?;
    let value = text.trim().to_owned();
    if value.len() < MIN_SECRET_BYTES {
        return Err(SecretError::TooShort {
            path: path.to_owned(),
            bytes: value.len(),
        });
    }
    Ok(JwtSecret {
        value,
        source: SecretSource::File {
            path: path.to_owned(),
            created,
        },
    })
}

fn random_secret() -> Result<String, SecretError> {
    let mut bytes = [0_u8; GENERATED_SECRET_BYTES];
    getrandom::fill(&mut bytes).map_err(|error| SecretError::Random(error.to_string()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// Refuses the public demo secret unless `host` is a loopback address.
pub fn check_exposure(host: &str, secret: &str) -> Result<(), SecretError> {
    if secret == DEFAULT_JWT_SECRET && !is_loopback(host) {
        return Err(SecretError::DemoSecretExposed {
            host: host.to_owned(),
        });
    }
    Ok(())
}

/// Only addresses that are loopback by their spelling: a host name could resolve anywhere.
fn is_loopback(host: &str) -> bool {
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.parse::<IpAddr>()
        .is_ok_and(|ip| ip.to_canonical().is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_secrets_are_refused_with_the_reason() {
        let error = parse_given("too-short").unwrap_err();
        assert!(error.contains("at least 32"), "{error}");
        assert!(parse_given(&"x".repeat(31)).is_err());
        assert_eq!(parse_given(&"x".repeat(32)).unwrap(), "x".repeat(32));
    }

    #[test]
    fn a_data_directory_keeps_its_secret() {
        let dir = tempfile::tempdir().unwrap();
        let database = DbLocation::File(dir.path().join("data/emulator.sqlite3"));
        let first = resolve(None, &database).unwrap();
        let path = dir.path().join("data/jwt-secret");
        assert_eq!(
            first.source,
            SecretSource::File {
                path: path.clone(),
                created: true
            }
        );
        assert!(first.value.len() >= MIN_SECRET_BYTES);
        assert_ne!(first.value, DEFAULT_JWT_SECRET);
        let again = resolve(None, &database).unwrap();
        assert_eq!(again.value, first.value);
        assert_eq!(
            again.source,
            SecretSource::File {
                path: path.clone(),
                created: false
            }
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        // Another data directory has another secret.
        let other = resolve(None, &DbLocation::File(dir.path().join("other/e.sqlite3"))).unwrap();
        assert_ne!(other.value, first.value);
    }

    #[test]
    fn memory_databases_get_a_fresh_secret_and_a_given_one_wins() {
        let one = resolve(None, &DbLocation::Memory).unwrap();
        let two = resolve(None, &DbLocation::Memory).unwrap();
        assert_ne!(one.value, two.value);
        assert_eq!(one.source, SecretSource::Ephemeral);
        let dir = tempfile::tempdir().unwrap();
        let database = DbLocation::File(dir.path().join("e.sqlite3"));
        let given = resolve(Some("mine"), &database).unwrap();
        assert_eq!(
            (given.value.as_str(), given.source),
            ("mine", SecretSource::Given)
        );
        assert!(!dir.path().join(SECRET_FILE_NAME).exists());
    }

    #[test]
    fn a_short_secret_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(SECRET_FILE_NAME), "short\n").unwrap();
        let error = resolve(None, &DbLocation::File(dir.path().join("e.sqlite3"))).unwrap_err();
        assert!(
            matches!(error, SecretError::TooShort { bytes: 5, .. }),
            "{error}"
        );
    }

    #[test]
    fn the_demo_secret_stays_on_loopback() {
        for host in [
            "127.0.0.1",
            "127.1.2.3",
            "::1",
            "[::1]",
            "localhost",
            "::ffff:127.0.0.1",
        ] {
            assert!(check_exposure(host, DEFAULT_JWT_SECRET).is_ok(), "{host}");
        }
        for host in ["0.0.0.0", "::", "192.168.1.20", "example.local"] {
            let error = check_exposure(host, DEFAULT_JWT_SECRET).unwrap_err();
            let message = error.to_string();
            assert!(message.contains("public demo JWT secret"), "{message}");
            assert!(message.contains("--host 127.0.0.1"), "{message}");
        }
        assert!(check_exposure("0.0.0.0", &"s".repeat(40)).is_ok());
    }
}
