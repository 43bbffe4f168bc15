//! Where things go on the screen, and at what size: the window's areas for this frame (map,
//! log, side panel or folded status bar), and the three spaces things are drawn in. A leaf: it
//! knows only macroquad, so every module that draws can ask it without reaching into another.
//!
//! The spaces:
//! - the window, in pixels (logical ones: a browser's devicePixelRatio is macroquad's business,
//!   which draws sharp at the display's density): the map;
//! - the interface, the window scaled by the UI scale: the side panel, the log, the hover box,
//!   the lobby. The UI scale grows with the window (1 up to 1280×800, in steps of a quarter
//!   above it) times the player's own setting (`Appearance::scale`);
//! - the screens over the game (help, menu, pack, character sheet, dialogs, notices), laid out
//!   for at least 800×600 interface units: a smaller window (a small browser tab, 640×480, a
//!   phone) draws them scaled down further, as a whole, instead of cutting them off.
//!
//! A space is drawn in between [`begin`] and [`end`], through a camera; text drawn there is
//! rasterized at the size it ends up on screen ([`crate::ui::text`]), so it stays sharp.

use std::cell::Cell;

use macroquad::prelude::*;

/// The side panel's width and the log's height, in a window the panel stands beside the map in
/// (interface units).
pub const PANEL_W: f32 = 300.0;
pub const LOG_H: f32 = 150.0;
/// The log's height in a short window (five lines instead of seven).
const LOG_H_SHORT: f32 = 112.0;

/// Below this width or height the side panel folds into a status bar over the map: its
/// lines are laid out for 300 units across and 600 down, and squeezed they would overlap.
pub const FOLD_W: f32 = 800.0;
pub const FOLD_H: f32 = 540.0;
/// The folded panel's height.
pub const BAR_H: f32 = 58.0;
/// On a touch screen with the panel folded (a phone): the log's height (four lines, three on
/// its side), and the bar of command buttons: under the log in portrait, three rows within
/// thumbs' reach; beside the map in landscape, two columns.
const TOUCH_LOG_H: f32 = 88.0;
const TOUCH_LOG_H_SIDEWAYS: f32 = 68.0;
pub const TOUCH_BAR_ROWS: usize = 3;
pub const TOUCH_BUTTON_H: f32 = 46.0;
const TOUCH_BAR_H: f32 = TOUCH_BAR_ROWS as f32 * (TOUCH_BUTTON_H + 6.0) + 8.0;
const TOUCH_COLUMN_W: f32 = 2.0 * 84.0 + 6.0 + 12.0;

/// The smallest window the screens are laid out for, in interface units; a window taller than
/// wide (a phone held upright) has screens laid out narrow instead, down to [`MIN_W_NARROW`].
const MIN_W: f32 = 800.0;
const MIN_H: f32 = 600.0;
pub const MIN_W_NARROW: f32 = 380.0;
/// A window wider than tall and shorter than 600 (a phone on its side) has its screens laid
/// out for 480 high: shorter lines rather than smaller text.
const MIN_H_SHORT: f32 = 480.0;

/// The window the interface is drawn at its own size in (UI scale 1); larger windows scale it
/// up in steps of [`AUTO_STEP`], so that text stays readable on a large screen and fractional
/// sizes do not blur it.
const BASE_W: f32 = 1280.0;
const BASE_H: f32 = 800.0;
const AUTO_STEP: f32 = 0.25;

/// The smallest area the pack is drawn in over the map: below it (800×600), it takes the
/// whole window rather than squeeze its detail pane into a sliver.
const PACK_MIN_W: f32 = 720.0;
const PACK_MIN_H: f32 = 520.0;

/// Screen areas for this frame's window size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    pub map: Rect,
    pub log: Rect,
    /// The side panel, or (folded) the status bar across the top.
    pub panel: Rect,
    pub folded: bool,
    /// On a touch screen with the panel folded, the bar of command buttons (beside none of
    /// the others, so it never covers the map); empty otherwise.
    pub controls: Rect,
}

impl Layout {
    /// This frame's areas, in interface units.
    pub fn new() -> Layout {
        let s = scales().ui;
        Layout::for_window(screen_width() / s, screen_height() / s, TOUCH.get())
    }

    /// The areas for a window of `w` by `h` (without a touch screen's bar of buttons).
    pub fn for_size(w: f32, h: f32) -> Layout {
        Layout::for_window(w, h, false)
    }

    /// The areas for a window of `w` by `h`, on a touch screen or not: they tile it, none
    /// overlapping another.
    pub fn for_window(w: f32, h: f32, touch: bool) -> Layout {
        let log_h = if h < 600.0 { LOG_H_SHORT } else { LOG_H };
        let none = Rect::new(w, h, 0.0, 0.0);
        if w < FOLD_W || h < FOLD_H {
            if touch {
                return Layout::touch(w, h);
            }
            let bar = BAR_H.min(h);
            let log_h = log_h.min((h - bar).max(0.0) / 2.0);
            return Layout {
                panel: Rect::new(0.0, 0.0, w, bar),
                map: Rect::new(0.0, bar, w, (h - bar - log_h).max(0.0)),
                log: Rect::new(0.0, h - log_h, w, log_h),
                folded: true,
                controls: none,
            };
        }
        let panel_w = PANEL_W.min(w * 0.4);
        Layout {
            map: Rect::new(0.0, 0.0, w - panel_w, h - log_h),
            log: Rect::new(0.0, h - log_h, w - panel_w, log_h),
            panel: Rect::new(w - panel_w, 0.0, panel_w, h),
            folded: false,
            controls: none,
        }
    }

