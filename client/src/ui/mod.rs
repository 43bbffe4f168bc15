//! The macroquad front end: draws the model and turns keys, clicks and touches into intents.
//! Its modules, from the frame loop down to the leaves:
//!
//! - [`app`]: the game's state between frames and the frame loop (network, input, drawing),
//!   with what each command does on each screen, the mouse on the map, and `--script`.
//! - [`lobby`]: the list of a server's dungeons, before a game.
//! - [`screens`]: the screens over the game: character sheet, level-up, message history.
//! - [`ending`]: the death and victory screens.
//! - [`inventory`]: the pack screen.
//! - [`scores`]: the high-score table (over the lobby or the game).
//! - [`help`]: the help screen, the Esc menu and the hover box.
//! - [`panel`]: the side panel beside the map, or the status bar over it.
//! - [`log`]: the message log under the map.
//! - [`banners`]: notices over everything and banners across the map.
//! - [`render`]: the dungeon and what is in it, in tiles; [`glyphs`]: the same in letters.
//! - [`anim`]: walks, hops, flashes and floating numbers between turns.
//! - [`sprites`] and [`sheet`]: the pixel art, cut from the sprite sheet.
//! - [`input`]: keys to commands, by the key table.
//! - [`controls`]: the commands offered as buttons beside the map (one table).
//! - [`widgets`]: clickable places and buttons: drawn in a frame, clicked in the next.
//! - [`text_input`]: a one-line text field (chat, the lobby's questions).
//! - [`touch`]: fingers as gestures (tap, hold, pinch, drag), and whether play is by touch.
//! - [`touch_bar`]: a phone's bar of large command buttons.
//! - [`audio`]: playing the sound effects.
//! - [`frames`]: frame-time statistics.
//! - [`screenshot`]: saving the window as a PNG.
//! - [`title`]: the native window's title ("Your move – Delve").
//! - [`web`]: what only the browser build has (the name asked once, the published status).
//! - Leaves every drawing module may use: [`layout`] (the window's areas and the screens'
//!   drawing space), [`theme`] (the palette) and [`text`] (wrapping and fitting text).

pub mod aim;
pub mod anim;
pub mod app;
pub mod audio;
pub mod banners;
pub mod controls;
pub mod ending;
pub mod frames;
pub mod glyphs;
pub mod help;
pub mod input;
pub mod inventory;
pub mod layout;
pub mod lobby;
pub mod log;
pub mod panel;
pub mod render;
pub mod scores;
pub mod screens;
pub mod screenshot;
pub mod sheet;
pub mod sprites;
pub mod text;
pub mod text_input;
pub mod theme;
#[cfg(not(target_arch = "wasm32"))]
pub mod title;
pub mod touch;
pub mod touch_bar;
#[cfg(target_arch = "wasm32")]
pub mod web;
pub mod widgets;

pub use app::{Options, run};
