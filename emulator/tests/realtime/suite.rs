//! The Realtime suites: the socket protocol, postgres_changes and broadcast.

mod broadcast;
mod changes;
mod protocol;
