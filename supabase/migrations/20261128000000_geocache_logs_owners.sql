-- The logbook's owner: an account named in the database may remove entries, see what was removed, and put a removed
-- entry back. Visitors learn of removals and restores, and of nothing else about them.
-- Running it again changes nothing (every statement checks or replaces what it creates); owners, removed entries and
-- recorded changes are kept.
--
-- Owners are named here, never in the page: create the account in the dashboard (Authentication -> Users -> Add user),
-- then in the SQL editor:
--   insert into private.logbook_owners (user_id) select id from auth.users where email = 'owner@example.com';
--
-- Who is asking comes from the request's access token, which PostgREST hands to PostgreSQL as `request.jwt.claims`:
-- `auth.uid()` is its `sub` (the account) and `auth.jwt() ->> 'aal'` its assurance level, `aal2` once the account has
-- passed its second factor in this session. Without a request (the SQL editor, migrations, direct connections) both are
-- NULL.

-- The schema the sign limit created (only its owner may use it); created here too so this file stands on its own.
create schema if not exists private;
revoke all on schema private from public;

-- One row per owner. Removing the account removes the row with it, so a deleted account is never an owner again.
create table if not exists private.logbook_owners (
  user_id uuid primary key references auth.users (id) on delete cascade
);
revoke all on table private.logbook_owners from public, anon, authenticated, service_role;

-- Whether the request's account is an owner. Row-level security evaluates its policies as the request's role, which
-- cannot look into the private schema: this function does, as its owner (SECURITY DEFINER), and answers one boolean
-- about the caller only. The fixed, empty search_path keeps a caller's objects from standing in for the ones named here.
create or replace function private.is_logbook_owner()
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (select from private.logbook_owners where user_id = auth.uid());
$$;
revoke all on function private.is_logbook_owner() from public, anon, authenticated, service_role;
-- The delete policy below runs it as `authenticated`; anon has no delete privilege and never gets that far.
grant execute on function private.is_logbook_owner() to authenticated;

-- Refuses (42501, which PostgREST answers with 403 for a signed-in role) unless the caller is an owner signed in with a
-- second factor. The two functions below run as their owner and so bypass row-level security: they check this first.
create or replace function private.require_owner_at_aal2(action text)
returns void
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  if not (private.is_logbook_owner() and coalesce(auth.jwt() ->> 'aal', '') = 'aal2') then
    raise sqlstate '42501' using
      message = pg_catalog.format('Only the logbook''s owner, signed in with a second factor, may %s.', action);
  end if;
end;
$$;
revoke all on function private.require_owner_at_aal2(text) from public, anon, authenticated, service_role;

-- Removing an entry is PostgREST's own DELETE. `authenticated` gets the privilege and row-level security decides which
-- rows it reaches: an owner's (permissive), and only at aal2 (restrictive: it narrows every other delete policy of the
-- role). A signed-in account that is not an owner, an owner at aal1 or a former owner deletes no row, and PostgREST
-- answers 204 as for any filter that matches nothing. `anon` keeps no delete privilege: 401, 42501.
-- The restrictive policy names `for delete`: without it (as in Supabase's MFA guide) it would also hide every entry from
-- signed-in readers at aal1.
grant delete on table public.geocache_logs to authenticated;

drop policy if exists "the logbook's owners may remove entries" on public.geocache_logs;
create policy "the logbook's owners may remove entries"
  on public.geocache_logs for delete
  to authenticated
  using ((select private.is_logbook_owner()));

drop policy if exists "removing entries needs a second factor" on public.geocache_logs;
create policy "removing entries needs a second factor"
  on public.geocache_logs as restrictive for delete
  to authenticated
  using ((select auth.jwt() ->> 'aal') = 'aal2');

-- Every removed entry is kept for the owner, whoever removed it (an owner, the service role, the SQL editor), with when
-- and by whom (NULL outside an API request, or once that account is deleted: deleting an account never deletes what it
-- removed). No API role can read it; the owner lists it with public.removed_geocache_logs().
create table if not exists private.removed_geocache_logs (
  id          bigint primary key,
  created_at  timestamptz not null,
  name        text not null,
  message     text not null,
  removed_at  timestamptz not null default now(),
  removed_by  uuid references auth.users (id) on delete set null
);
-- The owner's list is newest-removed first, and the clean-up finds the oldest: one index serves both.
create index if not exists removed_geocache_logs_removed_at_idx
  on private.removed_geocache_logs (removed_at desc, id desc);
revoke all on table private.removed_geocache_logs from public, anon, authenticated, service_role;

-- What a visitor's device needs to bring its copy up to date: which entries were removed, and which came back (restored
-- by the owner, or imported) with a `created_at` older than the device's catch-up window. Only the entry's id, the kind
-- of change and when: never a removed entry's name or message, nor who removed it. Devices read it by `seq` (keyset),
-- from the cursor they kept. It is not in the `supabase_realtime` publication: open pages learn of removals from the
-- table's own DELETE events.
create table if not exists public.geocache_log_changes (
  seq         bigint generated always as identity primary key,
  entry_id    bigint not null,
  change      text not null check (change in ('removed', 'added')),
  changed_at  timestamptz not null default now()
);
create index if not exists geocache_log_changes_changed_at_idx on public.geocache_log_changes (changed_at);

