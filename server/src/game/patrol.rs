//! Where calm monsters walk: the middle of every room of a floor, and for each a field that
//! leads every cell of the floor to it by the shortest way.
//!
//! A patrolling monster used to plan an A* route across the floor to a random cell for every
//! walk (GAME_RULES.md's seed rule): in the load runs a sixth of the server's CPU per update
//! (docs/BENCHMARKS.md). Like Brogue's wanderers, which follow shared waypoint maps, a monster
//! now walks to the middle of a room down that room's field, one step a turn, with nothing to
//! plan; the fields are made once for the floor, when its monsters first need them.
//!
//! A field keeps, for every cell, its walking distance from the room's middle modulo 3, in two
//! bits (3: out of reach). Neighbouring cells are at most one step apart in distance, so a
//! neighbour is one step nearer exactly when its code is one less modulo 3: that is all a walk
//! needs, and a floor's fields take about a kilobyte a room instead of eight.

use std::fmt;

use delve_protocol::{Dir, Pos, TileGrid};

use super::mapgen::Rect;
use super::path::Flow;

/// A cell that cannot reach the room's middle (behind a shut door).
const OUT_OF_REACH: u8 = 3;

/// The rooms' middles of one floor and a field to each. Derived from the map (and made again
/// when a door opens), so never saved.
#[derive(Clone)]
pub struct RoomFields {
    width: usize,
    cells: usize,
    /// Bytes of one room's field.
    stride: usize,
    rooms: Vec<Rect>,
    middles: Vec<Pos>,
    /// Per room, `cells` two-bit codes, four to a byte.
    codes: Vec<u8>,
}

/// What a step along a field comes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A free neighbour one step nearer the room's middle (the first in [`Dir::ALL`]'s order).
    Go(Dir),
    /// Every neighbour one step nearer is taken.
    Blocked,
    /// Here already, or no way from here (a cell the field does not reach).
    Done,
}

impl RoomFields {
    /// The fields of every room of `map`, each one breadth-first walk over its walkable cells.
    pub fn new(map: &TileGrid, rooms: &[Rect]) -> RoomFields {
        let cells = map.width() * map.height();
        let stride = cells.div_ceil(4);
        let middles: Vec<Pos> = rooms.iter().map(Rect::center).collect();
        let mut codes = vec![0; stride * middles.len()];
        let mut flow = Flow::default();
        for (room, &middle) in middles.iter().enumerate() {
            flow.restart(map, [middle]);
            let dist = flow.finish(map);
            let field = &mut codes[room * stride..(room + 1) * stride];
            for (i, &d) in dist.iter().enumerate() {
                let code = if d == u32::MAX {
                    OUT_OF_REACH
                } else {
                    (d % 3) as u8
                };
                field[i / 4] |= code << (2 * (i % 4));
            }
        }
        RoomFields {
            width: map.width(),
            cells,
            stride,
            rooms: rooms.to_vec(),
            middles,
            codes,
        }
    }

    /// How many rooms there are to walk to.
    pub fn rooms(&self) -> usize {
        self.middles.len()
    }

    /// The middle of `room`.
    pub fn middle(&self, room: usize) -> Option<Pos> {
        self.middles.get(room).copied()
    }

    /// The room a walk to `cell` goes to: the room it lies in, else (a corridor, an alcove) the
    /// one whose middle is nearest it as the crow flies (ties to the lower index).
    pub fn room_for(&self, cell: Pos) -> Option<usize> {
        (self.rooms.iter().position(|r| r.contains(cell)))
            .or_else(|| (0..self.middles.len()).min_by_key(|&r| self.middles[r].dist2(cell)))
    }

    /// The code of cell `p` in `field` (one room's codes); outside the grid, out of reach.
    fn code(&self, field: &[u8], p: Pos) -> u8 {
        if p.x < 0 || p.y < 0 || p.x as usize >= self.width {
            return OUT_OF_REACH;
        }
        let i = p.y as usize * self.width + p.x as usize;
        if i >= self.cells {
            return OUT_OF_REACH;
        }
        code_at(field, i)
    }

