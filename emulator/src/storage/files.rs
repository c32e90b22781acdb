//! Object bytes on disk: `<root>/<bucket dir>/<file>`, both names UUIDs the emulator makes, so
//! no part of a request ever becomes part of a path. A write goes to a temporary file in the
//! bucket's directory, is fsynced, and is renamed to its final name (then the directory is
//! fsynced); only then is the metadata row committed. A crash leaves at most a temporary file or
//! an unreferenced file, which [`Files::sweep`] removes at the next start.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Temporary files start with this; nothing else in a bucket directory does.
const TEMP_PREFIX: &str = ".upload-";

/// Throwaway roots are named `<this><process id>-<random>` in the system's temporary directory.
const TEMP_ROOT_PREFIX: &str = "geocache-emulator-storage-";

/// Removes throwaway roots whose process is gone (killed before it could remove its own),
/// where `/proc` tells which processes live; elsewhere they stay. Best effort: another
/// emulator may be removing the same directory.
fn remove_stale_temporaries(temp: &Path) {
    let proc = Path::new("/proc");
    if !proc.join("self").is_dir() {
        return;
    }
    let Ok(entries) = fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(TEMP_ROOT_PREFIX)
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !proc.join(pid.to_string()).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// The storage root; a throwaway one is removed when the last clone is dropped.
#[derive(Debug, Clone)]
pub struct Files {
    root: Arc<Root>,
}

#[derive(Debug)]
struct Root {
    path: PathBuf,
    remove_on_drop: bool,
}

impl Drop for Root {
    fn drop(&mut self) {
        if self.remove_on_drop {
            // Best effort: a leftover temporary directory is harmless.
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// A name the emulator made: a UUID's letters, digits and dashes only.
fn is_made_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

fn not_ours(name: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{name:?} is not a storage file name"),
    )
}

impl Files {
    /// Files under `path`, which is created (owner-only) if missing.
    pub fn at(path: PathBuf) -> io::Result<Files> {
        create_private_dir(&path)?;
        let path = path.canonicalize()?;
        Ok(Files {
            root: Arc::new(Root {
                path,
                remove_on_drop: false,
            }),
        })
    }

    /// A fresh directory under the system's temporary directory, removed on drop (for
    /// `--db :memory:` and the tests). Its name carries the process id, so the directories of
    /// emulators that were killed (and never removed theirs) are removed here.
    pub fn temporary() -> io::Result<Files> {
        let temp = std::env::temp_dir();
        remove_stale_temporaries(&temp);
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).map_err(io::Error::other)?;
        let name: String = random.iter().map(|byte| format!("{byte:02x}")).collect();
        let path = temp.join(format!("{TEMP_ROOT_PREFIX}{}-{name}", std::process::id()));
        let files = Files::at(path)?;
        Ok(Files {
            root: Arc::new(Root {
                path: files.root.path.clone(),
                remove_on_drop: true,
            }),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root.path
    }

    /// The bucket's directory, created if missing, checked to sit directly in the root.
    fn bucket_dir(&self, dir: &str) -> io::Result<PathBuf> {
        if !is_made_name(dir) {
            return Err(not_ours(dir));
        }
        let path = self.root.path.join(dir);
        create_private_dir(&path)?;
        let canonical = path.canonicalize()?;
        if canonical.parent() != Some(self.root.path.as_path()) {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} is outside the storage root", canonical.display()),
            ));
        }
        Ok(canonical)
    }

    /// The path of a stored file, checked to be inside its bucket's directory.
    pub fn file_path(&self, dir: &str, file: &str) -> io::Result<PathBuf> {
        if !is_made_name(file) {
            return Err(not_ours(file));
        }
        Ok(self.bucket_dir(dir)?.join(file))
    }

    /// A new temporary file in the bucket's directory, for `final_name` once complete.
    pub fn begin(&self, dir: &str, final_name: &str) -> io::Result<PendingFile> {
        let final_path = self.file_path(dir, final_name)?;
        let directory = self.bucket_dir(dir)?;
        let temp_path = directory.join(format!("{TEMP_PREFIX}{final_name}"));
        let file = private_options().open(&temp_path)?;
        Ok(PendingFile {
            temp_path,
            final_path,
            directory,
            file: Some(file),
        })
    }

    /// Removes a stored file; one already gone is fine.
    pub fn remove(&self, dir: &str, file: &str) -> io::Result<()> {
        match fs::remove_file(self.file_path(dir, file)?) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        }
    }

    /// Gives a stored file a second name in another bucket's directory (a hard link, or a
    /// durable copy where links are not possible). A move links, commits its row, then removes
    /// the old name: a crash at any point leaves the row's file in place and at most an
    /// unreferenced name for the sweep.
    pub fn link(&self, from_dir: &str, to_dir: &str, file: &str) -> io::Result<()> {
        let from = self.file_path(from_dir, file)?;
        let to = self.file_path(to_dir, file)?;
        match fs::hard_link(&from, &to) {
            Ok(()) => sync_dir(to.parent().unwrap_or(self.root())),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Err(error),
            Err(_) => self.copy(from_dir, file, to_dir, file),
        }
    }

    /// Copies a stored file to a new name (possibly in another bucket), durably.
    pub fn copy(&self, from_dir: &str, from: &str, to_dir: &str, to: &str) -> io::Result<()> {
        let source = self.file_path(from_dir, from)?;
        let mut pending = self.begin(to_dir, to)?;
        io::copy(&mut File::open(source)?, pending.file()?)?;
        pending.commit()
    }

    /// Removes a bucket's directory and everything in it.
    pub fn remove_bucket_dir(&self, dir: &str) -> io::Result<()> {
        if !is_made_name(dir) {
            return Err(not_ours(dir));
        }
        match fs::remove_dir_all(self.root.path.join(dir)) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        }
    }

    /// Removes what a crash can leave: temporary files, files no row names and directories no
    /// bucket names. `referenced` is every (bucket dir, file) a row names; `buckets` every
    /// bucket dir. Only names the emulator makes are touched: anything else someone put in the
    /// directory stays. Returns how many entries were removed.
    pub fn sweep(&self, referenced: &[(String, String)], buckets: &[String]) -> io::Result<usize> {
        let mut removed = 0;
        for entry in fs::read_dir(self.root())? {
            let entry = entry?;
            let dir_name = entry.file_name().to_string_lossy().into_owned();
            if !is_made_name(&dir_name) || !entry.file_type()?.is_dir() {
                continue;
            }
            if !buckets.contains(&dir_name) {
                fs::remove_dir_all(entry.path())?;
                removed += 1;
                continue;
            }
            for file in fs::read_dir(entry.path())? {
                let file = file?;
                let name = file.file_name().to_string_lossy().into_owned();
                let temporary = name.strip_prefix(TEMP_PREFIX).is_some_and(is_made_name);
                let orphan = is_made_name(&name)
                    && !referenced
                        .iter()
                        .any(|(dir, kept)| *dir == dir_name && *kept == name);
                if (temporary || orphan) && file.file_type()?.is_file() {
                    fs::remove_file(file.path())?;
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }

    /// Removes a throwaway root now, rather than when the last clone goes (which a process
    /// that exits may never see).
    pub fn remove_if_temporary(&self) -> io::Result<()> {
        if self.root.remove_on_drop {
            match fs::remove_dir_all(&self.root.path) {
                Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error),
                _ => {}
            }
        }
        Ok(())
    }
}

/// A file being written; removed unless committed.
#[derive(Debug)]
pub struct PendingFile {
    temp_path: PathBuf,
    final_path: PathBuf,
    directory: PathBuf,
    file: Option<File>,
}

impl PendingFile {
    pub fn file(&mut self) -> io::Result<&mut File> {
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("the pending file was already committed"))
    }

    /// Flushes the bytes to disk and gives the file its final name.
    pub fn commit(mut self) -> io::Result<()> {
        let file = self
            .file
            .take()
            .ok_or_else(|| io::Error::other("the pending file was already committed"))?;
        file.sync_all()?;
        drop(file);
        fs::rename(&self.temp_path, &self.final_path)?;
        sync_dir(&self.directory)
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if self.file.is_some() {
            // Best effort; the start-up sweep removes what this misses.
            let _ = fs::remove_file(&self.temp_path);
        }
    }
}

