//! Away players: nobody waits for a friend who stopped playing.
//!
//! A connected player whose floor waited for it (alive, on the floor, not away) and whose
//! turn resolved without its choice let the turn timer run out: the shell resolves a turn
//! with someone still to choose only when its timer runs out. After `party.away_after` such
//! turns in a row it is away: the floor no longer waits for it, and its character waits each
//! turn, until its player sends anything ([`Input::Back`](crate::game::Input::Back)) or its
//! connection changes. Everything here follows from journaled inputs (the turns' choices, the
//! comings back), so a replay goes away and comes back exactly as the live game did.

use super::*;
use crate::game::EntityId;
use crate::game::action::Action;
use crate::game::event::Event;

impl Dungeon {
    /// The characters floor `depth`'s turn waits for now: living, on the floor, their player
    /// connected and not away.
    pub(super) fn waited_for(&self, depth: u8) -> impl Iterator<Item = &Player> {
        self.living_on(depth)
            .filter(|p| p.connected && !p.victory && !self.party.is_away(p.id))
    }

    /// Of the characters the turn waited for (`waited`), those with no choice in `actions`:
    /// they let the timer run out.
    pub(super) fn missed_by(waited: &[EntityId], actions: &[(EntityId, Action)]) -> Vec<EntityId> {
        (waited.iter().copied())
            .filter(|id| !actions.iter().any(|(a, _)| a == id))
            .collect()
    }

    /// After a turn's end: each of `missed` that has now let the timer run out
    /// `party.away_after` turns in a row is away.
    pub(super) fn go_away(&mut self, missed: &[EntityId], out: &mut Vec<Event>) {
        let after = self.content.party.away_after;
        if after == 0 {
            return;
        }
        for &id in missed {
            let turns = self.party.missed.get(&id).copied().unwrap_or(0);
            let here = self.players.get(&id).is_some_and(Player::active);
            if turns >= after && here && !self.party.is_away(id) {
                self.emit(Event::Away { id }, out);
            }
        }
    }

    /// `id`'s player sent something: if it was away, it is back, and its floor waits for it
    /// again.
    pub(in crate::game) fn come_back(&mut self, id: EntityId) -> Vec<Event> {
        let mut out = Vec::new();
        if self.party.is_away(id) {
            self.emit(Event::Back { id }, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Input;

    /// Ann and Bob on floor 1, in a dungeon without monsters.
    fn two() -> (Dungeon, EntityId, EntityId) {
        let mut d = Dungeon::new(5, Arc::new(Content::builtin_without_monsters()));
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        (d, ann, bob)
    }

    /// Ann chooses a wait and the turn resolves without Bob's choice, as when the timer runs
    /// out: the turn's events.
    fn timed_out(d: &mut Dungeon, ann: EntityId) -> Vec<Event> {
        d.step(&Input::Choose {
            id: ann,
            action: Action::Wait,
        })
        .unwrap();
        let actions = d.choices(1);
        d.step(&Input::Turn { depth: 1, actions }).unwrap().events
    }

    #[test]
    fn two_timeouts_in_a_row_make_a_player_away_and_anything_sent_brings_it_back() {
        let (mut d, ann, bob) = two();
        assert_eq!(d.content().party.away_after, 2);
        assert_eq!(d.waiting_for(1), [ann, bob]);
        let first = timed_out(&mut d, ann);
        assert!(!first.iter().any(|e| matches!(e, Event::Away { .. })));
        assert!(!d.party().is_away(bob));
        let second = timed_out(&mut d, ann);
        assert!(second.contains(&Event::Away { id: bob }), "{second:?}");
        assert!(d.party().is_away(bob));
        // The floor no longer waits for Bob: Ann's choice alone resolves the turn.
        assert_eq!(d.waiting_for(1), [ann]);
        d.submit(ann, Action::Wait).unwrap();
        assert!(d.is_ready(1));
        d.resolve_pending(1);
        // Ann, who chose every turn, never went away.
        assert!(!d.party().is_away(ann));
        // Bob sends anything: he is back, and waited for again.
        let back = d.step(&Input::Back { id: bob }).unwrap().events;
        assert_eq!(back, [Event::Back { id: bob }]);
        assert_eq!(d.waiting_for(1), [ann, bob]);
        // Someone not away has nothing to come back from: nothing to journal.
        assert_eq!(
            d.step(&Input::Back { id: ann }),
            Err(crate::game::Refusal::Unchanged)
        );
    }

    #[test]
    fn a_choice_between_timeouts_starts_the_count_again() {
        let (mut d, ann, bob) = two();
        timed_out(&mut d, ann);
        d.submit(bob, Action::Wait).unwrap();
        d.submit(ann, Action::Wait).unwrap();
        d.resolve_pending(1);
        timed_out(&mut d, ann);
        assert!(!d.party().is_away(bob), "one timeout since Bob last chose");
        timed_out(&mut d, ann);
        assert!(d.party().is_away(bob));
    }

    #[test]
    fn nobody_waited_for_misses_a_turn() {
        let (mut d, ann, bob) = two();
        // Bob lost his connection: the floor does not wait for him, so he misses nothing.
        d.step(&Input::Connected {
            id: bob,
            connected: false,
        })
        .unwrap();
        for _ in 0..4 {
            timed_out(&mut d, ann);
        }
        assert!(!d.party().is_away(bob));
        // Back on line, he is waited for from nothing, and a connection's change also ends
        // being away.
        d.step(&Input::Connected {
            id: bob,
            connected: true,
        })
        .unwrap();
        timed_out(&mut d, ann);
        timed_out(&mut d, ann);
        assert!(d.party().is_away(bob));
        d.step(&Input::Connected {
            id: bob,
            connected: false,
        })
        .unwrap();
        assert!(!d.party().is_away(bob));
    }

    #[test]
    fn a_rest_never_counts_as_a_timeout() {
        let (mut d, ann, bob) = two();
        d.set_hp_for_test(bob, 5);
        d.submit(bob, Action::Rest).unwrap();
        for _ in 0..5 {
            timed_out(&mut d, ann);
        }
        assert!(
            !d.party().is_away(bob),
            "the rest was Bob's choice each turn"
        );
    }
}
