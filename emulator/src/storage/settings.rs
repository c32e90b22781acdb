//! What the storage server is configured with: where bytes live, the policies, the size cap.

use crate::storage::files::Files;
use crate::storage::policy::Policies;
use std::io;
use std::sync::Mutex;

/// Hosted Storage's global file size limit on the free plan (50 MB), unless configured.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 50 * 1024 * 1024;

#[derive(Debug)]
pub struct StorageSettings {
    files: Mutex<Option<Files>>,
    pub policies: Policies,
    /// No object may be larger, whatever its bucket allows.
    pub max_file_size: u64,
}

impl Default for StorageSettings {
    /// A temporary root made on first use, no policies, the hosted size cap.
    fn default() -> Self {
        StorageSettings {
            files: Mutex::new(None),
            policies: Policies::default(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
        }
    }
}

impl StorageSettings {
    pub fn new(files: Option<Files>, policies: Policies, max_file_size: u64) -> StorageSettings {
        StorageSettings {
            files: Mutex::new(files),
            policies,
            max_file_size,
        }
    }

    /// The file store; a temporary one is made on first use when none was given.
    pub fn files(&self) -> io::Result<Files> {
        // A panic while holding the lock leaves the Option as it was: still usable.
        let mut guard = self
            .files
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(files) = guard.as_ref() {
            return Ok(files.clone());
        }
        let files = Files::temporary()?;
        *guard = Some(files.clone());
        Ok(files)
    }

    /// The file store if one was given or already made (a throwaway one is made on first use).
    pub fn existing_files(&self) -> Option<Files> {
        self.files
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Removes a throwaway file store (`--db :memory:`) when the server stops.
    pub fn release(&self) -> io::Result<()> {
        let mut guard = self
            .files
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match guard.take() {
            Some(files) => files.remove_if_temporary(),
            None => Ok(()),
        }
    }
}
