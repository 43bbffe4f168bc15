//! Where things go on the screen: the window's areas for this frame (map, log, side panel or
//! folded status bar), and the drawing space of the screens over the game. A leaf: it knows
//! only macroquad, so every module that draws can ask it without reaching into another.
//!
//! The screens drawn over the game (help, menu, pack, character sheet, dialogs, notices) are
//! laid out for a window of at least 800×600. A smaller window (a small browser tab, 640×480)
//! draws them scaled down as a whole, through a camera, instead of cutting them off: they read
//! smaller but complete. The map, the log and the folded panel are drawn at full size.

use std::cell::Cell;

use macroquad::prelude::*;

/// The side panel's width and the log's height, in a window the panel stands beside the map in.
pub const PANEL_W: f32 = 300.0;
pub const LOG_H: f32 = 150.0;
/// The log's height in a short window (five lines instead of seven).
const LOG_H_SHORT: f32 = 112.0;

/// Below this width or height the side panel folds into a status bar over the map: its
/// lines are laid out for 300 pixels across and 600 down, and squeezed they would overlap.
pub const FOLD_W: f32 = 800.0;
pub const FOLD_H: f32 = 540.0;
/// The folded panel's height.
pub const BAR_H: f32 = 58.0;

/// The smallest window the screens are laid out for.
const MIN_W: f32 = 800.0;
const MIN_H: f32 = 600.0;

/// Screen areas for this frame's window size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    pub map: Rect,
    pub log: Rect,
    /// The side panel, or (folded) the status bar across the top.
    pub panel: Rect,
    pub folded: bool,
}

impl Layout {
    pub fn new() -> Layout {
        Layout::for_size(screen_width(), screen_height())
    }

    /// The areas for a window of `w` by `h`: they tile it, none overlapping another.
    pub fn for_size(w: f32, h: f32) -> Layout {
        let log_h = if h < 600.0 { LOG_H_SHORT } else { LOG_H };
        if w < FOLD_W || h < FOLD_H {
            let bar = BAR_H.min(h);
            let log_h = log_h.min((h - bar).max(0.0) / 2.0);
            return Layout {
                panel: Rect::new(0.0, 0.0, w, bar),
                map: Rect::new(0.0, bar, w, (h - bar - log_h).max(0.0)),
                log: Rect::new(0.0, h - log_h, w, log_h),
                folded: true,
            };
        }
        let panel_w = PANEL_W.min(w * 0.4);
        Layout {
            map: Rect::new(0.0, 0.0, w - panel_w, h - log_h),
            log: Rect::new(0.0, h - log_h, w - panel_w, log_h),
            panel: Rect::new(w - panel_w, 0.0, panel_w, h),
            folded: false,
        }
    }

    /// Where the pack is drawn, in the screens' coordinates: over the map, or with the panel
    /// folded (a small window, where the map is too short for its 26 lines) over the whole
    /// window.
    pub fn pack_area(&self) -> Rect {
        if self.folded {
            let s = scale();
            Rect::new(0.0, 0.0, screen_width() / s, screen_height() / s)
        } else {
            rect(self.map)
        }
    }
}

impl Default for Layout {
    fn default() -> Self {
        Layout::new()
    }
}

thread_local! {
    /// The size the screens are drawn at while scaled (between `begin` and `end`).
    static VIRTUAL: Cell<Option<(f32, f32)>> = const { Cell::new(None) };
}

/// How much the screens shrink in a window of `w` by `h` (1 from 800×600 up).
pub fn scale_for(w: f32, h: f32) -> f32 {
    (w / MIN_W).min(h / MIN_H).clamp(0.25, 1.0)
}

fn scale() -> f32 {
    scale_for(screen_width(), screen_height())
}

/// The window's size as the screens see it: larger than the window while they are scaled.
pub fn screen_size() -> (f32, f32) {
    VIRTUAL
        .get()
        .unwrap_or_else(|| (screen_width(), screen_height()))
}

/// A window area in the screens' coordinates.
pub fn rect(r: Rect) -> Rect {
    let s = scale();
    Rect::new(r.x / s, r.y / s, r.w / s, r.h / s)
}

/// A window point (the mouse) in the screens' coordinates.
pub fn point(p: Vec2) -> Vec2 {
    p / scale()
}

/// From here on, draws in the screens' coordinates (scaled when the window is small).
pub fn begin() {
    let s = scale();
    if s >= 1.0 {
        return;
    }
    let (w, h) = (screen_width() / s, screen_height() / s);
    let mut cam = Camera2D::from_display_rect(Rect::new(0.0, 0.0, w, h));
    // `from_display_rect` is made for render targets, whose y goes up; the window's goes down.
    cam.zoom.y = -cam.zoom.y;
    set_camera(&cam);
    VIRTUAL.set(Some((w, h)));
}

/// Back to drawing in window pixels.
pub fn end() {
    if VIRTUAL.take().is_some() {
        set_default_camera();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlap(a: Rect, b: Rect) -> bool {
        a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
    }

    #[test]
    fn the_areas_tile_the_window_at_every_size_and_fold_when_narrow() {
        for (w, h) in [
            (640.0, 480.0),
            (799.0, 600.0),
            (800.0, 600.0),
            (1024.0, 768.0),
            (1280.0, 800.0),
            (1920.0, 1080.0),
            (900.0, 500.0),
            (333.0, 251.0),
        ] {
            let l = Layout::for_size(w, h);
            let areas = [l.map, l.log, l.panel];
            for (i, a) in areas.iter().enumerate() {
                assert!(a.w >= 0.0 && a.h >= 0.0, "{w}x{h}: {a:?}");
                assert!(a.x >= 0.0 && a.y >= 0.0, "{w}x{h}: {a:?}");
                assert!(
                    a.x + a.w <= w && a.y + a.h <= h,
                    "{w}x{h}: {a:?} leaves the window"
                );
                for b in &areas[i + 1..] {
                    assert!(!overlap(*a, *b), "{w}x{h}: {a:?} overlaps {b:?}");
                }
            }
            let total: f32 = areas.iter().map(|a| a.w * a.h).sum();
            assert!(
                (total - w * h).abs() < 1.0,
                "{w}x{h}: the areas leave a gap"
            );
            assert_eq!(l.folded, w < FOLD_W || h < FOLD_H, "{w}x{h}");
            // The folded bar is wider than tall: that is how the panel knows to draw a bar.
            assert_eq!(l.panel.w > l.panel.h, l.folded, "{w}x{h}");
        }
    }

    #[test]
    fn screens_shrink_only_below_their_size_keeping_their_shape() {
        assert_eq!(scale_for(800.0, 600.0), 1.0);
        assert_eq!(scale_for(1920.0, 1080.0), 1.0);
        assert_eq!(scale_for(640.0, 480.0), 0.8);
        // The tighter side decides.
        assert_eq!(scale_for(640.0, 600.0), 0.8);
        assert_eq!(scale_for(1000.0, 300.0), 0.5);
    }
}
