//! Friends helping friends: handing a thing to a friend next to you (`give`), using one on
//! them (`use_on`: a Health Pack heals, a vial cures poison, salts clear the head), and
//! bringing a fallen friend back (a Health Pack on its remains, for `party.revive_turns`
//! of the dungeon's turns after the fall, at a cost: a quarter of its HP, half the experience it
//! had gained towards its next level, and what it carried left where it fell).
//!
//! The window to bring someone back opens when a character falls while a friend lives (alone,
//! nobody could come: its game ends at once, as it always did), and closes when the dungeon's
//! clock (every floor's turns added up) passes it, or when its player starts anew.

use delve_protocol::Effect;

use super::*;
use crate::game::EntityId;
use crate::game::action::{Action, ActionError};
use crate::game::content::ItemUse;
use crate::game::event::Event;

impl Dungeon {
    /// The rules of `give` and `use_on` for `p`: the item is carried, the friend is another
    /// character of the party on `p`'s floor and next to it (a fallen friend's remains may lie
    /// under it), and the item does something for that friend.
    pub(super) fn check_friend(&self, p: &Player, action: Action) -> Result<(), ActionError> {
        let (item, other, give) = match action {
            Action::Give { item, to } => (item, to, true),
            Action::UseOn { item, on } => (item, on, false),
            _ => return Ok(()),
        };
        let it = p.carried(item).ok_or(ActionError::NotCarried)?;
        if other == p.id {
            return Err(ActionError::Yourself);
        }
        let f = (self.players.get(&other))
            .filter(|f| f.depth == p.depth && (f.present || !f.alive) && !f.victory)
            .ok_or(ActionError::NoSuchFriend)?;
        let name = f.name.to_string();
        if f.pos.chebyshev(p.pos) > 1 {
            return Err(ActionError::NotNextTo(name));
        }
        let c = &self.content;
        if give {
            return if !f.alive {
                Err(ActionError::FriendFallen(name))
            } else if !f.has_room_for(it, c) {
                Err(ActionError::FriendPackFull(name))
            } else {
                Ok(())
            };
        }
        let what = it.use_(c);
        if !f.alive {
            return if self.party.revivable_until(other).is_none() {
                Err(ActionError::TooLate(name))
            } else if what != ItemUse::Heal {
                Err(ActionError::HealsOnly(name))
            } else {
                Ok(())
            };
        }
        match what {
            ItemUse::Heal if f.hp >= f.stats(c).max_hp => Err(ActionError::FriendFullHealth(name)),
            ItemUse::CurePoison if !f.has(Effect::Poison) => {
                Err(ActionError::FriendNotPoisoned(name))
            }
            ItemUse::Clear if !f.has(Effect::Stun) && !f.has(Effect::Confusion) => {
                Err(ActionError::FriendClearHead(name))
            }
            ItemUse::Heal | ItemUse::CurePoison | ItemUse::Clear => Ok(()),
            ItemUse::Teleport
            | ItemUse::Reveal
            | ItemUse::Throw
            | ItemUse::Unlock
            | ItemUse::None => Err(ActionError::NotForFriend(it.kind(c).name.to_string())),
        }
    }

    /// Carries out `give` or `use_on` for `id`, checked again first: the friend may have moved
    /// away, fallen or been brought back by someone else since the choice was made.
    pub(super) fn help(&mut self, depth: u8, id: EntityId, action: Action, out: &mut Vec<Event>) {
        let Some(p) = self.players.get(&id) else {
            return;
        };
        if let Err(why) = self.check_friend(p, action) {
            self.emit(Event::Refused { id, why }, out);
            return;
        }
        let c = Arc::clone(&self.content);
        match action {
            Action::Give { item, to } => {
                let Some(name) = p.carried(item).map(|i| i.kind(&c).name.clone()) else {
                    return;
                };
                self.emit(Event::Gave { id, to, item, name }, out);
            }
            Action::UseOn { item, on } => {
                let (Some(it), Some(f)) = (p.carried(item), self.players.get(&on)) else {
                    return;
                };
                let what = it.kind(&c).name.clone();
                if !f.alive {
                    return self.revive(depth, id, on, item, out);
                }
                let max = f.stats(&c).max_hp;
                let (healed, cured) = match it.use_(&c) {
                    ItemUse::Heal => {
                        let amount = max * it.kind(&c).heal_percent / 100;
                        (amount.max(1).min(max - f.hp), Vec::new())
                    }
                    ItemUse::CurePoison => (0, vec![Effect::Poison]),
                    _ => {
                        let head = [Effect::Stun, Effect::Confusion];
                        (0, head.into_iter().filter(|e| f.has(*e)).collect())
                    }
                };
                self.emit(Event::UsedUp { id, item }, out);
                let (by, on) = (id, on);
                self.emit(
                    Event::Helped {
                        by,
                        on,
                        what,
                        healed,
                        cured,
                    },
                    out,
                );
            }
            _ => {}
        }
    }

