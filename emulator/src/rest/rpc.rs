//! `/rest/v1/rpc/{function}`: PostgREST's function calls, for the two functions the migration
//! exposes to the logbook's owner.
//!
//! - `removed_geocache_logs()` (STABLE: POST, GET or HEAD): every removed entry, read like a
//!   table's rows, so `select`, filters, `order`, `limit`/`offset`, `Prefer: count=` and the row
//!   cap apply to them.
//! - `restore_geocache_log(entry_id bigint)` (VOLATILE: POST only): puts a removed entry back with
//!   its id, `created_at`, name and message, and returns it. Realtime subscribers get it as an
//!   INSERT, and the database's trigger records it as added.
//!
//! Checks run in PostgREST's and PostgreSQL's order: the JWT, the profile, the query string, the
//! body, the function and its arguments (PGRST202), the method, the EXECUTE privilege (granted to
//! `authenticated` only: 42501 for anon and the service role), the arguments' values, then the
//! functions' own check (42501 unless the caller is an owner at aal2) and P0002 for an id that
//! is no removed entry, answered with 500 as PostgREST answers a PL/pgSQL error.

use crate::gateway::ApiKeyRole;
use crate::keys::{Anonymity, Role};
use crate::realtime::change::ChangeKind;
use crate::rest::error::{closest_name, RestError};
use crate::rest::handlers::{changes, prepare_parts, read_response, requested_schema};
use crate::rest::owners;
use crate::rest::plan::{self, Plan};
use crate::rest::role::{requester, Requester};
use crate::rest::store;
use crate::rest::write_context::WriteContext;
use crate::rest::RestState;
use crate::table::{parse_bigint, Relation, RemovedEntry, REMOVED_FUNCTION};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::request::Parts;
use axum::http::Method;
use axum::response::Response;
use axum::Extension;
use serde_json::{Map, Value};

/// A function of `public` that PostgREST's schema cache knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Function {
    RemovedEntries,
    Restore,
}

impl Function {
    const ALL: [Function; 2] = [Function::RemovedEntries, Function::Restore];

    fn name(self) -> &'static str {
        match self {
            Function::RemovedEntries => REMOVED_FUNCTION,
            Function::Restore => "restore_geocache_log",
        }
    }

    fn parameters(self) -> &'static [&'static str] {
        match self {
            Function::RemovedEntries => &[],
            Function::Restore => &["entry_id"],
        }
    }

    /// STABLE functions also answer GET and HEAD; VOLATILE ones only POST.
    fn allows(self, method: &Method) -> bool {
        match self {
            Function::RemovedEntries => {
                matches!(*method, Method::POST | Method::GET | Method::HEAD)
            }
            Function::Restore => *method == Method::POST,
        }
    }

    fn allow_header(self) -> &'static str {
        match self {
            Function::RemovedEntries => "OPTIONS,GET,HEAD,POST",
            Function::Restore => "OPTIONS,POST",
        }
    }

    /// What the owner-only refusal says the caller may not do.
    fn action(self) -> &'static str {
        match self {
            Function::RemovedEntries => "list removed entries",
            Function::Restore => "restore removed entries",
        }
    }

    /// `name(parameters)`, as PostgREST's hint names a function.
    fn signature(self) -> String {
        format!("{}({})", self.name(), self.parameters().join(", "))
    }
}

/// The function called `name` taking exactly `arguments` (sorted), or PostgREST's PGRST202 with
/// its hint: the function of that name with its parameters, else the closest name.
fn find(name: &str, arguments: &[String], json_body: bool) -> Result<Function, RestError> {
    let named = Function::ALL
        .into_iter()
        .find(|function| function.name() == name);
    if let Some(function) = named {
        if function.parameters() == arguments {
            return Ok(function);
        }
    }
    let hint = match named {
        Some(function) => Some(function.signature()),
        None => {
            let names = Function::ALL.map(Function::name);
            closest_name(name, &names).map(|closest| {
                Function::ALL
                    .into_iter()
                    .find(|function| function.name() == closest)
                    .map_or_else(|| closest.to_owned(), Function::signature)
            })
        }
    };
    Err(RestError::function_not_found(
        name, arguments, json_body, hint,
    ))
}

