// @ts-check
// A real PostgreSQL set up like a Supabase project, for the migration's tests: Supabase's API roles, a
// migration runner `postgres` that is not a superuser, PostgREST's login role `authenticator` (which switches to
// the request's role with SET ROLE), and the project's migrations applied as `postgres`.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { startPostgres } from '../../scripts/lib/postgres.mjs';
import { repoRoot } from '../../scripts/lib/repo.mjs';

export const MIGRATIONS_DIR = path.join(repoRoot, 'supabase', 'migrations');
export const TABLE = 'public.geocache_logs';
/** @typedef {'anon' | 'authenticated' | 'service_role'} ApiRole */
/** @type {readonly ApiRole[]} */
export const API_ROLES = ['anon', 'authenticated', 'service_role'];

/**
 * Supabase's roles, created only when absent (as supabase/postgres's initial schema creates them). The
 * password is for the two login roles.
 * @param {string} password
 */
function rolesSql(password) {
  const literal = pg.escapeLiteral(password);
  return `
    do $roles$
    begin
      if not exists (select from pg_roles where rolname = 'anon') then
        create role anon nologin noinherit;
      end if;
      if not exists (select from pg_roles where rolname = 'authenticated') then
        create role authenticated nologin noinherit;
      end if;
      if not exists (select from pg_roles where rolname = 'service_role') then
        create role service_role nologin noinherit bypassrls;
      end if;
      -- Owns the auth schema's tables on a hosted project (GoTrue's migrations run as it).
      if not exists (select from pg_roles where rolname = 'supabase_auth_admin') then
        create role supabase_auth_admin nologin noinherit;
      end if;
      if not exists (select from pg_roles where rolname = 'authenticator') then
        create role authenticator login noinherit;
      end if;
      -- The hosted project's migration runner: owns what migrations create, is not a superuser.
      if not exists (select from pg_roles where rolname = 'postgres') then
        create role postgres login createrole nosuperuser;
      end if;
    end
    $roles$;
    alter role authenticator password ${literal};
    alter role postgres password ${literal};
    grant anon, authenticated, service_role to authenticator;
  `;
}

/**
 * GoTrue's `auth` schema as a hosted project has it, reduced to what the migrations and the tests use: `auth.users`
 * (one row per account; the tests insert accounts directly, as the dashboard's *Add user* does) and the functions
 * policies call, defined as GoTrue's migrations define them. `auth.uid()` and `auth.jwt()` read the request's
 * claims, which PostgREST sets as `request.jwt.claims` (the older `request.jwt.claim.sub` and `request.jwt.claim`
 * settings first, as GoTrue's definitions do); outside a request they are NULL. As on a hosted project, the API
 * roles may call them and the project owner `postgres` may read and reference the accounts.
 */
const AUTH_SCHEMA_SQL = `
  create schema if not exists auth authorization supabase_auth_admin;
  create table if not exists auth.users (
    id          uuid primary key,
    email       varchar(255) unique,
    created_at  timestamptz default now(),
    updated_at  timestamptz default now()
  );
  alter table auth.users owner to supabase_auth_admin;

  create or replace function auth.uid() returns uuid language sql stable as $$
    select coalesce(
      nullif(current_setting('request.jwt.claim.sub', true), ''),
      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
    )::uuid
  $$;
  create or replace function auth.role() returns text language sql stable as $$
    select coalesce(
      nullif(current_setting('request.jwt.claim.role', true), ''),
      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
    )::text
  $$;
  create or replace function auth.jwt() returns jsonb language sql stable as $$
    select coalesce(
      nullif(current_setting('request.jwt.claim', true), ''),
      nullif(current_setting('request.jwt.claims', true), '')
    )::jsonb
  $$;
  alter function auth.uid() owner to supabase_auth_admin;
  alter function auth.role() owner to supabase_auth_admin;
  alter function auth.jwt() owner to supabase_auth_admin;

  grant usage on schema auth to anon, authenticated, service_role, postgres;
  grant all on all tables in schema auth to postgres;
  grant all on all routines in schema auth to postgres;
`;

/**
 * Per database: the grants Supabase makes (the project owner may create schemas, the API roles may use `public`),
 * the `auth` schema, and optionally Supabase's default privileges, which hand every new table, sequence and function
 * in `public` to the API roles (the migration must take back what it does not want).
 * @param {string} name
 * @param {boolean} supabaseDefaultPrivileges
 */
function databaseSql(name, supabaseDefaultPrivileges) {
  const defaults = supabaseDefaultPrivileges
    ? `
      alter default privileges for role postgres in schema public grant all on tables to anon, authenticated, service_role;
      alter default privileges for role postgres in schema public grant all on sequences to anon, authenticated, service_role;
      alter default privileges for role postgres in schema public grant all on functions to anon, authenticated, service_role;`
    : '';
  return `
    grant create on database ${pg.escapeIdentifier(name)} to postgres;
    grant usage, create on schema public to postgres;
    grant usage on schema public to anon, authenticated, service_role;
    ${AUTH_SCHEMA_SQL}
    ${defaults}
  `;
}

/**
 * @typedef {object} SupabaseDatabases
 * @property {import('../../scripts/lib/postgres.mjs').RunningPostgres} server
 * @property {(user: 'supabase_admin' | 'postgres' | 'authenticator', database: string) => Promise<pg.Client>} connect
 *   a connected client; closed by `stop()`
 * @property {(name: string, options: { supabaseDefaultPrivileges: boolean }) => Promise<void>} createDatabase
 *   a database prepared like a Supabase project's, without the migrations
 * @property {(database: string) => Promise<void>} applyMigrations  every file in supabase/migrations, in order, as `postgres`
 * @property {() => Promise<void>} stop
 */

