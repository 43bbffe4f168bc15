//! Who is in the dungeon: joining, starting again, connections, lifting out and coming back,
//! and forgetting finished characters.

use super::*;
use crate::game::EntityId;
use crate::game::event::Event;

impl Dungeon {
    /// Forgets the longest-finished character (dead, or victorious) whose player has gone, to
    /// make room; `false` if there is none.
    pub(in crate::game) fn evict_dead(&mut self) -> bool {
        // The fallen a friend can still bring back stay until it is too late.
        let Some(id) = (self.players.values())
            .find(|p| !p.in_party() && self.party.revivable_until(p.id).is_none())
            .map(|p| p.id)
        else {
            return false;
        };
        self.apply(&Event::Forgotten { id });
        true
    }

    /// Forgets `id`, a character its player made and left without playing (see
    /// [`Input::Forget`](crate::game::Input::Forget)). Nothing for a connected or finished
    /// character, or one with a choice waiting for its floor's turn.
    pub(in crate::game) fn forget_unplayed(&mut self, id: EntityId) -> Vec<Event> {
        let mut out = Vec::new();
        let Some(p) = self.players.get(&id) else {
            return out;
        };
        let pending = self
            .floors
            .get(usize::from(p.depth).wrapping_sub(1))
            .and_then(Option::as_ref)
            .is_some_and(|f| f.pending.contains_key(&id));
        if p.alive && !p.victory && !p.connected && !pending {
            self.emit(Event::Forgotten { id }, &mut out);
        }
        out
    }

    /// Whether `name` is in use by a character other than `except` (see [`Dungeon::holds_name`]).
    pub(super) fn name_in_use(&self, name: &str, except: Option<EntityId>) -> bool {
        let name = name.to_lowercase();
        self.players
            .values()
            .any(|p| Some(p.id) != except && self.holds_name(p) && p.name.to_lowercase() == name)
    }

    /// Whether character `p` keeps its name from anyone new: it belongs to the party (it plays,
    /// or its player is still here and may start again under that name), or it fell and a
    /// friend can still bring it back, its player here or not (two must never share a name when
    /// it stands up again).
    pub fn holds_name(&self, p: &Player) -> bool {
        p.in_party() || self.party.revivable_until(p.id).is_some()
    }

    /// Adds a new character called `name`, standing beside floor 1's up-stair.
    pub(in crate::game) fn join(
        &mut self,
        name: &str,
    ) -> Result<(EntityId, Vec<Event>), JoinError> {
        if self.name_in_use(name, None) {
            return Err(JoinError::NameTaken(name.to_owned()));
        }
        self.place_new(name)
    }

    pub(super) fn place_new(&mut self, name: &str) -> Result<(EntityId, Vec<Event>), JoinError> {
        let up = self.floor_mut(1).up;
        let pos = self.free_cell_near(1, up).ok_or(JoinError::NoRoom)?;
        let id = self.next_id;
        let mut out = Vec::new();
        let name = name.into();
        self.emit(Event::Created { id, name, pos }, &mut out);
        self.emit(Event::Arrived { id, depth: 1, pos }, &mut out);
        Ok((id, out))
    }

    /// A fresh character, with the same name, for the player whose character `old` died.
    pub(in crate::game) fn new_character(
        &mut self,
        old: EntityId,
    ) -> Result<(EntityId, Vec<Event>), JoinError> {
        let p = self.players.get(&old).ok_or(JoinError::Unknown)?;
        if p.alive && !p.victory {
            return Err(JoinError::StillAlive);
        }
        let name = p.name.clone();
        if self.name_in_use(&name, Some(old)) {
            return Err(JoinError::NameTaken(name.to_string()));
        }
        // The dead character's record has served its purpose: its player plays on as the new one
        // (and nobody can bring the old one back any more).
        let mut out = Vec::new();
        if self.party.revivable_until(old).is_some() {
            self.emit(Event::BeyondHelp { id: old }, &mut out);
        }
        self.emit(Event::Forgotten { id: old }, &mut out);
        let (id, events) = self.place_new(&name)?;
        out.extend(events);
        Ok((id, out))
    }

    /// Marks whether a connection drives `id`. A disconnected character never holds up its
    /// floor's turn. A choice it already made stands: it was accepted, and dropping it would
    /// also drop the turn's timer if it was the only one, leaving the others waiting.
    pub(in crate::game) fn set_connected(&mut self, id: EntityId, connected: bool) {
        if self.players.contains_key(&id) {
            self.apply(&Event::Connected { id, connected });
        }
    }

    /// Lifts `id` out of its floor: its player has been away longer than the grace period. It
    /// stops taking room and blows, and its pending choice is dropped. Nothing for the dead or
    /// the already lifted.
    pub(in crate::game) fn lift(&mut self, id: EntityId) -> Vec<Event> {
        let mut out = Vec::new();
        if let Some(p) = self.players.get(&id).filter(|p| p.alive && p.present) {
            let pos = p.pos;
            self.emit(Event::Lifted { id, pos }, &mut out);
        }
        out
    }

    /// Puts a lifted character back where it stood, or on the nearest free cell.
    pub(in crate::game) fn return_player(&mut self, id: EntityId) -> Vec<Event> {
        let mut out = Vec::new();
        let Some((depth, pos)) = self
            .players
            .get(&id)
            .filter(|p| !p.present && p.alive && !p.victory)
            .map(|p| (p.depth, p.pos))
        else {
            return out;
        };
        if let Some(pos) = self.free_cell_or(depth, pos) {
            self.emit(Event::Returned { id, pos }, &mut out);
        }
        out
    }
}
