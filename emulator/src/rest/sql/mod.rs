//! Turns a plan into SQLite statements. The SQL text is built only from constants and
//! `Column::sql()` identifiers; every value from a request is a bound `?` parameter.

use crate::rest::plan::{Condition, Ordering, Plan, Predicate};
use crate::rest::query::{CompareOp, Direction, LogicOperator, Nulls};
use crate::table::{Column, Relation, Row, SqlValue};

mod implied_bounds;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub sql: String,
    pub params: Vec<SqlValue>,
}

/// `SELECT` of whole rows of the plan's relation (the projection happens when rendering JSON).
pub fn select(plan: &Plan) -> Statement {
    let relation = plan.relation;
    let mut params = Vec::new();
    let mut sql = format!(
        "SELECT {} FROM {}",
        relation.sql_columns(),
        relation.sql_table()
    );
    sql.push_str(&where_clause(&plan.conditions, &mut params));
    sql.push_str(&order_clause(relation, &plan.ordering));
    sql.push_str(&limit_clause(plan.limit, plan.offset, &mut params));
    Statement { sql, params }
}

/// The number of rows the filters match, ignoring limit and offset (`Prefer: count=exact`).
pub fn count(relation: Relation, conditions: &[Condition]) -> Statement {
    let mut params = Vec::new();
    let mut sql = format!("SELECT count(*) FROM {}", relation.sql_table());
    sql.push_str(&where_clause(conditions, &mut params));
    Statement { sql, params }
}

/// `UPDATE ... SET ... RETURNING` the updated rows.
pub fn update(assignments: &[(Column, SqlValue)], plan: &Plan) -> Statement {
    let mut params = Vec::new();
    let set: Vec<String> = assignments
        .iter()
        .map(|(column, value)| {
            params.push(value.clone());
            format!("{} = ?", column.sql())
        })
        .collect();
    let mut sql = format!("UPDATE geocache_logs SET {}", set.join(", "));
    sql.push_str(&mutation_target(plan, &mut params));
    sql.push_str(&format!(" RETURNING {}", Row::SQL_COLUMNS));
    Statement { sql, params }
}

/// `DELETE ... RETURNING` the deleted rows.
pub fn delete(plan: &Plan) -> Statement {
    let mut params = Vec::new();
    let mut sql = "DELETE FROM geocache_logs".to_owned();
    sql.push_str(&mutation_target(plan, &mut params));
    sql.push_str(&format!(" RETURNING {}", Row::SQL_COLUMNS));
    Statement { sql, params }
}

/// The rows a PATCH/DELETE touches: the filters, narrowed by `order`/`limit`/`offset` when given
/// (PostgREST's limited update/delete).
fn mutation_target(plan: &Plan, params: &mut Vec<SqlValue>) -> String {
    if plan.limit.is_none() && plan.offset == 0 {
        return where_clause(&plan.conditions, params);
    }
    let mut sql = " WHERE \"id\" IN (SELECT \"id\" FROM geocache_logs".to_owned();
    sql.push_str(&where_clause(&plan.conditions, params));
    sql.push_str(&order_clause(Relation::Logs, &plan.ordering));
    sql.push_str(&limit_clause(plan.limit, plan.offset, params));
    sql.push(')');
    sql
}

/// The conditions, then the range bounds their `or`s imply (redundant, so the result is the
/// same; they let SQLite read a keyset page as an index range).
fn where_clause(conditions: &[Condition], params: &mut Vec<SqlValue>) -> String {
    if conditions.is_empty() {
        return String::new();
    }
    let bounds = implied_bounds::implied_bounds(conditions);
    let terms: Vec<String> = conditions
        .iter()
        .chain(&bounds)
        .map(|condition| condition_sql(condition, params))
        .collect();
    format!(" WHERE {}", terms.join(" AND "))
}

fn condition_sql(condition: &Condition, params: &mut Vec<SqlValue>) -> String {
    let (negated, sql) = match condition {
        Condition::Test {
            column,
            negated,
            predicate,
        } => (*negated, predicate_sql(*column, predicate, params)),
        Condition::Logic {
            negated,
            operator,
            operands,
        } => {
            let joiner = match operator {
                LogicOperator::And => " AND ",
                LogicOperator::Or => " OR ",
            };
            let terms: Vec<String> = operands
                .iter()
                .map(|operand| condition_sql(operand, params))
                .collect();
            (*negated, format!("({})", terms.join(joiner)))
        }
    };
    if negated {
        format!("NOT ({sql})")
    } else {
        sql
    }
}

