-- The logbook table, as the page and the local emulator expect it.
-- Apply with `supabase db push` (Supabase CLI) or `psql "$DATABASE_URL" -f <this file>`.

create table if not exists public.geocache_logs (
  id         bigint generated always as identity primary key,
  created_at timestamptz not null default now(),
  name       text not null,
  message    text not null
);

-- The page reads every entry newest first: serve that order from an index.
create index if not exists geocache_logs_created_at_desc_idx
  on public.geocache_logs (created_at desc, id desc);

-- The anon key is public by design; row-level security is what protects the table.
alter table public.geocache_logs enable row level security;

-- Visitors (anon) and signed-in users may read every entry and add new ones;
-- only the service role (which bypasses RLS) may change or remove entries.
revoke all on table public.geocache_logs from anon, authenticated;
grant select on table public.geocache_logs to anon, authenticated;
grant insert (name, message) on table public.geocache_logs to anon, authenticated;

drop policy if exists "logbook entries are readable by everyone" on public.geocache_logs;
create policy "logbook entries are readable by everyone"
  on public.geocache_logs for select
  to anon, authenticated
  using (true);

drop policy if exists "anyone may sign the logbook" on public.geocache_logs;
create policy "anyone may sign the logbook"
  on public.geocache_logs for insert
  to anon, authenticated
  with check (true);

grant all on table public.geocache_logs to service_role;
