//! The help screen (`?`), drawn from the key table itself so it can never disagree with the
//! keys; the Esc menu; and the hover box that says what the mouse points at.

use macroquad::prelude::*;

use super::render::Camera;
use crate::describe::Description;
use crate::keymap::KeyMap;

const GOLD: Color = Color::new(0.93, 0.77, 0.33, 1.0);
const DIM: Color = Color::new(0.6, 0.58, 0.66, 1.0);
const BOX: Color = Color::new(0.07, 0.065, 0.095, 1.0);
const EDGE: Color = Color::new(0.35, 0.3, 0.45, 1.0);

/// What the mouse does, for the help screen.
const MOUSE: [&str; 4] = [
    "Point at the map: what is there, in the box by the pointer.",
    "Left click a known place: walk there (a key stops the walk).",
    "Left click a monster: walk to it and fight it, following it.",
    "Wheel over the log: scroll it back.",
];

/// Text cut to fit `w` pixels at `size`, with an ellipsis.
fn fit(text: &str, w: f32, size: u16) -> String {
    if measure_text(text, None, size, 1.0).width <= w {
        return text.to_string();
    }
    let mut s: String = text.to_string();
    while !s.is_empty() && measure_text(format!("{s}...").as_str(), None, size, 1.0).width > w {
        s.pop();
    }
    format!("{s}...")
}

/// Every key, in two columns when the window is wide enough, then the mouse and the key file.
pub fn draw_help(keys: &KeyMap, note: &str) {
    let (sw, sh) = super::modal::screen_size();
    draw_rectangle(0.0, 0.0, sw, sh, Color::new(0.0, 0.0, 0.0, 0.6));
    let rows = keys.help_rows();
    let w = (sw - 24.0).min(1100.0);
    let two = w >= 760.0;
    let per_col = if two {
        rows.len().div_ceil(2)
    } else {
        rows.len()
    };
    let line = if sh >= 700.0 { 20.0 } else { 16.0 };
    let size = if sh >= 700.0 { 18 } else { 15 };
    let h = (66.0 + per_col as f32 * line + 10.0 + (MOUSE.len() as f32 + 2.0) * line + 4.0)
        .min(sh - 16.0);
    let (x, y) = (((sw - w) / 2.0).round(), ((sh - h) / 2.0).round().max(8.0));
    draw_rectangle(x, y, w, h, BOX);
    super::theme::outline(x, y, w, h, 2.0, EDGE);
    draw_text("Keys", x + 20.0, y + 36.0, 32.0, GOLD);
    draw_text(
        "? or Esc closes",
        x + w - 150.0,
        y + 34.0,
        f32::from(size),
        DIM,
    );
    let col_w = if two { (w - 60.0) / 2.0 } else { w - 40.0 };
    let key_w = (col_w * 0.42).min(190.0);
    let top = y + 66.0;
    for (k, (names, what)) in rows.iter().enumerate() {
        let (col, r) = (k / per_col, k % per_col);
        let cx = x + 20.0 + col as f32 * (col_w + 20.0);
        let cy = top + r as f32 * line;
        if cy > y + h - 8.0 {
            continue;
        }
        draw_text(fit(names, key_w - 8.0, size), cx, cy, f32::from(size), GOLD);
        draw_text(
            fit(what, col_w - key_w, size),
            cx + key_w,
            cy,
            f32::from(size),
            WHITE,
        );
    }
    let mut my = top + per_col as f32 * line + 10.0;
    draw_text("Mouse", x + 20.0, my, f32::from(size) + 2.0, GOLD);
    my += line;
    for m in MOUSE {
        draw_text(fit(m, w - 40.0, size), x + 20.0, my, f32::from(size), WHITE);
        my += line;
    }
    draw_text(
        fit(note, w - 40.0, size),
        x + 20.0,
        my,
        f32::from(size),
        DIM,
    );
}

/// The Esc menu: its items, the selected one marked.
pub fn draw_menu(items: &[&str], selected: usize, footer: &str) {
    let (sw, sh) = super::modal::screen_size();
    draw_rectangle(0.0, 0.0, sw, sh, Color::new(0.0, 0.0, 0.0, 0.55));
    let (w, h) = (320.0, 90.0 + items.len() as f32 * 40.0);
    let (x, y) = (((sw - w) / 2.0).round(), ((sh - h) / 2.0).round());
    draw_rectangle(x, y, w, h, BOX);
    super::theme::outline(x, y, w, h, 2.0, EDGE);
    draw_text("Delve", x + 24.0, y + 40.0, 34.0, GOLD);
    for (k, item) in items.iter().enumerate() {
        let iy = y + 80.0 + k as f32 * 40.0;
        if k == selected {
            draw_rectangle(
                x + 12.0,
                iy - 26.0,
                w - 24.0,
                36.0,
                Color::new(0.3, 0.25, 0.1, 1.0),
            );
        }
        let c = if k == selected { GOLD } else { WHITE };
        draw_text(item, x + 32.0, iy, 24.0, c);
    }
    draw_text(footer, x + 24.0, y + h - 12.0, 16.0, DIM);
}

/// Marks the cell under the mouse and, beside the pointer, says what is there. The box stays
/// inside the map area.
pub fn draw_hover(cam: &Camera, cell: (i32, i32), what: Option<&Description>, pointer: Vec2) {
    let at = cam.to_screen(vec2(cell.0 as f32, cell.1 as f32));
    super::theme::outline(
        at.x,
        at.y,
        cam.tile,
        cam.tile,
        2.0,
        Color::new(1.0, 0.9, 0.5, 0.9),
    );
    let Some(d) = what else { return };
    let size = 18u16;
    let widest = std::iter::once(&d.title)
        .chain(&d.lines)
        .map(|l| measure_text(l, None, size, 1.0).width)
        .fold(0.0f32, f32::max);
    let w = (widest + 20.0).min(cam.area.w - 8.0);
    let h = 12.0 + 22.0 * (1 + d.lines.len()) as f32;
    let (mx, my) = (pointer.x, pointer.y);
    // Beside the pointer, flipped to the other side near the map's right or bottom edge.
    let mut x = mx + 18.0;
    if x + w > cam.area.x + cam.area.w - 4.0 {
        x = mx - 18.0 - w;
    }
    let mut y = my + 18.0;
    if y + h > cam.area.y + cam.area.h - 4.0 {
        y = my - 18.0 - h;
    }
    let x = x.clamp(
        cam.area.x + 4.0,
        (cam.area.x + cam.area.w - w - 4.0).max(cam.area.x),
    );
    let y = y.clamp(
        cam.area.y + 4.0,
        (cam.area.y + cam.area.h - h - 4.0).max(cam.area.y),
    );
    draw_rectangle(x, y, w, h, BOX);
    super::theme::outline(x, y, w, h, 1.0, EDGE);
    draw_text(
        fit(&d.title, w - 20.0, size),
        x + 10.0,
        y + 24.0,
        20.0,
        GOLD,
    );
    for (k, l) in d.lines.iter().enumerate() {
        draw_text(
            fit(l, w - 20.0, size),
            x + 10.0,
            y + 46.0 + 22.0 * k as f32,
            f32::from(size),
            WHITE,
        );
    }
}
