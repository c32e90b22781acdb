//! The one clock the auth client reads.

use geocache_core::UnixTime;

/// `Date.now()`, the `now` every core decision takes.
pub fn now() -> UnixTime {
    UnixTime::from_millis(js_sys::Date::now())
}
