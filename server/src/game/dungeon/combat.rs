//! Attacks, kills and experience.

use std::sync::Arc;

use rand::RngExt;

use super::*;
use crate::game::EntityId;
use crate::game::event::{Actor, Event};
use crate::game::stats::{Stat, hit_chance, kill_xp, level_for_xp};

impl Dungeon {
    pub(super) fn fighter(&self, depth: u8, id: EntityId) -> Option<Fighter> {
        if let Some(p) = self.players.get(&id) {
            return Some(Fighter {
                actor: Actor {
                    id,
                    name: p.name.clone(),
                    pos: p.pos,
                    player: true,
                },
                stats: p.stats(&self.content),
                level: p.level,
                worth: self.content.xp.player_value_per_level * p.level,
                boss: false,
            });
        }
        let m = self.floor(depth)?.monsters.get(&id)?;
        let kind = m.kind(&self.content);
        Some(Fighter {
            actor: Actor {
                id,
                name: kind.name.clone(),
                pos: m.pos,
                player: false,
            },
            stats: m.stats(&self.content),
            level: m.level,
            worth: kind.xp,
            boss: kind.boss,
        })
    }

    pub(super) fn hp(&self, depth: u8, id: EntityId) -> i32 {
        match self.players.get(&id) {
            Some(p) => p.hp,
            None => self
                .floor(depth)
                .and_then(|f| f.monsters.get(&id))
                .map_or(0, |m| m.hp),
        }
    }

    /// One attack by the rule of the content file: defence lowers the chance to be hit; damage
    /// is a roll between the attacker's min and max attack.
    pub(super) fn attack(
        &mut self,
        depth: u8,
        attacker: EntityId,
        target: EntityId,
        out: &mut Vec<Event>,
    ) {
        let (Some(a), Some(t)) = (self.fighter(depth, attacker), self.fighter(depth, target))
        else {
            return;
        };
        let chance = hit_chance(&self.content.combat, t.stats.defence);
        // A monster's blows grow with the party its floor is made for.
        let harder = |d: i32, me: &Dungeon| match a.actor.player {
            true => d,
            false => me.grown(depth, d, me.content.party.monster_damage_per_friend),
        };
        let rng = &mut self.floor_mut(depth).rng;
        let damage = (rng.random_range(0..100) < chance)
            .then(|| rng.random_range(a.stats.attack_min..=a.stats.attack_max))
            .map(|d| harder(d, self));
        self.emit(
            Event::Attacked {
                attacker: a.actor.clone(),
                target: t.actor.clone(),
                damage,
                with: None,
            },
            out,
        );
        if damage.is_some() && self.hp(depth, target) <= 0 {
            self.kill(depth, t, a, out);
        } else if damage.is_some() && t.actor.player && !a.actor.player {
            self.maybe_inflict(depth, attacker, target, out);
        } else if damage.is_some() && a.actor.player {
            self.weapon_inflict(depth, attacker, target, out);
        }
    }

    pub(super) fn kill(
        &mut self,
        depth: u8,
        victim: Fighter,
        killer: Fighter,
        out: &mut Vec<Event>,
    ) {
        let (victim_actor, killer_actor) = (victim.actor.clone(), killer.actor.clone());
        self.emit(
            Event::Died {
                victim: victim_actor,
                killer: Some(killer_actor),
            },
            out,
        );
        if victim.actor.player {
            // What the fallen carried stays where they fell, for their friends.
            let pack: Vec<(EntityId, Arc<str>)> = self
                .players
                .get(&victim.actor.id)
                .map(|p| {
                    let named =
                        |i: &crate::game::item::Item| (i.id, i.kind(&self.content).name.clone());
                    p.inventory.iter().map(named).collect()
                })
                .unwrap_or_default();
            for (item, name) in pack {
                let (id, pos, fell) = (victim.actor.id, victim.actor.pos, true);
                self.emit(
                    Event::Dropped {
                        id,
                        item,
                        pos,
                        name,
                        fell,
                    },
                    out,
                );
            }
            self.open_revival(victim.actor.id, out);
        }
        let content = Arc::clone(&self.content);
        if !victim.actor.player && killer.actor.player {
            // Every living player on the floor who sees the monster's cell, the killer always
            // among them, gets its worth at the witness's own level: friends never cost you
            // experience.
            let cell = self
                .floor(depth)
                .and_then(|f| f.map.index(victim.actor.pos));
            let witnesses: Vec<(EntityId, u32)> = self
                .living_on(depth)
                .filter(|p| p.id == killer.actor.id || cell.is_some_and(|i| p.sees(i)))
                .map(|p| (p.id, p.level))
                .collect();
            for (id, level) in witnesses {
                let share = kill_xp(&content.xp, victim.worth, victim.level, level).max(1);
                self.gain_xp(depth, id, share, out);
            }
        } else if victim.actor.player && !killer.actor.player && killer.actor.id != victim.actor.id
        {
            // Monsters that kill players gain their worth and level up like players do.
            let amount = kill_xp(&content.xp, victim.worth, victim.level, killer.level);
            self.gain_xp(depth, killer.actor.id, amount, out);
        }
        if victim.boss {
            self.win(victim.actor, out);
        }
    }

    pub(super) fn gain_xp(&mut self, depth: u8, id: EntityId, amount: u32, out: &mut Vec<Event>) {
        self.emit(Event::GainedXp { id, amount }, out);
        let content = Arc::clone(&self.content);
        loop {
            let (xp, level, player) = match self.players.get(&id) {
                Some(p) => (p.xp, p.level, true),
                None => match self.floor(depth).and_then(|f| f.monsters.get(&id)) {
                    Some(m) => (m.xp, m.level, false),
                    None => return,
                },
            };
            if level_for_xp(&content, xp) <= level {
                return;
            }
            // A monster spends its point at once, on a stat chosen by the dice.
            let stat = (!player).then(|| {
                let rng = &mut self.floor_mut(depth).rng;
                Stat::ALL[rng.random_range(0..Stat::ALL.len())]
            });
            self.emit(
                Event::LeveledUp {
                    id,
                    level: level + 1,
                    stat,
                },
                out,
            );
        }
    }
}
