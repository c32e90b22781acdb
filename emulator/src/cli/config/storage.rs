//! The flags of `/storage/v1`: the policies and the largest object.

use crate::cli::project_file::ProjectFile;
use crate::db::DbLocation;
use crate::storage::files::Files;
use crate::storage::policy::{Policies, Policy};
use crate::storage::settings::{StorageSettings, DEFAULT_MAX_FILE_SIZE};
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct StorageFlags {
    /// A storage policy (repeatable): BUCKET:OPERATION:ROLE grants OPERATION (select, insert,
    /// update or delete) on the objects of BUCKET (`*`: every bucket) to ROLE (anon or
    /// authenticated). Added to `[storage] policies` of `emulator.toml` beside --config. None by
    /// default, as on a new hosted project; the service role needs none.
    #[arg(long, value_name = "BUCKET:OPERATION:ROLE", value_parser = Policy::parse)]
    pub storage_policy: Vec<Policy>,

    /// No stored object may be larger than this many bytes, whatever its bucket allows (hosted
    /// Storage's global file size limit; 50 MB on the free plan). Uploads stream to disk, so
    /// this is independent of --max-body-bytes.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_STORAGE_MAX_FILE_SIZE",
        value_name = "BYTES",
        default_value_t = DEFAULT_MAX_FILE_SIZE,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub storage_max_file_size: u64,
}

impl StorageFlags {
    /// Storage: object bytes under `storage/` beside a database file (a throwaway directory for
    /// `:memory:`), the file's policies and the flags'.
    pub fn settings(
        &self,
        db: &DbLocation,
        file: &ProjectFile,
    ) -> std::io::Result<StorageSettings> {
        let files = match db {
            DbLocation::Memory => None,
            DbLocation::File(path) => Some(Files::at(
                path.parent()
                    .unwrap_or_else(|| std::path::Path::new(""))
                    .join("storage"),
            )?),
        };
        let mut policies = file.storage.policies.clone();
        policies.extend(self.storage_policy.iter().cloned());
        Ok(StorageSettings::new(
            files,
            Policies::new(policies),
            self.storage_max_file_size,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::config::flag_groups::parse;
    use crate::keys::Role;
    use crate::storage::policy::{Operation, PolicyRole};

    #[test]
    fn storage_lives_beside_the_database_with_the_flags_and_files_policies() {
        let directory = tempfile::tempdir().unwrap();
        let db = DbLocation::File(directory.path().join("data/emulator.sqlite3"));
        let flags: StorageFlags = parse(&[
            "--storage-policy",
            "photos:select:anon",
            "--storage-max-file-size",
            "1000",
        ])
        .unwrap();
        let mut file = ProjectFile::default();
        file.storage.policies.push(Policy {
            bucket: "*".to_owned(),
            operation: Operation::Insert,
            role: PolicyRole::Authenticated,
        });
        let settings = flags.settings(&db, &file).unwrap();
        assert_eq!(
            settings.files().unwrap().root(),
            directory
                .path()
                .join("data/storage")
                .canonicalize()
                .unwrap()
        );
        assert_eq!(settings.max_file_size, 1000);
        assert!(settings
            .policies
            .allows(Role::Anon, "photos", Operation::Select));
        assert!(settings
            .policies
            .allows(Role::Authenticated, "any", Operation::Insert));
        assert!(!settings
            .policies
            .allows(Role::Anon, "photos", Operation::Insert));
        assert!(parse::<StorageFlags>(&["--storage-policy", "photos:read:anon"]).is_err());
        let defaults: StorageFlags = parse(&[]).unwrap();
        assert_eq!(defaults.storage_max_file_size, DEFAULT_MAX_FILE_SIZE);
        assert!(defaults.storage_policy.is_empty());
    }
}
