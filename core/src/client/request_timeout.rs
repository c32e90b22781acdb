//! How long one request may take, end to end (headers and body), before the client aborts it:
//! `createClient(url, key, { requestTimeoutMs })`. supabase-js has no default deadline (a stalled
//! connection hangs until the browser gives up, minutes later); ours is 30 s, well above a
//! healthy read of the whole list and well below a user's patience.

/// The deadline when `requestTimeoutMs` is not given.
pub const DEFAULT_REQUEST_TIMEOUT_MS: u32 = 30_000;

/// The longest delay a browser timer takes: `setTimeout` reads it as a 32-bit signed integer
/// and fires at once for anything larger.
pub const MAX_TIMER_DELAY_MS: u32 = i32::MAX as u32;

/// A validated request deadline: a whole number of milliseconds a timer can wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestTimeout {
    ms: u32,
}

impl Default for RequestTimeout {
    fn default() -> Self {
        RequestTimeout {
            ms: DEFAULT_REQUEST_TIMEOUT_MS,
        }
    }
}

/// A `requestTimeoutMs` that is not a positive whole number of milliseconds up to 2^31 - 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "requestTimeoutMs must be a whole number of milliseconds from 1 to 2147483647, found {found}"
)]
pub struct RequestTimeoutError {
    /// The number as JSON writes it (`NaN` and infinities as `null`), or what the value was
    /// instead of a number (`a string`).
    pub found: String,
}

impl RequestTimeout {
    /// `requestTimeoutMs` as given; `None` (absent, `undefined` or `null`) is the default. The
    /// error names the number as JSON writes it.
    pub fn from_option(ms: Option<f64>) -> Result<Self, RequestTimeoutError> {
        match ms {
            None => Ok(RequestTimeout::default()),
            Some(ms) => Self::from_ms(ms).ok_or_else(|| RequestTimeoutError {
                found: json_number(ms),
            }),
        }
    }

    /// `ms` if it is a whole number of milliseconds from 1 to 2^31 - 1. Without an error value,
    /// so a caller that can name the number more cheaply (the page's build asks JS to) does not
    /// pay for a float printer.
    ///
    /// ```
    /// use geocache_core::RequestTimeout;
    ///
    /// assert_eq!(RequestTimeout::from_ms(5000.0).map(RequestTimeout::ms), Some(5000));
    /// assert_eq!(RequestTimeout::from_ms(0.5), None);
    /// assert_eq!(RequestTimeout::from_ms(f64::NAN), None);
    /// ```
    pub fn from_ms(ms: f64) -> Option<Self> {
        timer_delay_ms(ms).map(|ms| RequestTimeout { ms })
    }

    pub fn ms(self) -> u32 {
        self.ms
    }
}

/// `value` as a timer delay: a whole number from 1 to [`MAX_TIMER_DELAY_MS`].
pub(crate) fn timer_delay_ms(value: f64) -> Option<u32> {
    let whole = value.fract() == 0.0 && (1.0..=f64::from(MAX_TIMER_DELAY_MS)).contains(&value);
    // In range and whole, so the cast is exact.
    whole.then_some(value as u32)
}

/// A number for an error message, as JSON writes it: formatting floats with `Display` would
/// pull a second float printer into the wasm bundle.
pub(crate) fn json_number(value: f64) -> String {
    serde_json::Value::from(value).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_means_thirty_seconds() {
        assert_eq!(RequestTimeout::from_option(None).unwrap().ms(), 30_000);
        assert_eq!(RequestTimeout::default().ms(), DEFAULT_REQUEST_TIMEOUT_MS);
    }

    #[test]
    fn whole_positive_timer_delays_are_taken() {
        for ms in [1.0, 250.0, 30_000.0, 2_147_483_647.0] {
            assert_eq!(
                RequestTimeout::from_option(Some(ms)).unwrap().ms(),
                ms as u32
            );
        }
    }

    #[test]
    fn anything_else_is_refused_naming_the_value() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (-5.0, "-5.0"),
            (0.5, "0.5"),
            (1.5, "1.5"),
            (2_147_483_648.0, "2147483648.0"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
            (f64::NEG_INFINITY, "null"),
        ];
        for (ms, found) in cases {
            assert_eq!(RequestTimeout::from_ms(ms), None, "{ms}");
            let error = RequestTimeout::from_option(Some(ms)).unwrap_err();
            assert_eq!(error.found, found, "{ms}");
            assert_eq!(
                error.to_string(),
                format!("requestTimeoutMs must be a whole number of milliseconds from 1 to 2147483647, found {found}")
            );
        }
    }
}
