-- A limit on how fast visitors may sign, so one client cannot bury the logbook: neither with one request carrying
-- a JSON array of thousands of entries, nor with a flood of single signs, nor (from many addresses at once) with more
-- than the logbook can take in a minute.
-- Running it again changes nothing, and keeps limits an owner has changed since (see private.sign_limits).
--
-- It uses only what PostgREST gives PostgreSQL: the statement's rows, and `request.headers`, the JSON object of the
-- request's headers (lower-case names) that PostgREST sets for each request. Only PostgREST sets it, so the SQL
-- editor, migrations and direct database connections are never limited, and neither is the service role.
--
-- The client's address: hosted Supabase serves its API through Cloudflare, which sets `cf-connecting-ip` to the
-- address that connected to it, replacing whatever the client sent. `x-forwarded-for` is not used: its left-most
-- entry is whatever the client wrote there.
--
-- Mobile carriers put many visitors behind one address (carrier-grade NAT), so the limit per address is a minute's
-- budget a whole group signing at one cache stays well inside; the ceiling for everyone together is what stops a
-- flood from many addresses.

create schema if not exists private;
-- Only the owner (the migration runner) may use it: anon, authenticated and the service role cannot even look in.
revoke all on schema private from public;

-- The thresholds, one row. A NULL turns that limit off. Change them with a new migration (docs/database.md).
create table if not exists private.sign_limits (
  one_row                       boolean primary key default true check (one_row),
  -- Rows in one request: the page signs one entry per request; a few at once are fine, an array of thousands is not.
  max_signs_per_request         integer check (max_signs_per_request > 0),
  -- Signs per minute from one client address (an IPv6 address counts by its /64, the block one subscriber gets).
  max_signs_per_address_minute  integer check (max_signs_per_address_minute > 0),
  -- Signs per minute from all anonymous and signed-in visitors together.
  max_signs_per_minute          integer check (max_signs_per_minute > 0),
  -- The request header that carries the client's address, set by the proxy in front of PostgREST.
  client_address_header         text not null check (client_address_header = lower(client_address_header))
);

insert into private.sign_limits
  (max_signs_per_request, max_signs_per_address_minute, max_signs_per_minute, client_address_header)
values
  (10, 30, 300, 'cf-connecting-ip')
on conflict (one_row) do nothing;

-- Signs accepted per one-minute window: one row per (client address, minute), and one row per minute for everyone
-- together (client '*'). Older rows are deleted as new signs arrive, so the table stays a few rows long.
create table if not exists private.sign_counts (
  client        text not null,
  window_start  timestamptz not null,
  signs         integer not null check (signs > 0),
  primary key (client, window_start)
);
create index if not exists sign_counts_window_start_idx on private.sign_counts (window_start);

revoke all on table private.sign_limits, private.sign_counts from public;

-- The counting key for a header value: the address itself, an IPv6 address's /64 network (one subscriber can pick
-- any address in it; an IPv4 address written as IPv6 stays whole), or 'unknown' when the header is missing or not an
-- address (those requests share one budget).
create or replace function private.sign_limit_client(header_value text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  address inet;
begin
  if header_value is null then
    return 'unknown';
  end if;
  address := pg_catalog.btrim(header_value)::inet;
  if pg_catalog.family(address) = 6 and not address operator(pg_catalog.<<=) '::ffff:0:0/96'::inet then
    return pg_catalog.network(pg_catalog.set_masklen(address, 64))::text;
  end if;
  return pg_catalog.host(address);
exception
  when invalid_text_representation then
    return 'unknown';
end;
$$;

-- Counts the rows one INSERT statement stored and refuses the statement (so none of its rows are kept) when a limit
-- is passed. It runs as the owner (SECURITY DEFINER) because the callers may not touch the private schema; the fixed,
-- empty search_path keeps a caller's objects from standing in for the ones named here. A refused statement's counts
-- roll back with it, so refused attempts do not use up anyone's budget.
--
-- Race-free: each count is one INSERT ... ON CONFLICT DO UPDATE on its (client, minute) row, which waits for any
-- concurrent transaction holding that row and then adds to its committed value, so the number it returns is exact.
create or replace function private.geocache_logs_sign_limit()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  limits        private.sign_limits;
  new_signs     integer;
  client_key    text;
  this_minute   timestamptz := pg_catalog.date_trunc('minute', pg_catalog.now());
  counted       integer;
begin
  select count(*) into new_signs from new_rows;
  if new_signs = 0 then
    return null;
  end if;
  select * into limits from private.sign_limits;

  if new_signs > limits.max_signs_per_request then
    raise sqlstate 'PT429' using
      message = pg_catalog.format('Too many entries in one request: %s, at most %s.', new_signs, limits.max_signs_per_request),
      detail = 'The logbook takes a few entries per request, not a whole list.',
      hint = 'Sign one entry at a time.';
  end if;

  client_key := private.sign_limit_client(
    pg_catalog.current_setting('request.headers', true)::json ->> limits.client_address_header);
  insert into private.sign_counts as counts (client, window_start, signs)
    values (client_key, this_minute, new_signs)
    on conflict (client, window_start) do update set signs = counts.signs + excluded.signs
    returning counts.signs into counted;
  if counted > limits.max_signs_per_address_minute then
    raise sqlstate 'PT429' using
      message = 'Too many signs from your network in the last minute.',
      detail = pg_catalog.format('At most %s signs a minute come from one address.', limits.max_signs_per_address_minute),
      hint = 'Wait a minute, then sign again.';
  end if;

  insert into private.sign_counts as counts (client, window_start, signs)
    values ('*', this_minute, new_signs)
    on conflict (client, window_start) do update set signs = counts.signs + excluded.signs
    returning counts.signs into counted;
  if counted > limits.max_signs_per_minute then
    raise sqlstate 'PT429' using
      message = 'The logbook is taking too many signs right now.',
      detail = pg_catalog.format('At most %s signs a minute are taken from all visitors together.', limits.max_signs_per_minute),
      hint = 'Wait a minute, then sign again.';
  end if;

  -- Forget minutes before the previous one (a request that began just before the minute turned may still be
  -- counting in the previous one), a bounded number per statement. SKIP LOCKED: a row another transaction holds is
  -- left for a later statement rather than waited for, so concurrent signs never wait on (or deadlock over) it.
  delete from private.sign_counts
   where ctid = any (array(
     select ctid from private.sign_counts
      where window_start < this_minute - interval '1 minute'
      limit 100
        for update skip locked));
  return null;
end;
$$;

revoke all on function private.sign_limit_client(text), private.geocache_logs_sign_limit() from public;

-- After the statement, over the rows it really stored: a row an earlier trigger skips (such as a re-sent entry that is
-- already stored) is not counted. The WHEN clause is evaluated as the caller, so `current_user` is the request's
-- role; inside the SECURITY DEFINER function it would be the owner.
drop trigger if exists geocache_logs_sign_limit on public.geocache_logs;
create trigger geocache_logs_sign_limit
  after insert on public.geocache_logs
  referencing new table as new_rows
  for each statement
  when (current_user in ('anon', 'authenticated')
        and nullif(current_setting('request.headers', true), '') is not null)
  execute function private.geocache_logs_sign_limit();
