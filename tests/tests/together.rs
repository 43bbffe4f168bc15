//! Playing together over real WebSockets: floors that keep their own clocks, the turn timer,
//! dropped players who wait and come back, a second connection taking a character over,
//! watchers who see exactly what the watched player sees, the dead following a friend, private
//! dungeons and the lobby, and chat.

use delve_protocol::Action;
use std::sync::Arc;
use std::time::{Duration, Instant};

use delve_client::net::{NetError, Session};
use delve_protocol::{
    ClientMsg, Dir, DungeonInfo, EntityKind, ErrorCode, Event, PartyMember, Pos, ServerMsg, Tile,
    View, Watcher, encode,
};
use delve_server::game::Content;
use delve_server::game::path::nearest_route;
use delve_server::sim::bot::frontier;
use delve_tests::{Bot, TestServer, hello_with, sturdy_config, test_config, within};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The first step towards the nearest known walkable cell that satisfies `goal`, going around
/// everyone in sight (a friend in the way only says so).
fn step_towards(v: &View, goal: impl Fn(Pos) -> bool) -> Option<Dir> {
    let mut map = v.map.clone();
    // Creatures block the way; items lie underfoot.
    for e in v
        .entities
        .iter()
        .filter(|e| e.id != v.me.id && e.kind != EntityKind::Item)
    {
        map.set(e.pos, Tile::Wall);
    }
    let next = *nearest_route(&map, v.me.pos, goal)?.last()?;
    Dir::from_delta(next.x - v.me.pos.x, next.y - v.me.pos.y)
}

/// Towards the down-stair if it is known, else towards the unexplored; down when on it.
fn towards_stairs(v: &View) -> ClientMsg {
    if v.map.get(v.me.pos) == Tile::StairsDown {
        return ClientMsg::Act(Action::Descend);
    }
    step_towards(v, |p| v.map.get(p) == Tile::StairsDown)
        .or_else(|| step_towards(v, |p| frontier(&v.map, p)))
        .map_or(ClientMsg::Act(Action::Wait), |dir| {
            ClientMsg::Act(Action::Move { dir })
        })
}

/// `walker` explores floor 1 by its own view and takes the stairs down while everyone in `idle`
/// waits each turn (so the floor, with no timer, can resolve). Returns floor 1's turn when the
/// walker left it; every bot has read its views up to that turn.
async fn walk_down(walker: &mut Bot, idle: &mut [&mut Bot]) -> u64 {
    for _ in 0..2000 {
        let turn = walker.view().turn + 1;
        let intent = towards_stairs(walker.view());
        walker.send(intent).await;
        for b in idle.iter_mut() {
            b.send(ClientMsg::Act(Action::Wait)).await;
        }
        for b in idle.iter_mut() {
            b.until_turn(turn).await;
        }
        // A floor change brings a snapshot of floor 2; its log lines follow in an update.
        loop {
            walker.next_view().await;
            if walker.view().depth == 2 {
                let events = walker.next_view().await;
                assert!(
                    events.iter().any(
                        |e| matches!(e, Event::Message { text, .. } if text == "Entering floor #2")
                    ),
                    "{events:?}"
                );
                return turn;
            }
            if walker.view().turn == turn {
                break;
            }
        }
    }
    panic!("{} never found the way down", walker.name);
}

/// A random step this bot's own view allows, or a wait.
fn random_intent(rng: &mut ChaCha8Rng, bot: &Bot) -> ClientMsg {
    let open = bot.open_dirs();
    match open.choose(rng) {
        Some(&dir) if rng.random_ratio(9, 10) => ClientMsg::Act(Action::Move { dir }),
        _ => ClientMsg::Act(Action::Wait),
    }
}

/// A step to a free cell (no wall, nobody standing there) that is not in `avoid`.
fn free_step(bot: &Bot, avoid: &[Pos]) -> Dir {
    let v = bot.view();
    bot.open_dirs()
        .into_iter()
        .find(|&d| {
            let to = v.me.pos.step(d);
            !avoid.contains(&to)
                && v.entities
                    .iter()
                    .all(|e| e.pos != to || e.kind == EntityKind::Item)
        })
        .unwrap_or_else(|| panic!("{} has no free step", bot.name))
}

fn texts(events: &[Event]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Message { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn member<'a>(v: &'a View, name: &str) -> &'a PartyMember {
    v.party
        .iter()
        .find(|m| &*m.name == name)
        .unwrap_or_else(|| panic!("{name} is not in the party {:?}", v.party))
}

/// Reads a raw session until the server closes it; returns what came before and the close code.
async fn until_closed(who: &str, s: &mut Session) -> (Vec<ServerMsg>, u16) {
    let mut before = Vec::new();
    loop {
        match within(s.recv()).await {
            Ok(m) => before.push(m),
            Err(NetError::Closed { code, .. }) => return (before, code),
            Err(e) => panic!("{who}: expected a close frame, got {e}"),
        }
    }
}

/// Everyone plays a turn with `wait`s; all read up to it. Returns each one's events.
async fn all_wait(bots: &mut [&mut Bot]) -> Vec<Vec<Event>> {
    let turn = bots[0].view().turn + 1;
    for b in bots.iter_mut() {
        b.send(ClientMsg::Act(Action::Wait)).await;
    }
    let mut out = Vec::new();
    for b in bots.iter_mut() {
        out.push(b.until_turn(turn).await);
    }
    out
}

/// Like [`all_wait`], and no turn status on the way may say the turn waits for `absent`.
async fn all_wait_without(bots: &mut [&mut Bot], absent: &str) -> Vec<Vec<Event>> {
    let turn = bots[0].view().turn + 1;
    for b in bots.iter_mut() {
        b.send(ClientMsg::Act(Action::Wait)).await;
    }
    let mut out = Vec::new();
    for b in bots.iter_mut() {
        let mut events = Vec::new();
        while b.view().turn < turn {
            let msg = b.recv().await.unwrap();
            if let ServerMsg::TurnStatus { waiting_for, .. } = &msg {
                assert!(
                    !waiting_for.iter().any(|n| n == absent),
                    "{}: the turn waits for {absent}, who is gone",
                    b.name
                );
            }
            if let ServerMsg::Error { code, message, .. } = &msg {
                panic!("{}: unexpected error {code:?}: {message}", b.name);
            }
            events.extend(b.model.handle(msg).unwrap().events);
        }
        assert_eq!(b.view().turn, turn);
        out.push(events);
    }
    out
}

