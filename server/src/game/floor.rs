//! One floor of a dungeon: its terrain, its monsters, its dice, its turn clock and the choices
//! made for the turn being chosen.

use std::collections::{BTreeMap, BTreeSet};

use delve_protocol::{Pos, Tile, TileGrid};

use super::EntityId;
use super::action::Action;
use super::content::Content;
use super::fov::Walls;
use super::furnish::furnish;
use super::item::Item;
use super::mapgen::{GenParams, Layout, Rect, generate};
use super::monster::{Monster, spawn};
use super::patrol::RoomFields;
use super::rng::{GameRng, Stream, floor_rng};

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Floor {
    pub(in crate::game) depth: u8,
    pub(in crate::game) map: TileGrid,
    pub(in crate::game) rooms: Vec<Rect>,
    pub(in crate::game) up: Pos,
    pub(in crate::game) down: Option<Pos>,
    /// Turns resolved on this floor. Floors keep their own clocks, and a floor nobody stands on
    /// does not move at all.
    pub(in crate::game) turn: u64,
    pub(in crate::game) monsters: BTreeMap<EntityId, Monster>,
    /// Items lying on the floor, by id, with where they lie. Several may share a cell.
    pub(in crate::game) items: BTreeMap<EntityId, (Pos, Item)>,
    /// Every floor cell, for monsters picking patrol goals. Derived from the map, so not saved.
    #[serde(skip)]
    pub(super) open_cells: Vec<Pos>,
    /// The rooms' middles and the fields that lead calm monsters to them: made when its
    /// monsters first need them, dropped when the map changes (a door opens). Derived from the
    /// map, so not saved.
    #[serde(skip)]
    pub(super) patrol: Option<RoomFields>,
    /// Whether each cell blocks sight, kept beside the map for the FOV's hot loop. Derived from
    /// the map, so not saved.
    #[serde(skip)]
    pub(super) opaque: Walls,
    /// This floor's dice for play: turn order, combat, AI.
    pub(super) rng: GameRng,
    /// The choice each player made for the turn being chosen, replaceable until it resolves.
    /// Not saved: a choice counts once its turn resolves (and is journaled); after a restart
    /// players choose again.
    #[serde(skip)]
    pub(super) pending: BTreeMap<EntityId, Action>,
    /// Monsters stunned this turn (by a Stun Baton): they lose their action in its monster
    /// phase. Not saved: the turn's end empties it, and worlds are saved between turns.
    #[serde(skip)]
    pub(super) stunned: BTreeSet<EntityId>,
    /// For each character whose rest is chosen, the friends it saw when that choice was made:
    /// one that comes into view after that ends the rest. Not saved, like the choices.
    #[serde(skip)]
    pub(super) rest_company: BTreeMap<EntityId, BTreeSet<EntityId>>,
}

impl Floor {
    /// Floor `depth` of the dungeon with `seed`, whole: its map, doors, items and monsters.
    pub fn generate(
        seed: u64,
        depth: u8,
        has_down: bool,
        params: &GenParams,
        content: &Content,
    ) -> Floor {
        let Layout {
            mut map,
            rooms,
            up,
            down,
        } = generate(seed, depth, has_down, params);
        // Doors go in before monsters spawn, so none starts shut in a dead end.
        let stairs: Vec<Pos> = [Some(up), down].into_iter().flatten().collect();
        let mut loot_rng = floor_rng(seed, depth, Stream::Loot);
        let furnished = furnish(content, depth, &mut map, &stairs, &mut loot_rng);
        let items = furnished
            .items
            .into_iter()
            .map(|(pos, item)| (item.id, (pos, item)))
            .collect();
        let (opaque, open_cells) = derived(&map);
        let mut spawn_rng = floor_rng(seed, depth, Stream::Spawn);
        let monsters = spawn(content, depth, &map, up, &mut spawn_rng)
            .into_iter()
            .map(|m| (m.id, m))
            .collect();
        Floor {
            depth,
            map,
            rooms,
            up,
            down,
            turn: 0,
            monsters,
            items,
            open_cells,
            patrol: None,
            opaque,
            rng: floor_rng(seed, depth, Stream::Play),
            pending: BTreeMap::new(),
            stunned: BTreeSet::new(),
            rest_company: BTreeMap::new(),
        }
    }

    /// Recomputes what is derived from the map (after loading a saved floor).
    pub(super) fn rebuild_derived(&mut self) {
        (self.opaque, self.open_cells) = derived(&self.map);
        self.patrol = None;
    }

    pub fn tile(&self, p: Pos) -> Tile {
        self.map.get(p)
    }

