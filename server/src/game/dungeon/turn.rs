//! Resolving a floor's turn: the players' choices in a fair order, then the monsters, then the
//! end of the turn.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::sync::Arc;

use delve_protocol::{Effect, Pos};
use rand::seq::SliceRandom;

use super::*;
use crate::game::EntityId;
use crate::game::action::{Action, ActionError};
use crate::game::ai::{Ctx, Paths, Thought, think};
use crate::game::event::Event;
use crate::game::floor::Floor;
use crate::game::fov;
use crate::game::input::Outcome;
use crate::game::monster::Ai;
use crate::game::patrol::RoomFields;
use crate::game::sight::Sight;

/// The monster phase's working memory, kept from one turn to the next on each thread: arrays the
/// size of a floor (who stands where, what each player's cell sees, the flow field, the route
/// search's) cost more to allocate and clear every turn than much of the work done with them.
/// Not part of the world: each phase overwrites whatever it reads.
#[derive(Default)]
struct PhaseMemory {
    awareness: Vec<Sight>,
    /// Where each monster stands and how far it sees, for `awareness`.
    sights: Vec<(Pos, i32)>,
    occupant: Vec<Option<EntityId>>,
    /// Every cell of `occupant` set to someone since it was last cleared: the next phase clears
    /// those alone, rather than writing every cell of the floor each turn.
    occupied: Vec<usize>,
    paths: Paths,
}

thread_local! {
    static PHASE_MEMORY: Cell<PhaseMemory> = Cell::default();
}

impl Dungeon {
    /// Resolves the turn of floor `depth` with `actions` (in id order): they are carried out in
    /// an order drawn from the floor's dice (nobody is favoured for joining first), characters
    /// that did not choose wait, then every monster on the floor acts, then the turn ends.
    /// Choices still pending on the floor are spent when the turn ends (`TurnEnded`).
    pub(in crate::game) fn resolve_turn(
        &mut self,
        depth: u8,
        actions: &[(EntityId, Action)],
    ) -> Outcome {
        let mut order = actions.to_vec();
        order.shuffle(&mut self.floor_mut(depth).rng);

        let mut out = Vec::new();
        let mut floors = vec![depth];
        let present: Vec<EntityId> = self.living_on(depth).map(|p| p.id).collect();
        // Whom the turn waited for and who let its timer run out (see `away`).
        let waited: Vec<EntityId> = self.waited_for(depth).map(|p| p.id).collect();
        let missed = Dungeon::missed_by(&waited, actions);
        // Who rests this turn, and which friends each saw when its rest was chosen (or, in a
        // replay, as the turn begins): one coming into view ends the rest, one already in view
        // does not.
        let resting: Vec<(EntityId, BTreeSet<EntityId>)> = (actions.iter())
            .filter(|(_, a)| *a == Action::Rest)
            .map(|(id, _)| {
                let chosen = self.floor(depth).and_then(|f| f.rest_company.get(id));
                let company = chosen.cloned();
                (*id, company.unwrap_or_else(|| self.friends_in_sight(*id)))
            })
            .collect();
        for (id, action) in order {
            // Earlier in this turn the character may have died or left the floor.
            if self
                .players
                .get(&id)
                .is_some_and(|p| p.active() && p.depth == depth)
            {
                self.act(depth, id, action, &mut out, &mut floors);
            }
        }
        self.monsters_act(depth, &mut out);
        self.wanderer(depth, &mut out);
        self.end_turn(depth, present, missed.clone(), &mut out);
        self.go_away(&missed, &mut out);
        self.too_late(&mut out);
        self.grow(depth, &mut out);
        self.marks_fade(depth, &mut out);
        self.rest_on(depth, resting, &mut out);
        let turn = self.floor(depth).map_or(0, |f| f.turn);
        Outcome {
            events: out,
            character: None,
            floors,
            turn,
        }
    }

    /// The choices made on floor `depth` for its coming turn, in id order: what
    /// [`Input::Turn`](crate::game::input::Input::Turn) resolves live.
    pub fn choices(&self, depth: u8) -> Vec<(EntityId, Action)> {
        self.floor(depth)
            .map(|f| f.pending.iter().map(|(id, a)| (*id, *a)).collect())
            .unwrap_or_default()
    }

    /// Applies `event` and records it.
    pub(super) fn emit(&mut self, event: Event, out: &mut Vec<Event>) {
        self.apply(&event);
        out.push(event);
    }

