//! Walking a [`Bot`] about by its own view, for the tests of items, rest and throwing: find the
//! way to a cell, explore, fetch an item, and servers whose floors are strewn with one kind of
//! item.

use std::sync::Arc;

use delve_protocol::{Action, ClientMsg, Dir, EntityKind, Event, Pos, Tile, TileGrid, View};
use delve_server::game::Content;
use delve_server::game::path::nearest_route;
use delve_server::net::ServerConfig;

use crate::{Bot, test_config};

/// A server whose floors are strewn with loose items of kind `key` only (40 a floor), with no
/// monsters, and every door locked. The bot plays far faster than people, so the message rate
/// limit is lifted.
pub fn strewn_with(key: &str) -> ServerConfig {
    let mut c = Content::builtin_without_monsters();
    for it in &mut c.items {
        it.loose = &*it.key == key;
    }
    c.placement.loose = [40, 40];
    c.placement.locked = [1, 1];
    ServerConfig {
        content: Arc::new(c),
        msgs_per_sec: 100_000,
        msg_burst: 100_000,
        ..test_config()
    }
}

/// The bot's map with the cells of creatures other than itself walled off, and shut doors
/// open when `through_doors`.
pub fn walkable_map(v: &View, through_doors: bool) -> TileGrid {
    let mut map = v.map.clone();
    for e in &v.entities {
        if e.id != v.me.id && e.kind != EntityKind::Item {
            map.set(e.pos, Tile::Wall);
        }
    }
    if through_doors {
        for i in 0..map.cells().len() {
            if map.cells()[i].is_shut_door() {
                map.set_index(i, Tile::DoorOpen);
            }
        }
    }
    map
}

/// The first step towards the nearest cell that satisfies `goal`, by the bot's own view.
pub fn step_towards(v: &View, through_doors: bool, goal: impl Fn(Pos) -> bool) -> Option<Dir> {
    let route = nearest_route(&walkable_map(v, through_doors), v.me.pos, goal)?;
    let next = *route.last()?;
    Dir::from_delta(next.x - v.me.pos.x, next.y - v.me.pos.y)
}

/// A known walkable cell beside an unknown one.
pub fn frontier(v: &View, p: Pos) -> bool {
    v.map.get(p).is_walkable()
        && Dir::ALL
            .iter()
            .any(|&d| v.map.in_bounds(p.step(d)) && v.map.get(p.step(d)) == Tile::Unknown)
}

/// Takes one turn with `intent` and returns the events of the update that resolved it.
pub async fn act(bot: &mut Bot, intent: ClientMsg) -> Vec<Event> {
    let turn = bot.view().turn + 1;
    bot.send(intent).await;
    bot.until_turn(turn).await
}

/// The log lines among `events`.
pub fn lines(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Message { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// Walks (exploring when nothing is in sight) until the pack holds `n` items; returns every
/// log line on the way, and the item entities it saw lying about.
pub async fn fetch_items(
    bot: &mut Bot,
    n: usize,
) -> (Vec<String>, Vec<delve_protocol::EntityView>) {
    let mut said = Vec::new();
    let mut seen = Vec::new();
    for _ in 0..400 {
        let held: u32 = bot.view().inventory.iter().map(|i| i.count).sum();
        if held as usize >= n {
            return (said, seen);
        }
        let v = bot.view();
        seen.extend(
            v.entities
                .iter()
                .filter(|e| e.kind == EntityKind::Item)
                .cloned(),
        );
        let items: Vec<Pos> = v
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Item)
            .map(|e| e.pos)
            .collect();
        let dir = step_towards(v, false, |p| items.contains(&p))
            .or_else(|| step_towards(v, false, |p| frontier(v, p)))
            .expect("somewhere to go");
        said.extend(lines(&act(bot, ClientMsg::Act(Action::Move { dir })).await));
    }
    panic!("{} found no item", bot.name);
}
