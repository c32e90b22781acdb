//! What every Realtime socket shares: one bus of events (committed changes and broadcasts), the
//! open sockets (counted from their upgrade, and shown with their channels for tests), the
//! limits, and the switch that drops every socket (for tests).
//!
//! The bus is bounded: each socket reads it at its own pace, and one that falls more than
//! [`RealtimeLimits::queue`] events behind is disconnected (its client reconnects and catches up
//! by reading), never silently skipped. Changes are published while the database lock is held
//! ([`Hub::publish_changes`] runs inside the write), so they enter the bus in commit order.

use crate::realtime::change::Change;
use crate::realtime::frame::Broadcast;
use crate::realtime::presence::{Diff, PresenceLimits, PresenceRefusal, Presences};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;
use tokio::sync::{broadcast, watch};

/// Hosted Realtime's Free plan: 200 concurrent connections, 100 channels per connection.
pub const DEFAULT_MAX_CONNECTIONS: usize = 200;
pub const DEFAULT_MAX_CHANNELS: usize = 100;
/// Phoenix's WebSocket timeout: over two of supabase-js's 25 s heartbeats, so one late heartbeat
/// never costs a connection, while a client gone without a close is noticed within a minute.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 60;
/// Events a socket may fall behind before it is disconnected.
pub const DEFAULT_QUEUE: usize = 1024;
/// What one socket may broadcast: a burst of this many payload bytes, refilled at
/// [`DEFAULT_BROADCAST_BYTES_PER_SECOND`]; beyond it, `BroadcastRateLimitReached`.
pub const DEFAULT_BROADCAST_BURST_BYTES: usize = 256 * 1024;
pub const DEFAULT_BROADCAST_BYTES_PER_SECOND: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RealtimeLimits {
    pub max_connections: usize,
    pub max_channels: usize,
    /// A socket that sends nothing for this long is closed.
    pub timeout: Duration,
    pub queue: usize,
    /// One socket's broadcast budget ([`crate::realtime::budget`]).
    pub broadcast_burst_bytes: usize,
    pub broadcast_bytes_per_second: usize,
    /// How much presence state a track, a channel and a socket may hold.
    pub presence: PresenceLimits,
}

impl Default for RealtimeLimits {
    fn default() -> RealtimeLimits {
        RealtimeLimits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_channels: DEFAULT_MAX_CHANNELS,
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECONDS),
            queue: DEFAULT_QUEUE,
            broadcast_burst_bytes: DEFAULT_BROADCAST_BURST_BYTES,
            broadcast_bytes_per_second: DEFAULT_BROADCAST_BYTES_PER_SECOND,
            presence: PresenceLimits::default(),
        }
    }
}

/// What travels on the bus.
#[derive(Debug, Clone)]
pub enum Event {
    Change(Arc<Published>),
    Broadcast(Arc<TopicBroadcast>),
    Presence(Arc<Diff>),
}

/// A change on the bus, with its `postgres_changes` data built once for every socket.
#[derive(Debug)]
pub struct Published {
    pub change: Change,
    data: OnceLock<Value>,
}

impl Published {
    pub fn data(&self) -> &Value {
        self.data.get_or_init(|| self.change.data())
    }
}

/// A broadcast on a topic, and the socket it came from (to honour `self: false`).
#[derive(Debug)]
pub struct TopicBroadcast {
    pub topic: String,
    /// `None` for the HTTP endpoint.
    pub from: Option<u64>,
    pub broadcast: Broadcast,
}

/// An open socket as `GET /emulator/v1/realtime/sockets` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SocketView {
    pub id: u64,
    pub vsn: &'static str,
    /// By topic.
    pub channels: Vec<ChannelView>,
}

/// A joined channel: who it acts for, from its access token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChannelView {
    pub topic: String,
    pub role: &'static str,
    /// The user's id (`sub`) of a user's token.
    pub sub: Option<String>,
}

type Views = Arc<Mutex<BTreeMap<u64, SocketView>>>;

#[derive(Debug)]
pub struct Hub {
    pub limits: RealtimeLimits,
    bus: broadcast::Sender<Event>,
    open: Arc<AtomicUsize>,
    views: Views,
    presences: Arc<Mutex<Presences>>,
    next_socket: AtomicU64,
    drops: watch::Sender<u64>,
}

impl Hub {
    pub fn new(limits: RealtimeLimits) -> Hub {
        let (bus, _) = broadcast::channel(limits.queue.max(1));
        Hub {
            limits,
            bus,
            open: Arc::default(),
            views: Arc::default(),
            presences: Arc::default(),
            next_socket: AtomicU64::new(1),
            drops: watch::Sender::new(0),
        }
    }

