//! The help screen (`?`), drawn from the key table itself so it can never disagree with the
//! keys; the Esc menu; and the hover box that says what the mouse points at.

use macroquad::prelude::*;

use super::layout::screen_size;
use super::text::{draw_text, fit, measure_text, wrap};
use super::theme::{BOX, BOX_EDGE as EDGE, DIM, GOLD, outline};
use super::widgets::{self, Look, Tap};
use crate::describe::Description;
use crate::keymap::Command;
use crate::keymap::KeyMap;

/// What the mouse does, for the help screen.
const MOUSE: [&str; 6] = [
    "Point at the map: what is there, in the box by the pointer.",
    "Left click a known place: walk there (a key stops the walk).",
    "Left click a monster: walk to it and fight it, following it.",
    "The buttons beside the map and on every screen do what their keys do.",
    "Wheel over the log or a list: scroll it. Click the log: read it all.",
    "Right click the map: mark the spot for friends. Click a friend in the party: go to them.",
];

/// What fingers do, for the help screen on a touch screen (where keys mean nothing).
const TOUCH: [&str; 13] = [
    "Tap the map: walk there, or attack a monster.",
    "Hold a finger on something: what it is.",
    "Pinch, or - and +: the map smaller or larger.",
    "Explore: walk on until something happens.",
    "Rest: heal until whole or disturbed; Stop ends it.",
    "Heal: a Health Pack at once (the number: how many).",
    "Fight: the nearest monster. Throw: tap a target, then Throw.",
    "Stairs: walk to the known stairs and take them.",
    "Take: pick up what lies where you stand.",
    "Pack: use, equip or drop; Stats: your character.",
    "Mark (with a friend on your floor): hold a finger on a spot, then tap Mark; friends see it.",
    "Friend: walk to the nearest friend on your floor (again: the next).",
    "Tap the log: all of it. Drag it: scroll.",
];

