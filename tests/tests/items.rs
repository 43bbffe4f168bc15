//! Items and doors through the real server, as a third-party client sees them: walk onto an
//! item and find it in the pack, equip it and find its bonus in the very next update's stats,
//! have impossible pack actions refused with the right codes, and open a locked door with a Key
//! found on the floor.

use delve_protocol::Action;

use delve_protocol::{ClientMsg, Dir, ErrorCode, ServerMsg, Tile, View};
use delve_tests::walk::{act, fetch_items, frontier, lines, step_towards, strewn_with};
use delve_tests::{Bot, TestServer};

/// Walks until the pack holds an item (see [`fetch_items`]).
async fn fetch_an_item(bot: &mut Bot) -> (Vec<String>, Vec<delve_protocol::EntityView>) {
    fetch_items(bot, 1).await
}

#[tokio::test]
async fn picking_up_and_equipping_shows_in_the_next_update() {
    let server = TestServer::start(strewn_with("crowbar")).await;
    let mut ann = Bot::join(&server.url, "Ann", "armoury").await;
    let before = ann.view().me.clone();
    assert!(ann.view().inventory.is_empty());
    let (said, seen) = fetch_an_item(&mut ann).await;
    assert!(!seen.is_empty());
    for e in &seen {
        assert_eq!((e.item.as_deref(), &*e.name), (Some("crowbar"), "Crowbar"));
        assert_eq!((e.hp, e.level), (0, 0), "items have no HP or level");
    }
    assert!(
        said.contains(&"Picked up a Crowbar.".to_string()),
        "{said:?}"
    );
    assert!(
        said.contains(&"You gain 1 experience point.".to_string()),
        "{said:?}"
    );
    let bar = ann.view().inventory[0].clone();
    assert_eq!((&*bar.key, &*bar.name), ("crowbar", "Crowbar"));
    assert_eq!(bar.slot, Some(delve_protocol::Slot::Weapon));
    assert!(!bar.equipped && !bar.description.is_empty());
    assert!(bar.bonus.attack_max > 0);
    assert_eq!(ann.view().me.xp, before.xp + 1);

    // Equip: the very next update carries the new stats and the pack with the item worn.
    let turn = ann.view().turn + 1;
    ann.send(ClientMsg::Act(Action::Equip { item: bar.id }))
        .await;
    let update = loop {
        match ann.recv().await.expect("the server answers") {
            ServerMsg::Update { turn: t, diff, .. } => {
                assert_eq!(t, turn, "the next update is the equip turn");
                break diff;
            }
            ServerMsg::TurnStatus { .. } => continue,
            other => panic!("unexpected {other:?}"),
        }
    };
    let me = update.me.expect("the stats changed");
    assert_eq!(
        me.attack_min,
        Some(before.attack_min + bar.bonus.attack_min)
    );
    assert_eq!(
        me.attack_max,
        Some(before.attack_max + bar.bonus.attack_max)
    );
    let pack = update.inventory.expect("the pack changed");
    assert!(pack.iter().any(|i| i.id == bar.id && i.equipped));
    server.stop().await;
}

#[tokio::test]
async fn each_refusal_names_its_own_rule_on_the_wire() {
    use delve_protocol::Reason;
    let server = TestServer::start(strewn_with("health_pack")).await;
    let mut ann = Bot::join(&server.url, "Ann", "infirmary").await;
    fetch_an_item(&mut ann).await;
    let pack = ann.view().inventory[0].clone();
    let cases = [
        (
            ClientMsg::Act(Action::Use { item: 424_242 }),
            Reason::NotCarried,
        ),
        (
            ClientMsg::Act(Action::Equip { item: pack.id }),
            Reason::NotWearable,
        ),
        (
            ClientMsg::Act(Action::Unequip { item: pack.id }),
            Reason::NotWorn,
        ),
        (
            ClientMsg::Act(Action::Use { item: pack.id }),
            Reason::FullHealth,
        ),
        (ClientMsg::Act(Action::Ascend), Reason::NoStairs),
        (
            ClientMsg::LevelUp {
                stat: delve_protocol::Stat::Attack,
            },
            Reason::NoPoints,
        ),
    ];
    for (msg, want) in cases {
        ann.send(msg.clone()).await;
        assert_eq!(ann.next_reason().await, Some(want), "{msg:?}");
    }
    // An error that no rule of the game made (a malformed intent) names none.
    ann.session
        .send_raw(tokio_tungstenite::tungstenite::Message::text(
            r#"{"type":"equip","item":"crowbar"}"#,
        ))
        .await
        .unwrap();
    assert_eq!(ann.next_reason().await, None);
    server.stop().await;
}

