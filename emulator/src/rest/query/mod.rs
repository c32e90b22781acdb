//! PostgREST's query-string grammar (PostgREST 12/13 `ApiRequest/QueryParams.hs`), parsed into a
//! small AST of names and literal texts. Nothing here touches SQL: `plan.rs` resolves names
//! against the table and `sql.rs` turns the result into SQL with bound parameters.
//!
//! Parse errors reproduce PostgREST's PGRST100 shape: the message is Parsec's source position,
//! `"failed to parse <what> (<input>)" (line 1, column <n>)`, and the details describe what was
//! unexpected and what was expected, as Parsec words them for the common mistakes.

mod cursor;
mod filter;
mod lexemes;
mod logic;

pub use cursor::QueryError;
pub use filter::{parse_filter, CompareOp, Filter, Operation};

pub use logic::{LogicOperator, LogicTree};

use cursor::Cursor;
use lexemes::{field_name, identifier, json_path};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryParams {
    pub select: Vec<SelectItem>,
    /// `columns=` for POST/PATCH: the body keys to use.
    pub columns: Option<Vec<String>>,
    pub order: Vec<OrderTerm>,
    pub filters: Vec<Filter>,
    /// `or=(...)`, `and=(...)`, `not.or=(...)`, ...: every tree must hold, as with filters.
    pub logic: Vec<LogicTree>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectItem {
    Star,
    Field {
        name: String,
        alias: Option<String>,
        /// `->`/`->>` JSON paths or a `::cast` were given (valid syntax, not implemented).
        json_path_or_cast: bool,
    },
    /// `rel(...)`, `alias:rel!hint(...)` or `..rel(...)`: resource embedding.
    Embed {
        relation: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Asc,
    Desc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nulls {
    First,
    Last,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderTerm {
    Field {
        name: String,
        json_path: bool,
        direction: Option<Direction>,
        nulls: Option<Nulls>,
    },
    /// `rel(col)`: ordering by an embedded resource's column.
    Related { relation: String },
}

/// Parses a raw (still percent-encoded) query string. `apikey` is the gateway's credential and
/// never reaches PostgREST, so it is dropped here.
pub fn parse(raw_query: Option<&str>) -> Result<QueryParams, QueryError> {
    let pairs = decode_pairs(raw_query.unwrap_or_default());
    let first_value = |name: &str| {
        pairs
            .iter()
            .find(|(key, _)| key == name)
            .and_then(|(_, value)| value.clone())
    };

    let mut order = None;
    let mut limit = None;
    let mut offset = None;
    let mut filter_pairs = Vec::new();
    let mut logic_pairs = Vec::new();
    for (key, value) in &pairs {
        let Some(value) = value else { continue };
        if matches!(
            key.as_str(),
            "select" | "columns" | "on_conflict" | "apikey"
        ) {
            continue;
        }
        let segments: Vec<&str> = key.split('.').collect();
        let last = segments[segments.len() - 1];
        if !matches!(last, "order" | "limit" | "offset" | "and" | "or") {
            filter_pairs.push((key.as_str(), value.as_str()));
            continue;
        }
        if matches!(last, "and" | "or") {
            // PostgREST's `pLogicPath`: a `not` anywhere in the key negates the tree and the
            // other names before the operator are an embedding path.
            let prefix = &segments[..segments.len() - 1];
            if let Some(resource) = prefix.iter().find(|name| **name != "not") {
                return Err(QueryError::NotEmbedded((*resource).to_owned()));
            }
            let operator = if prefix.is_empty() {
                last.to_owned()
            } else {
                format!("not.{last}")
            };
            logic_pairs.push((operator, value.as_str()));
            continue;
        }
        if segments.len() > 1 {
            return Err(QueryError::NotEmbedded(segments[0].to_owned()));
        }
        match last {
            "order" => {
                if order.is_none() {
                    order = Some(value.as_str());
                }
            }
            "limit" => limit = Some(value.as_str()),
            _ => offset = Some(value.as_str()),
        }
    }

    // PostgREST reports the first failure in this order: order, logic trees, columns, select,
    // filters. Ranges are read last.
    let order = order.map(parse_order).transpose()?.unwrap_or_default();
    let logic = logic_pairs
        .into_iter()
        .map(|(operator, value)| logic::parse_tree(&operator, value))
        .collect::<Result<Vec<_>, _>>()?;
    let columns = first_value("columns")
        .map(|raw| parse_columns(&raw))
        .transpose()?;
    let select = parse_select(&first_value("select").unwrap_or_else(|| "*".to_owned()))?;
    let filters = filter_pairs
        .into_iter()
        .map(|(key, value)| parse_filter(key, value))
        .collect::<Result<Vec<_>, _>>()?;
    let limit = limit
        .map(|raw| parse_range_number("limit", raw))
        .transpose()?;
    if limit.is_some_and(|limit| limit < 0) {
        return Err(QueryError::NegativeLimit);
    }
    let offset = offset
        .map(|raw| parse_range_number("offset", raw))
        .transpose()?;

    Ok(QueryParams {
        select,
        columns,
        order,
        filters,
        logic,
        limit,
        offset,
    })
}

/// Splits on `&`, decodes `+` and percent escapes, and remembers whether a `=` was present
/// (PostgREST ignores a bare `key` but parses `key=` as an empty value).
fn decode_pairs(raw: &str) -> Vec<(String, Option<String>)> {
    raw.split('&')
        .filter(|segment| !segment.is_empty())
        .filter_map(|segment| {
            let has_value = segment.contains('=');
            let (key, value) = form_urlencoded::parse(segment.as_bytes()).next()?;
            Some((key.into_owned(), has_value.then(|| value.into_owned())))
        })
        .collect()
}

/// The emulator refuses a `limit`/`offset` that is not an integer (PostgREST silently ignores
/// one), so a typo cannot return everything.
fn parse_range_number(what: &str, raw: &str) -> Result<i64, QueryError> {
    let trimmed = raw.trim();
    trimmed.parse::<i64>().map_err(|_| {
        let mut cursor = Cursor::new(raw);
        cursor.skip_whitespace();
        if cursor.peek() == Some('-') {
            cursor.bump();
        }
        while cursor.peek().is_some_and(|c| c.is_ascii_digit()) {
            cursor.bump();
        }
        cursor.fail(
            &format!("failed to parse {what} parameter ({raw})"),
            &["digit"],
        )
    })
}

// --- select -------------------------------------------------------------------------------

/// Deeper `select` embeddings are refused (PGRST127).
const MAX_EMBEDDING_DEPTH: usize = 16;

const AFTER_FIELD: &[&str] = &[
    "letter", "digit", "\"-\"", "\"!\"", "\"(\"", "\"->>\"", "\"->\"", "\"::\"", "\")\"", "\",\"",
];

pub fn parse_select(raw: &str) -> Result<Vec<SelectItem>, QueryError> {
    let context = format!("failed to parse select parameter ({raw})");
    let mut cursor = Cursor::new(raw);
    let items = select_forest(&mut cursor, &context, 0)?;
    // PostgREST ignores input left after a complete list (`id) union select ...` selects `id`);
    // the emulator refuses it so that nothing SQL-like is silently dropped.
    if cursor.peek().is_some() {
        return Err(cursor.fail_at_end_check(&context, &["\",\""]));
    }
    Ok(items)
}

/// `item (',' item)*`, up to the `)` closing an embedding or the end. `depth` counts the
/// embeddings around it.
fn select_forest(
    cursor: &mut Cursor,
    context: &str,
    depth: usize,
) -> Result<Vec<SelectItem>, QueryError> {
    // Each level recurses; without a bound a few kilobytes of `a(a(a(...` overflow the stack and
    // abort the whole server (found by fuzzing). The emulator embeds nothing anyway.
    if depth > MAX_EMBEDDING_DEPTH {
        return Err(QueryError::NotImplemented(format!(
            "embeddings nested more than {MAX_EMBEDDING_DEPTH} levels deep"
        )));
    }
    let mut items = vec![select_item(cursor, context, depth)?];
    loop {
        cursor.skip_whitespace();
        if !cursor.eat(',') {
            return Ok(items);
        }
        cursor.skip_whitespace();
        items.push(select_item(cursor, context, depth)?);
    }
}

fn select_item(cursor: &mut Cursor, context: &str, depth: usize) -> Result<SelectItem, QueryError> {
    cursor.skip_whitespace();
    if cursor.eat_str("..") {
        let relation = field_name(cursor, context)?;
        embed_tail(cursor, context, depth)?;
        return Ok(SelectItem::Embed { relation });
    }
    if cursor.eat('*') {
        cursor.skip_whitespace();
        expect_item_end(cursor, context, &["\")\"", "\",\""])?;
        return Ok(SelectItem::Star);
    }
    let first = field_name(cursor, context)?;
    let (alias, name) = if cursor.peek() == Some(':') && cursor.peek_at(1) != Some(':') {
        cursor.bump();
        (Some(first), field_name(cursor, context)?)
    } else {
        (None, first)
    };
    if matches!(cursor.peek(), Some('!' | '(')) {
        embed_tail(cursor, context, depth)?;
        return Ok(SelectItem::Embed { relation: name });
    }
    let mut json_path_or_cast = json_path(cursor, context)?;
    cursor.skip_whitespace();
    if cursor.eat_str("::") {
        identifier(cursor, context, &["letter or digit"])?;
        json_path_or_cast = true;
    }
    expect_item_end(cursor, context, AFTER_FIELD)?;
    Ok(SelectItem::Field {
        name,
        alias,
        json_path_or_cast,
    })
}

/// `(!hint|!inner|!left)* '(' forest ')'` after a relation name.
fn embed_tail(cursor: &mut Cursor, context: &str, depth: usize) -> Result<(), QueryError> {
    while cursor.eat('!') {
        field_name(cursor, context)?;
    }
    if !cursor.eat('(') {
        return Err(cursor.fail(context, &["\"!\"", "\"(\""]));
    }
    select_forest(cursor, context, depth + 1)?;
    cursor.skip_whitespace();
    if !cursor.eat(')') {
        return Err(cursor.fail(context, &["\")\"", "\",\""]));
    }
    Ok(())
}

/// PostgREST's `pEnd` for select items: a `)`, a `,` or the end must follow.
fn expect_item_end(
    cursor: &mut Cursor,
    context: &str,
    expecting: &[&str],
) -> Result<(), QueryError> {
    match cursor.peek() {
        None | Some(')' | ',') => Ok(()),
        Some(_) => Err(cursor.fail_at_end_check(context, expecting)),
    }
}

// --- order --------------------------------------------------------------------------------

const DIRECTIONS_OR_NULLS: &[&str] = &["\"asc\"", "\"desc\"", "\"nullsfirst\"", "\"nullslast\""];
const NULLS: &[&str] = &["\"nullsfirst\"", "\"nullslast\""];

pub fn parse_order(raw: &str) -> Result<Vec<OrderTerm>, QueryError> {
    let context = format!("failed to parse order ({raw})");
    let mut cursor = Cursor::new(raw);
    let mut terms = Vec::new();
    loop {
        terms.push(order_term(&mut cursor, &context)?);
        if !cursor.eat(',') {
            return Ok(terms);
        }
    }
}

fn order_term(cursor: &mut Cursor, context: &str) -> Result<OrderTerm, QueryError> {
    cursor.skip_whitespace();
    let name = field_name(cursor, context)?;
    if cursor.eat('(') {
        cursor.skip_whitespace();
        field_name(cursor, context)?;
        json_path(cursor, context)?;
        cursor.skip_whitespace();
        if !cursor.eat(')') {
            return Err(cursor.fail(context, &["\")\""]));
        }
        order_modifiers(cursor, context)?;
        return Ok(OrderTerm::Related { relation: name });
    }
    let json_path = json_path(cursor, context)?;
    cursor.skip_whitespace();
    let (direction, nulls) = order_modifiers(cursor, context)?;
    Ok(OrderTerm::Field {
        name,
        json_path,
        direction,
        nulls,
    })
}

fn order_modifiers(
    cursor: &mut Cursor,
    context: &str,
) -> Result<(Option<Direction>, Option<Nulls>), QueryError> {
    let mut direction = None;
    let mut nulls = None;
    if cursor.peek() == Some('.') {
        let word_start = cursor.position + 1;
        cursor.bump();
        if cursor.eat_str("asc") {
            direction = Some(Direction::Asc);
        } else if cursor.eat_str("desc") {
            direction = Some(Direction::Desc);
        } else if cursor.eat_str("nullsfirst") {
            nulls = Some(Nulls::First);
        } else if cursor.eat_str("nullslast") {
            nulls = Some(Nulls::Last);
        } else {
            return Err(cursor.fail_word(context, word_start, "asc", DIRECTIONS_OR_NULLS));
        }
    }
    if direction.is_some() && cursor.peek() == Some('.') {
        let word_start = cursor.position + 1;
        cursor.bump();
        if cursor.eat_str("nullsfirst") {
            nulls = Some(Nulls::First);
        } else if cursor.eat_str("nullslast") {
            nulls = Some(Nulls::Last);
        } else {
            return Err(cursor.fail_word(context, word_start, "nullsfirst", NULLS));
        }
    }
    cursor.skip_whitespace();
    match cursor.peek() {
        None | Some(',') => Ok((direction, nulls)),
        Some(_) => {
            let expecting: &[&str] = match (direction, nulls) {
                (_, Some(_)) => &["\",\""],
                (Some(_), None) => &["delimiter (.)", "\",\""],
                (None, None) => &[
                    "letter",
                    "digit",
                    "\"-\"",
                    "\"->>\"",
                    "\"->\"",
                    "delimiter (.)",
                    "\",\"",
                ],
            };
            Err(cursor.fail_at_end_check(context, expecting))
        }
    }
}

// --- columns ------------------------------------------------------------------------------

pub fn parse_columns(raw: &str) -> Result<Vec<String>, QueryError> {
    let context = format!("failed to parse columns parameter ({raw})");
    let mut cursor = Cursor::new(raw);
    let mut names = vec![field_name(&mut cursor, &context)?];
    loop {
        cursor.skip_whitespace();
        if !cursor.eat(',') {
            // Stricter than PostgREST, which ignores what follows the last name.
            if cursor.peek().is_some() {
                return Err(cursor.fail_at_end_check(&context, &["\",\""]));
            }
            return Ok(names);
        }
        cursor.skip_whitespace();
        names.push(field_name(&mut cursor, &context)?);
    }
}

#[cfg(test)]
mod tests;
