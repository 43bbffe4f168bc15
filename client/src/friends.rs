//! What a player can do for a friend from the pack: give them the selected thing, or use it on
//! them (a Health Pack heals them, or brings a fallen friend back), always to a friend standing
//! (or lying) next to you. Pure: where a friend is, which friends are near, and what a key
//! asks of the server.

use std::sync::Arc;

use delve_protocol::{Action, ClientMsg, ItemView, PartyMember, Pos, View};

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

/// Where party member `p` stands (or, fallen, where its remains lie) on your floor, or `None`
/// when it is elsewhere: the one place the client reads a friend's position
/// ([`View::member_pos`]: the party's `pos` out of sight, the view's entity in sight).
pub fn pos_of(view: &View, p: &PartyMember) -> Option<Pos> {
    view.member_pos(p)
}

/// The other members of the party on your floor, with where they are.
pub fn on_floor(view: &View) -> impl Iterator<Item = (&PartyMember, Pos)> {
    (view.party.iter())
        .filter(|p| p.id != view.me.id)
        .filter_map(|p| pos_of(view, p).map(|at| (p, at)))
}

/// Which friend the travel-to-a-friend command walks to: the nearest one on your floor by
/// `steps` (the known way's length; `None` if there is none), not already next to you; pressed
/// again after going to `last`, the next one, round the floor. `Err` says why nobody.
pub fn to_visit(
    view: &View,
    last: Option<u32>,
    steps: impl Fn(Pos) -> Option<u32>,
) -> Result<Near, String> {
    let me = view.me.pos;
    let mut order: Vec<(&PartyMember, Pos)> = on_floor(view).collect();
    order.sort_by_key(|(p, at)| (steps(*at).unwrap_or(u32::MAX), at.dist2(me), p.id));
    if order.is_empty() {
        return Err("No friend is on this floor.".into());
    }
    let start = (order.iter())
        .position(|(p, _)| Some(p.id) == last)
        .map_or(0, |k| k + 1);
    (0..order.len())
        .map(|k| order[(start + k) % order.len()])
        .find(|(_, at)| at.chebyshev(me) > 1)
        .map(|(p, _)| (p.id, p.name.clone()))
        .ok_or_else(|| match order[..] {
            [(p, _)] => format!("{} is next to you.", p.name),
            _ => "Your friends on this floor are all next to you.".into(),
        })
}

