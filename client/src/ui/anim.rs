//! What moves on screen between turns: entities gliding from cell to cell with a small hop,
//! damage numbers floating up from whoever was hit, a red flash on them, and a puff where
//! something died.

use std::collections::HashMap;

use delve_protocol::{Event, Pos, View};
use macroquad::math::{Vec2, vec2};

/// Seconds one step takes on screen.
const STEP_TIME: f64 = 0.11;
/// Seconds a damage number floats, a hit flash lasts, a death puff spreads.
pub const FLOAT_TIME: f64 = 0.9;
pub const FLASH_TIME: f64 = 0.25;

#[derive(Clone, Copy, Debug)]
struct Glide {
    from: Vec2,
    to: Vec2,
    start: f64,
}

/// A number or word rising from a cell ("-7", "miss").
#[derive(Clone, Debug)]
pub struct Floater {
    pub text: String,
    /// Red for damage to you, pale for damage to others, grey for a miss.
    pub color: [u8; 3],
    pub at: Vec2,
    pub start: f64,
}

/// A puff of dust where something died.
#[derive(Clone, Copy, Debug)]
pub struct Puff {
    pub at: Vec2,
    pub start: f64,
}

#[derive(Debug, Default)]
pub struct Anims {
    glides: HashMap<u32, Glide>,
    /// When each entity was last hit.
    flashes: HashMap<u32, f64>,
    pub floaters: Vec<Floater>,
    pub puffs: Vec<Puff>,
}

fn cell(p: Pos) -> Vec2 {
    vec2(p.x as f32, p.y as f32)
}

impl Anims {
    /// Starts the animations of a turn's events. `me` is the viewer; `pos_of` says where an
    /// entity in view stands now.
    pub fn on_events(
        &mut self,
        events: &[Event],
        me: u32,
        pos_of: impl Fn(u32) -> Option<Pos>,
        now: f64,
    ) {
        for e in events {
            match e {
                Event::Moved { id, from, to } => {
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
                Event::Attacked { target, damage, .. } => {
                    let Some(p) = pos_of(*target) else { continue };
                    let (text, color) = match damage {
                        Some(d) if *target == me => (format!("-{d}"), [255, 70, 70]),
                        Some(d) => (format!("-{d}"), [255, 236, 214]),
                        None => ("miss".to_string(), [170, 170, 184]),
                    };
                    if damage.is_some() {
                        self.flashes.insert(*target, now);
                    }
                    // Several numbers on one cell in one turn rise one after another.
                    let stacked = self
                        .floaters
                        .iter()
                        .filter(|f| f.at == cell(p) && f.start >= now)
                        .count();
                    self.floaters.push(Floater {
                        text,
                        color,
                        at: cell(p),
                        start: now + 0.15 * stacked as f64,
                    });
                }
                Event::Died { pos, .. } => self.puffs.push(Puff {
                    at: cell(*pos),
                    start: now,
                }),
                Event::Message { .. } | Event::Chat { .. } => {}
            }
        }
    }

    /// Forgets glides and flashes: after a snapshot everything is drawn where it is.
    pub fn reset(&mut self) {
        self.glides.clear();
        self.flashes.clear();
    }

    /// Where entity `id`, standing at `pos`, is drawn now (in cells), and its hop height
    /// (0..1).
    pub fn position(&self, id: u32, pos: Pos, now: f64) -> (Vec2, f32) {
        match self.glides.get(&id) {
            Some(g) if g.to == cell(pos) => g.at(now),
            _ => (cell(pos), 0.0),
        }
    }

    /// How strongly entity `id` flashes red now (0..1).
    pub fn flash(&self, id: u32, now: f64) -> f32 {
        self.flashes.get(&id).map_or(0.0, |t| {
            (1.0 - (now - t) / FLASH_TIME).clamp(0.0, 1.0) as f32
        })
    }

    /// Drops finished animations and glides of entities no longer in view.
    pub fn prune(&mut self, view: &View, now: f64) {
        self.glides
            .retain(|id, g| now - g.start < STEP_TIME && view.entity(*id).is_some());
        self.flashes.retain(|_, t| now - *t < FLASH_TIME);
        self.floaters.retain(|f| now - f.start < FLOAT_TIME);
        self.puffs.retain(|p| now - p.start < FLOAT_TIME);
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
