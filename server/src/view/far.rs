//! What happens at a distance, as one player saw it: throws and shots, their hits, blasts,
//! dazes, squeaks for help, teleports. The rule is [`super::tell`]'s: an event is told when it
//! is about the viewer or when the cells it names are in the viewer's sight, so nothing thrown
//! or shot out of sight gives anything away.

use delve_protocol as proto;
use delve_protocol::{MessageKind, Pos};

use super::words::{called, with_article};
use crate::game::event::Actor;
use crate::game::{Dungeon, EntityId, Event};

/// The log line for an attack by a missile or a blast (`with` names it), in `viewer`'s words.
pub(super) fn attacked_with(
    viewer: EntityId,
    attacker: &Actor,
    target: &Actor,
    damage: Option<i32>,
    with: &str,
) -> (MessageKind, String) {
    let whom = if target.id == viewer {
        "you".to_string()
    } else {
        called(target, false)
    };
    let kind = if target.id == viewer && damage.is_some() && attacker.id != viewer {
        MessageKind::Bad
    } else {
        MessageKind::Normal
    };
    let text = if attacker.player {
        let whose = if attacker.id == viewer {
            "Your".to_string()
        } else {
            format!("{}'s", attacker.name)
        };
        match damage {
            Some(d) => format!("{whose} {with} hits {whom} for {d}."),
            None => format!("{whose} {with} misses {whom}."),
        }
    } else {
        let shooter = called(attacker, true);
        match damage {
            Some(d) => format!("{shooter} shoots {whom} for {d}."),
            None => format!("{shooter} shoots at {whom} and misses."),
        }
    };
    (kind, text)
}

/// The lines and client events of the distant events (`Flew`, `Exploded`, `Dazed`, `Called`,
/// `Teleported`) that `viewer` could see; `sees` says whether a cell of the events' floor is in
/// its sight. Its own throws and teleports are told by [`own_line`].
pub(super) fn tell(
    dungeon: &Dungeon,
    viewer: EntityId,
    e: &Event,
    sees: &dyn Fn(Pos) -> bool,
    out: &mut Vec<proto::Event>,
) {
    let say = |out: &mut Vec<proto::Event>, kind, text: String| {
        out.push(proto::Event::message(kind, text))
    };
    let name_of = |id: EntityId| -> Option<String> {
        match dungeon.player(id) {
            Some(p) => Some(p.name().to_string()),
            None => {
                let depth = u8::try_from(id / 1_000_000).ok()?;
                let m = dungeon.floor(depth)?.monsters().get(&id)?;
                Some(format!("The {}", m.kind(dungeon.content()).name))
            }
        }
    };
    match e {
        Event::Flew {
            id,
            from,
            to,
            what,
            key,
            item,
            ..
        } => {
            if *id == viewer || (sees(*from) && sees(*to)) {
                out.push(proto::Event::Missile {
                    from: *from,
                    to: *to,
                    item: key.as_ref().map(|k| k.to_string()),
                });
            }
            if *id != viewer
                && sees(*from)
                && let Some(who) = name_of(*id)
            {
                let text = match (dungeon.player(*id).is_some(), item) {
                    (true, Some(_)) => format!("{who} throws {}.", with_article(what)),
                    (true, None) => format!("{who} shoots the {what}."),
                    (false, _) => format!("{who} shoots."),
                };
                say(out, MessageKind::Normal, text);
            }
        }
        Event::Exploded {
            at, radius, what, ..
        } if sees(*at) => {
            let radius = (*radius).max(0) as u32;
            out.push(proto::Event::Blast { at: *at, radius });
            say(out, MessageKind::Normal, format!("The {what} goes off!"));
        }
        Event::Dazed { depth, id, .. } => {
            let m = dungeon.floor(*depth).and_then(|f| f.monsters().get(id));
            if let Some(m) = m.filter(|m| sees(m.pos())) {
                let name = &m.kind(dungeon.content()).name;
                say(out, MessageKind::Good, format!("The {name} is dazed!"));
            }
        }
        Event::Called { depth, id, .. } => {
            let m = dungeon.floor(*depth).and_then(|f| f.monsters().get(id));
            if let Some(m) = m.filter(|m| sees(m.pos())) {
                let name = &m.kind(dungeon.content()).name;
                say(
                    out,
                    MessageKind::Warning,
                    format!("The {name} squeaks for help!"),
                );
            }
        }
        Event::Teleported { id, from, to } if *id != viewer => {
            let Some(who) = dungeon.player(*id) else {
                return;
            };
            if sees(*from) {
                say(
                    out,
                    MessageKind::Normal,
                    format!("{} vanishes.", who.name()),
                );
            }
            if sees(*to) {
                let text = format!("{} appears out of nowhere.", who.name());
                say(out, MessageKind::Normal, text);
            }
        }
        _ => {}
    }
}

/// The line an event about `viewer` itself puts in its log, for the distant events.
pub(super) fn own_line(e: &Event, viewer: EntityId) -> Option<(MessageKind, String)> {
    match e {
        Event::Flew { id, what, item, .. } if *id == viewer => Some(match item {
            Some(_) => (MessageKind::Normal, format!("You throw the {what}.")),
            None => (MessageKind::Normal, format!("You shoot the {what}.")),
        }),
        Event::Teleported { id, .. } if *id == viewer => Some((
            MessageKind::Good,
            "You are whisked away across the floor.".into(),
        )),
        Event::Revealed { id, .. } if *id == viewer => Some((
            MessageKind::Good,
            "You study the plan: the whole floor is on your map.".into(),
        )),
        _ => None,
    }
}
