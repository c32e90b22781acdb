//! `/rest/v1/{table}`: PostgREST's table endpoint for `geocache_logs` and, read only,
//! `geocache_log_changes`.
//!
//! Checks run in PostgREST's order: JWT (PGRST3xx), schema profile (PGRST106), table
//! (PGRST205), method (PGRST117), preferences, media types, query parameters (PGRST100), body
//! (PGRST102/PGRST204), then what PostgreSQL would check: columns (42703), privileges (42501),
//! values (22P02, 23502, ...).
//!
//! The table follows the project's migration (supabase/migrations): `id` is `GENERATED ALWAYS AS
//! IDENTITY`, so writing it fails for every role with PostgreSQL's 428C9, raised by the rewriter
//! before privileges are checked. `anon` and `authenticated` may SELECT all columns (who may read,
//! row by row, is [`crate::read_access`], which Realtime follows too) and INSERT only `name` and
//! `message` (column grant): a client-sent `created_at` is 42501 for them (401 for
//! anon, 403 for authenticated) and accepted from `service_role`. PATCH is `service_role` only.
//! DELETE is refused to anon; an authenticated DELETE reaches rows only for an owner signed in
//! with a second factor, and removes nothing (204) for anyone else ([`DeleteAccess`]); the
//! service role bypasses the policies. The database's triggers keep every deleted row for the
//! owner and record the removal ([`crate::rest::schema`]).
//!
//! `geocache_log_changes` is readable by every role (the migration's grant and `using (true)`
//! policy) and writable by none.
//!
//! Every committed write is published to Realtime ([`crate::realtime`]) before the database lock
//! is released, so subscribers see changes in commit order.
//!
//! An insert carrying an `Idempotency-Key` is stored once however often it is sent
//! ([`crate::rest::sign_once`]); a resend is answered as a success that stored nothing.

use crate::gateway::ApiKeyRole;
use crate::http::client_address::ClientAddress;
use crate::keys::Role;
use crate::read_access::Readable;
use crate::realtime::change::{Change, ChangeKind};
use crate::rest::error::RestError;
use crate::rest::media::{self, Output};
use crate::rest::owners::DeleteAccess;
use crate::rest::payload::{self, Field, Values};
use crate::rest::plan::{self, Plan};
use crate::rest::prefer::{Preferences, Return};
use crate::rest::query::{self, QueryParams};
use crate::rest::response::{self, content_range_header};
use crate::rest::role::{requester, Requester};
use crate::rest::sign_once::SignKey;
use crate::rest::store;
use crate::rest::write_context::WriteContext;
use crate::rest::RestState;
use crate::table::{Column, LogChange, Record, Relation, Row, CHANGES_TABLE, DB_SCHEMA, TABLE};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::Extension;

/// Everything a table handler reads from the request.
struct TableRequest {
    state: RestState,
    requester: Requester,
    client: ClientAddress,
    headers: HeaderMap,
    query: Option<String>,
    body: Bytes,
}

pub async fn table(
    State(state): State<RestState>,
    Path(table): Path<String>,
    Extension(api_key): Extension<ApiKeyRole>,
    client: ClientAddress,
    parts: Parts,
    body: Bytes,
) -> Result<Response, RestError> {
    let Parts {
        method,
        headers,
        uri,
        ..
    } = parts;
    let query = uri.query().map(str::to_owned);
    let requester = requester(&state.keys, &headers, api_key, state.clock.now_seconds())?;
    let schema = requested_schema(&method, &headers)?;
    let relation = match table.as_str() {
        TABLE if schema == DB_SCHEMA => Relation::Logs,
        CHANGES_TABLE if schema == DB_SCHEMA => Relation::Changes,
        _ => return Err(RestError::table_not_found(&schema, &table)),
    };
    let request = TableRequest {
        state,
        requester,
        client,
        headers,
        query,
        body,
    };
    match (method, relation) {
        (Method::GET, _) => read(request, relation, false).await,
        (Method::HEAD, _) => read(request, relation, true).await,
        (Method::POST, Relation::Logs) => insert(request).await,
        (Method::PATCH, Relation::Logs) => update(request).await,
        (Method::DELETE, Relation::Logs) => delete(request).await,
        (Method::POST | Method::PATCH | Method::DELETE, _) => {
            // No API role holds a write privilege on the changes: only the triggers write them.
            prepare(&request)?;
            Err(RestError::permission_denied(
                request.requester.role.anonymity(),
                &format!("table {}", relation.name()),
            ))
        }
        (other, _) => Err(RestError::unsupported_method(other.as_str())),
    }
}

