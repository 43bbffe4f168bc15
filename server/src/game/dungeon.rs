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

    /// Marks whether a connection drives `id`. A disconnected character never holds up its
    /// floor's turn. A choice it already made stands: it was accepted, and dropping it would
    /// also drop the turn's timer if it was the only one, leaving the others waiting.
    pub fn set_connected(&mut self, id: EntityId, connected: bool) {
        if let Some(p) = self.players.get_mut(&id) {
            p.connected = connected;
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

    /// Puts `id` at `pos` on floor `depth`, for setting up scenes in tests.
    #[cfg(test)]
    pub(crate) fn place_for_test(&mut self, id: EntityId, depth: u8, pos: Pos) {
        self.floor_mut(depth);
        self.apply(&Event::Arrived { id, depth, pos });
        self.refresh_sight(depth);
    }

    /// Recomputes what every character on floor `depth` sees, and adds it to their memory.
    fn refresh_sight(&mut self, depth: u8) {
        self.floor_mut(depth);
        // Borrow the fields apart: the floor is read while players are written.
        let Some(Some(floor)) = self.floors.get(usize::from(depth).wrapping_sub(1)) else {
            return;
        };
        let (w, h) = (floor.map.width(), floor.map.height());
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

#[cfg(test)]
mod tests {
    use super::*;

    fn dungeon() -> Dungeon {
        Dungeon::new(1234)
    }

    fn place(d: &mut Dungeon, id: EntityId, pos: Pos) {
        d.place_for_test(id, 1, pos);
    }

    /// A floor cell on floor 1 whose row has at least `len` floor cells to its east.
    fn open_row(d: &mut Dungeon, len: i32) -> Pos {
        let map = &d.floor_mut(1).map;
        (0..map.cells().len())
            .map(|i| map.pos_of(i))
            .find(|p| (0..len).all(|k| map.get(Pos::new(p.x + k, p.y)) == Tile::Floor))
            .expect("a room wide enough")
    }

    #[test]
    fn players_arrive_beside_the_up_stair_on_distinct_cells() {
        let mut d = dungeon();
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
            // Level 1 stats (given): 25 HP, sight 8.
            assert_eq!((p.hp, p.max_hp, p.level, p.xp, p.sight), (25, 25, 1, 0, 8));
        }
        assert_eq!(
            d.join("ann").unwrap_err(),
            JoinError::NameTaken("ann".into())
        );
    }

    #[test]
    fn moves_step_onto_floor_and_walls_are_refused_before_queueing() {
        let mut d = dungeon();
        let (id, _) = d.join("Ann").unwrap();
        let start = open_row(&mut d, 3);
        place(&mut d, id, start);
        d.submit(id, Action::Move(Dir::E)).unwrap();
        assert!(d.is_ready(1));
        let report = d.resolve_turn(1);
        assert_eq!(report.turn, 1);
        assert_eq!(
            report.events,
            vec![Event::Moved {
                id,
                from: start,
                to: start.step(Dir::E)
            }]
        );
        assert_eq!(d.player(id).unwrap().pos, start.step(Dir::E));

        // Walk west until a wall is next, then bump it.
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
        let mut d = dungeon();
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        let p = open_row(&mut d, 3);
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
    }

    #[test]
    fn the_turn_waits_for_every_connected_player_and_choices_are_replaceable() {
        let mut d = dungeon();
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        assert!(!d.is_ready(1), "nobody chose");
        d.submit(ann, Action::Wait).unwrap();
        assert!(!d.is_ready(1));
        assert_eq!(d.waiting_for(1), vec![bob]);
        // Replacing a choice keeps one pending action.
        let dir = Dir::ALL
            .into_iter()
            .find(|&dir| d.check(ann, Action::Move(dir)).is_ok())
            .unwrap();
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
        // Disconnected and silent: the turn is Ann's alone to complete.
        d.submit(ann, Action::Wait).unwrap();
        assert!(d.is_ready(1));
    }

    #[test]
    fn a_timed_out_turn_resolves_with_the_silent_player_waiting() {
        let mut d = dungeon();
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        let bob_at = d.player(bob).unwrap().pos;
        let dir = Dir::ALL
            .into_iter()
            .find(|&dir| d.check(ann, Action::Move(dir)).is_ok())
            .unwrap();
        d.submit(ann, Action::Move(dir)).unwrap();
        assert!(!d.is_ready(1));
        // The shell's timer fired: resolve anyway.
        let report = d.resolve_turn(1);
        assert_eq!(report.actions, vec![(ann, Action::Move(dir))]);
        assert_eq!(d.player(bob).unwrap().pos, bob_at);
        assert_eq!(d.floor(1).unwrap().turn, 1);
    }

    #[test]
    fn resolution_order_is_drawn_fairly_not_by_join_order() {
        // Ann and Bob both step into the cell between them; whoever resolves first gets it.
        let mut d = dungeon();
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        let left = open_row(&mut d, 3);
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
        let mut d = dungeon();
        let (id, _) = d.join("Ann").unwrap();
        let mut ever_seen = vec![false; FLOOR_CELLS];
        let mut rng_dir = 0usize;
        for _ in 0..150 {
            for (i, s) in d.player(id).unwrap().fov().iter().enumerate() {
                ever_seen[i] |= *s;
            }
            let open: Vec<Dir> = Dir::ALL
                .into_iter()
                .filter(|&dir| d.check(id, Action::Move(dir)).is_ok())
                .collect();
            rng_dir = (rng_dir * 7 + 3) % open.len().max(1);
            d.submit(
                id,
                open.get(rng_dir)
                    .map_or(Action::Wait, |&dir| Action::Move(dir)),
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

    const FLOOR_CELLS: usize = crate::game::mapgen::FLOOR_WIDTH * crate::game::mapgen::FLOOR_HEIGHT;

    #[test]
    fn same_seed_and_inputs_give_the_same_world() {
        fn play(seed: u64) -> Vec<(Pos, Vec<Tile>)> {
            let mut d = Dungeon::new(seed);
            let ids: Vec<EntityId> = ["Ann", "Bob", "Cy"]
                .iter()
                .map(|n| d.join(n).unwrap().0)
                .collect();
            for t in 0..120usize {
                for (k, &id) in ids.iter().enumerate() {
                    let dir = Dir::ALL[(t * 3 + k * 5) % 8];
                    if d.submit(id, Action::Move(dir)).is_err() {
                        d.submit(id, Action::Wait).unwrap();
                    }
                }
                d.resolve_turn(1);
            }
            ids.iter()
                .map(|id| {
                    let p = d.player(*id).unwrap();
                    (p.pos, p.memory(1).unwrap().cells().to_vec())
                })
                .collect()
        }
        assert_eq!(play(99), play(99));
        assert_ne!(play(99), play(100));
    }

    #[test]
    fn replaying_the_reported_actions_reproduces_the_world() {
        let mut live = Dungeon::new(5);
        let mut copy = Dungeon::new(5);
        let ids: Vec<EntityId> = ["Ann", "Bob"]
            .iter()
            .map(|n| live.join(n).unwrap().0)
            .collect();
        for n in ["Ann", "Bob"] {
            copy.join(n).unwrap();
        }
        for t in 0..80usize {
            for (k, &id) in ids.iter().enumerate() {
                let dir = Dir::ALL[(t + k * 3) % 8];
                if live.submit(id, Action::Move(dir)).is_err() {
                    live.submit(id, Action::Wait).unwrap();
                }
            }
            let report = live.resolve_turn(1);
            let replayed = copy.replay_turn(1, &report.actions);
            assert_eq!(replayed, report, "turn {t}");
        }
        for id in ids {
            assert_eq!(live.player(id).unwrap().pos, copy.player(id).unwrap().pos);
        }
    }
}
