//! The three ways an invoke fails, named and worded as supabase-js's `FunctionsHttpError`,
//! `FunctionsRelayError` and `FunctionsFetchError` (callers compare names and messages), and the
//! arguments refused before anything is sent.

/// A failed invoke. The wasm layer attaches the `Response` (HTTP and relay errors) or the thrown
/// error (fetch errors) as the JS error's `context`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionsFailure {
    /// The function answered with a status outside 200-299.
    Http,
    /// The platform in front of the function failed (`x-relay-error: true`).
    Relay,
    /// No response: the request could not be sent or the connection failed.
    Fetch,
}

impl FunctionsFailure {
    /// The JS error's `name`, as supabase-js's classes set it.
    pub fn name(self) -> &'static str {
        match self {
            FunctionsFailure::Http => "FunctionsHttpError",
            FunctionsFailure::Relay => "FunctionsRelayError",
            FunctionsFailure::Fetch => "FunctionsFetchError",
        }
    }

    /// supabase-js's message, verbatim.
    pub fn message(self) -> &'static str {
        match self {
            FunctionsFailure::Http => "Edge Function returned a non-2xx status code",
            FunctionsFailure::Relay => "Relay Error invoking the Edge Function",
            FunctionsFailure::Fetch => "Failed to send a request to the Edge Function",
        }
    }

    /// A stable machine-readable code (this client's addition; supabase-js has none).
    pub fn code(self) -> &'static str {
        match self {
            FunctionsFailure::Http => "functions_http_error",
            FunctionsFailure::Relay => "functions_relay_error",
            FunctionsFailure::Fetch => "functions_fetch_error",
        }
    }
}

/// An `invoke` argument that cannot make a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvokeArgumentError {
    #[error(
        "function name must start with a letter and hold only letters, digits, - and _ (got {0:?})"
    )]
    Name(String),
    #[error("path segment after the function name must be non-empty and not . or .. (got {0:?})")]
    PathSegment(String),
    #[error("method must be GET, POST, PUT, PATCH or DELETE (got {0:?})")]
    Method(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_carry_supabase_js_names_and_messages() {
        let all = [
            FunctionsFailure::Http,
            FunctionsFailure::Relay,
            FunctionsFailure::Fetch,
        ];
        assert_eq!(
            all.map(FunctionsFailure::name),
            [
                "FunctionsHttpError",
                "FunctionsRelayError",
                "FunctionsFetchError"
            ]
        );
        assert_eq!(
            FunctionsFailure::Http.message(),
            "Edge Function returned a non-2xx status code"
        );
        assert_eq!(
            all.map(FunctionsFailure::code),
            [
                "functions_http_error",
                "functions_relay_error",
                "functions_fetch_error"
            ]
        );
    }
}