/// The friends next to you (the eight cells around you, or your own) for `deed`: the living
/// ones, and for using a thing also the fallen whom a friend can still bring back. By id.
pub fn near(view: &View, deed: Deed) -> Vec<Near> {
    let me = view.me.pos;
    on_floor(view)
        .filter(|(p, _)| p.alive || (deed == Deed::UseOn && p.revive_turns.is_some()))
        .filter(|(_, at)| (at.x - me.x).abs() <= 1 && (at.y - me.y).abs() <= 1)
        .map(|(p, _)| (p.id, p.name.clone()))
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
    use delve_protocol::{EntityKind, ItemUse, PartyMember, Pos};

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
    fn a_friend_in_sight_is_found_among_the_entities_one_out_of_sight_by_the_party() {
        let mut v = view_of(&["#######", "#.@...#", "#######"]);
        let mut bob = friend(5, "Bob", Pos::new(3, 1), true, None);
        let mut cy = friend(6, "Cy", Pos::new(5, 1), false, Some(9));
        let mut di = friend(7, "Di", Pos::new(0, 0), true, None);
        // Bob and Cy's remains are in sight: the server sends them as entities, not in the
        // party; Di is on another floor.
        (bob.pos, cy.pos, di.pos) = (None, None, None);
        let seen = |id, kind, at| delve_protocol::EntityView {
            id,
            kind,
            name: "".into(),
            pos: at,
            hp: 0,
            max_hp: 0,
            level: 0,
            monster: None,
            item: None,
        };
        v.entities.push(seen(5, EntityKind::Player, Pos::new(3, 1)));
        v.entities
            .push(seen(6, EntityKind::Remains, Pos::new(1, 1)));
        v.entities.sort_by_key(|e| e.id);
        v.party = vec![bob.clone(), cy.clone(), di.clone()];
        assert_eq!(pos_of(&v, &bob), Some(Pos::new(3, 1)));
        assert_eq!(pos_of(&v, &cy), Some(Pos::new(1, 1)));
        assert_eq!(pos_of(&v, &di), None);
        let ids = |v: &View| on_floor(v).map(|(p, at)| (p.id, at)).collect::<Vec<_>>();
        assert_eq!(ids(&v), [(5, Pos::new(3, 1)), (6, Pos::new(1, 1))]);
        assert_eq!(near(&v, Deed::UseOn).len(), 2);
        // Out of sight, the party's word is taken.
        v.entities.retain(|e| e.id != 5);
        v.party[0].pos = Some(Pos::new(5, 1));
        assert_eq!(ids(&v)[0], (5, Pos::new(5, 1)));
        // An item that happens to share a friend's id is not the friend.
        v.entities.push(seen(7, EntityKind::Item, Pos::new(4, 1)));
        assert_eq!(pos_of(&v, &di), None);
    }

    #[test]
    fn travel_goes_to_the_nearest_friend_then_round_the_others() {
        let mut v = view_of(&["#########", "#.@.....#", "#########"]);
        let steps = |at: Pos| Some((at.x - 2).unsigned_abs());
        assert_eq!(
            to_visit(&v, None, steps),
            Err("No friend is on this floor.".into())
        );
        v.party = vec![
            friend(5, "Bob", Pos::new(7, 1), true, None),
            friend(6, "Cy", Pos::new(5, 1), false, Some(9)),
            friend(7, "Di", Pos::new(1, 1), true, None),
        ];
        v.party[2].depth = 2;
        v.party[2].pos = None;
        let name = |r: Result<Near, String>| r.map(|(_, n)| n.to_string());
        assert_eq!(name(to_visit(&v, None, steps)), Ok("Cy".into()));
        assert_eq!(name(to_visit(&v, Some(6), steps)), Ok("Bob".into()));
        assert_eq!(name(to_visit(&v, Some(5), steps)), Ok("Cy".into()));
        // Di (another floor) is never chosen; a friend next to you is skipped.
        v.party[1].pos = Some(Pos::new(3, 1));
        assert_eq!(name(to_visit(&v, None, steps)), Ok("Bob".into()));
        assert_eq!(name(to_visit(&v, Some(5), steps)), Ok("Bob".into()));
        v.party.remove(0);
        assert_eq!(to_visit(&v, None, steps), Err("Cy is next to you.".into()));
    }

    #[test]
    fn a_trip_to_a_friend_follows_them_and_stops_next_to_them_or_for_a_monster() {
        use crate::travel::{Goal, Step, Trip};
        let mut v = view_of(&["#########", "#@......#", "#########"]);
        v.party = vec![friend(5, "Bob", Pos::new(6, 1), true, None)];
        let mut trip = Trip::new(Goal::Friend(5), &v);
        assert_eq!(trip.next(&v), Step::Move(delve_protocol::Dir::E));
        v.party[0].pos = Some(Pos::new(2, 1));
        assert_eq!(trip.next(&v), Step::Stop("You are next to Bob.".into()));
        v.party[0].pos = None;
        v.party[0].depth = 2;
        assert_eq!(
            trip.next(&v),
            Step::Stop("Bob is not on this floor now.".into())
        );
        let mut w = view_of(&["#########", "#@.....m#", "#########"]);
        w.party = vec![friend(5, "Bob", Pos::new(6, 1), true, None)];
        let mut trip = Trip::new(Goal::Friend(5), &v);
        assert_eq!(trip.next(&w), Step::Stop("You see a Micro Mouse.".into()));
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
