-- A live logbook: Supabase Realtime's postgres_changes sends each new, changed or deleted entry to the pages that
-- subscribed, by reading the changes of the tables in the `supabase_realtime` publication from the write-ahead log.
-- This adds `geocache_logs` to it.
-- Running it again changes nothing. It never drops the publication, nor takes other tables out of it: other features
-- may rely on them. Hosted projects have the publication already; on a bare PostgreSQL it is created here, empty but
-- for this table.
--
-- What subscribers receive is still limited by the table's grants and row-level security: Realtime checks each INSERT
-- and UPDATE against the subscriber's role and policies before sending it. A DELETE cannot be checked against a row that
-- no longer exists, so every subscriber gets it, with only the primary key (`id`) in `old`: the table keeps the default
-- replica identity on purpose, so a deleted entry's name and message never leave the database.
--
-- Cost (docs/database.md, "What live entries cost"): every change of the table is decoded from the write-ahead log while Realtime listens, and each
-- change sent to each subscriber is one Realtime message on the plan's quota.

do $realtime$
begin
  if not exists (select from pg_catalog.pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
  -- `pg_publication_tables` also lists the table when the publication is FOR ALL TABLES, where adding it is an error.
  if not exists (
    select from pg_catalog.pg_publication_tables
     where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'geocache_logs'
  ) then
    alter publication supabase_realtime add table public.geocache_logs;
  end if;
end
$realtime$;
