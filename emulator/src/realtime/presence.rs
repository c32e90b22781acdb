//! Presence as Phoenix keeps it: per topic, each key's metas (one per tracking socket), each with
//! a `phx_ref`. Tracking, re-tracking and leaving yield the `presence_diff` `{joins, leaves}` every
//! subscriber applies; a joining channel gets the whole `presence_state`. Pure state: the hub
//! holds it under a lock and publishes the diffs.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub struct Presences {
    topics: BTreeMap<String, BTreeMap<String, Vec<Meta>>>,
    next_ref: u64,
}

#[derive(Debug, Clone)]
struct Meta {
    socket: u64,
    phx_ref: String,
    state: Map<String, Value>,
}

impl Meta {
    fn json(&self, previous: Option<&str>) -> Value {
        let mut meta = self.state.clone();
        meta.insert("phx_ref".into(), self.phx_ref.clone().into());
        if let Some(previous) = previous {
            meta.insert("phx_ref_prev".into(), previous.into());
        }
        Value::Object(meta)
    }
}

/// A change to a topic's presences: `{joins: {key: {metas}}, leaves: {key: {metas}}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    pub topic: String,
    pub joins: Map<String, Value>,
    pub leaves: Map<String, Value>,
}

impl Diff {
    fn new(topic: &str) -> Diff {
        Diff {
            topic: topic.to_owned(),
            joins: Map::new(),
            leaves: Map::new(),
        }
    }

    pub fn payload(&self) -> Value {
        serde_json::json!({"joins": self.joins, "leaves": self.leaves})
    }

    fn is_empty(&self) -> bool {
        self.joins.is_empty() && self.leaves.is_empty()
    }
}

fn metas(list: Vec<Value>) -> Value {
    serde_json::json!({ "metas": list })
}

impl Presences {
    /// `presence_state` of a topic.
    pub fn state(&self, topic: &str) -> Value {
        let keys = self.topics.get(topic).cloned().unwrap_or_default();
        Value::Object(
            keys.into_iter()
                .map(|(key, list)| {
                    (
                        key,
                        metas(list.iter().map(|meta| meta.json(None)).collect()),
                    )
                })
                .collect(),
        )
    }

    /// `socket` tracks `state` under `key`; tracking again replaces its earlier state.
    pub fn track(
        &mut self,
        topic: &str,
        key: &str,
        socket: u64,
        state: Map<String, Value>,
    ) -> Diff {
        self.next_ref += 1;
        let meta = Meta {
            socket,
            phx_ref: format!("p{}", self.next_ref),
            state,
        };
        let list = self
            .topics
            .entry(topic.to_owned())
            .or_default()
            .entry(key.to_owned())
            .or_default();
        let mut diff = Diff::new(topic);
        let previous = list
            .iter()
            .position(|meta| meta.socket == socket)
            .map(|index| list.remove(index));
        if let Some(previous) = &previous {
            diff.leaves
                .insert(key.to_owned(), metas(vec![previous.json(None)]));
        }
        let previous_ref = previous.as_ref().map(|meta| meta.phx_ref.as_str());
        diff.joins
            .insert(key.to_owned(), metas(vec![meta.json(previous_ref)]));
        list.push(meta);
        diff
    }

    /// Everything `socket` tracks on `topic` leaves; `None` if it tracked nothing there.
    pub fn untrack(&mut self, topic: &str, socket: u64) -> Option<Diff> {
        let keys = self.topics.get_mut(topic)?;
        let mut diff = Diff::new(topic);
        for (key, list) in keys.iter_mut() {
            let (left, stayed): (Vec<Meta>, Vec<Meta>) =
                list.drain(..).partition(|meta| meta.socket == socket);
            *list = stayed;
            if !left.is_empty() {
                diff.leaves.insert(
                    key.clone(),
                    metas(left.iter().map(|meta| meta.json(None)).collect()),
                );
            }
        }
        keys.retain(|_, list| !list.is_empty());
        if keys.is_empty() {
            self.topics.remove(topic);
        }
        (!diff.is_empty()).then_some(diff)
    }

    /// A closed socket leaves every topic.
    pub fn drop_socket(&mut self, socket: u64) -> Vec<Diff> {
        let topics: Vec<String> = self.topics.keys().cloned().collect();
        topics
            .iter()
            .filter_map(|topic| self.untrack(topic, socket))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn tracking_joins_retracking_replaces_and_untracking_leaves() {
        let mut presences = Presences::default();
        let first = presences.track("t", "ann", 1, state(json!({"at": "gc1"})));
        assert_eq!(
            first.payload(),
            json!({"joins": {"ann": {"metas": [{"at": "gc1", "phx_ref": "p1"}]}}, "leaves": {}})
        );
        presences.track("t", "bea", 2, state(json!({})));
        let again = presences.track("t", "ann", 1, state(json!({"at": "gc2"})));
        assert_eq!(
            again.payload(),
            json!({
                "joins": {"ann": {"metas": [{"at": "gc2", "phx_ref": "p3", "phx_ref_prev": "p1"}]}},
                "leaves": {"ann": {"metas": [{"at": "gc1", "phx_ref": "p1"}]}},
            })
        );
        assert_eq!(
            presences.state("t"),
            json!({"ann": {"metas": [{"at": "gc2", "phx_ref": "p3"}]}, "bea": {"metas": [{"phx_ref": "p2"}]}})
        );
        let left = presences.untrack("t", 1).unwrap();
        assert_eq!(
            left.payload()["leaves"],
            json!({"ann": {"metas": [{"at": "gc2", "phx_ref": "p3"}]}})
        );
        assert_eq!(presences.untrack("t", 1), None);
        assert_eq!(presences.drop_socket(2).len(), 1);
        assert_eq!(presences.state("t"), json!({}));
    }
}
