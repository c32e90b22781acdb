//! The command line, and the Supabase CLI's config file it can point to.

pub mod commands;
pub mod config;
pub mod owner;
pub mod project_file;
pub mod secret;
