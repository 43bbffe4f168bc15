//! Rule tests of the dungeon as a whole.

use super::*;
use crate::game::action::{Action, ActionError};
use crate::game::monster::Ai;
use crate::game::stats::{Stat, kill_xp};
use crate::game::stats::{player_base, xp_for_level};

/// Content without monsters, for rules about movement, sight and turns.
fn quiet(seed: u64) -> Dungeon {
    Dungeon::new(seed, Arc::new(Content::builtin_without_monsters()))
}

fn full(seed: u64) -> Dungeon {
    Dungeon::new(seed, Arc::new(Content::builtin()))
}

fn place(d: &mut Dungeon, id: EntityId, pos: Pos) {
    d.place_for_test(id, 1, pos);
}

/// A floor cell on floor `depth` whose row has at least `len` floor cells to its east, and
/// whose rows above and below are open too (a room, not a corridor).
fn open_area(d: &mut Dungeon, depth: u8, len: i32) -> Pos {
    let map = d.floor_mut(depth).map.clone();
    (0..map.cells().len())
        .map(|i| map.pos_of(i))
        .find(|p| {
            (-1..=1)
                .all(|dy| (-1..=len).all(|k| map.get(Pos::new(p.x + k, p.y + dy)) == Tile::Floor))
        })
        .expect("a room wide enough")
}

fn walls_free_dir(d: &Dungeon, id: EntityId) -> Dir {
    Dir::ALL
        .into_iter()
        .find(|&dir| d.check(id, Action::Move { dir }).is_ok())
        .expect("a way out")
}

#[test]
fn players_arrive_beside_the_up_stair_on_distinct_cells() {
    let mut d = quiet(1234);
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
        assert!(super::scene::said(&events, p.id).contains(&"Entering floor #1".to_string()));
        let s = p.stats(d.content());
        // Level 1 (given): 25 HP, sight 8, defence 4, attack 1-4, saving throw 10.
        assert_eq!((p.hp, s.max_hp, p.level, p.xp, s.sight), (25, 25, 1, 0, 8));
        assert_eq!(
            (s.defence, s.attack_min, s.attack_max, s.save),
            (4, 1, 4, 10)
        );
    }
    assert_eq!(
        d.join("ann").unwrap_err(),
        JoinError::NameTaken("ann".into())
    );
}

#[test]
fn moves_step_onto_floor_and_walls_are_refused_before_queueing() {
    let mut d = quiet(1234);
    let (id, _) = d.join("Ann").unwrap();
    let start = open_area(&mut d, 1, 3);
    place(&mut d, id, start);
    d.submit(id, Action::Move { dir: Dir::E }).unwrap();
    assert!(d.is_ready(1));
    let report = d.resolve_pending(1);
    assert_eq!(report.turn, 1);
    assert_eq!(
        report.events[0],
        Event::Moved {
            id,
            from: start,
            to: start.step(Dir::E)
        }
    );
    assert_eq!(d.player(id).unwrap().pos, start.step(Dir::E));

    while d
        .floor(1)
        .unwrap()
        .tile(d.player(id).unwrap().pos.step(Dir::W))
        .is_walkable()
    {
        d.submit(id, Action::Move { dir: Dir::W }).unwrap();
        d.resolve_pending(1);
    }
    let before = d.player(id).unwrap().pos;
    assert_eq!(
        d.submit(id, Action::Move { dir: Dir::W }),
        Err(ActionError::Wall)
    );
    assert!(
        !d.floor(1).unwrap().has_choices(),
        "a refused action queues nothing"
    );
    assert_eq!(d.player(id).unwrap().pos, before);
}

#[test]
fn a_player_in_the_way_blocks_the_step_with_a_message() {
    let mut d = quiet(1234);
    let (ann, _) = d.join("Ann").unwrap();
    let (bob, _) = d.join("Bob").unwrap();
    let p = open_area(&mut d, 1, 3);
    place(&mut d, ann, p);
    place(&mut d, bob, p.step(Dir::E));
    d.submit(ann, Action::Move { dir: Dir::E }).unwrap();
    d.submit(bob, Action::Wait).unwrap();
    let report = d.resolve_pending(1);
    assert_eq!(d.player(ann).unwrap().pos, p);
    // Told as a plain line to the one who bumped.
    assert!(report.events.iter().any(|e| crate::view::own_lines(e, ann)
        == vec![(
            delve_protocol::MessageKind::Normal,
            "Bob is in the way.".into()
        )]));
    assert_eq!(
        d.player(bob).unwrap().hp,
        25,
        "no friendly fire between players"
    );
}