    /// Publishes committed changes in order. Call it while the write's lock is held.
    pub fn publish_changes(&self, changes: impl IntoIterator<Item = Change>) {
        for change in changes {
            // No receiver means no socket is open: nobody to tell.
            let published = Published {
                change,
                data: OnceLock::new(),
            };
            let _ = self.bus.send(Event::Change(Arc::new(published)));
        }
    }

    pub fn publish_broadcast(&self, broadcast: TopicBroadcast) {
        let _ = self.bus.send(Event::Broadcast(Arc::new(broadcast)));
    }

    /// Counts a socket about to be upgraded, unless [`RealtimeLimits::max_connections`] are open
    /// already: sockets are counted from the upgrade, not from their first join, so one that never
    /// joins holds a place too. The slot is given back when dropped.
    pub fn reserve(&self) -> Option<SocketSlot> {
        let max = self.limits.max_connections;
        self.open
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |open| {
                (open < max).then_some(open + 1)
            })
            .ok()?;
        Some(SocketSlot {
            open: Arc::clone(&self.open),
        })
    }

    /// Registers an open socket in its `slot`: its id, its view of the bus from now on, the drop
    /// switch, and a guard that counts and shows it until dropped.
    pub fn open(&self, slot: SocketSlot, vsn: &'static str) -> OpenSocket {
        let id = self.next_socket.fetch_add(1, Ordering::Relaxed);
        lock(&self.views).insert(
            id,
            SocketView {
                id,
                vsn,
                channels: Vec::new(),
            },
        );
        OpenSocket {
            id,
            events: self.bus.subscribe(),
            drops: self.drops.subscribe(),
            registration: Registration {
                _slot: slot,
                views: Arc::clone(&self.views),
                presences: Arc::clone(&self.presences),
                bus: self.bus.clone(),
                id,
            },
        }
    }

    /// A topic's `presence_state`.
    pub fn presence_state(&self, topic: &str) -> Value {
        lock(&self.presences).state(topic)
    }

    /// Socket `id` tracks `state` under `key` on `topic`, within the presence limits; the diff
    /// goes out under the lock, so every socket sees a topic's diffs in the order they were made.
    pub fn track(
        &self,
        topic: &str,
        key: &str,
        id: u64,
        state: Map<String, Value>,
    ) -> Result<(), PresenceRefusal> {
        let mut presences = lock(&self.presences);
        let diff = presences.track(topic, key, id, state, &self.limits.presence)?;
        let _ = self.bus.send(Event::Presence(Arc::new(diff)));
        Ok(())
    }

    /// Socket `id` stops tracking on `topic`.
    pub fn untrack(&self, topic: &str, id: u64) {
        let mut presences = lock(&self.presences);
        if let Some(diff) = presences.untrack(topic, id) {
            let _ = self.bus.send(Event::Presence(Arc::new(diff)));
        }
    }

    /// Replaces what socket `id` shows of its channels.
    pub fn show(&self, id: u64, channels: Vec<ChannelView>) {
        if let Some(view) = lock(&self.views).get_mut(&id) {
            view.channels = channels;
        }
    }

    /// The open sockets, oldest first.
    pub fn sockets(&self) -> Vec<SocketView> {
        lock(&self.views).values().cloned().collect()
    }

    /// Sockets open now.
    pub fn open_sockets(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    /// Drops every open socket without a close frame, as a server restart does; returns how many
    /// were open.
    pub fn drop_all(&self) -> usize {
        let open = self.open_sockets();
        self.drops.send_modify(|generation| *generation += 1);
        open
    }
}

/// One socket's handles on the hub.
#[derive(Debug)]
pub struct OpenSocket {
    pub id: u64,
    pub events: broadcast::Receiver<Event>,
    pub drops: watch::Receiver<u64>,
    pub registration: Registration,
}

/// A counted place for one socket, from its upgrade until dropped.
#[derive(Debug)]
pub struct SocketSlot {
    open: Arc<AtomicUsize>,
}

impl Drop for SocketSlot {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Shows a socket as open until dropped, when whatever it tracked leaves and its slot is given
/// back.
#[derive(Debug)]
pub struct Registration {
    _slot: SocketSlot,
    views: Views,
    presences: Arc<Mutex<Presences>>,
    bus: broadcast::Sender<Event>,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        {
            let mut presences = lock(&self.presences);
            for diff in presences.drop_socket(self.id) {
                let _ = self.bus.send(Event::Presence(Arc::new(diff)));
            }
        }
        lock(&self.views).remove(&self.id);
    }
}

/// The shared maps stay consistent whatever panicked while holding their lock: each change is
/// made whole before anything can fail.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