    /// Carries out `id`'s action on floor `depth`: the one execute path for players and monsters
    /// alike, so a rule about acting cannot skip either. What each may do differs only where
    /// the rules say so (mice open no doors, pick nothing up and never fight each other).
    pub(super) fn act(
        &mut self,
        depth: u8,
        id: EntityId,
        action: Action,
        out: &mut Vec<Event>,
        floors: &mut Vec<u8>,
    ) {
        if let Some(p) = self.players.get(&id) {
            // Smelling Salts act before a stun can take the turn.
            if p.has(Effect::Stun) && !self.clears_head(p, action) {
                let cause = Effect::Stun;
                self.emit(Event::LostTurn { id, cause }, out);
                return;
            }
            if matches!(action, Action::Move { dir: _ }) && p.has(Effect::Confusion) {
                let staggered = self.stagger(depth, id, out);
                return self.carry_out(depth, id, staggered, out, floors);
            }
        } else if self.floor(depth).is_some_and(|f| f.stunned.contains(&id)) {
            // A monster stunned by a hit this turn loses its action, as a player would.
            let cause = Effect::Stun;
            self.emit(Event::LostTurn { id, cause }, out);
            return;
        }
        self.carry_out(depth, id, action, out, floors);
    }

    fn carry_out(
        &mut self,
        depth: u8,
        id: EntityId,
        action: Action,
        out: &mut Vec<Event>,
        floors: &mut Vec<u8>,
    ) {
        let Some(from) = self.position(depth, id) else {
            return;
        };
        match action {
            // A rest is a wait that goes on (see `rest_on`).
            Action::Wait | Action::Rest => {}
            Action::Throw { .. } | Action::Fire { .. } => self.shoot(depth, id, action, out),
            Action::Give { .. } | Action::UseOn { .. } => self.help(depth, id, action, out),
            Action::Move { dir } => self.step_into(depth, id, from, from.step(dir), out),
            Action::PickUp => {
                if self
                    .floor(depth)
                    .is_some_and(|f| f.items_at(from).next().is_none())
                {
                    let why = ActionError::NothingHere;
                    self.emit(Event::Refused { id, why }, out);
                } else {
                    self.pick_up_all(depth, id, out);
                }
            }
            Action::Use { item }
            | Action::Equip { item }
            | Action::Unequip { item }
            | Action::Drop { item } => self.pack_act(depth, id, action, item, out),
            Action::Descend | Action::Ascend => {
                let to = if action == Action::Descend {
                    depth + 1
                } else {
                    depth - 1
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
                    let why = ActionError::StairsBlocked;
                    self.emit(Event::Refused { id, why }, out);
                    return;
                };
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
                if !floors.contains(&to) {
                    floors.push(to);
                }
            }
        }
    }

    /// Where `id` stands on floor `depth`, player or monster.
    pub(super) fn position(&self, depth: u8, id: EntityId) -> Option<Pos> {
        match self.players.get(&id) {
            Some(p) => Some(p.pos),
            None => self.floor(depth)?.monsters.get(&id).map(|m| m.pos),
        }
    }

    /// A step from `from` to `to`: what is there decides what the step does. Into an enemy it
    /// is an attack; into a shut door a player opens it; onto a free cell it is a move (and a
    /// player picks up what lies there, unless confused: no pack handling while confused, so a
    /// stagger onto items leaves them lying).
    fn step_into(&mut self, depth: u8, id: EntityId, from: Pos, to: Pos, out: &mut Vec<Event>) {
        let player = self.players.contains_key(&id);
        let Some(floor) = self.floor(depth) else {
            return;
        };
        let tile = floor.tile(to);
        if tile.is_shut_door() {
            if player {
                self.try_door(depth, id, to, tile, out);
            }
            return;
        }
        let wall = !tile.is_walkable();
        let monster = floor.monster_at(to).map(|m| m.id);
        let character = self.living_on(depth).find(|o| o.pos == to).map(|o| o.id);
        match (wall, monster, character) {
            (true, _, _) => {
                if player {
                    self.emit(Event::Blocked { id, by: None }, out);
                }
            }
            // Monsters never fight each other.
            (_, Some(target), _) => {
                if player {
                    self.attack(depth, id, target, out);
                }
            }
            (_, _, Some(other)) => {
                if player {
                    let by = self.fighter(depth, other).map(|f| f.actor);
                    self.emit(Event::Blocked { id, by }, out);
                } else {
                    self.attack(depth, id, other, out);
                }
            }
            _ => {
                self.emit(Event::Moved { id, from, to }, out);
                let confused = self
                    .players
                    .get(&id)
                    .is_some_and(|p| p.has(Effect::Confusion));
                if player && !confused {
                    self.pick_up_all(depth, id, out);
                }
            }
        }
    }