#[test]
fn the_turn_waits_for_every_connected_living_player_and_choices_are_replaceable() {
    let mut d = quiet(1234);
    let (ann, _) = d.join("Ann").unwrap();
    let (bob, _) = d.join("Bob").unwrap();
    assert!(!d.is_ready(1), "nobody chose");
    d.submit(ann, Action::Wait).unwrap();
    assert!(!d.is_ready(1));
    assert_eq!(d.waiting_for(1), vec![bob]);
    let dir = walls_free_dir(&d, ann);
    d.submit(ann, Action::Move { dir }).unwrap();
    assert_eq!(d.floor(1).unwrap().pending(ann), Some(Action::Move { dir }));
    d.submit(bob, Action::Wait).unwrap();
    assert!(d.is_ready(1));
    assert_eq!(
        d.choices(1),
        vec![(ann, Action::Move { dir }), (bob, Action::Wait)]
    );
    d.resolve_pending(1);
    assert!(!d.floor(1).unwrap().has_choices());

    // A disconnected player never blocks, and a choice it made before leaving stands.
    d.submit(bob, Action::Wait).unwrap();
    d.set_connected(bob, false);
    assert_eq!(d.floor(1).unwrap().pending(bob), Some(Action::Wait));
    assert!(!d.is_ready(1), "Ann has not chosen");
    d.submit(ann, Action::Wait).unwrap();
    assert!(d.is_ready(1));
    d.resolve_pending(1);
    d.submit(ann, Action::Wait).unwrap();
    assert!(
        d.is_ready(1),
        "silent and disconnected: the turn is Ann's alone"
    );
}

#[test]
fn a_timed_out_turn_resolves_with_the_silent_player_waiting() {
    let mut d = quiet(1234);
    let (ann, _) = d.join("Ann").unwrap();
    let (bob, _) = d.join("Bob").unwrap();
    let bob_at = d.player(bob).unwrap().pos;
    let dir = walls_free_dir(&d, ann);
    d.submit(ann, Action::Move { dir }).unwrap();
    assert!(!d.is_ready(1));
    assert_eq!(d.choices(1), vec![(ann, Action::Move { dir })]);
    d.resolve_pending(1);
    assert_eq!(d.player(bob).unwrap().pos, bob_at);
    assert_eq!(d.floor(1).unwrap().turn, 1);
}

