//! `geocache-emulator owner add|list|remove`: who owns the logbook, in a database file. What the
//! hosted project's dashboard and SQL editor do (*Add user*, then one insert into
//! `private.logbook_owners`), for the emulator.
//!
//! Each command is one short transaction on the file, so it works while an emulator serves that
//! database (SQLite's WAL lets the two connections take turns; each waits up to rusqlite's busy
//! timeout for the other's write). The server reads the owners inside every request that needs
//! them, so a change counts from the next request on.
//!
//! A new account's password is never a flag (it would show in `ps` and the shell's history): it
//! is read from standard input, or prompted for twice without echo when that is a terminal.

use crate::auth::account;
use crate::auth::error::AuthError;
use crate::auth::settings::AuthSettings;
use crate::auth::store::{users, StoreError};
use crate::clock::Clock;
use crate::db::{Database, DbLocation, OpenError, Unfinished};
use crate::rest::owners;
use crate::state::MIGRATIONS;
use clap::{Args, Subcommand};
use serde_json::Map;
use std::io::{IsTerminal, Read, Write};

/// Where `npm start` keeps the emulator's database: the server's `--db` default too.
pub const DEFAULT_DB: &str = ".data/emulator.sqlite3";

#[derive(Debug, Clone, Subcommand)]
pub enum OwnerCommand {
    /// Name EMAIL's account an owner of the logbook, creating the account first if there is none
    /// (its password is read from standard input, or prompted for without echo on a terminal).
    Add(OwnerAccount),
    /// List the owners' e-mail addresses, one per line.
    List(OwnerDatabase),
    /// Take EMAIL's account off the owners (the account itself stays).
    Remove(OwnerAccount),
}

#[derive(Debug, Clone, Args)]
pub struct OwnerDatabase {
    /// The emulator's SQLite database file (an emulator may be serving it).
    #[arg(long, value_name = "PATH", default_value = DEFAULT_DB)]
    pub db: String,
}

#[derive(Debug, Clone, Args)]
pub struct OwnerAccount {
    #[command(flatten)]
    pub database: OwnerDatabase,
    /// The account's e-mail address.
    pub email: String,
}

/// Why an owner command failed, in words for its user.
#[derive(Debug)]
pub enum OwnerError {
    InMemory,
    Open(OpenError),
    /// The address or the new password is not one sign-up would take.
    Refused(String),
    NoAccount(String),
    PasswordsDiffer,
    Io(std::io::Error),
    Database(String),
}

impl std::fmt::Display for OwnerError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OwnerError::InMemory => {
                formatter.write_str("owner commands need a database file, not :memory:")
            }
            OwnerError::Open(error) => error.fmt(formatter),
            OwnerError::Refused(message) => formatter.write_str(message),
            OwnerError::NoAccount(email) => write!(formatter, "no account has the address {email}"),
            OwnerError::PasswordsDiffer => formatter.write_str("the two passwords differ"),
            OwnerError::Io(error) => write!(formatter, "cannot read the password: {error}"),
            OwnerError::Database(cause) => write!(formatter, "database: {cause}"),
        }
    }
}

impl std::error::Error for OwnerError {}

impl From<AuthError> for OwnerError {
    fn from(error: AuthError) -> Self {
        OwnerError::Refused(error.message)
    }
}

impl From<rusqlite::Error> for OwnerError {
    fn from(error: rusqlite::Error) -> Self {
        OwnerError::Database(error.to_string())
    }
}

impl From<StoreError> for OwnerError {
    fn from(error: StoreError) -> Self {
        OwnerError::Database(error.to_string())
    }
}

impl From<Unfinished> for OwnerError {
    fn from(error: Unfinished) -> Self {
        OwnerError::Database(error.to_string())
    }
}

/// Runs one owner command; what it did goes to `out`. `password` is asked for a new account's
/// password only ([`read_password`] in the binary).
pub async fn run(
    command: OwnerCommand,
    password: impl FnOnce(&str) -> Result<String, OwnerError>,
    out: &mut impl Write,
) -> Result<(), OwnerError> {
    let write = |out: &mut dyn Write, line: String| writeln!(out, "{line}").map_err(OwnerError::Io);
    match command {
        OwnerCommand::Add(OwnerAccount { database, email }) => {
            let email = account::checked_address(email.trim())?;
            let db = open(&database)?;
            let lookup = email.clone();
            let existing = db
                .call(move |connection| -> Result<_, OwnerError> {
                    Ok(users::find_by_email(connection, &lookup)?)
                })
                .await?;
            let (user, created) = match existing {
                Some(user) => (user, false),
                None => {
                    let secret = password(&email)?;
                    let email = account::checked_email(&email, &secret)?;
                    let cost = AuthSettings::default().password_hash_cost;
                    let now = Clock::system().now_micros();
                    (
                        account::new_account(email, secret, cost, Map::new(), now).await?,
                        true,
                    )
                }
            };
            let (email, record) = (user.email.clone(), user);
            let added = db
                .call(move |connection| -> Result<bool, OwnerError> {
                    let transaction = connection.transaction()?;
                    if created {
                        users::insert(&transaction, &record)?;
                    }
                    let added = owners::add(&transaction, &record.id)?;
                    transaction.commit()?;
                    Ok(added)
                })
                .await?;
            let line = match (created, added) {
                (true, _) => format!("{email}: account created and named an owner"),
                (false, true) => format!("{email}: named an owner"),
                (false, false) => format!("{email}: already an owner"),
            };
            write(out, line)
        }
        OwnerCommand::List(database) => {
            let db = open(&database)?;
            let list = db
                .call(|connection| owners::list(connection).map_err(OwnerError::from))
                .await?;
            for owner in list {
                write(out, owner.email)?;
            }
            Ok(())
        }
        OwnerCommand::Remove(OwnerAccount { database, email }) => {
            let email = account::checked_address(email.trim())?;
            let db = open(&database)?;
            let lookup = email.clone();
            let removed = db
                .call(move |connection| -> Result<Option<bool>, OwnerError> {
                    let transaction = connection.transaction()?;
                    let Some(user) = users::find_by_email(&transaction, &lookup)? else {
                        return Ok(None);
                    };
                    let removed = owners::remove(&transaction, &user.id)?;
                    transaction.commit()?;
                    Ok(Some(removed))
                })
                .await?;
            match removed {
                None => Err(OwnerError::NoAccount(email)),
                Some(true) => write(out, format!("{email}: no longer an owner")),
                Some(false) => write(out, format!("{email}: was not an owner")),
            }
        }
    }
}

fn open(database: &OwnerDatabase) -> Result<Database, OwnerError> {
    let location = DbLocation::from_arg(&database.db);
    if location == DbLocation::Memory {
        return Err(OwnerError::InMemory);
    }
    Database::open(&location, &MIGRATIONS).map_err(OwnerError::Open)
}

/// A new account's password: prompted for twice without echo when standard input is a terminal,
/// else standard input's text less one final line break.
pub fn read_password(email: &str) -> Result<String, OwnerError> {
    if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password(format!("Password for {email}: "))
            .map_err(OwnerError::Io)?;
        let again =
            rpassword::prompt_password("The same password again: ").map_err(OwnerError::Io)?;
        return if first == again {
            Ok(first)
        } else {
            Err(OwnerError::PasswordsDiffer)
        };
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(OwnerError::Io)?;
    let line = text
        .strip_suffix('\n')
        .map(|rest| rest.strip_suffix('\r').unwrap_or(rest))
        .unwrap_or(&text);
    Ok(line.to_owned())
}
