//! The Realtime suites: the socket protocol, postgres_changes, broadcast and presence.

mod broadcast;
mod changes;
mod presence;
mod protocol;