#[test]
fn resolution_order_is_drawn_fairly_not_by_join_order() {
    let mut d = quiet(1234);
    let (ann, _) = d.join("Ann").unwrap();
    let (bob, _) = d.join("Bob").unwrap();
    let left = open_area(&mut d, 1, 3);
    let (mid, right) = (left.step(Dir::E), left.step(Dir::E).step(Dir::E));
    let mut ann_wins = 0;
    for _ in 0..200 {
        place(&mut d, ann, left);
        place(&mut d, bob, right);
        d.submit(ann, Action::Move { dir: Dir::E }).unwrap();
        d.submit(bob, Action::Move { dir: Dir::W }).unwrap();
        d.resolve_pending(1);
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
    let mut d = quiet(1234);
    let (id, _) = d.join("Ann").unwrap();
    let cells = d.floor(1).unwrap().map.cells().len();
    let mut ever_seen = vec![false; cells];
    let mut k = 0usize;
    for _ in 0..150 {
        for (i, s) in d.player(id).unwrap().fov().iter().enumerate() {
            ever_seen[i] |= s;
        }
        let open: Vec<Dir> = Dir::ALL
            .into_iter()
            .filter(|&dir| d.check(id, Action::Move { dir }).is_ok())
            .collect();
        k = (k * 7 + 3) % open.len().max(1);
        d.submit(
            id,
            open.get(k)
                .map_or(Action::Wait, |&dir| Action::Move { dir }),
        )
        .unwrap();
        d.resolve_pending(1);
    }
    for (i, s) in d.player(id).unwrap().fov().iter().enumerate() {
        ever_seen[i] |= s;
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

/// Three players walking and fighting for 300 turns with monsters about.
fn play(d: &mut Dungeon, turns: usize) -> Vec<EntityId> {
    let ids: Vec<EntityId> = ["Ann", "Bob", "Cy"]
        .iter()
        .map(|n| d.join(n).unwrap().0)
        .collect();
    for t in 0..turns {
        for (k, &id) in ids.iter().enumerate() {
            let dir = Dir::ALL[(t / 7 + k * 3) % 8];
            if d.submit(id, Action::Move { dir }).is_err() {
                let _ = d.submit(id, Action::Wait);
            }
        }
        d.resolve_pending(1);
    }
    ids
}

fn fingerprint(d: &Dungeon, ids: &[EntityId]) -> Vec<String> {
    let mut out: Vec<String> = ids
        .iter()
        .map(|id| {
            let p = d.player(*id).unwrap();
            format!(
                "{} {:?} hp{} xp{} l{} alive{} {:?}",
                p.name,
                p.pos,
                p.hp,
                p.xp,
                p.level,
                p.alive,
                p.memory(1).map(|m| m.cells().len())
            )
        })
        .collect();
    out.extend(
        d.floor(1)
            .unwrap()
            .monsters
            .values()
            .map(|m| format!("{} {:?} hp{} l{}", m.id, m.pos, m.hp, m.level)),
    );
    out
}

#[test]
fn same_seed_and_inputs_give_the_same_world_monsters_and_all() {
    let (mut a, mut b, mut c) = (full(99), full(99), full(100));
    let (ia, ib, ic) = (play(&mut a, 300), play(&mut b, 300), play(&mut c, 300));
    assert_eq!(fingerprint(&a, &ia), fingerprint(&b, &ib));
    assert_ne!(fingerprint(&a, &ia), fingerprint(&c, &ic));
}

#[test]
fn replaying_the_reported_actions_reproduces_the_world() {
    let mut live = full(5);
    let mut copy = full(5);
    let ids: Vec<EntityId> = ["Ann", "Bob"]
        .iter()
        .map(|n| live.join(n).unwrap().0)
        .collect();
    for n in ["Ann", "Bob"] {
        copy.join(n).unwrap();
    }
    for t in 0..200usize {
        for (k, &id) in ids.iter().enumerate() {
            let dir = Dir::ALL[(t / 3 + k * 3) % 8];
            if live.submit(id, Action::Move { dir }).is_err() {
                let _ = live.submit(id, Action::Wait);
            }
        }
        let actions = live.choices(1);
        let report = live.resolve_turn(1, &actions);
        let replayed = copy.resolve_turn(1, &actions);
        assert_eq!(replayed, report, "turn {t}");
    }
    assert_eq!(fingerprint(&live, &ids), fingerprint(&copy, &ids));
}

// ---- monsters, combat, experience, floors -------------------------------------------

#[test]
fn floors_fill_with_more_monsters_deeper_at_the_floor_s_level_and_the_king_alone_at_the_bottom() {
    let mut d = full(7);
    let c = d.content().clone();
    let mut last = 0;
    for depth in 1..=9u8 {
        let floor = d.floor_mut(depth);
        let n = floor.monsters.len();
        assert_eq!(
            n as u32,
            c.spawn.count + c.spawn.count_per_floor * u32::from(depth - 1),
            "floor {depth}"
        );
        assert!(n > last);
        last = n;
        let up = floor.up;
        let dist = crate::game::mapgen::distances(&floor.map, up);
        for m in floor.monsters.values() {
            let k = m.kind(&c);
            assert!(
                k.floors[0] <= depth && depth <= k.floors[1],
                "{} on floor {depth}",
                k.key
            );
            assert_eq!(
                m.level,
                u32::from(depth),
                "monsters start at the floor's level"
            );
            assert!(!k.boss);
            let steps = dist[floor.map.index(m.pos).unwrap()].unwrap();
            assert!(
                steps >= c.spawn.safe_distance,
                "{} starts {steps} steps from the stair",
                k.key
            );
            // Level-1 monsters have exactly the rolled HP in the given range.
            if depth == 1 {
                assert!((k.hp[0]..=k.hp[1]).contains(&m.stats(&c).max_hp));
            }
        }
    }
    let bottom = d.floor_mut(10);
    assert_eq!(bottom.monsters.len(), 1);
    let king = bottom.monsters.values().next().unwrap();
    assert_eq!(&*king.kind(&c).key, "mouse_king");
    assert!(
        bottom.down.is_none(),
        "the bottom floor has no way further down"
    );
}

#[test]
fn monster_hp_rolls_cover_the_given_ranges() {
    let c = Content::builtin();
    let mut rng = crate::game::rng::floor_rng(1, 1, crate::game::rng::Stream::Spawn);
    for (kind, k) in c.monsters.iter().enumerate() {
        let rolls: Vec<i32> = (0..400)
            .map(|_| {
                crate::game::monster::make(&c, kind, 1, Pos::new(0, 0), 1, &mut rng)
                    .stats(&c)
                    .max_hp
            })
            .collect();
        assert_eq!(*rolls.iter().min().unwrap(), k.hp[0], "{}", k.key);
        assert_eq!(*rolls.iter().max().unwrap(), k.hp[1], "{}", k.key);
    }
}

#[test]
fn killing_a_monster_gives_its_xp_and_counts_the_kill() {
    let mut d = quiet(3);
    let (ann, _) = d.join("Ann").unwrap();
    let p = open_area(&mut d, 1, 3);
    place(&mut d, ann, p);
    let mouse = d.add_monster_for_test(1, "micro_mouse", 1, p.step(Dir::E));
    let mut events = Vec::new();
    for _ in 0..100 {
        if !d.floor(1).unwrap().monsters.contains_key(&mouse) {
            break;
        }
        d.submit(ann, Action::Move { dir: Dir::E }).unwrap();
        events.extend(d.resolve_pending(1).events);
    }
    assert!(
        !d.floor(1).unwrap().monsters.contains_key(&mouse),
        "the Micro Mouse died"
    );
    let ann_p = d.player(ann).unwrap();
    assert_eq!(ann_p.kills, 1);
    // Same level: the table value (given: 10 XP for a Micro Mouse).
    assert_eq!(ann_p.xp, 10);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Died { victim, .. } if victim.id == mouse))
    );
    assert!(events.contains(&Event::GainedXp {
        id: ann,
        amount: 10
    }));
    assert!(events.iter().any(
        |e| matches!(e, Event::Attacked { attacker, damage: Some(_), .. } if attacker.id == ann)
    ));
}