pub async fn call(
    State(state): State<RestState>,
    Path(name): Path<String>,
    Extension(api_key): Extension<ApiKeyRole>,
    parts: Parts,
    body: Bytes,
) -> Result<Response, RestError> {
    let Parts {
        method,
        headers,
        uri,
        ..
    } = parts;
    let requester = requester(&state.keys, &headers, api_key, state.clock.now_seconds())?;
    requested_schema(&method, &headers)?;
    let (preferences, output, params) = prepare_parts(&headers, uri.query())?;
    let arguments = match method {
        Method::POST => arguments(&body)?,
        // Without parameters, every query parameter of a GET filters the rows.
        Method::GET | Method::HEAD => Map::new(),
        other => return Err(RestError::unsupported_rpc_method(other.as_str(), None)),
    };
    let mut names: Vec<String> = arguments.keys().cloned().collect();
    names.sort_unstable();
    let function = find(&name, &names, method == Method::POST)?;
    if !function.allows(&method) {
        return Err(RestError::unsupported_rpc_method(
            method.as_str(),
            Some(function.allow_header()),
        ));
    }
    if requester.role != Role::Authenticated {
        return Err(RestError::permission_denied(
            requester.role.anonymity(),
            &format!("function {}", function.name()),
        ));
    }
    let head = method == Method::HEAD;
    match function {
        Function::RemovedEntries => {
            let plan = plan::plan_for(Relation::Removed, &params)?.capped(state.max_rows);
            let with_count = preferences.wants_count();
            let query_plan = plan.clone();
            let rows = state
                .db
                .call(move |connection| -> Result<_, RestError> {
                    refuse_unless_owner(connection, &requester, function)?;
                    store::read::<RemovedEntry>(connection, &query_plan, with_count)
                })
                .await?;
            read_response(rows, &plan, &preferences, output, head)
        }
        Function::Restore => {
            let entry_id = entry_id(arguments.get("entry_id"))?;
            let plan = plan::plan(&params)?;
            refuse_filters_on_restored(&plan)?;
            let restored = restore(&state, requester, entry_id).await?;
            let total = preferences.wants_count().then_some(1);
            read_response((vec![restored], total), &plan, &preferences, output, head)
        }
    }
}

/// The body's arguments: a JSON object (an empty body is none).
fn arguments(body: &[u8]) -> Result<Map<String, Value>, RestError> {
    if body.trim_ascii().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_slice(body) {
        Ok(Value::Object(arguments)) => Ok(arguments),
        Ok(_) => Err(RestError::not_implemented(
            "calling a function with a JSON body other than an object is not supported by the emulator",
        )),
        Err(_) => Err(RestError::invalid_body("Empty or invalid json")),
    }
}

/// `entry_id` as PostgREST hands a JSON value to a `bigint` parameter: its text through
/// PostgreSQL's `int8in`; `null` stays NULL.
fn entry_id(value: Option<&Value>) -> Result<Option<i64>, RestError> {
    let text = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    };
    Ok(Some(parse_bigint(&text)?))
}

/// The emulator applies `select` to the restored row, not filters or ordering (a function
/// returning one row leaves nothing to filter in practice).
fn refuse_filters_on_restored(plan: &Plan) -> Result<(), RestError> {
    if plan.conditions.is_empty()
        && plan.ordering.is_empty()
        && plan.limit.is_none()
        && plan.offset == 0
    {
        Ok(())
    } else {
        Err(RestError::not_implemented(
            "filters, order, limit and offset on restore_geocache_log's result are not supported by the emulator",
        ))
    }
}