fn predicate_sql(column: Column, predicate: &Predicate, params: &mut Vec<SqlValue>) -> String {
    let column = column.sql();
    match predicate {
        Predicate::Compare(op, value) => {
            params.push(value.clone());
            let operator = match op {
                CompareOp::Eq => "=",
                CompareOp::Neq => "<>",
                CompareOp::Gt => ">",
                CompareOp::Gte => ">=",
                CompareOp::Lt => "<",
                CompareOp::Lte => "<=",
            };
            format!("{column} {operator} ?")
        }
        Predicate::IsDistinct(value) => {
            params.push(value.clone());
            format!("{column} IS NOT ?")
        }
        Predicate::In(values) => {
            params.extend(values.iter().cloned());
            let marks = vec!["?"; values.len()].join(", ");
            format!("{column} IN ({marks})")
        }
        Predicate::IsNull => format!("{column} IS NULL"),
        Predicate::IsNotNull => format!("{column} IS NOT NULL"),
    }
}

/// The requested order, then the relation's key (`id`, or `seq`) as a tiebreak so equal
/// timestamps come out in a stable order: in the direction of the first term on its time column
/// (so "newest first" puts the later insert first), ascending otherwise. Without `order`, rows
/// come in insertion order, as a fresh PostgreSQL heap returns them; removed entries come as
/// `removed_geocache_logs()` returns them, most recently removed first.
fn order_clause(relation: Relation, ordering: &[Ordering]) -> String {
    let removed_first = [
        Ordering {
            column: Column::RemovedAt,
            direction: Direction::Desc,
            nulls: Nulls::First,
        },
        Ordering {
            column: Column::Id,
            direction: Direction::Desc,
            nulls: Nulls::First,
        },
    ];
    let ordering = if ordering.is_empty() && relation == Relation::Removed {
        &removed_first[..]
    } else {
        ordering
    };
    let mut terms: Vec<String> = ordering
        .iter()
        .map(|term| {
            let column = term.column.sql();
            let direction = direction_sql(term.direction);
            if holds_null(term.column) {
                let nulls = match term.nulls {
                    Nulls::First => "NULLS FIRST",
                    Nulls::Last => "NULLS LAST",
                };
                format!("{column} {direction} {nulls}")
            } else {
                // Where NULLs would go changes nothing here, and SQLite reads an index in order
                // only for its own placement: `id DESC NULLS FIRST` after `created_at` would
                // sort every page in a temporary b-tree.
                format!("{column} {direction}")
            }
        })
        .collect();
    let tiebreak = ordering
        .iter()
        .find(|term| term.column == relation.time_column())
        .map_or(Direction::Asc, |term| term.direction);
    terms.push(format!(
        "{} {}",
        relation.key().sql(),
        direction_sql(tiebreak)
    ));
    format!(" ORDER BY {}", terms.join(", "))
}

/// Whether the column can hold NULL: none can, the keys being rowids and the others `NOT NULL`
/// in the emulator's schema ([`crate::rest::schema::migrate`]).
fn holds_null(column: Column) -> bool {
    match column {
        Column::Id
        | Column::CreatedAt
        | Column::Name
        | Column::Message
        | Column::RemovedAt
        | Column::Seq
        | Column::EntryId
        | Column::Change
        | Column::ChangedAt => false,
    }
}

fn direction_sql(direction: Direction) -> &'static str {
    match direction {
        Direction::Asc => "ASC",
        Direction::Desc => "DESC",
    }
}

