//! Which listeners a channel message reaches, and with what (realtime-js
//! `RealtimeChannel._trigger`): postgres_changes by the ids the join gave, broadcasts by event,
//! system messages to every system listener. Payloads stay JSON text.

use super::columns::convert_record;
use super::join::Listener;
use super::json_text::Entries;

/// One payload (JSON text) for the listeners (by index) it reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub listeners: Vec<usize>,
    pub payload: String,
}

/// The delivery of a message with `event` and `payload`, or `None` when no listener takes it
/// (or the payload is not the shape its event has).
pub fn deliver(
    event: &str,
    payload: &str,
    listeners: &[Listener],
    change_ids: &[Option<String>],
) -> Option<Delivery> {
    let (reached, payload): (Vec<usize>, String) = match event {
        "postgres_changes" => {
            let change = Entries::parse(payload)?;
            let ids = change.array("ids").unwrap_or_default();
            let data = change.object("data")?;
            let change_type = data.string("type").unwrap_or_default();
            let reached = indices(listeners, |index, listener| match listener {
                Listener::PostgresChanges(filter) => {
                    let id = change_ids.get(index).and_then(Option::as_deref);
                    id.is_some_and(|id| ids.iter().any(|sent| sent.get() == id))
                        && event_matches(&filter.event, &change_type)
                }
                _ => false,
            });
            if reached.is_empty() {
                return None;
            }
            (reached, change_payload(&data, &change_type))
        }
        "broadcast" => {
            let sent = Entries::parse(payload)?.string("event")?;
            let reached = indices(
                listeners,
                |_, listener| matches!(listener, Listener::Broadcast { event } if event_matches(event, &sent)),
            );
            (reached, payload.to_owned())
        }
        "system" => (
            indices(listeners, |_, listener| *listener == Listener::System),
            payload.to_owned(),
        ),
        _ => return None,
    };
    (!reached.is_empty()).then_some(Delivery {
        listeners: reached,
        payload,
    })
}

fn indices(
    listeners: &[Listener],
    mut reaches: impl FnMut(usize, &Listener) -> bool,
) -> Vec<usize> {
    (0..listeners.len())
        .filter(|index| reaches(*index, &listeners[*index]))
        .collect()
}

/// `*` or the same event, ignoring case.
fn event_matches(wanted: &str, sent: &str) -> bool {
    wanted == "*" || wanted.eq_ignore_ascii_case(sent)
}

/// `{schema, table, commit_timestamp, eventType, new, old, errors}` (JSON text): `new` is the
/// typed record of an INSERT or UPDATE, `old` the typed old record of an UPDATE or DELETE, else
/// `{}`.
fn change_payload(data: &Entries, kind: &str) -> String {
    let columns: Vec<(String, String)> = data
        .array("columns")
        .unwrap_or_default()
        .into_iter()
        .filter_map(|column| {
            let column = Entries::parse(column.get())?;
            Some((column.string("name")?, column.string("type")?))
        })
        .collect();
    let typed = |key: &str| match data.object(key) {
        Some(record) => convert_record(&columns, &record),
        None => "{}".to_owned(),
    };
    let new = match kind {
        "INSERT" | "UPDATE" => typed("record"),
        _ => "{}".to_owned(),
    };
    let old = match kind {
        "UPDATE" | "DELETE" => typed("old_record"),
        _ => "{}".to_owned(),
    };
    format!(
        r#"{{"schema":{},"table":{},"commit_timestamp":{},"eventType":{},"new":{new},"old":{old},"errors":{}}}"#,
        data.raw("schema"),
        data.raw("table"),
        data.raw("commit_timestamp"),
        data.raw("type"),
        data.raw("errors"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::realtime::join::ChangeFilter;
    use serde_json::{json, Value};

    fn value(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    fn changes(event: &str) -> Listener {
        Listener::PostgresChanges(ChangeFilter {
            event: event.into(),
            schema: "public".into(),
            table: Some("geocache_logs".into()),
            filter: None,
        })
    }

    fn change(ids: Value, kind: &str) -> String {
        json!({"ids": ids, "data": {
            "schema": "public", "table": "geocache_logs", "type": kind,
            "commit_timestamp": "2026-05-01T10:00:00.000Z", "errors": null,
            "columns": [{"name": "id", "type": "int8"}, {"name": "name", "type": "text"}],
            "record": {"id": 5, "name": "Ada"},
            "old_record": {"id": "4"}
        }})
        .to_string()
    }

    fn ids(ids: &[Option<&str>]) -> Vec<Option<String>> {
        ids.iter().map(|id| id.map(str::to_owned)).collect()
    }

    #[test]
    fn changes_reach_listeners_by_id_and_event() {
        let listeners = [
            changes("INSERT"),
            changes("*"),
            changes("delete"),
            Listener::System,
        ];
        let ids = ids(&[Some("1"), Some("2"), Some("3"), None]);
        let delivery = deliver(
            "postgres_changes",
            &change(json!([1, 2, 3]), "INSERT"),
            &listeners,
            &ids,
        )
        .unwrap();
        assert_eq!(delivery.listeners, [0, 1]);
        assert_eq!(
            value(&delivery.payload),
            json!({"schema": "public", "table": "geocache_logs",
                   "commit_timestamp": "2026-05-01T10:00:00.000Z", "eventType": "INSERT",
                   "new": {"id": 5, "name": "Ada"}, "old": {}, "errors": null})
        );
        let delivery = deliver(
            "postgres_changes",
            &change(json!([3]), "DELETE"),
            &listeners,
            &ids,
        )
        .unwrap();
        assert_eq!(delivery.listeners, [2]);
        let payload = value(&delivery.payload);
        assert_eq!(payload["new"], json!({}));
        assert_eq!(payload["old"], json!({"id": 4}));
    }

    #[test]
    fn ids_compare_with_their_json_type() {
        let listeners = [changes("*")];
        let one = ids(&[Some("1")]);
        assert_eq!(
            deliver(
                "postgres_changes",
                &change(json!(["1"]), "INSERT"),
                &listeners,
                &one
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
        assert_eq!(deliver("postgres_changes", "{}", &listeners, &one), None);
    }

    #[test]
    fn updates_carry_new_and_old() {
        let listeners = [changes("UPDATE")];
        let delivery = deliver(
            "postgres_changes",
            &change(json!([1]), "UPDATE"),
            &listeners,
            &ids(&[Some("1")]),
        )
        .unwrap();
        let payload = value(&delivery.payload);
        assert_eq!(payload["new"]["id"], 5);
        assert_eq!(payload["old"]["id"], 4);
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
        let payload = r#"{"type":"broadcast","event":"cursor","payload":{"x":1}}"#;
        let delivery = deliver("broadcast", payload, &listeners, &[None, None, None]).unwrap();
        assert_eq!(delivery.listeners, [0, 1]);
        assert_eq!(delivery.payload, payload);
    }

    #[test]
    fn system_messages_reach_every_system_listener() {
        let listeners = [Listener::System, changes("*"), Listener::System];
        let payload = r#"{"extension":"postgres_changes","status":"ok","message":"Subscribed to PostgreSQL"}"#;
        let delivery = deliver("system", payload, &listeners, &[None, None, None]).unwrap();
        assert_eq!(delivery.listeners, [0, 2]);
        assert_eq!(delivery.payload, payload);
        assert_eq!(
            deliver("presence_diff", payload, &listeners, &[None, None, None]),
            None
        );
    }
}
