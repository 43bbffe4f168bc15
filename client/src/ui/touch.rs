//! Fingers on a touch screen, as gestures: a tap (a click where it lands), a finger held still
//! (describe what is under it, as the mouse's hover box does), two fingers pinching (zoom the
//! map), one finger dragging (scroll a list). The recognizer is pure, fed each touch event with
//! its time; [`Fingers`] feeds it from macroquad's event stream, in window pixels, and says
//! whether the game is played by touch (then the screen has large buttons, and no hover).

use macroquad::math::{Vec2, vec2};
use macroquad::miniquad;

/// How far a finger may move and still tap or hold (window pixels): a fingertip wobbles.
pub const TAP_SLOP: f32 = 14.0;
/// How long a finger held still describes rather than taps.
pub const HOLD_AFTER: f64 = 0.45;

/// A finger's touch event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Started,
    Moved,
    Ended,
    Cancelled,
}

/// What the fingers did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gesture {
    /// A short touch: a click where it landed.
    Tap(Vec2),
    /// A finger held still here: say what is under it (until [`Gesture::Release`]).
    Hold(Vec2),
    /// The held finger lifted (or moved off): the description may go.
    Release,
    /// Two fingers pinching: the map's size times this.
    Pinch(f32),
    /// One finger dragging by this much since the last event.
    Drag(Vec2),
}

#[derive(Clone, Copy, Debug)]
struct Finger {
    id: u64,
    start: Vec2,
    at: Vec2,
    since: f64,
    /// Moved past [`TAP_SLOP`]: a drag, not a tap or a hold.
    moved: bool,
    /// Held long enough to describe.
    held: bool,
}

/// The recognizer: the fingers down and what they have done so far.
#[derive(Clone, Debug, Default)]
pub struct Gestures {
    fingers: Vec<Finger>,
    /// Two fingers have been down since the last time none were: no tap comes of it.
    pinched: bool,
    /// The distance between two fingers when last seen.
    spread: Option<f32>,
}

impl Gestures {
    /// One touch event at `now` (seconds).
    pub fn feed(&mut self, id: u64, phase: Phase, at: Vec2, now: f64) -> Vec<Gesture> {
        let mut out = Vec::new();
        match phase {
            Phase::Started => {
                self.fingers.retain(|f| f.id != id);
                self.fingers.push(Finger {
                    id,
                    start: at,
                    at,
                    since: now,
                    moved: false,
                    held: false,
                });
                if self.fingers.len() >= 2 {
                    self.pinched = true;
                    self.spread = self.spread_now();
                    // A second finger ends a hold.
                    if self.fingers.iter().any(|f| f.held) {
                        out.push(Gesture::Release);
                    }
                    for f in &mut self.fingers {
                        f.held = false;
                    }
                }
            }
            Phase::Moved => {
                let Some(k) = self.fingers.iter().position(|f| f.id == id) else {
                    return out;
                };
                let before = self.fingers[k].at;
                let f = &mut self.fingers[k];
                f.at = at;
                if !f.moved && f.start.distance(at) > TAP_SLOP {
                    f.moved = true;
                    if f.held {
                        f.held = false;
                        out.push(Gesture::Release);
                    }
                }
                if self.fingers.len() >= 2 {
                    if let (Some(was), Some(now_spread)) = (self.spread, self.spread_now())
                        && was > 1.0
                    {
                        out.push(Gesture::Pinch(now_spread / was));
                    }
                    self.spread = self.spread_now();
                } else if self.fingers[k].moved {
                    out.push(Gesture::Drag(at - before));
                }
            }
            Phase::Ended | Phase::Cancelled => {
                let Some(k) = self.fingers.iter().position(|f| f.id == id) else {
                    return out;
                };
                let f = self.fingers.remove(k);
                // A finger no frame saw held long enough is a tap, however long the frames
                // took (a slow first frame, a busy phone): nothing was described to the player.
                if f.held {
                    out.push(Gesture::Release);
                } else if phase == Phase::Ended && !f.moved && !self.pinched {
                    out.push(Gesture::Tap(f.start));
                }
                if self.fingers.len() < 2 {
                    self.spread = None;
                }
                if self.fingers.is_empty() {
                    self.pinched = false;
                }
            }
        }
        out
    }

    /// The passing of time: a finger still and down long enough becomes a hold.
    pub fn tick(&mut self, now: f64) -> Vec<Gesture> {
        let mut out = Vec::new();
        if self.pinched {
            return out;
        }
        for f in &mut self.fingers {
            if !f.moved && !f.held && now - f.since >= HOLD_AFTER {
                f.held = true;
                out.push(Gesture::Hold(f.at));
            }
        }
        out
    }

    /// Whether any finger is down.
    pub fn any_down(&self) -> bool {
        !self.fingers.is_empty()
    }

    fn spread_now(&self) -> Option<f32> {
        match self.fingers.as_slice() {
            [a, b, ..] => Some(a.at.distance(b.at)),
            _ => None,
        }
    }
}

/// The touch events of each frame, read from macroquad, and whether play is by touch.
pub struct Fingers {
    subscriber: usize,
    gestures: Gestures,
    /// Played by touch: set by a touch, and from the start on a phone or tablet; a mouse
    /// moving with no finger down sets it back.
    pub touch: bool,
    mouse_was: Option<Vec2>,
}

impl Fingers {
    /// Starts listening; `touch` says whether the screen is a touch screen to begin with.
    pub fn new(touch: bool) -> Fingers {
        // Touches are read here, not as clicks of a pretend mouse: a tap must not leave a
        // pointer (and a hover box) where it landed, and a held finger is not a click.
        macroquad::input::simulate_mouse_with_touch(false);
        Fingers {
            subscriber: macroquad::input::utils::register_input_subscriber(),
            gestures: Gestures::default(),
            touch,
            mouse_was: None,
        }
    }

