//! Which bounds an `or` implies, from query strings as clients write them.

use super::*;
use crate::rest::{plan, query};

fn implied(raw: &str) -> Vec<Condition> {
    let plan = plan::plan(&query::parse(Some(raw)).expect("parses")).expect("plans");
    implied_bounds(&plan.conditions)
}

fn test(column: Column, op: CompareOp, value: SqlValue) -> Condition {
    Condition::Test {
        column,
        negated: false,
        predicate: Predicate::Compare(op, value),
    }
}

/// 2024-05-01T00:00:00Z in microseconds, plus `micros`.
fn instant(micros: i64) -> SqlValue {
    SqlValue::Integer(1_714_521_600_000_000 + micros)
}

#[test]
fn a_newest_first_keyset_page_is_bounded_above_by_its_cursor() {
    assert_eq!(
        implied(
            "order=created_at.desc,id.desc&or=(created_at.lt.%222024-05-01T00:00:00Z%22,and(created_at.eq.%222024-05-01T00:00:00Z%22,id.lt.7))"
        ),
        [test(Column::CreatedAt, CompareOp::Lte, instant(0))]
    );
}

#[test]
fn an_oldest_first_keyset_page_is_bounded_below_by_its_cursor() {
    assert_eq!(
        implied(
            "or=(created_at.gt.%222024-05-01T00:00:00Z%22,and(created_at.eq.%222024-05-01T00:00:00Z%22,id.gt.7))"
        ),
        [test(Column::CreatedAt, CompareOp::Gte, instant(0))]
    );
}

#[test]
fn bounds_are_the_stored_instant_whatever_offset_the_cursor_is_written_with() {
    // 02:00:00.000001+02:00 is 00:00:00.000001Z; the tie branch is the later of the two here.
    assert_eq!(
        implied(
            "or=(created_at.lt.%222024-05-01T02:00:00%2B02:00%22,and(created_at.eq.%222024-05-01T00:00:00.000001Z%22,id.lt.7))"
        ),
        [test(Column::CreatedAt, CompareOp::Lte, instant(1))]
    );
}

#[test]
fn the_looser_bound_of_the_branches_is_kept_and_strict_only_if_every_branch_is() {
    assert_eq!(
        implied("or=(id.lt.5,id.lt.9)"),
        [test(Column::Id, CompareOp::Lt, SqlValue::Integer(9))]
    );
    assert_eq!(
        implied("or=(id.lt.9,id.lte.9)"),
        [test(Column::Id, CompareOp::Lte, SqlValue::Integer(9))]
    );
    assert_eq!(
        implied("or=(id.gt.5,id.gte.3,id.eq.4)"),
        [test(Column::Id, CompareOp::Gte, SqlValue::Integer(3))]
    );
    assert_eq!(
        implied("or=(id.eq.4,id.in.(2,8))"),
        [
            test(Column::Id, CompareOp::Lte, SqlValue::Integer(8)),
            test(Column::Id, CompareOp::Gte, SqlValue::Integer(2)),
        ]
    );
    assert_eq!(
        implied("or=(name.lt.b,name.lte.ab)"),
        [test(
            Column::Name,
            CompareOp::Lt,
            SqlValue::Text("b".into())
        )]
    );
}

#[test]
fn inside_a_branch_the_tighter_bound_of_an_and_counts() {
    assert_eq!(
        implied("or=(and(id.lt.9,id.lt.4),id.lt.6)"),
        [test(Column::Id, CompareOp::Lt, SqlValue::Integer(6))]
    );
    assert_eq!(
        implied("or=(and(id.lte.4,id.lt.4),id.lt.2)"),
        [test(Column::Id, CompareOp::Lt, SqlValue::Integer(4))]
    );
}

#[test]
fn an_or_inside_a_top_level_and_is_bounded_too() {
    assert_eq!(
        implied("and=(name.eq.a,or(id.lt.3,id.eq.5))"),
        [test(Column::Id, CompareOp::Lte, SqlValue::Integer(5))]
    );
}

#[test]
fn nothing_is_implied_where_a_branch_leaves_the_column_open() {
    for raw in [
        // One branch does not mention `id`.
        "or=(id.lt.3,name.eq.a)",
        // Bounded above in one branch, below in the other.
        "or=(id.lt.3,id.gt.9)",
        // Neither `neq`, `is` nor a negated test bounds a range.
        "or=(id.lt.3,id.neq.9)",
        "or=(id.lt.3,id.is.null)",
        "or=(id.lt.3,id.not.gte.9)",
        "or=(id.lt.3,not.and(id.lt.9,id.gt.1))",
    ] {
        assert_eq!(implied(raw), [], "{raw}");
    }
}

#[test]
fn an_empty_in_list_bounds_nothing() {
    let empty_in = Condition::Test {
        column: Column::Id,
        negated: false,
        predicate: Predicate::In(Vec::new()),
    };
    let or = Condition::Logic {
        negated: false,
        operator: LogicOperator::Or,
        operands: vec![
            test(Column::Id, CompareOp::Lt, SqlValue::Integer(3)),
            empty_in,
        ],
    };
    assert_eq!(implied_bounds(&[or]), []);
}

#[test]
fn no_bound_comes_out_of_a_negation_or_from_plain_filters() {
    for raw in [
        // `not(a or b)` with an implied conjunct inside could turn NULL into false.
        "not.or=(id.lt.3,id.eq.5)",
        "not.and=(name.eq.a,or(id.lt.3,id.eq.5))",
        // Top-level filters are conjuncts SQLite already uses as they are.
        "id=lt.3&created_at=gte.2024-05-01T00:00:00Z",
        "and=(id.lt.3,id.gt.1)",
    ] {
        assert_eq!(implied(raw), [], "{raw}");
    }
}

#[test]
fn values_of_different_types_never_combine() {
    let mixed = |value| Condition::Logic {
        negated: false,
        operator: LogicOperator::Or,
        operands: vec![
            test(Column::Name, CompareOp::Lt, SqlValue::Text("b".into())),
            test(Column::Name, CompareOp::Lt, value),
        ],
    };
    assert_eq!(implied_bounds(&[mixed(SqlValue::Integer(3))]), []);
    assert_eq!(
        implied_bounds(&[mixed(SqlValue::Text("c".into()))]),
        [test(
            Column::Name,
            CompareOp::Lt,
            SqlValue::Text("c".into())
        )]
    );
}
