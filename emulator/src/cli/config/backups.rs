//! The flags of the scheduled backups a serving emulator writes (see [`crate::data::schedule`]).

use crate::data::schedule::Schedule;
use crate::db::DbLocation;
use clap::builder::TypedValueParser;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, Args)]
pub struct BackupFlags {
    /// Write a backup of the database into this directory on a schedule (created owner-only if
    /// missing): one at start when none is due later, then one every --backup-every, each named
    /// after the database and the UTC time it was taken. Restoring is starting on a copy.
    #[arg(long, value_name = "DIR")]
    pub backup_dir: Option<PathBuf>,

    /// How often to back up with --backup-dir: a duration such as 30min, 6h or 1day.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "1day",
        value_parser = parse_interval
    )]
    pub backup_every: Duration,

    /// How many of the newest scheduled backups to keep; older ones are removed.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 7,
        value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize)
    )]
    pub backup_keep: usize,
}

/// A duration of at least a second.
fn parse_interval(text: &str) -> Result<Duration, String> {
    let duration = humantime::parse_duration(text).map_err(|error| error.to_string())?;
    if duration < Duration::from_secs(1) {
        return Err("the interval is at least 1s".to_owned());
    }
    Ok(duration)
}

impl BackupFlags {
    /// The schedule for the database at `location`; none without --backup-dir. An in-memory
    /// database has no file to copy.
    pub fn schedule(&self, location: &DbLocation) -> Result<Option<Schedule>, String> {
        let Some(dir) = &self.backup_dir else {
            return Ok(None);
        };
        match location {
            DbLocation::Memory => {
                Err("--backup-dir needs a database file; --db :memory: has none".to_owned())
            }
            DbLocation::File(database) => Ok(Some(Schedule {
                database: database.clone(),
                dir: dir.clone(),
                every: self.backup_every,
                keep: self.backup_keep,
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::config::flag_groups::parse;

    #[test]
    fn backups_are_off_by_default_and_daily_keeping_seven() {
        let flags: BackupFlags = parse(&[]).unwrap();
        assert_eq!(flags.schedule(&DbLocation::Memory), Ok(None));
        assert_eq!(flags.backup_every, Duration::from_secs(86_400));
        assert_eq!(flags.backup_keep, 7);
    }

    #[test]
    fn the_schedule_comes_from_the_flags() {
        let flags: BackupFlags = parse(&[
            "--backup-dir",
            "backups",
            "--backup-every",
            "90s",
            "--backup-keep",
            "2",
        ])
        .unwrap();
        let database = PathBuf::from("data/emulator.sqlite3");
        assert_eq!(
            flags.schedule(&DbLocation::File(database.clone())),
            Ok(Some(Schedule {
                database,
                dir: "backups".into(),
                every: Duration::from_secs(90),
                keep: 2,
            }))
        );
        assert!(flags.schedule(&DbLocation::Memory).is_err());
        for (flag, value) in [
            ("--backup-every", "0s"),
            ("--backup-every", "500ms"),
            ("--backup-every", "daily"),
            ("--backup-keep", "0"),
        ] {
            assert!(
                parse::<BackupFlags>(&[flag, value]).is_err(),
                "{flag} {value}"
            );
        }
    }
}
