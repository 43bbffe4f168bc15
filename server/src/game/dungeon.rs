//! The whole world of one dungeon and the rules that move it forward.
//!
//! Inputs are `join`, `set_connected`, `submit` and `resolve_turn`; nothing else changes the
//! world, and nothing here reads a clock, a socket, a file or a global random generator. The
//! networking shell decides *when* a floor resolves (all chose, or its timer ran out); this module
//! decides *what* happens.

use std::collections::{BTreeMap, VecDeque};

use delve_protocol::{Dir, MessageKind, Pos, Tile};
use rand::seq::SliceRandom;

use super::EntityId;
use super::action::{Action, ActionError};
use super::event::Event;
use super::floor::Floor;
use super::fov;
use super::mapgen::GenParams;
use super::player::Player;

/// Floors in a dungeon *(given)*.
pub const FLOORS: u8 = 10;

/// Why a character could not join.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    #[error("Someone in this dungeon is already called {0}.")]
    NameTaken(String),
    #[error("There is no free place to arrive on floor 1.")]
    NoRoom,
}

/// What one resolved turn did: the actions taken (what a journal needs to replay it) and the
/// events that followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnReport {
    pub depth: u8,
    /// The turn number just resolved (1 for a floor's first turn).
    pub turn: u64,
    /// Every choice that was pending, in id order (the resolution order is drawn from the floor's
    /// dice, so replaying these reproduces it).
    pub actions: Vec<(EntityId, Action)>,
    pub events: Vec<Event>,
}

#[derive(Clone, Debug)]
pub struct Dungeon {
    seed: u64,
    params: GenParams,
    /// Floors by `depth - 1`, generated on first visit.
    floors: Vec<Option<Floor>>,
    players: BTreeMap<EntityId, Player>,
    next_id: EntityId,
}

impl Dungeon {
    pub fn new(seed: u64) -> Dungeon {
        Dungeon::with_params(seed, GenParams::default())
    }

