//! Walks and their stops, on small hand-drawn views (`view_of` is shared with the other
//! client tests that need a view).

use super::*;
use delve_protocol::{CellSet, EntityView, ItemView, SelfView, TileGrid};

/// A view from rows of tile characters, `@` marking the character (on floor), `m` a monster
/// and `$` an item (both on floor). Every known cell is in sight.
pub fn view_of(rows: &[&str]) -> View {
    let (w, h) = (rows[0].chars().count(), rows.len());
    let mut map = TileGrid::new(w, h);
    let mut me = Pos::new(0, 0);
    let mut entities = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            let p = Pos::new(x as i32, y as i32);
            let t = match c {
                '@' => {
                    me = p;
                    Tile::Floor
                }
                'm' | '$' => {
                    let monster = c == 'm';
                    entities.push(EntityView {
                        id: 10 + entities.len() as u32,
                        kind: if monster {
                            EntityKind::Monster
                        } else {
                            EntityKind::Item
                        },
                        name: if monster { "Micro Mouse" } else { "Crowbar" }.into(),
                        pos: p,
                        hp: i32::from(monster) * 3,
                        max_hp: i32::from(monster) * 4,
                        level: u32::from(monster),
                        monster: monster.then(|| "micro_mouse".into()),
                        item: (!monster).then(|| "crowbar".into()),
                    });
                    Tile::Floor
                }
                c => Tile::from_char(c).unwrap(),
            };
            map.set(p, t);
        }
    }
    let visible = CellSet::from_flags(map.cells().iter().map(|t| *t != Tile::Unknown));
    entities.push(EntityView {
        id: 1,
        kind: EntityKind::Player,
        name: "Ann".into(),
        pos: me,
        hp: 25,
        max_hp: 25,
        level: 1,
        monster: None,
        item: None,
    });
    entities.sort_by_key(|e| e.id);
    View {
        turn: 0,
        depth: 1,
        map,
        visible,
        entities,
        me: SelfView::sample(me),
        party: Vec::new(),
        watchers: Vec::new(),
        marks: Vec::new(),
        inventory: Vec::new(),
    }
}

/// Plays a trip out on a view whose world obeys the moves exactly (doors open when walked
/// into), returning the cells walked and how it ended.
fn walk(view: &mut View, goal: Goal) -> (Vec<Pos>, Step) {
    let mut trip = Trip::new(goal, view);
    let mut cells = Vec::new();
    for _ in 0..500 {
        match trip.next(view) {
            Step::Move(d) => {
                let to = view.me.pos.step(d);
                let t = view.map.get(to);
                if t.is_shut_door() {
                    view.map.set(to, Tile::DoorOpen);
                    continue;
                }
                assert!(t.is_walkable(), "stepped into {t:?} at {to:?}");
                view.me.pos = to;
                cells.push(to);
            }
            other => return (cells, other),
        }
    }
    panic!("the trip never ended");
}

#[test]
fn a_path_goes_round_walls_diagonally() {
    let v = view_of(&[
        "#######", //
        "#@.#..#", //
        "#..#..#", //
        "#.....#", //
        "#######",
    ]);
    let mut v2 = v.clone();
    let (cells, end) = walk(&mut v2, Goal::Cell(Pos::new(5, 1)));
    assert_eq!(end, Step::Stop(String::new()));
    assert_eq!(cells.last(), Some(&Pos::new(5, 1)));
    // (1,1) -> (2,2) -> (3,3) -> (4,2) -> (5,1): four steps with diagonals.
    assert_eq!(cells.len(), 4, "{cells:?}");
}

#[test]
fn no_way_through_the_unknown_or_walls() {
    let v = view_of(&[
        "#####", //
        "#@# #", //
        "#####",
    ]);
    assert_eq!(first_step(&v, Pos::new(3, 1)), None);
    let mut trip = Trip::new(Goal::Cell(Pos::new(3, 1)), &v);
    assert_eq!(
        trip.next(&v),
        Step::Stop("There is no known way there.".into())
    );
}

