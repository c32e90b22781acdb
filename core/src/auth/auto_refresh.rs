//! Who runs the auto-refresh ticker, as a small state machine: auth-js `_handleVisibilityChange`,
//! `_onVisibilityChanged`, `startAutoRefresh`, `stopAutoRefresh` and `dispose`. The bindings
//! carry out the returned actions (listener and timers are theirs); nothing here touches the web.

/// `document.visibilityState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    Visible,
    Hidden,
    /// Anything else (the obsolete `prerender`): no change.
    Other,
}

impl Visibility {
    pub fn from_state(state: &str) -> Self {
        match state {
            "visible" => Visibility::Visible,
            "hidden" => Visibility::Hidden,
            _ => Visibility::Other,
        }
    }
}

/// One thing for the bindings to do, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Load the stored session; refresh it if it is close to expiry, else announce SIGNED_IN.
    RecoverSession,
    /// Add the `visibilitychange` listener.
    ListenForVisibility,
    /// Remove it: the caller now decides when the ticker runs.
    StopListening,
    /// (Re)start the ticker: clear any running one, run one tick at once, then every tick.
    StartTicker,
    /// Clear the ticker.
    StopTicker,
}

/// Whether the visibility listener and the ticker are live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoRefreshControl {
    auto_refresh_token: bool,
    listening: bool,
    ticking: bool,
}

impl AutoRefreshControl {
    /// `auto_refresh_token` is the client option (default on); off, the ticker only runs when
    /// started explicitly.
    pub fn new(auto_refresh_token: bool) -> Self {
        AutoRefreshControl {
            auto_refresh_token,
            listening: false,
            ticking: false,
        }
    }

    pub fn is_listening(&self) -> bool {
        self.listening
    }

    pub fn is_ticking(&self) -> bool {
        self.ticking
    }

    /// The end of client initialisation. `visibility` is `None` outside a browser, where the
    /// ticker simply runs (when auto-refresh is on); in a browser the listener decides.
    pub fn initialize(&mut self, visibility: Option<Visibility>) -> Vec<Action> {
        let mut actions = vec![Action::RecoverSession];
        match visibility {
            None if self.auto_refresh_token => actions.extend(self.start()),
            None => {}
            Some(visibility) => {
                self.listening = true;
                actions.push(Action::ListenForVisibility);
                // Recovery already ran above, so the initial call does not recover again.
                actions.extend(self.apply(visibility, false));
            }
        }
        actions
    }

    /// A `visibilitychange` event. Ignored once an explicit start or stop has taken over.
    pub fn visibility_changed(&mut self, visibility: Visibility) -> Vec<Action> {
        if !self.listening {
            return Vec::new();
        }
        self.apply(visibility, true)
    }

    fn apply(&mut self, visibility: Visibility, recover: bool) -> Vec<Action> {
        let mut actions = Vec::new();
        match visibility {
            Visibility::Visible => {
                if self.auto_refresh_token {
                    self.ticking = true;
                    actions.push(Action::StartTicker);
                }
                if recover {
                    actions.push(Action::RecoverSession);
                }
            }
            Visibility::Hidden if self.auto_refresh_token && self.ticking => {
                self.ticking = false;
                actions.push(Action::StopTicker);
            }
            Visibility::Hidden | Visibility::Other => {}
        }
        actions
    }

    /// `startAutoRefresh()`: stop listening, (re)start the ticker.
    pub fn start(&mut self) -> Vec<Action> {
        let mut actions = self.stop_listening();
        self.ticking = true;
        actions.push(Action::StartTicker);
        actions
    }

    /// `stopAutoRefresh()`: stop listening, stop the ticker.
    pub fn stop(&mut self) -> Vec<Action> {
        let mut actions = self.stop_listening();
        if self.ticking {
            self.ticking = false;
            actions.push(Action::StopTicker);
        }
        actions
    }

    /// `dispose()`: like [`Self::stop`]; a second call has nothing left to do.
    pub fn dispose(&mut self) -> Vec<Action> {
        self.stop()
    }

