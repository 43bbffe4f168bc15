//! What a character can do in a turn, and the rules that refuse an action before it is queued.

use delve_protocol::Dir;

use super::EntityId;

/// One character's choice for a turn. Players send these as intents; monster AI produces the
/// same type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Action {
    /// Step one cell; into an enemy, attack it.
    Move(Dir),
    Wait,
    /// Take the down-stair you stand on.
    Descend,
    /// Take the up-stair you stand on.
    Ascend,
    /// Pick up what lies where you stand.
    PickUp,
    /// Use an item from the pack (by id).
    Use(EntityId),
    /// Wear an item from the pack, swapping out whatever is in its slot.
    Equip(EntityId),
    /// Take off a worn item; it stays in the pack.
    Unequip(EntityId),
    /// Put an item from the pack down where you stand.
    Drop(EntityId),
}

impl Action {
    /// Whether the action handles the pack, which the stunned and the confused cannot do.
    pub fn uses_pack(self) -> bool {
        matches!(
            self,
            Action::PickUp
                | Action::Use(_)
                | Action::Equip(_)
                | Action::Unequip(_)
                | Action::Drop(_)
        )
    }
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
    #[error("The door is locked. Key required.")]
    Locked,
    #[error("You have no such item.")]
    NotCarried,
    #[error("Your pack is full.")]
    PackFull,
    #[error("There is nothing here to pick up.")]
    NothingHere,
    #[error("The {0} is not something you can wear.")]
    NotWearable(String),
    #[error("You are not wearing the {0}.")]
    NotWorn(String),
    #[error("You are already wearing the {0}.")]
    AlreadyWorn(String),
    #[error("The {0} cannot be used like that.")]
    NotUsable(String),
    #[error("A Key is used by walking into a locked door.")]
    KeyNotUsable,
    #[error("You are already at full health.")]
    FullHealth,
    #[error("You are not poisoned.")]
    NotPoisoned,
    #[error("You are too stunned to handle your pack.")]
    StunnedPack,
    #[error("You are too confused to handle your pack.")]
    ConfusedPack,
    #[error("Your game is over: you won!")]
    Won,
    /// Only when the turn comes: someone stands on the stairs' far end.
    #[error("The stairs are blocked.")]
    StairsBlocked,
}
