//! A floor grows with its party: when more characters stand on a floor than its monsters were
//! made for, they grow (`party.monster_hp_per_friend` percent more HP for each character beyond
//! the first, the boss `party.boss_hp_per_friend`, the hurt keeping their share of it), and from
//! then on its kills are worth that much more XP, its monsters' blows
//! `party.monster_damage_per_friend` percent harder, and its wanderers come
//! `party.wanderers_per_friend` percent more often, more of them at once; and it holds one more
//! Health Pack for every `party.friends_per_health_pack` characters beyond the first, laid out
//! of sight (four share what a floor holds for one, and a revival costs one). A floor never
//! shrinks back when friends leave it: what they woke stays awake.

use std::collections::BTreeSet;

use rand::RngExt;

use super::*;
use crate::game::content::ItemUse;
use crate::game::event::Event;
use crate::game::item::{Item, item_id};
use crate::game::party::PartyRules;

/// Where the ids of the Health Packs laid for a party begin in their floor's block of item ids
/// (`item::item_id`): above those generation makes, below those tests make.
const SUPPLY_IDS: u32 = 300_000;

impl Dungeon {
    /// After floor `depth`'s turn: if more characters live on it than its monsters are made
    /// for, they grow for them all.
    pub(super) fn grow(&mut self, depth: u8, out: &mut Vec<Event>) {
        let n = self.living_on(depth).count() as u32;
        let old = self.party.scale(depth);
        if n > old {
            self.emit(Event::Grown { depth, n }, out);
            let rules = &self.content.party;
            for k in rules.health_packs(old)..rules.health_packs(n) {
                self.supply(depth, k, out);
            }
        }
    }

    /// Lays floor `depth`'s `k`-th Health Pack for its party on a floor cell no player sees,
    /// with nothing on it.
    fn supply(&mut self, depth: u8, k: u32, out: &mut Vec<Event>) {
        let c = Arc::clone(&self.content);
        let Some(kind) = c.items.iter().position(|i| i.use_ == ItemUse::Heal) else {
            return;
        };
        let Some(floor) = self.floor(depth) else {
            return;
        };
        let players: Vec<&Player> = self.living_on(depth).collect();
        let unseen = |p: Pos| {
            let i = floor.map.index(p);
            players.iter().all(|pl| !i.is_some_and(|i| pl.sees(i)))
        };
        let taken: BTreeSet<Pos> = floor.items.values().map(|(p, _)| *p).collect();
        let cells: Vec<Pos> = (floor.open_cells.iter().copied())
            .filter(|p| floor.tile(*p) == Tile::Floor && unseen(*p) && !taken.contains(p))
            .collect();
        if cells.is_empty() {
            return;
        }
        let id = item_id(depth, SUPPLY_IDS + k);
        let rng = &mut self.floor_mut(depth).rng;
        let pos = cells[rng.random_range(0..cells.len())];
        let item = Box::new(Item::make(&c, kind, id, depth, rng));
        self.emit(Event::Supplied { depth, pos, item }, out);
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
        let c = Arc::clone(&self.content);
        let old = self.party.scale(depth);
        for m in self.floor_mut(depth).monsters.values_mut() {
            let per = match c.monsters[m.kind].boss {
                true => c.party.boss_hp_per_friend,
                false => c.party.monster_hp_per_friend,
            };
            let (from, to) = (
                PartyRules::grown(100, per, old),
                PartyRules::grown(100, per, n),
            );
            let scale =
                |v: i32| (i64::from(v) * to / from.max(1)).clamp(1, i64::from(i32::MAX)) as i32;
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
    fn a_party_of_two_to_four_finds_one_more_health_pack_and_one_alone_none() {
        let rules = Content::builtin().party;
        let packs: Vec<u32> = (1..=8).map(|n| rules.health_packs(n)).collect();
        assert_eq!(packs, [0, 1, 1, 1, 2, 2, 2, 3]);
        // Alone, the floor never grows, so nothing is laid (a solo game is as it was).
        let mut d = Dungeon::new(5, Arc::new(Content::builtin()));
        d.join("Ann").unwrap();
        let items = d.floor(1).unwrap().items.len();
        for _ in 0..20 {
            let events = all_wait(&mut d);
            assert!(!events.iter().any(|e| matches!(e, Event::Supplied { .. })));
        }
        assert_eq!(d.floor(1).unwrap().items.len(), items);
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
        // The party finds one more Health Pack on the floor, where none of them sees it.
        let laid: Vec<(Pos, EntityId)> = (events.iter())
            .filter_map(|e| match e {
                Event::Supplied {
                    depth: 1,
                    pos,
                    item,
                } => Some((*pos, item.id)),
                _ => None,
            })
            .collect();
        assert_eq!(laid.len(), 1, "{events:?}");
        let (pos, item) = laid[0];
        let floor = d.floor(1).unwrap();
        let (at, it) = floor.items.get(&item).expect("the pack lies on the floor");
        assert_eq!(*at, pos);
        assert_eq!(it.use_(d.content()), crate::game::content::ItemUse::Heal);
        let i = floor.map.index(pos).unwrap();
        assert!(d.living_on(1).all(|p| !p.sees(i)), "laid out of sight");
        let line = "A Health Pack for the party lies somewhere on this floor.";
        assert!(
            told.iter().any(|e| matches!(e, delve_protocol::Event::Message { kind: MessageKind::Good, text } if text == line)),
            "{told:?}"
        );
        // A fourth friend grows the floor again, but 2 to 4 share one Health Pack.
        let (dan, _) = d.join("Dan").unwrap();
        let events = all_wait(&mut d);
        assert!(events.contains(&Event::Grown { depth: 1, n: 4 }));
        assert!(!events.iter().any(|e| matches!(e, Event::Supplied { .. })));
        let _ = dan;
        // Bob leaves the floor (lifted out): the floor stays as it grew.
        d.step(&crate::game::Input::Connected {
            id: bob,
            connected: false,
        })
        .unwrap();
        d.step(&crate::game::Input::Lift { id: bob }).unwrap();
        let events = all_wait(&mut d);
        assert!(!events.iter().any(|e| matches!(e, Event::Grown { .. })));
        assert_eq!(d.party().scale(1), 4);
        let _ = (carol, Pos::new(0, 0));
        d.check_invariants().unwrap();
    }
}
