//! The settings the emulator shares with the Supabase CLI, read from the CLI's own
//! `supabase/config.toml` (`--config`), so the emulator and a hosted project linked with that file
//! behave alike. Only the sections the emulator understands are read; every other key the CLI
//! knows is ignored, and a missing key keeps the emulator's default.
//!
//! The logbook's sign limit is no CLI setting (the hosted project takes it from its migration), and
//! the CLI refuses keys it does not know (it decodes the file strictly), so its thresholds live in
//! `emulator.toml` beside the config file, read when present.

use crate::functions::settings::FunctionServer;
use crate::storage::policy::Policy;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The emulator's own settings file, looked for beside the CLI's config file.
pub const EMULATOR_FILE_NAME: &str = "emulator.toml";

/// What the emulator reads from the file; `None` where the file says nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ProjectFile {
    #[serde(default)]
    pub api: ApiSection,
    #[serde(default)]
    pub auth: AuthSection,
    /// From `emulator.toml` beside the config file.
    #[serde(skip)]
    pub sign_limit: SignLimitSection,
    /// `[functions.<name>]`: the Edge Functions the project deploys, by name.
    #[serde(default)]
    pub functions: BTreeMap<String, FunctionSection>,
    /// `[functions] url` of `emulator.toml`: where the function server listens.
    #[serde(skip)]
    pub function_server: Option<FunctionServer>,
    /// `functions/` beside the config file, whose subdirectories are functions, as
    /// `supabase functions deploy` sees them.
    #[serde(skip)]
    pub functions_directory: Option<PathBuf>,
    /// `[storage]` of `emulator.toml` beside the config file (the CLI's own `[storage]` has no
    /// policies: hosted projects write them in SQL).
    #[serde(skip)]
    pub storage: StorageSection,
}

/// `[storage]` of `emulator.toml`: the storage policies, e.g.
/// `policies = [{ bucket = "photos", operation = "select", role = "anon" }]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageSection {
    #[serde(default)]
    pub policies: Vec<Policy>,
}

/// `[functions.<name>]`: the keys the emulator reads (the CLI's others, such as `entrypoint`,
/// are the function server's business).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct FunctionSection {
    pub enabled: Option<bool>,
    pub verify_jwt: Option<bool>,
}

/// `[functions]` of `emulator.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionServerSection {
    /// The developer's function server, e.g. `http://127.0.0.1:8000` (`--functions-url` wins).
    pub url: Option<String>,
}

/// `[auth]`: only its `[auth.rate_limit]` is read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct AuthSection {
    #[serde(default)]
    pub rate_limit: RateLimitSection,
}

/// `[auth.rate_limit]`: requests per client address per five minutes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct RateLimitSection {
    pub sign_in_sign_ups: Option<u32>,
    pub token_refresh: Option<u32>,
    pub token_verifications: Option<u32>,
}

/// `emulator.toml`: the file's own layout.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct EmulatorFile {
    #[serde(default)]
    sign_limit: SignLimitSection,
    #[serde(default)]
    storage: StorageSection,
    #[serde(default)]
    functions: FunctionServerSection,
}

/// `[sign_limit]` of `emulator.toml`, the migration's `private.sign_limits`; 0 turns a limit off
/// (the migration's NULL: TOML has no null).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignLimitSection {
    pub max_signs_per_request: Option<u32>,
    pub max_signs_per_address_minute: Option<u32>,
    pub max_signs_per_minute: Option<u32>,
}

/// `[api]`: the Data API (PostgREST).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ApiSection {
    /// PostgREST's `db-max-rows`: the most rows one read returns.
    pub max_rows: Option<i64>,
}

/// Why the file could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFileError {
    pub path: PathBuf,
    pub problem: String,
}

impl std::fmt::Display for ProjectFileError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "cannot use the config file {}: {}",
            self.path.display(),
            self.problem
        )
    }
}

impl std::error::Error for ProjectFileError {}