fn fast(mut config: delve_server::net::ServerConfig) -> delve_server::net::ServerConfig {
    // Bots play far faster than people.
    config.msgs_per_sec = 100_000;
    config.msg_burst = 100_000;
    config
}

#[tokio::test]
async fn two_floors_tick_independently() {
    let config = fast(test_config());
    println!("dungeon seed {:?}", config.seed);
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let mut cid = Bot::join(&server.url, "Cid", "crypt").await;
    // Settle the arrival news: one turn for all three.
    all_wait(&mut [&mut ann, &mut bob, &mut cid]).await;

    // Ann finds the stairs and goes down while Bob and Cid wait for her each turn.
    let floor1 = walk_down(&mut ann, &mut [&mut bob, &mut cid]).await;
    println!("Ann went down on floor 1's turn {floor1}");
    assert!(floor1 > 1);
    assert_eq!(ann.view().depth, 2);
    let floor2 = ann.view().turn;

    // Alone on floor 2, each of Ann's actions is a turn, though floor 1 has two silent players.
    for k in 1..=5 {
        let intent = towards_stairs(ann.view());
        let intent = match intent {
            ClientMsg::Act(Action::Descend) => ClientMsg::Act(Action::Wait),
            other => other,
        };
        ann.send(intent).await;
        ann.next_view().await;
        assert_eq!(
            ann.view().turn,
            floor2 + k,
            "floor 2 moves with each action"
        );
        assert_eq!(ann.view().depth, 2);
    }
    // Floor 1 did not move, and nobody there was asked to choose.
    for b in [&mut bob, &mut cid] {
        let before = b.resync().await;
        assert_eq!(b.view().turn, floor1, "{}: floor 1 moved", b.name);
        assert!(
            !before
                .iter()
                .any(|m| matches!(m, ServerMsg::TurnStatus { .. })),
            "{}: {before:?}",
            b.name
        );
        assert_eq!(
            member(b.view(), "Ann").depth,
            2,
            "the party shows Ann below"
        );
    }

    // Floor 1 resolves when both of its players have chosen, without the one below.
    bob.send(ClientMsg::Act(Action::Wait)).await;
    match bob.recv().await.unwrap() {
        ServerMsg::TurnStatus {
            turn,
            waiting_for,
            timeout_ms,
        } => {
            assert_eq!(turn, floor1 + 1);
            assert_eq!(
                waiting_for,
                vec!["Cid".to_string()],
                "not Ann, who is below"
            );
            assert_eq!(timeout_ms, None);
        }
        other => panic!("expected turn_status, got {other:?}"),
    }
    cid.send(ClientMsg::Act(Action::Wait)).await;
    bob.until_turn(floor1 + 1).await;
    cid.until_turn(floor1 + 1).await;
    // Floor 2's clock is where Ann left it, and she heard nothing of floor 1's turn.
    let before = ann.resync().await;
    assert_eq!(ann.view().depth, 2);
    assert_eq!(ann.view().turn, floor2 + 5, "floor 2 did not move");
    assert!(
        !before
            .iter()
            .any(|m| matches!(m, ServerMsg::TurnStatus { .. })),
        "{before:?}"
    );
    // And floor 2 still moves on Ann's action alone.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    ann.next_view().await;
    assert_eq!(ann.view().turn, floor2 + 6);
    let before = bob.resync().await;
    assert_eq!(bob.view().turn, floor1 + 1, "{before:?}");
    drop((ann, bob, cid));
    server.stop().await;
}

#[tokio::test]
async fn a_silent_player_delays_a_turn_by_at_most_the_timer() {
    let timer = Duration::from_millis(300);
    let mut config = fast(test_config());
    config.turn_timeout = timer;
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let mut cid = Bot::join(&server.url, "Cid", "crypt").await;
    // The arrival news comes as updates between turns: two for Ann, one for Bob.
    ann.next_view().await;
    ann.next_view().await;
    bob.next_view().await;

    // Two steps that cannot get in each other's way, whatever order they resolve in.
    let (ann_from, bob_from, cid_at) = (ann.pos(), bob.pos(), cid.pos());
    let ann_dir = free_step(&ann, &[]);
    let bob_dir = free_step(&bob, &[ann_from.step(ann_dir)]);
    let started = Instant::now();
    ann.step(ann_dir).await;
    match ann.recv().await.unwrap() {
        ServerMsg::TurnStatus {
            turn,
            waiting_for,
            timeout_ms,
        } => {
            assert_eq!(turn, 1);
            assert_eq!(waiting_for, vec!["Bob".to_string(), "Cid".to_string()]);
            let ms = timeout_ms.expect("the first choice starts the timer");
            assert!(ms <= timer.as_millis() as u64, "{ms}");
        }
        other => panic!("expected turn_status, got {other:?}"),
    }
    bob.step(bob_dir).await;
    // Bob's choice does not resolve the turn: it waits for Cid, on the timer Ann's choice started.
    loop {
        match bob.recv().await.unwrap() {
            ServerMsg::TurnStatus {
                waiting_for,
                timeout_ms,
                ..
            } if waiting_for == vec!["Cid".to_string()] => {
                assert!(timeout_ms.is_some(), "the timer still runs");
                break;
            }
            ServerMsg::TurnStatus { .. } => {} // the one Ann's choice sent
            other => panic!("expected turn_status, got {other:?}"),
        }
    }
    ann.next_view().await;
    // Not before the timer (tokio timers never fire early), and without Cid.
    assert!(
        started.elapsed() >= timer,
        "resolved after {:?}",
        started.elapsed()
    );
    bob.next_view().await;
    cid.next_view().await;
    for b in [&ann, &bob, &cid] {
        assert_eq!(b.view().turn, 1, "{}", b.name);
    }
    assert_eq!(ann.pos(), ann_from.step(ann_dir));
    assert_eq!(bob.pos(), bob_from.step(bob_dir));
    assert_eq!(cid.pos(), cid_at, "Cid did not choose, so he waited");
    assert_eq!(ann.view().entity(cid.id()).map(|e| e.pos), Some(cid_at));

    // Silence does not count as gone: the next turn waits for Cid again.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    bob.send(ClientMsg::Act(Action::Wait)).await;
    loop {
        match ann.recv().await.unwrap() {
            ServerMsg::TurnStatus { waiting_for, .. } if waiting_for.len() == 1 => {
                assert_eq!(waiting_for, vec!["Cid".to_string()]);
                break;
            }
            ServerMsg::TurnStatus { .. } => {}
            other => panic!("expected turn_status, got {other:?}"),
        }
    }
    // And Cid's own choice ends it before the timer.
    cid.send(ClientMsg::Act(Action::Wait)).await;
    for b in [&mut ann, &mut bob, &mut cid] {
        b.until_turn(2).await;
    }
    drop((ann, bob, cid));
    server.stop().await;
}