fn private_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

fn create_private_dir(path: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(path)
}

/// Makes a rename in `directory` durable.
fn sync_dir(directory: &Path) -> io::Result<()> {
    #[cfg(unix)]
    File::open(directory)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = directory;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const DIR: &str = "0b1e8a5e-0000-4000-8000-000000000001";
    const FILE: &str = "0b1e8a5e-0000-4000-8000-000000000002";

    #[test]
    fn a_file_appears_only_when_committed() {
        let files = Files::temporary().unwrap();
        let mut pending = files.begin(DIR, FILE).unwrap();
        pending.file().unwrap().write_all(b"bytes").unwrap();
        let final_path = files.file_path(DIR, FILE).unwrap();
        assert!(!final_path.exists());
        pending.commit().unwrap();
        assert_eq!(fs::read(&final_path).unwrap(), b"bytes");

        let other = "0b1e8a5e-0000-4000-8000-000000000003";
        let mut abandoned = files.begin(DIR, other).unwrap();
        abandoned.file().unwrap().write_all(b"half").unwrap();
        drop(abandoned);
        let left: Vec<_> = fs::read_dir(final_path.parent().unwrap())
            .unwrap()
            .collect();
        assert_eq!(left.len(), 1, "only the committed file is left");
    }

    #[test]
    fn names_from_outside_are_refused() {
        let files = Files::temporary().unwrap();
        for name in ["../x", "..", "a/b", "/etc", "", "x\\y"] {
            assert!(files.file_path(name, FILE).is_err(), "{name:?}");
            assert!(files.file_path(DIR, name).is_err(), "{name:?}");
        }
    }

    #[test]
    fn the_sweep_removes_temporary_and_unreferenced_files() {
        let files = Files::temporary().unwrap();
        let mut kept = files.begin(DIR, FILE).unwrap();
        kept.file().unwrap().write_all(b"k").unwrap();
        kept.commit().unwrap();
        let orphan = "0b1e8a5e-0000-4000-8000-000000000004";
        files.begin(DIR, orphan).unwrap().commit().unwrap();
        let temp = files
            .begin(DIR, "0b1e8a5e-0000-4000-8000-000000000005")
            .unwrap();
        std::mem::forget(temp);
        let gone_bucket = "0b1e8a5e-0000-4000-8000-000000000006";
        files.begin(gone_bucket, FILE).unwrap().commit().unwrap();
        // Things the emulator did not make are left alone.
        std::fs::write(files.root().join("notes.txt"), b"mine").unwrap();
        std::fs::write(files.root().join(DIR).join("keep.me"), b"mine").unwrap();
        let removed = files
            .sweep(&[(DIR.to_owned(), FILE.to_owned())], &[DIR.to_owned()])
            .unwrap();
        assert_eq!(removed, 3);
        assert!(files.file_path(DIR, FILE).unwrap().exists());
        assert!(!files.file_path(DIR, orphan).unwrap().exists());
        assert!(!files.root().join(gone_bucket).exists());
        assert!(files.root().join("notes.txt").exists());
        assert!(files.root().join(DIR).join("keep.me").exists());
    }

    #[test]
    fn a_linked_file_outlives_its_first_name() {
        let files = Files::temporary().unwrap();
        let mut pending = files.begin(DIR, FILE).unwrap();
        pending.file().unwrap().write_all(b"moved").unwrap();
        pending.commit().unwrap();
        let other = "0b1e8a5e-0000-4000-8000-0000000000aa";
        files.link(DIR, other, FILE).unwrap();
        files.remove(DIR, FILE).unwrap();
        assert_eq!(
            fs::read(files.file_path(other, FILE).unwrap()).unwrap(),
            b"moved"
        );
        assert!(
            files.link(other, other, FILE).is_err(),
            "a name is never replaced"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_dead_emulators_temporary_root_is_removed_by_the_next() {
        // No process has an id this large (Linux's maximum is 2^22).
        let stale = std::env::temp_dir().join(format!("{TEMP_ROOT_PREFIX}4294967295-00"));
        fs::create_dir_all(stale.join("bucket")).unwrap();
        let ours = Files::temporary().unwrap();
        assert!(!stale.exists());
        // A live process's (this one's) stays.
        let other = Files::temporary().unwrap();
        assert!(ours.root().exists());
        drop(other);
    }

    #[test]
    fn a_temporary_root_is_removed_with_its_last_clone() {
        let files = Files::temporary().unwrap();
        let root = files.root().to_owned();
        let clone = files.clone();
        drop(files);
        assert!(root.exists());
        drop(clone);
        assert!(!root.exists());
    }
}
