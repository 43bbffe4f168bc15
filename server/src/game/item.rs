//! Items: one thing a character can carry, of a kind from the content file, and the stats it
//! lends while worn. A microchip's bonus is rolled when the chip is made, so two chips differ.

use delve_protocol::{Bonus, Slot};
use rand::RngExt;

use super::EntityId;
use super::content::{Content, ItemKind, ItemUse};
use super::rng::GameRng;
use super::stats::Stats;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Item {
    pub id: EntityId,
    /// Index into `Content::items`.
    pub kind: usize,
    /// What it adds to its wearer's stats while equipped.
    #[serde(with = "bonus_as_tuple")]
    pub bonus: Bonus,
    /// Worn now (only ever true in a pack).
    pub equipped: bool,
    /// Somebody has picked it up before: the pick-up XP goes to its first finder only, so
    /// dropping and taking an item again earns nothing.
    pub found: bool,
}

impl Item {
    /// A new item of kind `kind`, made on floor `depth` (which sets a microchip's strength).
    pub fn make(c: &Content, kind: usize, id: EntityId, depth: u8, rng: &mut GameRng) -> Item {
        let k = &c.items[kind];
        let bonus = if k.chip {
            chip_bonus(c.placement.chip_tweaks_per_floor * u32::from(depth), rng)
        } else {
            k.bonus.to_bonus()
        };
        Item {
            id,
            kind,
            bonus,
            equipped: false,
            found: false,
        }
    }

    pub fn kind<'c>(&self, c: &'c Content) -> &'c ItemKind {
        &c.items[self.kind]
    }

    pub fn slot(&self, c: &Content) -> Option<Slot> {
        self.kind(c).slot
    }

    pub fn use_(&self, c: &Content) -> ItemUse {
        self.kind(c).use_
    }

    /// Whether this item shares a pack slot with `other`: items without a slot (what is used,
    /// not worn) stack with the others of their kind. Each keeps its own id.
    pub fn stacks_with(&self, other: &Item, c: &Content) -> bool {
        self.kind == other.kind && self.slot(c).is_none()
    }
}

/// The pack's items grouped into the slots they take, in pack order: a stack is its kind's
/// units (kept next to each other), anything worn is one slot on its own.
pub fn stacks<'a>(pack: &'a [Item], c: &Content) -> Vec<&'a [Item]> {
    let mut out: Vec<&[Item]> = Vec::new();
    let mut start = 0;
    for k in 1..=pack.len() {
        if k == pack.len() || !pack[k].stacks_with(&pack[start], c) {
            out.push(&pack[start..k]);
            start = k;
        }
    }
    out
}

/// Saves write a bonus as six plain numbers: the wire type leaves zero fields out, which a
/// compact format that does not name its fields cannot read back.
mod bonus_as_tuple {
    use delve_protocol::Bonus;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    type Six = (i32, i32, i32, i32, i32, i32);

