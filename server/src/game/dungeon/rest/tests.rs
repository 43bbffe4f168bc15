//! The rules of resting, through the engine.

use super::*;
use crate::game::action::ActionError;
use crate::game::dungeon::scene::said;
use crate::game::input::Input;
use crate::view;

fn quiet(seed: u64) -> Dungeon {
    Dungeon::new(seed, Arc::new(Content::builtin_without_monsters()))
}

/// A floor cell with open floor all round it for `r` cells (a room, not a corridor).
fn room(d: &mut Dungeon, r: i32) -> Pos {
    let map = d.floor_mut(1).map.clone();
    (0..map.cells().len())
        .map(|i| map.pos_of(i))
        .find(|p| {
            (-r..=r)
                .all(|dy| (-r..=r).all(|dx| map.get(Pos::new(p.x + dx, p.y + dy)) == Tile::Floor))
        })
        .expect("a room wide enough")
}

/// Ann, hurt to `hp`, alone in a room of floor 1.
fn hurt_ann(d: &mut Dungeon, hp: i32) -> (EntityId, Pos) {
    let (ann, _) = d.join("Ann").unwrap();
    let at = room(d, 2);
    d.place_for_test(ann, 1, at);
    d.set_hp_for_test(ann, hp);
    (ann, at)
}

/// Resolves floor 1's turn with the choices made for it, as the server does, recording the
/// input: the events.
fn turn(d: &mut Dungeon, log: &mut Vec<Input>) -> Vec<Event> {
    let actions = d.choices(1);
    let input = Input::Turn { depth: 1, actions };
    let done = d.step(&input).unwrap();
    log.push(input);
    done.events
}

#[test]
fn a_rest_goes_on_by_itself_until_hp_are_back_and_says_so() {
    let mut d = quiet(7);
    let (ann, _) = hurt_ann(&mut d, 20);
    let mut log = Vec::new();
    let start = d.clone();
    d.submit(ann, Action::Rest).unwrap();
    let every = u64::from(d.content().player.regen_turns);
    let mut turns = 0;
    let said_at_end = loop {
        assert!(d.is_ready(1), "a rester never holds up its floor");
        let events = turn(&mut d, &mut log);
        turns += 1;
        let lines = said(&events, ann);
        if d.floor(1).unwrap().pending(ann).is_none() {
            break lines;
        }
        assert!(lines.is_empty(), "a rest goes on quietly: {lines:?}");
        assert!(view::view_of(&d, ann).unwrap().me.resting);
        assert!(turns < 100, "a rest of 5 HP ends");
    };
    let p = d.player(ann).unwrap();
    assert_eq!(p.hp, p.stats(d.content()).max_hp);
    assert!(
        said_at_end.contains(&"You are fully rested.".to_string()),
        "{said_at_end:?}"
    );
    // 5 HP at one every `every` turns lived through.
    assert!(turns <= 5 * every, "{turns} turns");
    assert!(!view::view_of(&d, ann).unwrap().me.resting);
    // Every turn of rest is in the journal as an ordinary choice: a replay rests the same.
    assert!(
        log.iter()
            .all(|i| matches!(i, Input::Turn { actions, .. } if actions == &[(ann, Action::Rest)]))
    );
    let mut again = start;
    for input in &log {
        again.replay(input);
    }
    assert_eq!(again.state_hash(), d.state_hash());
}

#[test]
fn rest_is_refused_with_nothing_to_rest_for_or_a_monster_in_sight() {
    let mut d = quiet(7);
    let (ann, at) = hurt_ann(&mut d, 25);
    assert_eq!(d.submit(ann, Action::Rest), Err(ActionError::Rested));
    // An effect is something to rest for, even at full HP.
    d.afflict_for_test(ann, delve_protocol::Effect::Poison);
    assert!(d.check(ann, Action::Rest).is_ok());
    d.set_hp_for_test(ann, 10);
    d.add_monster_for_test(1, "micro_mouse", 1, at.step(Dir::E).step(Dir::E));
    assert_eq!(
        d.submit(ann, Action::Rest),
        Err(ActionError::MonsterInSight("Micro Mouse".into()))
    );
    assert_eq!(
        view::refusal(&ActionError::MonsterInSight("Micro Mouse".into())),
        "You cannot rest with a Micro Mouse in sight."
    );
    assert!(!d.floor(1).unwrap().has_choices(), "nothing was queued");
}

#[test]
fn a_monster_coming_into_view_ends_the_rest() {
    let mut d = quiet(7);
    let (ann, at) = hurt_ann(&mut d, 10);
    d.submit(ann, Action::Rest).unwrap();
    let mut log = Vec::new();
    turn(&mut d, &mut log);
    assert_eq!(d.floor(1).unwrap().pending(ann), Some(Action::Rest));
    // A mouse appears (as if it walked in): the next turn ends the rest.
    d.add_monster_for_test(1, "micro_mouse", 1, at.step(Dir::W).step(Dir::W));
    let events = turn(&mut d, &mut log);
    assert!(
        said(&events, ann)
            .contains(&"You stop resting: a Micro Mouse comes into view.".to_string()),
        "{:?}",
        said(&events, ann)
    );
    assert_eq!(d.floor(1).unwrap().pending(ann), None);
    assert!(!d.is_ready(1), "the floor waits for Ann again");
}

