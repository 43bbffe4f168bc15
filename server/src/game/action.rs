//! What a character can do in a turn, and the rules that refuse an action before it is queued.

use delve_protocol::{ErrorCode, Reason};

pub use delve_protocol::Action;
pub use delve_protocol::action::ActionKind;

/// Whether the action handles the pack (aiming a throw or a shot counts), which the stunned and
/// the confused cannot do. Every kind is named, so a new action does not compile until it is
/// sorted.
pub fn uses_pack(action: Action) -> bool {
    match action.kind() {
        ActionKind::PickUp
        | ActionKind::Use
        | ActionKind::Equip
        | ActionKind::Unequip
        | ActionKind::Drop
        | ActionKind::Throw
        | ActionKind::Fire
        | ActionKind::Give
        | ActionKind::UseOn => true,
        ActionKind::Move
        | ActionKind::Wait
        | ActionKind::Descend
        | ActionKind::Ascend
        | ActionKind::Rest => false,
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
    /// `rest` with a monster in sight (its name).
    MonsterInSight(String),
    /// `rest` with nothing to rest for.
    Rested,
    /// `throw` of something that is not thrown (its name).
    NotThrowable(String),
    /// `fire` without a weapon that shoots.
    NoRangedWeapon,
    /// `throw` or `fire` at the thrower's own cell.
    OwnCell,
    /// `throw` or `fire` at a cell out of sight.
    OutOfSight,
    /// `throw` or `fire` beyond the range (the range).
    OutOfRange(i32),
    /// `use` of Smelling Salts with a clear head.
    ClearHead,
    /// `give` or `use_on` naming nobody of the party on the actor's floor.
    NoSuchFriend,
    /// `give` or `use_on` naming the actor itself.
    Yourself,
    /// The friend (its name) is not next to the actor.
    NotNextTo(String),
    /// The friend's (its name) pack has no room for the gift.
    FriendPackFull(String),
    /// A healing item on a friend (its name) at full health.
    FriendFullHealth(String),
    /// An antidote on a friend (its name) who is not poisoned.
    FriendNotPoisoned(String),
    /// Smelling Salts on a friend (its name) whose head is clear.
    FriendClearHead(String),
    /// The item (its name) does nothing for a friend.
    NotForFriend(String),
    /// Only a healing item brings a fallen friend (its name) back.
    HealsOnly(String),
    /// The fallen friend (its name) can no longer be brought back.
    TooLate(String),
    /// A gift for a friend (its name) who has fallen.
    FriendFallen(String),
    /// `mark` of a cell the character has never seen.
    UnknownCell,
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
            ActionError::PackFull | ActionError::FriendPackFull(_) => ErrorCode::PackFull,
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
            | ActionError::StairsBlocked
            | ActionError::MonsterInSight(_)
            | ActionError::Rested
            | ActionError::NotThrowable(_)
            | ActionError::NoRangedWeapon
            | ActionError::OwnCell
            | ActionError::OutOfSight
            | ActionError::OutOfRange(_)
            | ActionError::ClearHead
            | ActionError::NoSuchFriend
            | ActionError::Yourself
            | ActionError::NotNextTo(_)
            | ActionError::FriendFullHealth(_)
            | ActionError::FriendNotPoisoned(_)
            | ActionError::FriendClearHead(_)
            | ActionError::NotForFriend(_)
            | ActionError::HealsOnly(_)
            | ActionError::TooLate(_)
            | ActionError::FriendFallen(_)
            | ActionError::UnknownCell => ErrorCode::Rejected,
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
            ActionError::MonsterInSight(_) => Reason::MonsterInSight,
            ActionError::Rested => Reason::Rested,
            ActionError::NotThrowable(_) => Reason::NotThrowable,
            ActionError::NoRangedWeapon => Reason::NoRangedWeapon,
            ActionError::OwnCell => Reason::OwnCell,
            ActionError::OutOfSight => Reason::OutOfSight,
            ActionError::OutOfRange(_) => Reason::OutOfRange,
            ActionError::ClearHead | ActionError::FriendClearHead(_) => Reason::ClearHead,
            ActionError::NoSuchFriend => Reason::NoSuchFriend,
            ActionError::Yourself => Reason::Yourself,
            ActionError::NotNextTo(_) => Reason::NotNextTo,
            ActionError::FriendPackFull(_) => Reason::PackFull,
            ActionError::FriendFullHealth(_) => Reason::FullHealth,
            ActionError::FriendNotPoisoned(_) => Reason::NotPoisoned,
            ActionError::NotForFriend(_) | ActionError::HealsOnly(_) => Reason::NotForFriend,
            ActionError::TooLate(_) => Reason::TooLate,
            ActionError::FriendFallen(_) => Reason::FriendFallen,
            ActionError::UnknownCell => Reason::UnknownCell,
        }
    }
}

#[cfg(test)]
mod tests {
    use delve_protocol::Dir;
    use serde::Serialize;

    use super::*;

    /// The shape the engine's own action type had when journals were first written: tuple
    /// variants in this order. Saved journals hold actions in this encoding.
    #[derive(Serialize)]
    enum Journaled {
        Move(Dir),
        Wait,
        Descend,
        Ascend,
        PickUp,
        Use(u32),
        Equip(u32),
        Unequip(u32),
        Drop(u32),
    }

    #[test]
    fn actions_keep_the_bytes_saved_journals_hold() {
        let pairs = [
            (Action::Move { dir: Dir::Nw }, Journaled::Move(Dir::Nw)),
            (Action::Wait, Journaled::Wait),
            (Action::Descend, Journaled::Descend),
            (Action::Ascend, Journaled::Ascend),
            (Action::PickUp, Journaled::PickUp),
            (Action::Use { item: 300 }, Journaled::Use(300)),
            (Action::Equip { item: 7 }, Journaled::Equip(7)),
            (Action::Unequip { item: 8 }, Journaled::Unequip(8)),
            (Action::Drop { item: 9 }, Journaled::Drop(9)),
        ];
        for (now, then) in pairs {
            let bytes = postcard::to_stdvec(&then).unwrap();
            assert_eq!(postcard::to_stdvec(&now).unwrap(), bytes, "{now:?}");
            assert_eq!(postcard::from_bytes::<Action>(&bytes).unwrap(), now);
        }
    }
}