    pub fn serialize<S: Serializer>(b: &Bonus, s: S) -> Result<S::Ok, S::Error> {
        (
            b.max_hp,
            b.attack_min,
            b.attack_max,
            b.defence,
            b.save,
            b.sight,
        )
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Bonus, D::Error> {
        let (max_hp, attack_min, attack_max, defence, save, sight) = Six::deserialize(d)?;
        Ok(Bonus {
            max_hp,
            attack_min,
            attack_max,
            defence,
            save,
            sight,
        })
    }
}

/// The id of the `k`-th item made on floor `depth`. Items share the floor's block of ids with
/// its monsters (see `monster::monster_id`), from the middle up, and keep their id wherever
/// they are carried.
pub fn item_id(depth: u8, k: u32) -> EntityId {
    1_000_000 * u32::from(depth) + 500_000 + k
}

/// `tweaks` random tweaks of +1 or -1, each to one of max HP, min attack, max attack, defence or
/// saving throw *(given)*.
pub fn chip_bonus(tweaks: u32, rng: &mut GameRng) -> Bonus {
    let mut b = Bonus::default();
    for _ in 0..tweaks {
        let d = if rng.random_bool(0.5) { 1 } else { -1 };
        match rng.random_range(0..5) {
            0 => b.max_hp += d,
            1 => b.attack_min += d,
            2 => b.attack_max += d,
            3 => b.defence += d,
            _ => b.save += d,
        }
    }
    b
}

/// Picks an item kind by the content's weights.
pub fn random_kind(c: &Content, rng: &mut GameRng) -> usize {
    weighted_kind(c, rng, |k| k.weight)
}

/// Picks an item kind by the weight `weight` gives each kind.
pub fn weighted_kind(c: &Content, rng: &mut GameRng, weight: impl Fn(&ItemKind) -> u32) -> usize {
    let total: u32 = c.items.iter().map(&weight).sum();
    let mut roll = rng.random_range(0..total.max(1));
    for (i, k) in c.items.iter().enumerate() {
        let w = weight(k);
        if roll < w {
            return i;
        }
        roll -= w;
    }
    0
}

/// `stats` with `bonus` added (before clamping).
pub fn with_bonus(s: Stats, b: Bonus) -> Stats {
    Stats {
        max_hp: s.max_hp + b.max_hp,
        attack_min: s.attack_min + b.attack_min,
        attack_max: s.attack_max + b.attack_max,
        defence: s.defence + b.defence,
        save: s.save + b.save,
        sight: s.sight + b.sight,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rng::{Stream, floor_rng};

    #[test]
    fn a_chip_has_two_tweaks_per_floor_each_of_one() {
        let c = Content::builtin();
        let chip = c.item_index("microchip").unwrap();
        let mut rng = floor_rng(5, 1, Stream::Loot);
        for depth in 1..=10u8 {
            for _ in 0..20 {
                let it = Item::make(&c, chip, 1, depth, &mut rng);
                let b = it.bonus;
                // Every tweak moves one of the five stats by one, so the absolute values add up
                // to the tweak count exactly when no two tweaks cancel; cancelling tweaks remove
                // two at a time, so the parity always matches.
                let moved = [b.max_hp, b.attack_min, b.attack_max, b.defence, b.save]
                    .iter()
                    .map(|v| v.unsigned_abs())
                    .sum::<u32>();
                let tweaks = 2 * u32::from(depth);
                assert!(moved <= tweaks && (tweaks - moved) % 2 == 0, "{b:?}");
                assert_eq!(b.sight, 0, "chips never touch sight");
            }
        }
    }

    #[test]
    fn chip_tweaks_are_counted_exactly() {
        // Count the rolls themselves: the same stream drawn by hand gives the same tweaks.
        let mut a = floor_rng(9, 3, Stream::Loot);
        let mut b = a.clone();
        let bonus = chip_bonus(6, &mut a);
        let mut sum = Bonus::default();
        for _ in 0..6 {
            let d = if b.random_bool(0.5) { 1 } else { -1 };
            match b.random_range(0..5) {
                0 => sum.max_hp += d,
                1 => sum.attack_min += d,
                2 => sum.attack_max += d,
                3 => sum.defence += d,
                _ => sum.save += d,
            }
        }
        assert_eq!(bonus, sum);
        assert_eq!(a, b, "exactly six tweaks were drawn");
    }

    #[test]
    fn fixed_items_carry_their_kind_s_bonus() {
        let c = Content::builtin();
        let mut rng = floor_rng(1, 1, Stream::Loot);
        let crowbar = Item::make(&c, c.item_index("crowbar").unwrap(), 1, 7, &mut rng);
        assert_eq!(crowbar.bonus, c.item("crowbar").unwrap().bonus.to_bonus());
        assert_eq!(crowbar.slot(&c), Some(Slot::Weapon));
        let pack = Item::make(&c, c.item_index("health_pack").unwrap(), 2, 1, &mut rng);
        assert!(pack.bonus.is_zero());
        assert_eq!(pack.use_(&c), ItemUse::Heal);
    }
}
