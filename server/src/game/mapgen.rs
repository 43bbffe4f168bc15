//! Rooms-and-corridors floor generation.
//!
//! 1. Scatter non-overlapping rectangular rooms.
//! 2. Join them with a minimum spanning tree of L-shaped corridors (every room reachable), then a
//!    few extra corridors so the floor has loops to flee around.
//! 3. Dig short dead-end spurs out of room walls: the alcoves at their ends hold loot and their
//!    mouths get doors (see GAME_RULES.md).
//! 4. Put the up-stair in one room and the down-stair in the room farthest from it by walking
//!    distance.
//!
//! Everything comes from the floor's map-generation stream, so one seed gives one floor.

use std::collections::VecDeque;

use delve_protocol::{Pos, Tile, TileGrid};
use rand::RngExt;

use super::rng::{GameRng, Stream, floor_rng};

/// Floor size *(given by GAME_RULES.md)*.
pub const FLOOR_WIDTH: usize = 85;
pub const FLOOR_HEIGHT: usize = 48;

/// An axis-aligned room interior: cells `x..x+w`, `y..y+h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl Rect {
    pub fn center(&self) -> Pos {
        Pos::new(self.x + self.w / 2, self.y + self.h / 2)
    }

    pub fn contains(&self, p: Pos) -> bool {
        p.x >= self.x && p.x < self.x + self.w && p.y >= self.y && p.y < self.y + self.h
    }

    /// Whether the two rooms, each grown by `margin` cells, overlap.
    fn near(&self, o: &Rect, margin: i32) -> bool {
        self.x - margin < o.x + o.w
            && o.x - margin < self.x + self.w
            && self.y - margin < o.y + o.h
            && o.y - margin < self.y + self.h
    }
}

/// One generated floor: the terrain and where things are.
#[derive(Clone, Debug)]
pub struct Layout {
    pub map: TileGrid,
    pub rooms: Vec<Rect>,
    pub up: Pos,
    /// `None` on the bottom floor.
    pub down: Option<Pos>,
}

/// Tuning of the generator. The defaults make floors of 10–15 rooms.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GenParams {
    pub width: usize,
    pub height: usize,
    pub rooms: (u32, u32),
    pub room_w: (i32, i32),
    pub room_h: (i32, i32),
    pub extra_corridors: (u32, u32),
    pub spurs: (u32, u32),
    pub spur_len: (i32, i32),
}

impl Default for GenParams {
    fn default() -> Self {
        GenParams {
            width: FLOOR_WIDTH,
            height: FLOOR_HEIGHT,
            rooms: (10, 15),
            room_w: (5, 13),
            room_h: (4, 8),
            extra_corridors: (1, 3),
            spurs: (2, 5),
            spur_len: (3, 7),
        }
    }
}

/// Generates floor `depth` of the dungeon with `seed`.
pub fn generate(seed: u64, depth: u8, has_down: bool, params: &GenParams) -> Layout {
    let mut rng = floor_rng(seed, depth, Stream::MapGen);
    let mut map = TileGrid::new(params.width, params.height);
    for i in 0..params.width * params.height {
        map.set_index(i, Tile::Wall);
    }

    let rooms = place_rooms(&mut rng, &mut map, params);
    connect_rooms(&mut rng, &mut map, &rooms, params);
    dig_spurs(&mut rng, &mut map, &rooms, params);

    let up_room = rooms[rng.random_range(0..rooms.len())];
    let up = random_cell(&mut rng, &up_room);
    map.set(up, Tile::StairsUp);
    let down = has_down.then(|| {
        let dist = distances(&map, up);
        let far = rooms
            .iter()
            .max_by_key(|r| dist[map.index(r.center()).unwrap_or(0)].unwrap_or(0))
            .copied()
            .unwrap_or(up_room);
        let mut p = random_cell(&mut rng, &far);
        while p == up {
            p = random_cell(&mut rng, &far);
        }
        map.set(p, Tile::StairsDown);
        p
    });
    Layout {
        map,
        rooms,
        up,
        down,
    }
}

fn random_cell(rng: &mut GameRng, r: &Rect) -> Pos {
    Pos::new(
        rng.random_range(r.x..r.x + r.w),
        rng.random_range(r.y..r.y + r.h),
    )
}

