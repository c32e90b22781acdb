//! The `Prefer` request header (RFC 7240) as PostgREST reads it: every `Prefer` header, split on
//! commas, first recognised value per preference wins; `Preference-Applied` echoes the ones that
//! took effect. Preferences the emulator does not implement (`timezone=`, `tx=`, `max-affected=`,
//! `resolution=`) are treated as unrecognised.

use crate::rest::error::RestError;
use axum::http::{HeaderMap, HeaderValue};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Return {
    Minimal,
    HeadersOnly,
    Representation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    Exact,
    Planned,
    Estimated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    Default,
    Null,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preferences {
    pub return_: Option<Return>,
    pub count: Option<Count>,
    pub missing: Option<Missing>,
    pub strict: Option<bool>,
    pub unrecognised: Vec<String>,
}

impl Preferences {
    pub fn from_headers(headers: &HeaderMap) -> Preferences {
        let mut preferences = Preferences::default();
        let values = headers
            .get_all("prefer")
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .filter(|value| !value.is_empty());
        for value in values {
            let recognised = match value {
                "return=minimal" => set_once(&mut preferences.return_, Return::Minimal),
                "return=headers-only" => set_once(&mut preferences.return_, Return::HeadersOnly),
                "return=representation" => {
                    set_once(&mut preferences.return_, Return::Representation)
                }
                "count=exact" => set_once(&mut preferences.count, Count::Exact),
                "count=planned" => set_once(&mut preferences.count, Count::Planned),
                "count=estimated" => set_once(&mut preferences.count, Count::Estimated),
                "missing=default" => set_once(&mut preferences.missing, Missing::Default),
                "missing=null" => set_once(&mut preferences.missing, Missing::Null),
                "handling=strict" => set_once(&mut preferences.strict, true),
                "handling=lenient" => set_once(&mut preferences.strict, false),
                _ => false,
            };
            if !recognised {
                preferences.unrecognised.push(value.to_owned());
            }
        }
        preferences
    }

    /// `handling=strict` turns unrecognised preferences into PGRST122.
    pub fn check_strict(&self) -> Result<(), RestError> {
        if self.strict == Some(true) && !self.unrecognised.is_empty() {
            return Err(RestError::invalid_preferences(&self.unrecognised));
        }
        Ok(())
    }

    /// Whether to count: PostgREST counts for `exact` and `estimated`; the emulator's table is
    /// small, so `planned` is answered with the exact count too.
    pub fn wants_count(&self) -> bool {
        self.count.is_some()
    }

    /// `Preference-Applied` for a read (PostgREST echoes count and handling).
    pub fn applied_for_read(&self) -> Option<HeaderValue> {
        self.applied(false, false)
    }

    /// `Preference-Applied` for an insert (missing, return, count, handling).
    pub fn applied_for_insert(&self) -> Option<HeaderValue> {
        self.applied(true, true)
    }

    /// `Preference-Applied` for an update or delete (return, count, handling).
    pub fn applied_for_mutation(&self) -> Option<HeaderValue> {
        self.applied(false, true)
    }

    fn applied(&self, with_missing: bool, with_return: bool) -> Option<HeaderValue> {
        let mut applied = Vec::new();
        if with_missing {
            applied.extend(self.missing.map(|missing| match missing {
                Missing::Default => "missing=default",
                Missing::Null => "missing=null",
            }));
        }
        if with_return {
            applied.extend(self.return_.map(|return_| match return_ {
                Return::Minimal => "return=minimal",
                Return::HeadersOnly => "return=headers-only",
                Return::Representation => "return=representation",
            }));
        }
        applied.extend(self.count.map(|count| match count {
            Count::Exact => "count=exact",
            Count::Planned => "count=planned",
            Count::Estimated => "count=estimated",
        }));
        applied.extend(self.strict.map(|strict| {
            if strict {
                "handling=strict"
            } else {
                "handling=lenient"
            }
        }));
        if applied.is_empty() {
            None
        } else {
            HeaderValue::from_str(&applied.join(", ")).ok()
        }
    }
}

/// Keeps the first value of a preference; a repeated preference is still "recognised".
fn set_once<T>(slot: &mut Option<T>, value: T) -> bool {
    if slot.is_none() {
        *slot = Some(value);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preferences(values: &[&str]) -> Preferences {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append("prefer", HeaderValue::from_str(value).unwrap());
        }
        Preferences::from_headers(&headers)
    }

    #[test]
    fn reads_comma_joined_and_repeated_headers() {
        let prefs = preferences(&["return=representation, count=exact", "missing=default"]);
        assert_eq!(prefs.return_, Some(Return::Representation));
        assert_eq!(prefs.count, Some(Count::Exact));
        assert_eq!(prefs.missing, Some(Missing::Default));
        assert!(prefs.unrecognised.is_empty());
    }

    #[test]
    fn first_value_wins() {
        let prefs = preferences(&["return=minimal,return=representation"]);
        assert_eq!(prefs.return_, Some(Return::Minimal));
    }

    #[test]
    fn applied_header_lists_in_postgrest_order() {
        let prefs = preferences(&["count=exact, return=representation, missing=null"]);
        assert_eq!(
            prefs.applied_for_insert().unwrap(),
            "missing=null, return=representation, count=exact"
        );
        assert_eq!(prefs.applied_for_read().unwrap(), "count=exact");
        assert_eq!(preferences(&[]).applied_for_insert(), None);
    }

    #[test]
    fn strict_handling_refuses_unknown_preferences() {
        let lenient = preferences(&["timezone=Mars/Olympus"]);
        assert!(lenient.check_strict().is_ok());
        let strict = preferences(&["handling=strict, timezone=Mars/Olympus, bogus"]);
        let error = strict.check_strict().unwrap_err();
        assert_eq!(error.code(), "PGRST122");
    }
}
