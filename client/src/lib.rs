//! The Delve client as a library: `model` (the client's copy of its view), `net` (the WebSocket
//! session and its thread), `scores` (the high-score table's pure half), `solo` (an in-process server) and `ui` (macroquad drawing and
//! input). Everything but `ui` runs headless, so tests and bots use the same code as the game.

pub mod model;
pub mod net;
pub mod pack;
pub mod scores;
pub mod solo;
pub mod tokens;
pub mod ui;
