//! The whole world of one dungeon and the rules that move it forward.
//!
//! Everything from outside comes in through [`Dungeon::step`] (see [`crate::game::input`]);
//! nothing else changes the world, and nothing here reads a clock, a socket, a file or a global
//! random generator. The networking shell decides *when* a floor resolves (all chose, or its
//! timer ran out); this module decides *what* happens.
//!
//! Execution reads the world and [`emit`](Dungeon::emit)s events; `emit` applies each event at
//! once (so the next step sees its effect) and records it for the views. `apply` is the only
//! code that changes what players can see; monster AI keeps its own route bookkeeping.
//!
//! The dungeon's rules live in modules named for their seam:
//! - `roster`: joining, starting again, connections, lifting out, coming back, forgetting;
//! - `check`: the rules an action must pass before it is queued, stat points, who must choose;
//! - `turn`: resolving a floor's turn (players in a fair order, then monsters, then the end);
//! - `combat`: attacks, kills and experience;
//! - `items`: the pack, pick-ups and doors; `effects`: status effects and the victory;
//! - `rest`: resting, the wait that goes on by itself until something happens;
//! - `away`: players who let the turn timer run out, whom nobody waits for until they are back;
//! - `friends`: giving to a friend, using things on one, bringing a fallen friend back;
//! - `scale`: a floor's monsters grown for the number of friends on it;
//! - `marks`: spots marked for the friends on a floor ("look here");
//! - `ranged`: throwing and shooting, blasts and dazes; `wander`: monsters that arrive later;
//! - `apply`: the only code that changes the world, one event at a time;
//! - `invariants`: what must hold after every input (checked by the fuzzer and property tests).

mod apply;
mod away;
mod check;
mod combat;
mod effects;
mod friends;
mod invariants;
mod items;
mod marks;
mod ranged;
mod rest;
mod roster;
mod scale;
mod turn;
mod wander;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use delve_protocol::{Dir, Pos, Tile};

use super::EntityId;
use super::content::Content;
use super::event::Actor;
#[cfg(test)]
use super::event::Event;
use super::floor::Floor;
use super::mapgen::GenParams;
use super::party::Party;
use super::player::Player;
use super::stats::Stats;

/// Why a character could not join (the sentences are the view's: [`crate::view::join_refusal`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JoinError {
    /// Someone in the party already has this name.
    NameTaken(String),
    /// No free cell near floor 1's up-stair.
    NoRoom,
    /// `NewCharacter` for a character still alive.
    StillAlive,
    /// No character with that id.
    Unknown,
}

