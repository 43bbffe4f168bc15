//! Throwing over a real socket: a `throw` flies and its Dart lies where it stopped, told by a
//! `missile` event; what breaks the rules of aiming is refused with its reason and changes
//! nothing.

use delve_protocol::{Action, ClientMsg, EntityKind, ErrorCode, Event, ItemUse, Pos, Reason};
use delve_tests::walk::{act, fetch_items, strewn_with};
use delve_tests::{Bot, TestServer};

/// A cell in Ann's sight, `k` tiles from her along a line of open floor, if there is one.
fn open_cell(bot: &Bot, k: i32) -> Option<Pos> {
    let v = bot.view();
    let me = v.me.pos;
    delve_protocol::Dir::ALL.iter().find_map(|d| {
        let (dx, dy) = d.delta();
        let cells: Vec<Pos> = (1..=k)
            .map(|i| Pos::new(me.x + dx * i, me.y + dy * i))
            .collect();
        let clear = cells.iter().all(|p| {
            v.is_visible(*p)
                && v.map.get(*p).is_walkable()
                && v.entities.iter().all(|e| e.pos != *p)
        });
        clear.then(|| cells[cells.len() - 1])
    })
}

#[tokio::test]
async fn a_thrown_dart_flies_and_lies_where_it_stopped() {
    let server = TestServer::start(strewn_with("dart")).await;
    let mut ann = Bot::join(&server.url, "Ann", "range").await;
    fetch_items(&mut ann, 1).await;
    let darts = ann.view().inventory[0].clone();
    assert_eq!((darts.use_, darts.range), (ItemUse::Throw, 6));
    let mut at = None;
    for _ in 0..40 {
        at = open_cell(&ann, 3);
        if at.is_some() {
            break;
        }
        act(&mut ann, ClientMsg::Act(Action::Wait)).await;
    }
    let at = at.expect("three cells of open floor in sight");
    let events = act(
        &mut ann,
        ClientMsg::Act(Action::Throw { item: darts.id, at }),
    )
    .await;
    assert!(
        events.iter().any(|e| matches!(e, Event::Missile { from, to, item } if *from == ann.view().me.pos && *to == at && item.as_deref() == Some("dart"))),
        "{events:?}"
    );
    let lying = ann.view().entities.iter().find(|e| e.id == darts.id);
    assert_eq!(lying.map(|e| (e.kind, e.pos)), Some((EntityKind::Item, at)));
    let left: u32 = ann.view().inventory.iter().map(|i| i.count).sum();
    assert_eq!(left, darts.count - 1);

    // Aimed at her own feet, or with nothing to fire: refused, each with its reason.
    let dart = ann.view().inventory[0].id;
    let me = ann.view().me.pos;
    ann.send(ClientMsg::Act(Action::Throw { item: dart, at: me }))
        .await;
    assert_eq!(ann.next_reason().await, Some(Reason::OwnCell));
    ann.send(ClientMsg::Act(Action::Fire { at })).await;
    let (code, message) = ann.next_error().await;
    assert_eq!(
        (code, message.as_str()),
        (ErrorCode::Rejected, "You wield nothing that shoots.")
    );
    let far = Pos::new(me.x + 40, me.y);
    ann.send(ClientMsg::Act(Action::Throw {
        item: dart,
        at: far,
    }))
    .await;
    assert_eq!(ann.next_reason().await, Some(Reason::OutOfSight));
}
