//! What happens in the world. Executing an action yields events; `Dungeon::apply` is the only
//! code that changes the world, one event at a time. The view layer then turns the events each
//! player could see into protocol events for the client's log and animations.

use delve_protocol::{MessageKind, Pos};

use super::EntityId;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// An entity stepped from one cell to the next.
    Moved { id: EntityId, from: Pos, to: Pos },
    /// A character appeared on a floor (joining the dungeon, later taking stairs).
    Arrived { id: EntityId, depth: u8, pos: Pos },
    /// A message for one player's log.
    Message {
        to: EntityId,
        kind: MessageKind,
        text: String,
    },
}
