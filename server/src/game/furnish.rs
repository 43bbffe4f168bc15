//! Furnishing a new floor after its terrain is dug: doors at the mouths of dead-end corridors
//! (one in three locked), loot in the alcoves at their ends, and a few loose Keys and Health
//! Packs. The rules are GAME_RULES.md's; the numbers are the content file's `[placement]`.
//!
//! The geometric rules work on any map, so the tests below check them on hand-drawn ones.

use delve_protocol::{Dir, Pos, Tile, TileGrid};
use rand::RngExt;

use super::content::Content;
use super::item::{Item, item_id, random_kind, weighted_kind};
use super::rng::GameRng;

/// How many of the 8 neighbours of `p` are walls (cells off the map count as walls).
pub fn walls_around(map: &TileGrid, p: Pos) -> usize {
    Dir::ALL
        .iter()
        .filter(|&&d| {
            let q = p.step(d);
            !map.in_bounds(q) || map.get(q) == Tile::Wall
        })
        .count()
}

/// Floor cells with at least 7 walls among their 8 neighbours *(given)*: the tips of dead ends.
pub fn alcoves(map: &TileGrid) -> Vec<Pos> {
    (0..map.cells().len())
        .map(|i| map.pos_of(i))
        .filter(|&p| map.get(p) == Tile::Floor && walls_around(map, p) >= 7)
        .collect()
}

/// Where the door of the dead end ending at `alcove` goes, if the dead end is a corridor of at
/// least `min_len` tiles: follow the corridor from the alcove while its tiles have 6 or more
/// walls around them *(given)*; the door stands on the last such tile, where the corridor opens
/// out, so it always sits between walls.
pub fn door_for(map: &TileGrid, alcove: Pos, min_len: usize) -> Option<Pos> {
    let mut path = vec![alcove];
    let mut prev: Option<Pos> = None;
    let mut cur = alcove;
    loop {
        // The corridor goes on through the one open neighbour we did not come from.
        let next: Vec<Pos> = Dir::ALL
            .iter()
            .map(|&d| cur.step(d))
            .filter(|&q| map.get(q).is_walkable() && Some(q) != prev && !path.contains(&q))
            .collect();
        let [next] = next[..] else {
            // A fork or a sealed pocket: not a plain dead-end corridor.
            return None;
        };
        if walls_around(map, next) < 6 {
            break; // `cur` is where the corridor opens out
        }
        path.push(next);
        prev = Some(cur);
        cur = next;
        if path.len() > map.width() * map.height() {
            return None;
        }
    }
    (path.len() >= min_len && map.get(cur) == Tile::Floor).then_some(cur)
}

/// What furnishing put on a floor.
#[derive(Debug, Default)]
pub struct Furnishings {
    /// Door cells, closed or locked, in the order they were placed.
    pub doors: Vec<(Pos, Tile)>,
    pub items: Vec<(Pos, Item)>,
}

