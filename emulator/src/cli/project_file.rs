//! The settings the emulator shares with the Supabase CLI, read from the CLI's own
//! `supabase/config.toml` (`--config`), so the emulator and a hosted project linked with that file
//! behave alike. Only the sections the emulator understands are read; every other key the CLI
//! knows is ignored, and a missing key keeps the emulator's default.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// What the emulator reads from the file; `None` where the file says nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ProjectFile {
    #[serde(default)]
    pub api: ApiSection,
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
        ProjectFile::parse(&text).map_err(fail)
    }

    /// Parses the file's text; values the emulator cannot serve are refused here, naming the key.
    pub fn parse(text: &str) -> Result<ProjectFile, String> {
        let file: ProjectFile = toml::from_str(text).map_err(|error| error.to_string())?;
        if file.api.max_rows.is_some_and(|rows| rows < 1) {
            return Err("[api] max_rows must be at least 1".to_owned());
        }
        Ok(file)
    }
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
    fn a_missing_file_names_its_path() {
        let error = ProjectFile::load(Path::new("no/such/config.toml")).unwrap_err();
        assert_eq!(error.path, PathBuf::from("no/such/config.toml"));
        assert!(error.to_string().contains("no/such/config.toml"), "{error}");
    }
}
