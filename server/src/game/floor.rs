//! One floor of a dungeon: its terrain, its dice, its turn clock and the choices made for the
//! turn being chosen.

use std::collections::BTreeMap;

use delve_protocol::{Pos, Tile, TileGrid};

use super::EntityId;
use super::action::Action;
use super::mapgen::{GenParams, Layout, Rect, generate};
use super::rng::{GameRng, Stream, floor_rng};

#[derive(Clone, Debug)]
pub struct Floor {
    pub depth: u8,
    pub map: TileGrid,
    pub rooms: Vec<Rect>,
    pub up: Pos,
    pub down: Option<Pos>,
    /// Turns resolved on this floor. Floors keep their own clocks.
    pub turn: u64,
    /// Whether each cell blocks sight, kept beside the map for the FOV's hot loop.
    pub(super) opaque: Vec<bool>,
    /// This floor's dice for play (turn order, later combat and AI).
    pub(super) rng: GameRng,
    /// The choice each player made for the turn being chosen, replaceable until it resolves.
    pub(super) pending: BTreeMap<EntityId, Action>,
}

impl Floor {
    pub(super) fn generate(seed: u64, depth: u8, has_down: bool, params: &GenParams) -> Floor {
        let Layout {
            map,
            rooms,
            up,
            down,
        } = generate(seed, depth, has_down, params);
        let opaque = map.cells().iter().map(|t| !t.is_walkable()).collect();
        Floor {
            depth,
            map,
            rooms,
            up,
            down,
            turn: 0,
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
}
