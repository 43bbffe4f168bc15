//! A scripted client plays through the real server: it explores floor 1 using only its own
//! view, fights the monsters that come, gains experience, takes the stairs down, and climbs
//! back to find floor 1 as it left it.

use delve_protocol::Action;
use delve_protocol::{ClientMsg, Dir, EntityKind, Event, MessageKind, Pos, Tile, View};
use delve_server::game::path::nearest_route;
use delve_server::sim::bot::frontier;
use delve_tests::{Bot, TestServer, assert_no_leaks, sturdy_config};

/// The first step towards the nearest known walkable cell that satisfies `goal`.
fn step_towards(v: &View, goal: impl Fn(Pos) -> bool) -> Option<Dir> {
    let next = *nearest_route(&v.map, v.me.pos, goal)?.last()?;
    Dir::from_delta(next.x - v.me.pos.x, next.y - v.me.pos.y)
}

/// What the script does next: attack an adjacent monster, else walk to the stairs if the
/// floor is done, else explore.
fn next_intent(v: &View, want_stairs: bool) -> ClientMsg {
    let me = v.me.pos;
    if let Some(m) = v
        .entities
        .iter()
        .find(|e| e.kind == EntityKind::Monster && e.pos.chebyshev(me) == 1)
    {
        let dir = Dir::from_delta(m.pos.x - me.x, m.pos.y - me.y).expect("adjacent");
        return ClientMsg::Act(Action::Move { dir });
    }
    if want_stairs {
        if v.map.get(me) == Tile::StairsDown {
            return ClientMsg::Act(Action::Descend);
        }
        if let Some(dir) = step_towards(v, |p| v.map.get(p) == Tile::StairsDown) {
            return ClientMsg::Act(Action::Move { dir });
        }
    }
    match step_towards(v, |p| frontier(&v.map, p)) {
        Some(dir) => ClientMsg::Act(Action::Move { dir }),
        None => ClientMsg::Act(Action::Wait),
    }
}

#[tokio::test]
async fn a_scripted_client_fights_gains_xp_descends_and_returns() {
    let mut config = sturdy_config();
    config.msgs_per_sec = 100_000;
    config.msg_burst = 100_000;
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;

    let mut log: Vec<(MessageKind, String)> = Vec::new();
    let mut kills_seen = 0;
    let mut turns = 0;
    while ann.view().me.depth == 1 {
        assert!(
            turns < 4000,
            "never got down: kills {kills_seen}, log tail {:?}",
            &log[log.len().saturating_sub(5)..]
        );
        let v = ann.view().clone();
        // Head down once the floor has given a fight or two and the stairs are known.
        let want_stairs = v.me.kills >= 2 || turns > 2500;
        let intent = next_intent(&v, want_stairs && v.map.cells().contains(&Tile::StairsDown));
        ann.send(intent).await;
        let events = ann.next_view().await;
        turns += 1;
        assert_no_leaks("Ann", ann.view());
        for e in events {
            if let Event::Message { kind, text } = e {
                if text.starts_with("You kill the") {
                    kills_seen += 1;
                }
                log.push((kind, text));
            }
        }
    }
    // A floor change brings a whole new view (a snapshot); the turn's log lines follow it in
    // an update of their own.
    let after = ann.next_view().await;
    assert!(
        after
            .iter()
            .any(|e| matches!(e, Event::Message { text, .. } if text == "Entering floor #2")),
        "{after:?}"
    );
    // The fights went by the rules and were told in Ann's words.
    let me = ann.view().me.clone();
    assert!(me.kills >= 2, "kills: {}", me.kills);
    assert_eq!(kills_seen, me.kills as usize);
    // A Micro Mouse is worth 10 XP, half that to a character a level above it.
    assert!(
        me.xp >= 5 * me.kills,
        "each kill is worth at least half the Micro Mouse's 10 XP: {}",
        me.xp
    );
    assert!(log.iter().any(|(k, t)| *k == MessageKind::Good
        && t.starts_with("You gain ")
        && t.ends_with(" experience points.")));
    assert!(
        log.iter()
            .any(|(_, t)| t.starts_with("You hit the ") || t.starts_with("You miss the "))
    );
    assert!(
        log.iter()
            .any(|(k, t)| *k == MessageKind::Bad && t.contains(" hits you for ")),
        "monsters fought back"
    );

    // Arrived on floor 2 at its up-stair, told so, with a whole new view.
    assert_eq!(me.depth, 2);
    assert_eq!(ann.view().map.get(me.pos), Tile::StairsUp);
    let texts: Vec<&str> = ann
        .model
        .log
        .iter()
        .rev()
        .take(6)
        .map(|l| l.text.as_str())
        .collect();
    assert!(
        texts.contains(&"Entering floor #2") && texts.contains(&"You descend the staircase."),
        "{texts:?}"
    );
    assert_eq!(me.deepest, 2);

    // Back up: floor 1 as it was left, its clock unmoved while nobody was there.
    let floor1_turn = {
        // The turn floor 1 stopped at is the last turn Ann saw there.
        turns as u64
    };
    ann.send(ClientMsg::Act(Action::Ascend)).await;
    ann.next_view().await;
    while ann.view().me.depth != 1 {
        ann.next_view().await;
    }
    let v = ann.view();
    assert_eq!(
        v.map.get(v.me.pos),
        Tile::StairsDown,
        "arriving from below: at the down-stair"
    );
    assert_eq!(
        v.turn, floor1_turn,
        "floor 1 did not move while Ann was below"
    );
    server.stop().await;
}
