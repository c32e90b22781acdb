//! Edge Functions (`/functions/v1/<name>`), as supabase-js's `functions.invoke` sends and reads
//! them, in plain values: [`invoke`] builds the request (URL, method, headers and which
//! `Content-Type` the body's kind gets), [`response`] classifies what came back (relay error,
//! HTTP error, or data to read by its `Content-Type`), and [`error`] names the three failures as
//! supabase-js's error classes do. The wasm crate sends the body and reads the response.
//!
//! ```
//! use geocache_core::functions::invoke::{invoke_request, BodyKind, InvokeOptions};
//! use geocache_core::functions::response::{classify, DataKind, Outcome};
//! use geocache_core::ClientConfig;
//!
//! let config = ClientConfig::new("https://abc.supabase.co", "sb_publishable_key")?;
//! let options = InvokeOptions { body: BodyKind::Json, ..InvokeOptions::default() };
//! let request = invoke_request(&config, None, "notify-owner", &options)?;
//! assert_eq!(request.method, "POST");
//! assert_eq!(request.url, "https://abc.supabase.co/functions/v1/notify-owner");
//! assert_eq!(request.header("content-type"), Some("application/json"));
//! // A publishable key is no JWT: without a session the function gets no bearer.
//! assert_eq!(request.header("authorization"), None);
//!
//! assert_eq!(classify(200, None, Some("application/json; charset=utf-8")),
//!            Outcome::Data(DataKind::Json));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod error;
pub mod invoke;
pub mod response;

pub use error::{FunctionsFailure, InvokeArgumentError};
