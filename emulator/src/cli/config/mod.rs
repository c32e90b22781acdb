//! Command-line flags: the contract other tools rely on (names, environment variables and
//! defaults). Each service's flags are a group of their own, read once into its settings.

mod auth;
mod backups;
mod faults;
#[cfg(test)]
mod flag_groups;
mod functions;
mod keys;
mod realtime;
mod rest;
mod server;
mod storage;

pub use auth::AuthFlags;
pub use backups::BackupFlags;
pub use faults::FaultFlags;
pub use functions::FunctionsFlags;
pub use keys::KeyFlags;
pub use realtime::RealtimeFlags;
pub use rest::RestFlags;
pub use server::ServerFlags;
pub use storage::StorageFlags;

use crate::cli::commands::Command;
use crate::cli::owner::DEFAULT_DB;
use crate::cli::project_file::{ProjectFile, ProjectFileError};
use crate::db::DbLocation;
use clap::Parser;
use std::path::PathBuf;

/// A local Supabase-compatible backend for the geocache logbook: the PostgREST subset for
/// `public.geocache_logs`, the auth server (/auth/v1: email sign-up and sign-in, refresh
/// tokens, TOTP and phone MFA, SMS codes readable at GET /emulator/v1/sms with the service_role
/// key), Storage (/storage/v1: buckets, objects, public and signed URLs; bytes in `storage/`
/// beside the database), stored in SQLite, and Realtime (/realtime/v1/websocket: the table's
/// changes, broadcast and presence over Phoenix channels).
///
/// After binding it prints `API URL: ...`, `anon key: ...`, `service_role key: ...`,
/// `Publishable key: sb_publishable_...` and `Secret key: sb_secret_...`, one per line, and serves
/// until SIGINT or SIGTERM. The tuning flags can also be set through the environment variables
/// named below (flags win). Settings the Supabase CLI also has come from its config file
/// (--config); a flag wins over the file.
///
/// Edge Functions calls (/functions/v1/<name>) are relayed to the function server named by
/// --functions-url; the functions and their `verify_jwt` come from --config.
///
/// For tests, faults can be injected into /rest/v1 and /auth/v1 (latency, 5xx answers, dropped
/// connections, broken bodies, responses out of order) with --faults or, while running, through
/// /emulator/v1/faults (GET reads the plan and its counters, POST installs one, DELETE clears
/// it; the secret key or the service_role key in the `apikey` header). GET
/// /emulator/v1/realtime/sockets lists the open Realtime sockets and their channels, and DELETE
/// drops them all, as a restart would (same key).
///
/// The commands `backup`, `export`, `import` and `owner` work on a database file instead of
/// serving, also while an emulator serves it; --backup-dir makes the server write backups on a schedule.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "geocache-emulator",
    version,
    args_conflicts_with_subcommands = true
)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,

    /// Port to listen on; 0 picks a free port (the real one is printed).
    #[arg(long, default_value_t = 54321)]
    pub port: u16,

    /// SQLite database file (parent directories are created), or `:memory:` for a throwaway
    /// database.
    #[arg(long, default_value = DEFAULT_DB)]
    pub db: String,

    #[command(flatten)]
    pub keys: KeyFlags,

    /// The Supabase CLI's config file (supabase/config.toml) to read `[api] max_rows` and
    /// `[auth.rate_limit]` from; the sign limit comes from `emulator.toml` beside it, if present.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,

    #[command(flatten)]
    pub rest: RestFlags,

    #[command(flatten)]
    pub auth: AuthFlags,

    #[command(flatten)]
    pub server: ServerFlags,

    #[command(flatten)]
    pub faults: FaultFlags,

    #[command(flatten)]
    pub functions: FunctionsFlags,

    #[command(flatten)]
    pub storage: StorageFlags,

    #[command(flatten)]
    pub realtime: RealtimeFlags,

    #[command(flatten)]
    pub backups: BackupFlags,

    /// Without a command, the emulator serves.
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Config {
    pub fn db_location(&self) -> DbLocation {
        DbLocation::from_arg(&self.db)
    }

    /// The `--config` file's settings; none without the flag.
    pub fn project_file(&self) -> Result<ProjectFile, ProjectFileError> {
        match &self.config {
            Some(path) => ProjectFile::load(path),
            None => Ok(ProjectFile::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::settings::AuthSettings;
    use crate::cli::commands::{ExportArgs, ExportFormat};
    use crate::http::server::ConnectionLimits;
    use std::time::Duration;

    #[test]
    fn defaults_match_the_contract() {
        let config = Config::try_parse_from(["geocache-emulator"]).unwrap();
        assert_eq!(config.host, "127.0.0.1");
        assert_eq!(config.port, 54321);
        assert_eq!(
            config.db_location(),
            DbLocation::File(".data/emulator.sqlite3".into())
        );
        assert_eq!(config.keys.jwt_secret, None);
        let limits = config.server.connection_limits();
        assert_eq!(
            limits,
            ConnectionLimits {
                header_read_timeout: Duration::from_secs(10),
                idle_timeout: Duration::from_secs(60),
                max_connections: 256,
                body_pace: crate::http::pace::BodyPace {
                    grace: Duration::from_secs(10),
                    min_rate: 1024,
                },
            }
        );
        let auth = config
            .auth
            .settings("http://127.0.0.1:54321".to_owned(), &ProjectFile::default());
        assert_eq!(auth, AuthSettings::default());
    }

    #[test]
    fn flags_override_defaults() {
        let config = Config::try_parse_from([
            "geocache-emulator",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
            "--db",
            ":memory:",
            "--jwt-secret",
            "a-secret-of-at-least-32-bytes-long",
        ])
        .unwrap();
        assert_eq!(config.port, 0);
        assert_eq!(config.db_location(), DbLocation::Memory);
        assert_eq!(
            config.keys.jwt_secret(&config.db_location()).unwrap().value,
            "a-secret-of-at-least-32-bytes-long"
        );
    }

    #[test]
    fn the_body_limit_and_the_fault_plan_come_from_flags() {
        let defaults = Config::try_parse_from(["geocache-emulator"]).unwrap();
        assert_eq!(defaults.server.max_body_bytes, 8 * 1024 * 1024);
        assert_eq!(defaults.faults.faults, None);
        let config = Config::try_parse_from([
            "geocache-emulator",
            "--max-body-bytes",
            "1024",
            "--faults",
            r#"{"seed":5,"rules":[{"methods":["post"],"fault":{"kind":"drop_before_response"}}]}"#,
        ])
        .unwrap();
        assert_eq!(config.server.max_body_bytes, 1024);
        let plan = config.faults.faults.unwrap();
        assert_eq!(
            (plan.seed, plan.rules[0].methods.as_slice()),
            (5, &["POST".to_owned()][..])
        );
        for (flag, value) in [
            ("--max-body-bytes", "0"),
            ("--faults", "{"),
            (
                "--faults",
                r#"{"rules":[{"fault":{"kind":"status","status":200}}]}"#,
            ),
        ] {
            assert!(
                Config::try_parse_from(["geocache-emulator", flag, value]).is_err(),
                "{flag} {value}"
            );
        }
    }

    #[test]
    fn the_row_cap_comes_from_the_flag_then_the_file_then_the_default() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut file, b"[api]\nmax_rows = 250\n").unwrap();
        let path = file.path().to_str().unwrap();
        let resolve = |args: &[&str]| {
            let config = Config::try_parse_from(["geocache-emulator"].iter().chain(args)).unwrap();
            config.rest.max_rows(&config.project_file().unwrap())
        };
        assert_eq!(resolve(&[]), 1000);
        assert_eq!(resolve(&["--config", path]), 250);
        assert_eq!(resolve(&["--config", path, "--max-rows", "7"]), 7);
        assert_eq!(resolve(&["--max-rows", "7"]), 7);
        for bad in ["0", "-1", "x"] {
            assert!(
                Config::try_parse_from(["geocache-emulator", "--max-rows", bad]).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_bad_config_file_is_an_error_even_with_the_flag() {
        let config = Config::try_parse_from([
            "geocache-emulator",
            "--config",
            "no/such/config.toml",
            "--max-rows",
            "5",
        ])
        .unwrap();
        assert!(config.project_file().is_err());
    }

    #[test]
    fn commands_take_their_own_flags_and_no_server_flags() {
        let config =
            Config::try_parse_from(["geocache-emulator", "backup", "--db", "a.db", "out.db"])
                .unwrap();
        let Some(Command::Backup(args)) = config.command else {
            panic!("not a backup: {:?}", config.command);
        };
        assert_eq!(
            (args.db, args.out, args.force),
            ("a.db".into(), "out.db".into(), false)
        );
        let config =
            Config::try_parse_from(["geocache-emulator", "export", "--db", "a.db"]).unwrap();
        assert!(matches!(
            config.command,
            Some(Command::Export(ExportArgs {
                format: ExportFormat::Sql,
                ..
            }))
        ));
        for args in [
            &[
                "geocache-emulator",
                "--port",
                "5",
                "backup",
                "--db",
                "a",
                "b",
            ][..],
            &["geocache-emulator", "backup", "out.db"],
            &[
                "geocache-emulator",
                "export",
                "--db",
                "a",
                "--format",
                "xml",
            ],
            &["geocache-emulator", "import", "--db", "a"],
        ] {
            assert!(Config::try_parse_from(args).is_err(), "{args:?}");
        }
        assert!(Config::try_parse_from(["geocache-emulator"])
            .unwrap()
            .command
            .is_none());
    }
}
