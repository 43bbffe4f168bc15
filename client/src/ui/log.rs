//! The message log under the map: the newest lines at the bottom, older ones fading. A click
//! or a tap on it opens the whole history (`m`), the wheel or a finger's drag scrolls it.

use macroquad::prelude::*;

use super::text::{draw_text, measure_text, wrap};
use super::theme::{CHAT, DIM, PANEL_EDGE, message_color};
use super::widgets::{self, Tap};
use crate::keymap::Command;
use crate::model::Model;

/// Draws the log in `area`, `scroll` lines back from the newest (mouse wheel over the log).
pub fn draw(area: Rect, model: &Model, scroll: usize) {
    widgets::add(area, Tap::Command(Command::Messages));
    draw_rectangle(
        area.x,
        area.y,
        area.w,
        area.h,
        Color::new(0.05, 0.045, 0.07, 1.0),
    );
    draw_line(area.x, area.y, area.x + area.w, area.y, 2.0, PANEL_EDGE);
    let line_h = 20.0;
    let rows = ((area.h - 14.0) / line_h).floor().max(1.0) as usize;
    let scroll = scroll.min(model.log.len().saturating_sub(rows));
    let newest_turn = model.log.back().map_or(0, |l| l.turn);
    let mut y = area.y + area.h - 12.0;
    // Long lines wrap to the log's width (a narrow window would cut them under the panel).
    let char_w = measure_text("M", None, 20, 1.0).width.max(1.0);
    let chars = (((area.w - 32.0) / char_w).floor() as usize).max(16);
    let mut left = rows;
    for (k, line) in model.log.iter().rev().skip(scroll).enumerate() {
        if left == 0 {
            break;
        }
        let mut c = message_color(line.kind);
        if scroll == 0 && (line.turn + 1 < newest_turn || k >= 3) {
            c.a = (1.0 - k as f32 * 0.1).max(0.45);
        }
        let mut text = match &line.from {
            Some(from) => {
                c = Color::new(CHAT.r, CHAT.g, CHAT.b, c.a);
                format!("{from}: {}", line.text)
            }
            None => line.text.clone(),
        };
        if line.count > 1 {
            text = format!("{text} (x{})", line.count);
        }
        let parts = wrap(&text, chars);
        // The newest rows are at the bottom: a wrapped line's last part lowest.
        for part in parts.iter().rev().take(left) {
            draw_text(part, area.x + 16.0, y, 20.0, c);
            y -= line_h;
            left -= 1;
        }
    }
    if scroll > 0 {
        let note = if super::layout::touch() {
            format!("{scroll} newer lines below - tap for all")
        } else {
            format!("{scroll} newer lines below - scroll down, or m for all")
        };
        let d = measure_text(&note, None, 16, 1.0);
        draw_text(
            &note,
            area.x + area.w - d.width - 12.0,
            area.y + 18.0,
            16.0,
            DIM,
        );
    }
}
