//! The flags of `/rest/v1`: the row cap of a read and the logbook's sign limit.

use crate::cli::project_file::ProjectFile;
use crate::rest::sign_limit::{
    SignLimits, DEFAULT_MAX_SIGNS_PER_ADDRESS_MINUTE, DEFAULT_MAX_SIGNS_PER_MINUTE,
    DEFAULT_MAX_SIGNS_PER_REQUEST,
};
use crate::rest::DEFAULT_MAX_ROWS;
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct RestFlags {
    /// The most rows one read returns (PostgREST's db-max-rows); writes are never capped.
    /// Default: `[api] max_rows` of --config, else 1000 as on hosted Supabase.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
    pub max_rows: Option<i64>,

    /// The logbook's sign limit: most entries in one anon or authenticated insert; 0 turns it off.
    /// Default: `emulator.toml` beside --config, else 10 as the migration.
    #[arg(long, value_name = "N")]
    pub sign_limit_per_request: Option<u32>,

    /// Most signs per client address per minute; 0 turns it off. Default: `emulator.toml` beside
    /// --config, else 30 as the migration.
    #[arg(long, value_name = "N")]
    pub sign_limit_per_address_minute: Option<u32>,

    /// Most signs per minute from everyone together; 0 turns it off. Default: `emulator.toml`
    /// beside --config, else 300 as the migration.
    #[arg(long, value_name = "N")]
    pub sign_limit_per_minute: Option<u32>,

    /// Limit signs from loopback clients too (they are exempt, so local use is never throttled);
    /// for tests of the limit.
    #[arg(long)]
    pub sign_limit_loopback: bool,
}

impl RestFlags {
    /// The row cap: the flag, else the file, else hosted Supabase's default.
    pub fn max_rows(&self, file: &ProjectFile) -> i64 {
        self.max_rows
            .or(file.api.max_rows)
            .unwrap_or(DEFAULT_MAX_ROWS)
    }

    /// The sign limit: each flag, else the emulator file, else the migration's default; 0 is off.
    pub fn sign_limits(&self, file: &ProjectFile) -> SignLimits {
        let pick = |flag: Option<u32>, from_file: Option<u32>, default: u32| {
            Some(flag.or(from_file).unwrap_or(default)).filter(|&limit| limit > 0)
        };
        let section = &file.sign_limit;
        SignLimits {
            max_signs_per_request: pick(
                self.sign_limit_per_request,
                section.max_signs_per_request,
                DEFAULT_MAX_SIGNS_PER_REQUEST,
            ),
            max_signs_per_address_minute: pick(
                self.sign_limit_per_address_minute,
                section.max_signs_per_address_minute,
                DEFAULT_MAX_SIGNS_PER_ADDRESS_MINUTE,
            ),
            max_signs_per_minute: pick(
                self.sign_limit_per_minute,
                section.max_signs_per_minute,
                DEFAULT_MAX_SIGNS_PER_MINUTE,
            ),
            limit_loopback: self.sign_limit_loopback,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::config::flag_groups::parse;

    #[test]
    fn sign_limits_come_from_the_flag_then_the_file_then_the_migration() {
        let mut file = ProjectFile::default();
        let limits =
            |args: &[&str], file: &ProjectFile| parse::<RestFlags>(args).unwrap().sign_limits(file);
        assert_eq!(limits(&[], &file), SignLimits::default());
        file.sign_limit.max_signs_per_request = Some(4);
        file.sign_limit.max_signs_per_minute = Some(0);
        let configured = limits(
            &[
                "--sign-limit-per-address-minute",
                "3",
                "--sign-limit-loopback",
            ],
            &file,
        );
        assert_eq!(
            configured,
            SignLimits {
                max_signs_per_request: Some(4),
                max_signs_per_address_minute: Some(3),
                max_signs_per_minute: None,
                limit_loopback: true,
            }
        );
    }
}
