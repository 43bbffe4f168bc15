//! A player's character: where it is, its level and stats, whether it lives, and what it
//! remembers of each floor.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use delve_protocol::{Bonus, Effect, Pos, Slot, TileGrid};

use super::EntityId;
use super::content::Content;
use super::item::{Item, with_bonus};
use super::sight::Sight;
use super::stats::{Points, Stats, player_base, xp_for_level};

/// Remembered maps by depth, in order of depth. A short sorted list rather than a `BTreeMap`,
/// whose first node alone is 370 bytes for what is usually one floor (every character holds
/// this for as long as it is in the world). Saved exactly as the map it replaced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Memories(Vec<(u8, TileGrid)>);

impl Memories {
    pub fn get(&self, depth: u8) -> Option<&TileGrid> {
        (self.0.binary_search_by_key(&depth, |(d, _)| *d).ok()).map(|k| &self.0[k].1)
    }

    /// The memory of floor `depth`, made by `new` if there is none yet.
    pub fn get_or_insert_with(
        &mut self,
        depth: u8,
        new: impl FnOnce() -> TileGrid,
    ) -> &mut TileGrid {
        let k = match self.0.binary_search_by_key(&depth, |(d, _)| *d) {
            Ok(k) => k,
            Err(k) => {
                self.0.insert(k, (depth, new()));
                k
            }
        };
        &mut self.0[k].1
    }

    /// Cells remembered, over every floor.
    pub fn cells(&self) -> usize {
        self.0.iter().map(|(_, m)| m.cells().len()).sum()
    }

    /// Keeps the floors `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(u8) -> bool) {
        self.0.retain(|(d, _)| keep(*d));
    }
}

impl serde::Serialize for Memories {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(d, m)| (d, m)))
    }
}

impl<'de> serde::Deserialize<'de> for Memories {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<u8, TileGrid>::deserialize(d)?;
        Ok(Memories(map.into_iter().collect()))
    }
}

/// How a character's game ended: facts, told in words by the view
/// ([`crate::view::cause_of_death`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Death {
    /// The name of what killed the character ("Rabid Mouse"); empty if nothing did.
    pub killer: String,
    /// The floor where it fell.
    pub depth: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Player {
    pub(in crate::game) id: EntityId,
    /// Shared with every view that shows it (views are built after every turn).
    pub(in crate::game) name: Arc<str>,
    pub(in crate::game) depth: u8,
    pub(in crate::game) pos: Pos,
    pub(in crate::game) hp: i32,
    pub(in crate::game) level: u32,
    /// Total experience.
    pub(in crate::game) xp: u32,
    /// Stat points spent so far.
    pub(in crate::game) points: Points,
    /// Stat points earned by levelling and not spent yet.
    pub(in crate::game) unspent: u32,
    pub(in crate::game) alive: bool,
    /// `false` while lifted out of its floor: its player has been away longer than the grace
    /// period. It takes no room, no turns and no blows until it returns.
    pub(in crate::game) present: bool,
    pub(in crate::game) death: Option<Death>,
    /// Whether a connection drives this character. A disconnected character never holds up a
    /// turn: it simply waits.
    pub(in crate::game) connected: bool,
    pub(in crate::game) kills: u32,
    /// Turns this character has lived through.
    pub(in crate::game) turns: u64,
    /// The deepest floor it reached.
    pub(in crate::game) deepest: u8,
    /// The pack, in pick-up order; worn items are in it, marked `equipped`.
    pub(in crate::game) inventory: Vec<Item>,
    /// Status effects suffered now.
    pub(in crate::game) effects: BTreeSet<Effect>,
    /// Effects struck this turn: no saving throw against them until the next turn ends.
    pub(in crate::game) fresh_effects: BTreeSet<Effect>,
    /// The Mouse King fell while this character lived: its game ended in victory. It has left
    /// the floor and acts no more.
    pub(in crate::game) victory: bool,
    /// Remembered tiles of every floor visited, by depth.
    pub(super) memory: Memories,
    /// What the character sees now on its floor, one flag per cell (row-major). A dead
    /// character keeps watching from where it fell.
    pub(super) fov: Sight,
}

impl Player {
    pub(super) fn new(id: EntityId, name: Arc<str>, depth: u8, pos: Pos, c: &Content) -> Player {
        Player {
            id,
            name,
            depth,
            pos,
            hp: player_base(c, 1).max_hp,
            level: 1,
            xp: 0,
            points: Points::default(),
            unspent: 0,
            alive: true,
            present: true,
            death: None,
            connected: true,
            kills: 0,
            turns: 0,
            deepest: depth,
            inventory: Vec::new(),
            effects: BTreeSet::new(),
            fresh_effects: BTreeSet::new(),
            victory: false,
            memory: Memories::default(),
            fov: Sight::default(),
        }
    }

    /// Current fighting numbers: base stats for the level, plus spent points, plus what is
    /// worn, clamped.
    pub fn stats(&self, c: &Content) -> Stats {
        let own = self.points.apply(player_base(c, self.level), c);
        with_bonus(own, self.worn_bonus()).clamped()
    }

