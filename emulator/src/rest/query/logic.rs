//! PostgREST's logic trees (`pLogicTree`): `or=(a.eq.1,and(b.lt.2,c.is.null))`, `and=(...)`
//! and their `not.` forms, parsed into a tree of the same `Filter`s that single filters use.
//!
//! A value inside a tree ends at the next `,` or `)`, so values holding those (or `.`, `:`)
//! are written in double quotes, with backslash escapes inside the quotes.

use super::cursor::{Cursor, QueryError};
use super::filter::{op_expr, Filter, ValueSyntax};
use super::lexemes::{field_name, json_path, FIELD_NAME};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicOperator {
    And,
    Or,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogicTree {
    Filter(Filter),
    Expression {
        negated: bool,
        operator: LogicOperator,
        operands: Vec<LogicTree>,
    },
}

/// Deeper trees are refused (PGRST127): each level recurses, and unbounded nesting would let a
/// few kilobytes of `or(or(or(...` overflow the stack and abort the server.
const MAX_DEPTH: usize = 16;

/// Parses one logic-tree parameter. `operator` comes from the key (`or`, `and`, `not.or`,
/// `not.and`); like PostgREST, the parser reads `operator` followed by `value` (`or(a.eq.1)`),
/// so error columns count from the start of that text while the message shows `value`.
pub fn parse_tree(operator: &str, value: &str) -> Result<LogicTree, QueryError> {
    let context = format!("failed to parse logic tree ({value})");
    let mut cursor = Cursor::new(&format!("{operator}{value}"));
    let parsed = tree(&mut cursor, &context, 0)?;
    // PostgREST ignores input after a complete tree (`(a.eq.1)x` is `(a.eq.1)`); the emulator
    // refuses it so that nothing is silently dropped.
    if cursor.peek().is_some() {
        return Err(cursor.fail_at_end_check(&context, &[]));
    }
    Ok(parsed)
}

/// A filter, or `[not.](and|or)(tree, ...)`. As in Parsec, the filter is tried first; if it
/// fails and the expression fails without consuming input, the failure that got further wins,
/// and failures at the same column are reported together.
fn tree(cursor: &mut Cursor, context: &str, depth: usize) -> Result<LogicTree, QueryError> {
    if depth > MAX_DEPTH {
        return Err(QueryError::NotImplemented(format!(
            "logic trees nested more than {MAX_DEPTH} levels deep"
        )));
    }
    let start = cursor.position;
    let filter_error = match filter(cursor, context) {
        Ok(filter) => return Ok(LogicTree::Filter(filter)),
        Err(error) => error,
    };
    cursor.position = start;
    let negated = cursor.eat_str("not.");
    let operator = if cursor.eat_str("and") {
        LogicOperator::And
    } else if cursor.eat_str("or") {
        LogicOperator::Or
    } else if cursor.peek() == Some('o') {
        // Parsec's `string "or"` has consumed the `o`: its own failure is the only one.
        return Err(cursor.fail_word(context, cursor.position, "or", &["\"or\""]));
    } else if negated {
        return Err(cursor.fail(context, &["logic operator (and, or)"]));
    } else {
        let filter_column = match &filter_error {
            QueryError::Parse { column, .. } => *column,
            _ => return Err(filter_error),
        };
        if filter_column > start + 1 {
            return Err(filter_error);
        }
        return Err(cursor.fail(
            context,
            &[
                FIELD_NAME,
                "negation operator (not)",
                "logic operator (and, or)",
            ],
        ));
    };

    cursor.skip_whitespace();
    if !cursor.eat('(') {
        return Err(cursor.fail(context, &["\"(\""]));
    }
    cursor.skip_whitespace();
    let mut operands = vec![tree(cursor, context, depth + 1)?];
    loop {
        let before_space = cursor.position;
        cursor.skip_whitespace();
        if cursor.eat(',') {
            cursor.skip_whitespace();
            operands.push(tree(cursor, context, depth + 1)?);
            continue;
        }
        // The separator's leading spaces were consumed: Parsec does not try `)` any more.
        if cursor.position > before_space {
            return Err(cursor.fail(context, &["\",\""]));
        }
        if cursor.eat(')') {
            cursor.skip_whitespace();
            return Ok(LogicTree::Expression {
                negated,
                operator,
                operands,
            });
        }
        return Err(cursor.fail(context, &["\",\"", "\")\""]));
    }
}

/// `field[->json].[not.]operator.value`; unlike a filter parameter, no embedding path.
fn filter(cursor: &mut Cursor, context: &str) -> Result<Filter, QueryError> {
    cursor.skip_whitespace();
    let quoted = cursor.peek() == Some('"');
    let field = field_name(cursor, context)?;
    let json_path = json_path(cursor, context)?;
    cursor.skip_whitespace();
    if !cursor.eat('.') {
        // Parsec also lists what could have continued the name.
        let expecting: &[&str] = if quoted && !json_path {
            &["\"->>\"", "\"->\"", "delimiter (.)"]
        } else {
            &[
                "letter",
                "digit",
                "\"-\"",
                "\"->>\"",
                "\"->\"",
                "delimiter (.)",
            ]
        };
        return Err(cursor.fail(context, expecting));
    }
    let (negated, operation) = op_expr(cursor, context, ValueSyntax::Logic)?;
    Ok(Filter {
        field,
        embed_path: Vec::new(),
        json_path,
        negated,
        operation,
    })
}
