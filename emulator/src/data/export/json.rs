//! A JSON array of entries as PostgREST returns the table's rows (`select=*`): columns in table
//! order, `created_at` in PostgreSQL's JSON form. One entry per line, so two exports diff well.

use crate::data::export::EntryWriter;
use crate::table::{Column, Row};
use std::io::Write;

#[derive(Default)]
pub struct JsonWriter {
    written: u64,
}

impl EntryWriter for JsonWriter {
    fn begin(&mut self, out: &mut dyn Write, _entries: u64) -> std::io::Result<()> {
        out.write_all(b"[")
    }

    fn entry(&mut self, out: &mut dyn Write, row: &Row) -> std::io::Result<()> {
        if self.written > 0 {
            out.write_all(b",\n")?;
        }
        self.written += 1;
        out.write_all(b"{")?;
        for (index, column) in Column::ALL.into_iter().enumerate() {
            if index > 0 {
                out.write_all(b",")?;
            }
            write!(out, "\"{}\":{}", column.name(), row.json(column))?;
        }
        out.write_all(b"}")
    }

    fn end(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(b"]\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_written_as_postgrest_returns_them() {
        let mut out = Vec::new();
        let mut writer = JsonWriter::default();
        writer.begin(&mut out, 2).unwrap();
        for (id, name) in [(1, "Ada \"A\" \u{1}"), (2, "Grace")] {
            let row = Row {
                id,
                created_at: 1_795_169_472_123_450,
                name: name.to_owned(),
                message: "m".to_owned(),
            };
            writer.entry(&mut out, &row).unwrap();
        }
        writer.end(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "[{\"id\":1,\"created_at\":\"2026-11-20T10:11:12.12345+00:00\",\"name\":\"Ada \\\"A\\\" \\u0001\",\"message\":\"m\"},\n\
             {\"id\":2,\"created_at\":\"2026-11-20T10:11:12.12345+00:00\",\"name\":\"Grace\",\"message\":\"m\"}]\n"
        );
    }
}
