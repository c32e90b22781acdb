//! The entries of a CSV file: the hosted dashboard's export of the table, or ours. Read with the
//! `csv` crate (RFC 4180: quoted fields, doubled quotes, CRLF or LF, a final line break or none),
//! with the checks it leaves to its callers: the header, the number of fields, UTF-8, and a quote
//! left open (the crate reads an unclosed quoted field to the end of the file without a word).

use crate::data::error::Place;
use crate::data::import::{fields, Parsed};
use crate::table::Row;

const COLUMNS: [&str; 4] = ["id", "created_at", "name", "message"];

/// Every entry of `bytes`, with the line each starts on.
pub fn parse(bytes: &[u8]) -> Result<Vec<Parsed>, (Place, String)> {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut records = Vec::new();
    let mut record = ::csv::ByteRecord::new();
    let mut lines = Lines::default();
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(true) => {
                let start = record
                    .position()
                    .map_or(0, |position| position.byte() as usize);
                // After a CR the crate starts the next record at the LF: the record's own first
                // byte is past the line break.
                let start = start
                    + bytes[start..]
                        .iter()
                        .take_while(|byte| matches!(byte, b'\r' | b'\n'))
                        .count();
                records.push((lines.at(bytes, start), start, record.clone()));
            }
            Ok(false) => break,
            Err(error) => return Err((Place::File, error.to_string())),
        }
    }
    check_quotes(bytes, &records)?;
    let Some(((_, _, header), rows)) = records.split_first() else {
        return Err((
            Place::File,
            format!(
                "it is empty: a header line ({}) comes first",
                COLUMNS.join(",")
            ),
        ));
    };
    let order = columns(header)?;
    rows.iter()
        .map(|(line, _, record)| {
            entry(record, &order)
                .map(|row| Parsed {
                    place: Place::Line(*line),
                    row,
                })
                .map_err(|reason| (Place::Line(*line), reason))
        })
        .collect()
}

/// The line a byte starts, counted from 1: the crate's own count is one short after a CRLF.
#[derive(Default)]
struct Lines {
    offset: usize,
    line: u64,
}

impl Lines {
    /// Offsets are asked for in increasing order, so each byte is counted once.
    fn at(&mut self, bytes: &[u8], offset: usize) -> u64 {
        let breaks = bytes[self.offset..offset]
            .iter()
            .filter(|byte| **byte == b'\n')
            .count();
        self.line += breaks as u64;
        self.offset = offset;
        self.line + 1
    }
}

/// A well-formed record holds an even number of quotes (each quoted field opens and closes, and
/// doubles the quotes inside). An odd number in the last record is a field the file ends inside;
/// anywhere else, a quote in a field that was not quoted.
fn check_quotes(
    bytes: &[u8],
    records: &[(u64, usize, ::csv::ByteRecord)],
) -> Result<(), (Place, String)> {
    for (index, (line, start, _)) in records.iter().enumerate() {
        let end = records.get(index + 1).map_or(bytes.len(), |next| next.1);
        let quotes = bytes[*start..end]
            .iter()
            .filter(|byte| **byte == b'"')
            .count();
        if quotes % 2 == 1 {
            let reason = if index + 1 == records.len() {
                "a quoted field is never closed: the file ends inside it"
            } else {
                "a stray quote: a field that holds a quote is quoted, with its quotes doubled"
            };
            return Err((Place::Line(*line), reason.to_owned()));
        }
    }
    Ok(())
}

/// Where each column is: the header names the four columns, each once, in any order.
fn columns(header: &::csv::ByteRecord) -> Result<[usize; 4], (Place, String)> {
    let expected = || format!("the header is {}", COLUMNS.join(","));
    let names: Vec<&str> = header
        .iter()
        .map(std::str::from_utf8)
        .collect::<Result<_, _>>()
        .map_err(|_| (Place::Line(1), format!("{} (not valid UTF-8)", expected())))?;
    let mut order = [0; 4];
    for (slot, column) in order.iter_mut().zip(COLUMNS) {
        let found: Vec<usize> = (0..names.len())
            .filter(|index| names[*index] == column)
            .collect();
        match found.as_slice() {
            [index] => *slot = *index,
            [] => {
                return Err((
                    Place::Line(1),
                    format!("no {column} column; {}", expected()),
                ))
            }
            _ => {
                return Err((
                    Place::Line(1),
                    format!("two {column} columns; {}", expected()),
                ))
            }
        }
    }
    if let Some(extra) = names.iter().find(|name| !COLUMNS.contains(name)) {
        return Err((
            Place::Line(1),
            format!("an unknown column {extra:?}; {}", expected()),
        ));
    }
    Ok(order)
}

