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
