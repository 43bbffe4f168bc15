//! The whole world of one dungeon and the rules that move it forward.
//!
//! Inputs are `join`, `new_character`, `set_connected`, `lift`, `return_player`, `submit`,
//! `spend_point` and `resolve_turn`; nothing else changes the world, and nothing here reads a clock, a socket, a
//! file or a global random generator. The networking shell decides *when* a floor resolves (all
//! chose, or its timer ran out); this module decides *what* happens.
//!
//! Execution reads the world and [`emit`](Dungeon::emit)s events; `emit` applies each event at
//! once (so the next step sees its effect) and records it for the views. `apply` is the only
//! code that changes what players can see; monster AI keeps its own route bookkeeping.
//!
//! Items and doors live in [`items`], status effects and the victory in [`effects`].

mod effects;
mod items;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use delve_protocol::{Dir, Effect, MessageKind, Pos, Tile};
use rand::RngExt;
use rand::seq::SliceRandom;

use super::EntityId;
use super::action::{Action, ActionError};
use super::ai::{Ctx, think};
use super::content::Content;
use super::event::{Actor, Event};
use super::floor::Floor;
use super::fov;
use super::mapgen::GenParams;
use super::player::{Death, Player};
use super::stats::{Stat, Stats, hit_chance, kill_xp, level_for_xp};

/// Why a character could not join.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    #[error("Someone in this dungeon is already called {0}.")]
    NameTaken(String),
    #[error("There is no free place to arrive on floor 1.")]
    NoRoom,
    #[error("Your character is still alive.")]
    StillAlive,
    #[error("There is no such character.")]
    Unknown,
}

/// What one resolved turn did: the actions taken (what a journal needs to replay it), the
/// events that followed, and every floor whose state changed (the resolved one, plus any a
/// character arrived on by the stairs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnReport {
    pub depth: u8,
    /// The turn number just resolved (1 for a floor's first turn).
    pub turn: u64,
    /// Every choice that was pending, in id order (the resolution order is drawn from the floor's
    /// dice, so replaying these reproduces it).
    pub actions: Vec<(EntityId, Action)>,
    pub events: Vec<Event>,
    pub floors: Vec<u8>,
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

fn msg(to: EntityId, kind: MessageKind, text: impl Into<String>) -> Event {
    Event::Message {
        to,
        kind,
        text: text.into(),
    }
}

