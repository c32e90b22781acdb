//! A postgres_changes `filter` as Realtime parses it: `column=operator.value`, with the
//! operators `eq`, `neq`, `lt`, `lte`, `gt`, `gte` and `in` (`in.(a,b,c)`). The value is read as
//! the column's type, as Realtime casts it, and compared with the row's value of that type.

use crate::table::{Column, LiteralError, Row, SqlValue};
use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    Eq,
    Neq,
    Lt,
    Lte,
    Gt,
    Gte,
    In,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    pub column: Column,
    pub operator: Operator,
    /// One value, or the list of `in`.
    pub values: Vec<SqlValue>,
}

/// Why a filter was refused: the text the subscription's `system` error message carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError(pub String);

impl Filter {
    pub fn parse(text: &str) -> Result<Filter, FilterError> {
        let syntax = || FilterError(format!("Error parsing `filter` params: {text}"));
        let (column, rest) = text.split_once('=').ok_or_else(syntax)?;
        let (operator, value) = rest.split_once('.').ok_or_else(syntax)?;
        let operator = match operator {
            "eq" => Operator::Eq,
            "neq" => Operator::Neq,
            "lt" => Operator::Lt,
            "lte" => Operator::Lte,
            "gt" => Operator::Gt,
            "gte" => Operator::Gte,
            "in" => Operator::In,
            _ => return Err(syntax()),
        };
        let column = Column::from_name(column)
            .ok_or_else(|| FilterError(format!("invalid column for filter {column}")))?;
        let texts: Vec<&str> = if operator == Operator::In {
            let list = value
                .strip_prefix('(')
                .and_then(|inner| inner.strip_suffix(')'))
                .ok_or_else(syntax)?;
            list.split(',').map(|item| item.trim_matches('"')).collect()
        } else {
            vec![value]
        };
        let values = texts
            .into_iter()
            .map(|text| column.parse_literal(text).map_err(invalid_value))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Filter {
            column,
            operator,
            values,
        })
    }

    /// Whether `row` passes the filter.
    pub fn matches(&self, row: &Row) -> bool {
        let actual = match self.column {
            Column::Id => SqlValue::Integer(row.id),
            Column::CreatedAt => SqlValue::Integer(row.created_at),
            Column::Name => SqlValue::Text(row.name.clone()),
            Column::Message => SqlValue::Text(row.message.clone()),
            // `Column::from_name` resolves the logbook's columns only.
            Column::RemovedAt
            | Column::Seq
            | Column::EntryId
            | Column::Change
            | Column::ChangedAt => return false,
        };
        let order = |value: &SqlValue| compare(&actual, value);
        let Some(first) = self.values.first() else {
            return false;
        };
        match self.operator {
            Operator::Eq => order(first) == Some(Ordering::Equal),
            Operator::Neq => order(first).is_some_and(Ordering::is_ne),
            Operator::Lt => order(first) == Some(Ordering::Less),
            Operator::Lte => order(first).is_some_and(Ordering::is_le),
            Operator::Gt => order(first) == Some(Ordering::Greater),
            Operator::Gte => order(first).is_some_and(Ordering::is_ge),
            Operator::In => self
                .values
                .iter()
                .any(|value| order(value) == Some(Ordering::Equal)),
        }
    }
}

fn compare(left: &SqlValue, right: &SqlValue) -> Option<Ordering> {
    match (left, right) {
        (SqlValue::Integer(left), SqlValue::Integer(right)) => Some(left.cmp(right)),
        (SqlValue::Text(left), SqlValue::Text(right)) => Some(left.cmp(right)),
        _ => None,
    }
}

fn invalid_value(error: LiteralError) -> FilterError {
    FilterError(match error {
        LiteralError::NulInText => "invalid byte sequence for encoding \"UTF8\": 0x00".into(),
        LiteralError::InvalidBigint(text) => {
            format!("invalid input syntax for type bigint: \"{text}\"")
        }
        LiteralError::BigintOutOfRange(text) => {
            format!("value \"{text}\" is out of range for type bigint")
        }
        LiteralError::InvalidTimestamp(text) => {
            format!("invalid input syntax for type timestamp with time zone: \"{text}\"")
        }
        LiteralError::TimestampOutOfRange(text) => {
            format!("date/time field value out of range: \"{text}\"")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, name: &str) -> Row {
        Row {
            id,
            created_at: 1_700_000_000_000_000,
            name: name.into(),
            message: "m".into(),
        }
    }

    fn passes(filter: &str, row: &Row) -> bool {
        Filter::parse(filter).unwrap().matches(row)
    }

    #[test]
    fn every_operator_compares_by_the_column_type() {
        let ten = row(10, "ann");
        assert!(passes("id=eq.10", &ten));
        assert!(!passes("id=eq.9", &ten));
        assert!(passes("id=neq.9", &ten));
        assert!(!passes("id=neq.10", &ten));
        // Numerically, not as text: "9" < "10" would be false.
        assert!(passes("id=gt.9", &ten));
        assert!(passes("id=gte.10", &ten));
        assert!(!passes("id=lt.10", &ten));
        assert!(passes("id=lte.10", &ten));
        assert!(passes("id=lt.11", &ten));
        assert!(passes("id=in.(1,10,12)", &ten));
        assert!(!passes("id=in.(1,12)", &ten));
        assert!(passes("name=eq.ann", &ten));
        assert!(passes("name=in.(bob,\"ann\")", &ten));
        assert!(passes("created_at=gte.2023-11-14T22:13:20Z", &ten));
        assert!(!passes("created_at=gt.2023-11-14T22:13:20Z", &ten));
        // A value may hold the separators themselves.
        assert!(passes("name=neq.a=b.c", &ten));
    }

    #[test]
    fn bad_filters_say_why() {
        let error = |text: &str| Filter::parse(text).unwrap_err().0;
        assert_eq!(error("id"), "Error parsing `filter` params: id");
        assert_eq!(error("id=eq"), "Error parsing `filter` params: id=eq");
        assert_eq!(
            error("id=like.1"),
            "Error parsing `filter` params: id=like.1"
        );
        assert_eq!(
            error("id=in.1,2"),
            "Error parsing `filter` params: id=in.1,2"
        );
        assert_eq!(error("nope=eq.1"), "invalid column for filter nope");
        assert_eq!(
            error("id=eq.x"),
            "invalid input syntax for type bigint: \"x\""
        );
    }
}
