//! Per-player views: what one character sees and remembers, built from the world after each
//! change, plus the turn's events filtered to what that character could see.
//!
//! This is the privacy boundary. Everything a client learns about the world passes through
//! [`view_of`] or [`events_for`], and both only read cells in the character's current sight or
//! memory.

use delve_protocol as proto;
use delve_protocol::{CellSet, EntityKind, EntityView, SelfView, View};

use crate::game::{Dungeon, EntityId, Event, Player};

/// The view of character `id`, or `None` if it is not in the dungeon.
pub fn view_of(dungeon: &Dungeon, id: EntityId) -> Option<View> {
    let me = dungeon.player(id)?;
    let floor = dungeon.floor(me.depth)?;
    let map = me
        .memory(me.depth)
        .cloned()
        .unwrap_or_else(|| proto::TileGrid::new(floor.map.width(), floor.map.height()));
    let visible = CellSet::from_flags(me.fov().iter().copied());
    let mut entities: Vec<EntityView> = dungeon
        .players_on(me.depth)
        .filter(|p| p.id == id || sees(me, p.pos, &map))
        .map(entity_of)
        .collect();
    entities.sort_by_key(|e| e.id);
    Some(View {
        turn: floor.turn,
        depth: me.depth,
        map,
        visible,
        entities,
        me: self_of(me),
    })
}

fn sees(viewer: &Player, p: proto::Pos, map: &proto::TileGrid) -> bool {
    map.index(p).is_some_and(|i| viewer.sees(i))
}

fn entity_of(p: &Player) -> EntityView {
    EntityView {
        id: p.id,
        kind: EntityKind::Player,
        name: p.name.clone(),
        pos: p.pos,
        hp: p.hp,
        max_hp: p.max_hp,
    }
}

fn self_of(p: &Player) -> SelfView {
    SelfView {
        id: p.id,
        name: p.name.clone(),
        pos: p.pos,
        depth: p.depth,
        hp: p.hp,
        max_hp: p.max_hp,
        level: p.level,
        xp: p.xp,
        sight: p.sight,
    }
}

/// The events of a turn on floor `depth` that character `viewer` could see, for its client.
///
/// The rule is conservative: an event is shown when it is about the viewer, or when every cell it
/// names is in the viewer's sight after the turn. A step from the dark into sight is therefore not
/// animated (the entity simply appears, via the view diff): animating it would reveal the cell it
/// came from.
pub fn events_for(
    dungeon: &Dungeon,
    viewer: EntityId,
    depth: u8,
    events: &[Event],
) -> Vec<proto::Event> {
    let Some(me) = dungeon.player(viewer) else {
        return Vec::new();
    };
    if me.depth != depth {
        return Vec::new();
    }
    let Some(floor) = dungeon.floor(depth) else {
        return Vec::new();
    };
    let in_sight = |p: proto::Pos| floor.map.index(p).is_some_and(|i| me.sees(i));
    events
        .iter()
        .filter_map(|e| match e {
            Event::Moved { id, from, to } => {
                let seen = *id == viewer || (in_sight(*from) && in_sight(*to));
                seen.then_some(proto::Event::Moved {
                    id: *id,
                    from: *from,
                    to: *to,
                })
            }
            Event::Message { to, kind, text } => {
                (*to == viewer).then(|| proto::Event::message(*kind, text.clone()))
            }
            // Arrival shows up as the entity appearing in the view; its log line is a message.
            Event::Arrived { .. } => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Dungeon;
    use delve_protocol::{Dir, Pos, Tile};

    /// Two floor cells on floor 1 that cannot see each other, and one pair that can.
    fn scene(d: &mut Dungeon) -> ((Pos, Pos), (Pos, Pos)) {
        let map = d.floor_mut(1).map.clone();
        let floor: Vec<Pos> = (0..map.cells().len())
            .map(|i| map.pos_of(i))
            .filter(|p| map.get(*p) == Tile::Floor)
            .collect();
        let (a, _) = d.join("Probe").unwrap();
        let mut hidden = None;
        let mut seen = None;
        'outer: for &p in &floor {
            d.place_for_test(a, 1, p);
            for &q in &floor {
                let sees = d.player(a).unwrap().sees(map.index(q).unwrap());
                if q != p && sees && q.chebyshev(p) >= 2 && seen.is_none() {
                    seen = Some((p, q));
                }
                if !sees && hidden.is_none() {
                    hidden = Some((p, q));
                }
                if seen.is_some() && hidden.is_some() {
                    break 'outer;
                }
            }
        }
        (hidden.unwrap(), seen.unwrap())
    }

    #[test]
    fn a_view_holds_the_other_player_only_in_sight() {
        let mut d = Dungeon::new(77);
        let ((h1, h2), (s1, s2)) = scene(&mut d);
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();

        d.place_for_test(ann, 1, h1);
        d.place_for_test(bob, 1, h2);
        let v = view_of(&d, ann).unwrap();
        assert!(v.entity(bob).is_none(), "Bob is out of sight");
        assert!(v.entity(ann).is_some(), "you always see yourself");
        assert!(!v.is_visible(h2));

        d.place_for_test(ann, 1, s1);
        d.place_for_test(bob, 1, s2);
        let v = view_of(&d, ann).unwrap();
        assert_eq!(v.entity(bob).map(|e| e.pos), Some(s2));
        for e in &v.entities {
            assert!(v.is_visible(e.pos));
        }
        // Remembered tiles come only from memory: nothing unknown is visible.
        for i in v.visible.iter() {
            assert_ne!(v.map.cells()[i], Tile::Unknown);
        }
    }

    #[test]
    fn moves_are_shown_only_when_both_ends_are_in_sight() {
        let mut d = Dungeon::new(77);
        let (_, (s1, s2)) = scene(&mut d);
        let (ann, _) = d.join("Ann").unwrap();
        let (bob, _) = d.join("Bob").unwrap();
        d.place_for_test(ann, 1, s1);
        d.place_for_test(bob, 1, s2);
        let map = d.floor(1).unwrap().map.clone();
        let ann_sees = |q: Pos| d.player(ann).unwrap().sees(map.index(q).unwrap());
        let dark = (0..map.cells().len())
            .map(|i| map.pos_of(i))
            .find(|&q| map.get(q) == Tile::Floor && !ann_sees(q))
            .unwrap();
        let lit_step = Dir::ALL
            .iter()
            .map(|&dir| s2.step(dir))
            .find(|&q| map.get(q) == Tile::Floor && q != s1 && ann_sees(q))
            .unwrap();
        let seen = Event::Moved {
            id: bob,
            from: s2,
            to: lit_step,
        };
        let into_dark = Event::Moved {
            id: bob,
            from: s2,
            to: dark,
        };
        let from_dark = Event::Moved {
            id: bob,
            from: dark,
            to: s2,
        };
        let theirs = Event::Message {
            to: bob,
            kind: delve_protocol::MessageKind::Normal,
            text: "secret".into(),
        };
        let out = events_for(&d, ann, 1, &[seen.clone(), into_dark, from_dark, theirs]);
        assert_eq!(
            out,
            vec![delve_protocol::Event::Moved {
                id: bob,
                from: s2,
                to: lit_step
            }]
        );
        // Your own moves always come through, even from the dark.
        let own = Event::Moved {
            id: ann,
            from: dark,
            to: s1,
        };
        assert_eq!(events_for(&d, ann, 1, &[own]).len(), 1);
        // Nothing for a player on another floor.
        assert!(events_for(&d, ann, 2, &[seen]).is_empty());
    }
}