#[tokio::test]
async fn impossible_pack_actions_are_refused_with_a_code_and_change_nothing() {
    let server = TestServer::start(strewn_with("health_pack")).await;
    let mut ann = Bot::join(&server.url, "Ann", "infirmary").await;
    fetch_an_item(&mut ann).await;
    let pack = ann.view().inventory[0].clone();
    assert_eq!(&*pack.key, "health_pack");
    assert!(pack.usable && pack.slot.is_none());
    let cases = [
        (
            ClientMsg::Act(Action::Use { item: 424_242 }),
            ErrorCode::NoSuchItem,
            "You have no such item.",
        ),
        (
            ClientMsg::Act(Action::Drop { item: 7 }),
            ErrorCode::NoSuchItem,
            "You have no such item.",
        ),
        (
            ClientMsg::Act(Action::Equip { item: pack.id }),
            ErrorCode::Rejected,
            "The Health Pack is not something you can wear.",
        ),
        (
            ClientMsg::Act(Action::Unequip { item: pack.id }),
            ErrorCode::Rejected,
            "You are not wearing the Health Pack.",
        ),
        (
            ClientMsg::Act(Action::Use { item: pack.id }),
            ErrorCode::Rejected,
            "You are already at full health.",
        ),
    ];
    let view = ann.view().clone();
    for (msg, code, text) in cases {
        ann.send(msg.clone()).await;
        let (got, message) = ann.next_error().await;
        assert_eq!((got, message.as_str()), (code, text), "{msg:?}");
    }
    assert_eq!(ann.view(), &view, "refusals change nothing");
    // A malformed pack intent is a field error, and the game goes on.
    ann.session
        .send_raw(tokio_tungstenite::tungstenite::Message::text(
            r#"{"type":"equip","item":"crowbar"}"#,
        ))
        .await
        .unwrap();
    assert_eq!(ann.next_error().await.0, ErrorCode::BadFields);
    let dir = ann.open_dirs()[0];
    act(&mut ann, ClientMsg::Act(Action::Move { dir })).await;
    // Dropping takes the turn and leaves the item lying where Ann stands.
    let events = act(&mut ann, ClientMsg::Act(Action::Drop { item: pack.id })).await;
    assert!(lines(&events).contains(&"You drop the Health Pack.".to_string()));
    assert!(ann.view().inventory.is_empty());
    assert!(
        ann.view()
            .entities
            .iter()
            .any(|e| e.id == pack.id && e.pos == ann.pos())
    );
    server.stop().await;
}

