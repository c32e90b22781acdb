//! Fault injection: the control endpoint and flag, and every fault kind over real sockets.

mod control;
mod drops;
mod order_and_latency;
mod responses;
mod support;
