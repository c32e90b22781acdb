//! The installed plan and its running state: per rule, how many requests matched and fired, a
//! random source seeded from the plan's seed and the rule's position, and for `out_of_order`
//! rules the sequence number of the latest answered request (what held responses wait for).

use crate::faults::plan::{Delay, Fault, FaultPlan, Rule};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

#[derive(Debug, Default)]
pub struct FaultInjector {
    active: Mutex<Active>,
}

#[derive(Debug, Default)]
struct Active {
    plan: FaultPlan,
    rules: Vec<RuleState>,
}

#[derive(Debug)]
struct RuleState {
    matched: u64,
    fired: u64,
    random: Xoshiro256PlusPlus,
    answered: Arc<watch::Sender<u64>>,
}

/// What the plan does to one request.
#[derive(Debug, Default)]
pub struct Decision {
    /// The sum of the firing latency rules' delays.
    pub delay: Duration,
    /// The first firing rule of any other kind.
    pub fault: Option<Chosen>,
    /// `out_of_order` rules whose scope covers this request: tell them when it is answered.
    pub answered: Vec<Answered>,
}

#[derive(Debug)]
pub struct Chosen {
    pub fault: Fault,
    pub applies_request: bool,
    /// For `out_of_order`: what to wait for.
    pub hold: Option<Answered>,
}

/// A request's place in an `out_of_order` rule's sequence.
#[derive(Debug, Clone)]
pub struct Answered {
    sequence: u64,
    channel: Arc<watch::Sender<u64>>,
}

/// `GET /emulator/v1/faults`: the plan and what each rule has done so far.
#[derive(Debug, Serialize, PartialEq)]
pub struct Report {
    pub plan: FaultPlan,
    pub stats: Vec<RuleStats>,
}

#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct RuleStats {
    pub matched: u64,
    pub fired: u64,
}

impl Decision {
    pub fn is_empty(&self) -> bool {
        self.delay.is_zero() && self.fault.is_none() && self.answered.is_empty()
    }
}

impl Answered {
    /// Marks this request as answered, releasing responses held for a later one.
    pub fn signal(&self) {
        self.channel.send_if_modified(|latest| {
            let newer = self.sequence > *latest;
            if newer {
                *latest = self.sequence;
            }
            newer
        });
    }

    /// Waits until a request later than this one has been answered, at most `limit`.
    pub async fn wait_for_later(&self, limit: Duration) {
        let mut receiver = self.channel.subscribe();
        let sequence = self.sequence;
        let _ = tokio::time::timeout(limit, receiver.wait_for(|latest| *latest > sequence)).await;
    }
}

impl FaultInjector {
    /// Replaces the plan, resetting counters and random sources; releases held responses.
    pub fn install(&self, plan: FaultPlan) {
        let rules = (0u64..)
            .zip(&plan.rules)
            .map(|(index, _)| RuleState {
                matched: 0,
                fired: 0,
                random: Xoshiro256PlusPlus::seed_from_u64(
                    plan.seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                ),
                answered: Arc::new(watch::Sender::new(0)),
            })
            .collect();
        let previous = std::mem::replace(&mut *self.lock(), Active { plan, rules });
        for rule in previous.rules {
            rule.answered.send_replace(u64::MAX);
        }
    }

    pub fn clear(&self) {
        self.install(FaultPlan::default());
    }

    pub fn report(&self) -> Report {
        let active = self.lock();
        Report {
            plan: active.plan.clone(),
            stats: active
                .rules
                .iter()
                .map(|rule| RuleStats {
                    matched: rule.matched,
                    fired: rule.fired,
                })
                .collect(),
        }
    }

