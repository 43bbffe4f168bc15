//! A floor grows with its party: when more characters stand on a floor than its monsters were
//! made for, they grow (`party.monster_hp_per_friend` percent more HP for each character beyond
//! the first, the hurt keeping their share of it), and from then on its kills are worth that
//! much more XP, its monsters' blows `party.monster_damage_per_friend` percent harder, and its
//! wanderers come `party.wanderers_per_friend` percent more often, more of them at once. A floor
//! never shrinks back when friends leave it: what they woke stays awake.

use super::*;
use crate::game::event::Event;
use crate::game::party::PartyRules;

impl Dungeon {
    /// After floor `depth`'s turn: if more characters live on it than its monsters are made
    /// for, they grow for them all.
    pub(super) fn grow(&mut self, depth: u8, out: &mut Vec<Event>) {
        let n = self.living_on(depth).count() as u32;
        if n > self.party.scale(depth) {
            self.emit(Event::Grown { depth, n }, out);
        }
    }

    /// `base` (HP, damage, XP) of floor `depth`'s monsters grown by `per_friend` percent for
    /// each character beyond the first its monsters are made for.
    pub(super) fn grown(&self, depth: u8, base: i32, per_friend: u32) -> i32 {
        let n = self.party.scale(depth);
        PartyRules::grown(i64::from(base), per_friend, n).min(i64::from(i32::MAX)) as i32
    }

    /// Applies [`Event::Grown`]: every monster of floor `depth` gets the HP of a floor made for
    /// `n`, the hurt keeping their share of it.
    pub(super) fn apply_grown(&mut self, depth: u8, n: u32) {
        let per = self.content.party.monster_hp_per_friend;
        let old = self.party.scale(depth);
        let (from, to) = (
            PartyRules::grown(100, per, old),
            PartyRules::grown(100, per, n),
        );
        let scale = |v: i32| (i64::from(v) * to / from.max(1)).clamp(1, i64::from(i32::MAX)) as i32;
        for m in self.floor_mut(depth).monsters.values_mut() {
            m.rolled_hp = scale(m.rolled_hp);
            m.hp = scale(m.hp);
        }
        self.party.scale.insert(depth, n);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use delve_protocol::{MessageKind, Pos};

    use crate::game::action::Action;
    use crate::game::content::Content;
    use crate::game::event::Event;
    use crate::game::{Dungeon, EntityId};

    /// Every living character on floor 1 waits a turn: its events.
    fn all_wait(d: &mut Dungeon) -> Vec<Event> {
        let ids: Vec<EntityId> = d.living_on(1).map(|p| p.id).collect();
        for id in ids {
            let _ = d.submit(id, Action::Wait);
        }
        d.resolve_pending(1).events
    }

    #[test]
    fn a_floor_grows_with_the_friends_on_it_and_never_shrinks() {
        let mut d = Dungeon::new(5, Arc::new(Content::builtin()));
        let (ann, _) = d.join("Ann").unwrap();
        all_wait(&mut d);
        assert_eq!(d.party().scale(1), 1);
        let before: Vec<(EntityId, i32, i32)> = (d.floor(1).unwrap().monsters.values())
            .map(|m| (m.id, m.hp, m.stats(d.content()).max_hp))
            .collect();
        assert!(!before.is_empty());
        let (bob, _) = d.join("Bob").unwrap();
        let (carol, _) = d.join("Carol").unwrap();
        let events = all_wait(&mut d);
        assert!(
            events.contains(&Event::Grown { depth: 1, n: 3 }),
            "{events:?}"
        );
        assert_eq!(d.party().scale(1), 3);
        let per = d.content().party.monster_hp_per_friend as i32;
        for (id, _, max) in &before {
            let Some(m) = d.floor(1).unwrap().monsters.get(id) else {
                continue;
            };
            assert_eq!(m.stats(d.content()).max_hp, max * (100 + 2 * per) / 100);
        }
        let told = crate::view::events_for(&d, ann, 1, &events);
        let line = "There are 3 of you on this floor now: its mice grow stronger.";
        assert!(
            told.iter().any(|e| matches!(e, delve_protocol::Event::Message { kind: MessageKind::Warning, text } if text == line)),
            "{told:?}"
        );
        // Bob leaves the floor (lifted out): the floor stays as it grew.
        d.step(&crate::game::Input::Connected {
            id: bob,
            connected: false,
        })
        .unwrap();
        d.step(&crate::game::Input::Lift { id: bob }).unwrap();
        let events = all_wait(&mut d);
        assert!(!events.iter().any(|e| matches!(e, Event::Grown { .. })));
        assert_eq!(d.party().scale(1), 3);
        let _ = (carol, Pos::new(0, 0));
        d.check_invariants().unwrap();
    }
}