    /// The next step from `from` towards the middle of `room`, over cells that `free` allows.
    /// Every calm monster asks this every turn, so a cell away from the grid's edge (where
    /// monsters stand) reads its eight neighbours at fixed offsets.
    pub fn step(&self, room: usize, from: Pos, free: impl Fn(Pos) -> bool) -> Step {
        if room >= self.middles.len() || self.middles[room] == from {
            return Step::Done;
        }
        let field = &self.codes[room * self.stride..(room + 1) * self.stride];
        let here = self.code(field, from);
        if here == OUT_OF_REACH {
            return Step::Done;
        }
        let nearer = (here + 2) % 3;
        let (w, h) = (self.width as i32, (self.cells / self.width) as i32);
        let inside = from.x > 0 && from.y > 0 && from.x + 1 < w && from.y + 1 < h;
        let i = from.y * w + from.x;
        let mut blocked = false;
        for d in Dir::ALL {
            let (dx, dy) = d.delta();
            let code = if inside {
                code_at(field, (i + dy * w + dx) as usize)
            } else {
                self.code(field, from.step(d))
            };
            if code == nearer {
                if free(from.step(d)) {
                    return Step::Go(d);
                }
                blocked = true;
            }
        }
        if blocked { Step::Blocked } else { Step::Done }
    }
}

/// Cell `i`'s two bits of a field.
fn code_at(field: &[u8], i: usize) -> u8 {
    (field[i / 4] >> (2 * (i % 4))) & 3
}

impl fmt::Debug for RoomFields {
    /// The middles only: the fields are a few kilobytes of codes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RoomFields")
            .field("middles", &self.middles)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::mapgen::{GenParams, generate};
    use crate::game::path::{astar, flow_field};

    /// Walking a field from anywhere takes the shortest way to the room's middle: as many steps
    /// as an A* route, every step to a walkable neighbour, on real floors; and cells that cannot
    /// reach it are told so.
    #[test]
    fn a_walk_down_a_field_is_a_shortest_route() {
        for seed in 0..6 {
            let layout = generate(seed, 1 + (seed % 10) as u8, true, &GenParams::default());
            let fields = RoomFields::new(&layout.map, &layout.rooms);
            assert_eq!(fields.rooms(), layout.rooms.len());
            for room in 0..fields.rooms() {
                let middle = fields.middle(room).expect("a middle");
                let dist = flow_field(&layout.map, [middle]);
                for (i, &d) in dist.iter().enumerate().step_by(7) {
                    let start = layout.map.pos_of(i);
                    if d == u32::MAX {
                        assert_eq!(fields.step(room, start, |_| true), Step::Done);
                        continue;
                    }
                    let mut at = start;
                    let mut steps = 0;
                    while let Step::Go(dir) = fields.step(room, at, |_| true) {
                        at = at.step(dir);
                        assert!(layout.map.get(at).is_walkable(), "{at:?} is walkable");
                        steps += 1;
                        assert!(steps <= d, "no longer than the shortest way");
                    }
                    assert_eq!(at, middle, "seed {seed} room {room} from {start:?}");
                    let route = astar(&layout.map, start, middle, 10_000, |_| false);
                    assert_eq!(route.map_or(0, |r| r.len() as u32), steps);
                }
            }
        }
    }

    /// A taken cell one step nearer is passed by another one step nearer if there is one, and
    /// only when every such cell is taken does the walk wait.
    #[test]
    fn a_walk_goes_around_a_taken_cell_or_waits() {
        let layout = generate(3, 2, true, &GenParams::default());
        let fields = RoomFields::new(&layout.map, &layout.rooms);
        let room = (layout.rooms.iter().position(|r| r.w >= 6 && r.h >= 6)).expect("a big room");
        let middle = fields.middle(room).expect("a middle");
        // Two steps east and one south of the middle: two cells one step nearer.
        let start = Pos::new(middle.x + 2, middle.y + 1);
        assert!(layout.rooms[room].contains(start));
        let Step::Go(first) = fields.step(room, start, |_| true) else {
            panic!("a step")
        };
        let taken = start.step(first);
        let Step::Go(second) = fields.step(room, start, |q| q != taken) else {
            panic!("another step")
        };
        assert_ne!(first, second);
        assert_eq!(fields.step(room, start, |_| false), Step::Blocked);
        assert_eq!(fields.step(room, middle, |_| true), Step::Done);
    }

    /// A cell of a room goes to that room's middle, even where another room's middle is nearer;
    /// a cell outside every room to the nearest middle.
    #[test]
    fn a_cell_goes_to_its_rooms_middle() {
        let big = Rect {
            x: 10,
            y: 10,
            w: 20,
            h: 10,
        };
        let small = Rect {
            x: 5,
            y: 8,
            w: 3,
            h: 3,
        };
        let mut map = TileGrid::new(40, 30);
        for i in 0..40 * 30 {
            map.set_index(i, delve_protocol::Tile::Floor);
        }
        let fields = RoomFields::new(&map, &[big, small]);
        let corner = Pos::new(10, 10);
        assert!(small.center().dist2(corner) < big.center().dist2(corner));
        assert_eq!(fields.room_for(corner), Some(0));
        assert_eq!(fields.room_for(Pos::new(6, 6)), Some(1));
        assert_eq!(fields.room_for(Pos::new(38, 28)), Some(0));
    }
}
