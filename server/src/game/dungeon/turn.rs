//! Resolving a floor's turn: the players' choices in a fair order, then the monsters, then the
//! end of the turn.

use std::sync::Arc;

use delve_protocol::{Effect, MessageKind, Pos};
use rand::seq::SliceRandom;

use super::*;
use crate::game::EntityId;
use crate::game::action::Action;
use crate::game::ai::{Ctx, think};
use crate::game::event::Event;
use crate::game::floor::Floor;
use crate::game::fov;
use crate::game::input::Outcome;

impl Dungeon {
    /// Resolves the turn of floor `depth` with `actions` (in id order): they are carried out in
    /// an order drawn from the floor's dice (nobody is favoured for joining first), characters
    /// that did not choose wait, then every monster on the floor acts, then the turn ends.
    /// Choices still pending on the floor are spent: the turn they were made for is over.
    pub(in crate::game) fn resolve_turn(
        &mut self,
        depth: u8,
        actions: &[(EntityId, Action)],
    ) -> Outcome {
        let floor = self.floor_mut(depth);
        floor.pending.clear();
        let mut order = actions.to_vec();
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

    pub(super) fn player_act(
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

    pub(super) fn monsters_act(&mut self, depth: u8, out: &mut Vec<Event>) {
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
    pub(super) fn end_turn(&mut self, depth: u8, present: Vec<EntityId>, out: &mut Vec<Event>) {
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
}
