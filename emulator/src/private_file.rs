//! Files only their owner may read: the database (with SQLite's `-wal` and `-shm` beside it) holds
//! password hashes, refresh tokens and TOTP secrets, and the JWT secret file signs every key. They
//! are created with mode 0600 (directories 0700) whatever the umask, and files made by an older
//! emulator are tightened when opened.

use std::io::{self, Write};
use std::path::Path;

/// Creates `path`'s missing parent directories, readable by their owner only.
pub fn create_parent_dirs(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(parent)
        }
        _ => Ok(()),
    }
}

/// Creates `path` empty with mode 0600 if it does not exist, and sets an existing one to 0600.
pub fn ensure_private(path: &Path) -> io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    drop(options.open(path)?);
    restrict(path)
}

/// Sets `path` to mode 0600 if it exists (SQLite makes its `-wal` and `-shm` files only when
/// needed).
pub fn restrict_if_present(path: &Path) -> io::Result<()> {
    match restrict(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

fn restrict(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)?.permissions().mode() & 0o777;
        if mode != 0o600 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Writes `contents` to `path` unless it already exists, atomically: a reader sees the whole
/// file or none. Returns false (writing nothing) when `path` exists, e.g. made by a concurrent
/// start.
pub fn create_new_private(path: &Path, contents: &[u8]) -> io::Result<bool> {
    let staging = path.with_extension(format!("tmp-{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&staging).and_then(|mut file| {
        restrict(&staging)?;
        file.write_all(contents)?;
        file.sync_all()
    });
    // A hard link fails if the name is taken, where a rename would replace it.
    let linked = written.and_then(|()| std::fs::hard_link(&staging, path));
    let _ = std::fs::remove_file(&staging);
    match linked {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(error) => Err(error),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn files_and_directories_are_for_their_owner_only() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("new/deeper/file");
        create_parent_dirs(&file).unwrap();
        assert_eq!(mode(&dir.path().join("new")), 0o700);
        ensure_private(&file).unwrap();
        assert_eq!(mode(&file), 0o600);

        let loose = dir.path().join("loose");
        std::fs::write(&loose, b"x").unwrap();
        std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o644)).unwrap();
        restrict_if_present(&loose).unwrap();
        assert_eq!(mode(&loose), 0o600);
        restrict_if_present(&dir.path().join("absent")).unwrap();
    }

    #[test]
    fn a_new_private_file_never_replaces_an_existing_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        assert!(create_new_private(&path, b"first").unwrap());
        assert_eq!(mode(&path), 0o600);
        assert!(!create_new_private(&path, b"second").unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