    /// Counts the request against every rule whose scope covers it and decides its faults.
    pub fn decide(&self, method: &str, path: &str) -> Decision {
        let mut guard = self.lock();
        let Active { plan, rules } = &mut *guard;
        let mut decision = Decision::default();
        for (rule, state) in plan.rules.iter().zip(rules.iter_mut()) {
            if !rule.matches(method, path) {
                continue;
            }
            state.matched += 1;
            let answered = Answered {
                sequence: state.matched,
                channel: Arc::clone(&state.answered),
            };
            let is_latency = matches!(rule.fault, Fault::Latency { .. });
            // Only the first non-latency fault applies; later ones still count the request.
            let fires = (is_latency || decision.fault.is_none()) && state.fires(rule);
            let holds = fires && matches!(rule.fault, Fault::OutOfOrder { .. });
            if matches!(rule.fault, Fault::OutOfOrder { .. }) && !holds {
                decision.answered.push(answered.clone());
            }
            if !fires {
                continue;
            }
            state.fired += 1;
            match &rule.fault {
                Fault::Latency { ms } => decision.delay += state.draw_delay(*ms),
                fault => {
                    decision.fault = Some(Chosen {
                        fault: fault.clone(),
                        applies_request: rule.applies_request(),
                        hold: holds.then_some(answered),
                    });
                }
            }
        }
        decision
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Active> {
        // Counters cannot be left half-updated, so a poisoned lock is still usable.
        self.active
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl RuleState {
    /// The rule's triggers for its `matched`th request: limit, every Nth, then probability.
    fn fires(&mut self, rule: &Rule) -> bool {
        if rule.limit.is_some_and(|limit| self.fired >= limit) {
            return false;
        }
        if rule.every.is_some_and(|every| self.matched % every != 0) {
            return false;
        }
        rule.probability >= 1.0 || self.random.random_bool(rule.probability)
    }

    fn draw_delay(&mut self, delay: Delay) -> Duration {
        let (low, high) = delay.bounds();
        Duration::from_millis(if low == high {
            low
        } else {
            self.random.random_range(low..=high)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn injector(plan: serde_json::Value) -> FaultInjector {
        let injector = FaultInjector::default();
        injector.install(
            serde_json::from_value::<FaultPlan>(plan)
                .unwrap()
                .validated()
                .unwrap(),
        );
        injector
    }

    fn fired(injector: &FaultInjector, method: &str, count: usize) -> Vec<bool> {
        (0..count)
            .map(|_| {
                injector
                    .decide(method, "/rest/v1/geocache_logs")
                    .fault
                    .is_some()
            })
            .collect()
    }

    #[test]
    fn every_nth_matching_request_fires_up_to_the_limit() {
        let injector = injector(
            json!({"rules": [{"methods": ["GET"], "every": 3, "limit": 2,
            "fault": {"kind": "drop_before_response"}}]}),
        );
        assert!(injector
            .decide("POST", "/rest/v1/geocache_logs")
            .fault
            .is_none());
        assert_eq!(
            fired(&injector, "GET", 9),
            [false, false, true, false, false, true, false, false, false]
        );
        assert_eq!(
            injector.report().stats,
            [RuleStats {
                matched: 9,
                fired: 2
            }]
        );
    }

    #[test]
    fn probabilities_are_repeatable_for_a_seed() {
        let plan = |seed: u64| {
            json!({"seed": seed, "rules": [{"probability": 0.5,
                "fault": {"kind": "status", "status": 503}}]})
        };
        let first = fired(&injector(plan(42)), "GET", 64);
        assert_eq!(fired(&injector(plan(42)), "GET", 64), first);
        assert_ne!(fired(&injector(plan(43)), "GET", 64), first);
        let share = first.iter().filter(|fired| **fired).count();
        assert!((16..=48).contains(&share), "{share} of 64");
    }

    #[test]
    fn latencies_add_up_and_the_first_other_fault_wins() {
        let injector = injector(json!({"seed": 1, "rules": [
            {"fault": {"kind": "latency", "ms": 10}},
            {"fault": {"kind": "latency", "ms": [20, 30]}},
            {"fault": {"kind": "status", "status": 500}},
            {"fault": {"kind": "drop_before_response"}},
        ]}));
        for _ in 0..20 {
            let decision = injector.decide("GET", "/rest/v1/geocache_logs");
            let delay = decision.delay.as_millis();
            assert!((30..=40).contains(&delay), "{delay}");
            assert!(matches!(
                decision.fault.unwrap().fault,
                Fault::Status { status: 500, .. }
            ));
        }
        let stats = injector.report().stats;
        assert_eq!(
            stats[3],
            RuleStats {
                matched: 20,
                fired: 0
            }
        );
    }

    #[tokio::test]
    async fn a_held_response_waits_for_a_later_answer() {
        let injector = injector(json!({"rules": [{"every": 2,
            "fault": {"kind": "out_of_order", "max_hold_ms": 10000}}]}));
        let first = injector.decide("GET", "/x");
        let held = injector.decide("GET", "/x");
        let later = injector.decide("GET", "/x");
        let hold = held.fault.unwrap().hold.unwrap();
        // An earlier request's answer does not release it...
        first.answered[0].signal();
        let waited = tokio::time::timeout(
            Duration::from_millis(50),
            hold.wait_for_later(Duration::from_secs(10)),
        )
        .await;
        assert!(waited.is_err());
        // ...a later one does.
        later.answered[0].signal();
        tokio::time::timeout(
            Duration::from_secs(5),
            hold.wait_for_later(Duration::from_secs(10)),
        )
        .await
        .unwrap();
    }

    #[tokio::test]
    async fn replacing_the_plan_releases_held_responses_and_resets_counts() {
        let injector = injector(json!({"rules": [{"fault": {"kind": "out_of_order"}}]}));
        let hold = injector.decide("GET", "/x").fault.unwrap().hold.unwrap();
        injector.clear();
        tokio::time::timeout(
            Duration::from_secs(5),
            hold.wait_for_later(Duration::from_secs(10)),
        )
        .await
        .unwrap();
        assert_eq!(
            injector.report(),
            Report {
                plan: FaultPlan::default(),
                stats: vec![]
            }
        );
        assert!(injector.decide("GET", "/x").is_empty());
    }
}
