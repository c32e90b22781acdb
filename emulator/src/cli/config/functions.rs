//! The flag of `/functions/v1`: where the developer's function server listens.

use crate::cli::project_file::ProjectFile;
use crate::functions::settings::{FunctionServer, FunctionSettings, FunctionsSettings};
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct FunctionsFlags {
    /// The developer's Edge Functions server: calls to /functions/v1/<name> are relayed to
    /// <URL>/<name>. Default: `[functions] url` of `emulator.toml` beside --config; without
    /// either, function calls are relay errors.
    #[arg(long, value_name = "URL", value_parser = FunctionServer::parse)]
    pub functions_url: Option<FunctionServer>,
}

impl FunctionsFlags {
    /// `/functions/v1`: the flag's function server, else the emulator file's; the functions the
    /// config file lists or its `functions/` directory holds, `verify_jwt` on unless turned off.
    pub fn settings(&self, file: &ProjectFile) -> FunctionsSettings {
        let defaults = FunctionSettings::default();
        FunctionsSettings {
            server: self
                .functions_url
                .clone()
                .or_else(|| file.function_server.clone()),
            listed: file
                .functions
                .iter()
                .map(|(name, section)| {
                    let settings = FunctionSettings {
                        enabled: section.enabled.unwrap_or(defaults.enabled),
                        verify_jwt: section.verify_jwt.unwrap_or(defaults.verify_jwt),
                    };
                    (name.clone(), settings)
                })
                .collect(),
            directory: file.functions_directory.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::config::flag_groups::parse;
    use crate::cli::project_file::FunctionSection;

    #[test]
    fn functions_come_from_the_flag_then_the_files() {
        let mut file = ProjectFile {
            function_server: Some(FunctionServer::parse("http://127.0.0.1:2").unwrap()),
            ..ProjectFile::default()
        };
        file.functions.insert(
            "open".to_owned(),
            FunctionSection {
                enabled: None,
                verify_jwt: Some(false),
            },
        );
        file.functions
            .insert("plain".to_owned(), FunctionSection::default());
        let from_file = parse::<FunctionsFlags>(&[]).unwrap().settings(&file);
        assert_eq!(
            from_file.server.map(|server| server.url()).as_deref(),
            Some("http://127.0.0.1:2")
        );
        assert_eq!(
            from_file.listed["open"],
            FunctionSettings {
                enabled: true,
                verify_jwt: false
            }
        );
        assert_eq!(from_file.listed["plain"], FunctionSettings::default());
        let flag = parse::<FunctionsFlags>(&["--functions-url", "http://127.0.0.1:1/"])
            .unwrap()
            .settings(&file);
        assert_eq!(
            flag.server.map(|server| server.url()).as_deref(),
            Some("http://127.0.0.1:1")
        );
        assert!(parse::<FunctionsFlags>(&["--functions-url", "https://x"]).is_err());
    }
}
