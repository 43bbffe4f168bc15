//! A touch screen's bar of command buttons (a phone's, with the panel folded): large buttons
//! within thumbs' reach, under the log in portrait and down the side in landscape, never over
//! the map. The commands are the table's ([`super::controls`]), with the map's zoom (out and
//! in, halves of one place) before a level-up waiting, which comes last so that nothing else
//! moves when it comes and goes. Upright, the bar keeps its three rows and grows columns
//! rather than take room from the map; the words shrink to fit narrower buttons.

use macroquad::prelude::*;

use super::controls::Offer;
use super::layout::TOUCH_BAR_ROWS;
use super::theme::{PANEL, PANEL_EDGE};
use super::widgets::{self, Look, Tap};
use crate::keymap::Command;

/// The gap between two buttons.
const GAP: f32 = 6.0;
/// Columns upright, at the least (fewer controls leave a place empty rather than widen).
const MIN_COLUMNS: usize = 4;

/// One place in the bar.
enum Place<'a> {
    Control(&'a Offer),
    /// Zoom out and in, side by side.
    Zoom,
}

/// Draws the bar in `area`: `controls`, with the zoom before a level-up.
pub fn draw(area: Rect, controls: &[Offer]) {
    draw_rectangle(area.x, area.y, area.w, area.h, PANEL);
    let portrait = area.w > area.h;
    if portrait {
        draw_line(area.x, area.y, area.x + area.w, area.y, 2.0, PANEL_EDGE);
    } else {
        draw_line(area.x, area.y, area.x, area.y + area.h, 2.0, PANEL_EDGE);
    }
    let (last, rest) = match controls.split_last() {
        Some((l, rest)) if l.command == Command::LevelUp => (Some(l), rest),
        _ => (None, controls),
    };
    let mut places: Vec<Place> = rest.iter().map(Place::Control).collect();
    places.push(Place::Zoom);
    places.extend(last.map(Place::Control));
    let inner = Rect::new(
        area.x + GAP,
        area.y + GAP,
        area.w - 2.0 * GAP,
        area.h - 2.0 * GAP,
    );
    let (cols, rows) = if portrait {
        (
            places.len().div_ceil(TOUCH_BAR_ROWS).max(MIN_COLUMNS),
            TOUCH_BAR_ROWS,
        )
    } else {
        (2, places.len().div_ceil(2))
    };
    let bw = ((inner.w - GAP * (cols - 1) as f32) / cols as f32).floor();
    let bh = ((inner.h - GAP * (rows - 1) as f32) / rows as f32)
        .min(super::layout::TOUCH_BUTTON_H * 1.3)
        .floor();
    for (k, place) in places.into_iter().enumerate() {
        let (col, row) = (k % cols, k / cols);
        let b = Rect::new(
            (inner.x + col as f32 * (bw + GAP)).round(),
            (inner.y + row as f32 * (bh + GAP)).round(),
            bw,
            bh,
        );
        match place {
            Place::Control(c) => {
                widgets::button(b, "", c.short, Tap::Command(c.command), c.look);
                if let Some(n) = c.badge {
                    widgets::badge(b, n);
                }
            }
            Place::Zoom => {
                let half = ((bw - GAP) / 2.0).floor();
                let zoom = [("-", false), ("+", true)];
                for (j, (label, larger)) in zoom.into_iter().enumerate() {
                    let x = b.x + j as f32 * (half + GAP);
                    let r = Rect::new(x.round(), b.y, half, bh);
                    widgets::button(r, "", label, Tap::Zoom(larger), Look::Plain);
                }
            }
        }
    }
}
