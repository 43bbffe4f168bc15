//! Room for newcomers: a public dungeon must stay open to new players for as long as the server
//! runs, however many passers-by made a character and left.
//!
//! A dungeon keeps at most `max_characters_per_dungeon` characters (online or not, the dead
//! included). When a new character needs a place and there is none, one is made, in this order:
//!
//! 1. a finished character (dead, or a winner) whose player has left is forgotten, the one that
//!    finished first (the engine's `EvictDead`);
//! 2. a living character whose player has been away longer than `retire_after` (30 days by
//!    default) is retired, the one away longest;
//! 3. if one address holds more than `characters_per_address` characters (4 by default), the
//!    character of the address holding the most whose player has been away longest is retired:
//!    six passers-by from one address cannot keep out someone from another.
//!
//! A character whose player is connected is never retired. A retired character is forgotten:
//! its resume token takes nothing back (`bad_token`) and its name is free. Where each character
//! was made from (its address, an IPv6 /64 as one) and when its player was last here are kept
//! beside its token hash, so the rules hold across restarts.

use std::collections::HashMap;
use std::net::IpAddr;

use tracing::info;

use super::outbox::Everyone;
use super::{DungeonTask, Kept};
use crate::game::{EntityId, Input};
use crate::net::limits::subject;
use crate::net::ops::Cut;
use crate::store;

/// Where a character was made from and when its player was last here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Whereabouts {
    /// The address ([`subject`]) the character was made from; unknown for characters kept by
    /// servers older than this rule.
    pub origin: Option<IpAddr>,
    /// Unix seconds.
    pub seen: i64,
}

/// The whereabouts of a loaded dungeon's characters; one never seen counts as seen now (it
/// cannot be retired for its absence before it has been away for the whole time).
pub(super) fn whereabouts(kept: &HashMap<EntityId, Kept>) -> HashMap<EntityId, Whereabouts> {
    let now = store::now();
    kept.iter()
        .map(|(id, k)| {
            let w = Whereabouts {
                origin: k.origin,
                seen: k.seen.unwrap_or(now),
            };
            (*id, w)
        })
        .collect()
}

/// Why a character is retired, for the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    LongAway,
    AddressOverShare,
}

impl DungeonTask {
    /// Notes that `id`'s player is here now (joined, came back, or just left), in memory and in
    /// the database.
    pub(super) fn seen(&mut self, id: EntityId) {
        let now = store::now();
        self.whereabouts
            .entry(id)
            .and_modify(|w| w.seen = now)
            .or_insert(Whereabouts {
                origin: None,
                seen: now,
            });
        if let Some(j) = self.dungeon.journal() {
            // Nobody waits for it: it only decides who gives way, months later.
            drop(j.store.touch_character(j.dungeon, id));
        }
    }

    /// Records a new character `id`, made from `from`.
    pub(super) fn made_from(&mut self, id: EntityId, from: IpAddr) {
        let w = Whereabouts {
            origin: Some(subject(from)),
            seen: store::now(),
        };
        self.whereabouts.insert(id, w);
    }

    /// Makes room for one more character if the dungeon is full (see the module's docs).
    /// Whether there is room now.
    pub(super) async fn make_room(&mut self) -> bool {
        let max = self.config.max_characters_per_dungeon;
        while self.dungeon.character_count() >= max
            && self
                .dungeon
                .step(Input::EvictDead, &mut Everyone(&self.sessions))
                .await
                .is_ok()
        {}
        // The characters the engine forgot (the dead, the never played) are forgotten here too.
        let dungeon = &self.dungeon;
        self.whereabouts
            .retain(|id, _| dungeon.player(*id).is_some());
        // Those the engine would not retire (a choice waiting for its turn) are passed over.
        let mut passed = Vec::new();
        while self.dungeon.character_count() >= max {
            let Some((id, why)) = self.next_to_retire(&passed) else {
                return false;
            };
            if !self.retire(id, why).await {
                passed.push(id);
            }
        }
        true
    }

    /// The character to retire next, if any may be: away the longest among those away longer
    /// than `retire_after`, else the one away longest of the address holding the most
    /// characters, if that is more than its share.
    fn next_to_retire(&self, passed: &[EntityId]) -> Option<(EntityId, Why)> {
        let now = store::now();
        let away: Vec<(EntityId, Whereabouts)> = self
            .dungeon
            .players()
            .filter(|p| p.alive() && !p.victory() && !p.connected())
            .filter(|p| self.conn_of(p.id()).is_none() && !passed.contains(&p.id()))
            .filter_map(|p| Some((p.id(), *self.whereabouts.get(&p.id())?)))
            .collect();
        let limit = i64::try_from(self.config.retire_after.as_secs()).unwrap_or(i64::MAX);
        let longest = away
            .iter()
            .filter(|(_, w)| now.saturating_sub(w.seen) >= limit)
            .min_by_key(|(id, w)| (w.seen, *id));
        if let Some((id, _)) = longest {
            return Some((*id, Why::LongAway));
        }
        // Every character an address holds counts towards its share, those playing now too;
        // only those away can give way.
        let mut held: HashMap<IpAddr, usize> = HashMap::new();
        for p in self.dungeon.players().filter(|p| p.in_party()) {
            if let Some(ip) = self.whereabouts.get(&p.id()).and_then(|w| w.origin) {
                *held.entry(ip).or_insert(0) += 1;
            }
        }
        let share = self.config.characters_per_address;
        let mut over: Vec<(IpAddr, usize)> = held.into_iter().filter(|(_, n)| *n > share).collect();
        // The address holding the most first; of equals, the lower address, so the choice is
        // the same every time.
        over.sort_by_key(|(ip, n)| (std::cmp::Reverse(*n), *ip));
        over.iter().find_map(|(ip, _)| {
            away.iter()
                .filter(|(_, w)| w.origin == Some(*ip))
                .min_by_key(|(id, w)| (w.seen, *id))
                .map(|(id, _)| (*id, Why::AddressOverShare))
        })
    }

    /// Retires `id`: forgotten by the engine, its token and its row gone. Whether it was.
    async fn retire(&mut self, id: EntityId, why: Why) -> bool {
        let depth = self.depth_of(id);
        let Ok(done) = self
            .dungeon
            .step(Input::Forget { id }, &mut Everyone(&self.sessions))
            .await
        else {
            return false;
        };
        let w = self.whereabouts.remove(&id);
        self.lifts.remove(&id);
        self.unplayed.remove(&id);
        self.roster.forget(id);
        self.forget_character(id);
        let away_days = w.map_or(0, |w| store::now().saturating_sub(w.seen) / 86_400);
        self.ops.cut(Cut::Retired, w.and_then(|w| w.origin));
        info!(dungeon = %self.name, player = id, ?why, away_days, "character retired to make room for a newcomer");
        self.send_views(depth, depth, &done.events, false);
        self.check_floor(depth).await;
        true
    }
}
