//! What a player can do for a friend from the pack: give them the selected thing, or use it on
//! them (a Health Pack heals them, or brings a fallen friend back), always to a friend standing
//! (or lying) next to you. Pure: which friends are near, and what a key asks of the server.

use std::sync::Arc;

use delve_protocol::{Action, ClientMsg, ItemView, View};

/// A friend next to you: their character id and name.
pub type Near = (u32, Arc<str>);

/// What the pack asks for a friend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deed {
    /// Give the thing (`give`).
    Give,
    /// Use the thing on them (`use_on`).
    UseOn,
}

impl Deed {
    /// How the pack's question starts ("Give to whom?").
    pub fn verb(self) -> &'static str {
        match self {
            Deed::Give => "Give to",
            Deed::UseOn => "Use on",
        }
    }
}

/// The friends next to you (the eight cells around you, or your own) for `deed`: the living
/// ones, and for using a thing also the fallen whom a friend can still bring back. By id.
pub fn near(view: &View, deed: Deed) -> Vec<Near> {
    let me = view.me.pos;
    (view.party.iter())
        .filter(|p| p.id != view.me.id)
        .filter(|p| p.alive || (deed == Deed::UseOn && p.revive_turns.is_some()))
        .filter(|p| {
            (view.friend_pos(p.id))
                .is_some_and(|at| (at.x - me.x).abs() <= 1 && (at.y - me.y).abs() <= 1)
        })
        .map(|p| (p.id, p.name.clone()))
        .collect()
}

/// What the pack does about `deed` with `item`: the message to send, or why not (`Err`).
/// With several friends near and none `chosen` (an index into `friends`), `Ok(None)`: ask
/// whom.
pub fn outcome(
    deed: Deed,
    item: &ItemView,
    friends: &[Near],
    chosen: Option<usize>,
) -> Result<Option<ClientMsg>, String> {
    if deed == Deed::UseOn && !item.usable {
        return Err(format!("The {} cannot be used on a friend.", item.name));
    }
    let whom = match (friends, chosen) {
        ([], _) => return Err("No friend is next to you.".to_string()),
        ([one], None) => one,
        (_, None) => return Ok(None),
        (_, Some(k)) => friends
            .get(k)
            .ok_or_else(|| format!("There is no friend number {}.", k + 1))?,
    };
    let (id, item) = (whom.0, item.id);
    Ok(Some(ClientMsg::Act(match deed {
        Deed::Give => Action::Give { item, to: id },
        Deed::UseOn => Action::UseOn { item, on: id },
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::travel::tests::view_of;
    use delve_protocol::{ItemUse, PartyMember, Pos};

    fn friend(id: u32, name: &str, at: Pos, alive: bool, revive: Option<u32>) -> PartyMember {
        PartyMember {
            id,
            name: name.into(),
            level: 1,
            hp: 5,
            max_hp: 25,
            depth: 1,
            alive,
            connected: true,
            away: false,
            pos: Some(at),
            revive_turns: revive,
        }
    }

    fn health_pack() -> ItemView {
        ItemView {
            id: 3,
            key: "health_pack".into(),
            name: "Health Pack".into(),
            description: "".into(),
            slot: None,
            equipped: false,
            usable: true,
            bonus: Default::default(),
            use_: ItemUse::Heal,
            count: 1,
            range: 0,
        }
    }

    #[test]
    fn only_friends_next_to_you_and_the_fallen_only_for_using_on() {
        let mut v = view_of(&["#######", "#.@...#", "#######"]);
        v.party = vec![
            friend(5, "Bob", Pos::new(3, 1), true, None),
            friend(6, "Cy", Pos::new(1, 1), false, Some(30)),
            friend(7, "Di", Pos::new(5, 1), true, None),
            friend(8, "Ed", Pos::new(1, 1), false, None),
        ];
        let names = |d| {
            near(&v, d)
                .into_iter()
                .map(|(_, n)| n.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(Deed::Give), vec!["Bob"]);
        assert_eq!(names(Deed::UseOn), vec!["Bob", "Cy"]);
    }

    #[test]
    fn one_friend_is_given_to_at_once_several_are_asked_about() {
        let hp = health_pack();
        let (bob, cy): (Near, Near) = ((5, "Bob".into()), (6, "Cy".into()));
        let give = outcome(Deed::Give, &hp, std::slice::from_ref(&bob), None);
        let to_bob = ClientMsg::Act(Action::Give { item: hp.id, to: 5 });
        assert_eq!(give, Ok(Some(to_bob)));
        let both = [bob, cy];
        assert_eq!(outcome(Deed::UseOn, &hp, &both, None), Ok(None));
        let on_cy = ClientMsg::Act(Action::UseOn { item: hp.id, on: 6 });
        assert_eq!(outcome(Deed::UseOn, &hp, &both, Some(1)), Ok(Some(on_cy)));
        assert!(outcome(Deed::Give, &hp, &both, Some(2)).is_err());
        assert_eq!(
            outcome(Deed::Give, &hp, &[], None),
            Err("No friend is next to you.".to_string())
        );
        let mut jacket = hp.clone();
        jacket.usable = false;
        assert!(outcome(Deed::UseOn, &jacket, &both, Some(0)).is_err());
    }
}