#[test]
fn every_player_who_sees_a_kill_gets_its_full_xp() {
    let mut d = quiet(3);
    let (ann, _) = d.join("Ann").unwrap();
    let (bob, _) = d.join("Bob").unwrap();
    let p = open_area(&mut d, 1, 4);
    place(&mut d, ann, p);
    place(&mut d, bob, p.step(Dir::S).step(Dir::W));
    let mouse = d.add_monster_for_test(1, "neo_mouse", 1, p.step(Dir::E));
    for _ in 0..200 {
        if !d.floor(1).unwrap().monsters.contains_key(&mouse) {
            break;
        }
        d.submit(ann, Action::Move { dir: Dir::E }).unwrap();
        d.submit(bob, Action::Wait).unwrap();
        d.resolve_pending(1);
    }
    let (a, b) = (d.player(ann).unwrap(), d.player(bob).unwrap());
    assert!(a.alive && b.alive);
    // The Neo Mouse's whole XP for each witness, both at its level: a friend costs nothing.
    let neo = d.content().monster("neo_mouse").unwrap().xp;
    assert_eq!((a.xp, b.xp), (neo, neo));
    assert_eq!((a.kills, b.kills), (1, 0));
}

#[test]
fn levelling_up_heals_fully_and_grants_a_point_to_spend() {
    let mut d = quiet(3);
    let (ann, _) = d.join("Ann").unwrap();
    d.players.get_mut(&ann).unwrap().hp = 3;
    let events = d.gain_xp_for_test(ann, 100);
    assert!(events.contains(&Event::LeveledUp {
        id: ann,
        level: 2,
        stat: None
    }));
    let c = d.content().clone();
    let p = d.player(ann).unwrap();
    assert_eq!(p.level, 2);
    assert_eq!(
        p.hp,
        player_base(&c, 2).max_hp,
        "healed to the new maximum (35)"
    );
    assert_eq!(p.unspent, 1);
    let before = p.stats(&c);
    d.spend_point(ann, Stat::Defence).unwrap();
    let p = d.player(ann).unwrap();
    assert_eq!(p.stats(&c).defence, before.defence + 1);
    assert_eq!(p.unspent, 0);
    assert_eq!(
        d.spend_point(ann, Stat::Attack),
        Err(ActionError::NoPoints),
        "no point left: refused"
    );
    assert_eq!(
        d.player(ann).unwrap().stats(&c).attack_min,
        before.attack_min,
        "and nothing changed"
    );
    // Several levels at once: one point each.
    d.gain_xp_for_test(ann, xp_for_level(&c, 5) - 100);
    let p = d.player(ann).unwrap();
    assert_eq!((p.level, p.unspent), (5, 3));
    d.spend_point(ann, Stat::MaxHp).unwrap();
    let p = d.player(ann).unwrap();
    assert_eq!(p.stats(&c).max_hp, player_base(&c, 5).max_hp + 10);
    assert_eq!(p.hp, p.stats(&c).max_hp, "the extra HP comes filled");
}

