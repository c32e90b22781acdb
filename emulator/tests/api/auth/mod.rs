//! The auth server (`/auth/v1`) and the SMS outbox (`/emulator/v1/sms`), driven in-process on a
//! manual clock.

mod abuse;
mod address_limits;
mod challenge;
mod factors;
mod hardening;
mod logout;
mod rate_limit;
mod rest;
mod signup;
mod styles;
mod support;
mod token;
mod user;
mod verify;
