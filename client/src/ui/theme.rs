//! The client's palette, shared by the map, the panel and the screens: the background and box
//! colours, the colour of each player, of each message kind, and the look of each status
//! effect. Kept apart so that the modules that draw can use it without reaching into each other.

use delve_protocol::{Effect, MessageKind};
use macroquad::prelude::*;

/// The window's background, behind the map.
pub const BG: Color = Color::new(0.035, 0.035, 0.05, 1.0);
/// The side panel's fill and its edge.
pub const PANEL: Color = Color::new(0.075, 0.07, 0.1, 1.0);
pub const PANEL_EDGE: Color = Color::new(0.2, 0.18, 0.26, 1.0);
/// A box over the game (menu, help, hover box) and its outline.
pub const BOX: Color = Color::new(0.07, 0.065, 0.095, 1.0);
pub const BOX_EDGE: Color = Color::new(0.35, 0.3, 0.45, 1.0);
/// Titles, the selection, what can be pressed.
pub const GOLD: Color = Color::new(0.93, 0.77, 0.33, 1.0);
/// Labels and hints: what is there to read, not to notice.
pub const DIM: Color = Color::new(0.6, 0.58, 0.66, 1.0);
/// A warning: a refusal, a connection problem.
pub const WARN: Color = Color::new(1.0, 160.0 / 255.0, 0.0, 1.0);
/// Chat lines, apart from the four message kinds.
pub const CHAT: Color = Color::new(0.55, 0.95, 0.55, 1.0);
/// Monsters, on the panel and the minimap (players have their own colours).
pub const MONSTER: Color = Color::new(230.0 / 255.0, 70.0 / 255.0, 60.0 / 255.0, 1.0);

/// The colour a player is drawn in, by id alone, so everyone sees a player in the same colour
/// on every client (the first character of a dungeon is gold, the second purple, ...). Red is
/// left to monsters.
pub fn player_color(id: u32) -> Color {
    const PLAYERS: [(u8, u8, u8); 8] = [
        (236, 196, 84),
        (170, 120, 240),
        (80, 200, 210),
        (110, 210, 110),
        (240, 140, 60),
        (90, 140, 240),
        (230, 130, 200),
        (220, 220, 220),
    ];
    let (r, g, b) = PLAYERS[(id.max(1) as usize - 1) % PLAYERS.len()];
    Color::from_rgba(r, g, b, 255)
}

/// The colour of each message kind *(given by GAME_RULES.md)*.
pub fn message_color(kind: MessageKind) -> Color {
    match kind {
        MessageKind::Normal => WHITE,
        MessageKind::Good => Color::from_rgba(40, 200, 255, 255),
        MessageKind::Bad => Color::from_rgba(255, 64, 64, 255),
        MessageKind::Warning => Color::from_rgba(255, 160, 0, 255),
    }
}

/// How a status effect is shown: its word and its colour.
pub fn effect_look(e: Effect) -> (&'static str, Color) {
    match e {
        Effect::Stun => ("Stunned", Color::from_rgba(250, 214, 64, 255)),
        Effect::Poison => ("Poisoned", Color::from_rgba(120, 220, 70, 255)),
        Effect::Confusion => ("Confused", Color::from_rgba(196, 120, 255, 255)),
    }
}

/// A box's outline, drawn inside its edges `thickness / 2` pixels wide (what macroquad's
/// `draw_rectangle_lines` means by a thickness), rounded to whole pixels and never thinner
/// than one. macroquad's own outline of thickness 1 is half a pixel wide, which the rasterizer
/// drops on the bottom (and sometimes the right) edge of a box at whole-pixel coordinates:
/// the hover box and the equip comparison came out open at the bottom.
pub fn outline(x: f32, y: f32, w: f32, h: f32, thickness: f32, color: Color) {
    let t = (thickness / 2.0).round().max(1.0);
    draw_rectangle(x, y, w, t, color);
    draw_rectangle(x, y + h - t, w, t, color);
    draw_rectangle(x, y + t, t, h - 2.0 * t, color);
    draw_rectangle(x + w - t, y + t, t, h - 2.0 * t, color);
}