#[tokio::test]
async fn a_dropped_player_waits_fades_after_the_grace_and_comes_back() {
    let grace = Duration::from_millis(300);
    let mut config = fast(test_config());
    config.grace = grace;
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let mut cid = Bot::join(&server.url, "Cid", "crypt").await;
    all_wait(&mut [&mut ann, &mut bob, &mut cid]).await;
    let (bob_id, mut bob_at) = (bob.id(), bob.pos());
    let token = bob.model.token.clone().expect("a token");
    for b in [&ann, &cid] {
        assert!(
            b.view().is_visible(bob_at),
            "{} should see Bob's cell: they start side by side",
            b.name
        );
        assert_eq!(b.view().entity(bob_id).map(|e| e.pos), Some(bob_at));
    }

    for round in 0..2 {
        // Bob drops.
        let dropped = Instant::now();
        bob.session.close().await;
        // The others play on (no timer: only Bob's absence lets a turn resolve), see him
        // waiting where he stood until the grace ends, and then see him fade.
        let mut seen_fade = [false, false];
        let mut turns = 0;
        while !seen_fade.iter().all(|s| *s) {
            let events = if turns < 2 {
                turns += 1;
                all_wait_without(&mut [&mut ann, &mut cid], "Bob").await
            } else {
                // No more turns: the grace runs out on its own.
                let mut out = Vec::new();
                for (b, seen) in [&mut ann, &mut cid].into_iter().zip(seen_fade) {
                    out.push(if seen {
                        Vec::new()
                    } else {
                        b.next_view().await
                    });
                }
                out
            };
            for ((b, events), seen) in [&ann, &cid].into_iter().zip(events).zip(&mut seen_fade) {
                let fades = texts(&events)
                    .iter()
                    .filter(|t| **t == "Bob fades away until their player returns.")
                    .count();
                assert!(
                    fades <= 1 && !(*seen && fades == 1),
                    "{}: {events:?}",
                    b.name
                );
                *seen |= fades == 1;
                if *seen {
                    assert!(
                        dropped.elapsed() >= grace,
                        "{}: Bob faded after {:?}",
                        b.name,
                        dropped.elapsed()
                    );
                    assert!(b.view().is_visible(bob_at), "{}", b.name);
                    assert_eq!(
                        b.view().entity(bob_id),
                        None,
                        "{}: Bob is lifted out, yet seen",
                        b.name
                    );
                } else {
                    assert_eq!(
                        b.view().entity(bob_id).map(|e| e.pos),
                        Some(bob_at),
                        "{}: within the grace Bob waits where he stood",
                        b.name
                    );
                }
                let m = member(b.view(), "Bob");
                assert!(m.alive && !m.connected, "{}: {m:?}", b.name);
            }
        }
        // Lifted out, he takes no room: in the second round Ann steps onto his cell.
        let mut ann_at = ann.pos();
        if round == 1 {
            let dir = Dir::from_delta(bob_at.x - ann_at.x, bob_at.y - ann_at.y)
                .expect("Ann stands next to Bob's cell");
            ann.step(dir).await;
            cid.send(ClientMsg::Act(Action::Wait)).await;
            let turn = ann.view().turn + 1;
            let events = ann.until_turn(turn).await;
            cid.until_turn(turn).await;
            assert_eq!(ann.pos(), bob_at, "nobody in the way: {events:?}");
            ann_at = bob_at;
        }

        // Bob comes back with his token: the same character, a fresh welcome, where he stood
        // (or, his cell taken, beside it).
        bob = Bot::join_with(&server.url, "Bob", "crypt", Some(token.clone())).await;
        assert_eq!(bob.id(), bob_id);
        assert_eq!(bob.model.seq, 0);
        assert_eq!(bob.view().turn, ann.view().turn);
        if round == 0 {
            assert_eq!(bob.pos(), bob_at, "back where he stood");
        } else {
            assert_ne!(bob.pos(), ann_at);
            assert_eq!(bob.pos().chebyshev(bob_at), 1, "back beside his taken cell");
        }
        assert!(member(bob.view(), "Bob").connected);
        let back_at = bob.pos();
        for b in [&mut ann, &mut cid] {
            let events = b.next_view().await;
            let said = texts(&events);
            assert!(said.contains(&"Bob is back."), "{}: {said:?}", b.name);
            assert_eq!(b.view().entity(bob_id).map(|e| e.pos), Some(back_at));
            assert!(member(b.view(), "Bob").connected, "{}", b.name);
        }
        // He counts again, and his updates continue from the welcome.
        all_wait(&mut [&mut ann, &mut cid, &mut bob]).await;
        assert_eq!(bob.model.seq, 1, "the first update after the welcome is 1");
        for b in [&ann, &bob, &cid] {
            let m = member(b.view(), "Bob");
            assert!(
                m.connected && m.alive && m.id == bob_id,
                "{}: {m:?}",
                b.name
            );
        }
        bob_at = back_at;
    }
    drop((ann, bob, cid));
    server.stop().await;
}