/// `Accept-Profile` (reads) or `Content-Profile` (writes) must name an exposed schema.
pub(crate) fn requested_schema(method: &Method, headers: &HeaderMap) -> Result<String, RestError> {
    let header = match *method {
        Method::POST | Method::PATCH | Method::PUT | Method::DELETE => "content-profile",
        _ => "accept-profile",
    };
    match headers.get(header) {
        None => Ok(DB_SCHEMA.to_owned()),
        Some(value) => {
            let schema = value.to_str().unwrap_or_default().trim();
            if schema == DB_SCHEMA {
                Ok(DB_SCHEMA.to_owned())
            } else {
                Err(RestError::unacceptable_schema(schema))
            }
        }
    }
}

/// Shared front part of every method: preferences, output type and query parameters.
fn prepare(request: &TableRequest) -> Result<(Preferences, Output, QueryParams), RestError> {
    prepare_parts(&request.headers, request.query.as_deref())
}

/// Preferences, output type and query parameters of a request to a table or a function.
pub(crate) fn prepare_parts(
    headers: &HeaderMap,
    query: Option<&str>,
) -> Result<(Preferences, Output, QueryParams), RestError> {
    let preferences = Preferences::from_headers(headers);
    preferences.check_strict()?;
    let output = media::negotiate(headers)?;
    let params = query::parse(query)?;
    Ok((preferences, output, params))
}

async fn read(
    request: TableRequest,
    relation: Relation,
    head: bool,
) -> Result<Response, RestError> {
    let (preferences, output, params) = prepare(&request)?;
    let plan = plan::plan_for(relation, &params)?.capped(request.state.max_rows);
    let role = request.requester.role;
    let readable = match relation {
        Relation::Logs => request.state.read_access.readable(role),
        // Granted to every role, and its policy is `using (true)`.
        Relation::Changes | Relation::Removed => Readable::EveryRow,
    };
    let db = &request.state.db;
    match relation {
        Relation::Logs => {
            let rows =
                read_rows::<Row>(db, &plan, readable, role, preferences.wants_count()).await?;
            read_response(rows, &plan, &preferences, output, head)
        }
        Relation::Changes => {
            let rows = read_rows::<LogChange>(db, &plan, readable, role, preferences.wants_count())
                .await?;
            read_response(rows, &plan, &preferences, output, head)
        }
        // A function's rows, read through /rest/v1/rpc only.
        Relation::Removed => Err(RestError::table_not_found(DB_SCHEMA, relation.name())),
    }
}

/// The rows a read returns and, when counted, how many match.
pub(crate) type ReadRows<R> = (Vec<R>, Option<i64>);

pub(crate) async fn read_rows<R: Record + Send + 'static>(
    db: &crate::db::Database,
    plan: &Plan,
    readable: Readable,
    role: Role,
    with_count: bool,
) -> Result<ReadRows<R>, RestError> {
    match readable {
        Readable::Refused => Err(RestError::insufficient_privilege(role.anonymity())),
        // Row-level security filters every row out, count included.
        Readable::NoRows => Ok((Vec::new(), with_count.then_some(0))),
        Readable::EveryRow => {
            let query_plan = plan.clone();
            db.call(move |connection| store::read(connection, &query_plan, with_count))
                .await
        }
    }
}

