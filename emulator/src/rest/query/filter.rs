//! Filters (`column=[not.]operator.value`, PostgREST's `pOpExpr`) and their values, on their own
//! and inside logic trees.

use super::cursor::{Cursor, QueryError};
use super::lexemes::{field_name, json_path, quoted_rest};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// The column; `embed_path` holds any `rel.` prefixes of an embedded filter.
    pub field: String,
    pub embed_path: Vec<String>,
    pub json_path: bool,
    pub negated: bool,
    pub operation: Operation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Neq,
    Gt,
    Gte,
    Lt,
    Lte,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    Compare(CompareOp, String),
    IsDistinct(String),
    In(Vec<String>),
    IsNull,
    IsNotNull,
    /// Valid PostgREST syntax the emulator does not implement (e.g. `like`, `fts`, `cs`,
    /// `is.true`, `eq(any)`); the text names it for the error.
    Unsupported(String),
}

pub(super) const QUANTIFIABLE: &[&str] = &[
    "eq", "gte", "gt", "lte", "lt", "like", "ilike", "match", "imatch",
];
pub(super) const SIMPLE: &[&str] = &["neq", "cs", "cd", "ov", "sl", "sr", "nxr", "nxl", "adj"];
pub(super) const FTS: &[&str] = &["fts", "plfts", "phfts", "wfts"];
pub(super) const IS_VALUES: &[&str] = &["null", "not_null", "true", "false", "unknown"];

pub fn parse_filter(key: &str, value: &str) -> Result<Filter, QueryError> {
    let path_context = format!("failed to parse tree path ({key})");
    let mut cursor = Cursor::new(key);
    let mut path = vec![field_name(&mut cursor, &path_context)?];
    while cursor.eat('.') {
        path.push(field_name(&mut cursor, &path_context)?);
    }
    let json_path = json_path(&mut cursor, &path_context)?;
    // PostgREST ignores text after a valid path (`name;x=eq.1` filters on `name`); the
    // emulator refuses it so that nothing SQL-like is silently reinterpreted.
    if cursor.peek().is_some() {
        return Err(cursor.fail_at_end_check(&path_context, &["delimiter (.)", "\"->\""]));
    }
    let field = path.pop().expect("the path starts with the field name");

    let context = format!("failed to parse filter ({value})");
    let mut cursor = Cursor::new(value);
    let (negated, operation) = op_expr(&mut cursor, &context, ValueSyntax::Rest)?;
    Ok(Filter {
        field,
        embed_path: path,
        json_path,
        negated,
        operation,
    })
}

/// Where a filter's value ends: a single filter's value is the rest of the parameter, a value
/// inside a logic tree ends at the next `,` or `)` unless it is quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ValueSyntax {
    Rest,
    Logic,
}

impl ValueSyntax {
    pub(super) fn read(self, cursor: &mut Cursor) -> String {
        match self {
            ValueSyntax::Rest => {
                let rest = cursor.rest();
                cursor.position = cursor.chars.len();
                rest
            }
            ValueSyntax::Logic => single_value(cursor),
        }
    }
}

/// `[not.]operator.value`: PostgREST's `pOpExpr`.
pub(super) fn op_expr(
    cursor: &mut Cursor,
    context: &str,
    syntax: ValueSyntax,
) -> Result<(bool, Operation), QueryError> {
    // `not` without its delimiter fails after the word, further than any operator would.
    let negated = cursor.eat_str("not");
    if negated && !cursor.eat('.') {
        return Err(cursor.fail(context, &["delimiter (.)"]));
    }
    let operation = operation(cursor, context, negated, syntax)?;
    Ok((negated, operation))
}

