//! A committed change to `geocache_logs` and the `postgres_changes` data Realtime sends for it:
//! `{schema, table, commit_timestamp, type, columns, record?, old_record?, errors}`.
//!
//! As hosted Realtime on a table with row-level security and the default replica identity:
//! an INSERT has `record`, an UPDATE `record` and `old_record` holding the primary key only (all
//! the write-ahead log carries of the old row), a DELETE `old_record` with the primary key only.

use crate::keys::Role;
use crate::read_access::{ReadAccess, Readable};
use crate::table::{Column, ColumnType, Row, DB_SCHEMA, TABLE};
use serde_json::{json, Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Insert,
    Update,
    Delete,
}

impl ChangeKind {
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Insert => "INSERT",
            ChangeKind::Update => "UPDATE",
            ChangeKind::Delete => "DELETE",
        }
    }
}

/// One row's change as committed. For a DELETE, `row` is the row as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub kind: ChangeKind,
    pub row: Row,
    /// The transaction's time, microseconds since the Unix epoch.
    pub committed_at: i64,
}

impl Change {
    /// Who receives the change: an INSERT or UPDATE only a role whose REST read would return the
    /// row (the table's [`ReadAccess`]), a DELETE every subscriber, since the deleted row can no
    /// longer be checked against a policy and carries only its key.
    pub fn visible_to(&self, role: Role, access: ReadAccess) -> bool {
        match self.kind {
            ChangeKind::Delete => true,
            ChangeKind::Insert | ChangeKind::Update => access.readable(role) == Readable::EveryRow,
        }
    }

    /// The `data` object of a `postgres_changes` message.
    pub fn data(&self) -> Value {
        let mut data = Map::new();
        data.insert("schema".into(), DB_SCHEMA.into());
        data.insert("table".into(), TABLE.into());
        data.insert(
            "commit_timestamp".into(),
            commit_timestamp(self.committed_at).into(),
        );
        data.insert("type".into(), self.kind.name().into());
        data.insert(
            "columns".into(),
            Column::ALL
                .iter()
                .map(|column| json!({"name": column.name(), "type": pg_type(*column)}))
                .collect(),
        );
        let key = json!({"id": self.row.id});
        match self.kind {
            ChangeKind::Insert => {
                data.insert("record".into(), record(&self.row));
            }
            ChangeKind::Update => {
                data.insert("record".into(), record(&self.row));
                data.insert("old_record".into(), key);
            }
            ChangeKind::Delete => {
                data.insert("old_record".into(), key);
            }
        }
        data.insert("errors".into(), Value::Null);
        Value::Object(data)
    }
}

fn record(row: &Row) -> Value {
    Value::Object(
        Column::ALL
            .iter()
            .map(|column| (column.name().to_owned(), row.json(*column)))
            .collect(),
    )
}

fn pg_type(column: Column) -> &'static str {
    match column.column_type() {
        ColumnType::Bigint => "int8",
        ColumnType::Timestamptz => "timestamptz",
        ColumnType::Text => "text",
    }
}

/// Realtime's `commit_timestamp`: UTC, milliseconds, `Z`.
fn commit_timestamp(micros: i64) -> String {
    chrono::DateTime::from_timestamp_micros(micros)
        .map(|time| time.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(kind: ChangeKind) -> Change {
        Change {
            kind,
            row: Row {
                id: 7,
                created_at: 1_700_000_000_123_456,
                name: "ann".into(),
                message: "found it".into(),
            },
            committed_at: 1_700_000_000_123_456,
        }
    }

    #[test]
    fn inserts_carry_the_row_with_typed_columns() {
        let data = change(ChangeKind::Insert).data();
        assert_eq!(
            data,
            json!({
                "schema": "public",
                "table": "geocache_logs",
                "commit_timestamp": "2023-11-14T22:13:20.123Z",
                "type": "INSERT",
                "columns": [
                    {"name": "id", "type": "int8"},
                    {"name": "created_at", "type": "timestamptz"},
                    {"name": "name", "type": "text"},
                    {"name": "message", "type": "text"},
                ],
                "record": {
                    "id": 7,
                    "created_at": "2023-11-14T22:13:20.123456+00:00",
                    "name": "ann",
                    "message": "found it",
                },
                "errors": null,
            })
        );
    }

    #[test]
    fn inserts_and_updates_reach_only_roles_that_may_read_the_row_and_deletes_reach_all() {
        let migration = ReadAccess::default();
        let no_anon = migration.revoke_select(Role::Anon);
        let no_policy = migration.without_select_policy_for(Role::Authenticated);
        for kind in [ChangeKind::Insert, ChangeKind::Update] {
            let change = change(kind);
            assert!(change.visible_to(Role::Anon, migration));
            assert!(!change.visible_to(Role::Anon, no_anon), "{kind:?}");
            assert!(change.visible_to(Role::Authenticated, no_anon));
            assert!(
                !change.visible_to(Role::Authenticated, no_policy),
                "{kind:?}"
            );
            assert!(change.visible_to(Role::ServiceRole, no_policy));
        }
        let delete = change(ChangeKind::Delete);
        for access in [migration, no_anon, no_policy] {
            assert!(delete.visible_to(Role::Anon, access));
            assert!(delete.visible_to(Role::Authenticated, access));
        }
    }

    #[test]
    fn updates_and_deletes_carry_only_the_old_key() {
        let update = change(ChangeKind::Update).data();
        assert_eq!(update["old_record"], json!({"id": 7}));
        assert_eq!(update["record"]["name"], "ann");
        let delete = change(ChangeKind::Delete).data();
        assert_eq!(delete["old_record"], json!({"id": 7}));
        assert_eq!(delete.get("record"), None);
        assert_eq!(delete["type"], "DELETE");
    }
}
