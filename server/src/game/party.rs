//! What a party shares beyond each character: who is away, who can still be brought back, the
//! spots marked for friends, and how strong each floor's monsters are made for the party on it;
//! and the content file's `[party]` section, the numbers of those rules.
//!
//! The rules themselves are the dungeon's (`dungeon/away.rs`, `dungeon/friends.rs`,
//! `dungeon/marks.rs`, `dungeon/scale.rs`); this is their state. It is saved with the world
//! (save format 3 onwards), after everything format 2 saved, so a format-2 save still loads
//! (with nobody away, nobody to revive, no marks, and every floor made for one).

use std::collections::{BTreeMap, BTreeSet};

use delve_protocol::Pos;
use serde::{Deserialize, Serialize};

use super::EntityId;

/// The co-op state of a dungeon. Only `Dungeon::apply` changes it, through events.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Party {
    /// Characters whose players let their floor's timer run out `away_after` turns in a row:
    /// nobody waits for them, and they wait each turn until their player sends anything.
    pub(in crate::game) away: BTreeSet<EntityId>,
    /// For each connected character its floor waited for, the turns in a row it let the timer
    /// run out (absent: none).
    pub(in crate::game) missed: BTreeMap<EntityId, u32>,
    /// Fallen characters a friend can still bring back, each with the dungeon's turn
    /// (`Dungeon::clock`: every floor's turns added up) after which it is too late (its remains
    /// lie where it fell: `Player::pos`).
    pub(in crate::game) fallen: BTreeMap<EntityId, u64>,
    /// The spot each character marked for its floor's friends ("look here").
    pub(in crate::game) marks: BTreeMap<EntityId, Mark>,
    /// For each floor, how many characters its monsters are made strong for (1 when absent).
    pub(in crate::game) scale: BTreeMap<u8, u32>,
}

/// A marked spot: on floor `depth`, at `pos`, shown until that floor's turn `until`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub depth: u8,
    pub pos: Pos,
    pub until: u64,
}

impl Party {
    /// Whether `id`'s player is away.
    pub fn is_away(&self, id: EntityId) -> bool {
        self.away.contains(&id)
    }

    /// The dungeon's turn (`Dungeon::clock`) until which fallen `id` can still be brought back.
    pub fn revivable_until(&self, id: EntityId) -> Option<u64> {
        self.fallen.get(&id).copied()
    }

    /// Every marked spot, by the character that marked it.
    pub fn marks(&self) -> &BTreeMap<EntityId, Mark> {
        &self.marks
    }

    /// How many characters floor `depth`'s monsters are made strong for.
    pub fn scale(&self, depth: u8) -> u32 {
        self.scale.get(&depth).copied().unwrap_or(1)
    }

    /// Forgets what the party kept about character `id` (it is gone from the dungeon).
    pub(in crate::game) fn forget(&mut self, id: EntityId) {
        self.away.remove(&id);
        self.missed.remove(&id);
        self.fallen.remove(&id);
        self.marks.remove(&id);
    }
}

/// The `[party]` section of the content file: the numbers of playing together. Every field has
/// the built-in file's value by default, so a content file written before the section existed
/// plays as the built-in one does.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PartyRules {
    /// A connected player who lets its floor's turn timer run out this many turns in a row is
    /// away (0: never).
    pub away_after: u32,
    /// A fallen character can be brought back for this many of the dungeon's turns (every
    /// floor's turns counted; 0: never).
    pub revive_turns: u32,
    /// A character brought back has this share of its maximum HP, in percent (at least 1 HP).
    pub revive_hp_percent: u32,
    /// A character brought back loses this share, in percent, of the experience it had gained
    /// towards its next level.
    pub revive_xp_loss_percent: u32,
    /// A marked spot shows for this many turns of its floor.
    pub mark_turns: u32,
    /// Each character on a floor beyond the first gives its monsters this much more HP, in
    /// percent of their own.
    pub monster_hp_per_friend: u32,
    /// The same for the boss (the Mouse King), who is fought by the whole party.
    pub boss_hp_per_friend: u32,
    /// Each character on a floor beyond the first makes its monsters' blows this much harder, in
    /// percent (rounded down).
    pub monster_damage_per_friend: u32,
    /// Each character on a floor beyond the first brings wanderers this much more often, in
    /// percent, and lets the floor hold that many more monsters.
    pub wanderers_per_friend: u32,
    /// A floor grown for a party holds one more Health Pack for every this many characters
    /// (or part of it) beyond the first, laid out of sight as it grows (0: none).
    pub friends_per_health_pack: u32,
}

impl Default for PartyRules {
    fn default() -> PartyRules {
        PartyRules {
            away_after: 2,
            revive_turns: 60,
            revive_hp_percent: 25,
            revive_xp_loss_percent: 50,
            mark_turns: 10,
            monster_hp_per_friend: 15,
            boss_hp_per_friend: 250,
            monster_damage_per_friend: 0,
            wanderers_per_friend: 40,
            friends_per_health_pack: 3,
        }
    }
}

impl PartyRules {
    /// The Health Packs a floor made for `n` characters holds for the party (beyond what it
    /// holds for one).
    pub fn health_packs(&self, n: u32) -> u32 {
        match self.friends_per_health_pack {
            0 => 0,
            per => n.saturating_sub(1).div_ceil(per),
        }
    }

    /// `base` grown by `per_friend` percent for each of `n - 1` friends.
    pub fn grown(base: i64, per_friend: u32, n: u32) -> i64 {
        base * (100 + i64::from(per_friend) * i64::from(n.saturating_sub(1))) / 100
    }
}
