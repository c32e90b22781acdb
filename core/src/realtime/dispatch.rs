//! Which listeners a channel message reaches, and with what (realtime-js
//! `RealtimeChannel._trigger`): postgres_changes by the ids the join gave, broadcasts by event,
//! system messages to every system listener.

use serde_json::{json, Map, Value};

use super::columns::convert_record;
use super::join::Listener;

/// One payload for the listeners (by index) it reaches.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub listeners: Vec<usize>,
    pub payload: Value,
}

/// The delivery of a message with `event` and `payload`, or `None` when no listener takes it.
pub fn deliver(
    event: &str,
    payload: &Value,
    listeners: &[Listener],
    change_ids: &[Option<Value>],
) -> Option<Delivery> {
    let reached: Vec<usize> = listeners
        .iter()
        .enumerate()
        .filter(|(index, listener)| match (event, listener) {
            ("postgres_changes", Listener::PostgresChanges(filter)) => {
                let id = change_ids.get(*index).and_then(Option::as_ref);
                let ids = payload.get("ids").and_then(Value::as_array);
                let change_type = payload.pointer("/data/type").and_then(Value::as_str);
                matches!((id, ids), (Some(id), Some(ids)) if ids.contains(id))
                    && change_type.is_some_and(|kind| event_matches(&filter.event, kind))
            }
            ("broadcast", Listener::Broadcast { event: wanted }) => payload
                .get("event")
                .and_then(Value::as_str)
                .is_some_and(|sent| event_matches(wanted, sent)),
            ("system", Listener::System) => true,
            _ => false,
        })
        .map(|(index, _)| index)
        .collect();
    if reached.is_empty() {
        return None;
    }
    let payload = match event {
        "postgres_changes" => change_payload(payload.get("data").unwrap_or(&Value::Null)),
        _ => payload.clone(),
    };
    Some(Delivery {
        listeners: reached,
        payload,
    })
}

/// `*` or the same event, ignoring case.
fn event_matches(wanted: &str, sent: &str) -> bool {
    wanted == "*" || wanted.eq_ignore_ascii_case(sent)
}

