//! Reading `channel(name, options)` and `on(type, filter, callback)` arguments from JS, by
//! property, into core's values. A wrong shape is an `invalid_argument` TypeError.

use geocache_core::realtime::{ChangeFilter, ChannelOptions, Listener};
use js_sys::Reflect;
use wasm_bindgen::JsValue;

use crate::error::ClientError;

fn invalid(name: &'static str, reason: impl Into<String>) -> ClientError {
    ClientError::Argument {
        name,
        reason: reason.into(),
    }
}

/// `object[key]`, `undefined` for a non-object or a property that cannot be read.
fn property(object: &JsValue, key: &str) -> JsValue {
    if !object.is_object() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

fn optional_string(
    value: JsValue,
    name: &'static str,
    path: &str,
) -> Result<Option<String>, ClientError> {
    if absent(&value) {
        return Ok(None);
    }
    value
        .as_string()
        .map(Some)
        .ok_or_else(|| invalid(name, format!("{path} is not a string")))
}

fn required_string(value: JsValue, name: &'static str, path: &str) -> Result<String, ClientError> {
    optional_string(value, name, path)?.ok_or_else(|| invalid(name, format!("{path} is required")))
}

fn optional_bool(value: JsValue, name: &'static str, path: &str) -> Result<bool, ClientError> {
    if absent(&value) {
        return Ok(false);
    }
    value
        .as_bool()
        .ok_or_else(|| invalid(name, format!("{path} is not a boolean")))
}

/// `{ config: { broadcast: { self, ack }, presence: { key } } }`, every part optional.
pub fn channel_options(options: &JsValue) -> Result<ChannelOptions, ClientError> {
    const NAME: &str = "options";
    if !absent(options) && !options.is_object() {
        return Err(invalid(NAME, "expected an object"));
    }
    let config = property(options, "config");
    let broadcast = property(&config, "broadcast");
    let presence = property(&config, "presence");
    Ok(ChannelOptions {
        broadcast_self: optional_bool(property(&broadcast, "self"), NAME, "config.broadcast.self")?,
        broadcast_ack: optional_bool(property(&broadcast, "ack"), NAME, "config.broadcast.ack")?,
        presence_key: optional_string(property(&presence, "key"), NAME, "config.presence.key")?
            .unwrap_or_default(),
    })
}

/// `on('postgres_changes', { event, schema, table?, filter? })`, `on('broadcast', { event })`
/// or `on('system', {})`.
pub fn listener(kind: &str, filter: &JsValue) -> Result<Listener, ClientError> {
    const NAME: &str = "filter";
    if !absent(filter) && !filter.is_object() {
        return Err(invalid(NAME, "expected an object"));
    }
    let field = |key: &str| property(filter, key);
    match kind {
        "postgres_changes" => Ok(Listener::PostgresChanges(ChangeFilter {
            event: required_string(field("event"), NAME, "event")?,
            schema: required_string(field("schema"), NAME, "schema")?,
            table: optional_string(field("table"), NAME, "table")?,
            filter: optional_string(field("filter"), NAME, "filter")?,
        })),
        "broadcast" => Ok(Listener::Broadcast {
            event: required_string(field("event"), NAME, "event")?,
        }),
        "system" => Ok(Listener::System),
        other => Err(invalid(
            "type",
            format!("unsupported listener type {other:?}: expected postgres_changes, broadcast or system"),
        )),
    }
}
