//! The pack's tools, through the engine: the Pocket Teleporter, the Floor Plan and the
//! Smelling Salts.

use std::sync::Arc;

use delve_protocol::{Effect, Tile};

use crate::game::action::{Action, ActionError};
use crate::game::content::Content;
use crate::game::dungeon::scene::{said, turn};
use crate::game::{Dungeon, EntityId};

fn ann(seed: u64) -> (Dungeon, EntityId) {
    let mut d = Dungeon::new(seed, Arc::new(Content::builtin_without_monsters()));
    let (ann, _) = d.join("Ann").unwrap();
    (d, ann)
}

#[test]
fn a_teleporter_carries_you_far_across_the_floor() {
    let (mut d, ann) = ann(21);
    let tele = d.give_for_test(ann, "teleporter");
    let from = d.player(ann).unwrap().pos;
    let events = turn(&mut d, ann, Action::Use { item: tele });
    let to = d.player(ann).unwrap().pos;
    let far = d.content().item("teleporter").unwrap().distance;
    assert!(to.chebyshev(from) >= far, "{from:?} -> {to:?}");
    assert_eq!(d.floor(1).unwrap().tile(to), Tile::Floor);
    assert!(said(&events, ann).contains(&"You are whisked away across the floor.".to_string()));
    assert!(d.player(ann).unwrap().carried(tele).is_none(), "used up");
    // What Ann sees now is around her new cell.
    let map = d.floor(1).unwrap().map.clone();
    assert!(d.player(ann).unwrap().sees(map.index(to).unwrap()));
}

#[test]
fn a_floor_plan_puts_every_room_and_corridor_on_your_map() {
    let (mut d, ann) = ann(22);
    let plan = d.give_for_test(ann, "floor_plan");
    let map = d.floor(1).unwrap().map.clone();
    let walkable = |m: &delve_protocol::TileGrid| {
        (0..map.cells().len())
            .filter(|&i| map.cells()[i].is_walkable() && m.cells()[i] == map.cells()[i])
            .count()
    };
    let all = (map.cells().iter()).filter(|t| t.is_walkable()).count();
    assert!(walkable(d.player(ann).unwrap().memory(1).unwrap()) < all);
    turn(&mut d, ann, Action::Use { item: plan });
    let memory = d.player(ann).unwrap().memory(1).unwrap().clone();
    assert_eq!(walkable(&memory), all, "every floor cell is known");
    // The rock behind the walls stays unknown.
    let rock = (0..map.cells().len())
        .find(|&i| {
            let p = map.pos_of(i);
            delve_protocol::Dir::ALL
                .iter()
                .all(|d| map.get(p.step(*d)) == Tile::Wall)
        })
        .expect("solid rock somewhere");
    assert_eq!(memory.cells()[rock], Tile::Unknown);
}

#[test]
fn smelling_salts_clear_a_stunned_or_confused_head_even_then() {
    let (mut d, ann) = ann(23);
    let salts = d.give_for_test(ann, "smelling_salts");
    d.give_for_test(ann, "smelling_salts");
    let use_ = Action::Use { item: salts };
    assert_eq!(d.submit(ann, use_), Err(ActionError::ClearHead));
    d.afflict_for_test(ann, Effect::Stun);
    d.afflict_for_test(ann, Effect::Confusion);
    // Another pack action is refused; the salts are not, and the stun does not take the turn.
    let drink = Action::Use { item: 9999 };
    assert_eq!(d.submit(ann, drink), Err(ActionError::StunnedPack));
    let events = turn(&mut d, ann, use_);
    let lines = said(&events, ann);
    assert!(
        lines.contains(
            &"The smelling salts clear your head: you are no longer stunned.".to_string()
        ),
        "{lines:?}"
    );
    assert!(
        lines.contains(
            &"The smelling salts clear your head: you are no longer confused.".to_string()
        )
    );
    let p = d.player(ann).unwrap();
    assert!(!p.has(Effect::Stun) && !p.has(Effect::Confusion));
}
