//! The macroquad front end: draws the model and turns keys into intents.

pub mod aim;
pub mod anim;
pub mod app;
pub mod audio;
pub mod frames;
pub mod help;
pub mod hud;
pub mod input;
pub mod inventory;
pub mod lobby;
pub mod modal;
pub mod render;
pub mod scores;
pub mod screens;
pub mod screenshot;
pub mod sheet;
pub mod sprites;
pub mod text_input;
pub mod theme;
#[cfg(target_arch = "wasm32")]
pub mod web;

pub use app::{Options, run};