    pub(super) fn monsters_act(&mut self, depth: u8, out: &mut Vec<Event>) {
        let mut memory = PHASE_MEMORY.take();
        self.monsters_act_with(depth, out, &mut memory);
        PHASE_MEMORY.set(memory);
    }

    fn monsters_act_with(&mut self, depth: u8, out: &mut Vec<Event>, memory: &mut PhaseMemory) {
        let PhaseMemory {
            awareness,
            sights,
            occupant,
            occupied,
            paths,
        } = memory;
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
        // Each player's view of the floor as far as a monster could see that player from:
        // by the symmetry of the field of view, exactly the cells whose monsters can see it.
        // A monster is only asked whether it sees a player within its own sight radius (see
        // `ai::Ctx`), and within a radius a field of view is the same whatever the radius
        // (the radius only cuts off what lies beyond it): so each player's field goes as far
        // as the widest sight of the monsters that stand within their sight of it, and is
        // empty when none does, which on a big floor is most players most turns. Monsters
        // move only when they act, after they have looked.
        sights.clear();
        sights.extend((floor.monsters.values()).map(|m| (m.pos, m.stats(&content).sight.min(40))));
        awareness.resize_with(players.len(), Sight::default);
        // A character's own field of view (kept current by `update_sight` whenever it moves,
        // its sight changes or a door opens) is that field already, out to its sight: when
        // that reaches as far, it is copied rather than cast again.
        for ((id, p), seen) in players.iter().zip(awareness.iter_mut()) {
            let reach = (sights.iter())
                .filter(|(at, sight)| fov::within_radius(p.x - at.x, p.y - at.y, *sight))
                .map(|(_, sight)| *sight)
                .max();
            let own = self.players.get(id).filter(|c| c.pos == *p);
            match (reach, own) {
                (Some(reach), Some(c)) if c.stats(&content).sight >= reach => {
                    seen.clone_from(&c.fov)
                }
                (Some(reach), _) => fov::compute(&floor.opaque, w, h, p.x, p.y, reach, seen),
                (None, _) => fov::Lit::clear(seen, w * h),
            }
        }
        if occupant.len() == w * h {
            for i in occupied.drain(..) {
                occupant[i] = None;
            }
        } else {
            occupant.clear();
            occupant.resize(w * h, None);
            occupied.clear();
        }
        for (id, p) in &players {
            if let Some(i) = floor.map.index(*p) {
                occupant[i] = Some(*id);
                occupied.push(i);
            }
        }
        for m in floor.monsters.values() {
            if let Some(i) = floor.map.index(m.pos) {
                occupant[i] = Some(m.id);
                occupied.push(i);
            }
        }
        let ids: Vec<EntityId> = floor.monsters.keys().copied().collect();
        paths.new_phase();
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
                rooms,
                open_cells,
                patrol,
                monsters,
                rng,
                ..
            } = floor;
            let patrol = patrol.get_or_insert_with(|| RoomFields::new(map, rooms));
            let Some(m) = monsters.get_mut(&mid) else {
                continue;
            };
            // The monster's plan goes to the AI and comes straight back as the `Planned` event
            // below: a route is handed over rather than copied, for every monster every turn.
            let held = std::mem::take(&mut m.ai);
            let m = &*m;
            let sight = m.stats(&content).sight;
            let ctx = Ctx {
                map,
                open_cells,
                patrol,
                players: &players,
                awareness: &awareness[..players.len()],
                occupant,
            };
            let how = m.behaviour(&content);
            let Thought { action, plan, call } = think(m, held, how, sight, &ctx, paths, rng);
            let from = m.pos;
            let step = match action {
                Action::Move { dir } => map.index(from.step(dir)),
                _ => None,
            };
            self.apply_owned(Event::Planned {
                depth,
                id: mid,
                plan,
            });
            if let Some(at) = call {
                self.call_for_help(depth, mid, at, how.calls, out);
            }
            let Some(ti) = step else {
                if let Action::Fire { .. } = action {
                    self.act(depth, mid, action, out, &mut Vec::new());
                    if self.forget_the_dead(depth, &mut players, awareness, occupant) {
                        paths.new_phase();
                    }
                }
                continue;
            };
            let target = occupant[ti].filter(|t| self.players.contains_key(t));
            self.act(depth, mid, action, out, &mut Vec::new());
            if let Some(target) = target {
                if self.players.get(&target).is_some_and(|p| !p.alive) {
                    // The dead no longer draw monsters or block the way.
                    let at = players.iter().position(|(id, _)| *id == target);
                    if let Some(k) = at {
                        players.remove(k);
                        awareness.remove(k);
                    }
                    occupant[ti] = None;
                    paths.new_phase();
                }
            } else if self.position(depth, mid) != Some(from) {
                if let Some(fi) = self.floor(depth).and_then(|f| f.map.index(from)) {
                    occupant[fi] = None;
                }
                occupant[ti] = Some(mid);
                occupied.push(ti);
            }
        }
    }

    /// Monster `id` squeaked for help at `at`: every monster within `radius` of it that is not
    /// already hunting, running or dazed comes for `at` (walls do not stop a squeak).
    fn call_for_help(
        &mut self,
        depth: u8,
        id: EntityId,
        at: Pos,
        radius: i32,
        out: &mut Vec<Event>,
    ) {
        let Some(floor) = self.floor(depth) else {
            return;
        };
        let Some(here) = floor.monsters.get(&id).map(|m| m.pos) else {
            return;
        };
        let near = |p: Pos| fov::within_radius(p.x - here.x, p.y - here.y, radius);
        let heard: Vec<EntityId> = (floor.monsters.values())
            .filter(|m| m.id != id && near(m.pos) && m.ai.is_calm())
            .map(|m| m.id)
            .collect();
        self.emit(Event::Called { depth, id, at }, out);
        for m in heard {
            let plan = Ai::Hunt {
                target: at,
                route: Vec::new(),
                stuck: 0,
            };
            self.apply_owned(Event::Planned { depth, id: m, plan });
        }
    }

    /// Takes the players a monster's action killed out of the monster phase's lists (the dead
    /// no longer draw monsters or block the way): whether there were any.
    fn forget_the_dead(
        &self,
        depth: u8,
        players: &mut Vec<(EntityId, Pos)>,
        awareness: &mut Vec<Sight>,
        occupant: &mut [Option<EntityId>],
    ) -> bool {
        let mut any = false;
        for k in (0..players.len()).rev() {
            let (id, pos) = players[k];
            if self.players.get(&id).is_some_and(|p| !p.alive) {
                players.remove(k);
                awareness.remove(k);
                if let Some(i) = self.floor(depth).and_then(|f| f.map.index(pos)) {
                    occupant[i] = None;
                }
                any = true;
            }
        }
        any
    }

    /// The end of a floor's turn: natural healing, then the clock moves. `present` are the
    /// characters who were on the floor when the turn began, `missed` those it waited for in
    /// vain.
    pub(super) fn end_turn(
        &mut self,
        depth: u8,
        present: Vec<EntityId>,
        missed: Vec<EntityId>,
        out: &mut Vec<Event>,
    ) {
        let (every, percent) = (
            self.content.player.regen_turns,
            self.content.player.regen_percent,
        );
        if every > 0 {
            // Poison stops natural healing. A bigger body heals more at a time: `regen_percent`
            // of the maximum, and never less than 1 HP.
            let healed: Vec<(EntityId, i32)> = self
                .living_on(depth)
                .filter(|p| (p.turns + 1) % u64::from(every) == 0 && !p.has(Effect::Poison))
                .filter_map(|p| {
                    let max = p.stats(&self.content).max_hp;
                    let amount = (max * percent as i32 / 100).max(1).min(max - p.hp);
                    (amount > 0).then_some((p.id, amount))
                })
                .collect();
            for (id, amount) in healed {
                let by = None;
                self.emit(Event::Healed { id, amount, by }, out);
            }
        }
        self.effects_end_turn(depth, out);
        self.emit(
            Event::TurnEnded {
                depth,
                players: present,
                missed,
            },
            out,
        );
    }
}