    pub fn with_params(seed: u64, params: GenParams) -> Dungeon {
        Dungeon {
            seed,
            params,
            floors: (0..FLOORS).map(|_| None).collect(),
            players: BTreeMap::new(),
            next_id: 1,
        }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Floor `depth` (1-based), generating it on first use.
    pub fn floor_mut(&mut self, depth: u8) -> &mut Floor {
        let k = usize::from(depth.clamp(1, FLOORS) - 1);
        let (seed, params) = (self.seed, &self.params);
        self.floors[k]
            .get_or_insert_with(|| Floor::generate(seed, k as u8 + 1, k as u8 + 1 < FLOORS, params))
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

    /// Characters standing on floor `depth`.
    pub fn players_on(&self, depth: u8) -> impl Iterator<Item = &Player> {
        self.players.values().filter(move |p| p.depth == depth)
    }

    pub fn player_count(&self) -> usize {
        self.players.len()
    }

    /// Adds a new character called `name`, standing beside floor 1's up-stair.
    pub fn join(&mut self, name: &str) -> Result<(EntityId, Vec<Event>), JoinError> {
        if self
            .players
            .values()
            .any(|p| p.name.to_lowercase() == name.to_lowercase())
        {
            return Err(JoinError::NameTaken(name.to_owned()));
        }
        let up = self.floor_mut(1).up;
        let pos = self.free_cell_near(1, up).ok_or(JoinError::NoRoom)?;
        let id = self.next_id;
        self.next_id += 1;
        self.players
            .insert(id, Player::new(id, name.to_owned(), 1, pos));
        let events = vec![
            Event::Arrived { id, depth: 1, pos },
            Event::Message {
                to: id,
                kind: MessageKind::Normal,
                text: "Entering floor #1".into(),
            },
        ];
        for e in &events {
            self.apply(e);
        }
        self.refresh_sight(1);
        Ok((id, events))
    }

    /// Marks whether a connection drives `id`. A disconnected character waits and never holds up
    /// its floor's turn.
    pub fn set_connected(&mut self, id: EntityId, connected: bool) {
        if let Some(p) = self.players.get_mut(&id) {
            p.connected = connected;
            if !connected {
                let depth = p.depth;
                self.floor_mut(depth).pending.remove(&id);
            }
        }
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
        let floor = self.floor(p.depth).ok_or(ActionError::NotPresent)?;
        match action {
            Action::Wait => Ok(()),
            Action::Move(dir) => {
                let to = p.pos.step(dir);
                if !floor.map.in_bounds(to) {
                    Err(ActionError::OffMap)
                } else if !floor.tile(to).is_walkable() {
                    Err(ActionError::Wall)
                } else {
                    Ok(())
                }
            }
        }
    }

    /// Connected characters on floor `depth` that have not chosen yet.
    pub fn waiting_for(&self, depth: u8) -> Vec<EntityId> {
        let Some(floor) = self.floor(depth) else {
            return Vec::new();
        };
        self.players_on(depth)
            .filter(|p| p.connected && !floor.pending.contains_key(&p.id))
            .map(|p| p.id)
            .collect()
    }

    /// Whether floor `depth`'s turn can resolve now: someone chose and every connected character
    /// on the floor has chosen.
    pub fn is_ready(&self, depth: u8) -> bool {
        self.floor(depth).is_some_and(Floor::has_choices) && self.waiting_for(depth).is_empty()
    }

    /// Resolves the turn of floor `depth`: every pending choice is carried out in an order drawn
    /// from the floor's dice (so nobody is favoured for joining first), characters that did not
    /// choose wait, the clock advances and sight is recomputed.
    pub fn resolve_turn(&mut self, depth: u8) -> TurnReport {
        let floor = self.floor_mut(depth);
        let actions: Vec<(EntityId, Action)> =
            std::mem::take(&mut floor.pending).into_iter().collect();
        let mut order = actions.clone();
        order.shuffle(&mut floor.rng);
        floor.turn += 1;
        let turn = floor.turn;

        let mut events = Vec::new();
        for (id, action) in order {
            // A choice made earlier may have become impossible (someone stepped in the way).
            for e in self.execute(id, action) {
                self.apply(&e);
                events.push(e);
            }
        }
        self.refresh_sight(depth);
        TurnReport {
            depth,
            turn,
            actions,
            events,
        }
    }

    /// Replays a journaled turn: the same choices resolve exactly as they did the first time.
    pub fn replay_turn(&mut self, depth: u8, actions: &[(EntityId, Action)]) -> TurnReport {
        let floor = self.floor_mut(depth);
        floor.pending = actions.iter().copied().collect();
        self.resolve_turn(depth)
    }

    /// What an action does in the world as it stands, as events (nothing is changed here).
    fn execute(&self, id: EntityId, action: Action) -> Vec<Event> {
        let Some(p) = self.players.get(&id) else {
            return Vec::new();
        };
        match action {
            Action::Wait => Vec::new(),
            Action::Move(dir) => {
                let to = p.pos.step(dir);
                let Some(floor) = self.floor(p.depth) else {
                    return Vec::new();
                };
                if !floor.tile(to).is_walkable() {
                    return vec![msg(id, MessageKind::Normal, "There is a wall in the way.")];
                }
                if let Some(other) = self.players_on(p.depth).find(|o| o.pos == to) {
                    return vec![msg(
                        id,
                        MessageKind::Normal,
                        format!("{} is in the way.", other.name),
                    )];
                }
                vec![Event::Moved {
                    id,
                    from: p.pos,
                    to,
                }]
            }
        }
    }

    /// The only place the world changes.
    fn apply(&mut self, event: &Event) {
        match *event {
            Event::Moved { id, to, .. } => {
                if let Some(p) = self.players.get_mut(&id) {
                    p.pos = to;
                }
            }
            Event::Arrived { id, depth, pos } => {
                if let Some(p) = self.players.get_mut(&id) {
                    p.depth = depth;
                    p.pos = pos;
                }
            }
            Event::Message { .. } => {}
        }
    }

    /// Recomputes what every character on floor `depth` sees, and adds it to their memory.
    fn refresh_sight(&mut self, depth: u8) {
        let floor = self.floor_mut(depth);
        let (w, h) = (floor.map.width(), floor.map.height());
        // Split borrows: the floor is read while players are written.
        let floor = self.floors[usize::from(depth - 1)]
            .as_ref()
            .expect("generated just above");
        for p in self.players.values_mut().filter(|p| p.depth == depth) {
            p.fov.resize(w * h, false);
            fov::compute(&floor.opaque, w, h, p.pos.x, p.pos.y, p.sight, &mut p.fov);
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
    }

    /// The walkable, unoccupied, non-stair cell nearest to `target` on floor `depth`.
    fn free_cell_near(&mut self, depth: u8, target: Pos) -> Option<Pos> {
        let occupied: Vec<Pos> = self.players_on(depth).map(|p| p.pos).collect();
        let map = &self.floor_mut(depth).map;
        let mut seen = vec![false; map.width() * map.height()];
        let mut queue = VecDeque::from([target]);
        seen[map.index(target)?] = true;
        while let Some(p) = queue.pop_front() {
            if map.get(p) == Tile::Floor && !occupied.contains(&p) {
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
}

fn msg(to: EntityId, kind: MessageKind, text: impl Into<String>) -> Event {
    Event::Message {
        to,
        kind,
        text: text.into(),
    }
}
