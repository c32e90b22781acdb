//! The lexemes every query-string parameter shares: field names (quoted or not) and JSON paths.

use super::cursor::{Cursor, QueryError};

/// What Parsec expects where a field name is missing.
pub(super) const FIELD_NAME: &str = "field name (* or [a..z0..9_$])";

/// `"quoted"` (backslash escapes) or identifiers joined by `-` (not `->`), trimmed.
pub(super) fn field_name(cursor: &mut Cursor, context: &str) -> Result<String, QueryError> {
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

pub(super) fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | ' ' | '$')
}

pub(super) fn identifier(
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
pub(super) fn quoted_rest(cursor: &mut Cursor) -> Option<String> {
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
pub(super) fn json_path(cursor: &mut Cursor, context: &str) -> Result<bool, QueryError> {
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
