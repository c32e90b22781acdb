//! A script that moves the entries to a hosted project with `psql -v ON_ERROR_STOP=1 -f`, run as
//! the table's owner (hosted's `postgres`, not a superuser), in one transaction.
//!
//! The entries go to a temporary table first, then into `public.geocache_logs` with their own ids
//! (`overriding system value`, as `id` is `generated always`) and times; an id already stored is
//! left as it is (`on conflict (id) do nothing`), so applying the script twice adds nothing, and
//! a stored entry that differs from the file's is named in a warning. Afterwards the identity is
//! set past the largest id, never back, so the next visitor's sign gets a larger one. Neither the
//! sign limit nor the sign receipts act on it: their triggers fire only for PostgREST's requests.
//!
//! Texts are standard SQL strings (quotes doubled, backslashes literal under
//! `standard_conforming_strings`, which the script turns on); times are PostgreSQL's own text to
//! the microsecond.

use crate::data::export::EntryWriter;
use crate::table::Row;
use crate::timestamp;
use std::io::Write;

/// Entries per INSERT statement, and the text one statement carries before the next begins: a
/// logbook of large messages never becomes one huge statement.
const ROWS_PER_STATEMENT: usize = 500;
const BYTES_PER_STATEMENT: usize = 4 << 20;

const PREAMBLE: &str = "\
begin;
set local client_encoding = 'UTF8';
set local standard_conforming_strings = on;
create temporary table geocache_logs_import (
  id         bigint primary key,
  created_at timestamptz not null,
  name       text not null,
  message    text not null
) on commit drop;
";

const INSERT: &str =
    "insert into pg_temp.geocache_logs_import (id, created_at, name, message) values\n";

const MOVE: &str = "\
do $import$
declare
  identity  regclass := pg_catalog.pg_get_serial_sequence('public.geocache_logs', 'id')::regclass;
  total     bigint;
  added     bigint;
  conflicts text;
  largest   bigint;
begin
  select count(*) into total from pg_temp.geocache_logs_import;
  insert into public.geocache_logs (id, created_at, name, message) overriding system value
    select id, created_at, name, message from pg_temp.geocache_logs_import order by id
    on conflict (id) do nothing;
  get diagnostics added = row_count;
  raise notice 'geocache_logs: % entries added, % already stored', added, total - added;

  select pg_catalog.string_agg(stored.id::text, ', ' order by stored.id) into conflicts
    from pg_temp.geocache_logs_import as imported
    join public.geocache_logs as stored on stored.id = imported.id
   where (stored.created_at, stored.name, stored.message)
         is distinct from (imported.created_at, imported.name, imported.message);
  if conflicts is not null then
    raise warning 'geocache_logs: these ids hold other entries, which were kept: %', conflicts;
  end if;

  -- The next sign gets an id past every stored one; the identity never moves back.
  select max(id) into largest from public.geocache_logs;
  if largest is not null then
    perform pg_catalog.setval(identity, greatest(largest, pg_catalog.pg_sequence_last_value(identity)));
  end if;
end
$import$;
commit;
";

#[derive(Default)]
pub struct SqlWriter {
    /// Rows and text bytes in the open INSERT statement; none open when `rows` is 0.
    rows: usize,
    bytes: usize,
}

impl EntryWriter for SqlWriter {
    fn begin(&mut self, out: &mut dyn Write, entries: u64) -> std::io::Result<()> {
        writeln!(
            out,
            "-- The geocache logbook's {entries} entries, exported by geocache-emulator, for a hosted project that has
-- the project's migrations. Apply it as the table's owner before the logbook is open to visitors:
--   psql -v ON_ERROR_STOP=1 -f <this file> \"$DATABASE_URL\"
-- Ids and times are kept. An id already stored is left as it is, so applying it twice adds nothing.
"
        )?;
        out.write_all(PREAMBLE.as_bytes())
    }

    fn entry(&mut self, out: &mut dyn Write, row: &Row) -> std::io::Result<()> {
        if self.rows == 0 {
            out.write_all(INSERT.as_bytes())?;
        } else {
            out.write_all(b",\n")?;
        }
        write!(
            out,
            "({}, '{}', {}, {})",
            row.id,
            timestamp::to_pg_text(row.created_at),
            literal(&row.name),
            literal(&row.message)
        )?;
        self.rows += 1;
        self.bytes += row.name.len() + row.message.len();
        if self.rows >= ROWS_PER_STATEMENT || self.bytes >= BYTES_PER_STATEMENT {
            self.close_statement(out)?;
        }
        Ok(())
    }

    fn end(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        self.close_statement(out)?;
        out.write_all(MOVE.as_bytes())
    }
}

impl SqlWriter {
    fn close_statement(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if self.rows > 0 {
            out.write_all(b";\n")?;
        }
        self.rows = 0;
        self.bytes = 0;
        Ok(())
    }
}

/// A standard SQL string: quotes doubled; every other character (backslashes, line breaks,
/// control characters) stands for itself. The caller has refused U+0000.
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(rows: &[Row]) -> String {
        let mut out = Vec::new();
        let mut writer = SqlWriter::default();
        writer.begin(&mut out, rows.len() as u64).unwrap();
        for row in rows {
            writer.entry(&mut out, row).unwrap();
        }
        writer.end(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn texts_are_quoted_and_times_kept_to_the_microsecond() {
        let row = Row {
            id: 7,
            created_at: 1_795_169_472_000_001,
            name: "O'Brien \\ 'x'".to_owned(),
            message: "line\nbreak $$ $import$ ; --".to_owned(),
        };
        let text = script(&[row]);
        assert!(text.contains(
            "(7, '2026-11-20 10:11:12.000001+00', 'O''Brien \\ ''x''', 'line\nbreak $$ $import$ ; --');\n"
        ));
        assert!(text.starts_with("-- The geocache logbook's 1 entries"));
        assert!(text.ends_with("commit;\n"));
    }

    #[test]
    fn statements_are_split_by_rows_and_by_size() {
        let rows: Vec<Row> = (1..=ROWS_PER_STATEMENT as i64 * 2 + 1)
            .map(|id| Row {
                id,
                created_at: 0,
                name: "n".to_owned(),
                message: "m".to_owned(),
            })
            .collect();
        assert_eq!(script(&rows).matches(INSERT).count(), 3);
        let large: Vec<Row> = (1..=3)
            .map(|id| Row {
                id,
                created_at: 0,
                name: "n".to_owned(),
                message: "x".repeat(BYTES_PER_STATEMENT),
            })
            .collect();
        assert_eq!(script(&large).matches(INSERT).count(), 3);
        // No entries: no INSERT at all, and the script still runs.
        assert_eq!(script(&[]).matches(INSERT).count(), 0);
    }
}