#[test]
fn a_monster_that_sees_a_player_chases_and_attacks() {
    let mut d = quiet(11);
    let (ann, _) = d.join("Ann").unwrap();
    let p = open_area(&mut d, 1, 6);
    place(&mut d, ann, p);
    let rat = d.add_monster_for_test(1, "neo_mouse", 1, Pos::new(p.x + 5, p.y));
    let mut dist = 5;
    let mut attacked = false;
    for _ in 0..20 {
        d.submit(ann, Action::Wait).unwrap();
        let report = d.resolve_pending(1);
        let Some(m) = d.floor(1).unwrap().monsters.get(&rat) else {
            break;
        };
        let now = m.pos.chebyshev(d.player(ann).unwrap().pos);
        assert!(now <= dist, "the chase never backs off ({dist} -> {now})");
        dist = now;
        assert!(matches!(m.ai, Ai::Hunt { .. }), "alerted");
        if report.events.iter().any(|e| matches!(e, Event::Attacked { attacker, target, .. } if attacker.id == rat && target.id == ann)) {
            attacked = true;
            break;
        }
    }
    assert!(attacked, "it reached Ann and attacked");
}

#[test]
fn unalerted_monsters_patrol_and_monsters_never_fight_each_other() {
    let mut d = full(21);
    let (ann, _) = d.join("Ann").unwrap();
    // Ann only waits here; she must outlive the mice that find her.
    d.players.get_mut(&ann).unwrap().hp = 100_000;
    let start: BTreeMap<EntityId, (Pos, i32)> = d
        .floor(1)
        .unwrap()
        .monsters
        .values()
        .map(|m| (m.id, (m.pos, m.hp)))
        .collect();
    for _ in 0..60 {
        d.submit(ann, Action::Wait).unwrap();
        let report = d.resolve_pending(1);
        for e in &report.events {
            if let Event::Attacked {
                attacker, target, ..
            } = e
            {
                assert!(
                    attacker.player != target.player,
                    "monsters only fight players: {e:?}"
                );
                assert_ne!(attacker.id, target.id);
            }
        }
    }
    let floor = d.floor(1).unwrap();
    let moved = floor
        .monsters
        .values()
        .filter(|m| start.get(&m.id).is_some_and(|(p, _)| *p != m.pos))
        .count();
    assert!(
        moved * 2 >= floor.monsters.len(),
        "most monsters wander: {moved} of {}",
        floor.monsters.len()
    );
    for m in floor.monsters.values() {
        if let Some((_, hp)) = start.get(&m.id) {
            // Nobody but players could have hurt them, and Ann only waited.
            assert_eq!(m.hp, *hp);
        }
    }
}

/// A calm monster walks to the middle of a room by the shortest way, never a step away from
/// it, and on arrival sets off for another.
#[test]
fn a_calm_monster_walks_from_room_middle_to_room_middle() {
    let mut d = quiet(11);
    let (ann, _) = d.join("Ann").unwrap();
    let floor = d.floor(1).unwrap();
    let (rooms, map) = (floor.rooms.clone(), floor.map.clone());
    // Ann waits in an alcove behind a shut door, where no monster sees or reaches her.
    let reach = crate::game::path::flow_field(&map, [floor.up]);
    let alcove = (0..map.cells().len())
        .map(|i| map.pos_of(i))
        .find(|&p| {
            map.get(p).is_walkable()
                && reach[map.index(p).unwrap()] == u32::MAX
                && Dir::ALL
                    .iter()
                    .any(|&dir| map.get(p.step(dir)).is_shut_door())
        })
        .expect("an alcove behind a door");
    place(&mut d, ann, alcove);
    let mouse = d.add_monster_for_test(1, "micro_mouse", 1, rooms[0].center());
    let mut walked: Option<(u8, u32)> = None;
    let mut arrived = Vec::new();
    for _ in 0..300 {
        d.submit(ann, Action::Wait).unwrap();
        d.resolve_pending(1);
        let m = &d.floor(1).unwrap().monsters[&mouse];
        let Ai::Roam { room, .. } = m.ai else {
            assert!(m.ai.is_calm(), "it never met Ann: {:?}", m.ai);
            continue;
        };
        let middle = rooms[usize::from(room)].center();
        let left = crate::game::path::flow_field(&map, [middle])[map.index(m.pos).unwrap()];
        if let Some((before, was)) = walked
            && before == room
        {
            assert!(
                left == was || left + 1 == was,
                "{was} steps left, then {left}"
            );
        }
        if left == 0 {
            arrived.push(room);
        }
        walked = Some((room, left));
    }
    arrived.dedup();
    assert!(arrived.len() >= 3, "it went from room to room: {arrived:?}");
}

