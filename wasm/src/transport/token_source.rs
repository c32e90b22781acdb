//! Where a client's calls get their bearer: the signed-in user's access token, asked for afresh
//! before each call (the auth client refreshes it first when it is close to expiry), or `None`
//! while nobody is signed in, and the key is sent instead. Storage, functions and realtime take
//! one of these rather than each asking the auth client its own way.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

/// The current access token, `None` while nobody is signed in.
pub type TokenSource = Rc<dyn Fn() -> Pin<Box<dyn Future<Output = Option<String>>>>>;

/// A client nobody signs in through (built without auth, or the standalone realtime client).
#[cfg(any(not(feature = "auth"), feature = "realtime"))]
pub fn no_session() -> TokenSource {
    Rc::new(|| Box::pin(async { None }))
}

/// The session of `auth`.
#[cfg(feature = "auth")]
pub fn session_of(auth: &Rc<crate::auth::AuthClient>) -> TokenSource {
    let auth = Rc::clone(auth);
    Rc::new(move || {
        let auth = Rc::clone(&auth);
        Box::pin(async move { auth.access_token().await })
    })
}
