//! The owner's commands beside serving: `backup`, `export` and `import` (see [`crate::data`]),
//! and `owner` (see [`crate::cli::owner`]). Each works on a database file while an emulator
//! serves it.

use crate::cli::owner::{self, OwnerCommand, OwnerError};
use crate::data::export::{self, Format};
use crate::data::{backup, import, DataError};
use clap::{Args, Subcommand, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Copy the whole database to OUT, consistently, while an emulator may serve it.
    ///
    /// The copy holds the entries, accounts, factors, sessions and storage rows (not the object
    /// files in storage/), everything committed before it began, and is readable by its owner
    /// only. The database is never changed nor held up. Restoring is starting an emulator with
    /// --db on the copy.
    Backup(BackupArgs),
    /// Write every entry of the logbook, ordered by id, to standard output.
    ///
    /// `sql` (the default) is a script psql applies to a hosted project as the table's owner,
    /// keeping ids and times; `csv` is the hosted dashboard's CSV export of the table; `json` is
    /// an array of rows as PostgREST returns them.
    Export(ExportArgs),
    /// Add the entries of a CSV or JSON file with their ids and times.
    ///
    /// FILE is CSV (the hosted dashboard's export, or ours) or JSON (ours, or a saved PostgREST
    /// read). The database is created when missing. Ids already stored are skipped, never
    /// overwritten; those whose stored entry differs are listed as conflicts. A malformed file
    /// is refused, naming its line or array index, and nothing is imported.
    Import(ImportArgs),
    /// Name, list or remove the logbook's owners in a database file, also while an emulator is
    /// serving it.
    #[command(subcommand)]
    Owner(OwnerCommand),
}

/// Why a command failed, in words for its user.
#[derive(Debug)]
pub enum CommandError {
    Data(DataError),
    Owner(OwnerError),
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommandError::Data(error) => error.fmt(formatter),
            CommandError::Owner(error) => write!(formatter, "owner: {error}"),
        }
    }
}

impl std::error::Error for CommandError {}

impl From<DataError> for CommandError {
    fn from(error: DataError) -> Self {
        CommandError::Data(error)
    }
}

#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    /// The database to copy.
    #[arg(long, value_name = "PATH")]
    pub db: PathBuf,
    /// Where to write the copy.
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// Replace OUT if it exists.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    /// The database to read.
    #[arg(long, value_name = "PATH")]
    pub db: PathBuf,
    #[arg(long, value_enum, default_value_t = ExportFormat::Sql)]
    pub format: ExportFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Sql,
    Csv,
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct ImportArgs {
    /// The database to add to (created when missing).
    #[arg(long, value_name = "PATH")]
    pub db: PathBuf,
    /// A .csv or .json file of entries (told apart by their content).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

impl Command {
    /// Runs the command, printing what it did.
    pub async fn run(self) -> Result<(), CommandError> {
        match self {
            Command::Owner(command) => {
                owner::run(command, owner::read_password, &mut std::io::stdout())
                    .await
                    .map_err(CommandError::Owner)
            }
            Command::Backup(args) => {
                let database = file_database(&args.db)?;
                let written = tokio::task::spawn_blocking(move || {
                    backup::write(&database, &args.out, args.force)
                })
                .await
                .map_err(unfinished)??;
                println!(
                    "wrote {} ({} bytes, {} entries)",
                    written.path.display(),
                    written.bytes,
                    written.entries
                );
                Ok(())
            }
            Command::Export(args) => {
                let database = file_database(&args.db)?;
                let format = match args.format {
                    ExportFormat::Sql => Format::Sql,
                    ExportFormat::Csv => Format::Csv,
                    ExportFormat::Json => Format::Json,
                };
                let entries = tokio::task::spawn_blocking(move || {
                    let stdout = std::io::stdout().lock();
                    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout);
                    export::export(&database, format, &mut out, "standard output")
                })
                .await
                .map_err(unfinished)??;
                eprintln!("geocache-emulator: exported {entries} entries");
                Ok(())
            }
            Command::Import(args) => {
                let database = file_database(&args.db)?;
                let imported = import::import(&database, &args.file).await?;
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(
                    stdout,
                    "added {} entries to {}; skipped {} already stored",
                    imported.added,
                    database.display(),
                    imported.skipped
                );
                if !imported.conflicts.is_empty() {
                    let ids: Vec<String> = imported.conflicts.iter().map(i64::to_string).collect();
                    let _ = writeln!(
                        stdout,
                        "conflicts: {} stored entries differ from the file's and were kept as stored: ids {}",
                        ids.len(),
                        ids.join(", ")
                    );
                }
                Ok(())
            }
        }
    }
}

/// The commands work on files: `:memory:` names none.
fn file_database(db: &Path) -> Result<PathBuf, DataError> {
    if db.as_os_str() == ":memory:" {
        Err(DataError::NotAFile)
    } else {
        Ok(db.to_owned())
    }
}

fn unfinished(error: tokio::task::JoinError) -> DataError {
    DataError::Io {
        path: PathBuf::from("geocache-emulator"),
        error: std::io::Error::other(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_in_memory_database_is_refused() {
        let command = Command::Import(ImportArgs {
            db: ":memory:".into(),
            file: "entries.csv".into(),
        });
        assert!(matches!(
            command.run().await,
            Err(CommandError::Data(DataError::NotAFile))
        ));
    }
}