#[test]
fn a_monster_blocking_the_only_way_is_named() {
    // A corridor, and a mouse in it between the character and the goal.
    let v = view_of(&[
        "#######", //
        "#@.m..#", //
        "#######",
    ]);
    let mut trip = Trip::new(Goal::Cell(Pos::new(5, 1)), &v);
    assert_eq!(
        trip.next(&v),
        Step::Stop("A Micro Mouse is in the way.".into())
    );
}

/// `v` with a friend called `name` (id 2) standing at `at`, or their remains there.
fn with_friend(mut v: View, name: &str, at: Pos, kind: EntityKind) -> View {
    v.entities.push(EntityView {
        id: 2,
        kind,
        name: name.into(),
        pos: at,
        hp: 25,
        max_hp: 25,
        level: 1,
        monster: None,
        item: None,
    });
    v.entities.sort_by_key(|e| e.id);
    v
}

#[test]
fn exploring_past_someone_in_the_only_way_names_them_rather_than_saying_all_done() {
    // A room whose one way on is a corridor, with a friend standing in it.
    let room = [
        "########", //
        "#@..... ", //
        "########",
    ];
    let v = with_friend(view_of(&room), "Bea", Pos::new(3, 1), EntityKind::Player);
    let mut trip = Trip::new(Goal::Explore, &v);
    assert_eq!(trip.next(&v), Step::Stop("Bea is in the way.".into()));
    // Once she has gone on ahead, out of sight, exploring goes on.
    assert_eq!(trip.next(&view_of(&room)), Step::Move(Dir::E));
    // A friend who is only in the way of a longer way round is walked round.
    let wide = view_of(&["########", "#@..... ", "#...... ", "########"]);
    let v = with_friend(wide, "Bea", Pos::new(2, 1), EntityKind::Player);
    let mut trip = Trip::new(Goal::Explore, &v);
    assert_eq!(trip.next(&v), Step::Move(Dir::Se));
}

#[test]
fn a_trip_to_a_place_behind_a_friend_names_the_friend() {
    let v = view_of(&["#######", "#@....#", "#######"]);
    let v = with_friend(v, "Bea", Pos::new(3, 1), EntityKind::Player);
    let mut trip = Trip::new(Goal::Cell(Pos::new(5, 1)), &v);
    assert_eq!(trip.next(&v), Step::Stop("Bea is in the way.".into()));
}

#[test]
fn the_friend_a_trip_goes_to_is_not_the_one_in_the_way() {
    // Bea is nearer as the crow flies, but the way to her goes through the gap Cal stands in.
    let v = view_of(&["#######", "#@....#", "####.##", "#.....#", "#######"]);
    let mut v = with_friend(v, "Bea", Pos::new(1, 3), EntityKind::Player);
    let mut cal = v.entities.iter().find(|e| e.id == 2).unwrap().clone();
    (cal.id, cal.name, cal.pos) = (3, "Cal".into(), Pos::new(4, 2));
    v.entities.push(cal);
    let mut trip = Trip::new(Goal::Cell(Pos::new(1, 3)), &v);
    assert_eq!(trip.next(&v), Step::Stop("Cal is in the way.".into()));
}

#[test]
fn a_fallen_friends_remains_block_nothing() {
    // docs/RULES.md: remains lie where the character fell, "blocking nothing".
    let v = view_of(&["#######", "#@....#", "#######"]);
    let v = with_friend(v, "Bea", Pos::new(3, 1), EntityKind::Remains);
    let (cells, end) = walk(&mut v.clone(), Goal::Cell(Pos::new(5, 1)));
    assert_eq!(end, Step::Stop(String::new()));
    assert_eq!(cells.len(), 4, "straight through: {cells:?}");
}

#[test]
fn doors_are_opened_on_the_way_and_locked_ones_need_a_key() {
    let mut v = view_of(&[
        "#######", //
        "#@.+..#", //
        "#######",
    ]);
    let (cells, _) = walk(&mut v, Goal::Cell(Pos::new(5, 1)));
    assert_eq!(cells.last(), Some(&Pos::new(5, 1)));
    assert_eq!(v.map.get(Pos::new(3, 1)), Tile::DoorOpen);

    let mut locked = view_of(&[
        "#######", //
        "#@.*..#", //
        "#######",
    ]);
    assert_eq!(first_step(&locked, Pos::new(5, 1)), None);
    // Whatever the content calls it, what opens a door is told by its use.
    locked.inventory.push(ItemView {
        id: 5,
        key: "brass_key".into(),
        name: "Brass Key".into(),
        description: "".into(),
        slot: None,
        equipped: false,
        usable: false,
        bonus: Default::default(),
        use_: delve_protocol::ItemUse::Unlock,
        count: 1,
        range: 0,
    });
    assert_eq!(first_step(&locked, Pos::new(5, 1)), Some(Dir::E));
}

