//! Giving, helping and bringing back, through the engine, with the words each player is told.

use std::sync::Arc;

use delve_protocol::{Dir, Effect, MessageKind, Pos, Tile};

use crate::game::action::{Action, ActionError};
use crate::game::content::Content;
use crate::game::event::Event;
use crate::game::{Dungeon, EntityId, Input};

/// Ann and Bob side by side (Bob east of Ann) in a room of floor 1, in a dungeon without
/// monsters or loose items.
fn pair() -> (Dungeon, EntityId, EntityId, Pos) {
    let mut d = Dungeon::new(3, Arc::new(Content::builtin_without_monsters()));
    d.floor_mut(1).items.clear();
    let (ann, _) = d.join("Ann").unwrap();
    let (bob, _) = d.join("Bob").unwrap();
    let map = d.floor_mut(1).map.clone();
    let p = (0..map.cells().len())
        .map(|i| map.pos_of(i))
        .find(|p| {
            (-1..=1).all(|dy| (-1..=4).all(|k| map.get(Pos::new(p.x + k, p.y + dy)) == Tile::Floor))
        })
        .expect("a room");
    d.place_for_test(ann, 1, p);
    d.place_for_test(bob, 1, p.step(Dir::E));
    (d, ann, bob, p)
}

/// `id` chooses `action`, everyone else waits, and floor 1's turn resolves: its events.
fn turn(d: &mut Dungeon, id: EntityId, action: Action) -> Vec<Event> {
    d.submit(id, action).expect("the action is allowed");
    let others: Vec<EntityId> = d.living_on(1).map(|p| p.id).filter(|o| *o != id).collect();
    for o in others {
        let _ = d.submit(o, Action::Wait);
    }
    d.resolve_pending(1).events
}

/// What `viewer` is told of `events`, as lines.
fn told(d: &Dungeon, viewer: EntityId, events: &[Event]) -> Vec<(MessageKind, String)> {
    crate::view::events_for(d, viewer, 1, events)
        .into_iter()
        .filter_map(|e| match e {
            delve_protocol::Event::Message { kind, text } => Some((kind, text)),
            _ => None,
        })
        .collect()
}

fn has(lines: &[(MessageKind, String)], kind: MessageKind, text: &str) -> bool {
    lines.iter().any(|(k, t)| *k == kind && t == text)
}

#[test]
fn a_gift_goes_to_a_friend_next_to_you_and_only_there() {
    let (mut d, ann, bob, p) = pair();
    let dart = d.give_for_test(ann, "dart");
    let jacket = d.give_for_test(ann, "biker_jacket");
    turn(&mut d, ann, Action::Equip { item: jacket });
    assert!(d.player(ann).unwrap().carried(jacket).unwrap().equipped);
    // To yourself, to nobody, and to a friend who stepped away: refused, nothing changes.
    assert_eq!(
        d.check(
            ann,
            Action::Give {
                item: dart,
                to: ann
            }
        ),
        Err(ActionError::Yourself)
    );
    let nobody = Action::Give { item: dart, to: 77 };
    assert_eq!(d.check(ann, nobody), Err(ActionError::NoSuchFriend));
    let missing = Action::Give { item: 999, to: bob };
    assert_eq!(d.check(ann, missing), Err(ActionError::NotCarried));
    d.place_for_test(bob, 1, p.step(Dir::E).step(Dir::E));
    let far = Action::Give {
        item: dart,
        to: bob,
    };
    assert_eq!(d.check(ann, far), Err(ActionError::NotNextTo("Bob".into())));
    d.place_for_test(bob, 1, p.step(Dir::E));

    let events = turn(
        &mut d,
        ann,
        Action::Give {
            item: dart,
            to: bob,
        },
    );
    assert!(d.player(ann).unwrap().carried(dart).is_none());
    assert!(d.player(bob).unwrap().carried(dart).is_some());
    assert!(has(
        &told(&d, ann, &events),
        MessageKind::Normal,
        "You give the Dart to Bob."
    ));
    assert!(has(
        &told(&d, bob, &events),
        MessageKind::Good,
        "Ann gives you a Dart."
    ));
    // A worn thing is taken off first, and its bonus goes with it.
    let before = d.player(ann).unwrap().stats(d.content()).defence;
    turn(
        &mut d,
        ann,
        Action::Give {
            item: jacket,
            to: bob,
        },
    );
    let after = d.player(ann).unwrap().stats(d.content()).defence;
    assert!(after < before, "{before} -> {after}");
    let given = d.player(bob).unwrap().carried(jacket).unwrap();
    assert!(!given.equipped, "Bob carries it, he does not wear it");
    // A choice made while Bob stood there is refused when its turn comes if he has moved.
    let vial = d.give_for_test(ann, "antivenom");
    d.submit(
        ann,
        Action::Give {
            item: vial,
            to: bob,
        },
    )
    .unwrap();
    d.place_for_test(bob, 1, p.step(Dir::E).step(Dir::E));
    d.submit(bob, Action::Wait).unwrap();
    let events = d.resolve_pending(1).events;
    assert!(d.player(ann).unwrap().carried(vial).is_some());
    assert!(has(
        &told(&d, ann, &events),
        MessageKind::Normal,
        "Bob is not next to you."
    ));
}

