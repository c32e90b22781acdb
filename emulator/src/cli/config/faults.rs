//! The flag of the fault plan tests start the emulator with.

use crate::faults::plan::{self, FaultPlan};
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct FaultFlags {
    /// A fault plan to start with: JSON, or @FILE to read it from a file. The same document POST
    /// /emulator/v1/faults takes.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_FAULTS",
        value_name = "PLAN",
        value_parser = plan::parse_argument,
        long_help = FAULTS_HELP
    )]
    pub faults: Option<FaultPlan>,
}

const FAULTS_HELP: &str = "\
A fault plan to start with: JSON, or @FILE to read it from a file. The same document
POST /emulator/v1/faults takes:
  {\"seed\": 7, \"rules\": [RULE, ...]}
Each request to /rest/v1 or /auth/v1 is checked against every rule, in order. A RULE is
  {\"methods\": [\"GET\"], \"paths\": [\"/rest/v1/geocache_logs\", \"/auth/v1/*\"],
   \"every\": N, \"probability\": 0.25, \"limit\": N, \"apply\": true, \"fault\": FAULT}
where every field but fault is optional: methods and paths (exact, or a prefix ending in *)
default to any; every fires on the Nth, 2Nth, ... matching request; probability (seeded by
seed, default 1) and limit (most firings) narrow it further; apply (status and
drop_before_response only, default false) processes the request, committing a write, before
the fault. Latency rules add up; of the other rules the first that fires applies. A FAULT is
one of
  {\"kind\": \"latency\", \"ms\": 200}  or  {\"kind\": \"latency\", \"ms\": [50, 250]}
  {\"kind\": \"status\", \"status\": 503, \"body\": \"postgrest\" | \"plain\"}
  {\"kind\": \"drop_before_response\"}   closes the connection without answering
  {\"kind\": \"drop_mid_response\"}      sends the headers and half the body, then closes
  {\"kind\": \"truncate_body\", \"keep_bytes\": 10}   (2xx; default half the body)
  {\"kind\": \"non_json_body\", \"body\": \"<html>\", \"content_type\": \"text/html\"}   (2xx)
  {\"kind\": \"out_of_order\", \"max_hold_ms\": 5000}   holds the response until a later
      matching request has been answered
/emulator/v1 and the health checks are never faulted.";
