//! The pieces of the `delve-load` generator (src/bin/delve-load.rs): its [`args`], the
//! open-loop [`schedule`], the [`bot`]s, the [`echo`] baseline server, [`memory`] (dungeons made
//! and played by their players, for what they cost), [`procfs`] readings of a process's CPU and
//! memory, and the [`stats`] it prints.

pub mod args;
pub mod bot;
pub mod echo;
pub mod memory;
pub mod procfs;
pub mod schedule;
pub mod stats;
