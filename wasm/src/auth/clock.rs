//! The one clock the auth client reads.

/// Milliseconds since the epoch, the `now` every core decision takes.
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}
