//! Marking a spot for friends ("look here"): a character marks a cell of its floor it has
//! seen, and every character on that floor has it in its view (`view.marks`) for
//! `party.mark_turns` turns of the floor. A new mark replaces the character's old one. Marking
//! takes no turn, and is journaled as its own input ([`Input::Mark`](crate::game::Input::Mark)).

use delve_protocol::{Pos, Tile};

use super::*;
use crate::game::EntityId;
use crate::game::action::ActionError;
use crate::game::event::Event;

impl Dungeon {
    /// Character `id` marks cell `at` of its floor for its friends there.
    pub(in crate::game) fn mark(
        &mut self,
        id: EntityId,
        at: Pos,
    ) -> Result<Vec<Event>, ActionError> {
        let p = self.still_playing(id)?;
        if !p.present {
            return Err(ActionError::NotPresent);
        }
        let depth = p.depth;
        let known =
            (p.memory.get(depth)).is_some_and(|m| m.in_bounds(at) && m.get(at) != Tile::Unknown);
        if !known {
            return Err(ActionError::UnknownCell);
        }
        let now = self.floor(depth).map_or(0, |f| f.turn);
        let until = now + u64::from(self.content.party.mark_turns);
        let mut out = Vec::new();
        self.emit(
            Event::Marked {
                id,
                depth,
                pos: at,
                until,
            },
            &mut out,
        );
        Ok(out)
    }

    /// After floor `depth`'s turn: the marks on it whose time is up are gone.
    pub(super) fn marks_fade(&mut self, depth: u8, out: &mut Vec<Event>) {
        let now = self.floor(depth).map_or(0, |f| f.turn);
        let gone: Vec<EntityId> = (self.party.marks.iter())
            .filter(|(_, m)| m.depth == depth && m.until <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in gone {
            self.emit(Event::Unmarked { id }, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use delve_protocol::{Dir, MessageKind, Pos};

    use crate::game::action::{Action, ActionError};
    use crate::game::content::Content;
    use crate::game::{Dungeon, EntityId, Input};

    fn wait_all(d: &mut Dungeon, depth: u8) {
        let ids: Vec<EntityId> = d.living_on(depth).map(|p| p.id).collect();
        for id in ids {
            let _ = d.submit(id, Action::Wait);
        }
        d.resolve_pending(depth);
    }

    #[test]
    fn a_marked_spot_shows_to_the_floors_friends_for_a_while_and_nowhere_else() {
        let mut d = Dungeon::new(4, Arc::new(Content::builtin_without_monsters()));
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        let (cid, _) = d.join("Cid").unwrap();
        let here = d.player(ann).unwrap().pos();
        // Cid is on floor 2.
        let p2 = d.floor_mut(2).open_cells[0];
        d.place_for_test(cid, 2, p2);
        // A cell Ann has never seen cannot be marked; one she sees can.
        let far = Pos::new(0, 0);
        assert_eq!(
            d.step(&Input::Mark { id: ann, at: far }).err(),
            Some(crate::game::Refusal::Action(ActionError::UnknownCell))
        );
        let at = here.step(Dir::E);
        let done = d.step(&Input::Mark { id: ann, at }).unwrap();
        let told = crate::view::events_for(&d, bob, 1, &done.events);
        assert!(
            told.iter().any(|e| matches!(e, delve_protocol::Event::Message { kind: MessageKind::Normal, text } if text == "Ann marks a spot: look here.")),
            "{told:?}"
        );
        let bob_sees = crate::view::view_of(&d, bob).unwrap().marks;
        assert_eq!(bob_sees.len(), 1);
        assert_eq!((bob_sees[0].by, bob_sees[0].pos), (ann, at));
        assert!(
            crate::view::view_of(&d, cid).unwrap().marks.is_empty(),
            "not on floor 2"
        );
        assert!(crate::view::events_for(&d, cid, 1, &done.events).is_empty());
        // It takes no turn, and it fades after mark_turns turns of the floor.
        assert_eq!(d.floor(1).unwrap().turn(), 0);
        for _ in 0..d.content().party.mark_turns {
            assert_eq!(crate::view::view_of(&d, ann).unwrap().marks.len(), 1);
            wait_all(&mut d, 1);
        }
        assert!(crate::view::view_of(&d, bob).unwrap().marks.is_empty());
        assert!(d.party().marks().is_empty());
        d.check_invariants().unwrap();
    }
}
