//! Range bounds that an `or` filter implies, added to the WHERE clause as redundant conjuncts.
//!
//! A keyset page (`or=(created_at.lt.C,and(created_at.eq.C,id.lt.I))`) bounds `created_at` from
//! above in every branch, so it implies `created_at <= C`. PostgreSQL turns the page into an
//! index range scan; SQLite does not see the range inside the `or`: it reads every row newer
//! than the cursor and sorts them, so walking a table page by page costs O(rows² / page size).
//! With the implied bound beside the `or`, SQLite walks the `created_at` index (whose entries
//! end in the rowid, `id`, so it also gives the `id` tiebreak) from the cursor onwards.
//!
//! Sound because only top-level conjuncts get a bound: a row is returned only when the whole
//! WHERE clause is true, and whenever an `or` is true its implied bound is true too. Inside a
//! `not` the extra term could turn an unknown (NULL) into false, so no bound is taken from there.
//! The values are the typed ones the filters bind (`created_at` as UTC microseconds, the form it
//! is stored in), compared the way SQLite compares them, so ties and offsets stay exact.

use crate::rest::plan::{Condition, Predicate};
use crate::rest::query::{CompareOp, LogicOperator};
use crate::table::{Column, SqlValue};
use std::cmp::Ordering;

/// The extra terms for `conditions` (all of which must hold): for every `or` among them, the
/// bounds each column gets in all of its branches.
pub fn implied_bounds(conditions: &[Condition]) -> Vec<Condition> {
    let mut disjunctions = Vec::new();
    for condition in conditions {
        collect_disjunctions(condition, &mut disjunctions);
    }
    disjunctions
        .into_iter()
        .flat_map(|disjunction| bounds(disjunction).into_conditions())
        .collect()
}

/// The `or`s that are conjuncts of the clause: at the top, or inside a top-level `and`.
fn collect_disjunctions<'a>(condition: &'a Condition, into: &mut Vec<&'a Condition>) {
    if let Condition::Logic {
        negated: false,
        operator,
        operands,
    } = condition
    {
        match operator {
            LogicOperator::Or => into.push(condition),
            LogicOperator::And => {
                for operand in operands {
                    collect_disjunctions(operand, into);
                }
            }
        }
    }
}

/// `column < value` (strict) or `column <= value`, or the same from below.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Bound {
    value: SqlValue,
    strict: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Upper,
    Lower,
}

/// What a condition, when true, guarantees about each column's range.
#[derive(Debug, Default)]
struct Bounds(Vec<(Column, Side, Bound)>);

impl Bounds {
    fn get(&self, column: Column, side: Side) -> Option<&Bound> {
        self.0
            .iter()
            .find(|(c, s, _)| *c == column && *s == side)
            .map(|(_, _, bound)| bound)
    }

    /// Both hold (`and`): the tighter bound of each column and side.
    fn both(mut self, other: Bounds) -> Bounds {
        for (column, side, bound) in other.0 {
            match self
                .0
                .iter_mut()
                .find(|(c, s, _)| *c == column && *s == side)
            {
                Some((_, _, mine)) => {
                    if let Some(tighter) = combine(mine, &bound, side, Tightness::Tighter) {
                        *mine = tighter;
                    }
                }
                None => self.0.push((column, side, bound)),
            }
        }
        self
    }

    /// Either holds (`or`): the looser bound, for the columns and sides bounded in both.
    fn either(self, other: &Bounds) -> Bounds {
        Bounds(
            self.0
                .into_iter()
                .filter_map(|(column, side, mine)| {
                    let theirs = other.get(column, side)?;
                    combine(&mine, theirs, side, Tightness::Looser)
                        .map(|looser| (column, side, looser))
                })
                .collect(),
        )
    }

