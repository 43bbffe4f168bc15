//! The rules of throwing, shooting, blasts, dazes and the monsters that shoot or call, through
//! the engine.

use super::*;
use crate::game::monster::Ai;

fn quiet(seed: u64) -> Dungeon {
    Dungeon::new(seed, Arc::new(Content::builtin_without_monsters()))
}

/// A floor cell with open floor all round it for `r` cells.
fn room(d: &mut Dungeon, r: i32) -> Pos {
    let map = d.floor_mut(1).map.clone();
    (0..map.cells().len())
        .map(|i| map.pos_of(i))
        .find(|p| {
            (-r..=r).all(|dy| {
                (-r..=r)
                    .all(|dx| map.get(Pos::new(p.x + dx, p.y + dy)) == delve_protocol::Tile::Floor)
            })
        })
        .expect("a room wide enough")
}

/// Ann in the middle of a room of floor 1 with nothing lying about.
fn ann(seed: u64) -> (Dungeon, EntityId, Pos) {
    let mut d = quiet(seed);
    d.floor_mut(1).items.clear();
    let (ann, _) = d.join("Ann").unwrap();
    let at = room(&mut d, 3);
    d.place_for_test(ann, 1, at);
    (d, ann, at)
}

fn east(p: Pos, k: i32) -> Pos {
    Pos::new(p.x + k, p.y)
}