fn place_rooms(rng: &mut GameRng, map: &mut TileGrid, p: &GenParams) -> Vec<Rect> {
    let target = rng.random_range(p.rooms.0..=p.rooms.1) as usize;
    let mut rooms: Vec<Rect> = Vec::new();
    for _ in 0..400 {
        if rooms.len() >= target {
            break;
        }
        let w = rng.random_range(p.room_w.0..=p.room_w.1);
        let h = rng.random_range(p.room_h.0..=p.room_h.1);
        // Keep a solid border of at least one wall around the whole floor.
        let x = rng.random_range(1..p.width as i32 - w - 1);
        let y = rng.random_range(1..p.height as i32 - h - 1);
        let r = Rect { x, y, w, h };
        // At least two walls between rooms, so a corridor can pass between them without merging.
        if rooms.iter().any(|o| r.near(o, 2)) {
            continue;
        }
        for yy in y..y + h {
            for xx in x..x + w {
                map.set(Pos::new(xx, yy), Tile::Floor);
            }
        }
        rooms.push(r);
    }
    if rooms.is_empty() {
        // Cannot happen with sane parameters, but a floor always needs somewhere to stand.
        let r = Rect {
            x: 1,
            y: 1,
            w: (p.width as i32 - 2).min(6),
            h: (p.height as i32 - 2).min(4),
        };
        for yy in r.y..r.y + r.h {
            for xx in r.x..r.x + r.w {
                map.set(Pos::new(xx, yy), Tile::Floor);
            }
        }
        rooms.push(r);
    }
    rooms
}

fn connect_rooms(rng: &mut GameRng, map: &mut TileGrid, rooms: &[Rect], p: &GenParams) {
    // Prim's minimum spanning tree over room centres.
    let mut joined = vec![false; rooms.len()];
    joined[0] = true;
    for _ in 1..rooms.len() {
        let mut best: Option<(i32, usize, usize)> = None;
        for (a, ra) in rooms.iter().enumerate().filter(|(a, _)| joined[*a]) {
            for (b, rb) in rooms.iter().enumerate().filter(|(b, _)| !joined[*b]) {
                let d = ra.center().dist2(rb.center());
                if best.is_none_or(|(bd, _, _)| d < bd) {
                    best = Some((d, a, b));
                }
            }
        }
        if let Some((_, a, b)) = best {
            joined[b] = true;
            corridor(rng, map, rooms[a].center(), rooms[b].center());
        }
    }
    // A few loops: join a random room to its second-nearest neighbour.
    if rooms.len() >= 3 {
        for _ in 0..rng.random_range(p.extra_corridors.0..=p.extra_corridors.1) {
            let a = rng.random_range(0..rooms.len());
            let mut others: Vec<usize> = (0..rooms.len()).filter(|&b| b != a).collect();
            others.sort_by_key(|&b| rooms[a].center().dist2(rooms[b].center()));
            corridor(rng, map, rooms[a].center(), rooms[others[1]].center());
        }
    }
}

/// An L-shaped corridor, horizontal or vertical leg first at random.
fn corridor(rng: &mut GameRng, map: &mut TileGrid, from: Pos, to: Pos) {
    let elbow = if rng.random_bool(0.5) {
        Pos::new(to.x, from.y)
    } else {
        Pos::new(from.x, to.y)
    };
    for (a, b) in [(from, elbow), (elbow, to)] {
        let (dx, dy) = ((b.x - a.x).signum(), (b.y - a.y).signum());
        let mut c = a;
        loop {
            if map.get(c) == Tile::Wall {
                map.set(c, Tile::Floor);
            }
            if c == b {
                break;
            }
            c = Pos::new(c.x + dx, c.y + dy);
        }
    }
}

/// Digs dead-end corridors straight out of room walls into solid rock.
fn dig_spurs(rng: &mut GameRng, map: &mut TileGrid, rooms: &[Rect], p: &GenParams) {
    let wanted = rng.random_range(p.spurs.0..=p.spurs.1);
    let mut dug = 0;
    for _ in 0..60 {
        if dug >= wanted {
            break;
        }
        let r = rooms[rng.random_range(0..rooms.len())];
        // A point on one side of the room's wall (not a corner) and the outward direction.
        let (start, dx, dy) = match rng.random_range(0..4) {
            0 => (Pos::new(rng.random_range(r.x..r.x + r.w), r.y - 1), 0, -1),
            1 => (Pos::new(rng.random_range(r.x..r.x + r.w), r.y + r.h), 0, 1),
            2 => (Pos::new(r.x - 1, rng.random_range(r.y..r.y + r.h)), -1, 0),
            _ => (Pos::new(r.x + r.w, rng.random_range(r.y..r.y + r.h)), 1, 0),
        };
        let len = rng.random_range(p.spur_len.0..=p.spur_len.1);
        // Every cell of the spur, the mouth in the room wall included, plus its sides and the
        // cell beyond its end must be rock, so the spur touches nothing but its own room.
        let solid = |q: Pos| {
            map.in_bounds(q)
                && q.x > 0
                && q.y > 0
                && (q.x as usize) < map.width() - 1
                && (q.y as usize) < map.height() - 1
                && map.get(q) == Tile::Wall
        };
        let cells: Vec<Pos> = (0..=len)
            .map(|k| Pos::new(start.x + dx * k, start.y + dy * k))
            .collect();
        let ok = cells.iter().all(|&c| {
            solid(c) && solid(Pos::new(c.x + dy, c.y + dx)) && solid(Pos::new(c.x - dy, c.y - dx))
        }) && cells
            .last()
            .is_some_and(|&e| solid(Pos::new(e.x + dx, e.y + dy)));
        if !ok {
            continue;
        }
        for c in cells {
            map.set(c, Tile::Floor);
        }
        dug += 1;
    }
}

