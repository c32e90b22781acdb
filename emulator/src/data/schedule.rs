//! Backups a serving emulator writes on a schedule (`--backup-dir`, `--backup-every`,
//! `--backup-keep`): each a [`backup`] named after the database and the time it was taken, the
//! newest N kept. Each is logged with its size and entry count; one that fails is logged and tried
//! again at the next tick, and never stops the server.
//!
//! The schedule follows the backups already in the directory, so restarts neither skip a backup
//! nor add one: the next is due one interval after the newest (at once when there is none).

use crate::data::backup::{self, Backup};
use crate::data::DataError;
use crate::private_file;
use chrono::{DateTime, NaiveDateTime, Utc};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// Where and how often a serving emulator backs up its database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    pub database: PathBuf,
    pub dir: PathBuf,
    pub every: Duration,
    /// Backups kept, at least 1.
    pub keep: usize,
}

const STAMP: &str = "%Y%m%dT%H%M%SZ";
const EXTENSION: &str = ".sqlite3";

/// One tick's work: the backup written, and the older backups removed to keep N.
#[derive(Debug)]
pub struct Tick {
    pub backup: Backup,
    pub removed: Vec<PathBuf>,
}

impl Schedule {
    /// What scheduled backups of this database are named before their time stamp.
    fn prefix(&self) -> String {
        let stem = self
            .database
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_else(|| "emulator".to_owned());
        format!("{stem}-")
    }

    /// This schedule's backups in the directory, oldest first, with the time each was taken.
    /// Other files are never counted, nor removed.
    fn existing(&self) -> std::io::Result<Vec<(DateTime<Utc>, PathBuf)>> {
        let prefix = self.prefix();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(error),
        };
        let mut found = Vec::new();
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let taken = name
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(EXTENSION))
                .and_then(|stamp| NaiveDateTime::parse_from_str(stamp, STAMP).ok());
            if let Some(taken) = taken {
                found.push((taken.and_utc(), entry.path()));
            }
        }
        found.sort();
        Ok(found)
    }

    /// How long until the next backup is due at `now`.
    pub fn first_wait(&self, now: SystemTime) -> Duration {
        let newest = self
            .existing()
            .ok()
            .and_then(|found| found.last().map(|(taken, _)| *taken));
        match newest {
            Some(taken) => {
                let due = SystemTime::from(taken) + self.every;
                due.duration_since(now).unwrap_or_default().min(self.every)
            }
            None => Duration::ZERO,
        }
    }

    /// Writes one backup taken at `now`, then removes the oldest beyond `keep`.
    pub fn tick(&self, now: SystemTime) -> Result<Tick, DataError> {
        // The directory itself, owner-only like the backups in it.
        private_file::create_parent_dirs(&self.dir.join(EXTENSION))
            .map_err(DataError::io(&self.dir))?;
        let stamp = DateTime::<Utc>::from(now).format(STAMP);
        let out = self
            .dir
            .join(format!("{}{stamp}{EXTENSION}", self.prefix()));
        let backup = backup::write(&self.database, &out, false)?;
        let existing = self.existing().map_err(DataError::io(&self.dir))?;
        let surplus = existing.len().saturating_sub(self.keep);
        let mut removed = Vec::new();
        for (_, path) in existing.into_iter().take(surplus) {
            std::fs::remove_file(&path).map_err(DataError::io(&path))?;
            removed.push(path);
        }
        Ok(Tick { backup, removed })
    }
}

/// Runs the schedule for as long as the server runs.
pub async fn run(schedule: Schedule) {
    let mut wait = schedule.first_wait(SystemTime::now());
    loop {
        tokio::time::sleep(wait).await;
        let task = schedule.clone();
        let outcome = tokio::task::spawn_blocking(move || task.tick(SystemTime::now()))
            .await
            .unwrap_or_else(|error| {
                Err(DataError::Io {
                    path: schedule.dir.clone(),
                    error: std::io::Error::other(error.to_string()),
                })
            });
        log(&outcome, schedule.every);
        wait = schedule.every;
    }
}

fn log(outcome: &Result<Tick, DataError>, every: Duration) {
    match outcome {
        Ok(Tick { backup, removed }) => {
            let mut line = format!(
                "geocache-emulator: backup: wrote {} ({} bytes, {} entries)",
                backup.path.display(),
                backup.bytes,
                backup.entries
            );
            for path in removed {
                line.push_str(&format!("; removed {}", path.display()));
            }
            eprintln!("{line}");
        }
        Err(error) => eprintln!(
            "geocache-emulator: backup: failed: {error}; trying again in {}",
            humantime::format_duration(every)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    fn schedule(dir: &std::path::Path, keep: usize) -> Schedule {
        let database = dir.join("emulator.sqlite3");
        let connection = Connection::open(&database).unwrap();
        crate::rest::migrate(&connection).unwrap();
        Schedule {
            database,
            dir: dir.join("backups"),
            every: Duration::from_secs(3600),
            keep,
        }
    }

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_169_472 + seconds)
    }

    #[test]
    fn the_newest_n_are_kept_and_other_files_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let schedule = schedule(dir.path(), 2);
        std::fs::create_dir_all(&schedule.dir).unwrap();
        let foreign = schedule.dir.join("emulator-notes.sqlite3");
        std::fs::write(&foreign, b"mine").unwrap();
        for seconds in [0, 1, 2] {
            schedule.tick(at(seconds)).unwrap();
        }
        let mut names: Vec<String> = std::fs::read_dir(&schedule.dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "emulator-20261120T101113Z.sqlite3",
                "emulator-20261120T101114Z.sqlite3",
                "emulator-notes.sqlite3",
            ]
        );
    }

    #[test]
    fn the_next_backup_is_due_an_interval_after_the_newest() {
        let dir = tempfile::tempdir().unwrap();
        let schedule = schedule(dir.path(), 7);
        assert_eq!(schedule.first_wait(at(0)), Duration::ZERO);
        schedule.tick(at(0)).unwrap();
        assert_eq!(schedule.first_wait(at(600)), Duration::from_secs(3000));
        assert_eq!(schedule.first_wait(at(7200)), Duration::ZERO);
        // A clock set back never makes the wait longer than one interval.
        assert_eq!(
            schedule.first_wait(at(0) - Duration::from_secs(86_400)),
            schedule.every
        );
    }

    #[test]
    fn a_failed_tick_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let schedule = schedule(dir.path(), 7);
        std::fs::write(&schedule.dir, b"a file where the directory should be").unwrap();
        assert!(schedule.tick(at(0)).is_err());
    }
}