#[tokio::test]
async fn a_second_connection_with_the_token_replaces_the_first_and_nobody_notices() {
    let grace = Duration::from_millis(100);
    let mut config = fast(test_config());
    config.grace = grace;
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let mut cid = Bot::join(&server.url, "Cid", "crypt").await;
    all_wait(&mut [&mut ann, &mut bob, &mut cid]).await;
    let (bob_id, bob_at) = (bob.id(), bob.pos());
    let token = bob.model.token.clone().expect("a token");

    let mut bob2 = Bot::join_with(&server.url, "ignored", "crypt", Some(token.clone())).await;
    assert_eq!(bob2.id(), bob_id, "the same character");
    assert_eq!(&*bob2.view().me.name, "Bob");
    assert_eq!(bob2.pos(), bob_at);
    assert_eq!(bob2.model.seq, 0);
    assert_eq!(bob2.model.token.as_deref(), Some(token.as_str()));

    // The old connection is told why, then closed with 4000.
    let (before, code) = until_closed("old Bob", &mut bob.session).await;
    assert!(
        before.iter().any(|m| matches!(
            m,
            ServerMsg::Error {
                code: ErrorCode::Replaced,
                ..
            }
        )),
        "{before:?}"
    );
    assert_eq!(code, delve_protocol::close::REPLACED);
    bob.session.close().await;
    let closed = Instant::now();

    // The first turn after the takeover waits for Bob: the new connection counts.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    cid.send(ClientMsg::Act(Action::Wait)).await;
    let mut heard: Vec<Event> = Vec::new();
    loop {
        match ann.recv().await.unwrap() {
            ServerMsg::TurnStatus { waiting_for, .. } if waiting_for.len() == 1 => {
                assert_eq!(waiting_for, vec!["Bob".to_string()]);
                break;
            }
            ServerMsg::TurnStatus { .. } => {}
            other => {
                heard.extend(ann.model.handle(other).unwrap().events);
            }
        }
    }
    bob2.send(ClientMsg::Act(Action::Wait)).await;
    let turn = ann.view().turn + 1;
    heard.extend(ann.until_turn(turn).await);
    heard.extend(cid.until_turn(turn).await);
    bob2.until_turn(turn).await;
    assert_eq!(
        bob2.model.seq, 1,
        "the new connection's updates follow its welcome"
    );

    // The new connection plays on, well past the grace period: the old connection's end never
    // counts as Bob leaving.
    let mut turns = 1;
    while closed.elapsed() < grace * 3 || turns < 5 {
        let dir = free_step(&bob2, &[]);
        let from = bob2.pos();
        bob2.step(dir).await;
        let events = all_wait(&mut [&mut ann, &mut cid]).await;
        heard.extend(events.into_iter().flatten());
        bob2.until_turn(ann.view().turn).await;
        assert_eq!(bob2.pos(), from.step(dir));
        turns += 1;
        for b in [&ann, &cid] {
            let m = member(b.view(), "Bob");
            assert!(m.connected, "{}: {m:?}", b.name);
            if b.view().is_visible(bob2.pos()) {
                assert_eq!(
                    b.view().entity(bob_id).map(|e| e.pos),
                    Some(bob2.pos()),
                    "{}",
                    b.name
                );
            }
        }
    }
    assert_eq!(bob2.model.seq, turns, "one update per turn, no gap");
    // Nobody left, so nobody was told anyone left, faded or came back.
    let said = texts(&heard);
    assert!(
        !said.iter().any(|t| t.contains("Bob")),
        "news of Bob: {said:?}"
    );
    drop((ann, bob2, cid));
    server.stop().await;
}

#[tokio::test]
async fn a_watcher_sees_exactly_what_the_watched_player_sees() {
    const TURNS: usize = 100;
    let seed = 20260419u64;
    println!("random walk seed {seed}");
    let server = TestServer::start(fast(sturdy_config())).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    ann.next_view().await; // "Bob enters the dungeon."

    // Nobody of that name: refused, nothing learnt.
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    s.send(&hello_with("Zed", "crypt", None, None, Some("Nobody")))
        .await
        .unwrap();
    match within(s.recv()).await.unwrap() {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::NoSuchPlayer),
        other => panic!("expected no_such_player, got {other:?}"),
    }
    drop(s);

    let mut zed = Bot::watch(&server.url, "Zed", "crypt", "ann").await;
    assert_eq!(
        zed.model.player_id,
        Some(ann.id()),
        "the watched character's id"
    );
    assert_eq!(
        zed.model.token, None,
        "a watcher has no character to resume"
    );
    assert_eq!(zed.model.watching.as_deref(), Some("Ann"));
    let zed_watching_ann = Watcher {
        name: "Zed".into(),
        watching: "Ann".into(),
    };
    // Its watcher list is checked in a test of its own, below; the rest is Ann's.
    let mut welcome = zed.view().clone();
    // The others hear of him, and list him.
    for b in [&mut ann, &mut bob] {
        let events = b.next_view().await;
        assert!(
            texts(&events).contains(&"Zed is watching Ann."),
            "{}: {events:?}",
            b.name
        );
        assert_eq!(b.view().watchers, vec![zed_watching_ann.clone()]);
        assert!(
            b.view().party.iter().all(|m| &*m.name != "Zed"),
            "a watcher is no party member"
        );
    }
    welcome.watchers.clone_from(&ann.view().watchers);
    assert_eq!(&welcome, ann.view(), "Zed's first view is Ann's");

    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut monsters_seen = 0;
    for turn in 1..=TURNS as u64 {
        let a = random_intent(&mut rng, &ann);
        let b = random_intent(&mut rng, &bob);
        ann.send(a).await;
        bob.send(b).await;
        let ann_events = ann.until_turn(turn).await;
        bob.until_turn(turn).await;
        let zed_events = zed.until_turn(turn).await;
        assert_eq!(zed.view(), ann.view(), "seed {seed}, turn {turn}");
        assert_eq!(zed_events, ann_events, "seed {seed}, turn {turn}");
        monsters_seen += ann
            .view()
            .entities
            .iter()
            .filter(|e| e.kind == delve_protocol::EntityKind::Monster)
            .count();
        if turn == 1 {
            for b in [&ann, &bob, &zed] {
                assert_eq!(b.view().watchers, vec![zed_watching_ann.clone()]);
            }
        }
    }
    assert!(monsters_seen > 0, "seed {seed}: no monster came into view");
    assert!(
        ann.view().me.alive && bob.view().me.alive,
        "seed {seed}: sturdy players do not die"
    );

    // A living player cannot follow anyone: she plays.
    ann.send(ClientMsg::Watch {
        name: Some("Bob".into()),
    })
    .await;
    assert_eq!(ann.next_error().await.0, ErrorCode::CannotAct);

    // Zed switches to Bob: told so, then a snapshot of Bob's view.
    zed.send(ClientMsg::Watch {
        name: Some("Bob".into()),
    })
    .await;
    match zed.recv().await.unwrap() {
        ServerMsg::Watching { name } => assert_eq!(name.as_deref(), Some("Bob")),
        other => panic!("expected watching, got {other:?}"),
    }
    match zed.recv().await.unwrap() {
        msg @ ServerMsg::Snapshot { .. } => {
            zed.model.handle(msg).unwrap();
        }
        other => panic!("expected a snapshot, got {other:?}"),
    }
    let zed_watching_bob = Watcher {
        name: "Zed".into(),
        watching: "Bob".into(),
    };
    assert_eq!(zed.view().watchers, vec![zed_watching_bob.clone()]);
    // The watcher list changed for everyone.
    for b in [&mut ann, &mut bob] {
        b.next_view().await;
        assert_eq!(b.view().watchers, vec![zed_watching_bob.clone()]);
    }
    assert_eq!(zed.view(), bob.view());
    assert_ne!(zed.view().me.id, ann.id());
    for turn in TURNS as u64 + 1..=TURNS as u64 + 10 {
        let a = random_intent(&mut rng, &ann);
        let b = random_intent(&mut rng, &bob);
        ann.send(a).await;
        bob.send(b).await;
        ann.until_turn(turn).await;
        let bob_events = bob.until_turn(turn).await;
        let zed_events = zed.until_turn(turn).await;
        assert_eq!(zed.view(), bob.view(), "seed {seed}, turn {turn}");
        assert_eq!(zed_events, bob_events, "seed {seed}, turn {turn}");
    }
    drop((ann, bob, zed));
    server.stop().await;
}

