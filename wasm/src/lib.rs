//! wasm-bindgen bindings for the geocache logbook client.
