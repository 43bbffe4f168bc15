//! What a player is told when the engine refuses: the sentence for each rule. The stable codes
//! sit beside the engine's enums ([`ActionError::reason`], [`JoinError::reason`]).

use crate::game::{ActionError, JoinError, Refusal};

/// The sentence that tells a player why an action was refused.
pub fn refusal(why: &ActionError) -> String {
    let text = match why {
        ActionError::Wall => "There is a wall in the way.",
        ActionError::OffMap => "You cannot leave the map.",
        ActionError::NoStairs => "There are no stairs here.",
        ActionError::NoWayUp => "The way up is sealed: the only way is down.",
        ActionError::NotPresent => "Your character is not in the dungeon.",
        ActionError::Dead => "You are dead.",
        ActionError::NoPoints => "You have no stat points to spend.",
        ActionError::Locked => "The door is locked. Key required.",
        ActionError::NotCarried => "You have no such item.",
        ActionError::PackFull => "Your pack is full.",
        ActionError::NothingHere => "There is nothing here to pick up.",
        ActionError::NotWearable(item) => {
            return format!("The {item} is not something you can wear.");
        }
        ActionError::NotWorn(item) => return format!("You are not wearing the {item}."),
        ActionError::AlreadyWorn(item) => return format!("You are already wearing the {item}."),
        ActionError::NotUsable(item) => return format!("The {item} cannot be used like that."),
        ActionError::KeyNotUsable => "A Key is used by walking into a locked door.",
        ActionError::FullHealth => "You are already at full health.",
        ActionError::NotPoisoned => "You are not poisoned.",
        ActionError::StunnedPack => "You are too stunned to handle your pack.",
        ActionError::ConfusedPack => "You are too confused to handle your pack.",
        ActionError::Won => "Your game is over: you won!",
        ActionError::StairsBlocked => "The stairs are blocked.",
        ActionError::MonsterInSight(name) => {
            return format!(
                "You cannot rest with {} in sight.",
                super::words::with_article(name)
            );
        }
        ActionError::Rested => "You are already fully rested.",
        ActionError::NotThrowable(item) => {
            return format!("The {item} is not something to throw.");
        }
        ActionError::NoRangedWeapon => "You wield nothing that shoots.",
        ActionError::OwnCell => "You cannot aim at your own feet.",
        ActionError::OutOfSight => "You cannot see there.",
        ActionError::OutOfRange(range) => {
            return format!("That is out of range: {range} tiles at most.");
        }
        ActionError::ClearHead => "Your head is already clear.",
        ActionError::NoSuchFriend => "There is nobody of that name on your floor.",
        ActionError::Yourself => "You cannot do that to yourself.",
        ActionError::NotNextTo(name) => return format!("{name} is not next to you."),
        ActionError::FriendPackFull(name) => return format!("{name}'s pack is full."),
        ActionError::FriendFullHealth(name) => {
            return format!("{name} is already at full health.");
        }
        ActionError::FriendNotPoisoned(name) => return format!("{name} is not poisoned."),
        ActionError::FriendClearHead(name) => return format!("{name}'s head is already clear."),
        ActionError::NotForFriend(item) => {
            return format!("The {item} cannot be used on a friend.");
        }
        ActionError::HealsOnly(name) => {
            return format!("Only something that heals can bring {name} back.");
        }
        ActionError::TooLate(name) => return format!("It is too late to bring {name} back."),
        ActionError::FriendFallen(name) => {
            return format!("{name} has fallen: there is nobody to hand it to.");
        }
        ActionError::UnknownCell => "You can only mark a place you have seen.",
    };
    text.to_string()
}

/// The sentence that tells a player why a character could not join or start again.
pub fn join_refusal(why: &JoinError) -> String {
    match why {
        JoinError::NameTaken(name) => format!("Someone in this dungeon is already called {name}."),
        JoinError::NoRoom => "There is no free place to arrive on floor 1.".into(),
        JoinError::StillAlive => "Your character is still alive.".into(),
        JoinError::Unknown => "There is no such character.".into(),
    }
}

/// The sentence for any refusal of an input.
pub fn input_refusal(why: &Refusal) -> String {
    match why {
        Refusal::Action(e) => refusal(e),
        Refusal::Join(e) => join_refusal(e),
        Refusal::Unchanged => "Nothing happens.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_has_its_own_code_and_a_sentence() {
        let all = [
            ActionError::Wall,
            ActionError::OffMap,
            ActionError::NoStairs,
            ActionError::NoWayUp,
            ActionError::NotPresent,
            ActionError::Dead,
            ActionError::NoPoints,
            ActionError::Locked,
            ActionError::NotCarried,
            ActionError::PackFull,
            ActionError::NothingHere,
            ActionError::NotWearable("Key".into()),
            ActionError::NotWorn("Key".into()),
            ActionError::AlreadyWorn("Key".into()),
            ActionError::NotUsable("Key".into()),
            ActionError::KeyNotUsable,
            ActionError::FullHealth,
            ActionError::NotPoisoned,
            ActionError::StunnedPack,
            ActionError::ConfusedPack,
            ActionError::Won,
            ActionError::StairsBlocked,
            ActionError::MonsterInSight("Micro Mouse".into()),
            ActionError::Rested,
            ActionError::NotThrowable("Key".into()),
            ActionError::NoRangedWeapon,
            ActionError::OwnCell,
            ActionError::OutOfSight,
            ActionError::OutOfRange(6),
            ActionError::ClearHead,
            ActionError::NoSuchFriend,
            ActionError::Yourself,
            ActionError::NotNextTo("Bob".into()),
            ActionError::NotForFriend("Key".into()),
            ActionError::TooLate("Bob".into()),
            ActionError::FriendFallen("Bob".into()),
            ActionError::UnknownCell,
        ];
        // A friend's version of a rule keeps that rule's code.
        for (friend, own) in [
            (
                ActionError::FriendPackFull("Bob".into()),
                ActionError::PackFull,
            ),
            (
                ActionError::FriendFullHealth("Bob".into()),
                ActionError::FullHealth,
            ),
            (
                ActionError::FriendNotPoisoned("Bob".into()),
                ActionError::NotPoisoned,
            ),
            (
                ActionError::FriendClearHead("Bob".into()),
                ActionError::ClearHead,
            ),
            (
                ActionError::HealsOnly("Bob".into()),
                ActionError::NotForFriend("Key".into()),
            ),
        ] {
            assert_eq!(friend.reason(), own.reason());
            assert_eq!(friend.code(), own.code());
            assert!(refusal(&friend).starts_with("Bob") || refusal(&friend).contains("Bob"));
        }
        let mut codes: Vec<_> = all.iter().map(ActionError::reason).collect();
        let joins = [
            JoinError::NameTaken("Ann".into()),
            JoinError::NoRoom,
            JoinError::StillAlive,
            JoinError::Unknown,
        ];
        codes.extend(joins.iter().map(JoinError::reason));
        let mut distinct = codes.clone();
        distinct.sort_by_key(|r| format!("{r:?}"));
        distinct.dedup();
        assert_eq!(distinct.len(), codes.len(), "two refusals share a code");
        for e in &all {
            assert!(refusal(e).ends_with(['.', '!']), "{e:?}");
        }
        assert_eq!(
            join_refusal(&joins[0]),
            "Someone in this dungeon is already called Ann."
        );
    }
}
