//! The logbook's row types.

use serde::{Deserialize, Serialize};

use crate::logbook::json_shape::json_string;
use crate::logbook::timestamp::Timestamp;

/// One validated row of `geocache_logs`. Serialises to the JSON PostgREST sent (created_at verbatim).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// A JSON number; it crosses to JS as a number, so f64 is its honest type.
    pub id: f64,
    pub created_at: Timestamp,
    pub name: String,
    pub message: String,
}

/// What a visitor signs with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewEntry {
    pub name: String,
    pub message: String,
}

impl NewEntry {
    /// The insert body `{"name":…,"message":…}`, fields in that order as `JSON.stringify` writes them.
    pub fn to_json(&self) -> String {
        format!(
            "{{\"name\":{},\"message\":{}}}",
            json_string(&self.name),
            json_string(&self.message)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn insert_body_has_name_then_message() {
        let entry = NewEntry {
            name: "Ann \"the hider\"".into(),
            message: "<img src=x onerror=alert(1)>\n\u{202E}שלום 😀".into(),
        };
        assert_eq!(
            entry.to_json(),
            "{\"name\":\"Ann \\\"the hider\\\"\",\"message\":\"<img src=x onerror=alert(1)>\\n\u{202E}שלום 😀\"}"
        );
    }

    #[test]
    fn entries_serialise_with_the_verbatim_timestamp() {
        let entry = Entry {
            id: 7.0,
            created_at: Timestamp::parse("2024-05-01T12:34:56.5+00:00").unwrap(),
            name: "n".into(),
            message: "m".into(),
        };
        assert_eq!(
            serde_json::to_string(&entry).unwrap(),
            r#"{"id":7.0,"created_at":"2024-05-01T12:34:56.5+00:00","name":"n","message":"m"}"#
        );
    }

    proptest! {
        #[test]
        fn insert_body_is_serde_jsons_serialisation(name in any::<String>(), message in any::<String>()) {
            let entry = NewEntry { name, message };
            prop_assert_eq!(entry.to_json(), serde_json::to_string(&entry).unwrap());
            let back: NewEntry = serde_json::from_str(&entry.to_json()).unwrap();
            prop_assert_eq!(back, entry);
        }
    }
}
