//! What every player sees of the others: the party panel, who watches whom, and whom a floor's
//! turn is waiting for. These are about the people in a dungeon rather than its world, so the
//! shell passes in what only it knows (who follows whom, the turn's deadline).

use delve_protocol::{PartyMember, ServerMsg, View, Watcher};

use crate::game::{Dungeon, EntityId};

/// Everyone playing: the living, and the finished whose players are still here (and the
/// fallen who can still be brought back, whoever their players are). Each member's place is
/// in it: [`party_for`] keeps only those of a viewer's floor.
pub fn party(dungeon: &Dungeon) -> Vec<PartyMember> {
    let shared = dungeon.party();
    dungeon
        .players()
        .filter(|p| p.in_party() || shared.revivable_until(p.id()).is_some())
        .map(|p| PartyMember {
            id: p.id(),
            name: p.shared_name().clone(),
            level: p.level(),
            hp: p.hp(),
            max_hp: p.stats(dungeon.content()).max_hp,
            depth: p.depth(),
            alive: p.alive(),
            connected: p.connected(),
            away: shared.is_away(p.id()) && p.connected(),
            // Lifted out, or won and gone: nowhere to be found.
            pos: (p.present() || !p.alive()).then(|| p.pos()),
            revive_turns: revive_turns(dungeon, p.id()),
        })
        .collect()
}

/// The party panel as `view`'s character is told it: friends on other floors are there, but
/// not where they stand, and friends in sight stand where the view's entities show them (their
/// `pos` would say it twice, every turn they move).
pub fn party_for(party: &[PartyMember], view: &View) -> Vec<PartyMember> {
    let mut list = Vec::with_capacity(party.len());
    add_party_for(party, view, &mut list);
    list
}

/// Sets `view`'s party panel to [`party_for`] it, in the list it holds.
pub fn set_party(party: &[PartyMember], view: &mut View) {
    let mut list = std::mem::take(&mut view.party);
    list.clear();
    add_party_for(party, view, &mut list);
    view.party = list;
}

fn add_party_for(party: &[PartyMember], view: &View, list: &mut Vec<PartyMember>) {
    list.extend(party.iter().map(|m| {
        PartyMember {
            pos: m
                .pos
                .filter(|_| m.depth == view.depth && view.entity(m.id).is_none()),
            ..m.clone()
        }
    }));
}

/// How many more of the dungeon's turns fallen `id` can be brought back in, if it can.
pub fn revive_turns(dungeon: &Dungeon, id: EntityId) -> Option<u32> {
    dungeon.revive_turns_left(id)
}

/// Makes `list` the watcher list from `following` (each watcher's name and the character it
/// follows), sorted by whom they watch, then by name, in the room `list` has.
pub fn set_watchers<'a>(
    dungeon: &Dungeon,
    following: impl Iterator<Item = (&'a str, EntityId)>,
    list: &mut Vec<Watcher>,
) {
    list.clear();
    list.extend(following.filter_map(|(name, id)| {
        Some(Watcher {
            name: name.to_owned(),
            watching: dungeon.player(id)?.name().to_owned(),
        })
    }));
    list.sort_by(|a, b| (&a.watching, &a.name).cmp(&(&b.watching, &b.name)));
}

/// The `turn_status` of floor `depth`: `None` while nobody there has chosen.
pub fn turn_status(dungeon: &Dungeon, depth: u8, timeout_ms: Option<u64>) -> Option<ServerMsg> {
    let floor = dungeon.floor(depth)?;
    if !floor.has_choices() {
        return None;
    }
    // Those away are not waited for, so not named.
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