#[test]
fn a_health_pack_on_a_friend_heals_the_friend_and_other_things_are_refused() {
    let (mut d, ann, bob, _) = pair();
    let pack = d.give_for_test(ann, "health_pack");
    let port = d.give_for_test(ann, "teleporter");
    let vial = d.give_for_test(ann, "antivenom");
    let on_bob = |item| Action::UseOn { item, on: bob };
    assert_eq!(
        d.check(ann, on_bob(pack)),
        Err(ActionError::FriendFullHealth("Bob".into()))
    );
    assert_eq!(
        d.check(ann, on_bob(vial)),
        Err(ActionError::FriendNotPoisoned("Bob".into()))
    );
    assert_eq!(
        d.check(ann, on_bob(port)),
        Err(ActionError::NotForFriend("Pocket Teleporter".into()))
    );
    d.set_hp_for_test(bob, 5);
    d.afflict_for_test(bob, Effect::Poison);
    let max = d.player(bob).unwrap().stats(d.content()).max_hp;
    let events = turn(&mut d, ann, on_bob(pack));
    // Half of Bob's maximum (the Health Pack's own rule), then the turn's poison.
    let want = 5 + max / 2;
    let hp = d.player(bob).unwrap().hp();
    assert!(
        hp == want || hp == want - 1,
        "{hp} of {max}, want about {want}"
    );
    assert!(d.player(ann).unwrap().carried(pack).is_none(), "used up");
    let healed = format!("You use the Health Pack on Bob: they heal {} HP.", max / 2);
    assert!(
        has(&told(&d, ann, &events), MessageKind::Good, &healed),
        "{:?}",
        told(&d, ann, &events)
    );
    let to_bob = format!("Ann uses a Health Pack on you: you heal {} HP.", max / 2);
    assert!(has(&told(&d, bob, &events), MessageKind::Good, &to_bob));
    turn(&mut d, ann, on_bob(vial));
    assert!(!d.player(bob).unwrap().has(Effect::Poison));
}

/// Bob falls next to Ann, as a Tough Mouse's blow would fell him: the fall's events.
fn fell(d: &mut Dungeon, bob: EntityId, p: Pos) -> Vec<Event> {
    let mouse = d.add_monster_for_test(1, "tough_mouse", 9, p.step(Dir::E).step(Dir::E));
    d.set_hp_for_test(bob, 1);
    for _ in 0..50 {
        let ids: Vec<EntityId> = d.living_on(1).map(|p| p.id).collect();
        for id in ids {
            let _ = d.submit(id, Action::Wait);
        }
        let events = d.resolve_pending(1).events;
        if !d.player(bob).unwrap().alive() {
            d.floor_mut(1).monsters.remove(&mouse);
            return events;
        }
    }
    panic!("the mouse never felled Bob");
}