#[test]
fn an_attack_ends_the_rest() {
    let mut d = quiet(7);
    let (ann, at) = hurt_ann(&mut d, 10);
    d.submit(ann, Action::Rest).unwrap();
    // A mouse already next to her attacks in the monsters' phase of this very turn.
    d.add_monster_for_test(1, "micro_mouse", 1, at.step(Dir::N));
    let events = turn(&mut d, &mut Vec::new());
    assert!(
        said(&events, ann).contains(&"You stop resting: you are attacked!".to_string()),
        "{:?}",
        said(&events, ann)
    );
    assert_eq!(d.floor(1).unwrap().pending(ann), None);
}

#[test]
fn a_friend_coming_into_view_ends_the_rest_one_in_view_does_not() {
    let mut d = quiet(7);
    let (ann, at) = hurt_ann(&mut d, 10);
    let (bob, _) = d.join("Bob").unwrap();
    // Bob stands in view: Ann rests on while he is there and acts.
    d.place_for_test(bob, 1, at.step(Dir::E).step(Dir::E));
    d.submit(ann, Action::Rest).unwrap();
    assert_eq!(d.waiting_for(1), vec![bob], "the floor waits for Bob alone");
    d.submit(bob, Action::Wait).unwrap();
    let events = turn(&mut d, &mut Vec::new());
    assert!(said(&events, ann).is_empty());
    assert_eq!(d.floor(1).unwrap().pending(ann), Some(Action::Rest));
    assert_eq!(
        d.waiting_for(1),
        vec![bob],
        "a rester never holds up the floor"
    );
    // Bob goes out of sight, then steps back into it.
    let map = d.floor(1).unwrap().map.clone();
    let ann_sees = |d: &Dungeon, p: Pos| d.player(ann).unwrap().sees(map.index(p).unwrap());
    let (out, dir) = (0..map.cells().len())
        .map(|i| map.pos_of(i))
        .filter(|p| map.get(*p) == Tile::Floor && !ann_sees(&d, *p))
        .find_map(|p| {
            let dir = Dir::ALL.into_iter().find(|dir| {
                let q = p.step(*dir);
                map.get(q) == Tile::Floor && ann_sees(&d, q) && q != d.player(ann).unwrap().pos
            })?;
            Some((p, dir))
        })
        .expect("a cell just out of Ann's sight");
    d.place_for_test(bob, 1, out);
    d.submit(bob, Action::Wait).unwrap();
    turn(&mut d, &mut Vec::new());
    assert_eq!(d.floor(1).unwrap().pending(ann), Some(Action::Rest));
    d.submit(bob, Action::Move { dir }).unwrap();
    let events = turn(&mut d, &mut Vec::new());
    assert!(
        said(&events, ann).contains(&"You stop resting: Bob comes into view.".to_string()),
        "{:?}",
        said(&events, ann)
    );
    assert_eq!(d.floor(1).unwrap().pending(ann), None);
}

#[test]
fn another_action_or_a_lost_connection_ends_the_rest() {
    let mut d = quiet(7);
    let (ann, _) = hurt_ann(&mut d, 10);
    d.submit(ann, Action::Rest).unwrap();
    turn(&mut d, &mut Vec::new());
    d.submit(ann, Action::Wait).unwrap();
    turn(&mut d, &mut Vec::new());
    assert_eq!(d.floor(1).unwrap().pending(ann), None, "a wait replaced it");
    d.submit(ann, Action::Rest).unwrap();
    turn(&mut d, &mut Vec::new());
    d.step(&Input::Connected {
        id: ann,
        connected: false,
    })
    .unwrap();
    assert_eq!(d.floor(1).unwrap().pending(ann), None);
    assert!(!d.is_ready(1), "nobody rests for a player who is gone");
}

#[test]
fn a_friend_arriving_in_view_between_turns_ends_the_rest() {
    let mut d = quiet(7);
    let (ann, at) = hurt_ann(&mut d, 10);
    d.submit(ann, Action::Rest).unwrap();
    turn(&mut d, &mut Vec::new());
    assert_eq!(d.floor(1).unwrap().pending(ann), Some(Action::Rest));
    // Cy arrives (by the stairs, or joining) where Ann sees him, and chooses.
    let (cy, _) = d.join("Cy").unwrap();
    d.place_for_test(cy, 1, at.step(Dir::E).step(Dir::E));
    d.submit(cy, Action::Wait).unwrap();
    let events = turn(&mut d, &mut Vec::new());
    assert!(
        said(&events, ann).contains(&"You stop resting: Cy comes into view.".to_string()),
        "{:?}",
        said(&events, ann)
    );
}
