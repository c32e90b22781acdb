//! A channel's listeners, its `phx_join` payload and the reading of the join's reply
//! (realtime-js `RealtimeChannel.subscribe`).

use serde_json::value::RawValue;

use super::json_text::{as_string, quote, Entries};

/// `client.channel(name, { config })`: what the join asks of the server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChannelOptions {
    /// `broadcast.self`: receive one's own broadcasts.
    pub broadcast_self: bool,
    /// `broadcast.ack`: the server acknowledges each broadcast.
    pub broadcast_ack: bool,
    /// `presence.key`.
    pub presence_key: String,
}

/// `{ event, schema, table?, filter? }` of `on('postgres_changes', ...)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeFilter {
    /// `*`, `INSERT`, `UPDATE` or `DELETE`.
    pub event: String,
    pub schema: String,
    pub table: Option<String>,
    /// e.g. `id=eq.3`, as Realtime parses it.
    pub filter: Option<String>,
}

/// One `channel.on(type, filter, callback)`; the bindings keep the callback at the same index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listener {
    PostgresChanges(ChangeFilter),
    /// `event` is the broadcast's event name or `*`.
    Broadcast {
        event: String,
    },
    System,
}

/// The postgres_changes filters a join asks for: the listeners' filters in order, each once.
pub fn change_filters(listeners: &[Listener]) -> Vec<&ChangeFilter> {
    let mut filters: Vec<&ChangeFilter> = Vec::new();
    for listener in listeners {
        if let Listener::PostgresChanges(filter) = listener {
            if !filters.contains(&filter) {
                filters.push(filter);
            }
        }
    }
    filters
}

