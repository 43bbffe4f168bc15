//! Throwing and shooting: what flies in a line from a thrower to the cell it aimed at, and
//! stops at the first creature, wall or shut door (walls and doors rule every ranged effect,
//! for monsters as for players); blasts that strike every creature they reach; dazes.
//!
//! A player's `throw` or `fire` is checked when it is chosen (the item or weapon, a cell in
//! sight and in range) and again when its turn comes. A monster that shoots chooses `fire` as
//! a player would (its kind's `fires`), and only along a line its shot can fly.

use std::sync::Arc;

use delve_protocol::{Effect, Pos, Slot};
use rand::RngExt;

use super::*;
use crate::game::EntityId;
use crate::game::action::{Action, ActionError};
use crate::game::content::Missile;
use crate::game::event::{Actor, Event};
use crate::game::fov;
use crate::game::sight::Sight;
use crate::game::stats::hit_chance;
use delve_protocol::line;

/// What is about to fly, and whose it is.
struct Shot {
    missile: Missile,
    /// What flies, by name ("Dart"; a weapon's or a monster's shot is named after it).
    what: Arc<str>,
    /// The content key of a thrown item.
    key: Option<Arc<str>>,
    /// The thrown item.
    item: Option<EntityId>,
}

impl Dungeon {
    /// The rules of `throw` and `fire` before they are queued: the thing to throw (or a
    /// weapon that shoots), and a cell other than your own, in your sight and in its range.
    pub(super) fn check_aim(
        &self,
        p: &Player,
        floor: &Floor,
        action: Action,
    ) -> Result<(), ActionError> {
        let shot = self.shot_of(p.id, action)?;
        let at = match action {
            Action::Throw { at, .. } | Action::Fire { at } => at,
            _ => return Ok(()),
        };
        if at == p.pos {
            return Err(ActionError::OwnCell);
        }
        if !floor.map.index(at).is_some_and(|i| p.sees(i)) {
            return Err(ActionError::OutOfSight);
        }
        let range = shot.missile.range;
        if !fov::within_radius(at.x - p.pos.x, at.y - p.pos.y, range) {
            return Err(ActionError::OutOfRange(range));
        }
        Ok(())
    }

    /// What `id` would throw or shoot with `action`: a thrown item of its pack, its weapon's
    /// shot, or (a monster) its kind's.
    fn shot_of(&self, id: EntityId, action: Action) -> Result<Shot, ActionError> {
        let c = &self.content;
        let Some(p) = self.players.get(&id) else {
            // A monster: its kind's shot.
            let depth = super::monster_depth(id).ok_or(ActionError::NotPresent)?;
            let m = (self.floor(depth).and_then(|f| f.monsters.get(&id)))
                .ok_or(ActionError::NotPresent)?;
            let kind = m.kind(c);
            let missile = kind.fires.ok_or(ActionError::NoRangedWeapon)?;
            let what = kind.name.clone();
            let (key, item) = (None, None);
            return Ok(Shot {
                missile,
                what,
                key,
                item,
            });
        };
        match action {
            Action::Throw { item, .. } => {
                let it = p.carried(item).ok_or(ActionError::NotCarried)?;
                let kind = it.kind(c);
                let missile = (kind.thrown)
                    .ok_or_else(|| ActionError::NotThrowable(kind.name.to_string()))?;
                Ok(Shot {
                    missile,
                    what: kind.name.clone(),
                    key: Some(kind.key.clone()),
                    item: Some(item),
                })
            }
            _ => {
                let weapon = p
                    .worn_in(Slot::Weapon, c)
                    .ok_or(ActionError::NoRangedWeapon)?;
                let kind = weapon.kind(c);
                let missile = kind.fires.ok_or(ActionError::NoRangedWeapon)?;
                let (key, item) = (None, None);
                Ok(Shot {
                    missile,
                    what: kind.name.clone(),
                    key,
                    item,
                })
            }
        }
    }

    /// `id` throws or shoots as `action` says, from where it stands: the missile flies, then
    /// strikes what it hit, or bursts where it stopped.
    pub(super) fn shoot(&mut self, depth: u8, id: EntityId, action: Action, out: &mut Vec<Event>) {
        let at = match action {
            Action::Throw { at, .. } | Action::Fire { at } => at,
            _ => return,
        };
        // A player's aim is checked again: the pack or the view may have changed.
        if let Some(p) = self.players.get(&id) {
            let Some(floor) = self.floor(depth) else {
                return;
            };
            if let Err(why) = self.check_aim(p, floor, action) {
                self.emit(Event::Refused { id, why }, out);
                return;
            }
        }
        let Ok(shot) = self.shot_of(id, action) else {
            return;
        };
        let Some(from) = self.position(depth, id) else {
            return;
        };
        let (to, struck) = self.flight(depth, id, from, at);
        self.emit(
            Event::Flew {
                depth,
                id,
                from,
                to,
                what: shot.what.clone(),
                key: shot.key.clone(),
                item: shot.item.map(|i| (i, shot.missile.lands)),
            },
            out,
        );
        if shot.missile.blast > 0 {
            self.blast(depth, id, to, &shot, out);
        } else if let Some(target) = struck {
            self.hit_with(depth, id, target, &shot, out);
        }
    }

