//! What a character can do in a turn, and the rules that refuse an action before it is queued.

use delve_protocol::Dir;

/// One character's choice for a turn. Players send these as intents; monster AI will produce
/// the same type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Move(Dir),
    Wait,
}

/// Why an action was refused. Refusal changes nothing: the player may choose again.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    #[error("There is a wall in the way.")]
    Wall,
    #[error("You cannot leave the map.")]
    OffMap,
    #[error("Your character is not in the dungeon.")]
    NotPresent,
}
