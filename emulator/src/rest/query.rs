//! PostgREST's query-string grammar (PostgREST 12/13 `ApiRequest/QueryParams.hs`), parsed into a
//! small AST of names and literal texts. Nothing here touches SQL: `plan.rs` resolves names
//! against the table and `sql.rs` turns the result into SQL with bound parameters.
//!
//! Parse errors reproduce PostgREST's PGRST100 shape: the message is Parsec's source position,
//! `"failed to parse <what> (<input>)" (line 1, column <n>)`, and the details describe what was
//! unexpected and what was expected, as Parsec words them for the common mistakes.

use crate::error::ApiError;

#[path = "logic.rs"]
mod logic;

pub use logic::{LogicOperator, LogicTree};

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

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// PGRST100. `column` is where Parsec failed (1-based), also shown in `message`.
    Parse {
        message: String,
        details: String,
        column: usize,
    },
    /// PGRST103: a negative `limit`.
    NegativeLimit,
    /// PGRST108: a filter or order on `rel.` that the request does not embed.
    NotEmbedded(String),
    /// PGRST127.
    NotImplemented(String),
}

impl From<QueryError> for ApiError {
    fn from(error: QueryError) -> Self {
        match error {
            QueryError::Parse {
                message, details, ..
            } => ApiError::query_param(message, details),
            QueryError::NegativeLimit => ApiError::negative_limit(),
            QueryError::NotEmbedded(resource) => ApiError::not_embedded(&resource),
            QueryError::NotImplemented(what) => ApiError::not_implemented(what),
        }
    }
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

// --- filters ------------------------------------------------------------------------------

const QUANTIFIABLE: &[&str] = &[
    "eq", "gte", "gt", "lte", "lt", "like", "ilike", "match", "imatch",
];
const SIMPLE: &[&str] = &["neq", "cs", "cd", "ov", "sl", "sr", "nxr", "nxl", "adj"];
const FTS: &[&str] = &["fts", "plfts", "phfts", "wfts"];
const IS_VALUES: &[&str] = &["null", "not_null", "true", "false", "unknown"];

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
    let field = path.pop().unwrap_or_default();

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
enum ValueSyntax {
    Rest,
    Logic,
}

impl ValueSyntax {
    fn read(self, cursor: &mut Cursor) -> String {
        match self {
            ValueSyntax::Rest => {
                let rest = cursor.rest();
                cursor.position = cursor.chars.len();
                rest
            }
            ValueSyntax::Logic => logic::single_value(cursor),
        }
    }
}

/// `[not.]operator.value`: PostgREST's `pOpExpr`.
fn op_expr(
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

fn operation(
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
fn in_list(cursor: &mut Cursor, context: &str) -> Result<Vec<String>, QueryError> {
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

fn list_element(cursor: &mut Cursor) -> String {
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

fn is_value(cursor: &mut Cursor, context: &str) -> Result<Operation, QueryError> {
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

// --- shared lexemes -----------------------------------------------------------------------

/// What Parsec expects where a field name is missing.
const FIELD_NAME: &str = "field name (* or [a..z0..9_$])";

/// `"quoted"` (backslash escapes) or identifiers joined by `-` (not `->`), trimmed.
fn field_name(cursor: &mut Cursor, context: &str) -> Result<String, QueryError> {
    if cursor.peek() == Some('"') {
        cursor.bump();
        return quoted_rest(cursor).ok_or_else(|| cursor.fail(context, &["\"\\\"\""]));
    }
    let mut name = identifier(cursor, context, &[FIELD_NAME])?;
    while cursor.peek() == Some('-') && cursor.peek_at(1) != Some('>') {
        cursor.bump();
        name.push('-');
        name.push_str(&identifier(cursor, context, &["letter or digit"])?);
    }
    Ok(name)
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | ' ' | '$')
}

fn identifier(
    cursor: &mut Cursor,
    context: &str,
    expecting: &[&str],
) -> Result<String, QueryError> {
    let mut text = String::new();
    while let Some(c) = cursor.peek().filter(|c| is_identifier_char(*c)) {
        text.push(c);
        cursor.bump();
    }
    if text.is_empty() {
        return Err(cursor.fail(context, expecting));
    }
    Ok(text.trim_matches(' ').to_owned())
}

/// The rest of a quoted value after its opening quote; `None` when unterminated.
fn quoted_rest(cursor: &mut Cursor) -> Option<String> {
    let mut text = String::new();
    loop {
        match cursor.peek()? {
            '"' => {
                cursor.bump();
                return Some(text);
            }
            '\\' => {
                cursor.bump();
                text.push(cursor.peek()?);
                cursor.bump();
            }
            c => {
                text.push(c);
                cursor.bump();
            }
        }
    }
}

/// `(->|->>)(key|index)*`; returns whether any path was present.
fn json_path(cursor: &mut Cursor, context: &str) -> Result<bool, QueryError> {
    let mut present = false;
    while cursor.starts_with("->") {
        cursor.position += if cursor.starts_with("->>") { 3 } else { 2 };
        let index_start = cursor.position;
        if cursor.peek() == Some('-') {
            cursor.bump();
        }
        let digits_start = cursor.position;
        while cursor.peek().is_some_and(|c| c.is_ascii_digit()) {
            cursor.bump();
        }
        let is_index = cursor.position > digits_start
            && (cursor.peek().is_none()
                || cursor.starts_with("->")
                || matches!(cursor.peek(), Some(':' | '.' | ',')));
        if !is_index {
            cursor.position = index_start;
            field_name(cursor, context)?;
        }
        present = true;
    }
    Ok(present)
}

/// A position in the input, counted in characters as Parsec counts columns.
struct Cursor {
    chars: Vec<char>,
    position: usize,
}

impl Cursor {
    fn new(input: &str) -> Cursor {
        Cursor {
            chars: input.chars().collect(),
            position: 0,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.position).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.position + offset).copied()
    }

    fn bump(&mut self) {
        self.position += 1;
    }

    fn eat(&mut self, wanted: char) -> bool {
        if self.peek() == Some(wanted) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Whether the input at the cursor starts with `wanted` (without copying the rest: the
    /// parser asks this at every item, and copying made long lists quadratic).
    fn starts_with(&self, wanted: &str) -> bool {
        let mut rest = self.chars[self.position.min(self.chars.len())..].iter();
        wanted.chars().all(|c| rest.next() == Some(&c))
    }

    fn eat_str(&mut self, wanted: &str) -> bool {
        if self.starts_with(wanted) {
            self.position += wanted.chars().count();
            true
        } else {
            false
        }
    }

    /// Where `needle` next occurs at or after the cursor.
    fn find(&self, needle: &str) -> Option<usize> {
        let needle: Vec<char> = needle.chars().collect();
        let from = self.position.min(self.chars.len());
        self.chars[from..]
            .windows(needle.len())
            .position(|window| window == needle.as_slice())
            .map(|offset| from + offset)
    }

    fn rest(&self) -> String {
        self.chars[self.position.min(self.chars.len())..]
            .iter()
            .collect()
    }

    /// Parsec's `ws`: spaces and tabs.
    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.bump();
        }
    }

    fn error(
        &self,
        context: &str,
        column: usize,
        unexpected: String,
        expecting: &[&str],
    ) -> QueryError {
        let mut details = format!("unexpected {unexpected}");
        if !expecting.is_empty() {
            details.push_str(" expecting ");
            details.push_str(&join_or(expecting));
        }
        QueryError::Parse {
            message: format!("\"{context}\" (line 1, column {column})"),
            details,
            column,
        }
    }

    /// A token mismatch at the cursor (Parsec shows the token as a string: `"x"`).
    fn fail(&self, context: &str, expecting: &[&str]) -> QueryError {
        let unexpected = match self.peek() {
            Some(c) => haskell_show_string(c),
            None => "end of input".to_owned(),
        };
        self.error(context, self.position + 1, unexpected, expecting)
    }

    /// A failed "end of item" check (Parsec's `eof`/`notFollowedBy` shows a char: `'x'`).
    fn fail_at_end_check(&self, context: &str, expecting: &[&str]) -> QueryError {
        let unexpected = match self.peek() {
            Some(c) => haskell_show_char(c),
            None => "end of input".to_owned(),
        };
        let mut expecting = expecting.to_vec();
        expecting.push("end of input");
        self.error(context, self.position + 1, unexpected, &expecting)
    }

    /// Parsec's `string word` failing at `start`: it reports the first character that differs
    /// from `word`, at the start column.
    fn fail_word(&self, context: &str, start: usize, word: &str, expecting: &[&str]) -> QueryError {
        let found: Vec<char> = self.chars[start.min(self.chars.len())..].to_vec();
        let mismatch = word
            .chars()
            .zip(found.iter().copied().chain(std::iter::repeat('\0')))
            .find(|(wanted, got)| wanted != got)
            .map(|(_, got)| got);
        let unexpected = match mismatch {
            Some('\0') | None => "end of input".to_owned(),
            Some(c) => haskell_show_string(c),
        };
        self.error(context, start + 1, unexpected, expecting)
    }
}

fn join_or(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Haskell's `show [c]`.
fn haskell_show_string(c: char) -> String {
    match c {
        '"' => "\"\\\"\"".to_owned(),
        _ => format!("\"{}\"", haskell_escape(c)),
    }
}

/// Haskell's `show c`.
fn haskell_show_char(c: char) -> String {
    match c {
        '\'' => "'\\''".to_owned(),
        _ => format!("'{}'", haskell_escape(c)),
    }
}

fn haskell_escape(c: char) -> String {
    match c {
        '\\' => "\\\\".to_owned(),
        '\n' => "\\n".to_owned(),
        '\t' => "\\t".to_owned(),
        '\r' => "\\r".to_owned(),
        c if c.is_ascii_graphic() || c == ' ' => c.to_string(),
        c => format!("\\{}", u32::from(c)),
    }
}

#[cfg(test)]
#[path = "query_tests.rs"]
mod tests;