fn entry(record: &::csv::ByteRecord, order: &[usize; 4]) -> Result<Row, String> {
    if record.len() != COLUMNS.len() {
        return Err(format!(
            "{} fields where the header has {}",
            record.len(),
            COLUMNS.len()
        ));
    }
    let field = |position: usize| -> Result<String, String> {
        let column = COLUMNS[position];
        let bytes = &record[order[position]];
        String::from_utf8(bytes.to_vec()).map_err(|_| format!("the {column} is not valid UTF-8"))
    };
    Ok(Row {
        id: fields::id(&field(0)?)?,
        created_at: fields::created_at(&field(1)?)?,
        name: fields::text("name", field(2)?)?,
        message: fields::text("message", field(3)?)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &[u8]) -> Vec<(i64, i64, String, String)> {
        parse(text)
            .unwrap()
            .into_iter()
            .map(|parsed| {
                let row = parsed.row;
                (row.id, row.created_at, row.name, row.message)
            })
            .collect()
    }

    fn refusal(text: &[u8]) -> (Place, String) {
        parse(text).unwrap_err()
    }

    #[test]
    fn reads_the_dashboards_csv() {
        let text = b"id,created_at,name,message\r\n\
            1,2026-11-20 10:11:12.12345+00,Ada,TFTC\r\n\
            2,2026-11-20 10:11:12+00,\" Grace \",\"two\r\nlines, \"\"quoted\"\"\"";
        assert_eq!(
            rows(text),
            [
                (
                    1,
                    1_795_169_472_123_450,
                    "Ada".to_owned(),
                    "TFTC".to_owned()
                ),
                (
                    2,
                    1_795_169_472_000_000,
                    " Grace ".to_owned(),
                    "two\r\nlines, \"quoted\"".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn accepts_lf_a_final_line_break_a_byte_order_mark_and_any_column_order() {
        let text = "\u{feff}name,message,id,created_at\n\
            Ada,TFTC,1,2026-11-20T10:11:12Z\n";
        assert_eq!(
            rows(text.as_bytes()),
            [(
                1,
                1_795_169_472_000_000,
                "Ada".to_owned(),
                "TFTC".to_owned()
            )]
        );
        assert_eq!(rows(b"id,created_at,name,message"), []);
    }

    #[test]
    fn malformed_files_are_refused_at_their_line() {
        let header = "id,created_at,name,message\r\n";
        let good = "1,2026-11-20 10:11:12+00,Ada,TFTC\r\n";
        for (body, line, says) in [
            ("2,2026-11-20 10:11:12+00,Ada,\"open", 3, "never closed"),
            ("2,2026-11-20 10:11:12+00,Ada\r\n", 3, "3 fields"),
            ("2,2026-11-20 10:11:12+00,Ada,TFTC,extra\r\n", 3, "5 fields"),
            ("2,soon,Ada,TFTC\r\n", 3, "not a timestamp"),
            ("2,2026-11-20 10:11:12,Ada,TFTC\r\n", 3, "with an offset"),
            ("2.5,2026-11-20 10:11:12+00,Ada,TFTC\r\n", 3, "whole number"),
            ("2,2026-11-20 10:11:12+00,Ada,a\0b\r\n", 3, "U+0000"),
            (
                "2,2026-11-20 10:11:12+00,Ada,a\"b\r\n3,x,y,z",
                3,
                "stray quote",
            ),
        ] {
            let text = format!("{header}{good}{body}");
            let (place, reason) = refusal(text.as_bytes());
            assert_eq!(place, Place::Line(line), "{body:?}: {reason}");
            assert!(reason.contains(says), "{body:?}: {reason}");
        }
        let mut invalid = format!("{header}{good}2,2026-11-20 10:11:12+00,Ada,").into_bytes();
        invalid.extend_from_slice(b"\xff\xfe");
        let (place, reason) = refusal(&invalid);
        assert_eq!(place, Place::Line(3));
        assert!(reason.contains("UTF-8"), "{reason}");
    }

    #[test]
    fn the_header_names_the_four_columns() {
        assert!(refusal(b"").1.contains("empty"));
        for header in [
            "id,created_at,name",
            "id,created_at,name,message,extra",
            "id,created_at,name,name",
            "ID,created_at,name,message",
        ] {
            let (place, reason) = refusal(header.as_bytes());
            assert_eq!(place, Place::Line(1), "{header}: {reason}");
        }
    }
}