    /// A phone's areas: the status bar on top, the map, a short log, and the buttons under
    /// the log (portrait) or down the right side (landscape).
    fn touch(w: f32, h: f32) -> Layout {
        let bar = BAR_H.min(h);
        if h >= w {
            let controls_h = TOUCH_BAR_H.min((h - bar) / 3.0);
            let log_h = TOUCH_LOG_H.min((h - bar - controls_h) / 3.0);
            let map_h = (h - bar - controls_h - log_h).max(0.0);
            Layout {
                panel: Rect::new(0.0, 0.0, w, bar),
                map: Rect::new(0.0, bar, w, map_h),
                log: Rect::new(0.0, bar + map_h, w, log_h),
                folded: true,
                controls: Rect::new(0.0, h - controls_h, w, controls_h),
            }
        } else {
            let side = TOUCH_COLUMN_W.min(w / 3.0);
            let left = w - side;
            let log_h = TOUCH_LOG_H_SIDEWAYS.min((h - bar) / 3.0);
            Layout {
                panel: Rect::new(0.0, 0.0, left, bar),
                map: Rect::new(0.0, bar, left, (h - bar - log_h).max(0.0)),
                log: Rect::new(0.0, h - log_h, left, log_h),
                folded: true,
                controls: Rect::new(left, 0.0, side, h),
            }
        }
    }

    /// Where the pack is drawn, in the screens' units: over the map, or where the map is too
    /// small for its 26 lines and its detail pane side by side (800×600, a folded panel), over
    /// the whole window.
    pub fn pack_area(&self) -> Rect {
        let map = Space::Ui.rect_to(Space::Screens, self.map);
        if self.folded || self.map.w < PACK_MIN_W || self.map.h < PACK_MIN_H {
            let (w, h) = Space::Screens.size();
            Rect::new(0.0, 0.0, w, h)
        } else {
            map
        }
    }
}

impl Default for Layout {
    fn default() -> Self {
        Layout::new()
    }
}

/// The interface's scale in a window of `w` by `h` before the player's setting: 1 up to
/// 1280×800, then growing with the tighter side in quarter steps (1.25 at 1920×1080, 1.75 at
/// 2560×1440, 2.5 at 3840×2160).
pub fn auto_scale(w: f32, h: f32) -> f32 {
    let s = (w / BASE_W).min(h / BASE_H);
    ((s / AUTO_STEP).floor() * AUTO_STEP).max(1.0)
}

/// How much the screens shrink, on top of the UI scale, in a window of `w` by `h` interface
/// units (1 from 800×600 up, and from 380 wide in a window taller than wide).
pub fn fit_for(w: f32, h: f32) -> f32 {
    let min_w = if h > w { MIN_W_NARROW } else { MIN_W };
    let min_h = if h > w { MIN_H } else { MIN_H_SHORT };
    (w / min_w).min(h / min_h).clamp(0.25, 1.0)
}

/// The scales of this frame: interface units and screens' units, in window pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scales {
    pub ui: f32,
    pub screens: f32,
}

impl Scales {
    /// The scales in a window of `w` by `h` with the player's setting of `percent`.
    pub fn for_window(w: f32, h: f32, percent: u16) -> Scales {
        let ui = auto_scale(w, h) * f32::from(percent.max(1)) / 100.0;
        Scales {
            ui,
            screens: ui * fit_for(w / ui, h / ui),
        }
    }
}

impl Default for Scales {
    fn default() -> Self {
        Scales {
            ui: 1.0,
            screens: 1.0,
        }
    }
}

thread_local! {
    /// Whether this frame is laid out for a touch screen (set by [`set_frame`]).
    static TOUCH: Cell<bool> = const { Cell::new(false) };
    /// This frame's scales (set by [`set_frame`]).
    static SCALES: Cell<Scales> = Cell::new(Scales::default());
    /// The factor of the space being drawn in (1: the window).
    static CURRENT: Cell<f32> = const { Cell::new(1.0) };
}

/// Works out this frame's scales from the window and the player's setting, for a touch screen
/// or not; returns whether the scales changed (new text sizes to prepare).
pub fn set_frame(percent: u16, touch: bool) -> bool {
    TOUCH.set(touch);
    let new = Scales::for_window(screen_width(), screen_height(), percent);
    SCALES.replace(new) != new
}

/// Whether this frame is laid out for a touch screen.
pub fn touch() -> bool {
    TOUCH.get()
}