/// Walking distance (8-directional) from `from` to every cell, `None` where unreachable.
pub fn distances(map: &TileGrid, from: Pos) -> Vec<Option<u32>> {
    let mut dist = vec![None; map.width() * map.height()];
    let Some(start) = map.index(from) else {
        return dist;
    };
    dist[start] = Some(0);
    let mut queue = VecDeque::from([from]);
    while let Some(p) = queue.pop_front() {
        let d = dist[map.index(p).unwrap_or(start)].unwrap_or(0);
        for dir in delve_protocol::Dir::ALL {
            let q = p.step(dir);
            if let Some(i) = map.index(q)
                && dist[i].is_none()
                && map.get(q).is_walkable()
            {
                dist[i] = Some(d + 1);
                queue.push_back(q);
            }
        }
    }
    dist
}

/// The map as text, one line per row: for golden tests and debugging.
pub fn render(map: &TileGrid) -> String {
    let mut s = String::with_capacity((map.width() + 1) * map.height());
    for (i, t) in map.cells().iter().enumerate() {
        s.push(t.to_char());
        if (i + 1) % map.width() == 0 {
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walls_around(map: &TileGrid, p: Pos) -> usize {
        delve_protocol::Dir::ALL
            .iter()
            .filter(|&&d| map.get(p.step(d)) == Tile::Wall)
            .count()
    }

    #[test]
    fn same_seed_same_floor_other_seed_other_floor() {
        let p = GenParams::default();
        let a = generate(42, 1, true, &p);
        let b = generate(42, 1, true, &p);
        let c = generate(43, 1, true, &p);
        let d = generate(42, 2, true, &p);
        assert_eq!(a.map, b.map);
        assert_ne!(a.map, c.map);
        assert_ne!(a.map, d.map);
    }

    #[test]
    fn floors_are_connected_bordered_and_have_both_stairs() {
        let p = GenParams::default();
        for seed in 0..200u64 {
            let l = generate(seed, (seed % 10) as u8 + 1, true, &p);
            let m = &l.map;
            assert_eq!((m.width(), m.height()), (85, 48));
            assert_eq!(m.get(l.up), Tile::StairsUp, "seed {seed}");
            let down = l.down.expect("has a down stair");
            assert_eq!(m.get(down), Tile::StairsDown, "seed {seed}");
            assert_ne!(l.up, down);
            assert!(
                l.rooms.len() >= 5,
                "seed {seed}: only {} rooms",
                l.rooms.len()
            );
            let dist = distances(m, l.up);
            for (i, t) in m.cells().iter().enumerate() {
                let pos = m.pos_of(i);
                let border = pos.x == 0 || pos.y == 0 || pos.x == 84 || pos.y == 47;
                if border {
                    assert_eq!(*t, Tile::Wall, "seed {seed}: border open at {pos:?}");
                }
                if t.is_walkable() {
                    assert!(
                        dist[i].is_some(),
                        "seed {seed}: {pos:?} unreachable from the up-stair"
                    );
                }
            }
            let stairs = m
                .cells()
                .iter()
                .filter(|t| matches!(t, Tile::StairsUp | Tile::StairsDown))
                .count();
            assert_eq!(stairs, 2, "seed {seed}");
        }
    }

    #[test]
    fn bottom_floor_has_no_down_stair() {
        let l = generate(5, 10, false, &GenParams::default());
        assert!(l.down.is_none());
        assert!(!l.map.cells().contains(&Tile::StairsDown));
    }

    #[test]
    fn floors_have_dead_end_alcoves() {
        // Spurs end in alcoves (7+ walls around a floor cell), which later hold loot.
        let p = GenParams::default();
        let mut floors_with_alcoves = 0;
        for seed in 0..50u64 {
            let l = generate(seed, 1, true, &p);
            let alcoves = (0..l.map.cells().len())
                .map(|i| l.map.pos_of(i))
                .filter(|&q| l.map.get(q) == Tile::Floor && walls_around(&l.map, q) >= 7)
                .count();
            if alcoves >= 2 {
                floors_with_alcoves += 1;
            }
        }
        assert!(
            floors_with_alcoves >= 45,
            "only {floors_with_alcoves}/50 floors have 2+ alcoves"
        );
    }

    #[test]
    fn the_stairs_are_far_apart() {
        let p = GenParams::default();
        let mut total = 0u32;
        for seed in 0..50u64 {
            let l = generate(seed, 1, true, &p);
            let d = distances(&l.map, l.up)[l.map.index(l.down.unwrap()).unwrap()].unwrap();
            total += d;
        }
        // On an 85-wide floor the down-stair should usually be a long walk away.
        assert!(total / 50 >= 30, "mean stair distance {}", total / 50);
    }
}
