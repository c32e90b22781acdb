//! The fault plan: which requests go wrong and how. The same JSON document is taken by
//! `POST /emulator/v1/faults` and the `--faults` flag, and returned by `GET`.
//!
//! ```json
//! {"seed": 7, "rules": [
//!   {"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"], "every": 3,
//!    "fault": {"kind": "status", "status": 503, "body": "postgrest"}},
//!   {"methods": ["POST"], "probability": 0.25, "apply": true,
//!    "fault": {"kind": "drop_before_response"}},
//!   {"fault": {"kind": "latency", "ms": [50, 250]}}
//! ]}
//! ```

use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// Delays and holds longer than this are refused: a test would time out first.
pub const MAX_DELAY_MS: u64 = 60_000;
/// How long an `out_of_order` response waits for a later one unless told otherwise.
pub const DEFAULT_HOLD_MS: u64 = 5_000;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultPlan {
    /// Seeds each rule's random draws (`probability`, latency ranges), so a run is repeatable.
    #[serde(default)]
    pub seed: u64,
    /// Checked in order for every request to `/rest/v1` or `/auth/v1`.
    #[serde(default)]
    pub rules: Vec<Rule>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// HTTP methods the rule applies to; empty means any.
    #[serde(default)]
    pub methods: Vec<String>,
    /// Paths the rule applies to: exact (`/rest/v1/geocache_logs`) or a prefix ending in `*`
    /// (`/auth/v1/*`); empty means any. Query strings are not part of the path.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Fire on every Nth matching request only (the Nth, 2Nth, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<u64>,
    /// Chance that a request the rule would fire on is faulted (seeded), 0 to 1.
    #[serde(default = "always")]
    pub probability: f64,
    /// Fire at most this many times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// For `status` and `drop_before_response`: whether the request is still processed (a write
    /// commits) before the fault, the "did my write land?" case. Default false. The other kinds
    /// need the real response and always process the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply: Option<bool>,
    pub fault: Fault,
}

fn always() -> f64 {
    1.0
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// Waits before the request is processed; adds to any other fault.
    Latency { ms: Delay },
    /// Answers with a 5xx instead of the real response.
    Status {
        status: u16,
        #[serde(default)]
        body: ErrorBody,
    },
    /// Closes the connection without answering.
    DropBeforeResponse,
    /// Sends the status line, the headers and half the body (half the headers when the body is
    /// empty), then closes the connection.
    DropMidResponse,
    /// Cuts a 2xx body to `keep_bytes` (default half) with a matching `Content-Length`.
    TruncateBody {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        keep_bytes: Option<usize>,
    },
    /// Replaces a 2xx body with text that is not JSON (the `Content-Type` is kept unless given).
    NonJsonBody {
        #[serde(default = "default_non_json")]
        body: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content_type: Option<String>,
    },
    /// Holds the response until a later request matching the same rule has been answered (or
    /// `max_hold_ms` passed), so the two arrive in the opposite order.
    OutOfOrder {
        #[serde(default = "default_hold")]
        max_hold_ms: u64,
    },
}

fn default_non_json() -> String {
    "<html><body><h1>502 Bad Gateway</h1></body></html>".to_owned()
}

fn default_hold() -> u64 {
    DEFAULT_HOLD_MS
}

/// A fixed delay (`200`) or a range drawn uniformly (`[50, 250]`), in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Delay {
    Fixed(u64),
    Range([u64; 2]),
}

/// The body of an injected error status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorBody {
    /// PostgREST's JSON error (`PGRST001` for 503, `XX000` otherwise).
    #[default]
    Postgrest,
    /// The status line's text as `text/plain`, as a proxy would answer.
    Plain,
}

impl Rule {
    /// Whether the request reaches the handler before the fault.
    pub fn applies_request(&self) -> bool {
        match self.fault {
            Fault::Status { .. } | Fault::DropBeforeResponse => self.apply.unwrap_or(false),
            _ => true,
        }
    }

    /// Whether the rule's scope covers a request (the fault may still not fire).
    pub fn matches(&self, method: &str, path: &str) -> bool {
        let method_ok = self.methods.is_empty() || self.methods.iter().any(|m| m == method);
        let path_ok = self.paths.is_empty()
            || self
                .paths
                .iter()
                .any(|pattern| match pattern.strip_suffix('*') {
                    Some(prefix) => path.starts_with(prefix),
                    None => path == pattern,
                });
        method_ok && path_ok
    }
}

