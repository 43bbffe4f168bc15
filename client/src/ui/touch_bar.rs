//! A touch screen's bar of command buttons (a phone's, with the panel folded): large buttons
//! within thumbs' reach, under the log in portrait and down the side in landscape, never over
//! the map. The commands are the table's ([`super::controls`]), with the map's zoom.

use macroquad::prelude::*;

use super::controls::Control;
use super::layout::TOUCH_BAR_ROWS;
use super::theme::{PANEL, PANEL_EDGE};
use super::widgets::{self, Look, Tap};
use crate::keymap::Command;

/// The gap between two buttons.
const GAP: f32 = 6.0;

/// Draws the bar in `area`: `controls`, then zoom out and in.
pub fn draw(area: Rect, controls: &[(String, Control)]) {
    draw_rectangle(area.x, area.y, area.w, area.h, PANEL);
    let portrait = area.w > area.h;
    if portrait {
        draw_line(area.x, area.y, area.x + area.w, area.y, 2.0, PANEL_EDGE);
    } else {
        draw_line(area.x, area.y, area.x, area.y + area.h, 2.0, PANEL_EDGE);
    }
    let mut buttons: Vec<(&str, Tap, Look)> = controls
        .iter()
        .map(|(_, c)| {
            let look = if c.command == Command::LevelUp {
                Look::Primary
            } else {
                Look::Plain
            };
            (c.short(), Tap::Command(c.command), look)
        })
        .collect();
    buttons.push(("-", Tap::Zoom(false), Look::Plain));
    buttons.push(("+", Tap::Zoom(true), Look::Plain));
    let inner = Rect::new(
        area.x + GAP,
        area.y + GAP,
        area.w - 2.0 * GAP,
        area.h - 2.0 * GAP,
    );
    let (cols, rows) = if portrait {
        (buttons.len().div_ceil(TOUCH_BAR_ROWS), TOUCH_BAR_ROWS)
    } else {
        (2, buttons.len().div_ceil(2))
    };
    let bw = ((inner.w - GAP * (cols - 1) as f32) / cols as f32).floor();
    let bh = ((inner.h - GAP * (rows - 1) as f32) / rows as f32)
        .min(super::layout::TOUCH_BUTTON_H * 1.3)
        .floor();
    for (k, (label, tap, look)) in buttons.into_iter().enumerate() {
        let (col, row) = if portrait {
            (k % cols, k / cols)
        } else {
            (k % 2, k / 2)
        };
        let b = Rect::new(
            (inner.x + col as f32 * (bw + GAP)).round(),
            (inner.y + row as f32 * (bh + GAP)).round(),
            bw,
            bh,
        );
        widgets::button(b, "", label, tap, look);
    }
}
