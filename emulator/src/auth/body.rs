//! Request bodies, read as GoTrue's `retrieveRequestParams` does: JSON into a struct whose missing
//! or `null` fields take their zero value and whose unknown fields are ignored; anything else is
//! 400 `bad_json`. An empty body is not JSON either.

use crate::auth::error::AuthError;
use serde::de::DeserializeOwned;

pub fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, AuthError> {
    serde_json::from_slice(body).map_err(|error| AuthError::bad_json(&error.to_string()))
}

/// A string field that Go would read as "" when absent or `null`.
pub fn text(field: Option<String>) -> String {
    field.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Params {
        email: Option<String>,
    }

    #[test]
    fn missing_null_and_unknown_fields_are_fine() {
        let params: Params = parse(br#"{"email":null,"other":1}"#).unwrap();
        assert_eq!(text(params.email), "");
        let params: Params = parse(b"{}").unwrap();
        assert_eq!(params, Params { email: None });
    }

    #[test]
    fn non_json_and_wrong_types_are_bad_json() {
        for body in [&b""[..], b"{", b"[]", br#"{"email":5}"#] {
            let error = parse::<Params>(body).unwrap_err();
            assert_eq!(error.code, "bad_json");
            assert!(
                error
                    .message
                    .starts_with("Could not parse request body as JSON: "),
                "{}",
                error.message
            );
        }
    }
}
