//! `apply`: the only code that changes the world, one event at a time.

use std::sync::Arc;

use super::*;
use crate::game::EntityId;
use crate::game::event::Event;
use crate::game::fov;
use crate::game::monster::Ai;
use crate::game::player::{Death, Player};
use crate::game::stats::Stat;
use delve_protocol::TileGrid;

impl Dungeon {
    /// Applies an event the caller has no further use for, moving what it carries instead of
    /// copying it (a monster's new plan holds its route).
    pub(super) fn apply_owned(&mut self, event: Event) {
        match event {
            Event::Planned { depth, id, plan } => {
                if let Some(m) = self.floor_mut(depth).monsters.get_mut(&id) {
                    m.ai = plan;
                }
            }
            other => self.apply(&other),
        }
    }

    /// The only place the world changes.
    pub(super) fn apply(&mut self, event: &Event) {
        let content = Arc::clone(&self.content);
        match event {
            Event::Moved { id, to, .. } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.pos = *to;
                    self.update_sight(*id);
                } else if let Some(m) = self.monster_mut(*id) {
                    m.pos = *to;
                }
            }
            Event::Created { id, name, pos } => {
                let player = Player::new(*id, name.clone(), 1, *pos, &content);
                self.players.insert(*id, player);
                self.next_id = self.next_id.max(*id + 1);
            }
            Event::Forgotten { id } => {
                self.players.remove(id);
                self.party.forget(*id);
            }
            Event::Connected { id, connected } => {
                // A connection that comes or goes starts its player's attention afresh.
                self.party.away.remove(id);
                self.party.missed.remove(id);
                if let Some(p) = self.players.get_mut(id) {
                    p.connected = *connected;
                    // Nobody is there to rest: a rest needs its player to stop it.
                    let depth = p.depth;
                    if !*connected {
                        self.stop_resting(depth, *id);
                    }
                }
            }
            Event::Arrived { id, depth, pos } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.depth = *depth;
                    p.pos = *pos;
                    self.update_sight(*id);
                }
            }
            Event::Lifted { id, .. } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.present = false;
                    let depth = p.depth;
                    self.floor_mut(depth).pending.remove(id);
                }
            }
            Event::Returned { id, pos } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.present = true;
                    p.pos = *pos;
                    self.update_sight(*id);
                }
            }
            Event::ChangedFloor { id, to, pos, .. } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.depth = *to;
                    p.pos = *pos;
                    p.deepest = p.deepest.max(*to);
                    self.update_sight(*id);
                }
            }
            Event::Attacked {
                target,
                damage: Some(d),
                ..
            } => {
                if let Some(p) = self.players.get_mut(&target.id) {
                    p.hp -= d;
                } else if let Some(m) = self.monster_mut(target.id) {
                    m.hp -= d;
                }
            }
            Event::Flew {
                depth,
                id,
                to,
                item: Some((item, lands)),
                ..
            } => {
                let Some(p) = self.players.get_mut(id) else {
                    return;
                };
                let Some(k) = p.inventory.iter().position(|i| i.id == *item) else {
                    return;
                };
                let it = p.inventory.remove(k);
                if *lands {
                    self.floor_mut(*depth).items.insert(it.id, (*to, it));
                }
            }
            Event::Dazed { depth, id, turns } => {
                if let Some(m) = self.floor_mut(*depth).monsters.get_mut(id) {
                    m.ai = match std::mem::take(&mut m.ai) {
                        Ai::Dazed { turns: left, then } => Ai::Dazed {
                            turns: left.max(*turns),
                            then,
                        },
                        other => Ai::Dazed {
                            turns: *turns,
                            then: Box::new(other),
                        },
                    };
                }
            }
            Event::Teleported { id, to, .. } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.pos = *to;
                    self.update_sight(*id);
                }
            }
            Event::Revealed { id, depth } => self.reveal(*id, *depth),
            Event::Supplied { depth, pos, item } => {
                let it = (**item).clone();
                self.floor_mut(*depth).items.insert(it.id, (*pos, it));
            }
            Event::Spawned { depth, monster } => {
                let m = (**monster).clone();
                self.floor_mut(*depth).monsters.insert(m.id, m);
            }
            Event::Attacked { damage: None, .. }
            | Event::Flew { .. }
            | Event::Exploded { .. }
            | Event::Called { .. }
            | Event::LostTurn { .. }
            | Event::Blocked { .. }
            | Event::Stumbled { .. }
            | Event::Refused { .. }
            | Event::LeftBehind { .. } => {}
            Event::Chose { id, depth, action } => {
                let company = if *action == crate::game::Action::Rest {
                    Some(self.friends_in_sight(*id))
                } else {
                    None
                };
                let floor = self.floor_mut(*depth);
                floor.pending.insert(*id, *action);
                match company {
                    Some(friends) => floor.rest_company.insert(*id, friends),
                    None => floor.rest_company.remove(id),
                };
            }
            Event::RestEnded { id, .. } => {
                if let Some(depth) = self.players.get(id).map(|p| p.depth) {
                    self.stop_resting(depth, *id);
                }
            }
            Event::Planned { depth, id, plan } => {
                if let Some(m) = self.floor_mut(*depth).monsters.get_mut(id) {
                    m.ai = plan.clone();
                }
            }
            Event::Died { victim, killer } => {
                if let Some(k) = killer.as_ref().and_then(|k| self.players.get_mut(&k.id)) {
                    k.kills += 1;
                }
                if let Some(p) = self.players.get_mut(&victim.id) {
                    self.party.away.remove(&victim.id);
                    self.party.missed.remove(&victim.id);
                    p.alive = false;
                    p.hp = 0;
                    // The fatal turn counts as one lived through (TurnEnded only counts the living).
                    p.turns += 1;
                    // The ghost watches only the floor where it fell.
                    let here = p.depth;
                    p.memory.retain(|d| d == here);
                    p.death = Some(Death {
                        killer: killer
                            .as_ref()
                            .map(|k| k.name.to_string())
                            .unwrap_or_default(),
                        depth: p.depth,
                    });
                    p.effects.clear();
                    p.fresh_effects.clear();
                    let depth = p.depth;
                    self.floor_mut(depth).pending.remove(&victim.id);
                } else if let Some(depth) = monster_depth(victim.id) {
                    self.floor_mut(depth).monsters.remove(&victim.id);
                }
            }
            Event::GainedXp { id, amount } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.xp = p.xp.saturating_add(*amount);
                } else if let Some(m) = self.monster_mut(*id) {
                    m.xp = m.xp.saturating_add(*amount);
                }
            }
            Event::LeveledUp { id, level, stat } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.level = *level;
                    p.unspent += 1;
                    // Healed to full on every level-up (given).
                    p.hp = p.stats(&content).max_hp;
                } else if let Some(m) = self.monster_mut(*id) {
                    m.level = *level;
                    if let Some(s) = stat {
                        m.points.add(*s);
                    }
                    m.hp = m.stats(&content).max_hp;
                }
            }
            Event::SpentPoint { id, stat } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.points.add(*stat);
                    p.unspent = p.unspent.saturating_sub(1);
                    if *stat == Stat::MaxHp {
                        // More max HP comes filled.
                        p.hp += content.level_up.max_hp;
                    }
                    if *stat == Stat::Sight {
                        self.update_sight(*id);
                    }
                }
            }
            Event::Healed { id, amount, .. } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.hp = (p.hp + amount).min(p.stats(&content).max_hp);
                } else if let Some(m) = self.monster_mut(*id) {
                    m.hp = (m.hp + amount).min(m.stats(&content).max_hp);
                }
            }
            Event::DoorOpened {
                depth,
                pos,
                by,
                key,
            } => {
                self.floor_mut(*depth).open_door(*pos);
                if let Some(k) = key
                    && let Some(p) = self.players.get_mut(by)
                {
                    p.inventory.retain(|i| i.id != *k);
                }
                // Everyone on the floor may see further now.
                let here: Vec<EntityId> = self.players_on(*depth).map(|p| p.id).collect();
                for id in here {
                    self.update_sight(id);
                }
            }
            Event::PickedUp { id, item, .. } => {
                let Some(depth) = self.players.get(id).map(|p| p.depth) else {
                    return;
                };
                if let Some((_, mut it)) = self.floor_mut(depth).items.remove(item)
                    && let Some(p) = self.players.get_mut(id)
                {
                    it.found = true;
                    p.stow(it, &content);
                }
            }
            Event::Dropped { id, item, pos, .. } => {
                let Some(p) = self.players.get_mut(id) else {
                    return;
                };
                let Some(k) = p.inventory.iter().position(|i| i.id == *item) else {
                    return;
                };
                let mut it = p.inventory.remove(k);
                let was_worn = it.equipped;
                it.equipped = false;
                let depth = p.depth;
                self.floor_mut(depth).items.insert(it.id, (*pos, it));
                if was_worn {
                    self.after_gear_change(*id);
                }
            }
            Event::Equipped { id, item, .. } | Event::Unequipped { id, item, .. } => {
                let on = matches!(event, Event::Equipped { .. });
                if let Some(it) = self
                    .players
                    .get_mut(id)
                    .and_then(|p| p.inventory.iter_mut().find(|i| i.id == *item))
                {
                    it.equipped = on;
                }
                self.after_gear_change(*id);
            }
            Event::UsedUp { id, item } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.inventory.retain(|i| i.id != *item);
                }
            }
            Event::EffectStarted { id, effect } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.effects.insert(*effect);
                    p.fresh_effects.insert(*effect);
                } else if *effect == delve_protocol::Effect::Stun
                    && let Some(depth) = monster_depth(*id)
                    && self.monster_mut(*id).is_some()
                {
                    // A monster's stun lasts only until its next action, this turn's.
                    self.floor_mut(depth).stunned.insert(*id);
                }
            }
            Event::EffectEnded { id, effect, .. } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.effects.remove(effect);
                    p.fresh_effects.remove(effect);
                }
            }
            Event::PoisonHurt { id, amount } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.hp = (p.hp - amount).max(1);
                }
            }
            Event::Victory { winners, .. } => {
                for id in winners {
                    self.party.away.remove(id);
                    if let Some(p) = self.players.get_mut(id) {
                        p.victory = true;
                        // The winners leave the floor: they take no more turns, hold up no
                        // floor and draw no monster.
                        p.present = false;
                        p.effects.clear();
                        p.fresh_effects.clear();
                        let depth = p.depth;
                        self.floor_mut(depth).pending.remove(id);
                    }
                }
            }
            Event::Gave { id, to, item, .. } => {
                let Some(p) = self.players.get_mut(id) else {
                    return;
                };
                let Some(k) = p.inventory.iter().position(|i| i.id == *item) else {
                    return;
                };
                let mut it = p.inventory.remove(k);
                let was_worn = std::mem::take(&mut it.equipped);
                if was_worn {
                    self.after_gear_change(*id);
                }
                if let Some(f) = self.players.get_mut(to) {
                    f.stow(it, &content);
                }
            }
            Event::Helped {
                on, healed, cured, ..
            } => {
                if let Some(f) = self.players.get_mut(on) {
                    f.hp = (f.hp + healed).min(f.stats(&content).max_hp);
                    for e in cured {
                        f.effects.remove(e);
                        f.fresh_effects.remove(e);
                    }
                }
            }
            Event::Grown { depth, n } => self.apply_grown(*depth, *n),
            Event::Marked {
                id,
                depth,
                pos,
                until,
            } => {
                let mark = crate::game::party::Mark {
                    depth: *depth,
                    pos: *pos,
                    until: *until,
                };
                self.party.marks.insert(*id, mark);
            }
            Event::Unmarked { id } => {
                self.party.marks.remove(id);
            }
            Event::Revivable { id, until } => {
                self.party.fallen.insert(*id, *until);
            }
            Event::BeyondHelp { id } => {
                self.party.fallen.remove(id);
            }
            Event::Revived {
                id, pos, hp, xp, ..
            } => {
                self.party.fallen.remove(id);
                if let Some(p) = self.players.get_mut(id) {
                    p.alive = true;
                    p.present = true;
                    p.death = None;
                    p.hp = *hp;
                    p.xp = *xp;
                    p.pos = *pos;
                    self.update_sight(*id);
                }
            }
            Event::Away { id } => {
                self.party.away.insert(*id);
                self.party.missed.remove(id);
            }
            Event::Back { id } => {
                self.party.away.remove(id);
            }
            Event::TurnEnded {
                depth,
                players,
                missed,
            } => {
                for id in players {
                    if missed.contains(id) {
                        *self.party.missed.entry(*id).or_default() += 1;
                    } else {
                        self.party.missed.remove(id);
                    }
                }
                let floor = self.floor_mut(*depth);
                floor.turn += 1;
                // The choices made for this turn are spent, and so are the monsters' stuns.
                floor.pending.clear();
                floor.stunned.clear();
                // Everyone who took part, even if they left by the stairs during the turn.
                for id in players {
                    if let Some(p) = self.players.get_mut(id).filter(|p| p.alive) {
                        p.turns += 1;
                        // Effects struck this turn face their first saving throw next turn.
                        p.fresh_effects.clear();
                    }
                }
            }
        }
    }

    /// Drops `id`'s pending choice on floor `depth` if it is a rest.
    fn stop_resting(&mut self, depth: u8, id: EntityId) {
        let floor = self.floor_mut(depth);
        if floor.pending.get(&id) == Some(&crate::game::Action::Rest) {
            floor.pending.remove(&id);
        }
        floor.rest_company.remove(&id);
    }

    /// Character `id` learns the map of floor `depth` (a Floor Plan): every walkable cell and
    /// door, and the walls that bound them (not the rock behind).
    fn reveal(&mut self, id: EntityId, depth: u8) {
        let Some(floor) = self.floor(depth) else {
            return;
        };
        let map = floor.map.clone();
        let Some(p) = self.players.get_mut(&id) else {
            return;
        };
        let (w, h) = (map.width(), map.height());
        let memory = p.memory.get_or_insert_with(depth, || TileGrid::new(w, h));
        for i in 0..map.cells().len() {
            let t = map.cells()[i];
            let at = map.pos_of(i);
            let bounds =
                || (delve_protocol::Dir::ALL.iter()).any(|d| map.get(at.step(*d)).is_walkable());
            if t.is_walkable() || t.is_shut_door() || bounds() {
                memory.set_index(i, t);
            }
        }
    }

    /// After something was put on or taken off: HP stays within the new maximum, and the
    /// sight radius may have changed.
    pub(super) fn after_gear_change(&mut self, id: EntityId) {
        let content = Arc::clone(&self.content);
        if let Some(p) = self.players.get_mut(&id) {
            p.hp = p.hp.min(p.stats(&content).max_hp);
        }
        self.update_sight(id);
    }

    pub(super) fn monster_mut(
        &mut self,
        id: EntityId,
    ) -> Option<&mut crate::game::monster::Monster> {
        let depth = monster_depth(id)?;
        self.floors
            .get_mut(usize::from(depth) - 1)?
            .as_mut()?
            .monsters
            .get_mut(&id)
    }

    /// Recomputes what character `id` sees, and adds it to its memory of the floor.
    pub(super) fn update_sight(&mut self, id: EntityId) {
        let Some(p) = self.players.get(&id) else {
            return;
        };
        let (depth, sight) = (p.depth, p.stats(&self.content).sight);
        self.floor_mut(depth);
        // Borrow the fields apart: the floor is read while the player is written.
        let Some(Some(floor)) = self.floors.get(usize::from(depth).wrapping_sub(1)) else {
            return;
        };
        let Some(p) = self.players.get_mut(&id) else {
            return;
        };
        let (w, h) = (floor.map.width(), floor.map.height());
        fov::compute(&floor.opaque, w, h, p.pos.x, p.pos.y, sight, &mut p.fov);
        let memory = (p.memory).get_or_insert_with(depth, || delve_protocol::TileGrid::new(w, h));
        // What is seen is remembered as it is: a run of cells at a time, copied only where
        // the memory differs (most of what is seen was seen last turn too).
        let terrain = floor.map.cells();
        p.fov
            .for_each_run(|start, len| memory.copy_cells(start..start + len, terrain));
    }
}