impl FaultPlan {
    /// Checks every value and normalises method names to upper case.
    pub fn validated(mut self) -> Result<FaultPlan, String> {
        for (index, rule) in self.rules.iter_mut().enumerate() {
            rule.validate()
                .map_err(|problem| format!("rule {index}: {problem}"))?;
        }
        Ok(self)
    }
}

impl Rule {
    fn validate(&mut self) -> Result<(), String> {
        for method in &mut self.methods {
            *method = method.to_ascii_uppercase();
            if axum::http::Method::from_str(method).is_err() || method.is_empty() {
                return Err(format!("{method:?} is not an HTTP method"));
            }
        }
        if let Some(path) = self.paths.iter().find(|path| !path.starts_with('/')) {
            return Err(format!("path {path:?} must start with /"));
        }
        if self.every == Some(0) {
            return Err("every must be at least 1".to_owned());
        }
        if !(0.0..=1.0).contains(&self.probability) {
            return Err(format!(
                "probability {} is not between 0 and 1",
                self.probability
            ));
        }
        if self.apply == Some(false) && self.applies_request() {
            return Err(
                "apply: false is only possible for status and drop_before_response".to_owned(),
            );
        }
        if self.apply.is_some() && matches!(self.fault, Fault::Latency { .. }) {
            return Err("apply has no meaning for latency".to_owned());
        }
        self.fault.validate()
    }
}

impl Fault {
    fn validate(&self) -> Result<(), String> {
        match self {
            Fault::Latency { ms } => {
                let (low, high) = ms.bounds();
                if low > high {
                    return Err(format!("latency range [{low}, {high}] is reversed"));
                }
                if high > MAX_DELAY_MS {
                    return Err(format!("latency over {MAX_DELAY_MS} ms"));
                }
            }
            Fault::Status { status, .. } => {
                if !(500..=599).contains(status) {
                    return Err(format!("status {status} is not a 5xx"));
                }
            }
            Fault::NonJsonBody {
                body,
                content_type: Some(content_type),
            } => {
                axum::http::HeaderValue::from_str(content_type)
                    .map_err(|_| format!("content_type {content_type:?} is not a header value"))?;
                if serde_json::from_str::<serde_json::Value>(body).is_ok() {
                    return Err("the replacement body is valid JSON".to_owned());
                }
            }
            Fault::NonJsonBody { body, .. } => {
                if serde_json::from_str::<serde_json::Value>(body).is_ok() {
                    return Err("the replacement body is valid JSON".to_owned());
                }
            }
            Fault::OutOfOrder { max_hold_ms } => {
                if *max_hold_ms > MAX_DELAY_MS {
                    return Err(format!("max_hold_ms over {MAX_DELAY_MS}"));
                }
            }
            Fault::DropBeforeResponse | Fault::DropMidResponse | Fault::TruncateBody { .. } => {}
        }
        Ok(())
    }
}

impl Delay {
    pub fn bounds(self) -> (u64, u64) {
        match self {
            Delay::Fixed(ms) => (ms, ms),
            Delay::Range([low, high]) => (low, high),
        }
    }
}

