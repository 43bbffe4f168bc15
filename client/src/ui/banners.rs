//! What is said over the game rather than in it: a centred notice (connecting, connection
//! lost), and the banners across the top of the map (reconnecting, paused, watching someone,
//! a finished game put away).

use macroquad::prelude::*;

use super::layout::screen_size;
use super::text::{draw_text, measure_text, wrap};
use super::theme::GOLD;
use super::widgets::{self, Tap};
use crate::keymap::Command;

/// A centred notice over everything (connecting, connection lost, ...).
pub fn draw_notice(title: &str, detail: &str) {
    let (w, h) = screen_size();
    draw_rectangle(0.0, 0.0, w, h, Color::new(0.0, 0.0, 0.0, 0.6));
    let t = measure_text(title, None, 40, 1.0);
    draw_text(
        title,
        ((w - t.width) / 2.0).round(),
        (h / 2.0 - 10.0).round(),
        40.0,
        GOLD,
    );
    let mut y = h / 2.0 + 26.0;
    // Wrapped to the window (about 10 pixels a character at this size).
    let chars = (((w - 60.0) / 10.0).floor() as usize).clamp(20, 90);
    for line in wrap(detail, chars) {
        let d = measure_text(&line, None, 20, 1.0);
        draw_text(&line, ((w - d.width) / 2.0).round(), y.round(), 20.0, WHITE);
        y += 24.0;
    }
}

/// Which try is next and how long until it; at 0 s the try is under way (it may take a while
/// to fail), so the count is not shown standing at 0.
pub fn reconnect_line(attempt: u32, wait: f64) -> String {
    if wait > 0.0 {
        format!("Reconnecting, try {attempt} in {wait:.0} s")
    } else {
        format!("Reconnecting, try {attempt}")
    }
}

/// The banner over the map while the connection is down and the game tries again: which try,
/// how long until it, and why the connection went (fitted to the map's width).
pub fn draw_reconnecting(area: Rect, attempt: u32, wait: f64, reason: &str) {
    let h = 58.0;
    draw_banner_box(
        area,
        h,
        Color::new(0.35, 0.06, 0.06, 0.92),
        Color::new(0.9, 0.3, 0.2, 1.0),
    );
    let title = format!("Connection lost. {}", reconnect_line(attempt, wait));
    draw_text(&title, area.x + 16.0, area.y + 26.0, 24.0, WHITE);
    let chars = (((area.w - 32.0) / 8.0).floor() as usize).max(16);
    if let Some(line) = wrap(reason, chars).first() {
        draw_text(
            line,
            area.x + 16.0,
            area.y + 48.0,
            16.0,
            Color::new(1.0, 0.8, 0.75, 1.0),
        );
    }
}

/// The banner over the map while the server cannot save and holds the dungeon: play goes on
/// by itself once it can (the server says so), so there is nothing to do but wait.
pub fn draw_paused(area: Rect, why: &str) {
    let chars = (((area.w - 32.0) / 8.0).floor() as usize).max(16);
    let lines = wrap(why, chars);
    let h = 36.0 + 20.0 * lines.len().min(3) as f32;
    draw_banner_box(
        area,
        h,
        Color::new(0.36, 0.27, 0.04, 0.92),
        Color::new(0.95, 0.75, 0.2, 1.0),
    );
    draw_text("Paused", area.x + 16.0, area.y + 26.0, 24.0, WHITE);
    for (k, line) in lines.iter().take(3).enumerate() {
        draw_text(
            line,
            area.x + 16.0,
            area.y + 48.0 + 20.0 * k as f32,
            16.0,
            Color::new(1.0, 0.92, 0.7, 1.0),
        );
    }
}

/// A banner's box across the top of `area`, `h` high, with a bright edge below it.
fn draw_banner_box(area: Rect, h: f32, fill: Color, edge: Color) {
    draw_rectangle(area.x, area.y, area.w, h, fill);
    draw_line(area.x, area.y + h, area.x + area.w, area.y + h, 2.0, edge);
}

/// The banner over the map while following someone else's view, with buttons for what can be
/// done from there.
pub fn draw_watching(area: Rect, whom: &str, alive: bool, own_dead: bool) {
    let text = if alive {
        format!("Watching {whom}")
    } else {
        format!("Watching {whom} (dead)")
    };
    let mut buttons = vec![("w", "Next player", Tap::Command(Command::Follow))];
    if own_dead {
        buttons.push(("Esc", "Your own view", Tap::Command(Command::Cancel)));
        buttons.push(("n", "New character", Tap::Command(Command::NewCharacter)));
    }
    buttons.push(("h", "High scores", Tap::Command(Command::Scores)));
    buttons.push(("Enter", "Chat", Tap::Command(Command::Talk)));
    banner_with_buttons(area, &text, GOLD, &buttons);
}

/// The banner over the map once the summary of a finished game is put away: what happened, and
/// buttons (with their keys) for what goes on from there.
pub fn draw_end_banner(area: Rect, title: &str, color: Color) {
    banner_with_buttons(
        area,
        title,
        color,
        &[
            ("n", "New character", Tap::Command(Command::NewCharacter)),
            ("w", "Watch a friend", Tap::Command(Command::Follow)),
            ("h", "High scores", Tap::Command(Command::Scores)),
            ("Esc", "Summary", Tap::Command(Command::Cancel)),
            ("Enter", "Chat", Tap::Command(Command::Talk)),
        ],
    );
}

/// A dark band across the top of `area`: a title, and under it a row of buttons; where the
/// row would squeeze its buttons (a phone held upright), two rows.
fn banner_with_buttons(area: Rect, title: &str, color: Color, buttons: &[(&str, &str, Tap)]) {
    let row_w = area.w - 24.0;
    let rows: Vec<&[(&str, &str, Tap)]> = if row_w / (buttons.len().max(1) as f32) < MIN_BUTTON_W {
        let (a, b) = buttons.split_at(buttons.len().div_ceil(2));
        vec![a, b]
    } else {
        vec![buttons]
    };
    // A finger's height on a touch screen.
    let row_h = if super::layout::touch() { 40.0 } else { ROW_H };
    let h = BANNER_H - ROW_H + rows.len() as f32 * (row_h + 8.0) - 8.0;
    draw_rectangle(area.x, area.y, area.w, h, Color::new(0.0, 0.0, 0.0, 0.6));
    widgets::add(Rect::new(area.x, area.y, area.w, h), Tap::Block);
    draw_text(
        super::text::fit(title, area.w - 32.0, 24),
        area.x + 16.0,
        area.y + 26.0,
        24.0,
        color,
    );
    for (k, row) in rows.into_iter().enumerate() {
        let y = area.y + 38.0 + k as f32 * (row_h + 8.0);
        widgets::button_row(Rect::new(area.x + 12.0, y, row_w, row_h), 8.0, row);
    }
}

/// The height of the watching and end banners (with one row of buttons), of a row of their
/// buttons, and the least width a button of theirs keeps before the row is split in two.
const BANNER_H: f32 = 76.0;
const ROW_H: f32 = 30.0;
const MIN_BUTTON_W: f32 = 110.0;
