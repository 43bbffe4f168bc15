//! What a character can do in a turn, and the rules that refuse an action before it is queued.

use delve_protocol::Dir;

/// One character's choice for a turn. Players send these as intents; monster AI produces the
/// same type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Step one cell; into an enemy, attack it.
    Move(Dir),
    Wait,
    /// Take the down-stair you stand on.
    Descend,
    /// Take the up-stair you stand on.
    Ascend,
}

/// Why an action was refused. Refusal changes nothing: the player may choose again.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    #[error("There is a wall in the way.")]
    Wall,
    #[error("You cannot leave the map.")]
    OffMap,
    #[error("There are no stairs here.")]
    NoStairs,
    #[error("The way up is sealed: the only way is down.")]
    NoWayUp,
    #[error("Your character is not in the dungeon.")]
    NotPresent,
    #[error("You are dead.")]
    Dead,
    #[error("You have no stat points to spend.")]
    NoPoints,
}