fn limit_clause(limit: Option<i64>, offset: i64, params: &mut Vec<SqlValue>) -> String {
    if limit.is_none() && offset == 0 {
        return String::new();
    }
    // SQLite needs a LIMIT before OFFSET; -1 means "no limit".
    params.push(SqlValue::Integer(limit.unwrap_or(-1)));
    params.push(SqlValue::Integer(offset));
    " LIMIT ? OFFSET ?".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::{plan, query};

    fn statement(raw: &str) -> Statement {
        select(&plan::plan(&query::parse(Some(raw)).unwrap()).unwrap())
    }

    #[test]
    fn values_are_parameters_and_identifiers_are_constants() {
        let statement =
            statement("name=eq.x'; drop table geocache_logs; --&id=gte.3&limit=2&offset=1");
        assert_eq!(
            statement.sql,
            "SELECT \"id\", \"created_at\", \"name\", \"message\" FROM geocache_logs \
             WHERE \"name\" = ? AND \"id\" >= ? ORDER BY \"id\" ASC LIMIT ? OFFSET ?"
        );
        assert_eq!(
            statement.params,
            [
                SqlValue::Text("x'; drop table geocache_logs; --".into()),
                SqlValue::Integer(3),
                SqlValue::Integer(2),
                SqlValue::Integer(1),
            ]
        );
    }

    #[test]
    fn newest_first_breaks_ties_by_descending_id() {
        assert_eq!(
            statement("order=created_at.desc").sql,
            "SELECT \"id\", \"created_at\", \"name\", \"message\" FROM geocache_logs \
             ORDER BY \"created_at\" DESC, \"id\" DESC"
        );
    }

    #[test]
    fn negation_in_lists_and_null_tests() {
        let statement = statement("id=not.in.(1,2)&name=is.null&message=not.isdistinct.m");
        assert!(statement.sql.contains(
            "WHERE NOT (\"id\" IN (?, ?)) AND \"name\" IS NULL AND NOT (\"message\" IS NOT ?)"
        ));
        assert_eq!(statement.params.len(), 3);
    }

    #[test]
    fn logic_trees_nest_in_parentheses_with_bound_values() {
        let statement = statement(
            "id=gt.0&or=(created_at.lt.%222024-05-01T00:00:00Z%22,and(created_at.eq.%222024-05-01T00:00:00Z%22,id.lt.7))&not.and=(name.eq.x'--,message.is.null)",
        );
        assert!(
            statement.sql.contains(
                "WHERE \"id\" > ? AND (\"created_at\" < ? OR (\"created_at\" = ? AND \"id\" < ?)) \
                 AND NOT ((\"name\" = ? AND \"message\" IS NULL)) AND \"created_at\" <= ? ORDER BY"
            ),
            "{}",
            statement.sql
        );
        assert_eq!(
            statement.params,
            [
                SqlValue::Integer(0),
                SqlValue::Integer(1_714_521_600_000_000),
                SqlValue::Integer(1_714_521_600_000_000),
                SqlValue::Integer(7),
                SqlValue::Text("x'--".into()),
                // The bound the `or` implies, after every filter.
                SqlValue::Integer(1_714_521_600_000_000),
            ]
        );
    }

    /// SQLite's plan for `statement`, one line per step.
    fn query_plan(statement: &Statement) -> Vec<String> {
        let connection = rusqlite::Connection::open_in_memory().unwrap();
        crate::rest::schema::migrate(&connection).unwrap();
        let mut explain = connection
            .prepare(&format!("EXPLAIN QUERY PLAN {}", statement.sql))
            .unwrap();
        explain
            .query_map(rusqlite::params_from_iter(&statement.params), |row| {
                row.get(3)
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn keyset_pages_read_an_index_range_in_order() {
        for (raw, range) in [
            (
                "order=created_at.desc,id.desc&limit=1000&or=(created_at.lt.%222024-05-01T00:00:00Z%22,and(created_at.eq.%222024-05-01T00:00:00Z%22,id.lt.7))",
                "(created_at<?)",
            ),
            (
                "order=created_at.asc,id.asc&limit=1000&or=(created_at.gt.%222024-05-01T02:00:00%2B02:00%22,and(created_at.eq.%222024-05-01T02:00:00%2B02:00%22,id.gt.7))",
                "(created_at>?)",
            ),
        ] {
            assert_eq!(
                query_plan(&statement(raw)),
                [format!(
                    "SEARCH geocache_logs USING INDEX geocache_logs_created_at {range}"
                )],
                "{raw}"
            );
        }
        // Counting a keyset page's rows is an index range as well.
        let plan = plan::plan(
            &query::parse(Some(
                "or=(created_at.lt.%222024-05-01T00:00:00Z%22,and(created_at.eq.%222024-05-01T00:00:00Z%22,id.lt.7))",
            ))
            .unwrap(),
        )
        .unwrap();
        assert_eq!(
            query_plan(&count(Relation::Logs, &plan.conditions)),
            ["SEARCH geocache_logs USING COVERING INDEX geocache_logs_created_at (created_at<?)"]
        );
    }

    #[test]
    fn null_placement_is_left_out_exactly_for_the_not_null_columns() {
        let connection = rusqlite::Connection::open_in_memory().unwrap();
        crate::rest::schema::migrate(&connection).unwrap();
        for column in Column::ALL {
            let not_null: bool = connection
                .query_row(
                    // `id`, the rowid, cannot be NULL either.
                    "SELECT \"notnull\" OR \"pk\" FROM pragma_table_info('geocache_logs') WHERE name = ?",
                    [column.name()],
                    |row| row.get(0),
                )
                .unwrap();
            assert_eq!(holds_null(column), !not_null, "{}", column.name());
        }
    }

    #[test]
    fn offset_without_limit_uses_sqlite_unbounded_limit() {
        let statement = statement("offset=5");
        assert!(statement.sql.ends_with(" LIMIT ? OFFSET ?"));
        assert_eq!(
            statement.params,
            [SqlValue::Integer(-1), SqlValue::Integer(5)]
        );
    }

    #[test]
    fn limited_mutations_select_their_targets_by_id() {
        let plan =
            plan::plan(&query::parse(Some("name=eq.a&order=id.desc&limit=1")).unwrap()).unwrap();
        let statement = delete(&plan);
        assert_eq!(
            statement.sql,
            "DELETE FROM geocache_logs WHERE \"id\" IN (SELECT \"id\" FROM geocache_logs \
             WHERE \"name\" = ? ORDER BY \"id\" DESC, \"id\" ASC LIMIT ? OFFSET ?) \
             RETURNING \"id\", \"created_at\", \"name\", \"message\""
        );
    }
}