#[test]
fn a_fallen_friend_can_be_brought_back_for_a_while_at_a_cost() {
    let (mut d, ann, bob, p) = pair();
    d.gain_xp_for_test(bob, 200);
    let before = d.player(bob).unwrap().xp();
    let level = d.player(bob).unwrap().level();
    let events = fell(&mut d, bob, p);
    let turns = d.content().party.revive_turns;
    let until = d
        .party()
        .revivable_until(bob)
        .expect("Ann lives: Bob can be saved");
    assert_eq!(until, d.floor(1).unwrap().turn() + u64::from(turns));
    let hope = format!(
        "A friend can still bring you back: a Health Pack used on your remains within {turns} turns. Or start anew."
    );
    assert!(has(&told(&d, bob, &events), MessageKind::Good, &hope));
    let news = format!(
        "Bob has fallen on floor 1! A friend with a Health Pack can bring them back within {turns} turns."
    );
    assert!(has(&told(&d, ann, &events), MessageKind::Bad, &news));
    // Ann sees the remains where Bob fell; they are no obstacle.
    let remains = crate::view::view_of(&d, ann).unwrap();
    let e = remains.entity(bob).expect("the remains are in sight");
    assert_eq!(e.kind, delve_protocol::EntityKind::Remains);
    assert_eq!(
        crate::view::view_of(&d, bob).unwrap().me.revive_turns,
        Some(turns)
    );

    // Only something that heals will do, and only next to the remains.
    let vial = d.give_for_test(ann, "antivenom");
    let pack = d.give_for_test(ann, "health_pack");
    let with = |item| Action::UseOn { item, on: bob };
    assert_eq!(
        d.check(ann, with(vial)),
        Err(ActionError::HealsOnly("Bob".into()))
    );
    let spot = d.player(bob).unwrap().pos();
    d.place_for_test(ann, 1, spot.step(Dir::W).step(Dir::W));
    assert_eq!(
        d.check(ann, with(pack)),
        Err(ActionError::NotNextTo("Bob".into()))
    );
    // Standing on the remains will do.
    d.place_for_test(ann, 1, spot);
    let events = turn(&mut d, ann, with(pack));
    let b = d.player(bob).unwrap();
    assert!(b.alive(), "{events:?}");
    let max = b.stats(d.content()).max_hp;
    assert_eq!(b.hp(), max * 25 / 100);
    assert_eq!(b.level(), level, "no level is lost");
    let start = b.xp_band(d.content()).0;
    assert_eq!(b.xp(), before - (before - start) / 2);
    assert_ne!(b.pos(), spot, "Ann stood there: Bob rises beside her");
    assert_eq!(b.pos().chebyshev(spot), 1);
    assert!(d.party().revivable_until(bob).is_none());
    assert!(d.player(ann).unwrap().carried(pack).is_none());
    assert!(has(
        &told(&d, bob, &events),
        MessageKind::Good,
        "Ann brings you back! You live again, weakened."
    ));
    assert!(has(
        &told(&d, ann, &events),
        MessageKind::Good,
        "You bring Bob back!"
    ));
    // What he carried still lies where he fell.
    d.check_invariants().unwrap();
}

#[test]
fn it_is_too_late_after_the_window_and_nobody_comes_for_the_lonely() {
    let (mut d, ann, bob, p) = pair();
    fell(&mut d, bob, p);
    let pack = d.give_for_test(ann, "health_pack");
    let turns = d.content().party.revive_turns;
    let mut closed = Vec::new();
    for _ in 0..turns {
        closed = turn(&mut d, ann, Action::Wait);
    }
    assert!(closed.contains(&Event::BeyondHelp { id: bob }));
    assert!(has(
        &told(&d, bob, &closed),
        MessageKind::Bad,
        "No one came in time: your character is gone for good."
    ));
    assert!(has(
        &told(&d, ann, &closed),
        MessageKind::Normal,
        "It is too late to bring Bob back."
    ));
    let spot = d.player(bob).unwrap().pos();
    d.place_for_test(ann, 1, spot);
    let late = Action::UseOn {
        item: pack,
        on: bob,
    };
    assert_eq!(d.check(ann, late), Err(ActionError::TooLate("Bob".into())));

    // Alone in the dungeon, a fall is final at once.
    let (mut d, ann, bob, p) = pair();
    d.step(&Input::Connected {
        id: ann,
        connected: false,
    })
    .unwrap();
    d.step(&Input::Lift { id: ann }).unwrap();
    let d2 = &mut d;
    let mouse = d2.add_monster_for_test(1, "tough_mouse", 9, p.step(Dir::E).step(Dir::E));
    d2.set_hp_for_test(bob, 1);
    while d2.player(bob).unwrap().alive() {
        d2.submit(bob, Action::Wait).unwrap();
        d2.resolve_pending(1);
    }
    let _ = mouse;
    // Ann is lifted out but still in the party: she may come back for Bob.
    assert!(d.party().revivable_until(bob).is_some());
    let (mut d, _ann, bob, p) = pair();
    d.step(&Input::Connected {
        id: _ann,
        connected: false,
    })
    .unwrap();
    let events = {
        // Ann's player left and her character is forgotten: nobody is left.
        d.step(&Input::Forget { id: _ann }).unwrap();
        fell(&mut d, bob, p)
    };
    assert!(!events.iter().any(|e| matches!(e, Event::Revivable { .. })));
    assert!(d.party().revivable_until(bob).is_none());
}