/// `{schema, table, commit_timestamp, eventType, new, old, errors}`: `new` is the typed record
/// of an INSERT or UPDATE, `old` the typed old record of an UPDATE or DELETE, else `{}`.
///
/// ```
/// use geocache_core::realtime::change_payload;
/// use serde_json::json;
///
/// let data = json!({
///     "schema": "public", "table": "geocache_logs", "type": "INSERT",
///     "commit_timestamp": "2026-05-01T10:00:00Z", "errors": null,
///     "columns": [{"name": "id", "type": "int8"}],
///     "record": {"id": "7", "name": "Ada"}
/// });
/// assert_eq!(change_payload(&data), json!({
///     "schema": "public", "table": "geocache_logs",
///     "commit_timestamp": "2026-05-01T10:00:00Z", "eventType": "INSERT",
///     "new": {"id": 7, "name": "Ada"}, "old": {}, "errors": null
/// }));
/// ```
pub fn change_payload(data: &Value) -> Value {
    let field = |name: &str| data.get(name).cloned().unwrap_or(Value::Null);
    let change_type = data.get("type").and_then(Value::as_str).unwrap_or_default();
    let columns: Vec<(String, String)> = data
        .get("columns")
        .and_then(Value::as_array)
        .map(|columns| {
            columns
                .iter()
                .filter_map(|column| {
                    let name = column.get("name")?.as_str()?;
                    let column_type = column.get("type")?.as_str()?;
                    Some((name.to_owned(), column_type.to_owned()))
                })
                .collect()
        })
        .unwrap_or_default();
    let typed = |name: &str| match data.get(name) {
        Some(Value::Object(record)) => convert_record(&columns, record),
        _ => Value::Object(Map::new()),
    };
    let empty = || Value::Object(Map::new());
    let new = match change_type {
        "INSERT" | "UPDATE" => typed("record"),
        _ => empty(),
    };
    let old = match change_type {
        "UPDATE" | "DELETE" => typed("old_record"),
        _ => empty(),
    };
    json!({
        "schema": field("schema"),
        "table": field("table"),
        "commit_timestamp": field("commit_timestamp"),
        "eventType": field("type"),
        "new": new,
        "old": old,
        "errors": field("errors"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::realtime::join::ChangeFilter;

    fn changes(event: &str) -> Listener {
        Listener::PostgresChanges(ChangeFilter {
            event: event.into(),
            schema: "public".into(),
            table: Some("geocache_logs".into()),
            filter: None,
        })
    }

    fn change(ids: Value, kind: &str) -> Value {
        json!({"ids": ids, "data": {
            "schema": "public", "table": "geocache_logs", "type": kind,
            "commit_timestamp": "2026-05-01T10:00:00.000Z", "errors": null,
            "columns": [{"name": "id", "type": "int8"}, {"name": "name", "type": "text"}],
            "record": {"id": 5, "name": "Ada"},
            "old_record": {"id": "4"}
        }})
    }

    #[test]
    fn changes_reach_listeners_by_id_and_event() {
        let listeners = [
            changes("INSERT"),
            changes("*"),
            changes("delete"),
            Listener::System,
        ];
        let ids = [Some(json!(1)), Some(json!(2)), Some(json!(3)), None];
        let delivery = deliver(
            "postgres_changes",
            &change(json!([1, 2, 3]), "INSERT"),
            &listeners,
            &ids,
        )
        .unwrap();
        assert_eq!(delivery.listeners, [0, 1]);
        assert_eq!(delivery.payload["eventType"], "INSERT");
        assert_eq!(delivery.payload["new"], json!({"id": 5, "name": "Ada"}));
        assert_eq!(delivery.payload["old"], json!({}));

        let delivery = deliver(
            "postgres_changes",
            &change(json!([3]), "DELETE"),
            &listeners,
            &ids,
        )
        .unwrap();
        assert_eq!(delivery.listeners, [2]);
        assert_eq!(delivery.payload["new"], json!({}));
        assert_eq!(delivery.payload["old"], json!({"id": 4}));
    }

    #[test]
    fn ids_compare_with_their_json_type() {
        let listeners = [changes("*")];
        let ids = [Some(json!(1))];
        assert_eq!(
            deliver(
                "postgres_changes",
                &change(json!(["1"]), "INSERT"),
                &listeners,
                &ids
            ),
            None
        );
        assert_eq!(
            deliver(
                "postgres_changes",
                &change(json!([1]), "INSERT"),
                &listeners,
                &[None]
            ),
            None
        );
    }

    #[test]
    fn updates_carry_new_and_old() {
        let payload = change_payload(&change(json!([1]), "UPDATE")["data"]);
        assert_eq!(payload["new"]["id"], 5);
        assert_eq!(payload["old"]["id"], 4);
        assert_eq!(payload["commit_timestamp"], "2026-05-01T10:00:00.000Z");
        assert_eq!(payload["errors"], Value::Null);
    }

    #[test]
    fn broadcasts_reach_star_and_their_event() {
        let listeners = [
            Listener::Broadcast { event: "*".into() },
            Listener::Broadcast {
                event: "Cursor".into(),
            },
            Listener::Broadcast {
                event: "other".into(),
            },
        ];
        let payload = json!({"type": "broadcast", "event": "cursor", "payload": {"x": 1}});
        let delivery = deliver("broadcast", &payload, &listeners, &[None, None, None]).unwrap();
        assert_eq!(delivery.listeners, [0, 1]);
        assert_eq!(delivery.payload, payload);
    }

    #[test]
    fn system_messages_reach_every_system_listener() {
        let listeners = [Listener::System, changes("*"), Listener::System];
        let payload = json!({"extension": "postgres_changes", "status": "ok",
                             "message": "Subscribed to PostgreSQL", "channel": "room"});
        let delivery = deliver("system", &payload, &listeners, &[None, None, None]).unwrap();
        assert_eq!(delivery.listeners, [0, 2]);
        assert_eq!(delivery.payload, payload);
        assert_eq!(
            deliver("presence_diff", &payload, &listeners, &[None, None, None]),
            None
        );
    }
}
