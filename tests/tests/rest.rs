//! Resting over a real socket: one `rest` and the server goes on turn after turn by itself,
//! each update saying the character rests, until HP are back and the player is told so; a
//! rest refused with its reason; a resting player who never holds up a friend's turn, and a
//! friend who comes into view ends the rest.

use delve_protocol::{Action, ClientMsg, ErrorCode, Reason, Slot, Tile};
use delve_tests::walk::{act, fetch_items, lines, step_towards, strewn_with};
use delve_tests::{Bot, TestServer};

/// Ann, who found a Biker Jacket and put it on: its +5 maximum HP come empty, so she has
/// something to rest for.
async fn ann_in_a_jacket(server: &TestServer, dungeon: &str) -> Bot {
    let mut ann = Bot::join(&server.url, "Ann", dungeon).await;
    fetch_items(&mut ann, 1).await;
    let jacket = ann.view().inventory[0].clone();
    assert_eq!(jacket.slot, Some(Slot::Armour));
    act(&mut ann, ClientMsg::Act(Action::Equip { item: jacket.id })).await;
    let me = &ann.view().me;
    assert!(me.hp < me.max_hp, "{} of {}", me.hp, me.max_hp);
    ann
}

#[tokio::test]
async fn one_rest_goes_on_by_itself_until_hp_are_back() {
    let server = TestServer::start(strewn_with("biker_jacket")).await;
    let mut ann = ann_in_a_jacket(&server, "inn").await;
    let (hp, max) = (ann.view().me.hp, ann.view().me.max_hp);
    ann.send(ClientMsg::Act(Action::Rest)).await;
    // Nothing more is sent: the turns come by themselves.
    let mut updates = 0;
    let said = loop {
        let events = ann.next_view().await;
        updates += 1;
        let said = lines(&events);
        if !ann.view().me.resting {
            break said;
        }
        assert!(said.is_empty(), "{said:?}");
        assert!(updates < 200, "the rest should have ended");
    };
    assert_eq!(said, ["You are fully rested."]);
    assert_eq!(ann.view().me.hp, max);
    let every = delve_server::game::Content::builtin().player.regen_turns as i32;
    assert!(
        updates >= (max - hp) * every - every,
        "{updates} turns to heal {} HP",
        max - hp
    );
    // At full HP there is nothing to rest for.
    ann.send(ClientMsg::Act(Action::Rest)).await;
    let (code, message) = ann.next_error().await;
    assert_eq!(
        (code, message.as_str()),
        (ErrorCode::Rejected, "You are already fully rested.")
    );
    ann.send(ClientMsg::Act(Action::Rest)).await;
    assert_eq!(ann.next_reason().await, Some(Reason::Rested));
}

#[tokio::test]
async fn a_rester_never_holds_up_a_friend_and_a_friend_in_view_ends_the_rest() {
    let server = TestServer::start(strewn_with("biker_jacket")).await;
    let mut ann = ann_in_a_jacket(&server, "camp").await;
    // Back to the up-stair, where newcomers arrive.
    while ann.view().map.get(ann.pos()) != Tile::StairsUp {
        let v = ann.view();
        let dir = step_towards(v, false, |p| v.map.get(p) == Tile::StairsUp).expect("a way back");
        act(&mut ann, ClientMsg::Act(Action::Move { dir })).await;
    }
    ann.send(ClientMsg::Act(Action::Rest)).await;
    ann.next_view().await;
    assert!(ann.view().me.resting);
    // Bob arrives beside the up-stair: in her view. The floor now waits for Bob alone.
    let mut bob = Bot::join(&server.url, "Bob", "camp").await;
    let turn = bob.view().turn;
    // His wait resolves the turn at once (these servers have no turn timer): Ann's rest
    // never holds it up.
    act(&mut bob, ClientMsg::Act(Action::Wait)).await;
    assert_eq!(bob.view().turn, turn + 1);
    let mut said = Vec::new();
    while ann.view().turn < turn + 1 {
        said.extend(lines(&ann.next_view().await));
    }
    assert!(ann.view().entity(bob.id()).is_some(), "Ann sees Bob");
    assert!(
        said.contains(&"You stop resting: Bob comes into view.".to_string()),
        "{said:?}"
    );
    assert!(!ann.view().me.resting);
}
