//! What every player sees of the others: the party panel, who watches whom, and whom a floor's
//! turn is waiting for. These are about the people in a dungeon rather than its world, so the
//! shell passes in what only it knows (who follows whom, the turn's deadline).

use delve_protocol::{PartyMember, ServerMsg, Watcher};

use crate::game::{Dungeon, EntityId};

/// Everyone playing: the living, and the finished whose players are still here.
pub fn party(dungeon: &Dungeon) -> Vec<PartyMember> {
    dungeon
        .players()
        .filter(|p| p.in_party())
        .map(|p| PartyMember {
            id: p.id(),
            name: p.shared_name().clone(),
            level: p.level(),
            hp: p.hp(),
            max_hp: p.stats(dungeon.content()).max_hp,
            depth: p.depth(),
            alive: p.alive(),
            connected: p.connected(),
        })
        .collect()
}

/// The watcher list from `following` (each watcher's name and the character it follows),
/// sorted by whom they watch, then by name.
pub fn watchers<'a>(
    dungeon: &Dungeon,
    following: impl Iterator<Item = (&'a str, EntityId)>,
) -> Vec<Watcher> {
    let mut list: Vec<Watcher> = following
        .filter_map(|(name, id)| {
            Some(Watcher {
                name: name.to_owned(),
                watching: dungeon.player(id)?.name().to_owned(),
            })
        })
        .collect();
    list.sort_by(|a, b| (&a.watching, &a.name).cmp(&(&b.watching, &b.name)));
    list
}

/// The `turn_status` of floor `depth`: `None` while nobody there has chosen.
pub fn turn_status(dungeon: &Dungeon, depth: u8, timeout_ms: Option<u64>) -> Option<ServerMsg> {
    let floor = dungeon.floor(depth)?;
    if !floor.has_choices() {
        return None;
    }
    let waiting_for = dungeon
        .waiting_for(depth)
        .into_iter()
        .filter_map(|id| dungeon.player(id).map(|p| p.name().to_owned()))
        .collect();
    Some(ServerMsg::TurnStatus {
        turn: floor.turn() + 1,
        waiting_for,
        timeout_ms,
    })
}
