//! The postgres_changes entries of a `phx_join`'s `config`: each is echoed in the join reply with
//! an `id`, and a change is sent to a channel with the ids of the entries it matches.
//!
//! The id is a number derived from the entry's parameters alone, so the same entry gets the same
//! id on every join and every server (hosted Realtime hashes them too), and it is a JSON number
//! in the reply and in `ids` alike: supabase-js matches them with `includes`.

use crate::realtime::change::{Change, ChangeKind};
use crate::realtime::filter::Filter;
use crate::table::{DB_SCHEMA, TABLE};
use serde_json::{Map, Value};

/// An entry the server subscribed.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub id: u32,
    /// `None` for `*`.
    pub kind: Option<ChangeKind>,
    pub filter: Option<Filter>,
}

/// One entry of the config: what the join reply echoes, and the subscription or why it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Requested {
    pub reply: Value,
    pub outcome: Result<Binding, String>,
}

impl Binding {
    /// Whether the change goes to this entry. Filters apply to INSERT and UPDATE; a DELETE
    /// carries only the key, so it reaches every DELETE entry on the table, filtered or not.
    pub fn matches(&self, change: &Change) -> bool {
        if self.kind.is_some_and(|kind| kind != change.kind) {
            return false;
        }
        match (&self.filter, change.kind) {
            (_, ChangeKind::Delete) | (None, _) => true,
            (Some(filter), _) => filter.matches(&change.row),
        }
    }
}

/// Reads `config.postgres_changes`; a non-list is read as none.
pub fn requested(config: &Value) -> Vec<Requested> {
    config
        .get("postgres_changes")
        .and_then(Value::as_array)
        .map(|entries| entries.iter().map(request).collect())
        .unwrap_or_default()
}

fn request(entry: &Value) -> Requested {
    let text = |key: &str| entry.get(key).and_then(Value::as_str);
    let (event, schema, table, filter) =
        (text("event"), text("schema"), text("table"), text("filter"));
    let id = entry_id(event, schema, table, filter);
    let mut reply = Map::new();
    reply.insert("id".into(), id.into());
    for (key, value) in [
        ("event", event),
        ("schema", schema),
        ("table", table),
        ("filter", filter),
    ] {
        if let Some(value) = value {
            reply.insert(key.into(), value.into());
        }
    }
    Requested {
        reply: Value::Object(reply),
        outcome: subscribe(id, event, schema, table, filter),
    }
}

fn subscribe(
    id: u32,
    event: Option<&str>,
    schema: Option<&str>,
    table: Option<&str>,
    filter: Option<&str>,
) -> Result<Binding, String> {
    let kind = match event.map(str::to_ascii_uppercase).as_deref() {
        Some("*") => None,
        Some("INSERT") => Some(ChangeKind::Insert),
        Some("UPDATE") => Some(ChangeKind::Update),
        Some("DELETE") => Some(ChangeKind::Delete),
        _ => {
            return Err(format!(
                "Error parsing `event` params: {}",
                event.unwrap_or("")
            ))
        }
    };
    // Only `public.geocache_logs` is in the `supabase_realtime` publication.
    let published = schema == Some(DB_SCHEMA) && matches!(table, None | Some("*") | Some(TABLE));
    if !published {
        return Err(format!(
            "Unable to subscribe to changes with given parameters. Please check Realtime is \
             enabled for the given connect parameters: [schema: {}, table: {}, filters: [{}]]",
            schema.unwrap_or(""),
            table.unwrap_or("*"),
            filter.unwrap_or("")
        ));
    }
    let filter = filter
        .filter(|text| !text.is_empty())
        .map(Filter::parse)
        .transpose()
        .map_err(|error| error.0)?;
    Ok(Binding { id, kind, filter })
}

/// FNV-1a over the entry's parameters, kept within 27 bits as Erlang's `phash2` is.
fn entry_id(
    event: Option<&str>,
    schema: Option<&str>,
    table: Option<&str>,
    filter: Option<&str>,
) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for part in [event, schema, table, filter] {
        for byte in part.unwrap_or("\u{0}").bytes().chain([0xff]) {
            hash ^= u32::from(byte);
            hash = hash.wrapping_mul(0x0100_0193);
        }
    }
    hash & ((1 << 27) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Row;
    use serde_json::json;

    fn change(kind: ChangeKind, id: i64) -> Change {
        Change {
            kind,
            row: Row {
                id,
                created_at: 0,
                name: "n".into(),
                message: "m".into(),
            },
            committed_at: 0,
        }
    }

    #[test]
    fn replies_echo_the_entry_with_a_stable_numeric_id() {
        let config = json!({"postgres_changes": [
            {"event": "INSERT", "schema": "public", "table": "geocache_logs"},
            {"event": "*", "schema": "public", "table": "geocache_logs", "filter": "id=eq.1"},
        ]});
        let first = requested(&config);
        let again = requested(&config);
        assert_eq!(first, again);
        assert_eq!(first[0].reply["event"], "INSERT");
        assert_eq!(first[0].reply.get("filter"), None);
        assert!(first[0].reply["id"].is_u64());
        assert_ne!(first[0].reply["id"], first[1].reply["id"]);
        assert_eq!(first[1].reply["filter"], "id=eq.1");
    }

    #[test]
    fn only_the_published_table_subscribes() {
        let outcome = |entry: Value| request(&entry).outcome;
        assert!(outcome(json!({"event": "*", "schema": "public"})).is_ok());
        assert!(
            outcome(json!({"event": "*", "schema": "public", "table": "other"}))
                .unwrap_err()
                .starts_with("Unable to subscribe to changes")
        );
        assert!(
            outcome(json!({"event": "*", "schema": "auth", "table": "geocache_logs"})).is_err()
        );
        assert_eq!(
            outcome(json!({"event": "TRUNCATE", "schema": "public"})).unwrap_err(),
            "Error parsing `event` params: TRUNCATE"
        );
        assert_eq!(
            outcome(json!({"event": "*", "schema": "public", "filter": "id=zz.1"})).unwrap_err(),
            "Error parsing `filter` params: id=zz.1"
        );
    }

    #[test]
    fn events_and_filters_select_changes_but_deletes_ignore_filters() {
        let binding = |entry: Value| request(&entry).outcome.unwrap();
        let inserts = binding(json!({"event": "insert", "schema": "public"}));
        assert!(inserts.matches(&change(ChangeKind::Insert, 1)));
        assert!(!inserts.matches(&change(ChangeKind::Update, 1)));
        let filtered = binding(json!({"event": "*", "schema": "public", "filter": "id=eq.2"}));
        assert!(!filtered.matches(&change(ChangeKind::Insert, 1)));
        assert!(filtered.matches(&change(ChangeKind::Update, 2)));
        assert!(filtered.matches(&change(ChangeKind::Delete, 1)));
    }
}