/// Every key, in two columns when the window is wide enough, then the mouse and the key file;
/// on a touch screen, what fingers do instead.
pub fn draw_help(keys: &KeyMap, note: &str) {
    let (sw, sh) = screen_size();
    draw_rectangle(0.0, 0.0, sw, sh, Color::new(0.0, 0.0, 0.0, 0.6));
    if super::layout::touch() {
        draw_touch_help(sw, sh);
        return;
    }
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
    outline(x, y, w, h, 2.0, EDGE);
    widgets::add(Rect::new(0.0, 0.0, sw, sh), Tap::Block);
    draw_text("Keys", x + 20.0, y + 36.0, 32.0, GOLD);
    let close = Rect::new(x + w - 20.0 - 110.0, y + 12.0, 110.0, 28.0);
    widgets::button(
        close,
        "?",
        "Close",
        Tap::Command(Command::Help),
        Look::Plain,
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

/// The help on a touch screen: what a tap, a held finger, a pinch and each button do.
fn draw_touch_help(sw: f32, sh: f32) {
    let w = (sw - 16.0).min(620.0);
    let chars = ((w - 40.0) / measure_text("M", None, 18, 1.0).width.max(1.0)) as usize;
    let lines: Vec<String> = TOUCH.iter().flat_map(|l| wrap(l, chars.max(16))).collect();
    let h = (76.0 + lines.len() as f32 * 24.0 + 16.0).min(sh - 16.0);
    let (x, y) = (((sw - w) / 2.0).round(), ((sh - h) / 2.0).round().max(8.0));
    draw_rectangle(x, y, w, h, BOX);
    outline(x, y, w, h, 2.0, EDGE);
    widgets::add(Rect::new(0.0, 0.0, sw, sh), Tap::Block);
    draw_text("Help", x + 20.0, y + 40.0, 32.0, GOLD);
    let close = Rect::new(x + w - 20.0 - 120.0, y + 12.0, 120.0, 40.0);
    widgets::button(close, "", "Close", Tap::Command(Command::Help), Look::Plain);
    let mut ly = y + 86.0;
    for line in lines {
        if ly > y + h - 8.0 {
            break;
        }
        draw_text(&line, x + 20.0, ly, 18.0, WHITE);
        ly += 24.0;
    }
}

/// The Esc menu: its items, the selected one marked; a click on an item chooses it. Items
/// that are settings (`steps`) have a smaller and a larger button at their right.
pub fn draw_menu(items: &[&str], steps: &[bool], selected: usize, footer: &str) {
    let (sw, sh) = screen_size();
    draw_rectangle(0.0, 0.0, sw, sh, Color::new(0.0, 0.0, 0.0, 0.55));
    widgets::add(Rect::new(0.0, 0.0, sw, sh), Tap::Block);
    let (w, h) = (340.0, 90.0 + items.len() as f32 * 40.0);
    let (x, y) = (((sw - w) / 2.0).round(), ((sh - h) / 2.0).round());
    draw_rectangle(x, y, w, h, BOX);
    outline(x, y, w, h, 2.0, EDGE);
    draw_text("Delve", x + 24.0, y + 40.0, 34.0, GOLD);
    for (k, item) in items.iter().enumerate() {
        let iy = y + 80.0 + k as f32 * 40.0;
        let line = Rect::new(x + 12.0, iy - 26.0, w - 24.0, 36.0);
        widgets::add(line, Tap::Row(k));
        if k == selected {
            draw_rectangle(
                line.x,
                line.y,
                line.w,
                line.h,
                Color::new(0.3, 0.25, 0.1, 1.0),
            );
        }
        let c = if k == selected { GOLD } else { WHITE };
        draw_text(item, x + 32.0, iy, 24.0, c);
        if steps.get(k).copied().unwrap_or(false) {
            for (n, (label, up)) in [("-", false), ("+", true)].into_iter().enumerate() {
                let b = Rect::new(
                    line.x + line.w - 70.0 + 36.0 * n as f32,
                    line.y + 4.0,
                    30.0,
                    28.0,
                );
                widgets::button(b, "", label, Tap::Step(k, up), Look::Plain);
            }
        }
    }
    draw_text(footer, x + 24.0, y + h - 12.0, 16.0, DIM);
}

/// Marks the `cell` under the mouse and, near it, says what is there. The box stays inside
/// the map's `area` and off the cell itself and off `avoid` (the player's own character and
/// its health bar), so it never hides what is pointed at or who points.
pub fn draw_hover(area: Rect, cell: Rect, what: Option<&Description>, avoid: Rect) {
    outline(
        cell.x,
        cell.y,
        cell.w,
        cell.h,
        2.0,
        Color::new(1.0, 0.9, 0.5, 0.9),
    );
    let Some(d) = what else { return };
    let size = 18u16;
    let widest = std::iter::once(&d.title)
        .chain(&d.lines)
        .map(|l| measure_text(l, None, size, 1.0).width)
        .fold(0.0f32, f32::max);
    let w = (widest + 20.0).min(area.w - 8.0);
    let h = 12.0 + 22.0 * (1 + d.lines.len()) as f32;
    let (x, y) = hover_place(area, cell, avoid, vec2(w, h));
    draw_rectangle(x, y, w, h, BOX);
    outline(x, y, w, h, 1.0, EDGE);
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

/// Where a hover box of `size` goes: below and to the right of the `cell` pointed at, else
/// below-left, above-right, above-left, then further down or up, the first place inside `area`
/// that covers neither the cell nor `avoid`; failing all, the one covering least.
pub fn hover_place(area: Rect, cell: Rect, avoid: Rect, size: Vec2) -> (f32, f32) {
    let gap = 6.0;
    let (w, h) = (size.x, size.y);
    let right = cell.x + cell.w + gap;
    let left = cell.x - gap - w;
    let below = cell.y + cell.h + gap;
    let above = cell.y - gap - h;
    // Past the avoided area, for when the player stands right beside the cell.
    let below_both = below.max(avoid.y + avoid.h + gap);
    let above_both = above.min(avoid.y - gap - h);
    let candidates = [
        (right, below),
        (left, below),
        (right, above),
        (left, above),
        (right, below_both),
        (left, below_both),
        (right, above_both),
        (left, above_both),
        (cell.x, below_both),
        (cell.x, above_both),
    ];
    let inside = |x: f32, y: f32| {
        (
            x.clamp(area.x + 4.0, (area.x + area.w - w - 4.0).max(area.x)),
            y.clamp(area.y + 4.0, (area.y + area.h - h - 4.0).max(area.y)),
        )
    };
    let covered = |x: f32, y: f32| {
        let r = Rect::new(x, y, w, h);
        let part = |o: Rect| r.intersect(o).map_or(0.0, |i| i.w * i.h);
        part(cell) * 4.0 + part(avoid)
    };
    candidates
        .iter()
        .map(|&(x, y)| inside(x, y))
        .min_by(|a, b| covered(a.0, a.1).total_cmp(&covered(b.0, b.1)))
        .unwrap_or((area.x + 4.0, area.y + 4.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlaps(a: Rect, b: Rect) -> bool {
        a.intersect(b).is_some_and(|i| i.w > 0.0 && i.h > 0.0)
    }

    #[test]
    fn the_hover_box_keeps_off_the_cell_and_the_player() {
        let area = Rect::new(0.0, 0.0, 640.0, 300.0);
        let size = vec2(480.0, 78.0);
        // The player just left of a monster in mid-map; a monster at each edge.
        for (cell, me) in [
            (
                Rect::new(300.0, 150.0, 32.0, 32.0),
                Rect::new(268.0, 140.0, 32.0, 44.0),
            ),
            (
                Rect::new(600.0, 10.0, 32.0, 32.0),
                Rect::new(568.0, 0.0, 32.0, 44.0),
            ),
            (
                Rect::new(10.0, 260.0, 32.0, 32.0),
                Rect::new(42.0, 250.0, 32.0, 44.0),
            ),
            (
                Rect::new(320.0, 100.0, 32.0, 32.0),
                Rect::new(320.0, 132.0, 32.0, 44.0),
            ),
        ] {
            let (x, y) = hover_place(area, cell, me, size);
            let r = Rect::new(x, y, size.x, size.y);
            assert!(!overlaps(r, cell), "{r:?} covers the cell {cell:?}");
            assert!(!overlaps(r, me), "{r:?} covers the player {me:?}");
            assert!(x >= area.x && x + size.x <= area.x + area.w, "{r:?}");
            assert!(y >= area.y && y + size.y <= area.y + area.h, "{r:?}");
        }
    }
}