/// Reads a plan given on the command line: JSON, or `@path` naming a JSON file.
pub fn parse_argument(argument: &str) -> Result<FaultPlan, String> {
    let text = match argument.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read fault plan {path}: {error}"))?,
        None => argument.to_owned(),
    };
    serde_json::from_str::<FaultPlan>(&text)
        .map_err(|error| format!("invalid fault plan: {error}"))?
        .validated()
        .map_err(|problem| format!("invalid fault plan: {problem}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(value: serde_json::Value) -> Result<FaultPlan, String> {
        serde_json::from_value::<FaultPlan>(value)
            .map_err(|error| error.to_string())?
            .validated()
    }

    #[test]
    fn a_full_plan_reads_with_defaults() {
        let plan = plan(json!({"seed": 7, "rules": [
            {"methods": ["get"], "paths": ["/rest/v1/*"], "every": 2,
             "fault": {"kind": "status", "status": 503}},
            {"fault": {"kind": "latency", "ms": [5, 10]}},
            {"fault": {"kind": "out_of_order"}},
            {"fault": {"kind": "non_json_body"}},
        ]}))
        .unwrap();
        let rule = &plan.rules[0];
        assert_eq!(rule.methods, ["GET"]);
        assert_eq!(rule.probability, 1.0);
        assert_eq!(
            rule.fault,
            Fault::Status {
                status: 503,
                body: ErrorBody::Postgrest
            }
        );
        assert!(!rule.applies_request());
        assert_eq!(
            plan.rules[1].fault,
            Fault::Latency {
                ms: Delay::Range([5, 10])
            }
        );
        assert_eq!(
            plan.rules[2].fault,
            Fault::OutOfOrder {
                max_hold_ms: DEFAULT_HOLD_MS
            }
        );
        assert!(plan.rules[3].applies_request());
    }

    #[test]
    fn plans_round_trip_through_json() {
        let original = plan(json!({"seed": 1, "rules": [
            {"methods": ["POST"], "apply": true, "limit": 2,
             "fault": {"kind": "drop_before_response"}},
            {"fault": {"kind": "truncate_body", "keep_bytes": 3}},
        ]}))
        .unwrap();
        let text = serde_json::to_string(&original).unwrap();
        assert_eq!(
            plan(serde_json::from_str(&text).unwrap()).unwrap(),
            original
        );
    }

    #[test]
    fn nonsense_is_refused_with_the_rule_named() {
        let cases = [
            json!({"rules": [{"fault": {"kind": "status", "status": 404}}]}),
            json!({"rules": [{"fault": {"kind": "latency", "ms": [10, 5]}}]}),
            json!({"rules": [{"fault": {"kind": "latency", "ms": 60001}}]}),
            json!({"rules": [{"every": 0, "fault": {"kind": "drop_before_response"}}]}),
            json!({"rules": [{"probability": 1.5, "fault": {"kind": "drop_before_response"}}]}),
            json!({"rules": [{"methods": ["GE T"], "fault": {"kind": "drop_before_response"}}]}),
            json!({"rules": [{"paths": ["rest/v1"], "fault": {"kind": "drop_before_response"}}]}),
            json!({"rules": [{"apply": false, "fault": {"kind": "truncate_body"}}]}),
            json!({"rules": [{"apply": true, "fault": {"kind": "latency", "ms": 1}}]}),
            json!({"rules": [{"fault": {"kind": "non_json_body", "body": "[1]"}}]}),
            json!({"rules": [{"fault": {"kind": "out_of_order", "max_hold_ms": 60001}}]}),
        ];
        for case in cases {
            let problem = plan(case.clone()).unwrap_err();
            assert!(problem.starts_with("rule 0: "), "{case}: {problem}");
        }
        for case in [
            json!({"rules": [{"fault": {"kind": "teleport"}}]}),
            json!({"rules": [{"fault": {"kind": "status", "status": 500}, "extra": 1}]}),
            json!({"rulez": []}),
        ] {
            assert!(plan(case.clone()).is_err(), "{case}");
        }
    }

    #[test]
    fn scopes_match_methods_and_exact_or_prefix_paths() {
        let rule = plan(json!({"rules": [{"methods": ["POST"],
            "paths": ["/rest/v1/geocache_logs", "/auth/v1/*"],
            "fault": {"kind": "drop_before_response"}}]}))
        .unwrap()
        .rules
        .remove(0);
        assert!(rule.matches("POST", "/rest/v1/geocache_logs"));
        assert!(rule.matches("POST", "/auth/v1/token"));
        assert!(!rule.matches("GET", "/rest/v1/geocache_logs"));
        assert!(!rule.matches("POST", "/rest/v1/geocache_logs/x"));
        let any = plan(json!({"rules": [{"fault": {"kind": "drop_before_response"}}]}))
            .unwrap()
            .rules
            .remove(0);
        assert!(any.matches("PATCH", "/anything"));
    }

    #[test]
    fn command_line_plans_are_json_or_a_file() {
        let inline =
            parse_argument(r#"{"rules":[{"fault":{"kind":"drop_mid_response"}}]}"#).unwrap();
        assert_eq!(inline.rules[0].fault, Fault::DropMidResponse);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plan.json");
        std::fs::write(&path, r#"{"seed":3}"#).unwrap();
        assert_eq!(
            parse_argument(&format!("@{}", path.display()))
                .unwrap()
                .seed,
            3
        );
        assert!(parse_argument("@/nonexistent/plan.json")
            .unwrap_err()
            .starts_with("cannot read fault plan"));
        assert!(parse_argument("{")
            .unwrap_err()
            .starts_with("invalid fault plan"));
    }
}