    /// `by` brings fallen `on` back with healing item `item`: `on` stands up where it fell (or
    /// on the nearest free cell), with `party.revive_hp_percent` of its maximum HP and short of
    /// `party.revive_xp_loss_percent` of the experience it had gained in its level.
    fn revive(
        &mut self,
        depth: u8,
        by: EntityId,
        on: EntityId,
        item: EntityId,
        out: &mut Vec<Event>,
    ) {
        let c = Arc::clone(&self.content);
        let (Some(f), Some(what)) = (
            self.players.get(&on),
            (self.players.get(&by))
                .and_then(|p| p.carried(item))
                .map(|i| i.kind(&c).name.clone()),
        ) else {
            return;
        };
        let max = f.stats(&c).max_hp;
        let hp = (max * c.party.revive_hp_percent as i32 / 100).max(1);
        let (start, _) = f.xp_band(&c);
        let gained = f.xp.saturating_sub(start);
        let loss = u64::from(gained) * u64::from(c.party.revive_xp_loss_percent) / 100;
        let xp = f.xp - loss as u32;
        let (at, name) = (f.pos, f.name.to_string());
        let Some(pos) = self.free_cell_or(depth, at) else {
            let why = ActionError::NotNextTo(name);
            self.emit(Event::Refused { id: by, why }, out);
            return;
        };
        self.emit(Event::UsedUp { id: by, item }, out);
        self.emit(
            Event::Revived {
                id: on,
                by,
                what,
                pos,
                hp,
                xp,
            },
            out,
        );
    }

    /// Character `id` just fell: if a friend lives to come for it, it can be brought back for
    /// `party.revive_turns` of the dungeon's turns (see [`Dungeon::clock`]) after this one.
    pub(super) fn open_revival(&mut self, id: EntityId, out: &mut Vec<Event>) {
        let turns = self.content.party.revive_turns;
        let friend =
            (self.players.values()).any(|p| p.id != id && p.alive && !p.victory && p.in_party());
        if turns == 0 || !friend {
            return;
        }
        let until = self.clock() + 1 + u64::from(turns);
        self.emit(Event::Revivable { id, until }, out);
    }

    /// The dungeon's turns: every turn any floor has played, added up. The time to bring a
    /// fallen friend back runs on it, so it runs while any friend plays, wherever they are
    /// (its own floor may stand still with nobody on it while a friend comes down the stairs).
    pub fn clock(&self) -> u64 {
        self.floors.iter().flatten().map(|f| f.turn).sum()
    }

    /// How many more of the dungeon's turns fallen `id` can be brought back in, if it can.
    pub fn revive_turns_left(&self, id: EntityId) -> Option<u32> {
        let until = self.party.revivable_until(id)?;
        Some(until.saturating_sub(self.clock()).min(u64::from(u32::MAX)) as u32)
    }

    /// After a floor's turn ended: whoever fell (on any floor) and was not brought back in time
    /// is beyond help.
    pub(super) fn too_late(&mut self, out: &mut Vec<Event>) {
        let now = self.clock();
        let late: Vec<EntityId> = (self.party.fallen.iter())
            .filter(|(_, until)| **until <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in late {
            self.emit(Event::BeyondHelp { id }, out);
        }
    }
}

#[cfg(test)]
mod tests;