/// This frame's scales.
pub fn scales() -> Scales {
    SCALES.get()
}

/// A space to draw in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Window,
    Ui,
    Screens,
}

impl Space {
    /// Window pixels per unit of this space.
    pub fn factor(self) -> f32 {
        match self {
            Space::Window => 1.0,
            Space::Ui => scales().ui,
            Space::Screens => scales().screens,
        }
    }

    /// The window's size in this space's units.
    pub fn size(self) -> (f32, f32) {
        let f = self.factor();
        (screen_width() / f, screen_height() / f)
    }

    /// A window point (the mouse) in this space.
    pub fn point(self, window: Vec2) -> Vec2 {
        window / self.factor()
    }

    /// An area of this space in another one.
    pub fn rect_to(self, other: Space, r: Rect) -> Rect {
        let k = self.factor() / other.factor();
        Rect::new(r.x * k, r.y * k, r.w * k, r.h * k)
    }
}

/// The window's size in the units of the space being drawn in.
pub fn screen_size() -> (f32, f32) {
    let f = factor();
    (screen_width() / f, screen_height() / f)
}

/// Window pixels per unit of the space being drawn in.
pub fn factor() -> f32 {
    CURRENT.get()
}

/// From here on, draws in `space`'s units (until [`end`]).
pub fn begin(space: Space) {
    let f = space.factor();
    CURRENT.set(f);
    if f == 1.0 {
        set_default_camera();
        return;
    }
    let (w, h) = (screen_width() / f, screen_height() / f);
    let mut cam = Camera2D::from_display_rect(Rect::new(0.0, 0.0, w, h));
    // `from_display_rect` is made for render targets, whose y goes up; the window's goes down.
    cam.zoom.y = -cam.zoom.y;
    set_camera(&cam);
}

/// Back to drawing in window pixels.
pub fn end() {
    if CURRENT.replace(1.0) != 1.0 {
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
            (390.0, 844.0),
            (844.0, 390.0),
        ] {
            for touch in [false, true] {
                let l = Layout::for_window(w, h, touch);
                let areas = [l.map, l.log, l.panel, l.controls];
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
                // Buttons of their own only on a folded touch screen.
                assert_eq!(
                    l.controls.w * l.controls.h > 0.0,
                    touch && l.folded,
                    "{w}x{h}"
                );
            }
        }
    }

    #[test]
    fn screens_shrink_only_below_their_size_keeping_their_shape() {
        assert_eq!(fit_for(800.0, 600.0), 1.0);
        assert_eq!(fit_for(1920.0, 1080.0), 1.0);
        assert_eq!(fit_for(640.0, 480.0), 0.8);
        // The tighter side decides.
        assert_eq!(fit_for(640.0, 600.0), 0.8);
        assert_eq!(fit_for(1000.0, 240.0), 0.5);
        // A phone upright lays them out narrow; on its side, short.
        assert_eq!(fit_for(390.0, 844.0), 1.0);
        assert_eq!(fit_for(844.0, 390.0), 390.0 / 480.0);
    }

    #[test]
    fn the_interface_grows_with_the_window_in_quarter_steps() {
        for ((w, h), want) in [
            ((640.0, 480.0), 1.0),
            ((800.0, 600.0), 1.0),
            ((1280.0, 800.0), 1.0),
            ((1920.0, 1080.0), 1.25),
            ((2560.0, 1440.0), 1.75),
            ((3840.0, 2160.0), 2.5),
        ] {
            assert_eq!(auto_scale(w, h), want, "{w}x{h}");
        }
        // The player's setting multiplies it; the screens shrink only when the window, in
        // interface units, is smaller than they are.
        let s = Scales::for_window(2560.0, 1440.0, 200);
        assert_eq!(s.ui, 3.5);
        assert_eq!(s.screens, 3.5 * fit_for(2560.0 / 3.5, 1440.0 / 3.5));
        assert!(s.screens < s.ui);
        assert_eq!(Scales::for_window(800.0, 600.0, 100).screens, 1.0);
    }

    #[test]
    fn no_window_leaves_the_interface_smaller_than_the_screens_need_unshrunk() {
        // From a phone to a 4K monitor, at every setting: the screens' space is at least
        // 800x600 units, or they are shrunk to fit the window.
        for (w, h) in [
            (390.0, 844.0),
            (844.0, 390.0),
            (800.0, 600.0),
            (1920.0, 1080.0),
            (3840.0, 2160.0),
        ] {
            for percent in [50, 100, 150, 300] {
                let s = Scales::for_window(w, h, percent);
                let (sw, sh) = (w / s.screens, h / s.screens);
                let min_w = if h > w { MIN_W_NARROW } else { MIN_W };
                let min_h = if h > w { MIN_H } else { MIN_H_SHORT };
                assert!(
                    (sw >= min_w - 0.5 && sh >= min_h - 0.5) || s.screens <= 0.25 * s.ui + 1e-6,
                    "{w}x{h} at {percent}%: screens of {sw}x{sh}"
                );
            }
        }
    }
}
