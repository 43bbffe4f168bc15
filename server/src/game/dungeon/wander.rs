//! Wanderers: monsters that arrive on a floor as its turns go by, so a cleared floor is not
//! dead and resting is not free. Every `spawn.wander_every` turns of the floor's clock one of
//! the floor's kinds, at the floor's level, arrives where no player sees it, at least
//! `spawn.wander_distance` tiles from each, and makes for the nearest player; as long as the
//! floor holds fewer monsters than it was made with, and never on the boss's floor. The dice
//! are the floor's, so a replay brings the same wanderers.

use rand::RngExt;

use super::*;
use crate::game::event::Event;
use crate::game::monster::{Ai, floor_kinds, make, monster_id, pick_kind};

/// Wanderers take ids from this block of their floor's monster ids (one a turn at most).
const WANDERER_IDS: u32 = 200_000;
/// How many ids that block holds before it wraps round (a taken one is skipped).
const WANDERER_ID_SPAN: u32 = 200_000;

impl Dungeon {
    /// A wanderer arrives on floor `depth` at the end of this turn's monster phase, if it is
    /// time.
    pub(super) fn wanderer(&mut self, depth: u8, out: &mut Vec<Event>) {
        let c = Arc::clone(&self.content);
        let (every, apart) = (c.spawn.wander_every, c.spawn.wander_distance as i32);
        let Some(floor) = self.floor(depth) else {
            return;
        };
        // The turn being resolved: the floor's clock moves on at its end.
        let turn = floor.turn + 1;
        // A floor grown for a party has its wanderers come that much more often, more of them.
        let per = c.party.wanderers_per_friend;
        let every =
            u32::try_from(i64::from(every) * 100 / self.grown(depth, 100, per).max(1) as i64)
                .unwrap_or(1)
                .max(1);
        if c.spawn.wander_every == 0 || turn % u64::from(every) != 0 {
            return;
        }
        let (kinds, count) = floor_kinds(&c, depth);
        let count = self.grown(depth, count as i32, per).max(0) as u32;
        let boss = kinds.iter().any(|&k| c.monsters[k].boss);
        if boss || kinds.is_empty() || floor.monsters.len() >= count as usize {
            return;
        }
        let players: Vec<&Player> = self.living_on(depth).collect();
        let Some(first) = players.first() else {
            return;
        };
        let unseen = |p: Pos| {
            let i = floor.map.index(p);
            players
                .iter()
                .all(|pl| pl.pos.chebyshev(p) >= apart && !i.is_some_and(|i| pl.sees(i)))
        };
        // Where the monsters stand, gathered once: asking the floor for each of its open cells
        // walked every monster every time.
        let mut taken: Vec<Pos> = floor.monsters.values().map(|m| m.pos).collect();
        taken.sort_unstable();
        let cells: Vec<Pos> = (floor.open_cells.iter().copied())
            .filter(|p| floor.tile(*p) == delve_protocol::Tile::Floor)
            .filter(|p| unseen(*p) && taken.binary_search(p).is_err())
            .collect();
        if cells.is_empty() {
            return;
        }
        let mut id = monster_id(
            depth,
            WANDERER_IDS + (turn % u64::from(WANDERER_ID_SPAN)) as u32,
        );
        while floor.monsters.contains_key(&id) {
            id += 1;
        }
        let mut target = first.pos;
        let rng = &mut self.floor_mut(depth).rng;
        let at = cells[rng.random_range(0..cells.len())];
        let kind = pick_kind(&c, &kinds, rng);
        let mut monster = make(&c, kind, id, at, u32::from(depth), rng);
        let more_hp = c.party.monster_hp_per_friend;
        monster.rolled_hp = self.grown(depth, monster.rolled_hp, more_hp);
        monster.hp = self.grown(depth, monster.hp, more_hp);
        // It makes for the nearest player.
        let players: Vec<Pos> = self.living_on(depth).map(|p| p.pos).collect();
        if let Some(p) = players.iter().min_by_key(|p| p.dist2(at)) {
            target = *p;
        }
        monster.ai = Ai::Hunt {
            target,
            route: Vec::new(),
            stuck: 0,
        };
        let monster = Box::new(monster);
        self.emit(Event::Spawned { depth, monster }, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::action::Action;

    #[test]
    fn a_wanderer_arrives_out_of_sight_on_the_floors_clock_and_makes_for_you() {
        let mut c = Content::builtin();
        c.spawn.wander_every = 10;
        c.spawn.wander_distance = 12;
        let mut d = Dungeon::new(3, Arc::new(c));
        let (ann, _) = d.join("Ann").unwrap();
        // A cleared floor: every monster gone.
        d.floor_mut(1).monsters.clear();
        let mut arrivals = Vec::new();
        for turn in 1..=30u64 {
            d.submit(ann, Action::Wait).unwrap();
            let events = d.resolve_pending(1).events;
            for e in events {
                if let Event::Spawned { monster, .. } = e {
                    arrivals.push((turn, monster.pos, monster.id, monster.ai.clone()));
                }
            }
        }
        let turns: Vec<u64> = arrivals.iter().map(|a| a.0).collect();
        assert_eq!(turns, [10, 20, 30], "one every 10 turns of the floor");
        let me = d.player(ann).unwrap().pos;
        for (_, at, _, ai) in &arrivals {
            assert!(at.chebyshev(me) >= 12, "{at:?} too near {me:?}");
            assert!(matches!(ai, Ai::Hunt { target, .. } if *target == me));
        }
        let mut ids: Vec<EntityId> = arrivals.iter().map(|a| a.2).collect();
        ids.dedup();
        assert_eq!(ids.len(), 3, "each has an id of its own");
    }

    #[test]
    fn no_wanderer_while_the_floor_holds_its_count_nor_on_the_boss_floor() {
        let mut c = Content::builtin();
        c.spawn.wander_every = 1;
        let c = Arc::new(c);
        let mut d = Dungeon::new(3, Arc::clone(&c));
        let (ann, _) = d.join("Ann").unwrap();
        let full = d.floor(1).unwrap().monsters.len();
        d.submit(ann, Action::Wait).unwrap();
        let events = d.resolve_pending(1).events;
        assert!(!events.iter().any(|e| matches!(e, Event::Spawned { .. })));
        assert!(d.floor(1).unwrap().monsters.len() <= full);
        // The boss's floor holds the boss alone, ever.
        let last = d.depth_count();
        let king = d.floor_mut(last).monsters.len();
        assert_eq!(king, 1);
        let mut out = Vec::new();
        d.place_for_test(ann, last, d.floor(last).unwrap().up);
        d.floor_mut(last).monsters.clear();
        d.wanderer(last, &mut out);
        assert!(out.is_empty());
    }
}