    /// This frame's gestures (at `now`, in seconds).
    pub fn poll(&mut self, now: f64) -> Vec<Gesture> {
        struct Feed<'a> {
            gestures: &'a mut Gestures,
            out: Vec<Gesture>,
            now: f64,
            touched: bool,
        }
        impl miniquad::EventHandler for Feed<'_> {
            fn update(&mut self) {}
            fn draw(&mut self) {}
            fn touch_event(&mut self, phase: miniquad::TouchPhase, id: u64, x: f32, y: f32) {
                let phase = match phase {
                    miniquad::TouchPhase::Started => Phase::Started,
                    miniquad::TouchPhase::Moved => Phase::Moved,
                    miniquad::TouchPhase::Ended => Phase::Ended,
                    miniquad::TouchPhase::Cancelled => Phase::Cancelled,
                };
                // Touches come in the display's pixels; the game works in macroquad's.
                let at = vec2(x, y) / macroquad::window::screen_dpi_scale();
                self.touched = true;
                self.out.extend(self.gestures.feed(id, phase, at, self.now));
            }
        }
        let mut feed = Feed {
            gestures: &mut self.gestures,
            out: Vec::new(),
            now,
            touched: false,
        };
        macroquad::input::utils::repeat_all_miniquad_input(&mut feed, self.subscriber);
        let (touched, mut out) = (feed.touched, feed.out);
        out.extend(self.gestures.tick(now));
        let mouse: Vec2 = macroquad::input::mouse_position().into();
        let mouse_moved = self.mouse_was.is_some_and(|was| was != mouse);
        self.mouse_was = Some(mouse);
        if touched {
            self.touch = true;
        } else if mouse_moved && !self.gestures.any_down() {
            self.touch = false;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use macroquad::math::vec2;

    #[test]
    fn a_short_still_touch_taps_where_it_began() {
        let mut g = Gestures::default();
        assert!(g.feed(1, Phase::Started, vec2(100.0, 50.0), 0.0).is_empty());
        assert!(g.feed(1, Phase::Moved, vec2(104.0, 52.0), 0.05).is_empty());
        assert!(g.tick(0.1).is_empty());
        assert_eq!(
            g.feed(1, Phase::Ended, vec2(104.0, 52.0), 0.12),
            vec![Gesture::Tap(vec2(100.0, 50.0))]
        );
        assert!(!g.any_down());
    }

    #[test]
    fn a_touch_no_frame_saw_held_taps_however_slow_the_frames() {
        let mut g = Gestures::default();
        g.feed(1, Phase::Started, vec2(30.0, 40.0), 0.0);
        assert!(g.tick(0.0).is_empty());
        // The next frame comes two seconds later, with the finger already lifted.
        assert_eq!(
            g.feed(1, Phase::Ended, vec2(30.0, 40.0), 2.0),
            vec![Gesture::Tap(vec2(30.0, 40.0))]
        );
    }

    #[test]
    fn a_finger_held_still_describes_and_does_not_tap() {
        let mut g = Gestures::default();
        g.feed(1, Phase::Started, vec2(10.0, 10.0), 0.0);
        assert!(g.tick(0.3).is_empty());
        assert_eq!(g.tick(0.5), vec![Gesture::Hold(vec2(10.0, 10.0))]);
        // Once only.
        assert!(g.tick(0.9).is_empty());
        assert_eq!(
            g.feed(1, Phase::Ended, vec2(10.0, 10.0), 1.0),
            vec![Gesture::Release]
        );
    }

    #[test]
    fn a_drag_scrolls_and_never_taps() {
        let mut g = Gestures::default();
        g.feed(1, Phase::Started, vec2(10.0, 100.0), 0.0);
        assert_eq!(
            g.feed(1, Phase::Moved, vec2(10.0, 70.0), 0.05),
            vec![Gesture::Drag(vec2(0.0, -30.0))]
        );
        assert!(g.tick(1.0).is_empty(), "a moving finger does not hold");
        assert!(g.feed(1, Phase::Ended, vec2(10.0, 70.0), 0.1).is_empty());
    }

    #[test]
    fn two_fingers_pinch_and_neither_taps() {
        let mut g = Gestures::default();
        g.feed(1, Phase::Started, vec2(100.0, 100.0), 0.0);
        g.feed(2, Phase::Started, vec2(200.0, 100.0), 0.01);
        let out = g.feed(2, Phase::Moved, vec2(300.0, 100.0), 0.05);
        assert_eq!(out, vec![Gesture::Pinch(2.0)]);
        assert!(g.feed(2, Phase::Ended, vec2(300.0, 100.0), 0.1).is_empty());
        assert!(g.feed(1, Phase::Ended, vec2(100.0, 100.0), 0.12).is_empty());
        // A later single tap taps again.
        g.feed(3, Phase::Started, vec2(5.0, 5.0), 1.0);
        assert_eq!(
            g.feed(3, Phase::Ended, vec2(5.0, 5.0), 1.1),
            vec![Gesture::Tap(vec2(5.0, 5.0))]
        );
    }

    #[test]
    fn a_cancelled_touch_does_nothing() {
        let mut g = Gestures::default();
        g.feed(1, Phase::Started, vec2(10.0, 10.0), 0.0);
        assert!(
            g.feed(1, Phase::Cancelled, vec2(10.0, 10.0), 0.1)
                .is_empty()
        );
    }
}
