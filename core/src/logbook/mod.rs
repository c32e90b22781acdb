//! The logbook's data: its rows ([`entry`]) and their timestamps ([`timestamp`]), the strict
//! validation of a response body ([`schema`], which reads JSON through [`json_shape`]),
//! newest-first order ([`ordering`]), the list the page reads ([`entry_list`]), and how a logbook
//! call's answer becomes a body or one [`LogbookError`](outcome::LogbookError) ([`outcome`]). The
//! requests that read and sign it are PostgREST calls, in [`rest`](crate::rest).

pub mod entry;
pub mod entry_list;
pub mod json_shape;
pub mod ordering;
pub mod outcome;
pub mod schema;
#[cfg(test)]
mod test_support;
pub mod timestamp;
