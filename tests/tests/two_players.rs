//! Two players in one dungeon over real WebSockets: sight, the turn rule, and the defining
//! property of the diff stream (first snapshot + every diff = a fresh snapshot).

use delve_protocol::Action;
use std::time::{Duration, Instant};

use delve_protocol::{ClientMsg, Dir, Event, ServerMsg};
use delve_tests::{Bot, TestServer, assert_no_leaks, sturdy_config, test_config};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Each bot's check after a turn: it sees the other exactly when the other's cell is in its
/// sight, and every move event it got names only cells it can see.
fn check_sight(me: &Bot, other: &Bot, events: &[Event]) {
    let v = me.view();
    assert_no_leaks(&me.name, v);
    let other_pos = other.pos();
    let seen = v.entity(other.id());
    if v.is_visible(other_pos) {
        let e = seen
            .unwrap_or_else(|| panic!("{} should see {} at {other_pos:?}", me.name, other.name));
        assert_eq!(e.pos, other_pos);
    } else {
        assert!(
            seen.is_none(),
            "{} sees {} at {other_pos:?} out of sight",
            me.name,
            other.name
        );
    }
    for e in events {
        if let Event::Moved { id, from, to } = e
            && *id != me.id()
        {
            // Without `to`, the move ended where the view shows the mover.
            let to = to
                .or_else(|| v.position_of(*id))
                .unwrap_or_else(|| panic!("a move without `to` of someone not in view: {e:?}"));
            assert!(
                v.is_visible(*from) && v.is_visible(to),
                "{} got a move it cannot see: {e:?}",
                me.name
            );
        }
    }
}

/// A random step this bot's own view allows, or a wait.
fn random_intent(rng: &mut ChaCha8Rng, bot: &Bot) -> ClientMsg {
    let open = bot.open_dirs();
    match open.choose(rng) {
        Some(&dir) if rng.random_ratio(9, 10) => ClientMsg::Act(Action::Move { dir }),
        _ => ClientMsg::Act(Action::Wait),
    }
}

