//! A request's query parameters as a map (axum's `Query` needs a feature the emulator leaves
//! out; `form_urlencoded` decodes them as browsers encode them).

use crate::storage::error::StorageError;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use std::collections::HashMap;

#[derive(Debug, Clone, Default)]
pub struct QueryParams(pub HashMap<String, String>);

impl QueryParams {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// A non-negative integer parameter, if given.
    pub fn number(&self, name: &str) -> Result<Option<usize>, StorageError> {
        self.get(name)
            .map(|text| {
                text.parse::<usize>()
                    .map_err(|_| StorageError::invalid_parameter(name))
            })
            .transpose()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = StorageError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, StorageError> {
        let query = parts.uri.query().unwrap_or_default();
        Ok(QueryParams(
            form_urlencoded::parse(query.as_bytes())
                .map(|(key, value)| (key.into_owned(), value.into_owned()))
                .collect(),
        ))
    }
}
