//! The mouse on the map and walks under way. A left click on a known cell starts a trip there;
//! on an adjacent monster it attacks. A trip sends one ordinary move a turn, each chosen from the
//! view once the last one has resolved (see [`crate::travel`]); it ends when it arrives, when
//! something happens, or at any key.

use super::*;
use crate::travel::{Goal, Step};
use delve_protocol::Action;
use delve_protocol::{EntityKind, MessageKind};

impl App {
    /// Where the pointer is: the mouse, or where a script points.
    pub(super) fn pointer(&self) -> Vec2 {
        match (self.pointed, &self.script) {
            (Some(p), _) => p,
            // A scripted run ignores the real pointer (Xvfb parks it mid-screen).
            (None, Some(_)) => vec2(-100.0, -100.0),
            (None, None) => mouse_position().into(),
        }
    }

    /// Brings the hover box back when the pointer moves (keys put it away).
    pub(super) fn note_pointer(&mut self) {
        let p = self.pointer();
        if self.pointer_was.is_some_and(|was| was != p) {
            self.hover_off = false;
        }
        self.pointer_was = Some(p);
    }

    /// Marks the cell `at` for the friends on the floor to look at (no turn taken).
    pub(super) fn mark(&mut self, at: Pos) {
        self.net.send(ClientMsg::Mark { at });
    }

    /// The map cell under the mouse, if the mouse is over the drawn map.
    pub(super) fn cell_under_mouse(&self) -> Option<Pos> {
        self.cell_at(self.pointer())
    }

    /// The map cell at a window point, if the point is on the drawn map.
    pub(super) fn cell_at(&self, m: Vec2) -> Option<Pos> {
        let cam = self.camera?;
        if !cam.area.contains(m) {
            return None;
        }
        let c = ((m - cam.origin) / cam.tile).floor();
        let p = Pos::new(c.x as i32, c.y as i32);
        self.model
            .view
            .as_ref()
            .is_some_and(|v| v.map.in_bounds(p))
            .then_some(p)
    }

    /// A left click on the map (`at`, if this frame has one): attack an adjacent monster, or
    /// travel to a known cell.
    pub(super) fn mouse(&mut self, turn: u64, at: Option<Vec2>) {
        let Some(at) = at else {
            return;
        };
        let (Some(cell), Some(view)) = (self.cell_at(at), &self.model.view) else {
            return;
        };
        self.trip = None;
        let me = view.me.pos;
        let monster_there = view
            .entities
            .iter()
            .any(|e| e.pos == cell && e.kind == EntityKind::Monster);
        if monster_there && me.chebyshev(cell) == 1 {
            if let Some(dir) = Dir::from_delta(cell.x - me.x, cell.y - me.y) {
                self.act(ClientMsg::Act(Action::Move { dir }), turn);
            }
            return;
        }
        // A monster further off: walk to it and fight it, following it as it moves.
        if let Some(m) =
            (view.entities.iter()).find(|e| e.pos == cell && e.kind == EntityKind::Monster)
        {
            let id = m.id;
            self.start_trip(Goal::Monster(id));
            return;
        }
        let tile = view.map.get(cell);
        if cell == me || tile == Tile::Unknown {
            return;
        }
        // Walls are not places to go; doors are (walking into one opens it).
        if !tile.is_walkable() && !tile.is_shut_door() {
            let turn = view.turn;
            self.model
                .push_log(MessageKind::Warning, "You cannot walk there.".into(), turn);
            self.log_scroll = 0;
            return;
        }
        self.start_trip(Goal::Cell(cell));
    }

    pub(super) fn start_trip(&mut self, goal: Goal) {
        let Some(view) = &self.model.view else { return };
        match Trip::refuse(goal, view) {
            // Said once for each monster in the way, not at every press.
            Some((monster, _)) if self.refused_for == Some(monster) => {}
            Some((monster, why)) => {
                self.refused_for = Some(monster);
                let turn = view.turn;
                self.model.push_log(MessageKind::Warning, why, turn);
                self.log_scroll = 0;
            }
            None => self.trip = Some(Trip::new(goal, view)),
        }
    }

    /// Walks to the nearest friend on the floor, or after doing so to the next one (see
    /// `friends::to_visit`); says why not when nobody is there to go to.
    pub(super) fn travel_to_friend(&mut self) {
        let Some(view) = &self.model.view else { return };
        let steps = |at| crate::travel::steps_to(view, at);
        match crate::friends::to_visit(view, self.friend_last, steps) {
            Ok((id, _)) => self.go_to_friend(id),
            Err(why) => self.note(&why),
        }
    }

    /// Walks to friend `id` (a line of the party list, or [`App::travel_to_friend`]'s choice).
    pub(super) fn go_to_friend(&mut self, id: u32) {
        if self.spectating() {
            return;
        }
        let Some(view) = &self.model.view else { return };
        let Some(p) = view.party.iter().find(|p| p.id == id) else {
            return;
        };
        let name = p.name.clone();
        match crate::friends::pos_of(view, p) {
            Some(at) if at.chebyshev(view.me.pos) <= 1 => {
                self.note(&format!("{name} is next to you."))
            }
            Some(_) => {
                self.friend_last = Some(id);
                self.trip = None;
                self.note(&format!("You go to {name}."));
                self.start_trip(Goal::Friend(id));
            }
            None => self.note(&format!("{name} is not on this floor.")),
        }
    }

    /// Takes the next step of the trip under way once the last one has resolved and been shown.
    pub(super) fn trip_tick(&mut self, now: f64) {
        if self.trip.is_none() {
            return;
        }
        let joined = matches!(self.connection, Connection::Joined);
        if !joined || self.spectating() {
            self.trip = None;
            return;
        }
        // Paused while a screen is open over the map, and until the last step is done.
        if !matches!(self.screen, Screen::Game) || self.awaiting.is_some() || self.anims.busy(now) {
            return;
        }
        let (Some(view), Some(trip)) = (&self.model.view, &mut self.trip) else {
            return;
        };
        let turn = view.turn;
        let step = trip.next(view);
        // A trip walks; it does not fight. A monster in the way ends it.
        if let Step::Move(dir) = step
            && let Some(m) = view
                .entities
                .iter()
                .find(|e| e.pos == view.me.pos.step(dir) && e.kind == EntityKind::Monster)
        {
            let text = format!("A {} is in the way.", m.name);
            self.trip = None;
            self.model.push_log(MessageKind::Warning, text, turn);
            return;
        }
        match step {
            Step::Move(dir) | Step::Attack(dir) => {
                self.act(ClientMsg::Act(Action::Move { dir }), turn)
            }
            Step::TakeStairs { down } => {
                self.trip = None;
                let msg = if down {
                    ClientMsg::Act(Action::Descend)
                } else {
                    ClientMsg::Act(Action::Ascend)
                };
                self.act(msg, turn);
            }
            Step::Stop(why) => {
                self.trip = None;
                if !why.is_empty() {
                    self.model.push_log(MessageKind::Warning, why, turn);
                    self.log_scroll = 0;
                }
            }
        }
    }
}
