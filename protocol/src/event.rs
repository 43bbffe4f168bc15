//! Things that happened during a turn, as one player saw them. The client animates and logs them;
//! the view diff in the same update already holds the resulting state.

use serde::{Deserialize, Serialize};

use crate::geom::Pos;
use crate::view::View;

/// The four kinds of log message, each drawn in its own colour by the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// White: plain narration.
    Normal,
    /// Light blue (40, 200, 255): something good happened to you.
    Good,
    /// Red (255, 64, 64): something bad happened to you.
    Bad,
    /// Orange (255, 160, 0): take care.
    Warning,
}

/// One thing that happened in a turn. Each player receives only the events it could see.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Entity `id` stepped from `from` to `to`. `to` is left out when the view sent with the
    /// event shows the entity there (nearly always: the diff already says where it went); it is
    /// present when the entity is no longer there at the end of the turn.
    Moved {
        id: u32,
        from: Pos,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<Pos>,
    },
    /// `attacker` attacked `target`: `damage` is `null` for a miss.
    Attacked {
        attacker: u32,
        target: u32,
        damage: Option<i32>,
    },
    /// Entity `id` died at `pos`.
    Died { id: u32, pos: Pos },
    /// Something flew from `from` to `to`, where it stopped: a thrown item of kind `item`
    /// (`"dart"`), or a monster's shot (`item` absent). Sent to those who see both cells.
    Missile {
        from: Pos,
        to: Pos,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        item: Option<String>,
    },
    /// A blast of `radius` tiles went off at `at` (a Pipe Bomb, a Flashbang): every creature in
    /// it that the blast reached was struck. Sent to those who see `at`.
    Blast { at: Pos, radius: u32 },
    /// A line for the message log.
    Message { kind: MessageKind, text: String },
    /// A chat line from a player (or watcher) in the dungeon.
    Chat { from: String, text: String },
}

impl Event {
    pub fn message(kind: MessageKind, text: impl Into<String>) -> Event {
        Event::Message {
            kind,
            text: text.into(),
        }
    }
}

/// Leaves out the `to` of each move that ends where `view`, the view sent with the events,
/// shows the mover: the diff says it already.
pub fn trim_moves(events: &mut [Event], view: &View) {
    for e in events {
        if let Event::Moved { id, to, .. } = e
            && to.is_some()
            && *to == view.position_of(*id)
        {
            *to = None;
        }
    }
}
