//! The screens drawn over the game (help, menu, pack, character sheet, dialogs, notices) are
//! laid out for a window of at least 800×600. A smaller window (a small browser tab, 640×480)
//! draws them scaled down as a whole, through a camera, instead of cutting them off: they read
//! smaller but complete. The map, the log and the folded panel are drawn at full size.

use std::cell::Cell;

use macroquad::prelude::*;

/// The smallest window the screens are laid out for.
const MIN_W: f32 = 800.0;
const MIN_H: f32 = 600.0;

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

/// Where the pack is drawn: over the map, or with the panel folded (a small window, where the
/// map is too short for its 26 lines) over the whole window.
pub fn pack_area(layout: &super::hud::Layout) -> Rect {
    if layout.folded {
        let s = scale();
        Rect::new(0.0, 0.0, screen_width() / s, screen_height() / s)
    } else {
        rect(layout.map)
    }
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