alter table public.geocache_log_changes enable row level security;
-- Supabase's default privileges hand every new table in `public` to the API roles: take that back, then grant reading
-- only. Rows are written by the triggers below alone, which run as the table's owner.
revoke all on table public.geocache_log_changes from anon, authenticated, service_role;
revoke all on sequence public.geocache_log_changes_seq_seq from anon, authenticated, service_role;
grant select on table public.geocache_log_changes to anon, authenticated, service_role;

drop policy if exists "logbook changes are readable by everyone" on public.geocache_log_changes;
create policy "logbook changes are readable by everyone"
  on public.geocache_log_changes for select
  to anon, authenticated
  using (true);

-- Forgets changes older than 30 days (a device that has not caught up for that long reads the whole logbook again), a
-- bounded number per call. SKIP LOCKED: a row another transaction holds is left for a later call rather than waited for.
create or replace function private.forget_old_geocache_log_changes()
returns void
language sql
security definer
set search_path = ''
as $$
  delete from public.geocache_log_changes
   where ctid = any (array(
     select ctid from public.geocache_log_changes
      where changed_at < pg_catalog.now() - interval '30 days'
      limit 100
        for update skip locked));
$$;

-- After each DELETE statement, whoever ran it, for every row it deleted: the row into the removed entries (replacing an
-- older copy of the same id, should an entry have been imported again and removed again), a 'removed' change, then one
-- bounded clean-up of removed entries older than 90 days and of old changes. `removed_by` is the request's account
-- when it still exists. Per statement, over its deleted rows (a transition table): clearing a whole table is one
-- insert, not one per row.
create or replace function private.geocache_logs_removed()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  remover uuid := (select users.id from auth.users as users where users.id = auth.uid());
begin
  if not exists (select from old_rows) then
    return null;
  end if;
  insert into private.removed_geocache_logs as removed (id, created_at, name, message, removed_at, removed_by)
    select gone.id, gone.created_at, gone.name, gone.message, pg_catalog.now(), remover
      from old_rows as gone
    on conflict (id) do update
      set created_at = excluded.created_at, name = excluded.name, message = excluded.message,
          removed_at = excluded.removed_at, removed_by = excluded.removed_by;
  insert into public.geocache_log_changes (entry_id, change)
    select gone.id, 'removed' from old_rows as gone order by gone.id;

  delete from private.removed_geocache_logs
   where ctid = any (array(
     select ctid from private.removed_geocache_logs
      where removed_at < pg_catalog.now() - interval '90 days'
      limit 100
        for update skip locked));
  perform private.forget_old_geocache_log_changes();
  return null;
end;
$$;