/// Every log line `id` is told of `events` (its own, and what it saw).
fn told(d: &Dungeon, events: &[Event], id: EntityId) -> Vec<String> {
    crate::view::events_for(d, id, 1, events)
        .into_iter()
        .filter_map(|e| match e {
            delve_protocol::Event::Message { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

/// `id` takes `a` and floor 1's turn resolves; the turn's events.
fn turn(d: &mut Dungeon, id: EntityId, a: Action) -> Vec<Event> {
    super::super::scene::turn(d, id, a)
}

#[test]
fn a_thrown_dart_flies_hits_the_first_creature_and_lies_where_it_stopped() {
    let (mut d, ann, at) = ann(11);
    let dart = d.give_for_test(ann, "dart");
    d.give_for_test(ann, "dart");
    // A Tough Mouse (defence 12: often missed) three tiles east, and another behind it.
    let first = d.add_monster_for_test(1, "tough_mouse", 1, east(at, 2));
    d.add_monster_for_test(1, "tough_mouse", 1, east(at, 3));
    let target = east(at, 3);
    let events = turn(
        &mut d,
        ann,
        Action::Throw {
            item: dart,
            at: target,
        },
    );
    let flew = events.iter().find_map(|e| match e {
        Event::Flew { from, to, .. } => Some((*from, *to)),
        _ => None,
    });
    assert_eq!(flew, Some((at, east(at, 2))), "it stops at the first mouse");
    let struck = events.iter().find_map(|e| match e {
        Event::Attacked {
            attacker,
            target,
            with,
            ..
        } if attacker.id == ann => Some((target.id, with.clone())),
        _ => None,
    });
    assert_eq!(struck, Some((first, Some("Dart".into()))));
    let lines = told(&d, &events, ann);
    assert_eq!(lines[0], "You throw the Dart.");
    assert!(
        lines[1].starts_with("Your Dart hits the Tough Mouse for ")
            || lines[1] == "Your Dart misses the Tough Mouse.",
        "{lines:?}"
    );
    // The dart lies where it stopped; one is left in the pack.
    assert_eq!(
        d.floor(1).unwrap().items.get(&dart).map(|(p, _)| *p),
        Some(east(at, 2))
    );
    let view = crate::view::view_of(&d, ann).unwrap();
    assert_eq!(view.inventory[0].count, 1);
    assert_eq!(view.inventory[0].range, 6);
}

#[test]
fn a_throw_is_refused_out_of_sight_out_of_range_at_your_feet_and_for_what_is_not_thrown() {
    let (mut d, ann, at) = ann(11);
    let dart = d.give_for_test(ann, "dart");
    let pack = d.give_for_test(ann, "health_pack");
    let throw = |item, at| Action::Throw { item, at };
    assert_eq!(d.submit(ann, throw(dart, at)), Err(ActionError::OwnCell));
    assert_eq!(
        d.submit(ann, throw(pack, east(at, 1))),
        Err(ActionError::NotThrowable("Health Pack".into()))
    );
    assert_eq!(
        d.submit(ann, throw(9999, east(at, 1))),
        Err(ActionError::NotCarried)
    );
    let far = Pos::new(at.x, at.y + 7);
    let map = d.floor(1).unwrap().map.clone();
    // A pillar two tiles east hides the cell behind it.
    d.set_tile_for_test(1, east(at, 2), delve_protocol::Tile::Wall);
    let hidden = east(at, 3);
    assert!(!d.player(ann).unwrap().sees(map.index(hidden).unwrap()));
    assert_eq!(
        d.submit(ann, throw(dart, hidden)),
        Err(ActionError::OutOfSight)
    );
    if d.player(ann).unwrap().sees(map.index(far).unwrap_or(0)) {
        assert_eq!(
            d.submit(ann, throw(dart, far)),
            Err(ActionError::OutOfRange(6))
        );
    }
    assert_eq!(
        d.submit(ann, Action::Fire { at: east(at, 1) }),
        Err(ActionError::NoRangedWeapon)
    );
    assert!(!d.floor(1).unwrap().has_choices(), "nothing was queued");
    // Stunned, nothing is thrown.
    d.afflict_for_test(ann, Effect::Stun);
    assert_eq!(
        d.submit(ann, throw(dart, east(at, 1))),
        Err(ActionError::StunnedPack)
    );
}

#[test]
fn a_slingshot_shoots_and_a_friend_in_the_way_stops_the_shot_unhurt() {
    let (mut d, ann, at) = ann(12);
    let sling = d.give_for_test(ann, "slingshot");
    turn(&mut d, ann, Action::Equip { item: sling });
    let mouse = d.add_monster_for_test(1, "tough_mouse", 1, east(at, 3));
    let events = turn(&mut d, ann, Action::Fire { at: east(at, 3) });
    assert!(told(&d, &events, ann).contains(&"You shoot the Slingshot.".to_string()));
    assert!(events.iter().any(
        |e| matches!(e, Event::Attacked { target, with: Some(w), .. } if target.id == mouse && &**w == "Slingshot")
    ));
    // Bob steps between: the shot stops at him and does him no harm.
    let (bob, _) = d.join("Bob").unwrap();
    d.place_for_test(bob, 1, east(at, 1));
    let hp = d.player(bob).unwrap().hp;
    d.submit(bob, Action::Wait).unwrap();
    let events = turn(&mut d, ann, Action::Fire { at: east(at, 3) });
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Flew { to, .. } if *to == east(at, 1)))
    );
    let shot_bob =
        |e: &Event| matches!(e, Event::Attacked { target, with: Some(_), .. } if target.id == bob);
    assert!(!events.iter().any(shot_bob), "{events:?}");
    let bitten: i32 = (events.iter())
        .filter_map(|e| match e {
            Event::Attacked {
                target,
                damage: Some(n),
                ..
            } if target.id == bob => Some(*n),
            _ => None,
        })
        .sum();
    assert_eq!(
        d.player(bob).unwrap().hp,
        hp - bitten,
        "only the mouse's bites hurt him"
    );
}

#[test]
fn a_pipe_bomb_hurts_everything_its_blast_reaches_the_thrower_too() {
    let (mut d, ann, at) = ann(13);
    let bomb = d.give_for_test(ann, "pipe_bomb");
    // A mouse next to Ann, where the bomb stops, one beside it, and one out of the blast.
    let a = d.add_monster_for_test(1, "tough_mouse", 1, east(at, 1));
    let b = d.add_monster_for_test(1, "tough_mouse", 1, Pos::new(at.x + 2, at.y + 1));
    let far = d.add_monster_for_test(1, "tough_mouse", 1, Pos::new(at.x - 3, at.y));
    let events = turn(
        &mut d,
        ann,
        Action::Throw {
            item: bomb,
            at: east(at, 2),
        },
    );
    let struck: Vec<EntityId> = (events.iter())
        .filter_map(|e| match e {
            Event::Attacked {
                target,
                damage: Some(_),
                with: Some(_),
                ..
            } => Some(target.id),
            _ => None,
        })
        .collect();
    assert!(struck.contains(&a) && struck.contains(&b), "{struck:?}");
    assert!(
        struck.contains(&ann),
        "the thrower stood within a step: {struck:?}"
    );
    assert!(!struck.contains(&far));
    assert!(told(&d, &events, ann).contains(&"The Pipe Bomb goes off!".to_string()));
    assert!(d.player(ann).unwrap().carried(bomb).is_none(), "used up");
    assert!(
        !d.floor(1).unwrap().items.contains_key(&bomb),
        "nothing lies there"
    );
}

#[test]
fn a_flashbang_dazes_the_monsters_it_reaches_for_three_turns() {
    let (mut d, ann, at) = ann(14);
    let flash = d.give_for_test(ann, "flashbang");
    let mouse = d.add_monster_for_test(1, "micro_mouse", 1, east(at, 3));
    let events = turn(
        &mut d,
        ann,
        Action::Throw {
            item: flash,
            at: east(at, 3),
        },
    );
    assert!(told(&d, &events, ann).contains(&"The Micro Mouse is dazed!".to_string()));
    // It loses this turn's action and two more: it never moves nor bites.
    let stays = d.floor(1).unwrap().monsters[&mouse].pos;
    for _ in 0..2 {
        let events = turn(&mut d, ann, Action::Wait);
        assert!(!events.iter().any(|e| matches!(e, Event::Attacked { .. })));
        assert_eq!(d.floor(1).unwrap().monsters[&mouse].pos, stays);
    }
    assert!(!matches!(
        d.floor(1).unwrap().monsters[&mouse].ai,
        Ai::Dazed { .. }
    ));
}

#[test]
fn a_sling_mouse_shoots_along_a_clear_line_and_backs_off_when_close() {
    let (mut d, ann, at) = ann(15);
    let sling = d.add_monster_for_test(1, "sling_mouse", 1, east(at, 3));
    let events = turn(&mut d, ann, Action::Wait);
    let shot = events
        .iter()
        .any(|e| matches!(e, Event::Flew { id, to, .. } if *id == sling && *to == at));
    assert!(shot, "it shoots from three tiles: {events:?}");
    let lines = told(&d, &events, ann);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("The Sling Mouse shoots")),
        "{lines:?}"
    );
    // Next to Ann, it steps back rather than bite.
    let (mut d, ann, at) = ann_again(15);
    let sling = d.add_monster_for_test(1, "sling_mouse", 1, east(at, 1));
    turn(&mut d, ann, Action::Wait);
    let now = d.floor(1).unwrap().monsters[&sling].pos;
    assert!(now.chebyshev(at) > 1, "it backed off to {now:?}");
}

