//! The rules an action must pass before it is queued, the stat-point dialog, and whom a floor
//! is waiting for.

use delve_protocol::{Effect, Tile};

use super::*;
use crate::game::EntityId;
use crate::game::action::{Action, ActionError, uses_pack};
use crate::game::event::Event;
use crate::game::floor::Floor;
use crate::game::monster::Monster;
use crate::game::stats::Stat;

impl Dungeon {
    /// Checks `action` and makes it `id`'s choice for the turn in progress, replacing any earlier
    /// choice. A refused action changes nothing.
    pub(in crate::game) fn submit(
        &mut self,
        id: EntityId,
        action: Action,
    ) -> Result<Event, ActionError> {
        self.check(id, action)?;
        let depth = self.players[&id].depth;
        let chose = Event::Chose { id, depth, action };
        self.apply(&chose);
        Ok(chose)
    }

    /// Character `id`, if it is still in its game: there, alive and not yet a winner. The first
    /// rule of everything a character does.
    pub(in crate::game) fn still_playing(&self, id: EntityId) -> Result<&Player, ActionError> {
        let p = self.players.get(&id).ok_or(ActionError::NotPresent)?;
        if !p.alive {
            return Err(ActionError::Dead);
        }
        if p.victory {
            return Err(ActionError::Won);
        }
        Ok(p)
    }

    /// The rules an action must pass before it is queued.
    pub fn check(&self, id: EntityId, action: Action) -> Result<(), ActionError> {
        let p = self.still_playing(id)?;
        if !p.present {
            return Err(ActionError::NotPresent);
        }
        let floor = self.floor(p.depth).ok_or(ActionError::NotPresent)?;
        if uses_pack(action) && !self.clears_head(p, action) {
            if p.has(Effect::Stun) {
                return Err(ActionError::StunnedPack);
            }
            if p.has(Effect::Confusion) {
                return Err(ActionError::ConfusedPack);
            }
        }
        match action {
            Action::Wait => Ok(()),
            Action::Move { dir } => {
                let to = p.pos.step(dir);
                let tile = floor.tile(to);
                if !floor.map.in_bounds(to) {
                    Err(ActionError::OffMap)
                } else if tile == Tile::DoorLocked && !self.has_key(p) {
                    Err(ActionError::Locked)
                } else if !tile.is_walkable() && !tile.is_shut_door() {
                    Err(ActionError::Wall)
                } else {
                    Ok(())
                }
            }
            Action::Descend => match floor.tile(p.pos) {
                Tile::StairsDown if p.depth < self.depth_count() => Ok(()),
                _ => Err(ActionError::NoStairs),
            },
            Action::Ascend => match floor.tile(p.pos) {
                Tile::StairsUp if p.depth > 1 => Ok(()),
                Tile::StairsUp => Err(ActionError::NoWayUp),
                _ => Err(ActionError::NoStairs),
            },
            Action::PickUp
            | Action::Use { item: _ }
            | Action::Equip { item: _ }
            | Action::Unequip { item: _ }
            | Action::Drop { item: _ } => self.check_pack(p, floor, action),
            Action::Throw { .. } | Action::Fire { .. } => self.check_aim(p, floor, action),
            Action::Give { .. } | Action::UseOn { .. } => self.check_friend(p, action),
            Action::Rest => {
                if let Some(m) = self.monster_in_sight(p) {
                    let name = m.kind(&self.content).name.to_string();
                    Err(ActionError::MonsterInSight(name))
                } else if p.hp >= p.stats(&self.content).max_hp && p.effects.is_empty() {
                    Err(ActionError::Rested)
                } else {
                    Ok(())
                }
            }
        }
    }

    /// The monster nearest to character `id` among those it sees, if it sees any.
    pub fn monster_in_sight_of(&self, id: EntityId) -> Option<&Monster> {
        self.monster_in_sight(self.players.get(&id)?)
    }

    /// The monster nearest to `p` among those it sees, if it sees any.
    pub(super) fn monster_in_sight(&self, p: &Player) -> Option<&Monster> {
        let floor = self.floor(p.depth)?;
        (floor.monsters.values())
            .filter(|m| floor.map.index(m.pos).is_some_and(|i| p.sees(i)))
            .min_by_key(|m| (m.pos.dist2(p.pos), m.id))
    }

    /// Spends one of `id`'s stat points on `stat`, at once (it takes no turn).
    pub(in crate::game) fn spend_point(
        &mut self,
        id: EntityId,
        stat: Stat,
    ) -> Result<Vec<Event>, ActionError> {
        let p = self.still_playing(id)?;
        if p.unspent == 0 {
            return Err(ActionError::NoPoints);
        }
        let mut out = Vec::new();
        self.emit(Event::SpentPoint { id, stat }, &mut out);
        Ok(out)
    }

    /// Living, connected characters on floor `depth`, their players not away, that have not
    /// chosen yet.
    pub fn waiting_for(&self, depth: u8) -> Vec<EntityId> {
        let Some(floor) = self.floor(depth) else {
            return Vec::new();
        };
        self.waited_for(depth)
            .filter(|p| !floor.pending.contains_key(&p.id))
            .map(|p| p.id)
            .collect()
    }

    /// Whether floor `depth`'s turn can resolve now: someone chose and every living, connected
    /// character on the floor whose player is not away has chosen.
    pub fn is_ready(&self, depth: u8) -> bool {
        self.floor(depth).is_some_and(Floor::has_choices) && self.waiting_for(depth).is_empty()
    }
}