#[test]
fn stairs_travel_ends_by_taking_them() {
    let mut v = view_of(&[
        "######", //
        "#@..>#", //
        "#<...#", //
        "######",
    ]);
    let (cells, end) = walk(&mut v, Goal::Stairs { down: true });
    assert_eq!(end, Step::TakeStairs { down: true });
    assert_eq!(cells.last(), Some(&Pos::new(4, 1)));
    let mut trip = Trip::new(Goal::Stairs { down: false }, &v);
    // From (4,1) to (1,2): three steps west (one diagonal), then the stairs.
    assert!(matches!(trip.next(&v), Step::Move(Dir::W | Dir::Sw)));
    let none = view_of(&["###", "#@#", "###"]);
    let mut t = Trip::new(Goal::Stairs { down: true }, &none);
    assert_eq!(
        t.next(&none),
        Step::Stop("You know of no stairs down on this floor.".into())
    );
}

#[test]
fn a_monster_coming_into_view_or_an_attack_stops_the_trip() {
    let mut v = view_of(&[
        "########", //
        "#@.....#", //
        "########",
    ]);
    let mut trip = Trip::new(Goal::Cell(Pos::new(6, 1)), &v);
    assert_eq!(trip.next(&v), Step::Move(Dir::E));
    // A mouse walks into sight.
    let mouse = view_of(&["########", "#@....m#", "########"]);
    v.entities = mouse.entities.clone();
    assert_eq!(trip.next(&v), Step::Stop("You see a Micro Mouse.".into()));
    // One already in sight when the trip began does not stop it...
    let mut trip = Trip::new(Goal::Cell(Pos::new(3, 1)), &v);
    assert_eq!(trip.next(&v), Step::Move(Dir::E));
    // ...but its attack does, hit or miss.
    trip.on_events(
        &[Event::Attacked {
            attacker: 10,
            target: 1,
            damage: None,
        }],
        1,
    );
    assert_eq!(trip.next(&v), Step::Stop("You are attacked!".into()));
}

#[test]
fn exploring_is_refused_with_a_monster_in_sight_but_walking_is_not() {
    let v = view_of(&["######", "#@..m#", "######"]);
    assert_eq!(
        Trip::refuse(Goal::Explore, &v),
        Some((10, "Not with a Micro Mouse in sight.".into()))
    );
    assert_eq!(Trip::refuse(Goal::Cell(Pos::new(2, 1)), &v), None);
    let calm = view_of(&["######", "#@..$#", "######"]);
    assert_eq!(Trip::refuse(Goal::Explore, &calm), None);
}

#[test]
fn a_trip_walks_round_a_friend() {
    let mut v = view_of(&[
        "#####", //
        "#@..#", //
        "#...#", //
        "#####",
    ]);
    let mut bob = v.entities[0].clone();
    bob.id = 2;
    bob.name = "Bob".into();
    bob.pos = Pos::new(2, 1);
    v.entities.push(bob);
    v.entities.sort_by_key(|e| e.id);
    assert_eq!(first_step(&v, Pos::new(3, 1)), Some(Dir::Se));
}

#[test]
fn explore_goes_to_the_nearest_edge_of_the_unknown_then_says_all_done() {
    let v = view_of(&[
        "#########", //
        "#@...... ", //
        "#.......#", //
        "#########",
    ]);
    assert_eq!(explore_target(&v), Some(Pos::new(7, 1)));
    let mut trip = Trip::new(Goal::Explore, &v);
    // Either is one of the shortest ways there.
    assert!(matches!(trip.next(&v), Step::Move(Dir::E | Dir::Se)));
    let done = view_of(&["#####", "#@..#", "#####"]);
    let mut trip = Trip::new(Goal::Explore, &done);
    assert_eq!(
        trip.next(&done),
        Step::Stop("Explored all you can reach.".into())
    );
}

