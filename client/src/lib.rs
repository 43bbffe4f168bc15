//! The Delve client as a library: `model` (the client's copy of its view), `net` (the WebSocket
//! session: a thread natively, the page's socket in a browser), `scores` (the high-score table's
//! pure half), `solo` (an in-process server, native only), `link` (the web page's address) and
//! `ui` (macroquad drawing and input). Everything but `ui` runs headless, so tests and bots use
//! the same code as the game.
//!
//! The same crate builds for `wasm32-unknown-unknown`: what a browser cannot have (the solo
//! server, threads, tokio, files) sits behind `cfg(target_arch = "wasm32")`.

pub mod link;
pub mod model;
pub mod net;
pub mod pack;
pub mod scores;
#[cfg(not(target_arch = "wasm32"))]
pub mod solo;
pub mod tokens;
pub mod ui;