#[tokio::test]
async fn a_watchers_first_view_already_lists_the_watcher() {
    let server = TestServer::start(fast(test_config())).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let zed = Bot::watch(&server.url, "Zed", "crypt", "Ann").await;
    let events = ann.next_view().await;
    assert!(
        texts(&events).contains(&"Zed is watching Ann."),
        "{events:?}"
    );
    let zed_watching_ann = vec![Watcher {
        name: "Zed".into(),
        watching: "Ann".into(),
    }];
    assert_eq!(ann.view().watchers, zed_watching_ann);
    // The welcome is a view like any other, and a watcher's is exactly the watched player's:
    // Zed is already watching when it is made.
    assert_eq!(
        zed.view().watchers,
        zed_watching_ann,
        "Zed's welcome does not list him watching Ann"
    );
    assert_eq!(zed.view(), ann.view());
    drop((ann, zed));
    server.stop().await;
}

/// Reads until the answer to a `watch` (a `watching`, then a snapshot), applying everything.
async fn watching(bot: &mut Bot) -> Option<String> {
    let name = loop {
        match bot.recv().await.unwrap() {
            ServerMsg::Watching { name } => break name,
            ServerMsg::Error { code, message, .. } => {
                panic!("{}: unexpected error {code:?}: {message}", bot.name)
            }
            other => {
                bot.model.handle(other).unwrap();
            }
        }
    };
    bot.model.watching.clone_from(&name);
    match bot.recv().await.unwrap() {
        msg @ ServerMsg::Snapshot { .. } => {
            bot.model.handle(msg).unwrap();
        }
        other => panic!("{}: expected a snapshot, got {other:?}", bot.name),
    }
    name
}

#[tokio::test]
async fn a_dead_player_follows_a_living_friend_and_comes_back_to_its_own_view() {
    let mut content = Content::builtin();
    content.player.hp = 2;
    content.spawn.count = 24;
    content.spawn.safe_distance = 2;
    let mut config = fast(test_config());
    config.content = Arc::new(content);
    println!("dungeon seed {:?}", config.seed);
    let server = TestServer::start(config).await;
    // Ann plays alone (each wait is a turn) until the mice get her.
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let ann_id = ann.id();
    let mut turns = 0;
    while ann.view().me.alive {
        assert!(turns < 500, "nothing came to kill Ann");
        ann.send(ClientMsg::Act(Action::Wait)).await;
        ann.next_view().await;
        turns += 1;
    }
    let ghost = ann.view().me.clone();
    assert!(ghost.cause.is_some());

    // Bob arrives. No turn resolves until he acts, so he is alive as Ann asks to follow him.
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    ann.next_view().await; // "Bob enters the dungeon."
    assert!(bob.view().me.alive);
    let bob_id = bob.id();
    assert!(member(ann.view(), "Ann").connected && !member(ann.view(), "Ann").alive);

    // A name nobody has is refused.
    ann.send(ClientMsg::Watch {
        name: Some("Nobody".into()),
    })
    .await;
    assert_eq!(ann.next_error().await.0, ErrorCode::NoSuchPlayer);

    // The living Bob cannot follow anyone.
    bob.send(ClientMsg::Watch {
        name: Some("Ann".into()),
    })
    .await;
    assert_eq!(bob.next_error().await.0, ErrorCode::CannotAct);

    ann.send(ClientMsg::Watch {
        name: Some("bob".into()),
    })
    .await;
    assert_eq!(watching(&mut ann).await.as_deref(), Some("Bob"));
    // Everyone's watcher list now names Ann following Bob; Bob hears of it between turns.
    bob.next_view().await;
    let listed = Watcher {
        name: "Ann".into(),
        watching: "Bob".into(),
    };
    assert_eq!(bob.view().watchers, vec![listed.clone()]);
    assert_eq!(ann.view().watchers, vec![listed]);
    assert_eq!(ann.view(), bob.view(), "Ann now sees what Bob sees");
    assert_eq!(ann.view().me.id, bob_id);

    // She follows him turn by turn (while he lives: the mice are still about).
    let mut followed = 0;
    for _ in 0..3 {
        if !bob.view().me.alive {
            break;
        }
        followed += 1;
        let turn = bob.view().turn + 1;
        bob.send(ClientMsg::Act(Action::Wait)).await;
        let bob_events = bob.until_turn(turn).await;
        let ann_events = ann.until_turn(turn).await;
        assert_eq!(ann.view(), bob.view());
        assert_eq!(ann_events, bob_events);
    }
    println!(
        "Ann followed Bob for {followed} turns; Bob alive: {}",
        bob.view().me.alive
    );
    assert!(followed > 0);
    // Still dead herself: she cannot act.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    assert_eq!(ann.next_error().await.0, ErrorCode::CannotAct);

    // Back to her own ghost's view.
    ann.send(ClientMsg::Watch { name: None }).await;
    assert_eq!(watching(&mut ann).await, None);
    let me = &ann.view().me;
    assert_eq!((me.id, &*me.name, me.alive), (ann_id, "Ann", false));
    assert_eq!((me.pos, me.depth), (ghost.pos, ghost.depth));
    assert!(
        ann.view().entity(ann_id).is_none(),
        "the dead are not on the map"
    );
    // Bob plays on (as a new character if the mice got him), and Ann's updates are her own.
    if !bob.view().me.alive {
        bob.send(ClientMsg::NewCharacter).await;
        let welcome = loop {
            match bob.recv().await.unwrap() {
                msg @ ServerMsg::Welcome { .. } => break msg,
                other => {
                    bob.model.handle(other).unwrap();
                }
            }
        };
        bob.model.handle(welcome).unwrap();
    }
    let turn = bob.view().turn + 1;
    bob.send(ClientMsg::Act(Action::Wait)).await;
    bob.until_turn(turn).await;
    ann.until_turn(turn).await;
    assert_eq!(ann.view().me.id, ann_id);
    assert!(!ann.view().me.alive);
    assert_ne!(ann.view().me, bob.view().me);
    drop((ann, bob));
    server.stop().await;
}

