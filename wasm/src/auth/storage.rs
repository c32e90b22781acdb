//! Where the session text lives: localStorage under supabase-js's key (so a reload, or supabase-js
//! itself, finds it), or memory when persistence is off or localStorage is unavailable.
use std::cell::RefCell;

use web_sys::Storage;

pub enum TextStorage {
    Local { storage: Storage, key: String },
    Memory { value: RefCell<Option<String>> },
}

impl TextStorage {
    /// localStorage when `persist` and the browser allows it (it can be disabled or throw).
    pub fn new(key: String, persist: bool) -> Self {
        let storage = persist
            .then(|| web_sys::window()?.local_storage().ok().flatten())
            .flatten();
        match storage {
            Some(storage) => TextStorage::Local { storage, key },
            None => TextStorage::Memory {
                value: RefCell::new(None),
            },
        }
    }

    /// The stored text; `None` when absent or empty (supabase-js treats both as no session).
    pub fn load(&self) -> Option<String> {
        let text = match self {
            TextStorage::Local { storage, key } => storage.get_item(key).ok().flatten(),
            TextStorage::Memory { value } => value.borrow().clone(),
        };
        text.filter(|text| !text.is_empty())
    }

    /// Writes the session JSON. A full or blocked localStorage keeps the session in memory only
    /// for this call's result, as supabase-js's storage adapter also ignores write failures.
    pub fn save(&self, text: &str) {
        match self {
            TextStorage::Local { storage, key } => {
                let _ = storage.set_item(key, text);
                let _ = storage.remove_item(&format!("{key}-code-verifier"));
            }
            TextStorage::Memory { value } => *value.borrow_mut() = Some(text.to_owned()),
        }
    }

    /// Removes the session and supabase-js's companion keys (`-code-verifier`, `-user`).
    pub fn remove(&self) {
        match self {
            TextStorage::Local { storage, key } => {
                for suffix in ["", "-code-verifier", "-user"] {
                    let _ = storage.remove_item(&format!("{key}{suffix}"));
                }
            }
            TextStorage::Memory { value } => *value.borrow_mut() = None,
        }
    }
}