#[test]
fn a_blocked_monster_finds_another_way() {
    // Two hunters and a player in a room: the second hunter's best step is taken by the
    // first, so it must sidestep round it rather than wait behind it forever.
    let mut d = quiet(11);
    let (ann, _) = d.join("Ann").unwrap();
    let p = open_area(&mut d, 1, 6);
    place(&mut d, ann, p);
    let first = d.add_monster_for_test(1, "neo_mouse", 1, Pos::new(p.x + 2, p.y));
    let second = d.add_monster_for_test(1, "neo_mouse", 1, Pos::new(p.x + 3, p.y));
    let mut reached = false;
    for _ in 0..10 {
        d.submit(ann, Action::Wait).unwrap();
        d.resolve_pending(1);
        let floor = d.floor(1).unwrap();
        if floor
            .monsters
            .get(&second)
            .is_some_and(|m| m.pos.chebyshev(p) == 1)
        {
            reached = true;
            break;
        }
        if !d.player(ann).unwrap().alive {
            break;
        }
    }
    let _ = first;
    assert!(reached, "the second monster went round the first");
}

#[test]
fn monsters_that_kill_players_gain_xp_and_level_up() {
    let mut d = quiet(4);
    let (ann, _) = d.join("Ann").unwrap();
    let p = open_area(&mut d, 1, 3);
    place(&mut d, ann, p);
    d.players.get_mut(&ann).unwrap().hp = 1;
    d.players.get_mut(&ann).unwrap().level = 3;
    let brute = d.add_monster_for_test(1, "meta_mouse", 1, p.step(Dir::E));
    let mut report = None;
    for _ in 0..30 {
        d.submit(ann, Action::Wait).unwrap();
        let r = d.resolve_pending(1);
        if !d.player(ann).unwrap().alive {
            report = Some(r);
            break;
        }
    }
    let report = report.expect("the Meta Mouse killed Ann");
    let c = d.content().clone();
    let ann_p = d.player(ann).unwrap();
    let death = ann_p.death.as_ref().unwrap();
    assert_eq!((death.killer.as_str(), death.depth), ("Meta Mouse", 1));
    assert_eq!(
        crate::view::cause_of_death(&c, death),
        "killed by a Meta Mouse on floor 1"
    );
    // A level-3 player is worth 3 * player_value_per_level, scaled up for the level gap.
    let worth = 3 * c.xp.player_value_per_level;
    let gained = kill_xp(&c.xp, worth, 3, 1);
    assert!(gained > worth, "worth more to a lower-level monster");
    assert!(report.events.contains(&Event::GainedXp {
        id: brute,
        amount: gained
    }));
    let m = &d.floor(1).unwrap().monsters[&brute];
    let level = crate::game::stats::level_for_xp(&c, gained);
    assert!(level >= 2);
    assert_eq!(m.level, level, "levelled like a player");
    assert!(
        report
            .events
            .iter()
            .any(|e| matches!(e, Event::LeveledUp { id, level: 2, stat: Some(_) } if *id == brute))
    );
    assert_eq!(m.hp, m.stats(&c).max_hp, "healed on levelling");
}

