//! Presence as Phoenix keeps it: per topic, each key's metas (one per tracking socket), each with
//! a `phx_ref`. Tracking, re-tracking and leaving yield the `presence_diff` `{joins, leaves}` every
//! subscriber applies; a joining channel gets the whole `presence_state`. Pure state: the hub
//! holds it under a lock and publishes the diffs.
//!
//! State is kept for as long as its socket tracks it, so it is bounded, by its JSON text: per
//! track, per channel (every socket's tracks on a topic) and per socket (its tracks on every
//! topic). A track past a limit is refused and changes nothing.

use crate::realtime::size::MAX_PAYLOAD_BYTES;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Bytes of presence state (as JSON text) a track, a channel and a socket may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresenceLimits {
    pub per_track: usize,
    pub per_channel: usize,
    pub per_socket: usize,
}

impl Default for PresenceLimits {
    /// A few KiB is what a presence holds (a name, a status); these leave room for far more
    /// while keeping every socket's state together to a few MiB.
    fn default() -> PresenceLimits {
        PresenceLimits {
            per_track: MAX_PAYLOAD_BYTES,
            per_channel: 1024 * 1024,
            per_socket: 64 * 1024,
        }
    }
}

/// Why a track was refused: its reason, as the client reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PresenceRefusal {
    /// The track alone is over [`PresenceLimits::per_track`].
    TrackTooLarge,
    /// With it, its channel or its socket would hold too much.
    ChannelFull,
    SocketFull,
}

impl PresenceRefusal {
    pub fn reason(&self) -> &'static str {
        match self {
            PresenceRefusal::TrackTooLarge => {
                "PayloadSizeExceeded: the presence payload is over the size limit"
            }
            PresenceRefusal::ChannelFull => {
                "PresenceStateTooLarge: the channel holds as much presence state as it may"
            }
            PresenceRefusal::SocketFull => {
                "PresenceStateTooLarge: this connection tracks as much presence state as it may"
            }
        }
    }
}

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
    /// `state`'s JSON text length, what the limits count.
    bytes: usize,
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

    /// `socket` tracks `state` under `key`; tracking again replaces its earlier state. A track
    /// past `limits` is refused and changes nothing.
    pub fn track(
        &mut self,
        topic: &str,
        key: &str,
        socket: u64,
        state: Map<String, Value>,
        limits: &PresenceLimits,
    ) -> Result<Diff, PresenceRefusal> {
        let bytes = Value::Object(state.clone()).to_string().len();
        if bytes > limits.per_track {
            return Err(PresenceRefusal::TrackTooLarge);
        }
        // What the track replaces no longer counts.
        let replaced = self
            .held(|in_topic, meta| in_topic == topic && meta.socket == socket && meta.key == key);
        let channel = self.held(|in_topic, _| in_topic == topic) - replaced;
        if channel + bytes > limits.per_channel {
            return Err(PresenceRefusal::ChannelFull);
        }
        let own = self.held(|_, meta| meta.socket == socket) - replaced;
        if own + bytes > limits.per_socket {
            return Err(PresenceRefusal::SocketFull);
        }
        self.next_ref += 1;
        let meta = Meta {
            socket,
            phx_ref: format!("p{}", self.next_ref),
            state,
            bytes,
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
        Ok(diff)
    }

    /// Bytes held by the metas `counted` picks, given their topic and key.
    fn held(&self, counted: impl Fn(&str, Held<'_>) -> bool) -> usize {
        let mut total = 0;
        for (topic, keys) in &self.topics {
            for (key, list) in keys {
                for meta in list {
                    let held = Held {
                        key,
                        socket: meta.socket,
                    };
                    if counted(topic, held) {
                        total += meta.bytes;
                    }
                }
            }
        }
        total
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

/// A meta as [`Presences::held`] shows it.
#[derive(Clone, Copy)]
struct Held<'a> {
    key: &'a str,
    socket: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    fn track(
        presences: &mut Presences,
        topic: &str,
        key: &str,
        socket: u64,
        value: Value,
    ) -> Result<Diff, PresenceRefusal> {
        presences.track(topic, key, socket, state(value), &PresenceLimits::default())
    }

    /// `{"t":"…"}` of exactly `bytes` bytes of JSON text.
    fn sized(bytes: usize) -> Value {
        json!({"t": "x".repeat(bytes - 8)})
    }

    #[test]
    fn state_past_a_limit_is_refused_and_a_retrack_counts_only_once() {
        let limits = PresenceLimits {
            per_track: 100,
            per_channel: 250,
            per_socket: 150,
        };
        let mut presences = Presences::default();
        let mut track = |topic: &str, key: &str, socket: u64, bytes: usize| {
            presences
                .track(topic, key, socket, state(sized(bytes)), &limits)
                .map(|_| ())
        };
        assert_eq!(track("t", "a", 1, 101), Err(PresenceRefusal::TrackTooLarge));
        assert_eq!(track("t", "a", 1, 100), Ok(()));
        // Replacing its own track, a socket is not counted twice.
        assert_eq!(track("t", "a", 1, 100), Ok(()));
        assert_eq!(track("u", "a", 1, 51), Err(PresenceRefusal::SocketFull));
        assert_eq!(track("u", "a", 1, 50), Ok(()));
        assert_eq!(track("t", "b", 2, 100), Ok(()));
        assert_eq!(track("t", "c", 3, 51), Err(PresenceRefusal::ChannelFull));
        assert_eq!(track("t", "c", 3, 50), Ok(()));
        // A refused track changed nothing: socket 1 still holds its 100 on `t`.
        assert_eq!(
            presences.state("t")["a"]["metas"][0]["t"]
                .as_str()
                .map(str::len),
            Some(92)
        );
    }

    #[test]
    fn tracking_joins_retracking_replaces_and_untracking_leaves() {
        let mut presences = Presences::default();
        let first = track(&mut presences, "t", "ann", 1, json!({"at": "gc1"})).unwrap();
        assert_eq!(
            first.payload(),
            json!({"joins": {"ann": {"metas": [{"at": "gc1", "phx_ref": "p1"}]}}, "leaves": {}})
        );
        track(&mut presences, "t", "bea", 2, json!({})).unwrap();
        let again = track(&mut presences, "t", "ann", 1, json!({"at": "gc2"})).unwrap();
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
