//! The Realtime suites: the socket protocol, postgres_changes, broadcast and presence, and the
//! limits on what a socket sends.

mod broadcast;
mod changes;
mod limits;
mod presence;
mod protocol;
