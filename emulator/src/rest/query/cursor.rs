//! The query-string parsers' cursor and error: a position counted in characters as Parsec counts
//! columns, and failures worded as Parsec words them (PGRST100).

use crate::rest::error::RestError;

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

impl From<QueryError> for RestError {
    fn from(error: QueryError) -> Self {
        match error {
            QueryError::Parse {
                message, details, ..
            } => RestError::query_param(message, details),
            QueryError::NegativeLimit => RestError::negative_limit(),
            QueryError::NotEmbedded(resource) => RestError::not_embedded(&resource),
            QueryError::NotImplemented(what) => RestError::not_implemented(what),
        }
    }
}

/// A position in the input, counted in characters as Parsec counts columns.
pub(super) struct Cursor {
    pub(super) chars: Vec<char>,
    pub(super) position: usize,
}

impl Cursor {
    pub(super) fn new(input: &str) -> Cursor {
        Cursor {
            chars: input.chars().collect(),
            position: 0,
        }
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.chars.get(self.position).copied()
    }

    pub(super) fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.position + offset).copied()
    }

    pub(super) fn bump(&mut self) {
        self.position += 1;
    }

    pub(super) fn eat(&mut self, wanted: char) -> bool {
        if self.peek() == Some(wanted) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Whether the input at the cursor starts with `wanted` (without copying the rest: the
    /// parser asks this at every item, and copying made long lists quadratic).
    pub(super) fn starts_with(&self, wanted: &str) -> bool {
        let mut rest = self.chars[self.position.min(self.chars.len())..].iter();
        wanted.chars().all(|c| rest.next() == Some(&c))
    }

    pub(super) fn eat_str(&mut self, wanted: &str) -> bool {
        if self.starts_with(wanted) {
            self.position += wanted.chars().count();
            true
        } else {
            false
        }
    }

    /// Where `needle` next occurs at or after the cursor.
    pub(super) fn find(&self, needle: &str) -> Option<usize> {
        let needle: Vec<char> = needle.chars().collect();
        let from = self.position.min(self.chars.len());
        self.chars[from..]
            .windows(needle.len())
            .position(|window| window == needle.as_slice())
            .map(|offset| from + offset)
    }

    pub(super) fn rest(&self) -> String {
        self.chars[self.position.min(self.chars.len())..]
            .iter()
            .collect()
    }

    /// Parsec's `ws`: spaces and tabs.
    pub(super) fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.bump();
        }
    }

    pub(super) fn error(
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
    pub(super) fn fail(&self, context: &str, expecting: &[&str]) -> QueryError {
        let unexpected = match self.peek() {
            Some(c) => haskell_show_string(c),
            None => "end of input".to_owned(),
        };
        self.error(context, self.position + 1, unexpected, expecting)
    }

    /// A failed "end of item" check (Parsec's `eof`/`notFollowedBy` shows a char: `'x'`).
    pub(super) fn fail_at_end_check(&self, context: &str, expecting: &[&str]) -> QueryError {
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
    pub(super) fn fail_word(
        &self,
        context: &str,
        start: usize,
        word: &str,
        expecting: &[&str],
    ) -> QueryError {
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

pub(super) fn join_or(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Haskell's `show [c]`.
pub(super) fn haskell_show_string(c: char) -> String {
    match c {
        '"' => "\"\\\"\"".to_owned(),
        _ => format!("\"{}\"", haskell_escape(c)),
    }
}

/// Haskell's `show c`.
pub(super) fn haskell_show_char(c: char) -> String {
    match c {
        '\'' => "'\\''".to_owned(),
        _ => format!("'{}'", haskell_escape(c)),
    }
}

pub(super) fn haskell_escape(c: char) -> String {
    match c {
        '\\' => "\\\\".to_owned(),
        '\n' => "\\n".to_owned(),
        '\t' => "\\t".to_owned(),
        '\r' => "\\r".to_owned(),
        c if c.is_ascii_graphic() || c == ' ' => c.to_string(),
        c => format!("\\{}", u32::from(c)),
    }
}