impl ProjectFile {
    /// Reads and checks the file at `path`.
    pub fn load(path: &Path) -> Result<ProjectFile, ProjectFileError> {
        let fail = |problem: String| ProjectFileError {
            path: path.to_owned(),
            problem,
        };
        let text = std::fs::read_to_string(path).map_err(|error| fail(error.to_string()))?;
        let mut file = ProjectFile::parse(&text).map_err(fail)?;
        let directory = path.parent().unwrap_or_else(|| Path::new(""));
        file.functions_directory = Some(directory.join("functions"));
        let beside = directory.join(EMULATOR_FILE_NAME);
        match std::fs::read_to_string(&beside) {
            Ok(text) => {
                let problem = |problem| ProjectFileError {
                    path: beside.clone(),
                    problem,
                };
                let emulator_file: EmulatorFile =
                    toml::from_str(&text).map_err(|error| problem(error.to_string()))?;
                file.sign_limit = emulator_file.sign_limit;
                file.storage = emulator_file.storage;
                file.function_server =
                    ProjectFile::parse_function_server(&text).map_err(problem)?;
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(ProjectFileError {
                    path: beside,
                    problem: error.to_string(),
                })
            }
        }
        Ok(file)
    }

    /// Parses `emulator.toml`; unknown keys are refused (a misspelt limit must not pass
    /// silently).
    pub fn parse_emulator_file(text: &str) -> Result<SignLimitSection, String> {
        let file: EmulatorFile = toml::from_str(text).map_err(|error| error.to_string())?;
        Ok(file.sign_limit)
    }

    /// `[functions] url` of `emulator.toml`, checked as `--functions-url` is.
    pub fn parse_function_server(text: &str) -> Result<Option<FunctionServer>, String> {
        let file: EmulatorFile = toml::from_str(text).map_err(|error| error.to_string())?;
        file.functions
            .url
            .map(|url| {
                FunctionServer::parse(&url).map_err(|problem| format!("[functions] url {problem}"))
            })
            .transpose()
    }

    /// Parses the file's text; values the emulator cannot serve are refused here, naming the key.
    pub fn parse(text: &str) -> Result<ProjectFile, String> {
        let file: ProjectFile = toml::from_str(text).map_err(|error| {
            misplaced_function_server(text).unwrap_or_else(|| error.to_string())
        })?;
        if file.api.max_rows.is_some_and(|rows| rows < 1) {
            return Err("[api] max_rows must be at least 1".to_owned());
        }
        let limits = &file.auth.rate_limit;
        for (key, value) in [
            ("sign_in_sign_ups", limits.sign_in_sign_ups),
            ("token_refresh", limits.token_refresh),
            ("token_verifications", limits.token_verifications),
        ] {
            if value == Some(0) {
                return Err(format!("[auth.rate_limit] {key} must be at least 1"));
            }
        }
        Ok(file)
    }
}