/// The functions' own check, inside the database call that then reads or writes.
fn refuse_unless_owner(
    connection: &rusqlite::Connection,
    requester: &Requester,
    function: Function,
) -> Result<(), RestError> {
    if owners::is_owner_at_aal2(connection, requester)? {
        Ok(())
    } else {
        Err(RestError::owner_only(
            Anonymity::Identified,
            function.action(),
        ))
    }
}

async fn restore(
    state: &RestState,
    requester: Requester,
    entry_id: Option<i64>,
) -> Result<crate::table::Row, RestError> {
    let (clock, realtime) = (state.clock.clone(), state.realtime.clone());
    state
        .db
        .call(move |connection| -> Result<_, RestError> {
            let now = clock.now_micros();
            let context = WriteContext {
                now,
                user_id: requester.user_id.clone(),
            };
            let restored = store::restore(connection, entry_id, &context, |transaction| {
                refuse_unless_owner(transaction, &requester, Function::Restore)
            })?
            .ok_or_else(|| RestError::not_a_removed_entry(entry_id))?;
            // Still under the database lock: Realtime sees changes in commit order.
            realtime.publish_changes(changes(
                ChangeKind::Insert,
                std::slice::from_ref(&restored),
                now,
            ));
            Ok(restored)
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn not_found(name: &str, arguments: &[&str], json_body: bool) -> serde_json::Value {
        let arguments: Vec<String> = arguments.iter().map(|name| (*name).to_owned()).collect();
        match find(name, &arguments, json_body) {
            Err(RestError::Postgrest(error)) => serde_json::json!({
                "code": error.code, "message": error.message,
                "details": error.details, "hint": error.hint,
            }),
            other => panic!("expected PGRST202, got {other:?}"),
        }
    }

    #[test]
    fn functions_are_found_by_name_and_exact_arguments() {
        assert_eq!(
            find("removed_geocache_logs", &[], true).unwrap(),
            Function::RemovedEntries
        );
        assert_eq!(
            find("restore_geocache_log", &["entry_id".to_owned()], true).unwrap(),
            Function::Restore
        );
    }

    #[test]
    fn unknown_functions_and_arguments_are_postgrests_pgrst202() {
        assert_eq!(
            not_found("restore_geocache_log", &["id"], true),
            serde_json::json!({
                "code": "PGRST202",
                "message": "Could not find the function public.restore_geocache_log(id) in the schema cache",
                "details": "Searched for the function public.restore_geocache_log with parameter id or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
                "hint": "Perhaps you meant to call the function public.restore_geocache_log(entry_id)",
            })
        );
        assert_eq!(
            not_found("drop_everything", &[], false),
            serde_json::json!({
                "code": "PGRST202",
                "message": "Could not find the function public.drop_everything without parameters in the schema cache",
                "details": "Searched for the function public.drop_everything without parameters, but no matches were found in the schema cache.",
                "hint": null,
            })
        );
        let close = not_found("removed_geocache_log", &["a", "b"], true);
        assert_eq!(
            close["hint"],
            "Perhaps you meant to call the function public.removed_geocache_logs()"
        );
        assert_eq!(
            close["details"],
            "Searched for the function public.removed_geocache_log with parameters a, b or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache."
        );
    }

    #[test]
    fn entry_ids_are_read_as_postgresql_reads_a_bigint() {
        assert_eq!(entry_id(Some(&serde_json::json!(7))).unwrap(), Some(7));
        assert_eq!(entry_id(Some(&serde_json::json!("7"))).unwrap(), Some(7));
        assert_eq!(entry_id(Some(&Value::Null)).unwrap(), None);
        for bad in [
            serde_json::json!(1.5),
            serde_json::json!("x"),
            serde_json::json!(true),
        ] {
            assert_eq!(entry_id(Some(&bad)).unwrap_err().code(), "22P02", "{bad}");
        }
    }
}