#[test]
fn the_dead_cannot_act_block_or_hold_up_a_turn_and_can_start_again() {
    let mut d = quiet(4);
    let (ann, _) = d.join("Ann").unwrap();
    let (bob, _) = d.join("Bob").unwrap();
    let p = open_area(&mut d, 1, 3);
    place(&mut d, ann, p);
    d.players.get_mut(&ann).unwrap().hp = 1;
    d.add_monster_for_test(1, "meta_mouse", 3, p.step(Dir::E));
    for _ in 0..30 {
        d.submit(bob, Action::Wait).unwrap();
        d.submit(ann, Action::Wait).ok();
        d.resolve_pending(1);
        if !d.player(ann).unwrap().alive {
            break;
        }
    }
    assert!(!d.player(ann).unwrap().alive);
    assert_eq!(d.check(ann, Action::Wait), Err(ActionError::Dead));
    assert_eq!(
        d.waiting_for(1),
        vec![bob],
        "only the living are waited for"
    );
    assert!(d.living_on(1).all(|x| x.id != ann));
    assert_eq!(d.new_character(bob).unwrap_err(), JoinError::StillAlive);
    let (again, _) = d.new_character(ann).unwrap();
    let fresh = d.player(again).unwrap();
    assert_ne!(again, ann);
    assert_eq!(
        (&*fresh.name, fresh.alive, fresh.level, fresh.depth),
        ("Ann", true, 1, 1)
    );
}

/// Walks `id` to the stair at `target` on its floor (quiet floors only).
fn walk_to(d: &mut Dungeon, id: EntityId, target: Pos) {
    for _ in 0..400 {
        let p = d.player(id).unwrap();
        if p.pos == target {
            return;
        }
        let map = &d.floor(p.depth).unwrap().map;
        let route = crate::game::path::astar(map, p.pos, target, 400, |_| false).expect("a way");
        let dir = Dir::from_delta(route[0].x - p.pos.x, route[0].y - p.pos.y).unwrap();
        d.submit(id, Action::Move { dir }).unwrap();
        let depth = d.player(id).unwrap().depth;
        d.resolve_pending(depth);
    }
    panic!("never reached {target:?}");
}

#[test]
fn stairs_lead_down_and_back_up_to_the_floor_as_it_was_left() {
    let mut d = full(8);
    let (ann, _) = d.join("Ann").unwrap();
    assert_eq!(
        d.check(ann, Action::Descend),
        Err(ActionError::NoStairs),
        "not on the stairs"
    );
    let up1 = d.floor(1).unwrap().up;
    place(&mut d, ann, up1);
    assert_eq!(
        d.check(ann, Action::Ascend),
        Err(ActionError::NoWayUp),
        "floor 1's up-stair leads nowhere"
    );
    let down1 = d.floor(1).unwrap().down.unwrap();
    // Teleport beside the stair (walking would meet monsters) and step on.
    place(&mut d, ann, down1);
    let floor1_before: Vec<(EntityId, Pos, i32)> = d
        .floor(1)
        .unwrap()
        .monsters
        .values()
        .map(|m| (m.id, m.pos, m.hp))
        .collect();
    let turn1 = d.floor(1).unwrap().turn;

    d.submit(ann, Action::Descend).unwrap();
    let report = d.resolve_pending(1);
    let p = d.player(ann).unwrap();
    assert_eq!(p.depth, 2);
    assert_eq!(
        p.pos,
        d.floor(2).unwrap().up,
        "arriving from above: at the up-stair"
    );
    assert_eq!(p.deepest, 2);
    assert_eq!(report.floors, vec![1, 2]);
    let texts = super::scene::said(&report.events, ann);
    assert!(
        texts.contains(&"You descend the staircase.".to_string())
            && texts.contains(&"Entering floor #2".to_string()),
        "{texts:?}"
    );
    let turn1_after_descent = d.floor(1).unwrap().turn;
    assert_eq!(turn1_after_descent, turn1 + 1);

    // Floor 2 ticks on its own; floor 1 stands still meanwhile.
    for _ in 0..5 {
        d.submit(ann, Action::Wait).unwrap();
        d.resolve_pending(2);
    }
    assert_eq!(
        d.floor(1).unwrap().turn,
        turn1_after_descent,
        "nobody on floor 1: its clock stopped"
    );
    let floor1_mid: Vec<(EntityId, Pos, i32)> = d
        .floor(1)
        .unwrap()
        .monsters
        .values()
        .map(|m| (m.id, m.pos, m.hp))
        .collect();

    d.submit(ann, Action::Ascend).unwrap();
    d.resolve_pending(2);
    let p = d.player(ann).unwrap();
    assert_eq!(p.depth, 1);
    assert_eq!(p.pos, down1, "arriving from below: at the down-stair");
    let floor1_after: Vec<(EntityId, Pos, i32)> = d
        .floor(1)
        .unwrap()
        .monsters
        .values()
        .map(|m| (m.id, m.pos, m.hp))
        .collect();
    assert_eq!(floor1_after, floor1_mid, "floor 1 exactly as it was left");
    assert_eq!(floor1_before.len(), floor1_after.len());
}

