//! One channel's state inside the socket's state machine.

use crate::UnixTime;

use super::action::{ChannelId, PushId};
use super::join::{ChannelOptions, Listener};

/// Phoenix's channel states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelState {
    Closed,
    Joining,
    Joined,
    Leaving,
    Errored,
}

/// A push waiting for its `phx_reply`.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    /// Whose promise to settle; `None` for the client's own leave after a mismatch.
    pub push: Option<PushId>,
    pub msg_ref: String,
    pub deadline: UnixTime,
    /// A `phx_leave`: its reply (or timeout) closes the channel.
    pub leave: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Channel {
    pub id: ChannelId,
    pub topic: String,
    pub options: ChannelOptions,
    pub listeners: Vec<Listener>,
    /// The ids the last join gave each postgres_changes listener.
    pub change_ids: Vec<Option<String>>,
    pub state: ChannelState,
    /// `subscribe` was called: the channel joins (and rejoins) until it is left.
    pub subscribed: bool,
    pub join_ref: Option<String>,
    pub join_deadline: Option<UnixTime>,
    pub rejoin_at: Option<UnixTime>,
    pub rejoin_tries: u32,
    pub pending: Vec<Pending>,
}

impl Channel {
    pub fn new(id: ChannelId, topic: String, options: ChannelOptions) -> Self {
        Channel {
            id,
            topic,
            options,
            listeners: Vec::new(),
            change_ids: Vec::new(),
            state: ChannelState::Closed,
            subscribed: false,
            join_ref: None,
            join_deadline: None,
            rejoin_at: None,
            rejoin_tries: 0,
            pending: Vec::new(),
        }
    }

    /// Moves to `state` (leaving, errored), where the channel waits for no join reply and
    /// no rejoin: whatever was armed for the last join is dropped.
    pub fn enter_untimed(&mut self, state: ChannelState) {
        self.state = state;
        self.join_deadline = None;
        self.rejoin_at = None;
    }

    /// Every moment this channel needs a tick at.
    pub fn deadlines(&self) -> impl Iterator<Item = UnixTime> + '_ {
        self.join_deadline
            .into_iter()
            .chain(self.rejoin_at)
            .chain(self.pending.iter().map(|pending| pending.deadline))
    }
}