pub(super) fn operation(
    cursor: &mut Cursor,
    context: &str,
    negated: bool,
    syntax: ValueSyntax,
) -> Result<Operation, QueryError> {
    let start = cursor.position;
    // Try every operator whose word is followed by its delimiter; `gte.` must not read as `gt`.
    let mut candidates: Vec<&str> = ["in", "is", "isdistinct"]
        .iter()
        .chain(FTS)
        .chain(SIMPLE)
        .chain(QUANTIFIABLE)
        .copied()
        .filter(|word| cursor.starts_with(word))
        .collect();
    candidates.sort_by_key(|word| std::cmp::Reverse(word.len()));
    for word in &candidates {
        cursor.position = start + word.len();
        let quantified = QUANTIFIABLE.contains(word) && cursor.peek() == Some('(');
        let language = FTS.contains(word) && cursor.peek() == Some('(');
        if quantified || language {
            // `eq(any).`, `fts(english).`: valid syntax, not implemented.
            if let Some(end) = cursor.find(").") {
                cursor.position = end + 2;
                syntax.read(cursor);
                return Ok(Operation::Unsupported(format!(
                    "the '{word}(...)' filter operator"
                )));
            }
            continue;
        }
        if !cursor.eat('.') {
            continue;
        }
        let compare = match *word {
            "eq" => Some(CompareOp::Eq),
            "neq" => Some(CompareOp::Neq),
            "gt" => Some(CompareOp::Gt),
            "gte" => Some(CompareOp::Gte),
            "lt" => Some(CompareOp::Lt),
            "lte" => Some(CompareOp::Lte),
            _ => None,
        };
        return match (*word, compare) {
            (_, Some(op)) => Ok(Operation::Compare(op, syntax.read(cursor))),
            ("in", _) => in_list(cursor, context).map(Operation::In),
            ("is", _) => is_value(cursor, context),
            ("isdistinct", _) => Ok(Operation::IsDistinct(syntax.read(cursor))),
            (other, _) => {
                syntax.read(cursor);
                Ok(Operation::Unsupported(format!(
                    "the '{other}' filter operator"
                )))
            }
        };
    }
    // No operator: Parsec reports the furthest failure. A whole operator word without its
    // delimiter fails after the word; otherwise the failure is at the start.
    if let Some(word) = candidates.first() {
        cursor.position = start + word.len();
        let expecting: &[&str] = if QUANTIFIABLE.contains(word) || FTS.contains(word) {
            &["\"(\"", "delimiter (.)"]
        } else {
            &["delimiter (.)"]
        };
        return Err(cursor.fail(context, expecting));
    }
    cursor.position = start;
    let (first_alternative, expecting): (&str, &[&str]) = if negated {
        ("in", &["operator (eq, gt, ...)"])
    } else {
        ("not", &["\"not\"", "operator (eq, gt, ...)"])
    };
    Err(cursor.fail_word(context, start, first_alternative, expecting))
}

/// `(a,b,"c,d")`: PostgREST's `pListVal`.
pub(super) fn in_list(cursor: &mut Cursor, context: &str) -> Result<Vec<String>, QueryError> {
    cursor.skip_whitespace();
    if !cursor.eat('(') {
        return Err(cursor.fail(context, &["\"(\""]));
    }
    cursor.skip_whitespace();
    let mut items = Vec::new();
    loop {
        items.push(list_element(cursor));
        if !cursor.eat(',') {
            break;
        }
    }
    cursor.skip_whitespace();
    if !cursor.eat(')') {
        return Err(cursor.fail(context, &["\",\"", "\")\""]));
    }
    cursor.skip_whitespace();
    Ok(items)
}

pub(super) fn list_element(cursor: &mut Cursor) -> String {
    let start = cursor.position;
    if cursor.peek() == Some('"') {
        cursor.bump();
        if let Some(text) = quoted_rest(cursor) {
            if matches!(cursor.peek(), None | Some(',' | ')')) {
                return text;
            }
        }
        cursor.position = start;
    }
    let mut text = String::new();
    while let Some(c) = cursor.peek().filter(|c| !matches!(c, ',' | ')')) {
        text.push(c);
        cursor.bump();
    }
    text
}

pub(super) fn is_value(cursor: &mut Cursor, context: &str) -> Result<Operation, QueryError> {
    // Only the next few characters: a tree may hold many `is` filters.
    let next: String = cursor.chars[cursor.position.min(cursor.chars.len())..]
        .iter()
        .take(8)
        .collect();
    let next = next.to_ascii_lowercase();
    let found = IS_VALUES.iter().find(|value| next.starts_with(*value));
    if let Some(value) = found {
        cursor.position += value.len();
    }
    match found {
        Some(&"null") => Ok(Operation::IsNull),
        Some(&"not_null") => Ok(Operation::IsNotNull),
        Some(other) => Ok(Operation::Unsupported(format!("the 'is.{other}' filter"))),
        None => Err(cursor.fail(context, &["isVal: (null, not_null, true, false, unknown)"])),
    }
}

/// PostgREST's `pLogicSingleVal`: a quoted value followed by `,`, `)` or the end; else a
/// `{...}` array literal; else everything up to the next `,` or `)` (quotes included).
pub(super) fn single_value(cursor: &mut Cursor) -> String {
    let start = cursor.position;
    if cursor.eat('{') {
        let mut text = String::from("{");
        while let Some(c) = cursor.peek().filter(|c| !matches!(c, '{' | '}')) {
            text.push(c);
            cursor.bump();
        }
        if cursor.eat('}') {
            text.push('}');
            return text;
        }
        cursor.position = start;
    }
    list_element(cursor)
}