/// Puts doors into `map` and chooses the floor's starting items.
pub fn furnish(
    c: &Content,
    depth: u8,
    map: &mut TileGrid,
    stairs: &[Pos],
    rng: &mut GameRng,
) -> Furnishings {
    let pl = &c.placement;
    let mut out = Furnishings::default();
    let tips = alcoves(map);
    // The alcoves behind a locked door, whose loot is worth the Key.
    let mut vaults = Vec::new();
    for &tip in &tips {
        let Some(door) = door_for(map, tip, pl.door_corridor as usize) else {
            continue;
        };
        if let Some((_, tile)) = out.doors.iter().find(|(p, _)| *p == door) {
            if *tile == Tile::DoorLocked {
                vaults.push(tip);
            }
            continue;
        }
        let locked = rng.random_range(0..pl.locked[1]) < pl.locked[0];
        let tile = if locked {
            vaults.push(tip);
            Tile::DoorLocked
        } else {
            Tile::DoorClosed
        };
        out.doors.push((door, tile));
    }
    for &(p, t) in &out.doors {
        map.set(p, t);
    }
    let mut next_id = 0u32;
    let mut make = |kind: usize, rng: &mut GameRng| {
        next_id += 1;
        Item::make(c, kind, item_id(depth, next_id), depth, rng)
    };
    // A kind found in handfuls (Darts) comes as several items on one cell.
    let mut lay = |kind: usize, at: Pos, rng: &mut GameRng, items: &mut Vec<(Pos, Item)>| {
        let [low, high] = c.items[kind].found;
        let n = if high > low {
            rng.random_range(low..=high)
        } else {
            low
        };
        for _ in 0..n {
            items.push((at, make(kind, rng)));
        }
    };
    for &tip in &tips {
        if map.get(tip) != Tile::Floor {
            continue;
        }
        if vaults.contains(&tip) {
            let n = rng.random_range(pl.vault[0]..=pl.vault[1]);
            for _ in 0..n {
                let kind = weighted_kind(c, rng, |k| k.vault_weight);
                lay(kind, tip, rng, &mut out.items);
            }
        } else if rng.random_range(0..pl.alcove[1]) < pl.alcove[0] {
            let kind = random_kind(c, rng);
            lay(kind, tip, rng, &mut out.items);
        }
    }
    let loose: Vec<usize> = (0..c.items.len()).filter(|&i| c.items[i].loose).collect();
    let mut cells: Vec<Pos> = (0..map.cells().len())
        .map(|i| map.pos_of(i))
        .filter(|p| {
            map.get(*p) == Tile::Floor
                && !stairs.contains(p)
                && !out.items.iter().any(|(q, _)| q == p)
        })
        .collect();
    let count = rng.random_range(pl.loose[0]..=pl.loose[1]);
    for _ in 0..count {
        if cells.is_empty() || loose.is_empty() {
            break;
        }
        let kind = loose[rng.random_range(0..loose.len())];
        let pos = cells.swap_remove(rng.random_range(0..cells.len()));
        lay(kind, pos, rng, &mut out.items);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rng::{Stream, floor_rng};

    /// A map from a picture: `#` wall, `.` floor.
    fn draw(rows: &[&str]) -> TileGrid {
        let mut g = TileGrid::new(rows[0].len(), rows.len());
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                g.set(Pos::new(x as i32, y as i32), Tile::from_char(c).unwrap());
            }
        }
        g
    }

    #[test]
    fn the_door_goes_where_a_long_enough_dead_end_opens_out() {
        // A room on the left; a dead-end corridor of 4 tiles runs east from its wall.
        let map = draw(&[
            "##########",
            "#...######",
            "#.........",
            "#...######",
            "##########",
        ]);
        // The corridor's far end is off the picture's edge: cut it with a wall to make the tip.
        let mut map = map;
        map.set(Pos::new(9, 2), Tile::Wall);
        assert_eq!(alcoves(&map), vec![Pos::new(8, 2)]);
        // (4,2) sits in the room's wall line beside three room cells: fewer than 6 walls, so
        // the corridor opens out there and the door is on (5,2).
        assert_eq!(walls_around(&map, Pos::new(4, 2)), 4);
        assert_eq!(door_for(&map, Pos::new(8, 2), 3), Some(Pos::new(5, 2)));
        // The dead end is 4 tiles long (x = 8, 7, 6, 5): enough for 4, not for 5.
        assert_eq!(door_for(&map, Pos::new(8, 2), 4), Some(Pos::new(5, 2)));
        assert_eq!(door_for(&map, Pos::new(8, 2), 5), None);
    }

    #[test]
    fn short_dead_ends_bends_and_junctions_get_no_door() {
        let short = draw(&["#######", "#...###", "#.....#", "#...###", "#######"]);
        // Tip (5,2), then (4,2) opens out: a corridor of 1 tile.
        assert_eq!(alcoves(&short), vec![Pos::new(5, 2)]);
        assert_eq!(door_for(&short, Pos::new(5, 2), 3), None);
        assert_eq!(door_for(&short, Pos::new(5, 2), 1), Some(Pos::new(5, 2)));

        // A bend: the cell before the corner sees the open corner diagonally (5 walls), so the
        // corridor counted from the tip ends at the bend.
        let mut bent = draw(&[
            "#########",
            "#...#####",
            "#.......#",
            "#...#####",
            "#########",
            "#########",
        ]);
        bent.set(Pos::new(7, 3), Tile::Floor);
        bent.set(Pos::new(7, 4), Tile::Floor);
        assert_eq!(alcoves(&bent), vec![Pos::new(7, 4)]);
        assert_eq!(walls_around(&bent, Pos::new(7, 3)), 5);
        assert_eq!(door_for(&bent, Pos::new(7, 4), 3), None);

        // A junction: two dead ends meet a corridor; each opens out at once.
        let forked = draw(&[
            "##########",
            "######.###",
            "#...##.###",
            "#........#",
            "#...######",
            "##########",
        ]);
        assert_eq!(alcoves(&forked), vec![Pos::new(6, 1), Pos::new(8, 3)]);
        assert_eq!(door_for(&forked, Pos::new(6, 1), 3), None);
        assert_eq!(door_for(&forked, Pos::new(8, 3), 3), None);
        // Two rooms joined by a corridor: no alcove at all.
        let joined = draw(&[
            "###########",
            "#..#####..#",
            "#.........#",
            "#..#####..#",
            "###########",
        ]);
        assert!(alcoves(&joined).is_empty());
    }

    #[test]
    fn generated_floors_get_doors_loot_and_about_a_third_locked() {
        let c = Content::builtin();
        let (mut doors, mut locked, mut alcove_count, mut alcove_items) = (0, 0, 0, 0);
        let mut vault_count = 0;
        let mut loose_counts = Vec::new();
        for seed in 0..60u64 {
            let layout = crate::game::mapgen::generate(seed, 1, true, &Default::default());
            let mut map = layout.map.clone();
            let tips = alcoves(&map);
            let mut rng = floor_rng(seed, 1, Stream::Loot);
            let stairs: Vec<Pos> = [Some(layout.up), layout.down]
                .into_iter()
                .flatten()
                .collect();
            let f = furnish(&c, 1, &mut map, &stairs, &mut rng);
            for &(p, t) in &f.doors {
                assert_eq!(map.get(p), t);
                assert_eq!(layout.map.get(p), Tile::Floor, "doors stand on floor cells");
                assert!(
                    walls_around(&layout.map, p) >= 6,
                    "a door sits between walls"
                );
                doors += 1;
                locked += usize::from(t == Tile::DoorLocked);
            }
            // The alcoves behind a locked door always hold the vault's items (by the dice,
            // between `vault` items); the others hold an item two times in three.
            let locked_door = |tip: Pos| {
                door_for(&layout.map, tip, c.placement.door_corridor as usize)
                    .is_some_and(|d| map.get(d) == Tile::DoorLocked)
            };
            let (vaults, open): (Vec<Pos>, Vec<Pos>) = tips.iter().partition(|t| locked_door(**t));
            for v in &vaults {
                let n = f.items.iter().filter(|(p, _)| p == v).count();
                let [low, high] = c.placement.vault;
                assert!(n >= low as usize, "a vault holds {n} items");
                let most = high as usize
                    * c.items
                        .iter()
                        .map(|k| k.found[1] as usize)
                        .max()
                        .unwrap_or(1);
                assert!(n <= most, "a vault holds {n} items");
                vault_count += 1;
            }
            alcove_count += open.len();
            alcove_items += open
                .iter()
                .filter(|t| f.items.iter().any(|(p, _)| p == *t))
                .count();
            let loose = f.items.iter().filter(|(p, _)| !tips.contains(p)).count();
            for (p, it) in &f.items {
                if !tips.contains(p) {
                    assert!(it.kind(&c).loose, "loose items are Keys or Health Packs");
                }
                assert!(!stairs.contains(p));
            }
            loose_counts.push(loose);
        }
        assert!(doors >= 60, "{doors} doors on 60 floors");
        // One in three locked: well inside 20%..47% over this many doors.
        let share = locked as f64 / doors as f64;
        assert!((0.2..0.47).contains(&share), "{locked}/{doors} locked");
        // Two alcoves in three hold an item.
        let share = alcove_items as f64 / alcove_count as f64;
        assert!(
            (0.55..0.78).contains(&share),
            "{alcove_items}/{alcove_count}"
        );
        assert!(vault_count >= 10, "{vault_count} vaults on 60 floors");
        assert!(loose_counts.iter().all(|&n| n <= 2));
        for n in 0..=2 {
            assert!(loose_counts.contains(&n), "{n} loose items happens");
        }
    }
}