#[tokio::test]
async fn a_key_found_on_the_floor_opens_a_locked_door() {
    let server = TestServer::start(strewn_with("key")).await;
    let mut ann = Bot::join(&server.url, "Ann", "vault").await;

    // Explore until a locked door is known, picking up whatever lies on the way.
    let locked = |v: &View| {
        (0..v.map.cells().len())
            .map(|i| v.map.pos_of(i))
            .find(|p| v.map.get(*p) == Tile::DoorLocked)
    };
    let mut door = None;
    for _ in 0..3000 {
        if let Some(d) = locked(ann.view()) {
            door = Some(d);
            break;
        }
        let v = ann.view();
        let dir = step_towards(v, false, |p| frontier(v, p)).expect("more to explore");
        act(&mut ann, ClientMsg::Act(Action::Move { dir })).await;
    }
    let door = door.expect("a locked door on floor 1");

    // Walk next to it; on the way any key is dropped, to try the door without one first.
    for _ in 0..400 {
        if ann.pos().chebyshev(door) == 1 {
            break;
        }
        let v = ann.view();
        let dir = step_towards(v, false, |p| p.chebyshev(door) == 1).expect("a way to the door");
        act(&mut ann, ClientMsg::Act(Action::Move { dir })).await;
    }
    assert_eq!(ann.pos().chebyshev(door), 1);
    let into = Dir::from_delta(door.x - ann.pos().x, door.y - ann.pos().y).unwrap();
    let stash = ann.pos();
    let keys = ann.view().inventory.len();
    // Keys stack: a drop puts one down, so drop until none is left.
    while let Some(k) = ann.view().inventory.first().map(|i| i.id) {
        act(&mut ann, ClientMsg::Act(Action::Drop { item: k })).await;
    }
    assert!(ann.view().inventory.is_empty());
    ann.send(ClientMsg::Act(Action::Move { dir: into })).await;
    let (code, message) = ann.next_error().await;
    assert_eq!(
        (code, message.as_str()),
        (ErrorCode::Rejected, "The door is locked. Key required.")
    );

    // Fetch a key (the dropped ones lie underfoot, unless there were none) and try again.
    if keys == 0 {
        fetch_an_item(&mut ann).await;
        for _ in 0..400 {
            if ann.pos().chebyshev(door) == 1 {
                break;
            }
            let v = ann.view();
            let dir = step_towards(v, false, |p| p.chebyshev(door) == 1).unwrap();
            act(&mut ann, ClientMsg::Act(Action::Move { dir })).await;
        }
    } else {
        assert_eq!(ann.pos(), stash);
        let events = act(&mut ann, ClientMsg::Act(Action::PickUp)).await;
        assert!(lines(&events).contains(&"Picked up a Key.".to_string()));
    }
    // Keys stack: count them all.
    let held: u32 = ann.view().inventory.iter().map(|i| i.count).sum();
    assert!(held >= 1);
    let into = Dir::from_delta(door.x - ann.pos().x, door.y - ann.pos().y).unwrap();
    let at = ann.pos();
    let events = act(&mut ann, ClientMsg::Act(Action::Move { dir: into })).await;
    assert!(
        lines(&events).contains(&"Unlocked door. Key lost.".to_string()),
        "{events:?}"
    );
    assert_eq!(ann.pos(), at, "opening is the turn");
    assert_eq!(
        ann.view().map.get(door),
        Tile::DoorOpen,
        "the diff opened the door"
    );
    let left: u32 = ann.view().inventory.iter().map(|i| i.count).sum();
    assert_eq!(left, held - 1, "one key is gone");
    act(&mut ann, ClientMsg::Act(Action::Move { dir: into })).await;
    assert_eq!(ann.pos(), door, "and the way is open");
    // What the bot built from diffs is what the server holds.
    ann.resync().await;
    server.stop().await;
}

#[tokio::test]
async fn health_packs_stack_in_one_slot_and_say_how_many() {
    let server = TestServer::start(strewn_with("health_pack")).await;
    let mut ann = Bot::join(&server.url, "Ann", "pantry").await;
    fetch_items(&mut ann, 3).await;
    let inv = ann.view().inventory.clone();
    assert_eq!(inv.len(), 1, "one slot: {inv:?}");
    assert_eq!(inv[0].count, 3);
    assert_eq!(inv[0].use_, delve_protocol::ItemUse::Heal);
    // A drop puts one down; the stack keeps the rest.
    act(&mut ann, ClientMsg::Act(Action::Drop { item: inv[0].id })).await;
    let inv = ann.view().inventory.clone();
    assert_eq!((inv.len(), inv[0].count), (1, 2));
}
