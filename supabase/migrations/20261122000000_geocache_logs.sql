-- The logbook table, as the page and the local emulator expect it.
-- Apply with `supabase db push` (Supabase CLI) or `psql "$DATABASE_URL" -f <this file>`.
-- Running it again changes nothing (every statement checks or replaces what it creates).
--
-- Supabase's API roles: `anon` (the public anon key: every visitor), `authenticated` (a signed-in user),
-- `service_role` (the secret service key; it bypasses row-level security). The anon key ships in the page,
-- so it is public by design: these grants and policies are what protect the table.

create table if not exists public.geocache_logs (
  id         bigint generated always as identity primary key,
  created_at timestamptz not null default now(),
  name       text not null,
  message    text not null
);

-- The page reads every entry newest first (`order by created_at desc`): the index returns rows in that
-- order, so no sort is needed. `id` breaks ties between entries signed in the same microsecond.
create index if not exists geocache_logs_created_at_desc_idx
  on public.geocache_logs (created_at desc, id desc);

alter table public.geocache_logs enable row level security;

-- Privileges first. Supabase's default privileges grant everything on new tables (and their sequences) in
-- `public` to anon and authenticated; take that back and grant only what the page needs.
revoke all on table public.geocache_logs from anon, authenticated;
revoke all on sequence public.geocache_logs_id_seq from anon, authenticated;
grant select on table public.geocache_logs to anon, authenticated;
-- Column privilege: visitors write only `name` and `message`; `id` and `created_at` are the server's.
grant insert (name, message) on table public.geocache_logs to anon, authenticated;
grant all on table public.geocache_logs to service_role;

-- Then row-level security: with it enabled, a role sees or writes only the rows a policy allows. There is
-- no update or delete policy, so even a later, mistaken UPDATE/DELETE grant to anon or authenticated
-- would change no row. The service role bypasses these policies (Supabase creates it BYPASSRLS).
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