/// A read's answer: 200 (206 for a counted partial read) with `Content-Range`, the rows in the
/// plan's projection, nothing for HEAD.
pub(crate) fn read_response<R: Record>(
    (rows, total): ReadRows<R>,
    plan: &Plan,
    preferences: &Preferences,
    output: Output,
    head: bool,
) -> Result<Response, RestError> {
    let (status, range) = response::read_status(plan.offset, rows.len(), total)?;
    let body = response::render(&rows, &plan.projection, output)?;
    let mut headers = vec![content_range_header(range)];
    headers.extend(applied(preferences.applied_for_read()));
    if head {
        let mut response = response::build(status, headers, None);
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(response::content_type(output)),
        );
        return Ok(response);
    }
    Ok(response::build(status, headers, Some((body, output))))
}

async fn insert(request: TableRequest) -> Result<Response, RestError> {
    let (preferences, output, params) = prepare(&request)?;
    let projection = plan::projection(&params.select)?;
    media::require_json_body(&request.headers)?;
    let payload = payload::parse(&request.body, params.columns.as_deref())?;
    if payload.columns.contains(&Column::Id) {
        return Err(RestError::identity_insert());
    }
    if payload.columns.contains(&Column::CreatedAt) {
        refuse_unless_service_role(request.requester.role)?;
    }
    let rows = payload.values(preferences.missing)?;
    let key = SignKey::from_headers(&request.headers);
    // "Now" is read under the database lock, so ids and default timestamps increase together
    // however concurrent inserts interleave.
    let clock = request.state.clock.clone();
    let (limiter, role, client) = (
        request.state.sign_limit.clone(),
        request.requester.role,
        request.client,
    );
    let user_id = request.requester.user_id.clone();
    let realtime = request.state.realtime.clone();
    let inserted = request
        .state
        .db
        .call(move |connection| -> Result<_, RestError> {
            let now = clock.now_micros();
            let context = WriteContext { now, user_id };
            // Counted over the rows the statement stored, before they commit, as the
            // migration's trigger: a refused insert keeps none of them.
            let inserted = store::insert(connection, &rows, &key, &context, |stored| {
                limiter.admit(role, &client, stored, now)
            })?;
            // Still under the database lock: Realtime sees changes in commit order.
            realtime.publish_changes(changes(ChangeKind::Insert, &inserted, now));
            Ok(inserted)
        })
        .await?;

    let total = preferences.wants_count().then(|| count(&inserted));
    let mut headers = vec![content_range_header(response::content_range(1, 0, total))];
    if let (Some(Return::HeadersOnly), [row]) = (preferences.return_, inserted.as_slice()) {
        // PostgREST's `return=headers-only`: where the new row can be read.
        if let Ok(location) = HeaderValue::from_str(&format!("/{TABLE}?id=eq.{}", row.id)) {
            headers.push((header::LOCATION, location));
        }
    }
    headers.extend(applied(preferences.applied_for_insert()));
    let body = representation(&preferences, &inserted, &projection, output)?;
    Ok(response::build(StatusCode::CREATED, headers, body))
}

async fn update(request: TableRequest) -> Result<Response, RestError> {
    let (preferences, output, params) = prepare(&request)?;
    let plan = plan::plan(&params)?;
    media::require_json_body(&request.headers)?;
    let payload = payload::parse(&request.body, params.columns.as_deref())?;
    if payload.columns.contains(&Column::Id) {
        return Err(RestError::identity_update());
    }
    refuse_unless_service_role(request.requester.role)?;
    // PostgREST updates from one object; an array cannot populate a single record.
    if request.body.trim_ascii_start().starts_with(b"[") {
        return Err(RestError::not_an_object("an array"));
    }
    let values = payload
        .values(preferences.missing)?
        .pop()
        .unwrap_or_else(no_change);
    if !payload.columns.is_empty() {
        require_filter(&plan, "UPDATE")?;
    }
    let mutation_plan = plan.clone();
    let (clock, realtime) = (request.state.clock.clone(), request.state.realtime.clone());
    let rows = request
        .state
        .db
        .call(move |connection| -> Result<_, RestError> {
            let rows = store::update(connection, &mutation_plan, &values)?;
            realtime.publish_changes(changes(ChangeKind::Update, &rows, clock.now_micros()));
            Ok(rows)
        })
        .await?;
    let range = response::content_range(
        0,
        count(&rows) - 1,
        preferences.wants_count().then(|| count(&rows)),
    );
    mutation_response(&preferences, rows, &plan, output, range)
}

