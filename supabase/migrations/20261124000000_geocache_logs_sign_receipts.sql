-- Each sign is stored once, however often it is sent: a client that sends a sign, loses the answer and sends it again
-- (a dropped connection, a timeout, a retry) puts one entry in the logbook, not two.
-- Running it again changes nothing (every statement checks or replaces what it creates); receipts already recorded
-- are kept.
--
-- The client gives each sign a random UUID in an `Idempotency-Key` request header, the same one on every resend.
-- PostgREST hands the request's headers to PostgreSQL as `request.headers` (a JSON object with lower-case names), so
-- the table and the request body keep their shape: the key is never a column of `public.geocache_logs`.
--
-- The first request with a key records it in `private.sign_receipts` and stores its rows; a later request with the
-- same key stores nothing and is still answered as a success (PostgREST: 201, and `[]` when the client asked for the
-- stored rows). A request without the header is stored as sent, with no receipt. A header that is not a UUID is
-- refused (PT400, HTTP 400) rather than ignored: ignoring it would quietly store every resend again.
--
-- The key covers the whole request: PostgREST runs each request as one transaction, and every row that transaction
-- inserts with the key is stored; another transaction with the key stores none. A resend skipped here is never
-- counted by the sign limit (its AFTER trigger sees only the rows really stored), so it is never refused for it.
--
-- Receipts are kept for 30 days, far longer than any client retries a sign, then deleted as new signs arrive; a
-- sign resent after that would be stored again.

-- The schema the sign limit created (only its owner may use it); created here too so this file stands on its own.
create schema if not exists private;
revoke all on schema private from public;

-- One row per key: the primary key is what the trigger looks up, and what makes two concurrent requests with one key
-- store one sign (the second waits on the first's index entry until the first commits or rolls back).
create table if not exists private.sign_receipts (
  key             uuid primary key,
  received_at     timestamptz not null default now(),
  -- The transaction (request) that recorded the key: its further rows with the key are stored, a resend's are not.
  transaction_id  xid8 not null default pg_current_xact_id()
);
-- The clean-up finds the oldest receipts through this index, without reading the whole table.
create index if not exists sign_receipts_received_at_idx on private.sign_receipts (received_at);

revoke all on table private.sign_receipts from public;

-- Before each row is stored: no key, the row is stored; a key seen by an earlier request, the row is skipped (NULL);
-- a new key is recorded and the row stored. It runs as the owner (SECURITY DEFINER) because the callers may not touch
-- the private schema; the fixed, empty search_path keeps a caller's objects from standing in for the ones named here.
--
-- Race-free: the receipt is claimed with INSERT ... ON CONFLICT DO NOTHING. When another transaction holds the same
-- key uncommitted, the insert waits for it: if it commits, this one finds the key taken and skips its row; if it
-- rolls back (a refused or failed request), this one records the key and stores its row.
create or replace function private.geocache_logs_sign_once()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  key_text  text := nullif(pg_catalog.current_setting('request.headers', true), '')::json ->> 'idempotency-key';
  sign_key  uuid;
  recorded  integer;
begin
  if key_text is null then
    return new;
  end if;
  -- The canonical 8-4-4-4-12 form only (either case): PostgreSQL's uuid type would also take braces or missing
  -- hyphens, which no client sends on purpose.
  if key_text !~ '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$' then
    raise sqlstate 'PT400' using
      message = 'The Idempotency-Key header is not a UUID.',
      detail = 'A sign''s key is a UUID written as 8-4-4-4-12 hexadecimal digits, such as 123e4567-e89b-42d3-a456-426614174000.',
      hint = 'Send a new random UUID with each sign and the same one when sending it again, or leave the header out.';
  end if;
  sign_key := key_text::uuid;

  insert into private.sign_receipts (key) values (sign_key) on conflict (key) do nothing;
  get diagnostics recorded = row_count;
  if recorded = 0 then
    -- Taken: by this request (an earlier row of its body), whose rows are all stored, or by an earlier request.
    if exists (select from private.sign_receipts
                where key = sign_key and transaction_id = pg_catalog.pg_current_xact_id()) then
      return new;
    end if;
    return null;
  end if;

  -- Forget receipts older than 30 days, a bounded number per new receipt. SKIP LOCKED: a row another transaction
  -- holds is left for a later sign rather than waited for.
  delete from private.sign_receipts
   where ctid = any (array(
     select ctid from private.sign_receipts
      where received_at < pg_catalog.now() - interval '30 days'
      limit 100
        for update skip locked));
  return new;
end;
$$;

revoke all on function private.geocache_logs_sign_once() from public;

-- For every role: the key is part of the request, whoever sends it. The WHEN clause keeps signs without a key (and
-- statements from the SQL editor, migrations and direct connections, which have no request.headers) from calling
-- the function at all.
drop trigger if exists geocache_logs_sign_once on public.geocache_logs;
create trigger geocache_logs_sign_once
  before insert on public.geocache_logs
  for each row
  when ((nullif(current_setting('request.headers', true), '')::json ->> 'idempotency-key') is not null)
  execute function private.geocache_logs_sign_once();