    /// What the worn items add together.
    pub fn worn_bonus(&self) -> Bonus {
        self.inventory
            .iter()
            .filter(|i| i.equipped)
            .fold(Bonus::default(), |b, i| b.plus(i.bonus))
    }

    /// The item in the pack with this id.
    pub fn carried(&self, id: EntityId) -> Option<&Item> {
        self.inventory.iter().find(|i| i.id == id)
    }

    /// Puts `item` in the pack: a unit joins its stack (after the last of its kind), anything
    /// else goes at the end, so the pack stays in pick-up order, stack by stack.
    pub(in crate::game) fn stow(&mut self, item: Item, c: &Content) {
        let at = (self.inventory.iter())
            .rposition(|i| item.stacks_with(i, c))
            .map_or(self.inventory.len(), |k| k + 1);
        self.inventory.insert(at, item);
    }

    /// Pack slots taken: one for each stack of a kind, one for each piece of equipment.
    pub fn slots_used(&self, c: &Content) -> usize {
        super::item::stacks(&self.inventory, c).len()
    }

    /// Whether `item` would fit in the pack: a free slot, or a stack of its kind to join.
    pub fn has_room_for(&self, item: &Item, c: &Content) -> bool {
        self.slots_used(c) < delve_protocol::INVENTORY_SLOTS
            || self.inventory.iter().any(|i| item.stacks_with(i, c))
    }

    /// The item worn in `slot`.
    pub fn worn_in(&self, slot: Slot, c: &Content) -> Option<&Item> {
        self.inventory
            .iter()
            .find(|i| i.equipped && i.slot(c) == Some(slot))
    }

    /// Whether the character suffers `effect`.
    pub fn has(&self, effect: Effect) -> bool {
        self.effects.contains(&effect)
    }

    /// Whether the character belongs to the party: it still plays, or its game ended (death or
    /// victory) but its player is still here. The others are records, and their names are free.
    pub fn in_party(&self) -> bool {
        (self.alive && !self.victory) || self.connected
    }

    /// Whether this character still plays: alive, on its floor, its game not won.
    pub fn active(&self) -> bool {
        self.alive && self.present && !self.victory
    }

    /// Total XP at which the current level began, and at which the next one begins (the same
    /// number at the highest level, which has no next).
    pub fn xp_band(&self, c: &Content) -> (u32, u32) {
        let here = xp_for_level(c, self.level);
        if self.level >= c.levels.max_level {
            return (here, here);
        }
        (here, xp_for_level(c, self.level + 1))
    }

    /// The tiles this character remembers of floor `depth`, if it has been there.
    pub fn memory(&self, depth: u8) -> Option<&TileGrid> {
        self.memory.get(depth)
    }

    /// Cells in sight now, one flag per cell of the current floor.
    pub fn fov(&self) -> &Sight {
        &self.fov
    }

    /// Whether the character sees cell `index` of its floor now.
    pub fn sees(&self, index: usize) -> bool {
        self.fov.contains(index)
    }
}

/// What the rest of the server may read of a player. Only the engine writes it, through events.
impl Player {
    /// This character's id in its dungeon.
    pub fn id(&self) -> EntityId {
        self.id
    }

    /// The name the player chose.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name, to share (a view holds it without a copy).
    pub fn shared_name(&self) -> &Arc<str> {
        &self.name
    }

    /// The floor the character is on (or was on, if lifted out).
    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// Where the character stands.
    pub fn pos(&self) -> Pos {
        self.pos
    }

    /// Hit points now.
    pub fn hp(&self) -> i32 {
        self.hp
    }

    /// Character level.
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Experience points.
    pub fn xp(&self) -> u32 {
        self.xp
    }

    /// Stat points not yet spent.
    pub fn unspent(&self) -> u32 {
        self.unspent
    }

    /// Whether the character lives.
    pub fn alive(&self) -> bool {
        self.alive
    }

    /// Whether the character stands on its floor (not lifted out).
    pub fn present(&self) -> bool {
        self.present
    }

    /// How and where the character died, once dead.
    pub fn death(&self) -> Option<&Death> {
        self.death.as_ref()
    }

    /// Whether its player is connected.
    pub fn connected(&self) -> bool {
        self.connected
    }

    /// Monsters killed.
    pub fn kills(&self) -> u32 {
        self.kills
    }

    /// Turns lived through.
    pub fn turns(&self) -> u64 {
        self.turns
    }

    /// The deepest floor reached.
    pub fn deepest(&self) -> u8 {
        self.deepest
    }

    /// The pack, in the order items were picked up.
    pub fn inventory(&self) -> &[Item] {
        &self.inventory
    }

    /// Status effects in force.
    pub fn effects(&self) -> &BTreeSet<Effect> {
        &self.effects
    }

    /// Whether the character's game ended in victory.
    pub fn victory(&self) -> bool {
        self.victory
    }
}
