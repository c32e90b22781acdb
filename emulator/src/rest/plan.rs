//! Resolves a parsed query against a relation (`geocache_logs` unless said otherwise): names become
//! `Column`s of that relation (PostgreSQL's 42703 for unknown ones), literal texts become typed values (22P02/22007 for malformed ones), and
//! PostgREST features the emulator does not implement are refused here (PGRST127).

use crate::rest::error::RestError;
use crate::rest::query::{
    CompareOp, Direction, Filter, LogicOperator, LogicTree, Nulls, Operation, OrderTerm,
    QueryParams, SelectItem,
};
use crate::table::{Column, Relation, SqlValue};

/// The output keys, in order, and the column each one shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projection(pub Vec<(String, Column)>);

/// One term of the WHERE clause; the terms of a plan must all hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// `column=[not.]operator.value`, alone or inside a logic tree.
    Test {
        column: Column,
        negated: bool,
        predicate: Predicate,
    },
    /// `[not.]and(...)` / `[not.]or(...)`: never empty.
    Logic {
        negated: bool,
        operator: LogicOperator,
        operands: Vec<Condition>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Predicate {
    Compare(CompareOp, SqlValue),
    IsDistinct(SqlValue),
    In(Vec<SqlValue>),
    IsNull,
    IsNotNull,
}

/// One ORDER BY term with PostgreSQL's defaults made explicit: ascending, and NULLs last when
/// ascending, first when descending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ordering {
    pub column: Column,
    pub direction: Direction,
    pub nulls: Nulls,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// What the plan reads or writes.
    pub relation: Relation,
    pub projection: Projection,
    pub conditions: Vec<Condition>,
    pub ordering: Vec<Ordering>,
    pub limit: Option<i64>,
    pub offset: i64,
}

impl Plan {
    /// PostgREST's `db-max-rows` for reads: without a limit, or with a larger one, at most
    /// `max_rows` rows come back. The count (`Prefer: count=`) still counts every matching row.
    pub fn capped(self, max_rows: i64) -> Plan {
        let limit = self.limit.map_or(max_rows, |limit| limit.min(max_rows));
        Plan {
            limit: Some(limit),
            ..self
        }
    }
}

/// Plans a request on `geocache_logs`.
pub fn plan(params: &QueryParams) -> Result<Plan, RestError> {
    plan_for(Relation::Logs, params)
}

/// Plans a request on `relation` in PostgreSQL's order of analysis: select list, then WHERE, then
/// ORDER BY.
pub fn plan_for(relation: Relation, params: &QueryParams) -> Result<Plan, RestError> {
    let projection = projection_for(relation, &params.select)?;
    let conditions = params
        .filters
        .iter()
        .map(|filter| condition(relation, filter))
        .chain(
            params
                .logic
                .iter()
                .map(|tree| logic_condition(relation, tree)),
        )
        .collect::<Result<Vec<_>, _>>()?;
    let ordering = params
        .order
        .iter()
        .map(|term| ordering(relation, term))
        .collect::<Result<Vec<_>, _>>()?;
    let offset = params.offset.unwrap_or(0);
    if offset < 0 {
        return Err(RestError::negative_offset());
    }
    Ok(Plan {
        relation,
        projection,
        conditions,
        ordering,
        limit: params.limit,
        offset,
    })
}

/// The select list of a write's returned rows (`geocache_logs`).
pub fn projection(select: &[SelectItem]) -> Result<Projection, RestError> {
    projection_for(Relation::Logs, select)
}

fn projection_for(relation: Relation, select: &[SelectItem]) -> Result<Projection, RestError> {
    // Embedding is resolved by PostgREST before the query runs, so it fails first.
    if let Some(SelectItem::Embed { relation: child }) = select
        .iter()
        .find(|item| matches!(item, SelectItem::Embed { .. }))
    {
        return Err(RestError::no_relationship(relation.name(), child));
    }
    let mut keys = Vec::new();
    for item in select {
        match item {
            SelectItem::Star => keys.extend(
                relation
                    .columns()
                    .iter()
                    .map(|column| (column.name().to_owned(), *column)),
            ),
            SelectItem::Field {
                name,
                alias,
                json_path_or_cast,
            } => {
                let column = resolve(relation, name)?;
                if *json_path_or_cast {
                    return Err(RestError::not_implemented(
                        "JSON paths and casts in 'select' are not supported by the emulator",
                    ));
                }
                keys.push((alias.clone().unwrap_or_else(|| name.clone()), column));
            }
            SelectItem::Embed { .. } => {}
        }
    }
    Ok(Projection(keys))
}

fn resolve(relation: Relation, name: &str) -> Result<Column, RestError> {
    relation
        .column(name)
        .ok_or_else(|| RestError::undefined_column(relation.name(), name))
}