-- After each INSERT statement, for every row it stored that is older than the statement (a restored or imported entry
-- keeps its `created_at`): an 'added' change, so devices whose copy is newer than that entry still learn of it. A
-- visitor's sign is stamped now() and records nothing.
create or replace function private.geocache_logs_added()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into public.geocache_log_changes (entry_id, change)
    select added.id, 'added' from new_rows as added where added.created_at < pg_catalog.now() order by added.id;
  if found then
    perform private.forget_old_geocache_log_changes();
  end if;
  return null;
end;
$$;

revoke all on function private.forget_old_geocache_log_changes(), private.geocache_logs_removed(),
  private.geocache_logs_added() from public, anon, authenticated, service_role;

drop trigger if exists geocache_logs_removed on public.geocache_logs;
create trigger geocache_logs_removed
  after delete on public.geocache_logs
  referencing old table as old_rows
  for each statement
  execute function private.geocache_logs_removed();

drop trigger if exists geocache_logs_added on public.geocache_logs;
create trigger geocache_logs_added
  after insert on public.geocache_logs
  referencing new table as new_rows
  for each statement
  execute function private.geocache_logs_added();

-- POST /rest/v1/rpc/removed_geocache_logs: every removed entry, most recently removed first, for an owner at aal2.
-- PostgREST applies `order`, `limit`, filters and its row cap to the rows, so the owner's page pages through them.
-- STABLE: it only reads, so PostgREST also answers GET.
create or replace function public.removed_geocache_logs()
returns table (id bigint, created_at timestamptz, name text, message text, removed_at timestamptz)
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  perform private.require_owner_at_aal2('list removed entries');
  return query
    select removed.id, removed.created_at, removed.name, removed.message, removed.removed_at
      from private.removed_geocache_logs as removed
     order by removed.removed_at desc, removed.id desc;
end;
$$;

-- POST /rest/v1/rpc/restore_geocache_log {"entry_id": <id>}: puts a removed entry back as it was (its id, created_at,
-- name and message; `id` is GENERATED ALWAYS, hence OVERRIDING SYSTEM VALUE), for an owner at aal2, and returns it.
-- Its insert fires the table's triggers as any insert does: an 'added' change (its created_at is in the past), and the
-- Realtime INSERT. The sign limit does not apply (it counts anon's and authenticated's inserts, and this runs as the
-- function's owner); the sign receipts neither: an Idempotency-Key sent with this call names no sign, so it is taken
-- out of the request's headers for the rest of the request before the insert.
create or replace function public.restore_geocache_log(entry_id bigint)
returns setof public.geocache_logs
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  removed   private.removed_geocache_logs;
  restored  public.geocache_logs;
begin
  perform private.require_owner_at_aal2('restore removed entries');
  delete from private.removed_geocache_logs as gone
   where gone.id = restore_geocache_log.entry_id
  returning gone.* into removed;
  if not found then
    raise sqlstate 'P0002' using
      message = pg_catalog.format('Entry %s is not a removed entry.', coalesce(restore_geocache_log.entry_id::text, 'null'));
  end if;
  perform pg_catalog.set_config('request.headers',
    (coalesce(nullif(pg_catalog.current_setting('request.headers', true), ''), '{}')::jsonb - 'idempotency-key')::text,
    true);
  insert into public.geocache_logs (id, created_at, name, message)
    overriding system value
    values (removed.id, removed.created_at, removed.name, removed.message)
    returning * into restored;
  return next restored;
end;
$$;

-- Only signed-in accounts may call them (the functions then check owner and aal2 themselves); anon and the service role
-- get PostgreSQL's own refusal. Explicit revokes: Supabase's default privileges grant every new function in `public` to
-- every API role.
revoke all on function public.removed_geocache_logs() from public, anon, authenticated, service_role;
revoke all on function public.restore_geocache_log(bigint) from public, anon, authenticated, service_role;
grant execute on function public.removed_geocache_logs() to authenticated;
grant execute on function public.restore_geocache_log(bigint) to authenticated;
