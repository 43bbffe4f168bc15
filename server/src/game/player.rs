//! A player's character: where it is, its stats, and what it remembers of each floor.

use std::collections::BTreeMap;

use delve_protocol::{Pos, TileGrid};

use super::EntityId;

/// Starting sight radius in tiles *(given)*.
pub const START_SIGHT: i32 = 8;
/// Max HP at level 1: `25 + 10 * (level - 1)` *(given)*.
pub const START_HP: i32 = 25;

#[derive(Clone, Debug)]
pub struct Player {
    pub id: EntityId,
    pub name: String,
    pub depth: u8,
    pub pos: Pos,
    pub hp: i32,
    pub max_hp: i32,
    pub level: u32,
    pub xp: u32,
    pub sight: i32,
    /// Whether a connection is driving this character. A disconnected character never holds up
    /// a turn: it simply waits.
    pub connected: bool,
    /// Remembered tiles of every floor visited, by depth.
    pub(super) memory: BTreeMap<u8, TileGrid>,
    /// What the character sees now on its floor, one flag per cell (row-major).
    pub(super) fov: Vec<bool>,
}

impl Player {
    pub(super) fn new(id: EntityId, name: String, depth: u8, pos: Pos) -> Player {
        Player {
            id,
            name,
            depth,
            pos,
            hp: START_HP,
            max_hp: START_HP,
            level: 1,
            xp: 0,
            sight: START_SIGHT,
            connected: true,
            memory: BTreeMap::new(),
            fov: Vec::new(),
        }
    }

    /// The tiles this character remembers of floor `depth`, if it has been there.
    pub fn memory(&self, depth: u8) -> Option<&TileGrid> {
        self.memory.get(&depth)
    }

    /// Cells in sight now, one flag per cell of the current floor.
    pub fn fov(&self) -> &[bool] {
        &self.fov
    }

    /// Whether the character sees cell `index` of its floor now.
    pub fn sees(&self, index: usize) -> bool {
        self.fov.get(index).copied().unwrap_or(false)
    }
}