#[test]
fn explore_opens_doors_and_picks_up_items_in_sight() {
    let v = view_of(&[
        "#######", //
        "#@...+#", //
        "#######",
    ]);
    assert_eq!(explore_target(&v), Some(Pos::new(5, 1)));
    let with_item = view_of(&[
        "#######", //
        "#@..$+#", //
        "#######",
    ]);
    assert_eq!(explore_target(&with_item), Some(Pos::new(4, 1)));
    // An item that comes into view stops exploring once, so the player sees it.
    let mut trip = Trip::new(Goal::Explore, &v);
    assert_eq!(
        trip.next(&with_item),
        Step::Stop("You see a Crowbar.".into())
    );
    assert_eq!(trip.next(&with_item), Step::Move(Dir::E));
}

#[test]
fn a_trip_to_a_monster_follows_it_and_ends_with_the_attack() {
    let mut v = view_of(&["##########", "#@.......#", "#......m.#", "##########"]);
    let id = 10;
    let mut trip = Trip::new(Goal::Monster(id), &v);
    // A step towards it, though a monster is in sight (it is the one chosen).
    let Step::Move(d) = trip.next(&v) else {
        panic!("a step towards the mouse");
    };
    v.me.pos = v.me.pos.step(d);
    // It moves: the trip follows it where it went.
    let k = v.entities.iter().position(|e| e.id == id).unwrap();
    let there = v.me.pos.step(Dir::E);
    v.entities[k].pos = there;
    assert_eq!(
        trip.next(&v),
        Step::Attack(Dir::E),
        "next to it: the attack"
    );
    // Its attack does not stop the trip; another's does.
    trip.on_events(
        &[Event::Attacked {
            attacker: id,
            target: 1,
            damage: Some(1),
        }],
        1,
    );
    assert_eq!(trip.next(&v), Step::Attack(Dir::E));
    // Dead: the trip is over, quietly.
    trip.on_events(&[Event::Died { id, pos: there }], 1);
    assert_eq!(trip.next(&v), Step::Stop(String::new()));
    // Out of sight: over, and said so.
    let mut gone = Trip::new(Goal::Monster(id), &v);
    v.entities.retain(|e| e.id != id);
    assert_eq!(
        gone.next(&v),
        Step::Stop("The Micro Mouse is out of sight.".into())
    );
}

#[test]
fn the_fight_key_attacks_a_neighbour_else_steps_to_the_nearest_monster() {
    let v = view_of(&["#########", "#@....m.#", "#########"]);
    assert_eq!(fight_step(&v), Ok(Dir::E));
    let next_to = view_of(&["#####", "#m@.#", "#####"]);
    assert_eq!(fight_step(&next_to), Ok(Dir::W));
    let calm = view_of(&["#####", "#@..#", "#####"]);
    assert_eq!(fight_step(&calm), Err("No monster in sight.".into()));
    // Two: the nearer one (by the way there) is gone for, a step at a time.
    let two = view_of(&["#########", "#m....@.m", "#########"]);
    assert_eq!(fight_step(&two), Ok(Dir::E));
}

#[test]
fn exploring_names_a_friend_who_stands_on_the_last_edge_of_the_unknown() {
    // Found in play: Ann in the open doorway of the room's one way on. The doorway itself is
    // the nearest edge of the unknown (the corridor beyond turns where nobody has looked), so
    // the place exploring would go is where she stands.
    let room = [
        "    ########", //
        "    #......#", //
        "  #.'......#", //
        "  ###...@..#", //
        "    #......#", //
        "    ########",
    ];
    let door = Pos::new(4, 2);
    let v = with_friend(view_of(&room), "Ann", door, EntityKind::Player);
    assert_eq!(explore_target(&without_others(&v)), Some(door));
    let mut trip = Trip::new(Goal::Explore, &v);
    assert_eq!(trip.next(&v), Step::Stop("Ann is in the way.".into()));
    // Once she has gone on, exploring goes to the doorway.
    let clear = view_of(&room);
    assert_eq!(explore_target(&clear), Some(door));
    assert!(matches!(
        Trip::new(Goal::Explore, &clear).next(&clear),
        Step::Move(_)
    ));
}
