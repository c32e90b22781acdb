//! The stored session as a [`Session`]: reading, writing and removing it, and the removal count
//! a refresh checks so that tokens rotated while a sign-out ran never bring the session back.

use std::cell::Cell;

use geocache_core::auth::Session;
use serde_json::Value;

use super::storage::TextStorage;

pub struct SessionStore {
    storage: TextStorage,
    /// Bumped whenever the session is removed.
    removals: Cell<u64>,
}

/// A stored value that is not a session (the caller removes it).
pub struct NotASession;

impl SessionStore {
    /// Under `key` in localStorage when `persist` and the browser allows it, else in memory.
    pub fn new(key: String, persist: bool) -> Self {
        SessionStore {
            storage: TextStorage::new(key, persist),
            removals: Cell::new(0),
        }
    }

    /// The stored session as it is, or `None` (nothing stored, or not a session).
    pub fn session(&self) -> Option<Session> {
        Session::from_storage(&self.storage.load()?).ok()
    }

    /// The stored session, telling an unreadable value apart from none.
    pub fn load(&self) -> Result<Option<Session>, NotASession> {
        let Some(text) = self.storage.load() else {
            return Ok(None);
        };
        Session::from_storage(&text)
            .map(Some)
            .map_err(|_| NotASession)
    }

    pub fn save(&self, session: &Session) {
        let text = session
            .to_storage()
            .expect("a session is strings, numbers and JSON maps: serialising it cannot fail");
        self.storage.save(&text);
    }

    pub fn remove(&self) {
        self.removals.set(self.removals.get() + 1);
        self.storage.remove();
    }

    /// How many times the session was removed so far.
    pub fn removals(&self) -> u64 {
        self.removals.get()
    }

    /// `{"refresh_token"}` of a session-shaped value, used by the refresh commit guard.
    pub fn refresh_token(&self) -> Option<String> {
        let value: Value = serde_json::from_str(&self.storage.load()?).ok()?;
        value.get("refresh_token")?.as_str().map(str::to_owned)
    }
}