    /// Where a missile from `from` aimed at `at` stops, and the creature it hit there if any:
    /// it flies the [`line`] and stops before a wall or shut door, on the first creature, or on
    /// the cell aimed at.
    fn flight(&self, depth: u8, by: EntityId, from: Pos, at: Pos) -> (Pos, Option<EntityId>) {
        let Some(floor) = self.floor(depth) else {
            return (from, None);
        };
        let mut stop = from;
        for p in line(from, at).into_iter().skip(1) {
            if floor.tile(p).blocks_sight() || !floor.tile(p).is_walkable() {
                break;
            }
            let creature = (self.living_on(depth).find(|o| o.pos == p).map(|o| o.id))
                .or_else(|| floor.monster_at(p).map(|m| m.id))
                .filter(|c| *c != by);
            stop = p;
            if creature.is_some() {
                return (p, creature);
            }
        }
        (stop, None)
    }

    /// A missile without a blast strikes `target`: a roll to hit against its defence, as a
    /// blow, and the missile's damage. It does not hurt its own side (a monster's shot another
    /// monster, a player's dart a friend).
    fn hit_with(
        &mut self,
        depth: u8,
        by: EntityId,
        target: EntityId,
        shot: &Shot,
        out: &mut Vec<Event>,
    ) {
        let (Some(a), Some(t)) = (self.fighter(depth, by), self.fighter(depth, target)) else {
            return;
        };
        // A shot strikes only the other side: a friend in the way, or a mouse in a mouse's
        // way, just stops it.
        if a.actor.player == t.actor.player {
            return;
        }
        let chance = hit_chance(&self.content.combat, t.stats.defence);
        let [low, high] = shot.missile.damage;
        let rng = &mut self.floor_mut(depth).rng;
        let damage = (rng.random_range(0..100) < chance).then(|| rng.random_range(low..=high));
        self.struck(depth, a, t, damage, shot, out);
    }

    /// A blast at `at`: every creature it reaches (a field of view of its radius from `at`:
    /// walls and shut doors shelter) takes the missile's damage, with no roll to hit, and its
    /// daze.
    fn blast(&mut self, depth: u8, by: EntityId, at: Pos, shot: &Shot, out: &mut Vec<Event>) {
        let Some(floor) = self.floor(depth) else {
            return;
        };
        let (w, h) = (floor.map.width(), floor.map.height());
        let radius = shot.missile.blast;
        let mut reached = Sight::default();
        fov::compute(&floor.opaque, w, h, at.x, at.y, radius, &mut reached);
        let inside = |p: Pos| floor.map.index(p).is_some_and(|i| reached.contains(i));
        let mut victims: Vec<EntityId> = (self.living_on(depth))
            .filter(|p| inside(p.pos))
            .map(|p| p.id)
            .chain(
                floor
                    .monsters
                    .values()
                    .filter(|m| inside(m.pos))
                    .map(|m| m.id),
            )
            .collect();
        victims.sort_unstable();
        let what = shot.what.clone();
        self.emit(
            Event::Exploded {
                depth,
                at,
                radius,
                what,
            },
            out,
        );
        let [low, high] = shot.missile.damage;
        for victim in victims {
            let (Some(a), Some(t)) = (self.fighter(depth, by), self.fighter(depth, victim)) else {
                continue;
            };
            if high > 0 {
                let damage = self.floor_mut(depth).rng.random_range(low..=high);
                self.struck(depth, a, t, Some(damage), shot, out);
            }
            self.daze(depth, victim, shot.missile.daze, out);
        }
    }

    /// The end of a missile's flight on `t`, struck by `a`'s `shot` for `damage` (`None`: a
    /// miss): the attack, and a death if it killed.
    fn struck(
        &mut self,
        depth: u8,
        a: Fighter,
        t: Fighter,
        damage: Option<i32>,
        shot: &Shot,
        out: &mut Vec<Event>,
    ) {
        self.emit(
            Event::Attacked {
                attacker: a.actor.clone(),
                target: t.actor.clone(),
                damage,
                with: Some(shot.what.clone()),
            },
            out,
        );
        if damage.is_some() && self.hp(depth, t.actor.id) <= 0 {
            if a.actor.player && t.actor.player {
                // Caught in one's own blast, or a friend's: killed by what was thrown.
                let bomb = Fighter {
                    actor: Actor {
                        name: shot.what.clone(),
                        player: false,
                        ..a.actor.clone()
                    },
                    worth: 0,
                    boss: false,
                    ..a
                };
                self.kill(depth, t, bomb, out);
            } else {
                self.kill(depth, t, a, out);
            }
        }
    }

    /// A blast's daze on `id`, if it lives: a monster loses its next `turns` actions; a player
    /// is stunned (unless it is already).
    fn daze(&mut self, depth: u8, id: EntityId, turns: u32, out: &mut Vec<Event>) {
        if turns == 0 {
            return;
        }
        if let Some(p) = self.players.get(&id) {
            if p.alive && !p.has(Effect::Stun) {
                let effect = Effect::Stun;
                self.emit(Event::EffectStarted { id, effect }, out);
            }
        } else if self
            .floor(depth)
            .is_some_and(|f| f.monsters.contains_key(&id))
        {
            let turns = turns.min(u32::from(u8::MAX)) as u8;
            self.emit(Event::Dazed { depth, id, turns }, out);
        }
    }
}

#[cfg(test)]
mod tests;
