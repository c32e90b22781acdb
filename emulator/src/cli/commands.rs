//! The owner's commands beside serving: `backup`, `export` and `import` (see [`crate::data`]).
//! Each works on a database file while an emulator serves it.

use crate::data::export::{self, Format};
use crate::data::{backup, import, DataError};
use clap::{Args, Subcommand, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Write a consistent copy of the whole database (entries, accounts, factors, sessions,
    /// storage rows; not the object files in storage/) to OUT, readable by its owner only. It
    /// works while an emulator serves the database and never changes it. Restoring is starting
    /// an emulator with --db on the copy.
    Backup(BackupArgs),
    /// Write every entry of the logbook, ordered by id, to standard output: `sql` for psql to
    /// apply to a hosted project (ids and times kept), `csv` as the hosted dashboard exports the
    /// table, `json` as PostgREST returns rows.
    Export(ExportArgs),
    /// Add the entries of FILE (CSV: the hosted dashboard's export or ours; JSON: ours or a saved
    /// PostgREST read) with their ids and times, creating the database when missing. Ids already
    /// stored are skipped, never overwritten (those that differ are listed as conflicts). A
    /// malformed file is refused, naming its line or array index, and nothing is imported.
    Import(ImportArgs),
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
    pub async fn run(self) -> Result<(), DataError> {
        match self {
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