    fn stop_listening(&mut self) -> Vec<Action> {
        if self.listening {
            self.listening = false;
            vec![Action::StopListening]
        } else {
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Action::*;
    use Visibility::*;

    fn visible_browser() -> AutoRefreshControl {
        let mut control = AutoRefreshControl::new(true);
        control.initialize(Some(Visible));
        control
    }

    #[test]
    fn visibility_states_are_read_from_their_names() {
        assert_eq!(Visibility::from_state("visible"), Visible);
        assert_eq!(Visibility::from_state("hidden"), Hidden);
        assert_eq!(Visibility::from_state("prerender"), Other);
    }

    #[test]
    fn a_visible_page_recovers_listens_and_ticks_at_start() {
        let mut control = AutoRefreshControl::new(true);
        assert_eq!(
            control.initialize(Some(Visible)),
            [RecoverSession, ListenForVisibility, StartTicker]
        );
        assert!(control.is_listening() && control.is_ticking());
    }

    #[test]
    fn a_hidden_page_listens_but_does_not_tick_at_start() {
        let mut control = AutoRefreshControl::new(true);
        assert_eq!(
            control.initialize(Some(Hidden)),
            [RecoverSession, ListenForVisibility]
        );
        assert!(control.is_listening() && !control.is_ticking());
    }

    #[test]
    fn outside_a_browser_the_ticker_just_runs() {
        let mut control = AutoRefreshControl::new(true);
        assert_eq!(control.initialize(None), [RecoverSession, StartTicker]);
        assert!(!control.is_listening());
        let mut off = AutoRefreshControl::new(false);
        assert_eq!(off.initialize(None), [RecoverSession]);
    }

    #[test]
    fn becoming_visible_starts_the_ticker_and_recovers_hidden_stops_it() {
        let mut control = visible_browser();
        assert_eq!(control.visibility_changed(Hidden), [StopTicker]);
        assert!(!control.is_ticking());
        assert_eq!(control.visibility_changed(Hidden), []);
        assert_eq!(
            control.visibility_changed(Visible),
            [StartTicker, RecoverSession]
        );
        assert!(control.is_ticking());
        assert_eq!(control.visibility_changed(Other), []);
    }

    #[test]
    fn without_auto_refresh_visibility_only_recovers() {
        let mut control = AutoRefreshControl::new(false);
        assert_eq!(
            control.initialize(Some(Visible)),
            [RecoverSession, ListenForVisibility]
        );
        assert_eq!(control.visibility_changed(Visible), [RecoverSession]);
        assert_eq!(control.visibility_changed(Hidden), []);
    }

    #[test]
    fn an_explicit_start_takes_over_from_visibility() {
        let mut control = visible_browser();
        assert_eq!(control.start(), [StopListening, StartTicker]);
        assert_eq!(control.visibility_changed(Hidden), []);
        assert!(control.is_ticking());
        // Starting again restarts the ticker (one more immediate tick).
        assert_eq!(control.start(), [StartTicker]);
    }

    #[test]
    fn an_explicit_stop_takes_over_from_visibility() {
        let mut control = visible_browser();
        assert_eq!(control.stop(), [StopListening, StopTicker]);
        assert_eq!(control.visibility_changed(Visible), []);
        assert!(!control.is_ticking() && !control.is_listening());
        assert_eq!(control.stop(), []);
        // Explicit start works even without auto-refresh.
        let mut off = AutoRefreshControl::new(false);
        off.initialize(Some(Visible));
        assert_eq!(off.start(), [StopListening, StartTicker]);
    }

    #[test]
    fn dispose_is_idempotent() {
        let mut control = visible_browser();
        assert_eq!(control.dispose(), [StopListening, StopTicker]);
        assert_eq!(control.dispose(), []);
        let mut hidden = AutoRefreshControl::new(true);
        hidden.initialize(Some(Hidden));
        assert_eq!(hidden.dispose(), [StopListening]);
    }
}