/// A player as the lobby lists it: at level 1 and alive, on floor `depth`, watched by `watchers`.
fn live(name: &str, depth: u8, watchers: &[&str]) -> delve_protocol::LivePlayer {
    delve_protocol::LivePlayer {
        name: name.into(),
        depth,
        level: 1,
        alive: true,
        watchers: watchers.iter().map(|w| w.to_string()).collect(),
    }
}

/// Sends `hello` on a raw session and returns the answer.
async fn say_hello(s: &mut Session, hello: ClientMsg) -> ServerMsg {
    within(s.send(&hello)).await.unwrap();
    within(s.recv()).await.unwrap()
}

/// The server's dungeons, as a fresh connection's lobby shows them.
async fn lobby(url: &str) -> Vec<DungeonInfo> {
    let mut s = within(Session::connect(url)).await.unwrap();
    within(s.send(&ClientMsg::ListDungeons)).await.unwrap();
    match within(s.recv()).await.unwrap() {
        ServerMsg::Dungeons { dungeons } => dungeons,
        other => panic!("expected dungeons, got {other:?}"),
    }
}

/// A refusal for a private dungeon: `bad_password`, and nothing in it about who is inside.
fn assert_refused(msg: &ServerMsg) {
    match msg {
        ServerMsg::Error {
            code: ErrorCode::BadPassword,
            ..
        } => {}
        other => panic!("expected bad_password, got {other:?}"),
    }
    let wire = encode(msg);
    assert!(!wire.contains("Ann"), "the refusal names Ann: {wire}");
}

#[tokio::test]
async fn a_private_dungeon_refuses_wrong_passwords_and_reveals_nothing() {
    let server = TestServer::start(fast(test_config())).await;
    // A public dungeon beside it, with two players.
    let mut cid = Bot::join(&server.url, "Cid", "crypt").await;
    let dan = Bot::join(&server.url, "Dan", "crypt").await;
    cid.next_view().await;
    // Ann makes "vault" private by naming it first with a password.
    let ann = Bot::join_private(&server.url, "Ann", "vault", "swordfish").await;
    let ann_token = ann.model.token.clone().expect("a token");

    // The lobby, before any hello: the public dungeon shows who is there (and who plays
    // there), the private one only its name.
    // It comes from another address than the guesses below, which it will outlast.
    let other: std::net::IpAddr = [127, 0, 0, 2].into();
    let mut lobby_conn = within(Session::connect_from(&server.url, other))
        .await
        .unwrap();
    within(lobby_conn.send(&ClientMsg::ListDungeons))
        .await
        .unwrap();
    let listed = match within(lobby_conn.recv()).await.unwrap() {
        ServerMsg::Dungeons { dungeons } => dungeons,
        other => panic!("expected dungeons, got {other:?}"),
    };
    assert_eq!(
        listed,
        vec![
            DungeonInfo {
                name: "crypt".into(),
                private: false,
                online: Some(2),
                deepest: Some(1),
                players: vec![live("Cid", 1, &[]), live("Dan", 1, &[])],
            },
            DungeonInfo {
                name: "vault".into(),
                private: true,
                online: None,
                deepest: None,
                players: Vec::new(),
            },
        ]
    );

    // Bob without a password, then with a wrong one: refused, told nothing.
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    assert_refused(&say_hello(&mut s, hello_with("Bob", "vault", None, None, None)).await);
    assert_refused(
        &say_hello(
            &mut s,
            hello_with("Bob", "Vault", None, Some("hunter2"), None),
        )
        .await,
    );
    // Not even whether a name is taken, or who is inside.
    assert_refused(&say_hello(&mut s, hello_with("Ann", "vault", None, None, None)).await);
    assert_refused(
        &say_hello(
            &mut s,
            hello_with("Bob", "vault", None, None, Some("Nobody")),
        )
        .await,
    );
    // Not as a watcher either.
    assert_refused(&say_hello(&mut s, hello_with("Bob", "vault", None, None, Some("Ann"))).await);
    drop(s);

    // Wrong tries are counted per address: "hunter2" above was one, three more on a new
    // connection are refused, and the fifth closes it.
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    for k in 1..4 {
        let guess = format!("guess{k}");
        assert_refused(
            &say_hello(&mut s, hello_with("Bob", "vault", None, Some(&guess), None)).await,
        );
    }
    within(s.send(&hello_with("Bob", "vault", None, Some("guess4"), None)))
        .await
        .unwrap();
    let (before, code) = until_closed("Bob", &mut s).await;
    for m in &before {
        assert_refused(m);
    }
    assert_eq!(code, delve_protocol::close::POLICY);
    drop(s);
    // Reconnecting does not reset the count: even the right password is shut out for now.
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    within(s.send(&hello_with("Bob", "vault", None, Some("swordfish"), None)))
        .await
        .unwrap();
    let (before, code) = until_closed("Bob", &mut s).await;
    assert_eq!(before.len(), 1, "{before:?}");
    assert_refused(&before[0]);
    assert_eq!(code, delve_protocol::close::POLICY);
    drop(s);
    // An empty password is no password: refused as such, and not counted as a guess.
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    let refused = say_hello(&mut s, hello_with("Bob", "vault", None, Some(""), None)).await;
    assert_refused(&refused);
    assert!(
        encode(&refused).contains("give its password"),
        "{refused:?}"
    );
    drop(s);
    assert_eq!(server.dungeons(), 2, "no refused hello made a dungeon");

    // The right password on the lobby connection, from its other address: Bob is in and sees
    // Ann in the party.
    let welcome = say_hello(
        &mut lobby_conn,
        hello_with("Bob", "vault", None, Some("swordfish"), None),
    )
    .await;
    let ServerMsg::Welcome { view, dungeon, .. } = welcome else {
        panic!("expected a welcome, got {welcome:?}");
    };
    assert_eq!(dungeon, "vault");
    let names: Vec<&str> = view.party.iter().map(|m| &*m.name).collect();
    assert_eq!(names, vec!["Ann", "Bob"]);

    // The lobby still shows nothing of vault; crypt's count is live.
    drop(dan);
    let listed = lobby(&server.url).await;
    assert_eq!(listed[1].online, None);
    assert_eq!(listed[1].deepest, None);
    assert!(listed[1].private);
    let mut online = listed[0].online;
    // Dan's leaving reaches the dungeon in its own time: Cid hears of it, then the count is 1.
    loop {
        let events = cid.next_view().await;
        if texts(&events).iter().any(|t| t.starts_with("Dan ")) {
            break;
        }
    }
    if online != Some(1) {
        online = lobby(&server.url).await[0].online;
    }
    assert_eq!(online, Some(1));

    // Ann's token resumes her without the password.
    ann.session.close().await;
    let again = Bot::join_with(&server.url, "Ann", "vault", Some(ann_token)).await;
    assert_eq!(&*again.view().me.name, "Ann");
    assert_eq!(again.model.dungeon.as_deref(), Some("vault"));
    drop((cid, again, lobby_conn));
    server.stop().await;
}

