//! The pieces of the `delve-load` generator (src/bin/delve-load.rs): the open-loop
//! [`schedule`], the [`bot`]s, the [`echo`] baseline server, [`procfs`] readings of a
//! process's CPU and memory, and the [`stats`] it prints.

pub mod bot;
pub mod echo;
pub mod procfs;
pub mod schedule;
pub mod stats;