/// `phx_join`'s payload (JSON text): the channel's config (broadcast, presence,
/// postgres_changes, not private) and the access token (the user's, else the API key).
///
/// ```
/// use geocache_core::realtime::{join_payload, ChannelOptions, Listener};
///
/// let payload = join_payload(&ChannelOptions::default(), &[Listener::System], "key");
/// assert_eq!(
///     payload,
///     r#"{"config":{"broadcast":{"ack":false,"self":false},"presence":{"key":"","enabled":false},"postgres_changes":[],"private":false},"access_token":"key"}"#
/// );
/// ```
pub fn join_payload(
    options: &ChannelOptions,
    listeners: &[Listener],
    access_token: &str,
) -> String {
    let changes: Vec<String> = change_filters(listeners)
        .into_iter()
        .map(|filter| {
            let mut entry = format!(
                r#"{{"event":{},"schema":{}"#,
                quote(&filter.event),
                quote(&filter.schema)
            );
            if let Some(table) = &filter.table {
                entry.push_str(&format!(r#","table":{}"#, quote(table)));
            }
            if let Some(text) = &filter.filter {
                entry.push_str(&format!(r#","filter":{}"#, quote(text)));
            }
            entry.push('}');
            entry
        })
        .collect();
    // No presence listeners in this client: presence stays off.
    format!(
        r#"{{"config":{{"broadcast":{{"ack":{},"self":{}}},"presence":{{"key":{},"enabled":false}},"postgres_changes":[{}],"private":false}},"access_token":{}}}"#,
        options.broadcast_ack,
        options.broadcast_self,
        quote(&options.presence_key),
        changes.join(","),
        quote(access_token)
    )
}

/// What a join's `phx_reply` means for the channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JoinReply {
    /// Joined; each listener's postgres_changes id as JSON text (by listener index; `None` for
    /// the others).
    Joined { change_ids: Vec<Option<String>> },
    /// Joined, but the server's postgres_changes do not match the listeners': the channel is
    /// left and reports CHANNEL_ERROR with this message.
    Mismatch(String),
    /// Refused (`status: error`), with `Object.values(response).join(', ')`.
    Refused(String),
}

pub const MISMATCH_MESSAGE: &str =
    "mismatch between server and client bindings for postgres changes";

/// Reads the join's reply `{status, response}` against the listeners: entry i of
/// `response.postgres_changes` must match the join's filter i (`event` exactly; `schema`,
/// `table`, `filter` with null as absent), and gives its `id` to every listener with that filter.
pub fn join_reply(payload: &str, listeners: &[Listener]) -> JoinReply {
    let Some(reply) = Entries::parse(payload) else {
        return JoinReply::Refused(payload.to_owned());
    };
    let response = reply.raw("response");
    if reply.string("status").as_deref() != Some("ok") {
        return JoinReply::Refused(response_text(response));
    }
    let mut change_ids = vec![None; listeners.len()];
    let Some(server) = Entries::parse(response).and_then(|r| r.array("postgres_changes")) else {
        return JoinReply::Joined { change_ids };
    };
    let filters = change_filters(listeners);
    for (index, listener) in listeners.iter().enumerate() {
        let Listener::PostgresChanges(filter) = listener else {
            continue;
        };
        let position = filters
            .iter()
            .position(|known| *known == filter)
            .expect("every listener's filter is in the join");
        let entry = server
            .get(position)
            .and_then(|entry| Entries::parse(entry.get()));
        match entry {
            Some(entry) if matches(&entry, filter) => {
                change_ids[index] = entry.get("id").map(|id| id.get().to_owned());
            }
            _ => return JoinReply::Mismatch(MISMATCH_MESSAGE.to_owned()),
        }
    }
    JoinReply::Joined { change_ids }
}

fn matches(entry: &Entries, filter: &ChangeFilter) -> bool {
    entry.string("event").as_deref() == Some(filter.event.as_str())
        && entry.string("schema").as_deref() == Some(filter.schema.as_str())
        && entry.string("table") == filter.table
        && entry.string("filter") == filter.filter
}

/// `Object.values(response).join(', ')`: strings as they are, other values as JSON text.
fn response_text(response: &str) -> String {
    let text = |raw: &RawValue| match raw.get() {
        "null" => String::new(),
        other => as_string(raw).unwrap_or_else(|| other.to_owned()),
    };
    match serde_json::from_str::<Entries>(response) {
        Ok(entries) => entries
            .0
            .iter()
            .map(|(_, raw)| text(raw))
            .collect::<Vec<_>>()
            .join(", "),
        Err(_) => serde_json::from_str::<&RawValue>(response)
            .map(text)
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn value(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    fn changes(event: &str, table: Option<&str>, filter: Option<&str>) -> Listener {
        Listener::PostgresChanges(ChangeFilter {
            event: event.into(),
            schema: "public".into(),
            table: table.map(Into::into),
            filter: filter.map(Into::into),
        })
    }

    #[test]
    fn the_join_carries_the_config_the_filters_once_and_the_token() {
        let listeners = [
            changes("INSERT", Some("geocache_logs"), None),
            Listener::Broadcast { event: "*".into() },
            changes("*", Some("geocache_logs"), Some("id=eq.3")),
            changes("INSERT", Some("geocache_logs"), None),
        ];
        let options = ChannelOptions {
            broadcast_self: true,
            broadcast_ack: true,
            presence_key: "me".into(),
        };
        assert_eq!(
            value(&join_payload(&options, &listeners, "jwt")),
            json!({
                "config": {
                    "broadcast": {"ack": true, "self": true},
                    "presence": {"key": "me", "enabled": false},
                    "postgres_changes": [
                        {"event": "INSERT", "schema": "public", "table": "geocache_logs"},
                        {"event": "*", "schema": "public", "table": "geocache_logs",
                         "filter": "id=eq.3"}
                    ],
                    "private": false
                },
                "access_token": "jwt"
            })
        );
    }

    #[test]
    fn an_ok_reply_gives_each_listener_its_id() {
        let listeners = [
            changes("INSERT", Some("t"), None),
            Listener::System,
            changes("*", None, None),
            changes("INSERT", Some("t"), None),
        ];
        let reply = json!({"status": "ok", "response": {"postgres_changes": [
            {"id": 11, "event": "INSERT", "schema": "public", "table": "t", "filter": null},
            {"id": "22", "event": "*", "schema": "public"}
        ]}});
        assert_eq!(
            join_reply(&reply.to_string(), &listeners),
            JoinReply::Joined {
                change_ids: vec![
                    Some("11".into()),
                    None,
                    Some(r#""22""#.into()),
                    Some("11".into())
                ]
            }
        );
    }

    #[test]
    fn an_ok_reply_without_changes_joins_without_ids() {
        let listeners = [changes("INSERT", Some("t"), None)];
        assert_eq!(
            join_reply(r#"{"status": "ok", "response": {}}"#, &listeners),
            JoinReply::Joined {
                change_ids: vec![None]
            }
        );
    }

    #[test]
    fn a_differing_or_missing_entry_is_a_mismatch() {
        let listeners = [changes("INSERT", Some("t"), None)];
        for server in [
            json!([]),
            json!([{"id": 1, "event": "insert", "schema": "public", "table": "t"}]),
            json!([{"id": 1, "event": "INSERT", "schema": "public", "table": "u"}]),
            json!([{"id": 1, "event": "INSERT", "schema": "public", "table": "t",
                    "filter": "id=eq.1"}]),
        ] {
            let reply = json!({"status": "ok", "response": {"postgres_changes": server}});
            assert_eq!(
                join_reply(&reply.to_string(), &listeners),
                JoinReply::Mismatch(MISMATCH_MESSAGE.into()),
                "{server}"
            );
        }
    }

    #[test]
    fn an_error_reply_joins_the_response_values() {
        let reply = json!({"status": "error",
                           "response": {"reason": "Unauthorized: bad token"}});
        assert_eq!(
            join_reply(&reply.to_string(), &[]),
            JoinReply::Refused("Unauthorized: bad token".into())
        );
    }
}
