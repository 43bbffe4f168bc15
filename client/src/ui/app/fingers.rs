//! Play by touch: a tap is a click where it lands (a button, a line of a list, or the map:
//! walk there or attack), a finger held on the map says what is there, two fingers pinch the
//! map larger or smaller, and one finger drags a list or the log. The map's zoom (pinch, the
//! zoom buttons, or the wheel over the map) lives here too.

use super::*;
use crate::ui::touch::Gesture;

/// How long the description of a held cell stays once the finger lifts (seconds).
const HOLD_LINGERS: f64 = 2.0;
/// The map's zoom: its bounds, and the step of a zoom button or a notch of the wheel.
pub(super) const ZOOM_MIN: f32 = 0.5;
pub(super) const ZOOM_MAX: f32 = 3.0;
pub(super) const ZOOM_STEP: f32 = 1.25;
/// How much larger the map is drawn for fingers than for a mouse, before any pinch.
pub(super) const TOUCH_ZOOM: f32 = 1.5;
/// Window pixels of dragging that scroll a list by one line.
const DRAG_LINE: f32 = 22.0;

impl App {
    /// Reads this frame's gestures.
    pub(super) fn touch_input(&mut self, now: f64) {
        for g in self.fingers.poll(now) {
            match g {
                Gesture::Tap(p) => {
                    self.tapped = Some(p);
                    self.held = None;
                }
                Gesture::Hold(p) => self.held = Some((p, f64::INFINITY)),
                Gesture::Release => {
                    if let Some((_, until)) = &mut self.held {
                        *until = now + HOLD_LINGERS;
                    }
                }
                Gesture::Pinch(f) => self.zoom_by(f),
                Gesture::Drag(d) => self.drag(d),
            }
        }
        if self.held.is_some_and(|(_, until)| now > until) {
            self.held = None;
        }
    }

    /// The cell a finger holds (or held a moment ago), to describe.
    pub(super) fn held_cell(&self) -> Option<Pos> {
        self.held.and_then(|(p, _)| self.cell_at(p))
    }

    /// The map `f` times larger, within bounds.
    pub(super) fn zoom_by(&mut self, f: f32) {
        self.map_zoom = (self.map_zoom * f).clamp(ZOOM_MIN, ZOOM_MAX);
    }

    /// A finger dragged: scrolls the list open, or the log under it.
    fn drag(&mut self, d: Vec2) {
        let lines = (d.y / DRAG_LINE).round() as isize;
        if lines == 0 {
            return;
        }
        match &mut self.screen {
            Screen::Messages { scroll } => *scroll = scroll.saturating_add_signed(lines),
            Screen::Scores(board) => {
                let len = self.model.scores.len();
                board.scroll_by(-lines, len, table::rows_fit());
            }
            _ => self.log_scroll = self.log_scroll.saturating_add_signed(lines),
        }
    }
}