fn condition(relation: Relation, filter: &Filter) -> Result<Condition, RestError> {
    if let Some(resource) = filter.embed_path.first() {
        return Err(RestError::not_embedded(resource));
    }
    let column = resolve(relation, &filter.field)?;
    if filter.json_path {
        return Err(RestError::not_implemented(
            "JSON paths in filters are not supported by the emulator",
        ));
    }
    let predicate = match &filter.operation {
        Operation::Compare(op, text) => Predicate::Compare(*op, column.parse_literal(text)?),
        Operation::IsDistinct(text) => Predicate::IsDistinct(column.parse_literal(text)?),
        Operation::In(items) => Predicate::In(
            items
                .iter()
                .map(|text| column.parse_literal(text).map_err(RestError::from))
                .collect::<Result<_, _>>()?,
        ),
        Operation::IsNull => Predicate::IsNull,
        Operation::IsNotNull => Predicate::IsNotNull,
        Operation::Unsupported(what) => {
            return Err(RestError::not_implemented(format!(
                "{what} is not supported by the emulator"
            )))
        }
    };
    Ok(Condition::Test {
        column,
        negated: filter.negated,
        predicate,
    })
}

fn logic_condition(relation: Relation, tree: &LogicTree) -> Result<Condition, RestError> {
    match tree {
        LogicTree::Filter(filter) => condition(relation, filter),
        LogicTree::Expression {
            negated,
            operator,
            operands,
        } => Ok(Condition::Logic {
            negated: *negated,
            operator: *operator,
            operands: operands
                .iter()
                .map(|operand| logic_condition(relation, operand))
                .collect::<Result<_, _>>()?,
        }),
    }
}