impl JoinError {
    /// The rule that refused it, one stable code each.
    pub fn reason(&self) -> delve_protocol::Reason {
        use delve_protocol::Reason;
        match self {
            JoinError::NameTaken(_) => Reason::NameTaken,
            JoinError::NoRoom => Reason::NoRoom,
            JoinError::StillAlive => Reason::StillAlive,
            JoinError::Unknown => Reason::UnknownCharacter,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Dungeon {
    seed: u64,
    params: GenParams,
    content: Arc<Content>,
    /// Floors by `depth - 1`, generated on first visit.
    floors: Vec<Option<Floor>>,
    players: BTreeMap<EntityId, Player>,
    next_id: EntityId,
    /// What the party shares: who is away, who can be brought back, marks, monsters' scale.
    party: Party,
    /// Every floor as generation makes it, made ahead and shared by copies of this world, so a
    /// first visit copies its floor instead of making it (see [`Dungeon::make_floors_ahead`]).
    /// Not part of the world's state: `None` in the server, and never saved.
    ahead: Option<Arc<Vec<Floor>>>,
}

/// What a save holds of a world, borrowed from it (see [`Dungeon::parts`]).
pub(in crate::game) struct Parts<'a> {
    pub seed: u64,
    pub params: &'a GenParams,
    pub floors: &'a [Option<Floor>],
    pub players: &'a BTreeMap<EntityId, Player>,
    pub next_id: EntityId,
    pub party: &'a Party,
}

/// A fighter's numbers at the moment of an attack.
struct Fighter {
    actor: Actor,
    stats: Stats,
    level: u32,
    /// What killing it is worth before level scaling: a monster's table XP, a player's
    /// `player_value_per_level` times its level.
    worth: u32,
    /// The boss: killing it wins the game.
    boss: bool,
}

/// Which floor a monster lives on, from its id (see `monster::monster_id`).
fn monster_depth(id: EntityId) -> Option<u8> {
    u8::try_from(id / 1_000_000).ok().filter(|d| *d > 0)
}

impl Dungeon {
    pub fn new(seed: u64, content: Arc<Content>) -> Dungeon {
        Dungeon::with_params(seed, GenParams::default(), content)
    }

    pub fn with_params(seed: u64, params: GenParams, content: Arc<Content>) -> Dungeon {
        Dungeon {
            seed,
            params,
            floors: (0..content.dungeon.floors).map(|_| None).collect(),
            content,
            players: BTreeMap::new(),
            next_id: 1,
            party: Party::default(),
            ahead: None,
        }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The saved parts of the world (see `save`).
    pub(super) fn parts(&self) -> Parts<'_> {
        Parts {
            seed: self.seed,
            params: &self.params,
            floors: &self.floors,
            players: &self.players,
            next_id: self.next_id,
            party: &self.party,
        }
    }

    /// A world from saved parts.
    pub(super) fn from_parts(
        seed: u64,
        params: GenParams,
        content: Arc<Content>,
        floors: Vec<Option<Floor>>,
        players: BTreeMap<EntityId, Player>,
        next_id: EntityId,
        party: Party,
    ) -> Dungeon {
        Dungeon {
            seed,
            params,
            content,
            floors,
            players,
            next_id,
            party,
            ahead: None,
        }
    }

    pub fn content(&self) -> &Content {
        &self.content
    }

    /// How many floors this dungeon has.
    pub fn depth_count(&self) -> u8 {
        self.content.dungeon.floors
    }

    /// Floor `depth` (1-based, clamped to the dungeon), generating it on first use.
    pub(in crate::game) fn floor_mut(&mut self, depth: u8) -> &mut Floor {
        let last = self.depth_count();
        let k = usize::from(depth.clamp(1, last) - 1);
        let (seed, params, content) = (self.seed, &self.params, &self.content);
        let d = k as u8 + 1;
        let ahead = self.ahead.as_ref().and_then(|a| a.get(k));
        self.floors[k].get_or_insert_with(|| match ahead {
            Some(made) => made.clone(),
            None => Floor::generate(seed, d, d < last, params, content),
        })
    }

    /// Makes every floor now, as a first visit would, and keeps them aside for this world and
    /// its copies: a floor visited later is then copied (microseconds) instead of made
    /// (milliseconds). For worlds started by the thousand from one seed, as the fuzzer and the
    /// property tests do; the server makes each floor when it is first visited. The world's
    /// state (what is saved) does not change.
    pub fn make_floors_ahead(&mut self) {
        let last = self.depth_count();
        let made = (1..=last)
            .map(|d| Floor::generate(self.seed, d, d < last, &self.params, &self.content))
            .collect();
        self.ahead = Some(Arc::new(made));
    }

    /// Takes the floors `other` made ahead, for a world of the same seed, generation and content
    /// (such as `other` saved and loaded again).
    pub(in crate::game) fn share_floors_ahead(&mut self, other: &Dungeon) {
        if self.seed == other.seed && self.params == other.params {
            self.ahead.clone_from(&other.ahead);
        }
    }

    /// Floor `depth` if it has been generated.
    pub fn floor(&self, depth: u8) -> Option<&Floor> {
        self.floors
            .get(usize::from(depth).wrapping_sub(1))?
            .as_ref()
    }

    pub fn player(&self, id: EntityId) -> Option<&Player> {
        self.players.get(&id)
    }

    pub fn players(&self) -> impl Iterator<Item = &Player> {
        self.players.values()
    }

    /// What the party shares (who is away, who can be brought back, the marked spots).
    pub fn party(&self) -> &Party {
        &self.party
    }

    /// Characters on floor `depth`, the dead (who watch from where they fell) included.
    pub fn players_on(&self, depth: u8) -> impl Iterator<Item = &Player> {
        self.players.values().filter(move |p| p.depth == depth)
    }

    /// Living characters standing on floor `depth` (not those lifted out of it).
    pub fn living_on(&self, depth: u8) -> impl Iterator<Item = &Player> {
        self.players_on(depth).filter(|p| p.alive && p.present)
    }

    /// Living characters in the dungeon.
    pub fn player_count(&self) -> usize {
        self.players.values().filter(|p| p.alive).count()
    }

    /// Characters the dungeon keeps, the dead included.
    pub fn character_count(&self) -> usize {
        self.players.len()
    }

    /// Whether a living character or a monster stands at `p` on floor `depth`.
    pub(super) fn occupied(&self, depth: u8, p: Pos) -> bool {
        self.living_on(depth).any(|o| o.pos == p)
            || self.floor(depth).is_some_and(|f| f.monster_at(p).is_some())
    }

    /// `want` if it is free, else the nearest free walkable cell.
    pub(super) fn free_cell_or(&mut self, depth: u8, want: Pos) -> Option<Pos> {
        if !self.occupied(depth, want) {
            return Some(want);
        }
        self.free_cell_near(depth, want)
    }

    /// The walkable, unoccupied, non-stair cell nearest to `target` on floor `depth`.
    pub(super) fn free_cell_near(&mut self, depth: u8, target: Pos) -> Option<Pos> {
        self.floor_mut(depth);
        let map = &self.floor(depth)?.map;
        let mut seen = vec![false; map.width() * map.height()];
        let mut queue = VecDeque::from([target]);
        seen[map.index(target)?] = true;
        while let Some(p) = queue.pop_front() {
            if map.get(p) == Tile::Floor && !self.occupied(depth, p) {
                return Some(p);
            }
            for d in Dir::ALL {
                let q = p.step(d);
                if let Some(i) = map.index(q)
                    && !seen[i]
                    && map.get(q).is_walkable()
                {
                    seen[i] = true;
                    queue.push_back(q);
                }
            }
        }
        None
    }

    /// Resolves floor `depth`'s turn with the choices made for it, as the server does.
    #[cfg(test)]
    pub(crate) fn resolve_pending(&mut self, depth: u8) -> crate::game::input::Outcome {
        let actions = self.choices(depth);
        self.resolve_turn(depth, &actions)
    }

    /// Puts `id` at `pos` on floor `depth`, for setting up scenes in tests.
    #[cfg(test)]
    pub(crate) fn place_for_test(&mut self, id: EntityId, depth: u8, pos: Pos) {
        self.floor_mut(depth);
        self.apply(&Event::Arrived { id, depth, pos });
    }

    /// Adds a monster of kind `key` at `level` standing at `pos`, for tests.
    #[cfg(test)]
    pub(crate) fn add_monster_for_test(
        &mut self,
        depth: u8,
        key: &str,
        level: u32,
        pos: Pos,
    ) -> EntityId {
        let content = Arc::clone(&self.content);
        let kind = content
            .monsters
            .iter()
            .position(|k| &*k.key == key)
            .expect("known monster");
        let floor = self.floor_mut(depth);
        let id = super::monster::monster_id(depth, 900_000 + floor.monsters.len() as u32);
        let m = super::monster::make(&content, kind, id, pos, level, &mut floor.rng);
        floor.monsters.insert(id, m);
        id
    }

    /// Makes an item of kind `key` for tests, on floor `depth`'s dice, with an id no other
    /// item has.
    #[cfg(test)]
    pub(crate) fn make_item_for_test(&mut self, depth: u8, key: &str) -> super::item::Item {
        let content = Arc::clone(&self.content);
        let kind = content.item_index(key).expect("known item");
        let mut id = super::item::item_id(depth, 400_000);
        let taken = |d: &Dungeon, id: EntityId| {
            d.players.values().any(|p| p.carried(id).is_some())
                || d.floors.iter().flatten().any(|f| f.items.contains_key(&id))
        };
        while taken(self, id) {
            id += 1;
        }
        let floor = self.floor_mut(depth);
        super::item::Item::make(&content, kind, id, depth, &mut floor.rng)
    }

    /// Puts an item of kind `key` into `id`'s pack, for tests.
    #[cfg(test)]
    pub(crate) fn give_for_test(&mut self, id: EntityId, key: &str) -> EntityId {
        let depth = self.players[&id].depth;
        let item = self.make_item_for_test(depth, key);
        let item_id = item.id;
        let content = Arc::clone(&self.content);
        self.players.get_mut(&id).unwrap().stow(item, &content);
        item_id
    }

    /// Lays an item of kind `key` at `pos` on floor `depth`, for tests.
    #[cfg(test)]
    pub(crate) fn lay_for_test(&mut self, depth: u8, key: &str, pos: Pos) -> EntityId {
        let item = self.make_item_for_test(depth, key);
        let item_id = item.id;
        self.floor_mut(depth).items.insert(item_id, (pos, item));
        item_id
    }

    /// Sets the tile at `pos` on floor `depth` (a door, say), for tests.
    #[cfg(test)]
    pub(crate) fn set_tile_for_test(&mut self, depth: u8, pos: Pos, tile: Tile) {
        let floor = self.floor_mut(depth);
        floor.map.set(pos, tile);
        if let Some(i) = floor.map.index(pos) {
            floor.opaque.set(i, !tile.is_walkable());
        }
        floor.patrol = None;
        let here: Vec<EntityId> = self.players_on(depth).map(|p| p.id).collect();
        for id in here {
            self.update_sight(id);
        }
    }

    /// Strikes `id` with `effect` as a monster's hit in the turn before would, for tests: the
    /// next turn's end brings its first saving throw.
    #[cfg(test)]
    pub(crate) fn afflict_for_test(&mut self, id: EntityId, effect: delve_protocol::Effect) {
        self.apply(&Event::EffectStarted { id, effect });
        if let Some(p) = self.players.get_mut(&id) {
            p.fresh_effects.clear();
        }
    }

    /// Sets `id`'s HP, for tests of what is told at low HP.
    #[cfg(test)]
    pub(crate) fn set_hp_for_test(&mut self, id: EntityId, hp: i32) {
        if let Some(p) = self.players.get_mut(&id) {
            p.hp = hp;
        }
    }

    /// Gives `id` experience as a kill would, for tests.
    #[cfg(test)]
    pub(crate) fn gain_xp_for_test(&mut self, id: EntityId, amount: u32) -> Vec<Event> {
        let depth = self.players.get(&id).map_or(1, |p| p.depth);
        let mut out = Vec::new();
        self.gain_xp(depth, id, amount, &mut out);
        out
    }
}

/// Helpers the rule tests of the dungeon's modules share.
#[cfg(test)]
pub(crate) mod scene {
    use super::*;
    use crate::game::action::Action;

    /// `id` takes `a` and floor 1's turn resolves; the turn's events.
    pub fn turn(d: &mut Dungeon, id: EntityId, a: Action) -> Vec<Event> {
        d.submit(id, a).expect("the action is allowed");
        d.resolve_pending(1).events
    }

    /// The log lines of their own that `events` give `id`, told as the view tells them.
    pub fn said(events: &[Event], id: EntityId) -> Vec<String> {
        events
            .iter()
            .flat_map(|e| crate::view::own_lines(e, id))
            .map(|(_, text)| text)
            .collect()
    }
}

#[cfg(test)]
mod tests;
