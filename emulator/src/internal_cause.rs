//! The marker an internal error leaves in its response's extensions: the API layer's renderer
//! writes it, the logging middleware and the auth layer's restyler read it. Its own module so
//! neither error layer has to import the other for it.

/// The cause of an internal error, for the logging middleware.
#[derive(Clone, Debug)]
pub struct InternalErrorCause(pub String);
