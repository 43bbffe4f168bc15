//! What playing together tells each player: friends going away and coming back, gifts, help
//! with a friend's pack, the fallen who can be brought back and those who were, and marked
//! spots. News about the party (who is away, who fell and can be saved) is for everyone it
//! concerns whatever they see, as the party panel is; what happens in a place (a gift handed
//! over, a friend brought back) is told to those who see it, as every other event is.

use delve_protocol as proto;
use delve_protocol::{MessageKind, Pos};

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

/// The lines others are told of the events of playing together (their own are
/// [`own_line`]'s). `here` says whether the viewer is on the floor the events happened on,
/// `sees` whether it sees a cell of that floor.
pub(super) fn tell(
    dungeon: &Dungeon,
    viewer: EntityId,
    e: &Event,
    here: bool,
    _sees: &dyn Fn(Pos) -> bool,
    out: &mut Vec<proto::Event>,
) {
    let name = |id: &EntityId| dungeon.player(*id).map(|p| p.name().to_owned());
    let say = |out: &mut Vec<proto::Event>, text: String| {
        out.push(proto::Event::message(MessageKind::Normal, text));
    };
    match e {
        // The floor's friends are the ones who waited.
        Event::Away { id } if *id != viewer && here => {
            if let Some(who) = name(id) {
                say(
                    out,
                    format!("{who} is away: the floor no longer waits for them."),
                );
            }
        }
        Event::Back { id } if *id != viewer && here => {
            if let Some(who) = name(id) {
                say(
                    out,
                    format!("{who} is back: the floor waits for them again."),
                );
            }
        }
        _ => {}
    }
}
