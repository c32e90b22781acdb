//! What every Realtime socket shares: one bus of events (committed changes and broadcasts), the
//! count of open sockets, the limits, and the switch that drops every socket (for tests).
//!
//! The bus is bounded: each socket reads it at its own pace, and one that falls more than
//! [`RealtimeLimits::queue`] events behind is disconnected (its client reconnects and catches up
//! by reading), never silently skipped. Changes are published while the database lock is held
//! ([`Hub::publish_changes`] runs inside the write), so they enter the bus in commit order.

use crate::realtime::change::Change;
use crate::realtime::frame::Broadcast;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RealtimeLimits {
    pub max_connections: usize,
    pub max_channels: usize,
    /// A socket that sends nothing for this long is closed.
    pub timeout: Duration,
    pub queue: usize,
}

impl Default for RealtimeLimits {
    fn default() -> RealtimeLimits {
        RealtimeLimits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_channels: DEFAULT_MAX_CHANNELS,
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECONDS),
            queue: DEFAULT_QUEUE,
        }
    }
}

/// What travels on the bus.
#[derive(Debug, Clone)]
pub enum Event {
    Change(Arc<Change>),
    Broadcast(Arc<TopicBroadcast>),
}

/// A broadcast on a topic, and the socket it came from (to honour `self: false`).
#[derive(Debug)]
pub struct TopicBroadcast {
    pub topic: String,
    /// `None` for the HTTP endpoint.
    pub from: Option<u64>,
    pub broadcast: Broadcast,
}

#[derive(Debug)]
pub struct Hub {
    pub limits: RealtimeLimits,
    bus: broadcast::Sender<Event>,
    open: Arc<AtomicUsize>,
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
            next_socket: AtomicU64::new(1),
            drops: watch::Sender::new(0),
        }
    }

    /// Publishes committed changes in order. Call it while the write's lock is held.
    pub fn publish_changes(&self, changes: impl IntoIterator<Item = Change>) {
        for change in changes {
            // No receiver means no socket is open: nobody to tell.
            let _ = self.bus.send(Event::Change(Arc::new(change)));
        }
    }

    pub fn publish_broadcast(&self, broadcast: TopicBroadcast) {
        let _ = self.bus.send(Event::Broadcast(Arc::new(broadcast)));
    }

    /// Registers an open socket: its id, its view of the bus from now on, the drop switch, and a
    /// guard that counts it until dropped.
    pub fn open(&self) -> OpenSocket {
        self.open.fetch_add(1, Ordering::SeqCst);
        OpenSocket {
            id: self.next_socket.fetch_add(1, Ordering::Relaxed),
            events: self.bus.subscribe(),
            drops: self.drops.subscribe(),
            count: SocketCount(Arc::clone(&self.open)),
        }
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
    pub count: SocketCount,
}

/// Counts a socket as open until dropped.
#[derive(Debug)]
pub struct SocketCount(Arc<AtomicUsize>);

impl Drop for SocketCount {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
