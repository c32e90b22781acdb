//! The command line.

pub mod config;
