//! One floor of a dungeon: its terrain, its monsters, its dice, its turn clock and the choices
//! made for the turn being chosen.

use std::collections::BTreeMap;

use delve_protocol::{Pos, Tile, TileGrid};

use super::EntityId;
use super::action::Action;
use super::content::Content;
use super::mapgen::{GenParams, Layout, Rect, generate};
use super::monster::{Monster, spawn};
use super::rng::{GameRng, Stream, floor_rng};

#[derive(Clone, Debug)]
pub struct Floor {
    pub depth: u8,
    pub map: TileGrid,
    pub rooms: Vec<Rect>,
    pub up: Pos,
    pub down: Option<Pos>,
    /// Turns resolved on this floor. Floors keep their own clocks, and a floor nobody stands on
    /// does not move at all.
    pub turn: u64,
    pub monsters: BTreeMap<EntityId, Monster>,
    /// Every floor cell, for monsters picking patrol goals.
    pub(super) open_cells: Vec<Pos>,
    /// Whether each cell blocks sight, kept beside the map for the FOV's hot loop.
    pub(super) opaque: Vec<bool>,
    /// This floor's dice for play: turn order, combat, AI.
    pub(super) rng: GameRng,
    /// The choice each player made for the turn being chosen, replaceable until it resolves.
    pub(super) pending: BTreeMap<EntityId, Action>,
}

impl Floor {
    pub(super) fn generate(
        seed: u64,
        depth: u8,
        has_down: bool,
        params: &GenParams,
        content: &Content,
    ) -> Floor {
        let Layout {
            map,
            rooms,
            up,
            down,
        } = generate(seed, depth, has_down, params);
        let opaque = map.cells().iter().map(|t| !t.is_walkable()).collect();
        let open_cells = (0..map.cells().len())
            .filter(|&i| map.cells()[i] == Tile::Floor)
            .map(|i| map.pos_of(i))
            .collect();
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
            open_cells,
            opaque,
            rng: floor_rng(seed, depth, Stream::Play),
            pending: BTreeMap::new(),
        }
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

    /// The monster standing at `p`.
    pub fn monster_at(&self, p: Pos) -> Option<&Monster> {
        self.monsters.values().find(|m| m.pos == p)
    }
}
