//! Resting: a wait that goes on by itself. A `rest` is chosen once; after each turn it rested
//! in, the character's rest is chosen for it again (an [`Event::Chose`] after the turn's end),
//! so its floor never waits for it, until something ends the rest and it is told why
//! ([`Event::RestEnded`]). Every turn of rest is an ordinary choice in the floor's turn, so the
//! journal holds it and a replay rests exactly as the live game did.

use std::collections::BTreeSet;

use super::*;
use crate::game::EntityId;
use crate::game::action::Action;
use crate::game::event::{Event, RestEnd};

impl Dungeon {
    /// After a turn's end, each character that rested in it rests on (its rest is chosen for
    /// it again, so the floor never waits for it), unless something ends the rest: HP and
    /// effects back, a monster in view, a friend come into view, an attack. Those are told why.
    pub(super) fn rest_on(
        &mut self,
        depth: u8,
        resting: Vec<(EntityId, BTreeSet<EntityId>)>,
        out: &mut Vec<Event>,
    ) {
        for (id, friends_before) in resting {
            let Some(p) = self.players.get(&id) else {
                continue;
            };
            if !(p.active() && p.connected && p.depth == depth) {
                continue;
            }
            let attacked = (out.iter())
                .any(|e| matches!(e, Event::Attacked { target, .. } if target.id == id));
            let why = if attacked {
                Some(RestEnd::Attacked)
            } else if let Some(m) = self.monster_in_sight(p) {
                Some(RestEnd::Monster(m.kind(&self.content).name.clone()))
            } else if let Some(friend) = (self.friends_in_sight(id).into_iter())
                .find(|f| !friends_before.contains(f))
                .and_then(|f| self.players.get(&f))
            {
                Some(RestEnd::Friend(friend.name.clone()))
            } else if p.hp >= p.stats(&self.content).max_hp && p.effects.is_empty() {
                Some(RestEnd::Rested)
            } else {
                None
            };
            match why {
                Some(why) => self.emit(Event::RestEnded { id, why }, out),
                None => {
                    let action = Action::Rest;
                    self.emit(Event::Chose { id, depth, action }, out);
                }
            }
        }
    }

    /// The other living characters on `id`'s floor that it sees.
    pub(super) fn friends_in_sight(&self, id: EntityId) -> BTreeSet<EntityId> {
        let Some(p) = self.players.get(&id) else {
            return BTreeSet::new();
        };
        let Some(floor) = self.floor(p.depth) else {
            return BTreeSet::new();
        };
        (self.living_on(p.depth))
            .filter(|o| o.id != id && floor.map.index(o.pos).is_some_and(|i| p.sees(i)))
            .map(|o| o.id)
            .collect()
    }
}

#[cfg(test)]
mod tests;
