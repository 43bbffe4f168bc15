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
    /// Side by side on its cell: 0 in the middle, then 1, -1, 2, -2, ... (in widths of a
    /// number), so numbers on one cell never stack on one spot, whatever their ages.
    pub lane: i32,
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
                    // Without `to`, the step ended where the view now shows the mover.
                    let Some(to) = to.or_else(|| pos_of(*id)) else {
                        continue;
                    };
                    // Start from where it is drawn now, so quick successive moves stay smooth.
                    let start = self.glides.get(id).map_or(cell(*from), |g| g.at(now).0);
                    self.glides.insert(
                        *id,
                        Glide {
                            from: start,
                            to: cell(to),
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
                    let at = cell(p);
                    let lane = self.free_lane(at, now);
                    self.floaters.push(Floater {
                        text,
                        color,
                        at,
                        start: now,
                        lane,
                    });
                }
                Event::Died { pos, .. } => self.puffs.push(Puff {
                    at: cell(*pos),
                    start: now,
                }),
                // A blast puffs like a death; a missile's flight is not drawn yet.
                Event::Blast { at, .. } => self.puffs.push(Puff {
                    at: cell(*at),
                    start: now,
                }),
                Event::Missile { .. } | Event::Message { .. } | Event::Chat { .. } => {}
            }
        }
    }

    /// The first lane of cell `at` that no number still floating there uses.
    fn free_lane(&self, at: Vec2, now: f64) -> i32 {
        let taken: Vec<i32> = self
            .floaters
            .iter()
            .filter(|f| f.at == at && now - f.start < FLOAT_TIME)
            .map(|f| f.lane)
            .collect();
        (0..)
            .map(|k: i32| if k % 2 == 1 { k / 2 + 1 } else { -(k / 2) })
            .find(|lane| !taken.contains(lane))
            .unwrap_or(0)
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

    /// Whether nothing at all is on the move: no glide, no number, no puff.
    pub fn quiet(&self, now: f64) -> bool {
        !self.busy(now)
            && self.floaters.iter().all(|f| now - f.start >= FLOAT_TIME)
            && self.puffs.iter().all(|p| now - p.start >= FLOAT_TIME)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(target: u32, damage: i32) -> Event {
        Event::Attacked {
            attacker: 9,
            target,
            damage: Some(damage),
        }
    }

    #[test]
    fn numbers_on_one_cell_never_share_a_spot() {
        let mut a = Anims::default();
        let at = |_| Some(Pos::new(3, 3));
        // Three blows in one turn, and one more a moment later while they still float.
        a.on_events(&[hit(1, 2), hit(1, 3), hit(1, 4)], 1, at, 10.0);
        a.on_events(&[hit(1, 5)], 1, at, 10.2);
        let lanes: Vec<i32> = a.floaters.iter().map(|f| f.lane).collect();
        assert_eq!(lanes, vec![0, 1, -1, 2]);
        // Once they have faded, the middle is free again.
        a.on_events(&[hit(1, 6)], 1, at, 10.0 + FLOAT_TIME + 0.5);
        assert_eq!(a.floaters.last().map(|f| f.lane), Some(0));
        // Another cell has lanes of its own.
        a.on_events(&[hit(2, 1)], 1, |_| Some(Pos::new(4, 3)), 10.3);
        assert_eq!(a.floaters.last().map(|f| f.lane), Some(0));
    }
}
