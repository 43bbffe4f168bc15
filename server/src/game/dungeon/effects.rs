//! Status effects (stun, confusion, poison) and the end of the game in victory.
//!
//! A monster whose kind inflicts an effect has a given chance (1 in 10) on each damaging hit on a
//! player to strike it, unless the player already suffers it. From the end of the next turn on,
//! each effect is shaken off with a chance in percent equal to the sufferer's saving throw.

use std::sync::Arc;

use delve_protocol::{Dir, Effect, MessageKind};
use rand::RngExt;

use super::{Dungeon, msg};
use crate::game::EntityId;
use crate::game::action::Action;
use crate::game::content::Inflicts;
use crate::game::event::{Actor, Event};

/// The words for an effect: what the warning says when it strikes, and how it ends.
fn words(e: Effect) -> (&'static str, &'static str) {
    match e {
        Effect::Stun => ("You've been stunned!", "You are no longer stunned."),
        Effect::Poison => ("You've been poisoned!", "You are no longer poisoned."),
        Effect::Confusion => ("You've been confused!", "You are no longer confused."),
    }
}

impl Dungeon {
    /// After monster `attacker` hit player `target` for damage and left it alive.
    pub(super) fn maybe_inflict(
        &mut self,
        depth: u8,
        attacker: EntityId,
        target: EntityId,
        out: &mut Vec<Event>,
    ) {
        let content = Arc::clone(&self.content);
        let Some(m) = self.floor(depth).and_then(|f| f.monsters.get(&attacker)) else {
            return;
        };
        let effect = match m.kind(&content).inflicts {
            Inflicts::None => return,
            Inflicts::Stun => Effect::Stun,
            Inflicts::Poison => Effect::Poison,
            Inflicts::Confusion => Effect::Confusion,
        };
        if self
            .players
            .get(&target)
            .is_none_or(|p| !p.alive || p.has(effect))
        {
            return;
        }
        let [n, d] = content.effects.chance;
        if self.floor_mut(depth).rng.random_range(0..d) >= n {
            return;
        }
        self.emit(Event::EffectStarted { id: target, effect }, out);
        self.emit(msg(target, MessageKind::Warning, words(effect).0), out);
    }

    /// A confused character's move: a random direction, or nowhere (one chance in nine each).
    pub(super) fn stagger(&mut self, depth: u8, id: EntityId, out: &mut Vec<Event>) -> Action {
        let k = self.floor_mut(depth).rng.random_range(0..=Dir::ALL.len());
        match Dir::ALL.get(k) {
            Some(&dir) => Action::Move(dir),
            None => {
                self.emit(
                    msg(id, MessageKind::Warning, "You stumble about in confusion."),
                    out,
                );
                Action::Wait
            }
        }
    }

    /// The end of a turn for the effects of floor `depth`: poison bites, then every effect
    /// older than this turn faces a saving throw.
    pub(super) fn effects_end_turn(&mut self, depth: u8, out: &mut Vec<Event>) {
        let content = Arc::clone(&self.content);
        let sufferers: Vec<(EntityId, i32, i32)> = self
            .living_on(depth)
            .filter(|p| !p.effects.is_empty())
            .map(|p| (p.id, p.hp, p.stats(&content).save))
            .collect();
        for (id, hp, save) in sufferers {
            let Some(p) = self.players.get(&id) else {
                continue;
            };
            let (effects, fresh) = (p.effects.clone(), p.fresh_effects.clone());
            if effects.contains(&Effect::Poison) && hp > 1 {
                self.emit(Event::PoisonHurt { id, amount: 1 }, out);
            }
            for effect in effects {
                if fresh.contains(&effect) {
                    continue;
                }
                if self.floor_mut(depth).rng.random_range(0..100) < save {
                    self.emit(Event::EffectEnded { id, effect }, out);
                    self.emit(msg(id, MessageKind::Good, words(effect).1), out);
                }
            }
        }
    }

    /// The Mouse King fell: every living character in the dungeon wins.
    pub(super) fn win(&mut self, king: Actor, out: &mut Vec<Event>) {
        let winners: Vec<EntityId> = self
            .players
            .values()
            .filter(|p| p.alive && !p.victory)
            .map(|p| p.id)
            .collect();
        if winners.is_empty() {
            return;
        }
        let name = king.name.clone();
        self.emit(
            Event::Victory {
                king,
                winners: winners.clone(),
            },
            out,
        );
        for id in winners {
            self.emit(
                msg(
                    id,
                    MessageKind::Good,
                    format!("The {name} is dead! You have won the game!"),
                ),
                out,
            );
        }
    }
}
