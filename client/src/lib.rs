//! The Delve client as a library. Everything but `ui` runs headless, so tests and bots use the same
//! code as the game. The same crate builds for `wasm32-unknown-unknown`: what a browser cannot
//! have (the solo server, threads, tokio, files) sits behind `cfg(target_arch = "wasm32")`. Its
//! modules:
//!
//! - [`aim`]: aiming a throw or a shot: what, at which target, along which line.
//! - [`appearance`]: how the game looks as the player set it: interface size, tiles or glyphs.
//! - [`describe`]: what the mouse points at on the map, in words.
//! - [`display`]: whether a window can be opened at all (natively), checked before anything.
//! - [`friends`]: what the pack does for a friend next to you: give, or use a thing on them.
//! - [`keep`]: what is kept of finished games here: character dumps, the solo score table.
//! - [`keymap`]: the one table of keys and commands (input, help screen and key file).
//! - [`link`]: the web page's address and query string (which dungeon, which name).
//! - [`model`]: the client's copy of the game: its view, patched by every diff, the message log
//!   and the turn status.
//! - [`morgue`]: the character dump of a finished game, as text.
//! - [`net`]: the WebSocket session speaking the protocol, behind one `Link` interface: a thread
//!   natively, the page's own socket polled each frame in a browser; reconnecting by itself.
//! - [`pack`]: the pack as the client reasons about it: what each key does to the selected item,
//!   and the stat comparison shown before equipping.
//! - [`record`]: what the server tells of finished games: where ours is kept (and its dump),
//!   and which game a replay plays back.
//! - [`replay`]: the controls of a finished game watched again (play, pause, speed, step, jump).
//! - [`recent`]: the last lines of a character's log, kept to show again on resuming it.
//! - [`scores`]: the high-score table's pure half: its columns, dates and scrolling.
//! - [`script`]: `--script`, scripted key presses, pointing and screenshots (for tests).
//! - [`solo`]: `--solo`, the server library started inside the client on a loopback port
//!   (native only).
//! - [`sound`]: which sound effect a turn makes, the sound settings, and the effects themselves
//!   (synthesized, written as WAV files by a test).
//! - [`tokens`]: resume tokens remembered per server, dungeon and name.
//! - [`travel`]: click-to-travel, stairs travel and explore, as one ordinary move a turn.
//! - [`ui`]: the macroquad front end: drawing, input, the lobby and the screens.

pub mod aim;
pub mod appearance;
pub mod describe;
pub mod display;
pub mod friends;
pub mod keep;
pub mod keymap;
pub mod link;
pub mod model;
pub mod morgue;
pub mod net;
pub mod pack;
pub mod recent;
pub mod record;
pub mod replay;
pub mod scores;
pub mod script;
#[cfg(not(target_arch = "wasm32"))]
pub mod solo;
pub mod sound;
pub mod tokens;
pub mod travel;
pub mod ui;
