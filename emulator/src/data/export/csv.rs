//! CSV as the hosted dashboard exports a table (Papa Parse's `unparse` over the table's columns):
//! a header of the column names, CRLF between records and none after the last, timestamps as
//! PostgreSQL's text output, and a field quoted only where it must be.
//!
//! Written by hand rather than with the `csv` crate's writer: Papa Parse also quotes a field that
//! starts or ends with a space, or holds a byte-order mark, which no option of that writer does.

use crate::data::export::EntryWriter;
use crate::table::Row;
use crate::timestamp;
use std::io::Write;

pub struct CsvWriter;

impl EntryWriter for CsvWriter {
    fn begin(&mut self, out: &mut dyn Write, _entries: u64) -> std::io::Result<()> {
        out.write_all(b"id,created_at,name,message")
    }

    fn entry(&mut self, out: &mut dyn Write, row: &Row) -> std::io::Result<()> {
        write!(
            out,
            "\r\n{},{},",
            row.id,
            timestamp::to_pg_text(row.created_at)
        )?;
        field(out, &row.name)?;
        out.write_all(b",")?;
        field(out, &row.message)
    }

    fn end(&mut self, _out: &mut dyn Write) -> std::io::Result<()> {
        Ok(())
    }
}

/// Papa Parse's rule: quotes, commas, line breaks, a byte-order mark, or a space at either end.
fn needs_quotes(text: &str) -> bool {
    text.contains(['"', ',', '\r', '\n', '\u{feff}'])
        || text.starts_with(' ')
        || text.ends_with(' ')
}

fn field(out: &mut dyn Write, text: &str) -> std::io::Result<()> {
    if needs_quotes(text) {
        write!(out, "\"{}\"", text.replace('"', "\"\""))
    } else {
        out.write_all(text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(rows: &[Row]) -> String {
        let mut out = Vec::new();
        let mut writer = CsvWriter;
        writer.begin(&mut out, rows.len() as u64).unwrap();
        for row in rows {
            writer.entry(&mut out, row).unwrap();
        }
        writer.end(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn row(id: i64, created_at: i64, name: &str, message: &str) -> Row {
        Row {
            id,
            created_at,
            name: name.to_owned(),
            message: message.to_owned(),
        }
    }

    #[test]
    fn records_are_crlf_separated_with_no_final_line_break() {
        let text = csv(&[
            row(1, 1_795_169_472_123_450, "Ada", "TFTC"),
            row(2, 1_795_169_472_000_000, "Grace", "Found it"),
        ]);
        assert_eq!(
            text,
            "id,created_at,name,message\r\n\
             1,2026-11-20 10:11:12.12345+00,Ada,TFTC\r\n\
             2,2026-11-20 10:11:12+00,Grace,Found it"
        );
        assert_eq!(csv(&[]), "id,created_at,name,message");
    }

    #[test]
    fn fields_are_quoted_only_where_papa_parse_quotes_them() {
        for (text, written) in [
            ("plain text", "plain text"),
            ("", ""),
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("two\r\nlines", "\"two\r\nlines\""),
            ("cr\ronly", "\"cr\ronly\""),
            (" leading", "\" leading\""),
            ("trailing ", "\"trailing \""),
            ("tab\tinside", "tab\tinside"),
            ("\u{feff}mark", "\"\u{feff}mark\""),
            ("back\\slash 'single'", "back\\slash 'single'"),
            ("=1+1", "=1+1"),
        ] {
            let mut out = Vec::new();
            field(&mut out, text).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), written, "{text:?}");
        }
    }
}