#[tokio::test]
async fn random_walks_keep_views_exact_and_private() {
    const TURNS: usize = 300;
    let seed = 20261122u64;
    println!("random walk seed {seed}");
    // Bots play hundreds of turns as fast as the machine allows, far above a human's pace.
    let mut config = sturdy_config();
    config.msgs_per_sec = 100_000;
    config.msg_burst = 100_000;
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let _ = ann.next_view().await; // Bob arrived within Ann's sight or not: an update either way.
    let mut rng = ChaCha8Rng::seed_from_u64(seed);

    let mut times_in_sight = 0;
    let mut monsters_seen = 0;
    for turn in 1..=TURNS as u64 {
        let a = random_intent(&mut rng, &ann);
        let b = random_intent(&mut rng, &bob);
        ann.send(a).await;
        bob.send(b).await;
        let ann_events = ann.next_view().await;
        let bob_events = bob.next_view().await;
        assert_eq!(ann.view().turn, turn, "seed {seed}");
        assert_eq!(bob.view().turn, turn, "seed {seed}");
        check_sight(&ann, &bob, &ann_events);
        check_sight(&bob, &ann, &bob_events);
        if ann.view().entity(bob.id()).is_some() {
            times_in_sight += 1;
        }
        for bot in [&ann, &bob] {
            monsters_seen += bot
                .view()
                .entities
                .iter()
                .filter(|e| e.kind == delve_protocol::EntityKind::Monster)
                .count();
        }
    }
    // Monsters came and went too, so their entities went through the diffs as well.
    assert!(
        monsters_seen > 0,
        "seed {seed}: no monster ever came into view"
    );
    // They start side by side, so the property was exercised both ways.
    assert!(times_in_sight > 0, "seed {seed}: they never saw each other");
    assert!(
        times_in_sight < TURNS,
        "seed {seed}: they never lost sight of each other"
    );

    // The copy each built from one snapshot and 300 diffs equals a fresh snapshot.
    for bot in [&mut ann, &mut bob] {
        let built = bot.view().clone();
        bot.send(ClientMsg::Resync).await;
        match bot.recv().await.unwrap() {
            ServerMsg::Snapshot { view, .. } => {
                assert_eq!(built, view, "seed {seed}: {} drifted", bot.name)
            }
            other => panic!("expected a snapshot, got {other:?}"),
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_turn_waits_for_both_players_when_there_is_no_timer() {
    let server = TestServer::start(test_config()).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let _ = ann.next_view().await;

    let dir = ann.open_dirs()[0];
    let ann_from = ann.pos();
    ann.step(dir).await;
    // The first thing Ann hears is that the turn waits for Bob, not a resolved turn.
    match ann.recv().await.unwrap() {
        ServerMsg::TurnStatus {
            turn,
            waiting_for,
            timeout_ms,
        } => {
            assert_eq!(turn, 1);
            assert_eq!(waiting_for, vec!["Bob".to_string()]);
            assert_eq!(timeout_ms, None);
        }
        other => panic!("expected turn_status, got {other:?}"),
    }
    // Ann changes her mind: the pending action is replaced, not queued.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    match ann.recv().await.unwrap() {
        ServerMsg::TurnStatus { waiting_for, .. } => {
            assert_eq!(waiting_for, vec!["Bob".to_string()])
        }
        other => panic!("expected turn_status, got {other:?}"),
    }
    bob.send(ClientMsg::Act(Action::Wait)).await;
    ann.next_view().await;
    bob.next_view().await;
    assert_eq!(ann.view().turn, 1);
    assert_eq!(ann.pos(), ann_from, "Ann's replaced move must not happen");

    // One turn per choice: turn 2 needs both again.
    ann.step(dir).await;
    assert!(matches!(
        ann.recv().await.unwrap(),
        ServerMsg::TurnStatus { turn: 2, .. }
    ));
    bob.send(ClientMsg::Act(Action::Wait)).await;
    ann.next_view().await;
    assert_eq!(ann.view().turn, 2);
    assert_eq!(ann.pos(), ann_from.step(dir));
    server.stop().await;
}

#[tokio::test]
async fn a_silent_player_delays_a_turn_only_until_the_timer() {
    let timer = Duration::from_millis(300);
    let mut config = test_config();
    config.turn_timeout = timer;
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let _ = ann.next_view().await;

    let bob_at = bob.pos();
    let dir = ann.open_dirs()[0];
    let started = Instant::now();
    ann.step(dir).await;
    match ann.recv().await.unwrap() {
        ServerMsg::TurnStatus {
            waiting_for,
            timeout_ms,
            ..
        } => {
            assert_eq!(waiting_for, vec!["Bob".to_string()]);
            let ms = timeout_ms.expect("a timer runs");
            assert!(ms > 0 && ms <= timer.as_millis() as u64, "{ms}");
        }
        other => panic!("expected turn_status, got {other:?}"),
    }
    ann.next_view().await;
    // The turn resolved without Bob, and not before the timer (tokio timers never fire early).
    assert!(started.elapsed() >= timer);
    assert_eq!(ann.view().turn, 1);
    bob.next_view().await;
    assert_eq!(bob.view().turn, 1);
    assert_eq!(bob.pos(), bob_at, "Bob did not choose, so he waited");
    server.stop().await;
}

#[tokio::test]
async fn a_disconnected_player_never_blocks_a_turn() {
    let server = TestServer::start(test_config()).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let bob = Bot::join(&server.url, "Bob", "crypt").await;
    let _ = ann.next_view().await;
    let bob_token = bob.model.token.clone().unwrap();
    bob.session.close().await;

    // With no timer, only Bob's absence lets this turn resolve.
    for turn in 1..=3 {
        ann.send(ClientMsg::Act(Action::Wait)).await;
        loop {
            ann.next_view().await;
            if ann.view().turn == turn {
                break;
            }
        }
    }
    // Bob's character stayed and can be resumed, with a fresh snapshot of the current turn.
    let mut bob = Bot::join_with(&server.url, "Bob", "crypt", Some(bob_token)).await;
    assert_eq!(bob.view().turn, 3);
    assert_eq!(bob.model.seq, 0);
    // Now he counts again: the next turn waits for him.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    loop {
        match ann.recv().await.unwrap() {
            ServerMsg::TurnStatus { waiting_for, .. } => {
                assert_eq!(waiting_for, vec!["Bob".to_string()]);
                break;
            }
            other => {
                ann.model.handle(other).unwrap();
            }
        }
    }
    bob.step(Dir::ALL[0]).await; // may be refused by a wall; then wait instead
    bob.send(ClientMsg::Act(Action::Wait)).await;
    bob.next_view().await;
    assert_eq!(bob.model.seq, 1, "diffs continue from the resume snapshot");
    assert_eq!(bob.view().turn, 4);
    server.stop().await;
}

#[tokio::test]
async fn a_second_connection_with_the_token_replaces_the_first() {
    let server = TestServer::start(test_config()).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let _ = ann.next_view().await; // "Bob enters the dungeon."
    let token = bob.model.token.clone().unwrap();
    let bob_id = bob.id();

    let mut bob2 = Bot::join_with(&server.url, "ignored", "crypt", Some(token)).await;
    assert_eq!(bob2.id(), bob_id, "the same character");
    assert_eq!(&*bob2.view().me.name, "Bob");

    // The old connection is told why, then closed with 4000.
    let mut replaced = false;
    let code = loop {
        match bob.recv().await {
            Ok(ServerMsg::Error {
                code: delve_protocol::ErrorCode::Replaced,
                ..
            }) => replaced = true,
            Ok(_) => {}
            Err(delve_client::net::NetError::Closed { code, .. }) => break code,
            Err(e) => panic!("expected a close frame, got {e}"),
        }
    };
    assert!(replaced);
    assert_eq!(code, delve_protocol::close::REPLACED);

    // Nobody left, so nobody is told anyone came back: Ann's next update is the next turn.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    bob2.send(ClientMsg::Act(Action::Wait)).await;
    let events = ann.next_view().await;
    assert_eq!(ann.view().turn, 1);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::Message { text, .. } if text.contains("back"))),
        "{events:?}"
    );
    bob2.next_view().await;
    assert_eq!(bob2.view().turn, 1);
    assert_eq!(
        bob2.model.seq, 1,
        "the new connection's diffs continue from its welcome"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_choice_made_before_disconnecting_stands_and_its_timer_runs_on() {
    let mut config = test_config();
    config.turn_timeout = Duration::from_millis(200);
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let _ = ann.next_view().await; // "Bob enters the dungeon."

    // Bob chooses a step, then leaves before Ann has chosen.
    let dir = bob.open_dirs()[0];
    let (bob_from, bob_id, bob_token) = (bob.pos(), bob.id(), bob.model.token.clone());
    bob.step(dir).await;
    match ann.recv().await.unwrap() {
        ServerMsg::TurnStatus { waiting_for, .. } => {
            assert_eq!(waiting_for, vec!["Ann".to_string()])
        }
        other => panic!("expected turn_status, got {other:?}"),
    }
    bob.session.close().await;

    // Ann never chooses: the turn still resolves on the timer Bob's choice started, and Bob's
    // step happens.
    loop {
        ann.next_view().await;
        if ann.view().turn == 1 {
            break;
        }
    }
    let seen = ann.view().entity(bob_id).map(|e| e.pos);
    if let Some(p) = seen {
        assert_eq!(p, bob_from.step(dir), "Bob's accepted step was carried out");
    }
    let resumed = Bot::join_with(&server.url, "Bob", "crypt", bob_token).await;
    assert_eq!(resumed.pos(), bob_from.step(dir));
    server.stop().await;
}