    /// Whether anything has been chosen for the turn in progress.
    pub fn has_choices(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The action `id` has chosen for the turn in progress.
    pub fn pending(&self, id: EntityId) -> Option<Action> {
        self.pending.get(&id).copied()
    }

    /// Items lying at `p`, in id order.
    pub fn items_at(&self, p: Pos) -> impl Iterator<Item = &Item> {
        self.items
            .values()
            .filter(move |(q, _)| *q == p)
            .map(|(_, it)| it)
    }

    /// Opens the door at `p` and lets sight through it.
    pub(super) fn open_door(&mut self, p: Pos) {
        self.map.set(p, Tile::DoorOpen);
        if let Some(i) = self.map.index(p) {
            self.opaque.set(i, false);
        }
        // The cells behind it are within reach now.
        self.patrol = None;
    }

    /// The monster standing at `p`.
    pub fn monster_at(&self, p: Pos) -> Option<&Monster> {
        self.monsters.values().find(|m| m.pos == p)
    }
}

/// What a floor keeps beside its map for speed: which cells block sight, and every plain floor
/// cell (patrol goals).
///
/// Loading a world recomputes these for every floor in it (the engine fuzzer does so thousands
/// of times a second), so each row is taken a block of cells at a time with no branch inside a
/// block: the fuzzer's build counts coverage on every pass through a loop (an increment in
/// memory, each waiting on the last), which made a pass per cell cost more than the work. A
/// cell's position is counted by row and column rather than divided out of its index.
fn derived(map: &TileGrid) -> (Walls, Vec<Pos>) {
    const BLOCK: usize = 16;
    let cells = map.cells();
    let mut opaque = Walls::with_capacity(cells.len());
    let mut open_cells = Vec::new();
    for (row, y) in cells.chunks(map.width().max(1)).zip(0..) {
        let (blocks, rest) = row.as_chunks::<BLOCK>();
        for (block, x) in blocks.iter().zip((0..).step_by(BLOCK)) {
            let walls = (block.iter().rev())
                .fold(0u64, |bits, &t| (bits << 1) | u64::from(!t.is_walkable()));
            opaque.push_bits(walls, BLOCK);
            // The block's floor cells as bits (bit k for cell k), then a pass per floor cell.
            let mut floors = (block.iter().rev())
                .fold(0u32, |bits, &t| (bits << 1) | u32::from(t == Tile::Floor));
            while floors != 0 {
                open_cells.push(Pos::new(x + floors.trailing_zeros() as i32, y));
                floors &= floors - 1;
            }
        }
        let x = (blocks.len() * BLOCK) as i32;
        for (&t, x) in rest.iter().zip(x..) {
            opaque.push_bits(u64::from(!t.is_walkable()), 1);
            if t == Tile::Floor {
                open_cells.push(Pos::new(x, y));
            }
        }
    }
    (opaque, open_cells)
}

/// What the rest of the server may read of a floor. Only the engine writes it, through events.
impl Floor {
    /// Which floor this is (1 is the top).
    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// The terrain.
    pub fn map(&self) -> &TileGrid {
        &self.map
    }

    /// The up-stair.
    pub fn up(&self) -> Pos {
        self.up
    }

    /// The down-stair; none on the last floor.
    pub fn down(&self) -> Option<Pos> {
        self.down
    }

    /// Turns resolved on this floor.
    pub fn turn(&self) -> u64 {
        self.turn
    }

    /// The living monsters, by id.
    pub fn monsters(&self) -> &BTreeMap<EntityId, Monster> {
        &self.monsters
    }

    /// Items lying on the floor, by id, with where they lie.
    pub fn items(&self) -> &BTreeMap<EntityId, (Pos, Item)> {
        &self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `derived` stands for, a cell at a time.
    fn plain(map: &TileGrid) -> (Walls, Vec<Pos>) {
        let cells = map.cells();
        let opaque = Walls::from_flags(cells.iter().map(|t| !t.is_walkable()));
        let open_cells = (0..cells.len())
            .filter(|&i| cells[i] == Tile::Floor)
            .map(|i| map.pos_of(i))
            .collect();
        (opaque, open_cells)
    }

    /// `derived`, taken a block at a time, gives what a cell at a time does: on maps whose rows
    /// end inside, at and past a block, and on a floor as generation makes it.
    #[test]
    fn derived_is_what_each_cell_says() {
        use Tile::{DoorClosed, DoorOpen, StairsUp, Unknown, Wall};
        let open = Tile::Floor;
        let tiles = [
            open, Wall, DoorOpen, open, open, StairsUp, DoorClosed, Unknown,
        ];
        for (w, h) in [
            (0, 0),
            (0, 2),
            (1, 1),
            (15, 3),
            (16, 2),
            (17, 3),
            (33, 4),
            (85, 48),
        ] {
            let mut map = TileGrid::new(w, h);
            for i in 0..w * h {
                map.set_index(i, tiles[(i * i + 3 * i + i / 7) % tiles.len()]);
            }
            assert_eq!(derived(&map), plain(&map), "{w}x{h}");
        }
        let content = Content::builtin();
        let made = Floor::generate(7, 1, true, &GenParams::default(), &content);
        assert!(!made.open_cells.is_empty());
        assert_eq!(derived(&made.map), plain(&made.map));
    }
}