/**
 * Starts a throwaway cluster with Supabase's roles.
 * @returns {Promise<SupabaseDatabases>}
 */
export async function startSupabasePostgres() {
  const server = await startPostgres();
  /** @type {pg.Client[]} */
  const clients = [];
  /** @type {SupabaseDatabases['connect']} */
  const connect = async (user, database) => {
    const client = new pg.Client({ host: server.host, port: server.port, user, password: server.password, database });
    await client.connect();
    clients.push(client);
    return client;
  };
  /**
   * Runs `body` on a connection of its own, closed afterwards: setting up a database holds no connection open (the
   * cluster allows few).
   * @param {'supabase_admin' | 'postgres'} user
   * @param {string} database
   * @param {(client: pg.Client) => Promise<void>} body
   */
  const withConnection = async (user, database, body) => {
    const client = new pg.Client({ host: server.host, port: server.port, user, password: server.password, database });
    await client.connect();
    try {
      await body(client);
    } finally {
      await client.end();
    }
  };
  const stop = async () => {
    await Promise.allSettled(clients.map((client) => client.end()));
    await server.stop();
  };
  try {
    const admin = await connect('supabase_admin', 'postgres');
    await admin.query(rolesSql(server.password));
    return {
      server,
      connect,
      createDatabase: async (name, { supabaseDefaultPrivileges }) => {
        await admin.query(`create database ${pg.escapeIdentifier(name)}`);
        await withConnection('supabase_admin', name, (client) => client.query(databaseSql(name, supabaseDefaultPrivileges)).then(() => {}));
      },
      applyMigrations: (database) =>
        withConnection('postgres', database, async (owner) => {
          for (const file of await migrationFiles()) {
            try {
              // No parameters: the simple query protocol runs a file's statements as one batch, as psql -f would.
              await owner.query(await readFile(file, 'utf8'));
            } catch (error) {
              throw new Error(`${path.relative(repoRoot, file)} failed: ${/** @type {Error} */ (error).message}`, { cause: error });
            }
          }
        }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A cluster with one database, `hosted`, prepared as a hosted project is (Supabase's default privileges on) with every
 * migration applied, and connections to it as PostgREST's login role (`api`) and as the platform's admin.
 */
export async function startHostedProject() {
  const postgres = await startSupabasePostgres();
  try {
    await postgres.createDatabase('hosted', { supabaseDefaultPrivileges: true });
    await postgres.applyMigrations('hosted');
    const api = await postgres.connect('authenticator', 'hosted');
    const admin = await postgres.connect('supabase_admin', 'hosted');
    return { postgres, api, admin };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}

/** The migration files in the order the Supabase CLI applies them (by their timestamp prefix). */
export async function migrationFiles() {
  const names = (await readdir(MIGRATIONS_DIR)).filter((name) => /^\d+_.+\.sql$/.test(name)).sort();
  if (names.length === 0) throw new Error(`no <timestamp>_<name>.sql files in ${MIGRATIONS_DIR}`);
  return names.map((name) => path.join(MIGRATIONS_DIR, name));
}

/**
 * Runs `body` as `role` inside a transaction that is rolled back afterwards, as PostgREST runs a request
 * (`SET LOCAL ROLE` on the authenticator's connection).
 * @template T
 * @param {pg.Client} authenticator
 * @param {ApiRole} role
 * @param {(client: pg.Client) => Promise<T>} body
 * @returns {Promise<T>}
 */
export async function asRole(authenticator, role, body) {
  await authenticator.query('begin');
  try {
    await authenticator.query(`set local role ${pg.escapeIdentifier(role)}`);
    return await body(authenticator);
  } finally {
    await authenticator.query('rollback');
  }
}

/**
 * Sets `request.headers` for the current transaction as PostgREST does for each request: the request's headers as
 * one JSON object with lower-case names.
 * @param {pg.Client} client
 * @param {Record<string, string>} headers
 */
export async function setRequestHeaders(client, headers) {
  await client.query(`select set_config('request.headers', $1, true)`, [JSON.stringify(headers)]);
}

/**
 * Runs one statement inside the current transaction; a failure is returned (the transaction stays usable).
 * @param {pg.Client} client
 * @param {string} sql
 * @param {unknown[]} [values]
 * @returns {Promise<{ rows: Record<string, unknown>[], rowCount: number | null, error: null } | { rows: null, rowCount: null, error: SqlError }>}
 */
export async function attempt(client, sql, values = []) {
  await client.query('savepoint attempt');
  try {
    const result = await client.query(sql, values);
    await client.query('release savepoint attempt');
    return { rows: result.rows, rowCount: result.rowCount, error: null };
  } catch (error) {
    await client.query('rollback to savepoint attempt');
    if (!(error instanceof pg.DatabaseError)) throw error;
    return { rows: null, rowCount: null, error: sqlError(error) };
  }
}

/** @typedef {{ code: string, message: string, details: string | null, hint: string | null }} SqlError */

/**
 * A PostgreSQL error in PostgREST's error-body shape (PostgREST passes these four fields through).
 * @param {pg.DatabaseError} error
 * @returns {SqlError}
 */
export function sqlError(error) {
  return { code: error.code ?? '', message: error.message, details: error.detail ?? null, hint: error.hint ?? null };
}