fn ann_again(seed: u64) -> (Dungeon, EntityId, Pos) {
    ann(seed)
}

#[test]
fn a_scout_mouse_calls_the_others_and_runs_when_hurt() {
    let (mut d, ann, at) = ann(16);
    let scout = d.add_monster_for_test(1, "scout_mouse", 1, east(at, 3));
    // A mouse far off, out of sight, patrolling.
    let map = d.floor(1).unwrap().map.clone();
    let hidden = (0..map.cells().len())
        .map(|i| map.pos_of(i))
        .find(|p| {
            map.get(*p) == delve_protocol::Tile::Floor
                && !d.player(ann).unwrap().sees(map.index(*p).unwrap())
                && fov::within_radius(p.x - at.x - 3, p.y - at.y, 12)
        })
        .expect("a hidden cell within earshot");
    let friend = d.add_monster_for_test(1, "micro_mouse", 1, hidden);
    let events = turn(&mut d, ann, Action::Wait);
    assert!(told(&d, &events, ann).contains(&"The Scout Mouse squeaks for help!".to_string()));
    assert!(
        matches!(d.floor(1).unwrap().monsters[&friend].ai, Ai::Hunt { target, .. } if target == at),
        "the far mouse comes for where Ann was seen"
    );
    // Hurt below 60%, it runs.
    let m = d.floor_mut(1).monsters.get_mut(&scout).unwrap();
    m.hp = 1;
    let before = m.pos.chebyshev(at);
    turn(&mut d, ann, Action::Wait);
    let after = d.floor(1).unwrap().monsters[&scout].pos.chebyshev(at);
    assert!(after > before, "it ran: {before} -> {after}");
}