    fn into_conditions(self) -> Vec<Condition> {
        self.0
            .into_iter()
            .map(|(column, side, bound)| {
                let op = match (side, bound.strict) {
                    (Side::Upper, true) => CompareOp::Lt,
                    (Side::Upper, false) => CompareOp::Lte,
                    (Side::Lower, true) => CompareOp::Gt,
                    (Side::Lower, false) => CompareOp::Gte,
                };
                Condition::Test {
                    column,
                    negated: false,
                    predicate: Predicate::Compare(op, bound.value),
                }
            })
            .collect()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tightness {
    Tighter,
    Looser,
}

/// The tighter or looser of two bounds on one side; `None` when their values do not compare
/// (different types), in which case neither is kept.
fn combine(a: &Bound, b: &Bound, side: Side, tightness: Tightness) -> Option<Bound> {
    let order = compare(&a.value, &b.value)?;
    // For an upper bound the smaller value is the tighter one; for a lower bound the larger.
    let a_tighter = match (side, order) {
        (_, Ordering::Equal) => {
            let strict = match tightness {
                Tightness::Tighter => a.strict || b.strict,
                Tightness::Looser => a.strict && b.strict,
            };
            return Some(Bound {
                value: a.value.clone(),
                strict,
            });
        }
        (Side::Upper, order) => order == Ordering::Less,
        (Side::Lower, order) => order == Ordering::Greater,
    };
    let keep_a = a_tighter == (tightness == Tightness::Tighter);
    Some(if keep_a { a.clone() } else { b.clone() })
}

/// SQLite's order for values bound to one column: numbers numerically, text byte by byte (the
/// BINARY collation, which is also Rust's order of `str`).
fn compare(a: &SqlValue, b: &SqlValue) -> Option<Ordering> {
    match (a, b) {
        (SqlValue::Integer(a), SqlValue::Integer(b)) => Some(a.cmp(b)),
        (SqlValue::Text(a), SqlValue::Text(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
        _ => None,
    }
}

fn bounds(condition: &Condition) -> Bounds {
    match condition {
        Condition::Test {
            column,
            negated: false,
            predicate,
        } => test_bounds(*column, predicate),
        Condition::Logic {
            negated: false,
            operator,
            operands,
        } => {
            let mut each = operands.iter().map(bounds);
            let first = each.next().unwrap_or_default();
            match operator {
                LogicOperator::And => each.fold(first, Bounds::both),
                LogicOperator::Or => each.fold(first, |all, next| all.either(&next)),
            }
        }
        // `not` guarantees no range this module derives.
        Condition::Test { negated: true, .. } | Condition::Logic { negated: true, .. } => {
            Bounds::default()
        }
    }
}

fn test_bounds(column: Column, predicate: &Predicate) -> Bounds {
    let bound = |side, value: &SqlValue, strict| {
        (
            column,
            side,
            Bound {
                value: value.clone(),
                strict,
            },
        )
    };
    Bounds(match predicate {
        Predicate::Compare(CompareOp::Lt, value) => vec![bound(Side::Upper, value, true)],
        Predicate::Compare(CompareOp::Lte, value) => vec![bound(Side::Upper, value, false)],
        Predicate::Compare(CompareOp::Gt, value) => vec![bound(Side::Lower, value, true)],
        Predicate::Compare(CompareOp::Gte, value) => vec![bound(Side::Lower, value, false)],
        Predicate::Compare(CompareOp::Eq, value) => vec![
            bound(Side::Upper, value, false),
            bound(Side::Lower, value, false),
        ],
        Predicate::In(values) => {
            // An `in` list is an `or` of equalities.
            return values
                .iter()
                .map(|value| test_bounds(column, &Predicate::Compare(CompareOp::Eq, value.clone())))
                .reduce(|all, next| all.either(&next))
                .unwrap_or_default();
        }
        Predicate::Compare(CompareOp::Neq, _)
        | Predicate::IsDistinct(_)
        | Predicate::IsNull
        | Predicate::IsNotNull => Vec::new(),
    })
}

#[cfg(test)]
mod tests;