async fn delete(request: TableRequest) -> Result<Response, RestError> {
    let (preferences, output, params) = prepare(&request)?;
    let plan = plan::plan(&params)?;
    let access = DeleteAccess::of(request.requester.role);
    if access == DeleteAccess::Refused {
        return Err(RestError::insufficient_privilege(
            request.requester.role.anonymity(),
        ));
    }
    require_filter(&plan, "DELETE")?;
    let mutation_plan = plan.clone();
    let (clock, realtime) = (request.state.clock.clone(), request.state.realtime.clone());
    let requester = request.requester;
    let rows = request
        .state
        .db
        .call(move |connection| -> Result<_, RestError> {
            let now = clock.now_micros();
            let context = WriteContext {
                now,
                user_id: requester.user_id.clone(),
            };
            // Row-level security is asked inside the delete's own transaction, so an owner
            // named or removed a moment ago counts at once.
            let rows = store::delete(connection, &mutation_plan, &context, |transaction| {
                access.reaches_rows(transaction, &requester)
            })?;
            realtime.publish_changes(changes(ChangeKind::Delete, &rows, now));
            Ok(rows)
        })
        .await?;
    let range = response::content_range(1, 0, preferences.wants_count().then(|| count(&rows)));
    mutation_response(&preferences, rows, &plan, output, range)
}

/// The Realtime changes of rows one statement wrote at `now` (microseconds).
pub(crate) fn changes(kind: ChangeKind, rows: &[Row], now: i64) -> Vec<Change> {
    rows.iter()
        .map(|row| Change {
            kind,
            row: row.clone(),
            committed_at: now,
        })
        .collect()
}

fn no_change() -> Values {
    Values {
        created_at: Field::Default,
        name: Field::Default,
        message: Field::Default,
    }
}

/// Only `service_role` holds the privilege (PostgreSQL's 42501 for the others).
fn refuse_unless_service_role(role: Role) -> Result<(), RestError> {
    role.require_service_role(|role| RestError::insufficient_privilege(role.anonymity()))
}

/// Supabase loads the `safeupdate` extension: UPDATE and DELETE need a WHERE clause, which
/// PostgREST only writes for filters (or a limit).
fn require_filter(plan: &Plan, statement: &str) -> Result<(), RestError> {
    if plan.conditions.is_empty() && plan.limit.is_none() {
        return Err(RestError::requires_where_clause(statement));
    }
    Ok(())
}

/// PATCH/DELETE: 200 with the rows for `return=representation`, else 204.
fn mutation_response(
    preferences: &Preferences,
    rows: Vec<Row>,
    plan: &Plan,
    output: Output,
    range: String,
) -> Result<Response, RestError> {
    let mut headers = vec![content_range_header(range)];
    headers.extend(applied(preferences.applied_for_mutation()));
    match representation(preferences, &rows, &plan.projection, output)? {
        Some(body) => Ok(response::build(StatusCode::OK, headers, Some(body))),
        None => Ok(response::build(StatusCode::NO_CONTENT, headers, None)),
    }
}

fn representation(
    preferences: &Preferences,
    rows: &[Row],
    projection: &plan::Projection,
    output: Output,
) -> Result<Option<(String, Output)>, RestError> {
    if preferences.return_ != Some(Return::Representation) {
        return Ok(None);
    }
    Ok(Some((response::render(rows, projection, output)?, output)))
}

fn count(rows: &[Row]) -> i64 {
    i64::try_from(rows.len()).unwrap_or(i64::MAX)
}

fn applied(value: Option<HeaderValue>) -> Option<(HeaderName, HeaderValue)> {
    value.map(|value| (HeaderName::from_static("preference-applied"), value))
}

/// Any other path under `/rest/v1`.
pub async fn invalid_path() -> RestError {
    RestError::invalid_resource_path()
}
