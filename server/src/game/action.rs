//! What a character can do in a turn, and the rules that refuse an action before it is queued.

use delve_protocol::{Dir, ErrorCode, Reason};

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

/// Why an action was refused. Refusal changes nothing: the player may choose again. Each reason
/// has its own stable code on the wire ([`ActionError::reason`]); the sentence that tells it is
/// the view's ([`crate::view::refusal`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionError {
    Wall,
    OffMap,
    NoStairs,
    NoWayUp,
    NotPresent,
    Dead,
    NoPoints,
    Locked,
    NotCarried,
    PackFull,
    NothingHere,
    NotWearable(String),
    NotWorn(String),
    AlreadyWorn(String),
    NotUsable(String),
    KeyNotUsable,
    FullHealth,
    NotPoisoned,
    StunnedPack,
    ConfusedPack,
    Won,
    /// Only when the turn comes: someone stands on the stairs' far end.
    StairsBlocked,
}

impl ActionError {
    /// The broad error code, as clients have known it since protocol version 1.
    pub fn code(&self) -> ErrorCode {
        match self {
            ActionError::NotPresent
            | ActionError::Dead
            | ActionError::Won
            | ActionError::StunnedPack
            | ActionError::ConfusedPack => ErrorCode::CannotAct,
            ActionError::NotCarried => ErrorCode::NoSuchItem,
            ActionError::PackFull => ErrorCode::PackFull,
            ActionError::Wall
            | ActionError::OffMap
            | ActionError::NoStairs
            | ActionError::NoWayUp
            | ActionError::NoPoints
            | ActionError::Locked
            | ActionError::NothingHere
            | ActionError::NotWearable(_)
            | ActionError::NotWorn(_)
            | ActionError::AlreadyWorn(_)
            | ActionError::NotUsable(_)
            | ActionError::KeyNotUsable
            | ActionError::FullHealth
            | ActionError::NotPoisoned
            | ActionError::StairsBlocked => ErrorCode::Rejected,
        }
    }

    /// The rule that refused it, one stable code each.
    pub fn reason(&self) -> Reason {
        match self {
            ActionError::Wall => Reason::Wall,
            ActionError::OffMap => Reason::OffMap,
            ActionError::NoStairs => Reason::NoStairs,
            ActionError::NoWayUp => Reason::NoWayUp,
            ActionError::NotPresent => Reason::NotPresent,
            ActionError::Dead => Reason::Dead,
            ActionError::NoPoints => Reason::NoPoints,
            ActionError::Locked => Reason::Locked,
            ActionError::NotCarried => Reason::NotCarried,
            ActionError::PackFull => Reason::PackFull,
            ActionError::NothingHere => Reason::NothingHere,
            ActionError::NotWearable(_) => Reason::NotWearable,
            ActionError::NotWorn(_) => Reason::NotWorn,
            ActionError::AlreadyWorn(_) => Reason::AlreadyWorn,
            ActionError::NotUsable(_) => Reason::NotUsable,
            ActionError::KeyNotUsable => Reason::KeyNotUsable,
            ActionError::FullHealth => Reason::FullHealth,
            ActionError::NotPoisoned => Reason::NotPoisoned,
            ActionError::StunnedPack => Reason::Stunned,
            ActionError::ConfusedPack => Reason::Confused,
            ActionError::Won => Reason::Won,
            ActionError::StairsBlocked => Reason::StairsBlocked,
        }
    }
}
