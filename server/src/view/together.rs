//! What playing together tells each player: friends going away and coming back, gifts, help
//! with a friend's pack, the fallen who can be brought back and those who were, and marked
//! spots. News about the party (who is away, who fell and can be saved) is for everyone it
//! concerns whatever they see, as the party panel is; what happens in a place (a gift handed
//! over, a friend brought back) is told to those who see it, as every other event is.

use delve_protocol as proto;
use delve_protocol::{Effect, MessageKind, Pos};

use super::words::with_article;

use crate::game::{Dungeon, EntityId, Event};

/// The line an event of playing together gives its own character, if any.
pub(super) fn own_line(e: &Event, viewer: EntityId) -> Option<(MessageKind, String)> {
    use MessageKind::{Good, Warning};
    let line = |kind, text: &str| Some((kind, text.to_string()));
    match e {
        Event::Away { id } if *id == viewer => line(
            Warning,
            "You are away: the floor goes on without you, and your character waits each turn until you do something.",
        ),
        Event::Back { id } if *id == viewer => {
            line(Good, "You are back: the floor waits for you again.")
        }
        _ => None,
    }
}

/// The lines and client events of the events of playing together, as `viewer` is told them
/// (its own away and back are [`own_line`]'s). `here` says whether the viewer is on the floor
/// the events happened on, `sees` whether it sees a cell of that floor.
pub(super) fn tell(
    dungeon: &Dungeon,
    viewer: EntityId,
    e: &Event,
    here: bool,
    sees: &dyn Fn(Pos) -> bool,
    out: &mut Vec<proto::Event>,
) {
    let name = |id: &EntityId| dungeon.player(*id).map(|p| p.name().to_owned());
    let pos = |id: &EntityId| dungeon.player(*id).map(|p| p.pos());
    let seen = |id: &EntityId| here && pos(id).is_some_and(sees);
    let say = |out: &mut Vec<proto::Event>, kind, text: String| {
        out.push(proto::Event::message(kind, text));
    };
    use MessageKind::{Bad, Good, Normal};
    match e {
        // The floor's friends are the ones who waited.
        Event::Away { id } if *id != viewer && here => {
            if let Some(who) = name(id) {
                let text = format!("{who} is away: the floor no longer waits for them.");
                say(out, Normal, text);
            }
        }
        Event::Back { id } if *id != viewer && here => {
            if let Some(who) = name(id) {
                let text = format!("{who} is back: the floor waits for them again.");
                say(out, Normal, text);
            }
        }
        Event::Gave {
            id, to, name: what, ..
        } => {
            let (Some(giver), Some(taker)) = (name(id), name(to)) else {
                return;
            };
            if *id == viewer {
                say(out, Normal, format!("You give the {what} to {taker}."));
            } else if *to == viewer {
                say(
                    out,
                    Good,
                    format!("{giver} gives you {}.", with_article(what)),
                );
            } else if seen(id) && seen(to) {
                let text = format!("{giver} gives {taker} {}.", with_article(what));
                say(out, Normal, text);
            }
        }
        Event::Helped {
            by,
            on,
            what,
            healed,
            cured,
        } => {
            let (Some(helper), Some(friend)) = (name(by), name(on)) else {
                return;
            };
            let done = |you: bool| -> String {
                let mut parts = Vec::new();
                if *healed > 0 {
                    let who = if you { "you heal" } else { "they heal" };
                    parts.push(format!("{who} {healed} HP"));
                }
                for effect in cured {
                    parts.push(match (effect, you) {
                        (Effect::Poison, true) => "you are no longer poisoned".into(),
                        (Effect::Poison, false) => "they are no longer poisoned".into(),
                        (_, true) => "your head clears".into(),
                        (_, false) => "their head clears".into(),
                    });
                }
                parts.dedup();
                parts.join(" and ")
            };
            if *by == viewer {
                let text = format!("You use the {what} on {friend}: {}.", done(false));
                say(out, Good, text);
            } else if *on == viewer {
                let text = format!(
                    "{helper} uses {} on you: {}.",
                    with_article(what),
                    done(true)
                );
                say(out, Good, text);
            } else if seen(by) && seen(on) {
                let text = format!("{helper} uses {} on {friend}.", with_article(what));
                say(out, Normal, text);
            }
        }
        Event::Marked { id, .. } if here => {
            if *id == viewer {
                say(
                    out,
                    Normal,
                    "You mark the spot for your friends on this floor.".into(),
                );
            } else if let Some(who) = name(id) {
                say(out, Normal, format!("{who} marks a spot: look here."));
            }
        }
        Event::Grown { n, .. } if here => {
            let text = format!("There are {n} of you on this floor now: its mice grow stronger.");
            say(out, MessageKind::Warning, text);
        }
        Event::Supplied { item, .. } if here => {
            let what = &item.kind(dungeon.content()).name;
            let what = with_article(what);
            let text = format!(
                "{}{} for the party lies somewhere on this floor.",
                what[..1].to_uppercase(),
                &what[1..]
            );
            say(out, Good, text);
        }
        // News of the party, for everyone in it wherever they are.
        Event::Revivable { id, .. } => {
            let turns = dungeon.content().party.revive_turns;
            if *id == viewer {
                let text = format!(
                    "A friend can still bring you back: a Health Pack used on your remains within {turns} turns. Or start anew."
                );
                say(out, Good, text);
            } else if let (Some(who), Some(p)) = (name(id), dungeon.player(*id)) {
                let text = format!(
                    "{who} has fallen on floor {}! A friend with a Health Pack can bring them back within {turns} turns.",
                    p.depth()
                );
                say(out, Bad, text);
            }
        }
        Event::BeyondHelp { id } => {
            if *id == viewer {
                say(
                    out,
                    Bad,
                    "No one came in time: your character is gone for good.".into(),
                );
            } else if let Some(who) = name(id) {
                say(out, Normal, format!("It is too late to bring {who} back."));
            }
        }
        Event::Revived { id, by, .. } => {
            let (Some(saved), Some(saver)) = (name(id), name(by)) else {
                return;
            };
            if *id == viewer {
                let text = format!("{saver} brings you back! You live again, weakened.");
                say(out, Good, text);
            } else if *by == viewer {
                say(out, Good, format!("You bring {saved} back!"));
            } else {
                say(out, Good, format!("{saver} brings {saved} back!"));
            }
        }
        _ => {}
    }
}