#[test]
fn a_quiet_floor_walk_reaches_the_bottom() {
    // Every floor's down-stair is reachable from its up-stair; ten floors deep.
    let mut d = quiet(12);
    let (ann, _) = d.join("Ann").unwrap();
    for depth in 1..10u8 {
        let down = d.floor_mut(depth).down.unwrap();
        walk_to(&mut d, ann, down);
        d.submit(ann, Action::Descend).unwrap();
        d.resolve_pending(depth);
        assert_eq!(d.player(ann).unwrap().depth, depth + 1);
    }
    assert_eq!(d.player(ann).unwrap().deepest, 10);
    assert_eq!(d.check(ann, Action::Descend), Err(ActionError::NoStairs));
}

#[test]
fn players_heal_slowly_over_time() {
    let mut d = quiet(2);
    let (ann, _) = d.join("Ann").unwrap();
    d.players.get_mut(&ann).unwrap().hp = 10;
    let every = d.content().player.regen_turns as usize;
    for _ in 0..every * 3 {
        d.submit(ann, Action::Wait).unwrap();
        d.resolve_pending(1);
    }
    assert_eq!(d.player(ann).unwrap().hp, 13);
}

#[test]
fn a_dead_player_keeps_the_name_while_here_and_old_records_make_room() {
    let mut d = quiet(4);
    let (ann, _) = d.join("Ann").unwrap();
    let mut out = Vec::new();
    let actor = |id| Actor {
        id,
        name: "x".into(),
        pos: Pos::new(0, 0),
        player: true,
    };
    d.emit(
        Event::Died {
            victim: actor(ann),
            killer: None,
        },
        &mut out,
    );
    assert_eq!(
        d.join("ann").unwrap_err(),
        JoinError::NameTaken("ann".into()),
        "Ann may still start again"
    );
    let (again, _) = d.new_character(ann).unwrap();
    assert!(
        d.player(ann).is_none(),
        "the dead record gave way to the new character"
    );
    assert_eq!(d.character_count(), 1);
    // A dead character whose player left frees the name, and is the first to be evicted.
    d.emit(
        Event::Died {
            victim: actor(again),
            killer: None,
        },
        &mut out,
    );
    d.set_connected(again, false);
    assert!(
        d.join("Ann").is_ok(),
        "the name is free once its dead player has gone"
    );
    assert_eq!(d.character_count(), 2);
    assert!(d.evict_dead());
    assert_eq!(d.character_count(), 1);
    assert!(!d.evict_dead(), "nothing else to evict");
}

#[test]
fn the_turn_spent_on_the_stairs_counts_and_the_top_level_has_no_next() {
    let mut d = quiet(8);
    let (ann, _) = d.join("Ann").unwrap();
    let down = d.floor_mut(1).down.unwrap();
    place(&mut d, ann, down);
    let before = d.player(ann).unwrap().turns;
    d.submit(ann, Action::Descend).unwrap();
    d.resolve_pending(1);
    assert_eq!(d.player(ann).unwrap().turns, before + 1);
    let c = d.content().clone();
    d.players.get_mut(&ann).unwrap().level = c.levels.max_level;
    let (from, next) = d.player(ann).unwrap().xp_band(&c);
    assert_eq!(from, next, "no next level to show progress towards");
}

#[test]
fn only_a_left_character_with_nothing_pending_is_forgotten_unplayed() {
    let mut d = quiet(9);
    let (ann, _) = d.join("Ann").unwrap();
    let (bob, _) = d.join("Bob").unwrap();
    d.set_connected(ann, true);
    d.set_connected(bob, true);
    assert!(
        d.forget_unplayed(ann).is_empty(),
        "a connected character stays"
    );
    d.set_connected(ann, false);
    let dir = walls_free_dir(&d, ann);
    d.submit(ann, Action::Move { dir }).unwrap();
    assert!(
        d.forget_unplayed(ann).is_empty(),
        "a character whose choice waits for the turn stays"
    );
    d.resolve_pending(1);
    let events = d.forget_unplayed(ann);
    assert!(matches!(events[..], [Event::Forgotten { id }] if id == ann));
    assert!(d.player(ann).is_none());
    assert_eq!(d.character_count(), 1);
    // Its name is free again, and the one who stays is untouched.
    assert!(d.join("Ann").is_ok());
    assert!(d.player(bob).is_some_and(|p| p.alive));
    assert!(d.forget_unplayed(ann).is_empty(), "nothing left to forget");
}