/// "a Tough Mouse", "an Owl": for causes of death.
fn with_article(name: &str) -> String {
    let vowel = name
        .chars()
        .next()
        .is_some_and(|c| "AEIOUaeiou".contains(c));
    format!("{} {name}", if vowel { "an" } else { "a" })
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
        }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The saved parts of the world (see `save`).
    pub(super) fn parts(
        &self,
    ) -> (
        u64,
        &GenParams,
        &[Option<Floor>],
        &BTreeMap<EntityId, Player>,
        EntityId,
    ) {
        (
            self.seed,
            &self.params,
            &self.floors,
            &self.players,
            self.next_id,
        )
    }

    /// A world from saved parts.
    pub(super) fn from_parts(
        seed: u64,
        params: GenParams,
        content: Arc<Content>,
        floors: Vec<Option<Floor>>,
        players: BTreeMap<EntityId, Player>,
        next_id: EntityId,
    ) -> Dungeon {
        Dungeon {
            seed,
            params,
            content,
            floors,
            players,
            next_id,
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
    pub fn floor_mut(&mut self, depth: u8) -> &mut Floor {
        let last = self.depth_count();
        let k = usize::from(depth.clamp(1, last) - 1);
        let (seed, params, content) = (self.seed, &self.params, &self.content);
        let d = k as u8 + 1;
        self.floors[k].get_or_insert_with(|| Floor::generate(seed, d, d < last, params, content))
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

    /// Forgets the longest-finished character (dead, or victorious) whose player has gone, to
    /// make room; `false` if there is none.
    pub fn evict_dead(&mut self) -> bool {
        let gone = self.players.values().find(|p| !p.in_party()).map(|p| p.id);
        gone.is_some_and(|id| self.players.remove(&id).is_some())
    }

    /// Whether `name` is in use by a character other than `except`: a living one, or a dead one
    /// whose player is still here (it may start again under that name).
    fn name_in_use(&self, name: &str, except: Option<EntityId>) -> bool {
        let name = name.to_lowercase();
        self.players
            .values()
            .any(|p| Some(p.id) != except && p.in_party() && p.name.to_lowercase() == name)
    }

    /// Adds a new character called `name`, standing beside floor 1's up-stair.
    pub fn join(&mut self, name: &str) -> Result<(EntityId, Vec<Event>), JoinError> {
        if self.name_in_use(name, None) {
            return Err(JoinError::NameTaken(name.to_owned()));
        }
        self.place_new(name)
    }

    fn place_new(&mut self, name: &str) -> Result<(EntityId, Vec<Event>), JoinError> {
        let up = self.floor_mut(1).up;
        let pos = self.free_cell_near(1, up).ok_or(JoinError::NoRoom)?;
        let id = self.next_id;
        self.next_id += 1;
        let player = Player::new(id, name.to_owned(), 1, pos, &self.content);
        self.players.insert(id, player);
        let mut out = Vec::new();
        self.emit(Event::Arrived { id, depth: 1, pos }, &mut out);
        self.emit(msg(id, MessageKind::Normal, "Entering floor #1"), &mut out);
        Ok((id, out))
    }

    /// A fresh character, with the same name, for the player whose character `old` died.
    pub fn new_character(&mut self, old: EntityId) -> Result<(EntityId, Vec<Event>), JoinError> {
        let p = self.players.get(&old).ok_or(JoinError::Unknown)?;
        if p.alive && !p.victory {
            return Err(JoinError::StillAlive);
        }
        let name = p.name.clone();
        if self.name_in_use(&name, Some(old)) {
            return Err(JoinError::NameTaken(name));
        }
        // The dead character's record has served its purpose: its player plays on as the new one.
        self.players.remove(&old);
        self.place_new(&name)
    }

    /// Marks whether a connection drives `id`. A disconnected character never holds up its
    /// floor's turn. A choice it already made stands: it was accepted, and dropping it would
    /// also drop the turn's timer if it was the only one, leaving the others waiting.
    pub fn set_connected(&mut self, id: EntityId, connected: bool) {
        if let Some(p) = self.players.get_mut(&id) {
            p.connected = connected;
        }
    }

    /// Lifts `id` out of its floor: its player has been away longer than the grace period. It
    /// stops taking room and blows, and its pending choice is dropped. Nothing for the dead or
    /// the already lifted.
    pub fn lift(&mut self, id: EntityId) -> Vec<Event> {
        let mut out = Vec::new();
        if let Some(p) = self.players.get(&id).filter(|p| p.alive && p.present) {
            let pos = p.pos;
            self.emit(Event::Lifted { id, pos }, &mut out);
        }
        out
    }

    /// Puts a lifted character back where it stood, or on the nearest free cell.
    pub fn return_player(&mut self, id: EntityId) -> Vec<Event> {
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

    /// Checks `action` and makes it `id`'s choice for the turn in progress, replacing any earlier
    /// choice. A refused action changes nothing.
    pub fn submit(&mut self, id: EntityId, action: Action) -> Result<(), ActionError> {
        self.check(id, action)?;
        let depth = self.players[&id].depth;
        self.floor_mut(depth).pending.insert(id, action);
        Ok(())
    }

    /// The rules an action must pass before it is queued.
    pub fn check(&self, id: EntityId, action: Action) -> Result<(), ActionError> {
        let p = self.players.get(&id).ok_or(ActionError::NotPresent)?;
        if !p.alive {
            return Err(ActionError::Dead);
        }
        if p.victory {
            return Err(ActionError::Won);
        }
        if !p.present {
            return Err(ActionError::NotPresent);
        }
        let floor = self.floor(p.depth).ok_or(ActionError::NotPresent)?;
        if action.uses_pack() {
            if p.has(Effect::Stun) {
                return Err(ActionError::StunnedPack);
            }
            if p.has(Effect::Confusion) {
                return Err(ActionError::ConfusedPack);
            }
        }
        match action {
            Action::Wait => Ok(()),
            Action::Move(dir) => {
                let to = p.pos.step(dir);
                let tile = floor.tile(to);
                if !floor.map.in_bounds(to) {
                    Err(ActionError::OffMap)
                } else if tile == Tile::DoorLocked && !self.has_key(p) {
                    Err(ActionError::Locked)
                } else if !tile.is_walkable() && !tile.is_shut_door() {
                    Err(ActionError::Wall)
                } else {
                    Ok(())
                }
            }
            Action::Descend => match floor.tile(p.pos) {
                Tile::StairsDown if p.depth < self.depth_count() => Ok(()),
                _ => Err(ActionError::NoStairs),
            },
            Action::Ascend => match floor.tile(p.pos) {
                Tile::StairsUp if p.depth > 1 => Ok(()),
                Tile::StairsUp => Err(ActionError::NoWayUp),
                _ => Err(ActionError::NoStairs),
            },
            Action::PickUp
            | Action::Use(_)
            | Action::Equip(_)
            | Action::Unequip(_)
            | Action::Drop(_) => self.check_pack(p, floor, action),
        }
    }

    /// Spends one of `id`'s stat points on `stat`, at once (it takes no turn).
    pub fn spend_point(&mut self, id: EntityId, stat: Stat) -> Result<Vec<Event>, ActionError> {
        let p = self.players.get(&id).ok_or(ActionError::NotPresent)?;
        if !p.alive {
            return Err(ActionError::Dead);
        }
        if p.victory {
            return Err(ActionError::Won);
        }
        if p.unspent == 0 {
            return Err(ActionError::NoPoints);
        }
        let mut out = Vec::new();
        self.emit(Event::SpentPoint { id, stat }, &mut out);
        Ok(out)
    }

    /// Living, connected characters on floor `depth` that have not chosen yet.
    pub fn waiting_for(&self, depth: u8) -> Vec<EntityId> {
        let Some(floor) = self.floor(depth) else {
            return Vec::new();
        };
        self.living_on(depth)
            .filter(|p| p.connected && !floor.pending.contains_key(&p.id))
            .map(|p| p.id)
            .collect()
    }

    /// Whether floor `depth`'s turn can resolve now: someone chose and every living, connected
    /// character on the floor has chosen.
    pub fn is_ready(&self, depth: u8) -> bool {
        self.floor(depth).is_some_and(Floor::has_choices) && self.waiting_for(depth).is_empty()
    }

    /// Resolves the turn of floor `depth`: every pending choice is carried out in an order drawn
    /// from the floor's dice (nobody is favoured for joining first), characters that did not
    /// choose wait, then every monster on the floor acts, then the turn ends.
    pub fn resolve_turn(&mut self, depth: u8) -> TurnReport {
        let floor = self.floor_mut(depth);
        let actions: Vec<(EntityId, Action)> =
            std::mem::take(&mut floor.pending).into_iter().collect();
        let mut order = actions.clone();
        order.shuffle(&mut floor.rng);

        let mut out = Vec::new();
        let mut floors = vec![depth];
        let present: Vec<EntityId> = self.living_on(depth).map(|p| p.id).collect();
        for (id, action) in order {
            // Earlier in this turn the character may have died or left the floor.
            if self
                .players
                .get(&id)
                .is_some_and(|p| p.active() && p.depth == depth)
            {
                self.player_act(depth, id, action, &mut out, &mut floors);
            }
        }
        self.monsters_act(depth, &mut out);
        self.end_turn(depth, present, &mut out);
        let turn = self.floor(depth).map_or(0, |f| f.turn);
        TurnReport {
            depth,
            turn,
            actions,
            events: out,
            floors,
        }
    }

    /// Replays a journaled turn: the same choices resolve exactly as they did the first time.
    pub fn replay_turn(&mut self, depth: u8, actions: &[(EntityId, Action)]) -> TurnReport {
        let floor = self.floor_mut(depth);
        floor.pending = actions.iter().copied().collect();
        self.resolve_turn(depth)
    }

    /// Applies `event` and records it.
    fn emit(&mut self, event: Event, out: &mut Vec<Event>) {
        self.apply(&event);
        out.push(event);
    }

    fn player_act(
        &mut self,
        depth: u8,
        id: EntityId,
        action: Action,
        out: &mut Vec<Event>,
        floors: &mut Vec<u8>,
    ) {
        let Some(p) = self.players.get(&id) else {
            return;
        };
        let from = p.pos;
        if p.has(Effect::Stun) {
            self.emit(
                msg(
                    id,
                    MessageKind::Warning,
                    "You are stunned and lose the turn.",
                ),
                out,
            );
            return;
        }
        let action = match action {
            Action::Move(_) if p.has(Effect::Confusion) => self.stagger(depth, id, out),
            other => other,
        };
        match action {
            Action::Wait => {}
            Action::Move(dir) => {
                let to = from.step(dir);
                let Some(floor) = self.floor(depth) else {
                    return;
                };
                let tile = floor.tile(to);
                if tile.is_shut_door() {
                    self.try_door(depth, id, to, tile, out);
                    return;
                }
                // What is in the way decides what the step does.
                let wall = !tile.is_walkable();
                let monster = floor.monster_at(to).map(|m| m.id);
                let friend = self
                    .living_on(depth)
                    .find(|o| o.pos == to)
                    .map(|o| o.name.clone());
                match (wall, monster, friend) {
                    (true, _, _) => self.emit(
                        msg(id, MessageKind::Normal, "There is a wall in the way."),
                        out,
                    ),
                    (_, Some(target), _) => self.attack(depth, id, target, out),
                    (_, _, Some(name)) => self.emit(
                        msg(id, MessageKind::Normal, format!("{name} is in the way.")),
                        out,
                    ),
                    _ => {
                        self.emit(Event::Moved { id, from, to }, out);
                        self.pick_up_all(depth, id, out);
                    }
                }
            }
            Action::PickUp => {
                if self
                    .floor(depth)
                    .is_some_and(|f| f.items_at(from).next().is_none())
                {
                    self.emit(
                        msg(id, MessageKind::Normal, "There is nothing here to pick up."),
                        out,
                    );
                } else {
                    self.pick_up_all(depth, id, out);
                }
            }
            Action::Use(item)
            | Action::Equip(item)
            | Action::Unequip(item)
            | Action::Drop(item) => self.pack_act(depth, id, action, item, out),
            Action::Descend | Action::Ascend => {
                let (to, verb) = if action == Action::Descend {
                    (depth + 1, "descend")
                } else {
                    (depth - 1, "climb")
                };
                if self.check(id, action).is_err() {
                    return;
                }
                let dest = self.floor_mut(to);
                // Arriving from above puts you at the up-stair; from below, at the down-stair.
                let stair = if action == Action::Descend {
                    Some(dest.up)
                } else {
                    dest.down
                };
                let Some(pos) = stair.and_then(|s| self.free_cell_or(to, s)) else {
                    self.emit(
                        msg(id, MessageKind::Warning, "The stairs are blocked."),
                        out,
                    );
                    return;
                };
                self.emit(
                    msg(
                        id,
                        MessageKind::Normal,
                        format!("You {verb} the staircase."),
                    ),
                    out,
                );
                self.emit(
                    Event::ChangedFloor {
                        id,
                        from: depth,
                        to,
                        from_pos: from,
                        pos,
                    },
                    out,
                );
                self.emit(
                    msg(id, MessageKind::Normal, format!("Entering floor #{to}")),
                    out,
                );
                if !floors.contains(&to) {
                    floors.push(to);
                }
            }
        }
    }

    fn monsters_act(&mut self, depth: u8, out: &mut Vec<Event>) {
        let content = Arc::clone(&self.content);
        let mut players: Vec<(EntityId, Pos)> =
            self.living_on(depth).map(|p| (p.id, p.pos)).collect();
        if players.is_empty() {
            return;
        }
        let Some(floor) = self.floor(depth) else {
            return;
        };
        let (w, h) = (floor.map.width(), floor.map.height());
        // Each player's view of the floor to the widest monster sight: by the symmetry of the
        // field of view, exactly the cells whose monsters can see that player.
        let reach = floor
            .monsters
            .values()
            .map(|m| m.stats(&content).sight)
            .max()
            .unwrap_or(0)
            .min(40);
        let mut awareness: Vec<Vec<bool>> = players
            .iter()
            .map(|(_, p)| {
                let mut seen = vec![false; w * h];
                fov::compute(&floor.opaque, w, h, p.x, p.y, reach, &mut seen);
                seen
            })
            .collect();
        let mut occupant: Vec<Option<EntityId>> = vec![None; w * h];
        for (id, p) in &players {
            if let Some(i) = floor.map.index(*p) {
                occupant[i] = Some(*id);
            }
        }
        for m in floor.monsters.values() {
            if let Some(i) = floor.map.index(m.pos) {
                occupant[i] = Some(m.id);
            }
        }
        let ids: Vec<EntityId> = floor.monsters.keys().copied().collect();
        let mut flow = None;
        for mid in ids {
            if players.is_empty() {
                break;
            }
            let k = usize::from(depth - 1);
            let Some(Some(floor)) = self.floors.get_mut(k) else {
                return;
            };
            let Floor {
                map,
                open_cells,
                monsters,
                rng,
                ..
            } = floor;
            let Some(m) = monsters.get_mut(&mid) else {
                continue;
            };
            let sight = m.stats(&content).sight;
            let ctx = Ctx {
                map,
                open_cells,
                players: &players,
                awareness: &awareness,
                occupant: &occupant,
            };
            let action = think(m, sight, &ctx, &mut flow, rng);
            let from = m.pos;
            let Action::Move(dir) = action else { continue };
            let to = from.step(dir);
            let Some(ti) = map.index(to) else { continue };
            match occupant[ti] {
                Some(target) if self.players.get(&target).is_some_and(|p| p.alive) => {
                    self.attack(depth, mid, target, out);
                    if self.players.get(&target).is_some_and(|p| !p.alive) {
                        // The dead no longer draw monsters or block the way.
                        let at = players.iter().position(|(id, _)| *id == target);
                        if let Some(k) = at {
                            players.remove(k);
                            awareness.remove(k);
                        }
                        occupant[ti] = None;
                        flow = None;
                    }
                }
                // Another monster in the way: the AI already sidesteps these; no friendly fire.
                Some(_) => {}
                None if map.get(to).is_walkable() => {
                    if let Some(fi) = map.index(from) {
                        occupant[fi] = None;
                    }
                    occupant[ti] = Some(mid);
                    self.emit(Event::Moved { id: mid, from, to }, out);
                }
                None => {}
            }
        }
    }

    /// The end of a floor's turn: natural healing, then the clock moves. `present` are the
    /// characters who were on the floor when the turn began.
    fn end_turn(&mut self, depth: u8, present: Vec<EntityId>, out: &mut Vec<Event>) {
        let every = self.content.player.regen_turns;
        if every > 0 {
            // Poison stops natural healing.
            let healed: Vec<EntityId> = self
                .living_on(depth)
                .filter(|p| {
                    (p.turns + 1) % u64::from(every) == 0
                        && p.hp < p.stats(&self.content).max_hp
                        && !p.has(Effect::Poison)
                })
                .map(|p| p.id)
                .collect();
            for id in healed {
                self.emit(Event::Healed { id, amount: 1 }, out);
            }
        }
        self.effects_end_turn(depth, out);
        self.emit(
            Event::TurnEnded {
                depth,
                players: present,
            },
            out,
        );
    }

    fn fighter(&self, depth: u8, id: EntityId) -> Option<Fighter> {
        if let Some(p) = self.players.get(&id) {
            return Some(Fighter {
                actor: Actor {
                    id,
                    name: p.name.clone(),
                    pos: p.pos,
                    player: true,
                },
                stats: p.stats(&self.content),
                level: p.level,
                worth: self.content.xp.player_value_per_level * p.level,
                boss: false,
            });
        }
        let m = self.floor(depth)?.monsters.get(&id)?;
        let kind = m.kind(&self.content);
        Some(Fighter {
            actor: Actor {
                id,
                name: kind.name.clone(),
                pos: m.pos,
                player: false,
            },
            stats: m.stats(&self.content),
            level: m.level,
            worth: kind.xp,
            boss: kind.boss,
        })
    }

    fn hp(&self, depth: u8, id: EntityId) -> i32 {
        match self.players.get(&id) {
            Some(p) => p.hp,
            None => self
                .floor(depth)
                .and_then(|f| f.monsters.get(&id))
                .map_or(0, |m| m.hp),
        }
    }

    /// One attack by the rule of the content file: defence lowers the chance to be hit; damage
    /// is a roll between the attacker's min and max attack.
    fn attack(&mut self, depth: u8, attacker: EntityId, target: EntityId, out: &mut Vec<Event>) {
        let (Some(a), Some(t)) = (self.fighter(depth, attacker), self.fighter(depth, target))
        else {
            return;
        };
        let chance = hit_chance(&self.content.combat, t.stats.defence);
        let rng = &mut self.floor_mut(depth).rng;
        let damage = (rng.random_range(0..100) < chance)
            .then(|| rng.random_range(a.stats.attack_min..=a.stats.attack_max));
        self.emit(
            Event::Attacked {
                attacker: a.actor.clone(),
                target: t.actor.clone(),
                damage,
            },
            out,
        );
        if damage.is_some() && self.hp(depth, target) <= 0 {
            self.kill(depth, t, a, out);
        } else if damage.is_some() && t.actor.player && !a.actor.player {
            self.maybe_inflict(depth, attacker, target, out);
        }
    }

    fn kill(&mut self, depth: u8, victim: Fighter, killer: Fighter, out: &mut Vec<Event>) {
        // The boss is the one of his kind: "killed by the Mouse King".
        let who = if killer.boss {
            format!("the {}", killer.actor.name)
        } else {
            with_article(&killer.actor.name)
        };
        let cause = format!("killed by {who} on floor {depth}");
        let (victim_actor, killer_actor) = (victim.actor.clone(), killer.actor.clone());
        self.emit(
            Event::Died {
                victim: victim_actor,
                killer: Some(killer_actor),
                cause,
            },
            out,
        );
        if victim.actor.player {
            // What the fallen carried stays where they fell, for their friends.
            let pack: Vec<EntityId> = self
                .players
                .get(&victim.actor.id)
                .map(|p| p.inventory.iter().map(|i| i.id).collect())
                .unwrap_or_default();
            for item in pack {
                let (id, pos) = (victim.actor.id, victim.actor.pos);
                self.emit(Event::Dropped { id, item, pos }, out);
            }
        }
        let content = Arc::clone(&self.content);
        if !victim.actor.player && killer.actor.player {
            // Split among the living players on the floor who see the monster's cell, the
            // killer always among them; each share at the witness's own level.
            let cell = self
                .floor(depth)
                .and_then(|f| f.map.index(victim.actor.pos));
            let witnesses: Vec<(EntityId, u32)> = self
                .living_on(depth)
                .filter(|p| p.id == killer.actor.id || cell.is_some_and(|i| p.sees(i)))
                .map(|p| (p.id, p.level))
                .collect();
            let n = witnesses.len().max(1) as u32;
            for (id, level) in witnesses {
                let share = (kill_xp(&content.xp, victim.worth, victim.level, level) / n).max(1);
                self.gain_xp(depth, id, share, out);
            }
        } else if victim.actor.player && !killer.actor.player {
            // Monsters that kill players gain their worth and level up like players do.
            let amount = kill_xp(&content.xp, victim.worth, victim.level, killer.level);
            self.gain_xp(depth, killer.actor.id, amount, out);
        }
        if victim.boss {
            self.win(victim.actor, out);
        }
    }

    fn gain_xp(&mut self, depth: u8, id: EntityId, amount: u32, out: &mut Vec<Event>) {
        self.emit(Event::GainedXp { id, amount }, out);
        let content = Arc::clone(&self.content);
        loop {
            let (xp, level, player) = match self.players.get(&id) {
                Some(p) => (p.xp, p.level, true),
                None => match self.floor(depth).and_then(|f| f.monsters.get(&id)) {
                    Some(m) => (m.xp, m.level, false),
                    None => return,
                },
            };
            if level_for_xp(&content, xp) <= level {
                return;
            }
            // A monster spends its point at once, on a stat chosen by the dice.
            let stat = (!player).then(|| {
                let rng = &mut self.floor_mut(depth).rng;
                Stat::ALL[rng.random_range(0..Stat::ALL.len())]
            });
            self.emit(
                Event::LeveledUp {
                    id,
                    level: level + 1,
                    stat,
                },
                out,
            );
        }
    }

    /// The only place the world changes.
    fn apply(&mut self, event: &Event) {
        let content = Arc::clone(&self.content);
        match event {
            Event::Moved { id, to, .. } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.pos = *to;
                    self.update_sight(*id);
                } else if let Some(m) = self.monster_mut(*id) {
                    m.pos = *to;
                }
            }
            Event::Arrived { id, depth, pos } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.depth = *depth;
                    p.pos = *pos;
                    self.update_sight(*id);
                }
            }
            Event::Lifted { id, .. } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.present = false;
                    let depth = p.depth;
                    self.floor_mut(depth).pending.remove(id);
                }
            }
            Event::Returned { id, pos } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.present = true;
                    p.pos = *pos;
                    self.update_sight(*id);
                }
            }
            Event::ChangedFloor { id, to, pos, .. } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.depth = *to;
                    p.pos = *pos;
                    p.deepest = p.deepest.max(*to);
                    self.update_sight(*id);
                }
            }
            Event::Attacked {
                target,
                damage: Some(d),
                ..
            } => {
                if let Some(p) = self.players.get_mut(&target.id) {
                    p.hp -= d;
                } else if let Some(m) = self.monster_mut(target.id) {
                    m.hp -= d;
                }
            }
            Event::Attacked { damage: None, .. } | Event::Message { .. } => {}
            Event::Died {
                victim,
                killer,
                cause,
            } => {
                if let Some(k) = killer.as_ref().and_then(|k| self.players.get_mut(&k.id)) {
                    k.kills += 1;
                }
                if let Some(p) = self.players.get_mut(&victim.id) {
                    p.alive = false;
                    p.hp = 0;
                    // The fatal turn counts as one lived through (TurnEnded only counts the living).
                    p.turns += 1;
                    // The ghost watches only the floor where it fell.
                    let here = p.depth;
                    p.memory.retain(|d, _| *d == here);
                    p.death = Some(Death {
                        cause: cause.clone(),
                        depth: p.depth,
                    });
                    p.effects.clear();
                    p.fresh_effects.clear();
                    let depth = p.depth;
                    self.floor_mut(depth).pending.remove(&victim.id);
                } else if let Some(depth) = monster_depth(victim.id) {
                    self.floor_mut(depth).monsters.remove(&victim.id);
                }
            }
            Event::GainedXp { id, amount } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.xp = p.xp.saturating_add(*amount);
                } else if let Some(m) = self.monster_mut(*id) {
                    m.xp = m.xp.saturating_add(*amount);
                }
            }
            Event::LeveledUp { id, level, stat } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.level = *level;
                    p.unspent += 1;
                    // Healed to full on every level-up (given).
                    p.hp = p.stats(&content).max_hp;
                } else if let Some(m) = self.monster_mut(*id) {
                    m.level = *level;
                    if let Some(s) = stat {
                        m.points.add(*s);
                    }
                    m.hp = m.stats(&content).max_hp;
                }
            }
            Event::SpentPoint { id, stat } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.points.add(*stat);
                    p.unspent = p.unspent.saturating_sub(1);
                    if *stat == Stat::MaxHp {
                        // More max HP comes filled.
                        p.hp += content.level_up.max_hp;
                    }
                    if *stat == Stat::Sight {
                        self.update_sight(*id);
                    }
                }
            }
            Event::Healed { id, amount } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.hp = (p.hp + amount).min(p.stats(&content).max_hp);
                } else if let Some(m) = self.monster_mut(*id) {
                    m.hp = (m.hp + amount).min(m.stats(&content).max_hp);
                }
            }
            Event::DoorOpened {
                depth,
                pos,
                by,
                key,
            } => {
                self.floor_mut(*depth).open_door(*pos);
                if let Some(k) = key
                    && let Some(p) = self.players.get_mut(by)
                {
                    p.inventory.retain(|i| i.id != *k);
                }
                // Everyone on the floor may see further now.
                let here: Vec<EntityId> = self.players_on(*depth).map(|p| p.id).collect();
                for id in here {
                    self.update_sight(id);
                }
            }
            Event::PickedUp { id, item, .. } => {
                let Some(depth) = self.players.get(id).map(|p| p.depth) else {
                    return;
                };
                if let Some((_, mut it)) = self.floor_mut(depth).items.remove(item)
                    && let Some(p) = self.players.get_mut(id)
                {
                    it.found = true;
                    p.inventory.push(it);
                }
            }
            Event::Dropped { id, item, pos } => {
                let Some(p) = self.players.get_mut(id) else {
                    return;
                };
                let Some(k) = p.inventory.iter().position(|i| i.id == *item) else {
                    return;
                };
                let mut it = p.inventory.remove(k);
                let was_worn = it.equipped;
                it.equipped = false;
                let depth = p.depth;
                self.floor_mut(depth).items.insert(it.id, (*pos, it));
                if was_worn {
                    self.after_gear_change(*id);
                }
            }
            Event::Equipped { id, item } | Event::Unequipped { id, item } => {
                let on = matches!(event, Event::Equipped { .. });
                if let Some(it) = self
                    .players
                    .get_mut(id)
                    .and_then(|p| p.inventory.iter_mut().find(|i| i.id == *item))
                {
                    it.equipped = on;
                }
                self.after_gear_change(*id);
            }
            Event::UsedUp { id, item } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.inventory.retain(|i| i.id != *item);
                }
            }
            Event::EffectStarted { id, effect } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.effects.insert(*effect);
                    p.fresh_effects.insert(*effect);
                }
            }
            Event::EffectEnded { id, effect } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.effects.remove(effect);
                    p.fresh_effects.remove(effect);
                }
            }
            Event::PoisonHurt { id, amount } => {
                if let Some(p) = self.players.get_mut(id) {
                    p.hp = (p.hp - amount).max(1);
                }
            }
            Event::Victory { winners, .. } => {
                for id in winners {
                    if let Some(p) = self.players.get_mut(id) {
                        p.victory = true;
                        // The winners leave the floor: they take no more turns, hold up no
                        // floor and draw no monster.
                        p.present = false;
                        p.effects.clear();
                        p.fresh_effects.clear();
                        let depth = p.depth;
                        self.floor_mut(depth).pending.remove(id);
                    }
                }
            }
            Event::TurnEnded { depth, players } => {
                self.floor_mut(*depth).turn += 1;
                // Everyone who took part, even if they left by the stairs during the turn.
                for id in players {
                    if let Some(p) = self.players.get_mut(id).filter(|p| p.alive) {
                        p.turns += 1;
                        // Effects struck this turn face their first saving throw next turn.
                        p.fresh_effects.clear();
                    }
                }
            }
        }
    }

    /// After something was put on or taken off: HP stays within the new maximum, and the
    /// sight radius may have changed.
    fn after_gear_change(&mut self, id: EntityId) {
        let content = Arc::clone(&self.content);
        if let Some(p) = self.players.get_mut(&id) {
            p.hp = p.hp.min(p.stats(&content).max_hp);
        }
        self.update_sight(id);
    }

    fn monster_mut(&mut self, id: EntityId) -> Option<&mut super::monster::Monster> {
        let depth = monster_depth(id)?;
        self.floors
            .get_mut(usize::from(depth) - 1)?
            .as_mut()?
            .monsters
            .get_mut(&id)
    }

    /// Recomputes what character `id` sees, and adds it to its memory of the floor.
    fn update_sight(&mut self, id: EntityId) {
        let Some(p) = self.players.get(&id) else {
            return;
        };
        let (depth, sight) = (p.depth, p.stats(&self.content).sight);
        self.floor_mut(depth);
        // Borrow the fields apart: the floor is read while the player is written.
        let Some(Some(floor)) = self.floors.get(usize::from(depth).wrapping_sub(1)) else {
            return;
        };
        let Some(p) = self.players.get_mut(&id) else {
            return;
        };
        let (w, h) = (floor.map.width(), floor.map.height());
        p.fov.resize(w * h, false);
        fov::compute(&floor.opaque, w, h, p.pos.x, p.pos.y, sight, &mut p.fov);
        let memory = p
            .memory
            .entry(depth)
            .or_insert_with(|| delve_protocol::TileGrid::new(w, h));
        for (i, &seen) in p.fov.iter().enumerate() {
            if seen {
                memory.set_index(i, floor.map.cells()[i]);
            }
        }
    }

    /// Whether a living character or a monster stands at `p` on floor `depth`.
    fn occupied(&self, depth: u8, p: Pos) -> bool {
        self.living_on(depth).any(|o| o.pos == p)
            || self.floor(depth).is_some_and(|f| f.monster_at(p).is_some())
    }

    /// `want` if it is free, else the nearest free walkable cell.
    fn free_cell_or(&mut self, depth: u8, want: Pos) -> Option<Pos> {
        if !self.occupied(depth, want) {
            return Some(want);
        }
        self.free_cell_near(depth, want)
    }

    /// The walkable, unoccupied, non-stair cell nearest to `target` on floor `depth`.
    fn free_cell_near(&mut self, depth: u8, target: Pos) -> Option<Pos> {
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
            .position(|k| k.key == key)
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
        self.players.get_mut(&id).unwrap().inventory.push(item);
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
            floor.opaque[i] = !tile.is_walkable();
        }
        let here: Vec<EntityId> = self.players_on(depth).map(|p| p.id).collect();
        for id in here {
            self.update_sight(id);
        }
    }

    /// Strikes `id` with `effect` as a monster's hit in the turn before would, for tests: the
    /// next turn's end brings its first saving throw.
    #[cfg(test)]
    pub(crate) fn afflict_for_test(&mut self, id: EntityId, effect: Effect) {
        self.apply(&Event::EffectStarted { id, effect });
        if let Some(p) = self.players.get_mut(&id) {
            p.fresh_effects.clear();
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

    /// `id` takes `a` and floor 1's turn resolves; the turn's events.
    pub fn turn(d: &mut Dungeon, id: EntityId, a: Action) -> Vec<Event> {
        d.submit(id, a).expect("the action is allowed");
        d.resolve_turn(1).events
    }

    /// The log lines `events` hold for `id`.
    pub fn said(events: &[Event], id: EntityId) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Message { to, text, .. } if *to == id => Some(text.clone()),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::monster::Ai;
    use crate::game::stats::{player_base, xp_for_level};

    /// Content without monsters, for rules about movement, sight and turns.
    fn quiet(seed: u64) -> Dungeon {
        Dungeon::new(seed, Arc::new(Content::builtin_without_monsters()))
    }

    fn full(seed: u64) -> Dungeon {
        Dungeon::new(seed, Arc::new(Content::builtin()))
    }

    fn place(d: &mut Dungeon, id: EntityId, pos: Pos) {
        d.place_for_test(id, 1, pos);
    }

    /// A floor cell on floor `depth` whose row has at least `len` floor cells to its east, and
    /// whose rows above and below are open too (a room, not a corridor).
    fn open_area(d: &mut Dungeon, depth: u8, len: i32) -> Pos {
        let map = d.floor_mut(depth).map.clone();
        (0..map.cells().len())
            .map(|i| map.pos_of(i))
            .find(|p| {
                (-1..=1).all(|dy| {
                    (-1..=len).all(|k| map.get(Pos::new(p.x + k, p.y + dy)) == Tile::Floor)
                })
            })
            .expect("a room wide enough")
    }

    fn walls_free_dir(d: &Dungeon, id: EntityId) -> Dir {
        Dir::ALL
            .into_iter()
            .find(|&dir| d.check(id, Action::Move(dir)).is_ok())
            .expect("a way out")
    }

    #[test]
    fn players_arrive_beside_the_up_stair_on_distinct_cells() {
        let mut d = quiet(1234);
        let up = d.floor_mut(1).up;
        let mut seen = Vec::new();
        for name in ["Ann", "Bob", "Cy", "Di"] {
            let (id, events) = d.join(name).unwrap();
            let p = d.player(id).unwrap();
            assert_eq!(p.depth, 1);
            assert_eq!(d.floor(1).unwrap().tile(p.pos), Tile::Floor);
            assert!(
                p.pos.chebyshev(up) <= 2,
                "{name} at {:?}, stair at {up:?}",
                p.pos
            );
            assert!(!seen.contains(&p.pos));
            seen.push(p.pos);
            assert!(
                events.iter().any(
                    |e| matches!(e, Event::Message { text, .. } if text == "Entering floor #1")
                )
            );
            let s = p.stats(d.content());
            // Level 1 (given): 25 HP, sight 8, defence 4, attack 1-4, saving throw 10.
            assert_eq!((p.hp, s.max_hp, p.level, p.xp, s.sight), (25, 25, 1, 0, 8));
            assert_eq!(
                (s.defence, s.attack_min, s.attack_max, s.save),
                (4, 1, 4, 10)
            );
        }
        assert_eq!(
            d.join("ann").unwrap_err(),
            JoinError::NameTaken("ann".into())
        );
    }

    #[test]
    fn moves_step_onto_floor_and_walls_are_refused_before_queueing() {
        let mut d = quiet(1234);
        let (id, _) = d.join("Ann").unwrap();
        let start = open_area(&mut d, 1, 3);
        place(&mut d, id, start);
        d.submit(id, Action::Move(Dir::E)).unwrap();
        assert!(d.is_ready(1));
        let report = d.resolve_turn(1);
        assert_eq!(report.turn, 1);
        assert_eq!(
            report.events[0],
            Event::Moved {
                id,
                from: start,
                to: start.step(Dir::E)
            }
        );
        assert_eq!(d.player(id).unwrap().pos, start.step(Dir::E));

        while d
            .floor(1)
            .unwrap()
            .tile(d.player(id).unwrap().pos.step(Dir::W))
            .is_walkable()
        {
            d.submit(id, Action::Move(Dir::W)).unwrap();
            d.resolve_turn(1);
        }
        let before = d.player(id).unwrap().pos;
        assert_eq!(d.submit(id, Action::Move(Dir::W)), Err(ActionError::Wall));
        assert!(
            !d.floor(1).unwrap().has_choices(),
            "a refused action queues nothing"
        );
        assert_eq!(d.player(id).unwrap().pos, before);
    }

    #[test]
    fn a_player_in_the_way_blocks_the_step_with_a_message() {
        let mut d = quiet(1234);
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        let p = open_area(&mut d, 1, 3);
        place(&mut d, ann, p);
        place(&mut d, bob, p.step(Dir::E));
        d.submit(ann, Action::Move(Dir::E)).unwrap();
        d.submit(bob, Action::Wait).unwrap();
        let report = d.resolve_turn(1);
        assert_eq!(d.player(ann).unwrap().pos, p);
        assert!(report.events.contains(&Event::Message {
            to: ann,
            kind: MessageKind::Normal,
            text: "Bob is in the way.".into()
        }));
        assert_eq!(
            d.player(bob).unwrap().hp,
            25,
            "no friendly fire between players"
        );
    }

    #[test]
    fn the_turn_waits_for_every_connected_living_player_and_choices_are_replaceable() {
        let mut d = quiet(1234);
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        assert!(!d.is_ready(1), "nobody chose");
        d.submit(ann, Action::Wait).unwrap();
        assert!(!d.is_ready(1));
        assert_eq!(d.waiting_for(1), vec![bob]);
        let dir = walls_free_dir(&d, ann);
        d.submit(ann, Action::Move(dir)).unwrap();
        assert_eq!(d.floor(1).unwrap().pending(ann), Some(Action::Move(dir)));
        d.submit(bob, Action::Wait).unwrap();
        assert!(d.is_ready(1));
        let report = d.resolve_turn(1);
        assert_eq!(
            report.actions,
            vec![(ann, Action::Move(dir)), (bob, Action::Wait)]
        );
        assert!(!d.floor(1).unwrap().has_choices());

        // A disconnected player never blocks, and a choice it made before leaving stands.
        d.submit(bob, Action::Wait).unwrap();
        d.set_connected(bob, false);
        assert_eq!(d.floor(1).unwrap().pending(bob), Some(Action::Wait));
        assert!(!d.is_ready(1), "Ann has not chosen");
        d.submit(ann, Action::Wait).unwrap();
        assert!(d.is_ready(1));
        d.resolve_turn(1);
        d.submit(ann, Action::Wait).unwrap();
        assert!(
            d.is_ready(1),
            "silent and disconnected: the turn is Ann's alone"
        );
    }

    #[test]
    fn a_timed_out_turn_resolves_with_the_silent_player_waiting() {
        let mut d = quiet(1234);
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        let bob_at = d.player(bob).unwrap().pos;
        let dir = walls_free_dir(&d, ann);
        d.submit(ann, Action::Move(dir)).unwrap();
        assert!(!d.is_ready(1));
        let report = d.resolve_turn(1);
        assert_eq!(report.actions, vec![(ann, Action::Move(dir))]);
        assert_eq!(d.player(bob).unwrap().pos, bob_at);
        assert_eq!(d.floor(1).unwrap().turn, 1);
    }

    #[test]
    fn resolution_order_is_drawn_fairly_not_by_join_order() {
        let mut d = quiet(1234);
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        let left = open_area(&mut d, 1, 3);
        let (mid, right) = (left.step(Dir::E), left.step(Dir::E).step(Dir::E));
        let mut ann_wins = 0;
        for _ in 0..200 {
            place(&mut d, ann, left);
            place(&mut d, bob, right);
            d.submit(ann, Action::Move(Dir::E)).unwrap();
            d.submit(bob, Action::Move(Dir::W)).unwrap();
            d.resolve_turn(1);
            let (a, b) = (d.player(ann).unwrap().pos, d.player(bob).unwrap().pos);
            assert!((a == mid) ^ (b == mid), "exactly one gets the cell");
            if a == mid {
                ann_wins += 1;
            }
        }
        // A fair coin lands in 70..130 of 200 with probability > 99.9%; the seed is fixed.
        assert!((70..=130).contains(&ann_wins), "Ann won {ann_wins} of 200");
    }

    #[test]
    fn seen_tiles_stay_remembered_and_nothing_unseen_is_known() {
        let mut d = quiet(1234);
        let (id, _) = d.join("Ann").unwrap();
        let cells = d.floor(1).unwrap().map.cells().len();
        let mut ever_seen = vec![false; cells];
        let mut k = 0usize;
        for _ in 0..150 {
            for (i, s) in d.player(id).unwrap().fov().iter().enumerate() {
                ever_seen[i] |= *s;
            }
            let open: Vec<Dir> = Dir::ALL
                .into_iter()
                .filter(|&dir| d.check(id, Action::Move(dir)).is_ok())
                .collect();
            k = (k * 7 + 3) % open.len().max(1);
            d.submit(
                id,
                open.get(k).map_or(Action::Wait, |&dir| Action::Move(dir)),
            )
            .unwrap();
            d.resolve_turn(1);
        }
        for (i, s) in d.player(id).unwrap().fov().iter().enumerate() {
            ever_seen[i] |= *s;
        }
        let truth = &d.floor(1).unwrap().map;
        let memory = d.player(id).unwrap().memory(1).unwrap();
        for (i, &seen) in ever_seen.iter().enumerate() {
            if seen {
                assert_eq!(
                    memory.cells()[i],
                    truth.cells()[i],
                    "cell {i} seen but not remembered right"
                );
            } else {
                assert_eq!(
                    memory.cells()[i],
                    Tile::Unknown,
                    "cell {i} known but never seen"
                );
            }
        }
    }

    /// Three players walking and fighting for 300 turns with monsters about.
    fn play(d: &mut Dungeon, turns: usize) -> Vec<EntityId> {
        let ids: Vec<EntityId> = ["Ann", "Bob", "Cy"]
            .iter()
            .map(|n| d.join(n).unwrap().0)
            .collect();
        for t in 0..turns {
            for (k, &id) in ids.iter().enumerate() {
                let dir = Dir::ALL[(t / 7 + k * 3) % 8];
                if d.submit(id, Action::Move(dir)).is_err() {
                    let _ = d.submit(id, Action::Wait);
                }
            }
            d.resolve_turn(1);
        }
        ids
    }

    fn fingerprint(d: &Dungeon, ids: &[EntityId]) -> Vec<String> {
        let mut out: Vec<String> = ids
            .iter()
            .map(|id| {
                let p = d.player(*id).unwrap();
                format!(
                    "{} {:?} hp{} xp{} l{} alive{} {:?}",
                    p.name,
                    p.pos,
                    p.hp,
                    p.xp,
                    p.level,
                    p.alive,
                    p.memory(1).map(|m| m.cells().len())
                )
            })
            .collect();
        out.extend(
            d.floor(1)
                .unwrap()
                .monsters
                .values()
                .map(|m| format!("{} {:?} hp{} l{}", m.id, m.pos, m.hp, m.level)),
        );
        out
    }

    #[test]
    fn same_seed_and_inputs_give_the_same_world_monsters_and_all() {
        let (mut a, mut b, mut c) = (full(99), full(99), full(100));
        let (ia, ib, ic) = (play(&mut a, 300), play(&mut b, 300), play(&mut c, 300));
        assert_eq!(fingerprint(&a, &ia), fingerprint(&b, &ib));
        assert_ne!(fingerprint(&a, &ia), fingerprint(&c, &ic));
    }

    #[test]
    fn replaying_the_reported_actions_reproduces_the_world() {
        let mut live = full(5);
        let mut copy = full(5);
        let ids: Vec<EntityId> = ["Ann", "Bob"]
            .iter()
            .map(|n| live.join(n).unwrap().0)
            .collect();
        for n in ["Ann", "Bob"] {
            copy.join(n).unwrap();
        }
        for t in 0..200usize {
            for (k, &id) in ids.iter().enumerate() {
                let dir = Dir::ALL[(t / 3 + k * 3) % 8];
                if live.submit(id, Action::Move(dir)).is_err() {
                    let _ = live.submit(id, Action::Wait);
                }
            }
            let report = live.resolve_turn(1);
            let replayed = copy.replay_turn(1, &report.actions);
            assert_eq!(replayed, report, "turn {t}");
        }
        assert_eq!(fingerprint(&live, &ids), fingerprint(&copy, &ids));
    }

    // ---- monsters, combat, experience, floors -------------------------------------------

    #[test]
    fn floors_fill_with_more_monsters_deeper_at_the_floor_s_level_and_the_king_alone_at_the_bottom()
    {
        let mut d = full(7);
        let c = d.content().clone();
        let mut last = 0;
        for depth in 1..=9u8 {
            let floor = d.floor_mut(depth);
            let n = floor.monsters.len();
            assert_eq!(
                n as u32,
                c.spawn.count + c.spawn.count_per_floor * u32::from(depth - 1),
                "floor {depth}"
            );
            assert!(n > last);
            last = n;
            let up = floor.up;
            let dist = crate::game::mapgen::distances(&floor.map, up);
            for m in floor.monsters.values() {
                let k = m.kind(&c);
                assert!(
                    k.floors[0] <= depth && depth <= k.floors[1],
                    "{} on floor {depth}",
                    k.key
                );
                assert_eq!(
                    m.level,
                    u32::from(depth),
                    "monsters start at the floor's level"
                );
                assert!(!k.boss);
                let steps = dist[floor.map.index(m.pos).unwrap()].unwrap();
                assert!(
                    steps >= c.spawn.safe_distance,
                    "{} starts {steps} steps from the stair",
                    k.key
                );
                // Level-1 monsters have exactly the rolled HP in the given range.
                if depth == 1 {
                    assert!((k.hp[0]..=k.hp[1]).contains(&m.stats(&c).max_hp));
                }
            }
        }
        let bottom = d.floor_mut(10);
        assert_eq!(bottom.monsters.len(), 1);
        let king = bottom.monsters.values().next().unwrap();
        assert_eq!(king.kind(&c).key, "mouse_king");
        assert!(
            bottom.down.is_none(),
            "the bottom floor has no way further down"
        );
    }

    #[test]
    fn monster_hp_rolls_cover_the_given_ranges() {
        let c = Content::builtin();
        let mut rng = crate::game::rng::floor_rng(1, 1, crate::game::rng::Stream::Spawn);
        for (kind, k) in c.monsters.iter().enumerate() {
            let rolls: Vec<i32> = (0..400)
                .map(|_| {
                    crate::game::monster::make(&c, kind, 1, Pos::new(0, 0), 1, &mut rng)
                        .stats(&c)
                        .max_hp
                })
                .collect();
            assert_eq!(*rolls.iter().min().unwrap(), k.hp[0], "{}", k.key);
            assert_eq!(*rolls.iter().max().unwrap(), k.hp[1], "{}", k.key);
        }
    }

    #[test]
    fn killing_a_monster_gives_its_xp_and_counts_the_kill() {
        let mut d = quiet(3);
        let (ann, _) = d.join("Ann").unwrap();
        let p = open_area(&mut d, 1, 3);
        place(&mut d, ann, p);
        let mouse = d.add_monster_for_test(1, "micro_mouse", 1, p.step(Dir::E));
        let mut events = Vec::new();
        for _ in 0..100 {
            if !d.floor(1).unwrap().monsters.contains_key(&mouse) {
                break;
            }
            d.submit(ann, Action::Move(Dir::E)).unwrap();
            events.extend(d.resolve_turn(1).events);
        }
        assert!(
            !d.floor(1).unwrap().monsters.contains_key(&mouse),
            "the Micro Mouse died"
        );
        let ann_p = d.player(ann).unwrap();
        assert_eq!(ann_p.kills, 1);
        // Same level: the table value (given: 10 XP for a Micro Mouse).
        assert_eq!(ann_p.xp, 10);
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Died { victim, .. } if victim.id == mouse))
        );
        assert!(events.contains(&Event::GainedXp {
            id: ann,
            amount: 10
        }));
        assert!(events.iter().any(
            |e| matches!(e, Event::Attacked { attacker, damage: Some(_), .. } if attacker.id == ann)
        ));
    }

    #[test]
    fn kill_xp_is_split_among_the_players_who_see_it() {
        let mut d = quiet(3);
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        let p = open_area(&mut d, 1, 4);
        place(&mut d, ann, p);
        place(&mut d, bob, p.step(Dir::S).step(Dir::W));
        let mouse = d.add_monster_for_test(1, "neo_mouse", 1, p.step(Dir::E));
        for _ in 0..200 {
            if !d.floor(1).unwrap().monsters.contains_key(&mouse) {
                break;
            }
            d.submit(ann, Action::Move(Dir::E)).unwrap();
            d.submit(bob, Action::Wait).unwrap();
            d.resolve_turn(1);
        }
        let (a, b) = (d.player(ann).unwrap(), d.player(bob).unwrap());
        assert!(a.alive && b.alive);
        // The Neo Mouse's XP, split between the two witnesses, both at its level.
        let neo = d.content().monster("neo_mouse").unwrap().xp;
        assert_eq!((a.xp, b.xp), (neo / 2, neo / 2));
        assert_eq!((a.kills, b.kills), (1, 0));
    }

    #[test]
    fn levelling_up_heals_fully_and_grants_a_point_to_spend() {
        let mut d = quiet(3);
        let (ann, _) = d.join("Ann").unwrap();
        d.players.get_mut(&ann).unwrap().hp = 3;
        let events = d.gain_xp_for_test(ann, 100);
        assert!(events.contains(&Event::LeveledUp {
            id: ann,
            level: 2,
            stat: None
        }));
        let c = d.content().clone();
        let p = d.player(ann).unwrap();
        assert_eq!(p.level, 2);
        assert_eq!(
            p.hp,
            player_base(&c, 2).max_hp,
            "healed to the new maximum (35)"
        );
        assert_eq!(p.unspent, 1);
        let before = p.stats(&c);
        d.spend_point(ann, Stat::Defence).unwrap();
        let p = d.player(ann).unwrap();
        assert_eq!(p.stats(&c).defence, before.defence + 1);
        assert_eq!(p.unspent, 0);
        assert_eq!(
            d.spend_point(ann, Stat::Attack),
            Err(ActionError::NoPoints),
            "no point left: refused"
        );
        assert_eq!(
            d.player(ann).unwrap().stats(&c).attack_min,
            before.attack_min,
            "and nothing changed"
        );
        // Several levels at once: one point each.
        d.gain_xp_for_test(ann, xp_for_level(&c, 5) - 100);
        let p = d.player(ann).unwrap();
        assert_eq!((p.level, p.unspent), (5, 3));
        d.spend_point(ann, Stat::MaxHp).unwrap();
        let p = d.player(ann).unwrap();
        assert_eq!(p.stats(&c).max_hp, player_base(&c, 5).max_hp + 10);
        assert_eq!(p.hp, p.stats(&c).max_hp, "the extra HP comes filled");
    }

    #[test]
    fn a_monster_that_sees_a_player_chases_and_attacks() {
        let mut d = quiet(11);
        let (ann, _) = d.join("Ann").unwrap();
        let p = open_area(&mut d, 1, 6);
        place(&mut d, ann, p);
        let rat = d.add_monster_for_test(1, "neo_mouse", 1, Pos::new(p.x + 5, p.y));
        let mut dist = 5;
        let mut attacked = false;
        for _ in 0..20 {
            d.submit(ann, Action::Wait).unwrap();
            let report = d.resolve_turn(1);
            let Some(m) = d.floor(1).unwrap().monsters.get(&rat) else {
                break;
            };
            let now = m.pos.chebyshev(d.player(ann).unwrap().pos);
            assert!(now <= dist, "the chase never backs off ({dist} -> {now})");
            dist = now;
            assert!(matches!(m.ai, Ai::Hunt { .. }), "alerted");
            if report.events.iter().any(|e| matches!(e, Event::Attacked { attacker, target, .. } if attacker.id == rat && target.id == ann)) {
                attacked = true;
                break;
            }
        }
        assert!(attacked, "it reached Ann and attacked");
    }

    #[test]
    fn unalerted_monsters_patrol_and_monsters_never_fight_each_other() {
        let mut d = full(21);
        let (ann, _) = d.join("Ann").unwrap();
        // Ann only waits here; she must outlive the mice that find her.
        d.players.get_mut(&ann).unwrap().hp = 100_000;
        let start: BTreeMap<EntityId, (Pos, i32)> = d
            .floor(1)
            .unwrap()
            .monsters
            .values()
            .map(|m| (m.id, (m.pos, m.hp)))
            .collect();
        for _ in 0..60 {
            d.submit(ann, Action::Wait).unwrap();
            let report = d.resolve_turn(1);
            for e in &report.events {
                if let Event::Attacked {
                    attacker, target, ..
                } = e
                {
                    assert!(
                        attacker.player != target.player,
                        "monsters only fight players: {e:?}"
                    );
                    assert_ne!(attacker.id, target.id);
                }
            }
        }
        let floor = d.floor(1).unwrap();
        let moved = floor
            .monsters
            .values()
            .filter(|m| start.get(&m.id).is_some_and(|(p, _)| *p != m.pos))
            .count();
        assert!(
            moved * 2 >= floor.monsters.len(),
            "most monsters wander: {moved} of {}",
            floor.monsters.len()
        );
        for m in floor.monsters.values() {
            if let Some((_, hp)) = start.get(&m.id) {
                // Nobody but players could have hurt them, and Ann only waited.
                assert_eq!(m.hp, *hp);
            }
        }
    }

    #[test]
    fn a_blocked_monster_finds_another_way() {
        // Two hunters and a player in a room: the second hunter's best step is taken by the
        // first, so it must sidestep round it rather than wait behind it forever.
        let mut d = quiet(11);
        let (ann, _) = d.join("Ann").unwrap();
        let p = open_area(&mut d, 1, 6);
        place(&mut d, ann, p);
        let first = d.add_monster_for_test(1, "neo_mouse", 1, Pos::new(p.x + 2, p.y));
        let second = d.add_monster_for_test(1, "neo_mouse", 1, Pos::new(p.x + 3, p.y));
        let mut reached = false;
        for _ in 0..10 {
            d.submit(ann, Action::Wait).unwrap();
            d.resolve_turn(1);
            let floor = d.floor(1).unwrap();
            if floor
                .monsters
                .get(&second)
                .is_some_and(|m| m.pos.chebyshev(p) == 1)
            {
                reached = true;
                break;
            }
            if !d.player(ann).unwrap().alive {
                break;
            }
        }
        let _ = first;
        assert!(reached, "the second monster went round the first");
    }

    #[test]
    fn monsters_that_kill_players_gain_xp_and_level_up() {
        let mut d = quiet(4);
        let (ann, _) = d.join("Ann").unwrap();
        let p = open_area(&mut d, 1, 3);
        place(&mut d, ann, p);
        d.players.get_mut(&ann).unwrap().hp = 1;
        d.players.get_mut(&ann).unwrap().level = 3;
        let brute = d.add_monster_for_test(1, "meta_mouse", 1, p.step(Dir::E));
        let mut report = None;
        for _ in 0..30 {
            d.submit(ann, Action::Wait).unwrap();
            let r = d.resolve_turn(1);
            if !d.player(ann).unwrap().alive {
                report = Some(r);
                break;
            }
        }
        let report = report.expect("the Meta Mouse killed Ann");
        let c = d.content().clone();
        let ann_p = d.player(ann).unwrap();
        assert_eq!(
            ann_p.death.as_ref().unwrap().cause,
            "killed by a Meta Mouse on floor 1"
        );
        // A level-3 player is worth 3 * player_value_per_level, scaled up for the level gap.
        let worth = 3 * c.xp.player_value_per_level;
        let gained = kill_xp(&c.xp, worth, 3, 1);
        assert!(gained > worth, "worth more to a lower-level monster");
        assert!(report.events.contains(&Event::GainedXp {
            id: brute,
            amount: gained
        }));
        let m = &d.floor(1).unwrap().monsters[&brute];
        let level = crate::game::stats::level_for_xp(&c, gained);
        assert!(level >= 2);
        assert_eq!(m.level, level, "levelled like a player");
        assert!(report.events.iter().any(
            |e| matches!(e, Event::LeveledUp { id, level: 2, stat: Some(_) } if *id == brute)
        ));
        assert_eq!(m.hp, m.stats(&c).max_hp, "healed on levelling");
    }

    #[test]
    fn the_dead_cannot_act_block_or_hold_up_a_turn_and_can_start_again() {
        let mut d = quiet(4);
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        let p = open_area(&mut d, 1, 3);
        place(&mut d, ann, p);
        d.players.get_mut(&ann).unwrap().hp = 1;
        d.add_monster_for_test(1, "meta_mouse", 3, p.step(Dir::E));
        for _ in 0..30 {
            d.submit(bob, Action::Wait).unwrap();
            d.submit(ann, Action::Wait).ok();
            d.resolve_turn(1);
            if !d.player(ann).unwrap().alive {
                break;
            }
        }
        assert!(!d.player(ann).unwrap().alive);
        assert_eq!(d.check(ann, Action::Wait), Err(ActionError::Dead));
        assert_eq!(
            d.waiting_for(1),
            vec![bob],
            "only the living are waited for"
        );
        assert!(d.living_on(1).all(|x| x.id != ann));
        assert_eq!(d.new_character(bob).unwrap_err(), JoinError::StillAlive);
        let (again, _) = d.new_character(ann).unwrap();
        let fresh = d.player(again).unwrap();
        assert_ne!(again, ann);
        assert_eq!(
            (fresh.name.as_str(), fresh.alive, fresh.level, fresh.depth),
            ("Ann", true, 1, 1)
        );
    }

    /// Walks `id` to the stair at `target` on its floor (quiet floors only).
    fn walk_to(d: &mut Dungeon, id: EntityId, target: Pos) {
        for _ in 0..400 {
            let p = d.player(id).unwrap();
            if p.pos == target {
                return;
            }
            let map = &d.floor(p.depth).unwrap().map;
            let route =
                crate::game::path::astar(map, p.pos, target, 400, |_| false).expect("a way");
            let dir = Dir::from_delta(route[0].x - p.pos.x, route[0].y - p.pos.y).unwrap();
            d.submit(id, Action::Move(dir)).unwrap();
            let depth = d.player(id).unwrap().depth;
            d.resolve_turn(depth);
        }
        panic!("never reached {target:?}");
    }

    #[test]
    fn stairs_lead_down_and_back_up_to_the_floor_as_it_was_left() {
        let mut d = full(8);
        let (ann, _) = d.join("Ann").unwrap();
        assert_eq!(
            d.check(ann, Action::Descend),
            Err(ActionError::NoStairs),
            "not on the stairs"
        );
        let up1 = d.floor(1).unwrap().up;
        place(&mut d, ann, up1);
        assert_eq!(
            d.check(ann, Action::Ascend),
            Err(ActionError::NoWayUp),
            "floor 1's up-stair leads nowhere"
        );
        let down1 = d.floor(1).unwrap().down.unwrap();
        // Teleport beside the stair (walking would meet monsters) and step on.
        place(&mut d, ann, down1);
        let floor1_before: Vec<(EntityId, Pos, i32)> = d
            .floor(1)
            .unwrap()
            .monsters
            .values()
            .map(|m| (m.id, m.pos, m.hp))
            .collect();
        let turn1 = d.floor(1).unwrap().turn;

        d.submit(ann, Action::Descend).unwrap();
        let report = d.resolve_turn(1);
        let p = d.player(ann).unwrap();
        assert_eq!(p.depth, 2);
        assert_eq!(
            p.pos,
            d.floor(2).unwrap().up,
            "arriving from above: at the up-stair"
        );
        assert_eq!(p.deepest, 2);
        assert_eq!(report.floors, vec![1, 2]);
        let texts: Vec<&str> = report
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Message { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            texts.contains(&"You descend the staircase.") && texts.contains(&"Entering floor #2"),
            "{texts:?}"
        );
        let turn1_after_descent = d.floor(1).unwrap().turn;
        assert_eq!(turn1_after_descent, turn1 + 1);

        // Floor 2 ticks on its own; floor 1 stands still meanwhile.
        for _ in 0..5 {
            d.submit(ann, Action::Wait).unwrap();
            d.resolve_turn(2);
        }
        assert_eq!(
            d.floor(1).unwrap().turn,
            turn1_after_descent,
            "nobody on floor 1: its clock stopped"
        );
        let floor1_mid: Vec<(EntityId, Pos, i32)> = d
            .floor(1)
            .unwrap()
            .monsters
            .values()
            .map(|m| (m.id, m.pos, m.hp))
            .collect();

        d.submit(ann, Action::Ascend).unwrap();
        d.resolve_turn(2);
        let p = d.player(ann).unwrap();
        assert_eq!(p.depth, 1);
        assert_eq!(p.pos, down1, "arriving from below: at the down-stair");
        let floor1_after: Vec<(EntityId, Pos, i32)> = d
            .floor(1)
            .unwrap()
            .monsters
            .values()
            .map(|m| (m.id, m.pos, m.hp))
            .collect();
        assert_eq!(floor1_after, floor1_mid, "floor 1 exactly as it was left");
        assert_eq!(floor1_before.len(), floor1_after.len());
    }

    #[test]
    fn a_quiet_floor_walk_reaches_the_bottom() {
        // Every floor's down-stair is reachable from its up-stair; ten floors deep.
        let mut d = quiet(12);
        let (ann, _) = d.join("Ann").unwrap();
        for depth in 1..10u8 {
            let down = d.floor_mut(depth).down.unwrap();
            walk_to(&mut d, ann, down);
            d.submit(ann, Action::Descend).unwrap();
            d.resolve_turn(depth);
            assert_eq!(d.player(ann).unwrap().depth, depth + 1);
        }
        assert_eq!(d.player(ann).unwrap().deepest, 10);
        assert_eq!(d.check(ann, Action::Descend), Err(ActionError::NoStairs));
    }

    #[test]
    fn players_heal_slowly_over_time() {
        let mut d = quiet(2);
        let (ann, _) = d.join("Ann").unwrap();
        d.players.get_mut(&ann).unwrap().hp = 10;
        let every = d.content().player.regen_turns as usize;
        for _ in 0..every * 3 {
            d.submit(ann, Action::Wait).unwrap();
            d.resolve_turn(1);
        }
        assert_eq!(d.player(ann).unwrap().hp, 13);
    }

    #[test]
    fn a_dead_player_keeps_the_name_while_here_and_old_records_make_room() {
        let mut d = quiet(4);
        let (ann, _) = d.join("Ann").unwrap();
        let mut out = Vec::new();
        let actor = |id| Actor {
            id,
            name: "x".into(),
            pos: Pos::new(0, 0),
            player: true,
        };
        d.emit(
            Event::Died {
                victim: actor(ann),
                killer: None,
                cause: "test".into(),
            },
            &mut out,
        );
        assert_eq!(
            d.join("ann").unwrap_err(),
            JoinError::NameTaken("ann".into()),
            "Ann may still start again"
        );
        let (again, _) = d.new_character(ann).unwrap();
        assert!(
            d.player(ann).is_none(),
            "the dead record gave way to the new character"
        );
        assert_eq!(d.character_count(), 1);
        // A dead character whose player left frees the name, and is the first to be evicted.
        d.emit(
            Event::Died {
                victim: actor(again),
                killer: None,
                cause: "test".into(),
            },
            &mut out,
        );
        d.set_connected(again, false);
        assert!(
            d.join("Ann").is_ok(),
            "the name is free once its dead player has gone"
        );
        assert_eq!(d.character_count(), 2);
        assert!(d.evict_dead());
        assert_eq!(d.character_count(), 1);
        assert!(!d.evict_dead(), "nothing else to evict");
    }

    #[test]
    fn the_turn_spent_on_the_stairs_counts_and_the_top_level_has_no_next() {
        let mut d = quiet(8);
        let (ann, _) = d.join("Ann").unwrap();
        let down = d.floor_mut(1).down.unwrap();
        place(&mut d, ann, down);
        let before = d.player(ann).unwrap().turns;
        d.submit(ann, Action::Descend).unwrap();
        d.resolve_turn(1);
        assert_eq!(d.player(ann).unwrap().turns, before + 1);
        let c = d.content().clone();
        d.players.get_mut(&ann).unwrap().level = c.levels.max_level;
        let (from, next) = d.player(ann).unwrap().xp_band(&c);
        assert_eq!(from, next, "no next level to show progress towards");
    }
}