/// Reads views until the next chat line; returns it as (from, text).
async fn next_chat(bot: &mut Bot) -> (String, String) {
    loop {
        let mut lines: Vec<(String, String)> = bot
            .next_view()
            .await
            .into_iter()
            .filter_map(|e| match e {
                Event::Chat { from, text } => Some((from, text)),
                _ => None,
            })
            .collect();
        assert!(
            lines.len() <= 1,
            "{}: one line an update: {lines:?}",
            bot.name
        );
        if let Some(line) = lines.pop() {
            return line;
        }
    }
}

/// The next `n` chat lines `bot` hears.
async fn next_chats(bot: &mut Bot, n: usize) -> Vec<(String, String)> {
    let mut lines = Vec::new();
    for _ in 0..n {
        lines.push(next_chat(bot).await);
    }
    lines
}

#[tokio::test]
async fn chat_reaches_everyone_in_the_dungeon_cleaned_and_within_limits() {
    let mut config = fast(test_config());
    config.chat_per_sec = 1;
    config.chat_burst = 3;
    println!("dungeon seed {:?}", config.seed);
    let server = TestServer::start(config).await;
    // Dan goes down to floor 2 before the others come.
    let mut dan = Bot::join(&server.url, "Dan", "crypt").await;
    walk_down(&mut dan, &mut []).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let mut zed = Bot::watch(&server.url, "Zed", "crypt", "Bob").await;
    assert_eq!(dan.view().depth, 2);
    // The lobby counts the three players (not the watcher), knows how deep they got, and
    // lists who plays where and who watches them.
    assert_eq!(
        lobby(&server.url).await,
        vec![DungeonInfo {
            name: "crypt".into(),
            private: false,
            online: Some(3),
            deepest: Some(2),
            players: vec![
                live("Ann", 1, &[]),
                live("Bob", 1, &["Zed"]),
                live("Dan", 2, &[]),
            ],
        }]
    );

    // A line from Ann reaches everyone, on both floors, the watcher and Ann herself, with its
    // control characters gone.
    ann.send(ClientMsg::Chat {
        text: "hi\u{7}there".into(),
    })
    .await;
    let hi = vec![("Ann".to_string(), "hithere".to_string())];
    for b in [&mut ann, &mut bob, &mut dan, &mut zed] {
        assert_eq!(next_chats(b, 1).await, hi, "{}", b.name);
    }

    // Too long, empty, or nothing but control characters: refused, sent to nobody.
    for text in ["x".repeat(201), String::new(), "\u{7}\u{1b}\n".into()] {
        ann.send(ClientMsg::Chat { text: text.clone() }).await;
        let (code, message) = ann.next_error().await;
        assert_eq!(code, ErrorCode::Rejected, "{text:?}: {message}");
    }
    // 200 characters is not too long (counted in characters, not bytes). It comes after the
    // refused lines, so everyone's next chat line is this one.
    let long = "é".repeat(200);
    ann.send(ClientMsg::Chat { text: long.clone() }).await;
    for b in [&mut ann, &mut bob, &mut dan, &mut zed] {
        assert_eq!(
            next_chats(b, 1).await,
            vec![("Ann".to_string(), long.clone())],
            "{}",
            b.name
        );
    }

    // Zed, watching, chats too fast: the burst goes out, the rest is refused.
    let started = Instant::now();
    let burst: Vec<String> = (1..=5).map(|k| format!("line {k}")).collect();
    for line in &burst {
        zed.send(ClientMsg::Chat { text: line.clone() }).await;
    }
    // A resync after them: its snapshot comes once all five were dealt with.
    zed.send(ClientMsg::Resync).await;
    let mut sent = Vec::new();
    let mut refusals = Vec::new();
    loop {
        let msg = zed.recv().await.unwrap();
        match &msg {
            ServerMsg::Snapshot { .. } => {
                zed.model.handle(msg).unwrap();
                break;
            }
            ServerMsg::Error { code, .. } => refusals.push(*code),
            _ => {}
        }
        for e in zed.model.handle(msg).unwrap().events {
            if let Event::Chat { from, text } = e {
                assert_eq!(from, "Zed");
                sent.push(text);
            }
        }
    }
    let took = started.elapsed();
    assert!(!refusals.is_empty(), "no rate_limited for {sent:?}");
    assert!(
        refusals.iter().all(|c| *c == ErrorCode::RateLimited),
        "{refusals:?}"
    );
    assert!(sent.len() >= 3 && sent.len() < 5, "{sent:?}");
    assert_eq!(
        sent.len() + refusals.len(),
        burst.len(),
        "every line is either sent or answered with a refusal: {sent:?} {refusals:?}"
    );
    assert_eq!(
        sent,
        burst[..sent.len()],
        "the first lines go out, in order"
    );
    if took < Duration::from_secs(1) {
        // No new allowance yet: exactly the burst.
        assert_eq!(sent.len(), 3, "{sent:?} in {took:?}");
    }
    // Everyone got exactly what Zed did, and nothing refused.
    bob.send(ClientMsg::Chat {
        text: "over".into(),
    })
    .await;
    let mut heard: Vec<(String, String)> = sent
        .iter()
        .map(|t| ("Zed".to_string(), t.clone()))
        .collect();
    heard.push(("Bob".to_string(), "over".to_string()));
    for b in [&mut ann, &mut bob, &mut dan] {
        assert_eq!(next_chats(b, heard.len()).await, heard, "{}", b.name);
    }
    assert_eq!(
        next_chats(&mut zed, 1).await,
        vec![("Bob".to_string(), "over".to_string())]
    );
    drop((ann, bob, dan, zed));
    server.stop().await;
}