/// The emulator's `[functions] url` written in `config.toml`, where TOML's own error ("invalid
/// type: string, expected struct FunctionSection") would not say where it belongs: the CLI reads
/// only `[functions.<name>]` sections there and refuses anything else.
fn misplaced_function_server(text: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(text).ok()?;
    let url = table.get("functions")?.as_table()?.get("url")?;
    (!url.is_table()).then(|| {
        format!(
            "[functions] url belongs under [functions] in {EMULATOR_FILE_NAME} beside this file: \
             here [functions] holds only [functions.<name>] sections, and the Supabase CLI \
             refuses any other key"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_api_max_rows_and_ignores_the_clis_other_settings() {
        let file = ProjectFile::parse(
            "project_id = \"x\"\n[api]\nenabled = true\nport = 54321\nmax_rows = 250\n\
             [auth.rate_limit]\nemail_sent = 2\n",
        )
        .unwrap();
        assert_eq!(file.api.max_rows, Some(250));
    }

    #[test]
    fn missing_sections_leave_the_defaults() {
        assert_eq!(ProjectFile::parse("").unwrap(), ProjectFile::default());
        assert_eq!(
            ProjectFile::parse("[api]\nport = 1\n")
                .unwrap()
                .api
                .max_rows,
            None
        );
    }

    #[test]
    fn bad_values_are_refused_with_the_key_named() {
        for text in ["[api]\nmax_rows = \"many\"\n", "[api\n"] {
            assert!(ProjectFile::parse(text).is_err(), "{text}");
        }
        for text in ["[api]\nmax_rows = 0\n", "[api]\nmax_rows = -1\n"] {
            let error = ProjectFile::parse(text).unwrap_err();
            assert!(error.contains("max_rows"), "{error}");
        }
        let wrong_type = ProjectFile::parse("[api]\nmax_rows = \"many\"\n").unwrap_err();
        assert!(wrong_type.contains("max_rows"), "{wrong_type}");
    }

    #[test]
    fn reads_each_functions_settings() {
        let file = ProjectFile::parse(
            "[edge_runtime]\nenabled = true\n[functions.echo]\nverify_jwt = false\n\
             entrypoint = \"./index.ts\"\n[functions.off]\nenabled = false\n",
        )
        .unwrap();
        assert_eq!(
            file.functions,
            BTreeMap::from([
                (
                    "echo".to_owned(),
                    FunctionSection {
                        enabled: None,
                        verify_jwt: Some(false)
                    }
                ),
                (
                    "off".to_owned(),
                    FunctionSection {
                        enabled: Some(false),
                        verify_jwt: None
                    }
                ),
            ])
        );
        assert!(ProjectFile::parse("[functions.echo]\nverify_jwt = \"no\"\n").is_err());
    }

    #[test]
    fn the_emulator_file_names_the_function_server() {
        let server =
            ProjectFile::parse_function_server("[functions]\nurl = \"http://127.0.0.1:8000\"\n")
                .unwrap()
                .unwrap();
        assert_eq!(server.url(), "http://127.0.0.1:8000");
        assert_eq!(ProjectFile::parse_function_server("").unwrap(), None);
        let bad =
            ProjectFile::parse_function_server("[functions]\nurl = \"https://x\"\n").unwrap_err();
        assert!(bad.contains("[functions] url"), "{bad}");
        assert!(ProjectFile::parse_function_server("[functions]\nport = 1\n").is_err());
    }

    #[test]
    fn a_function_server_in_the_clis_file_is_sent_to_the_emulator_file() {
        let directory = tempfile::tempdir().unwrap();
        let config = directory.path().join("config.toml");
        for text in [
            "[functions]\nurl = \"http://127.0.0.1:8000\"\n",
            "functions.url = \"http://127.0.0.1:8000\"\n[functions.echo]\nverify_jwt = false\n",
        ] {
            std::fs::write(&config, text).unwrap();
            let error = ProjectFile::load(&config).unwrap_err();
            assert_eq!(error.path, config);
            assert!(
                error
                    .problem
                    .starts_with("[functions] url belongs under [functions] in emulator.toml"),
                "{error}"
            );
        }
        // A function named `url` is a function like any other.
        let named = ProjectFile::parse("[functions.url]\nverify_jwt = false\n").unwrap();
        assert_eq!(named.functions["url"].verify_jwt, Some(false));
        // Other mistakes under [functions] keep TOML's own words.
        let other = ProjectFile::parse("[functions]\nport = 1\n").unwrap_err();
        assert!(!other.contains("emulator.toml"), "{other}");
    }

    #[test]
    fn loading_finds_the_emulator_file_and_the_functions_directory() {
        let directory = tempfile::tempdir().unwrap();
        let config = directory.path().join("config.toml");
        std::fs::write(&config, "[functions.echo]\nverify_jwt = false\n").unwrap();
        std::fs::write(
            directory.path().join(EMULATOR_FILE_NAME),
            "[functions]\nurl = \"http://127.0.0.1:9\"\n",
        )
        .unwrap();
        let file = ProjectFile::load(&config).unwrap();
        assert_eq!(
            file.function_server.map(|server| server.url()).as_deref(),
            Some("http://127.0.0.1:9")
        );
        assert_eq!(
            file.functions_directory,
            Some(directory.path().join("functions"))
        );
        assert_eq!(file.functions["echo"].verify_jwt, Some(false));
    }

    #[test]
    fn reads_the_auth_rate_limits() {
        let file = ProjectFile::parse(
            "[auth]\nenabled = true\n[auth.rate_limit]\nemail_sent = 2\nsign_in_sign_ups = 7\n\
             token_refresh = 8\ntoken_verifications = 9\n",
        )
        .unwrap();
        assert_eq!(
            file.auth.rate_limit,
            RateLimitSection {
                sign_in_sign_ups: Some(7),
                token_refresh: Some(8),
                token_verifications: Some(9),
            }
        );
        for text in [
            "[auth.rate_limit]\ntoken_refresh = 0\n",
            "[auth.rate_limit]\ntoken_refresh = -1\n",
        ] {
            let error = ProjectFile::parse(text).unwrap_err();
            assert!(error.contains("token_refresh"), "{error}");
        }
    }

    #[test]
    fn the_sign_limit_comes_from_the_emulator_file_beside_the_config() {
        let directory = tempfile::tempdir().unwrap();
        let config = directory.path().join("config.toml");
        std::fs::write(&config, "[api]\nmax_rows = 5\n").unwrap();
        assert_eq!(
            ProjectFile::load(&config).unwrap().sign_limit,
            SignLimitSection::default()
        );
        let beside = directory.path().join(EMULATOR_FILE_NAME);
        std::fs::write(
            &beside,
            "[sign_limit]\nmax_signs_per_request = 2\nmax_signs_per_minute = 0\n",
        )
        .unwrap();
        let file = ProjectFile::load(&config).unwrap();
        assert_eq!(file.api.max_rows, Some(5));
        assert_eq!(
            file.sign_limit,
            SignLimitSection {
                max_signs_per_request: Some(2),
                max_signs_per_address_minute: None,
                max_signs_per_minute: Some(0),
            }
        );
        std::fs::write(&beside, "[sign_limit]\nmax_sings_per_request = 2\n").unwrap();
        let error = ProjectFile::load(&config).unwrap_err();
        assert_eq!(error.path, beside);
        assert!(error.problem.contains("max_sings_per_request"), "{error}");
    }

    #[test]
    fn storage_policies_come_from_the_emulator_file() {
        use crate::storage::policy::{Operation, PolicyRole};
        let directory = tempfile::tempdir().unwrap();
        let config = directory.path().join("config.toml");
        std::fs::write(&config, "").unwrap();
        assert!(ProjectFile::load(&config)
            .unwrap()
            .storage
            .policies
            .is_empty());
        let beside = directory.path().join(EMULATOR_FILE_NAME);
        std::fs::write(
            &beside,
            "[storage]\npolicies = [{ bucket = \"photos\", operation = \"select\", role = \"anon\" }]\n",
        )
        .unwrap();
        assert_eq!(
            ProjectFile::load(&config).unwrap().storage.policies,
            vec![Policy {
                bucket: "photos".to_owned(),
                operation: Operation::Select,
                role: PolicyRole::Anon,
            }]
        );
        std::fs::write(
            &beside,
            "[storage]\npolicies = [{ bucket = \"p\", operation = \"read\", role = \"anon\" }]\n",
        )
        .unwrap();
        let error = ProjectFile::load(&config).unwrap_err();
        assert!(error.problem.contains("read"), "{error}");
    }

    #[test]
    fn a_missing_file_names_its_path() {
        let error = ProjectFile::load(Path::new("no/such/config.toml")).unwrap_err();
        assert_eq!(error.path, PathBuf::from("no/such/config.toml"));
        assert!(error.to_string().contains("no/such/config.toml"), "{error}");
    }
}
