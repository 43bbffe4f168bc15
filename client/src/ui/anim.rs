//! Smooth movement: where each entity is drawn, gliding from cell to cell after a move event
//! instead of jumping, with a small hop.

use std::collections::HashMap;

use delve_protocol::{Event, Pos, View};
use macroquad::math::{Vec2, vec2};

/// Seconds one step takes on screen.
const STEP_TIME: f64 = 0.11;

#[derive(Clone, Copy, Debug)]
struct Glide {
    from: Vec2,
    to: Vec2,
    start: f64,
}

#[derive(Debug, Default)]
pub struct Anims {
    glides: HashMap<u32, Glide>,
}

fn cell(p: Pos) -> Vec2 {
    vec2(p.x as f32, p.y as f32)
}

impl Anims {
    /// Starts glides for the moves in a turn's events.
    pub fn on_events(&mut self, events: &[Event], now: f64) {
        for e in events {
            if let Event::Moved { id, from, to } = e {
                // Start from where it is drawn now, so quick successive moves stay smooth.
                let start = self.glides.get(id).map_or(cell(*from), |g| g.at(now).0);
                self.glides.insert(
                    *id,
                    Glide {
                        from: start,
                        to: cell(*to),
                        start: now,
                    },
                );
            }
        }
    }

    /// Forgets every glide: after a snapshot everything is drawn where it is.
    pub fn reset(&mut self) {
        self.glides.clear();
    }

    /// Where entity `id`, standing at `pos`, is drawn now (in cells), and its hop height
    /// (0..1).
    pub fn position(&self, id: u32, pos: Pos, now: f64) -> (Vec2, f32) {
        match self.glides.get(&id) {
            Some(g) if g.to == cell(pos) => g.at(now),
            _ => (cell(pos), 0.0),
        }
    }

    /// Drops finished glides and those of entities no longer in view.
    pub fn prune(&mut self, view: &View, now: f64) {
        self.glides
            .retain(|id, g| now - g.start < STEP_TIME && view.entity(*id).is_some());
    }

    /// Whether anything is still moving.
    pub fn busy(&self, now: f64) -> bool {
        self.glides.values().any(|g| now - g.start < STEP_TIME)
    }
}

impl Glide {
    fn at(&self, now: f64) -> (Vec2, f32) {
        let t = ((now - self.start) / STEP_TIME).clamp(0.0, 1.0) as f32;
        // Ease out: quick start, soft landing.
        let e = 1.0 - (1.0 - t) * (1.0 - t);
        (self.from.lerp(self.to, e), (t * std::f32::consts::PI).sin())
    }
}