fn ordering(relation: Relation, term: &OrderTerm) -> Result<Ordering, RestError> {
    match term {
        OrderTerm::Related { relation } => Err(RestError::not_embedded(relation)),
        OrderTerm::Field {
            name,
            json_path,
            direction,
            nulls,
        } => {
            let column = resolve(relation, name)?;
            if *json_path {
                return Err(RestError::not_implemented(
                    "JSON paths in 'order' are not supported by the emulator",
                ));
            }
            let direction = direction.unwrap_or(Direction::Asc);
            let nulls = nulls.unwrap_or(match direction {
                Direction::Asc => Nulls::Last,
                Direction::Desc => Nulls::First,
            });
            Ok(Ordering {
                column,
                direction,
                nulls,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::query;

    fn plan_of(raw: &str) -> Result<Plan, RestError> {
        plan(&query::parse(Some(raw)).expect("parses"))
    }

    #[test]
    fn star_expands_in_table_order_and_aliases_rename() {
        let plan = plan_of("select=*,author:name").unwrap();
        let keys: Vec<&str> = plan
            .projection
            .0
            .iter()
            .map(|(key, _)| key.as_str())
            .collect();
        assert_eq!(keys, ["id", "created_at", "name", "message", "author"]);
        assert_eq!(plan.projection.0[4].1, Column::Name);
    }

    #[test]
    fn each_relation_resolves_only_its_own_columns() {
        let plan_on = |relation: Relation, raw: &str| {
            plan_for(relation, &query::parse(Some(raw)).expect("parses"))
        };
        let changes = plan_on(Relation::Changes, "select=*&seq=gt.3&order=seq.desc").unwrap();
        let keys: Vec<&str> = changes
            .projection
            .0
            .iter()
            .map(|(key, _)| key.as_str())
            .collect();
        assert_eq!(keys, ["seq", "entry_id", "change", "changed_at"]);
        assert_eq!(
            changes.conditions,
            [test(
                Column::Seq,
                Predicate::Compare(CompareOp::Gt, SqlValue::Integer(3))
            )]
        );
        let error = plan_on(Relation::Changes, "select=name").unwrap_err();
        let RestError::Postgrest(error) = error else {
            panic!("a PostgREST error")
        };
        assert_eq!(
            (error.code.as_ref(), error.message.as_str()),
            ("42703", "column geocache_log_changes.name does not exist")
        );
        assert!(plan_on(Relation::Removed, "removed_at=lt.2024-05-01T00:00:00Z").is_ok());
        assert_eq!(
            plan_on(Relation::Logs, "select=removed_at")
                .unwrap_err()
                .code(),
            "42703"
        );
    }

    #[test]
    fn unknown_columns_are_42703_wherever_they_appear() {
        for raw in ["select=nope", "nope=eq.1", "order=nope.desc"] {
            let error = plan_of(raw).unwrap_err();
            assert_eq!(error.code(), "42703", "{raw}");
        }
    }

    fn test(column: Column, predicate: Predicate) -> Condition {
        Condition::Test {
            column,
            negated: false,
            predicate,
        }
    }

    #[test]
    fn literals_are_typed_by_column() {
        let plan = plan_of("id=gt.5&created_at=lt.2024-05-01T00:00:00Z&name=eq.7").unwrap();
        assert_eq!(
            plan.conditions,
            [
                test(
                    Column::Id,
                    Predicate::Compare(CompareOp::Gt, SqlValue::Integer(5))
                ),
                test(
                    Column::CreatedAt,
                    Predicate::Compare(CompareOp::Lt, SqlValue::Integer(1_714_521_600_000_000))
                ),
                test(
                    Column::Name,
                    Predicate::Compare(CompareOp::Eq, SqlValue::Text("7".into()))
                ),
            ]
        );
        assert_eq!(plan_of("id=eq.abc").unwrap_err().code(), "22P02");
        assert_eq!(plan_of("created_at=eq.abc").unwrap_err().code(), "22007");
    }

    #[test]
    fn logic_trees_follow_the_filters_and_type_their_values_by_column() {
        let plan = plan_of(
            "or=(created_at.lt.%222024-05-01T02:00:00%2B02:00%22,and(created_at.eq.%222024-05-01T00:00:00.000001Z%22,id.lt.7))&name=eq.a",
        )
        .unwrap();
        let instant = |micros: i64| SqlValue::Integer(1_714_521_600_000_000 + micros);
        assert_eq!(
            plan.conditions,
            [
                test(
                    Column::Name,
                    Predicate::Compare(CompareOp::Eq, SqlValue::Text("a".into()))
                ),
                Condition::Logic {
                    negated: false,
                    operator: LogicOperator::Or,
                    operands: vec![
                        test(
                            Column::CreatedAt,
                            Predicate::Compare(CompareOp::Lt, instant(0))
                        ),
                        Condition::Logic {
                            negated: false,
                            operator: LogicOperator::And,
                            operands: vec![
                                test(
                                    Column::CreatedAt,
                                    Predicate::Compare(CompareOp::Eq, instant(1))
                                ),
                                test(
                                    Column::Id,
                                    Predicate::Compare(CompareOp::Lt, SqlValue::Integer(7))
                                ),
                            ],
                        },
                    ],
                },
            ]
        );
    }

    #[test]
    fn errors_inside_logic_trees_are_those_of_single_filters() {
        assert_eq!(plan_of("or=(nope.eq.1)").unwrap_err().code(), "42703");
        assert_eq!(
            plan_of("or=(id.eq.1,and(id.eq.x))").unwrap_err().code(),
            "22P02"
        );
        assert_eq!(
            plan_of("and=(created_at.lt.yesterday)").unwrap_err().code(),
            "22007"
        );
        assert_eq!(
            plan_of("or=(name.like.*a*)").unwrap_err().code(),
            "PGRST127"
        );
        assert_eq!(plan_of("or=(data->>a.eq.1)").unwrap_err().code(), "42703");
        assert_eq!(
            plan_of("or=(name->>a.eq.1)").unwrap_err().code(),
            "PGRST127"
        );
    }

    #[test]
    fn order_defaults_follow_postgresql() {
        let plan = plan_of("order=name,id.desc,created_at.asc.nullsfirst").unwrap();
        assert_eq!(
            plan.ordering,
            [
                Ordering {
                    column: Column::Name,
                    direction: Direction::Asc,
                    nulls: Nulls::Last
                },
                Ordering {
                    column: Column::Id,
                    direction: Direction::Desc,
                    nulls: Nulls::First
                },
                Ordering {
                    column: Column::CreatedAt,
                    direction: Direction::Asc,
                    nulls: Nulls::First
                },
            ]
        );
    }

    #[test]
    fn embeds_and_unimplemented_syntax_are_refused() {
        assert_eq!(plan_of("select=*,owner(*)").unwrap_err().code(), "PGRST200");
        assert_eq!(plan_of("owner.id=eq.1").unwrap_err().code(), "PGRST108");
        assert_eq!(plan_of("order=owner(id)").unwrap_err().code(), "PGRST108");
        assert_eq!(plan_of("name=like.*x*").unwrap_err().code(), "PGRST127");
        assert_eq!(plan_of("select=id::text").unwrap_err().code(), "PGRST127");
    }

    #[test]
    fn the_row_cap_bounds_every_read_limit() {
        let capped = |raw: &str| plan_of(raw).unwrap().capped(10);
        assert_eq!(capped("").limit, Some(10));
        assert_eq!(capped("limit=25").limit, Some(10));
        assert_eq!(capped("limit=3").limit, Some(3));
        assert_eq!(capped("limit=0").limit, Some(0));
        let paged = capped("offset=40");
        assert_eq!((paged.limit, paged.offset), (Some(10), 40));
    }

    #[test]
    fn negative_offset_is_refused_like_postgresql() {
        assert_eq!(plan_of("offset=-1").unwrap_err().code(), "2201X");
    }
}