#[tokio::test]
async fn a_made_up_token_does_not_let_a_watcher_into_a_private_dungeon() {
    let server = TestServer::start(fast(test_config())).await;
    let ann = Bot::join_private(&server.url, "Ann", "vault", "swordfish").await;
    // A token that resumes nobody, with a watch: it is no resume, so it needs the password.
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    let answer = say_hello(
        &mut s,
        hello_with("Eve", "vault", Some("00".repeat(16)), None, Some("Ann")),
    )
    .await;
    let wire = encode(&answer);
    assert!(
        matches!(answer, ServerMsg::Error { .. }) && !wire.contains("Ann"),
        "a stranger got into the private dungeon: {}",
        &wire[..wire.len().min(120)]
    );
    drop((ann, s));
    server.stop().await;
}

#[tokio::test]
async fn a_watchers_name_is_checked_even_with_a_token() {
    let server = TestServer::start(fast(test_config())).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    // A name with control characters would show in everyone's watcher list and chat.
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    let answer = say_hello(
        &mut s,
        hello_with(
            "E\u{1b}[2Jve",
            "crypt",
            Some("00".repeat(16)),
            None,
            Some("Ann"),
        ),
    )
    .await;
    let wire = encode(&answer);
    assert!(
        matches!(answer, ServerMsg::Error { .. }),
        "a watcher joined under a bad name: {}",
        &wire[..wire.len().min(120)]
    );
    let events = ann.resync().await;
    assert!(ann.view().watchers.is_empty(), "{events:?}");
    drop((ann, s));
    server.stop().await;
}

#[tokio::test]
async fn a_watcher_cannot_pass_for_a_player_nor_act() {
    let server = TestServer::start(test_config()).await;
    let _ann = Bot::join(&server.url, "Ann", "crypt").await;
    // Taking a player's name would let a watcher chat as them.
    let mut s = within(delve_client::net::Session::connect(&server.url))
        .await
        .unwrap();
    s.send(&hello_with("ann", "crypt", None, None, Some("Ann")))
        .await
        .unwrap();
    match within(s.recv()).await.unwrap() {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::NameTaken),
        other => panic!("a watcher took a player's name: {other:?}"),
    }
    // A watcher has no character: its intents get a clear refusal, not silence.
    let mut zed = Bot::watch(&server.url, "Zed", "crypt", "Ann").await;
    for msg in [
        ClientMsg::Act(Action::Wait),
        ClientMsg::NewCharacter,
        ClientMsg::LevelUp {
            stat: delve_protocol::Stat::Attack,
        },
    ] {
        zed.send(msg).await;
        assert_eq!(zed.next_error().await.0, ErrorCode::CannotAct);
    }
    // Nor may a new player pass for the watcher.
    let mut s = within(delve_client::net::Session::connect(&server.url))
        .await
        .unwrap();
    s.send(&hello_with("ZED", "crypt", None, None, None))
        .await
        .unwrap();
    match within(s.recv()).await.unwrap() {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::NameTaken),
        other => panic!("a player took a watcher's name: {other:?}"),
    }
    server.stop().await;
}

/// Plays `bot` alone, a wait a turn, until the monsters kill it.
async fn wait_until_dead(bot: &mut Bot, others: &mut [&mut Bot]) {
    let mut turns = 0;
    while bot.view().me.alive {
        assert!(turns < 1000, "nothing came to kill {}", bot.name);
        let turn = bot.view().turn + 1;
        bot.send(ClientMsg::Act(Action::Wait)).await;
        bot.until_turn(turn).await;
        for o in others.iter_mut() {
            o.until_turn(turn).await;
        }
        turns += 1;
    }
}

#[tokio::test]
async fn watchers_move_on_when_the_watched_player_leaves_for_good() {
    let mut content = Content::builtin();
    content.player.hp = 2;
    content.spawn.count = 24;
    content.spawn.safe_distance = 2;
    let mut config = fast(test_config());
    config.content = Arc::new(content);
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut zed = Bot::watch(&server.url, "Zed", "crypt", "Ann").await;
    ann.next_view().await; // "Zed is watching Ann."
    wait_until_dead(&mut ann, &mut [&mut zed]).await;
    // Dead but still here, Ann is in the party: Zed keeps her view, and others may watch her.
    assert_eq!(zed.view(), ann.view());
    let yan = Bot::watch(&server.url, "Yan", "crypt", "Ann").await;
    assert_eq!(yan.view().me.id, ann.id());
    drop(yan);

    // Bob arrives; Ann's player leaves. Zed is moved to Bob, and sees what Bob sees.
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    ann.session.close().await;
    assert_eq!(watching(&mut zed).await.as_deref(), Some("Bob"));
    bob.resync().await;
    assert_eq!(zed.view().me.id, bob.id());
    assert_eq!(
        zed.view().watchers,
        vec![Watcher {
            name: "Zed".into(),
            watching: "Bob".into(),
        }]
    );
    assert_eq!(zed.view(), bob.view());
    // Ann can no longer be watched: she is gone.
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    match say_hello(&mut s, hello_with("Xan", "crypt", None, None, Some("Ann"))).await {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::NoSuchPlayer),
        other => panic!("a watcher got a departed ghost: {other:?}"),
    }
    drop(s);

    // Bob dies and leaves too: nobody is left, and Zed is told so and closed.
    wait_until_dead(&mut bob, &mut [&mut zed]).await;
    bob.session.close().await;
    let (before, code) = until_closed("Zed", &mut zed.session).await;
    let told = before.iter().any(|m| {
        matches!(m, ServerMsg::Error { code: ErrorCode::NoSuchPlayer, message, .. } if message.contains("nobody is left"))
    });
    assert!(told, "{before:?}");
    assert_eq!(code, 1000);
    server.stop().await;
}

#[tokio::test]
async fn a_new_watcher_hears_whom_the_turn_is_waiting_for() {
    let server = TestServer::start(fast(test_config())).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let _bob = Bot::join(&server.url, "Bob", "crypt").await;
    ann.next_view().await; // "Bob enters the dungeon."
    // Ann has chosen; the turn waits for Bob.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    loop {
        if let ServerMsg::TurnStatus { waiting_for, .. } = ann.recv().await.unwrap() {
            assert_eq!(waiting_for, vec!["Bob".to_string()]);
            break;
        }
    }
    // Zed starts watching Ann: he hears it too, without waiting for anyone to act.
    let mut zed = Bot::watch(&server.url, "Zed", "crypt", "Ann").await;
    loop {
        match zed.recv().await.unwrap() {
            ServerMsg::TurnStatus {
                waiting_for, turn, ..
            } => {
                assert_eq!(waiting_for, vec!["Bob".to_string()]);
                assert_eq!(turn, ann.view().turn + 1);
                break;
            }
            other => {
                zed.model.handle(other).unwrap();
            }
        }
    }
    server.stop().await;
}