#[test]
fn starting_anew_ends_the_wait() {
    let (mut d, _ann, bob, p) = pair();
    fell(&mut d, bob, p);
    let done = d.step(&Input::NewCharacter { old: bob }).unwrap();
    assert_eq!(done.events[0], Event::BeyondHelp { id: bob });
    assert!(d.party().revivable_until(bob).is_none());
    d.check_invariants().unwrap();
}

#[test]
fn a_fallen_friend_keeps_its_name_while_it_can_be_brought_back() {
    let (mut d, ann, bob, p) = pair();
    fell(&mut d, bob, p);
    // Bob's player leaves while he lies fallen: he is no longer in the party, but Ann may
    // still bring him back, so nobody new may be called Bob (nor bob).
    d.step(&Input::Connected {
        id: bob,
        connected: false,
    })
    .unwrap();
    assert!(!d.player(bob).unwrap().in_party());
    assert!(d.holds_name(d.player(bob).unwrap()));
    assert_eq!(
        d.join("bob").unwrap_err(),
        crate::game::JoinError::NameTaken("bob".into())
    );
    // Once it is too late, the name is free again.
    let turns = d.content().party.revive_turns;
    for _ in 0..turns {
        turn(&mut d, ann, Action::Wait);
    }
    assert!(d.party().revivable_until(bob).is_none());
    assert!(!d.holds_name(d.player(bob).unwrap()));
    d.join("Bob")
        .expect("the name is free once nobody can bring Bob back");
    d.check_invariants().unwrap();
}

#[test]
fn the_time_to_bring_a_friend_back_runs_while_friends_play_on_another_floor() {
    let (mut d, ann, bob, p) = pair();
    fell(&mut d, bob, p);
    let turns = d.content().party.revive_turns;
    assert_eq!(d.revive_turns_left(bob), Some(turns));
    // Ann goes down to floor 2: nobody lives on floor 1, whose clock stands still, but Bob's
    // wait goes on with every turn she plays.
    let down = d.floor_mut(2).up;
    d.place_for_test(ann, 2, down);
    let floor_1 = d.floor(1).unwrap().turn();
    for k in 1..turns {
        d.submit(ann, Action::Wait).unwrap();
        let events = d.resolve_pending(2).events;
        assert!(!events.contains(&Event::BeyondHelp { id: bob }));
        assert_eq!(d.revive_turns_left(bob), Some(turns - k));
        assert_eq!(
            crate::view::view_of(&d, bob).unwrap().me.revive_turns,
            Some(turns - k),
            "the fallen player sees it count down"
        );
    }
    d.submit(ann, Action::Wait).unwrap();
    let events = d.resolve_pending(2).events;
    assert!(
        events.contains(&Event::BeyondHelp { id: bob }),
        "{events:?}"
    );
    assert_eq!(d.floor(1).unwrap().turn(), floor_1, "floor 1 stood still");
    assert!(has(
        &told(&d, bob, &events),
        MessageKind::Bad,
        "No one came in time: your character is gone for good."
    ));
    d.check_invariants().unwrap();
}
