//! Playing together over real sockets: a friend who lets the turn timer run out goes away, the
//! others' turns stop waiting for them, and their first message brings them back; a gift and
//! a Health Pack reach a friend next to you, and what breaks the rules is refused with its
//! reason; a fallen friend is brought back, keeps its name while it can be even after its
//! player left (and once back is lifted out after the grace period), and its wait runs while
//! friends play on another floor.

use std::time::Duration;

use delve_client::net::Session;
use delve_protocol::{
    Action, ClientMsg, EntityKind, ErrorCode, Event, ItemUse, Reason, ServerMsg, Tile,
};
use delve_tests::walk::{act, fetch_items, frontier, lines, step_towards, strewn_with};
use delve_tests::{Bot, TestServer, assert_no_leaks, within};

/// Ann and Bob each choose to wait; returns Ann's events of the turn, and every `turn_status`
/// Ann was sent while the floor chose it.
async fn both_wait(ann: &mut Bot, bob: &mut Bot) -> (Vec<Event>, Vec<Vec<String>>) {
    let turn = ann.view().turn + 1;
    ann.send(ClientMsg::Act(Action::Wait)).await;
    bob.send(ClientMsg::Act(Action::Wait)).await;
    let mut statuses = Vec::new();
    let mut events = Vec::new();
    while ann.view().turn < turn {
        let msg = ann.recv().await.expect("Ann's connection");
        if let ServerMsg::TurnStatus { waiting_for, .. } = &msg {
            statuses.push(waiting_for.clone());
        }
        events.extend(ann.model.handle(msg).expect("a good message").events);
    }
    bob.until_turn(turn).await;
    (events, statuses)
}

#[tokio::test]
async fn an_idle_friend_goes_away_and_is_back_on_its_first_message() {
    let mut config = strewn_with("health_pack");
    config.turn_timeout = Duration::from_millis(300);
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "evening").await;
    let mut bob = Bot::join(&server.url, "Bob", "evening").await;
    let mut carol = Bot::join(&server.url, "Carol", "evening").await;
    let carol_id = carol.id();
    for b in [&mut ann, &mut bob] {
        while b.view().party.len() < 3 {
            b.next_view().await;
        }
    }

    // Carol reads the chat: the first turns wait out the timer for her, then she is away.
    let mut told = Vec::new();
    for _ in 0..6 {
        let (events, _) = both_wait(&mut ann, &mut bob).await;
        told.extend(lines(&events));
        if ann.view().party.iter().any(|m| m.id == carol_id && m.away) {
            break;
        }
    }
    assert!(
        told.contains(&"Carol is away: the floor no longer waits for them.".to_string()),
        "{told:?}"
    );
    // From now on nobody waits for her: no turn status ever names her.
    for _ in 0..4 {
        let (_, statuses) = both_wait(&mut ann, &mut bob).await;
        assert!(
            statuses.iter().all(|w| !w.contains(&"Carol".to_string())),
            "{statuses:?}"
        );
    }
    let turn = ann.view().turn;
    carol.until_turn(turn).await;
    assert!(carol.view().me.away, "Carol's own view says she is away");
    assert!(
        (carol.model.log.iter()).any(|l| l.text
            == "You are away: the floor goes on without you, and your character waits each turn until you do something.")
    );

    // Her first message brings her back, and the floor waits for her again.
    carol.send(ClientMsg::Act(Action::Wait)).await;
    let (events, _) = both_wait(&mut ann, &mut bob).await;
    assert!(
        lines(&events).contains(&"Carol is back: the floor waits for them again.".to_string()),
        "{events:?}"
    );
    assert!(!ann.view().party.iter().any(|m| m.away));
    carol.until_turn(turn + 1).await;
    assert!(!carol.view().me.away);
    for b in [&ann, &bob, &carol] {
        assert_no_leaks(&b.name, b.view());
    }
}

/// A server whose floors are strewn with Health Packs, on a short timer (an idle friend is soon
/// away), and Ann and Bob in dungeon `dungeon`, Ann told of Bob.
async fn ann_and_bob_among_health_packs(dungeon: &str) -> (TestServer, Bot, Bot) {
    let mut config = strewn_with("health_pack");
    config.turn_timeout = Duration::from_millis(300);
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", dungeon).await;
    let bob = Bot::join(&server.url, "Bob", dungeon).await;
    while ann.view().party.len() < 2 {
        ann.next_view().await;
    }
    (server, ann, bob)
}

/// A friend's place is told once: as an entity while in sight, as the party member's `pos`
/// once out of sight (for the minimap and for going to them), and right.
#[tokio::test]
async fn a_friend_out_of_sight_is_placed_by_the_party_and_in_sight_by_the_view() {
    let (_server, mut ann, mut bob) = ann_and_bob_among_health_packs("apart").await;
    let bob_id = bob.id();
    let bob_member = |v: &delve_protocol::View| {
        (v.party.iter().find(|m| m.id == bob_id).cloned()).expect("Bob in Ann's party")
    };
    // They arrive side by side: Bob is in sight, and only the view's entity says where.
    assert!(
        ann.view().entity(bob_id).is_some(),
        "Bob starts in Ann's sight"
    );
    assert_eq!(bob_member(ann.view()).pos, None);
    assert_eq!(ann.view().friend_pos(bob_id), Some(bob.view().me.pos));

    // Ann explores (Bob stays, away soon) until she no longer sees him.
    for _ in 0..400 {
        if ann.view().entity(bob_id).is_none() {
            break;
        }
        let dir = step_towards(ann.view(), false, |p| frontier(ann.view(), p))
            .expect("somewhere to explore");
        act(&mut ann, ClientMsg::Act(Action::Move { dir })).await;
        assert_no_leaks("Ann", ann.view());
    }
    assert!(
        ann.view().entity(bob_id).is_none(),
        "Ann walked out of Bob's sight"
    );
    bob.until_turn(ann.view().turn).await;
    assert_eq!(bob_member(ann.view()).pos, Some(bob.view().me.pos));
    assert_eq!(ann.view().friend_pos(bob_id), Some(bob.view().me.pos));

    // And back: in sight again, the party stops saying it.
    let at = bob.view().me.pos;
    for _ in 0..400 {
        if ann.view().entity(bob_id).is_some() {
            break;
        }
        let dir =
            step_towards(ann.view(), false, |p| p.chebyshev(at) <= 1).expect("a way back to Bob");
        act(&mut ann, ClientMsg::Act(Action::Move { dir })).await;
        assert_no_leaks("Ann", ann.view());
    }
    assert!(ann.view().entity(bob_id).is_some(), "Bob in sight again");
    assert_eq!(bob_member(ann.view()).pos, None);
}

#[tokio::test]
async fn a_gift_and_a_health_pack_reach_a_friend_next_to_you() {
    let (_server, mut ann, mut bob) = ann_and_bob_among_health_packs("gifts").await;
    let bob_id = bob.id();
    // Bob stays where he arrived (away soon: Ann's turns do not wait for him); Ann fetches two
    // Health Packs and comes back to stand next to him.
    fetch_items(&mut ann, 2).await;
    for _ in 0..200 {
        let bob_at = (ann.view().friend_pos(bob_id)).expect("Bob's place, on Ann's floor");
        if ann.view().me.pos.chebyshev(bob_at) <= 1 {
            break;
        }
        let dir = step_towards(ann.view(), false, |p| p.chebyshev(bob_at) <= 1)
            .expect("a way back to Bob");
        act(&mut ann, ClientMsg::Act(Action::Move { dir })).await;
    }
    let turn = ann.view().turn;
    bob.until_turn(turn).await;
    let packs: Vec<u32> = (ann.view().inventory.iter())
        .filter(|i| i.use_ == ItemUse::Heal)
        .map(|i| i.id)
        .collect();
    assert!(!packs.is_empty(), "{:?}", ann.view().inventory);
    let pack = packs[0];

    // Refused with their reasons: to herself, to nobody, a Health Pack on a friend at full
    // health.
    let me = ann.id();
    ann.send(ClientMsg::Act(Action::Give { item: pack, to: me }))
        .await;
    assert_eq!(ann.next_reason().await, Some(Reason::Yourself));
    ann.send(ClientMsg::Act(Action::Give {
        item: pack,
        to: 999,
    }))
    .await;
    assert_eq!(ann.next_reason().await, Some(Reason::NoSuchFriend));
    ann.send(ClientMsg::Act(Action::UseOn {
        item: pack,
        on: bob_id,
    }))
    .await;
    let (code, message) = ann.next_error().await;
    assert_eq!(
        (code, message.as_str()),
        (ErrorCode::Rejected, "Bob is already at full health.")
    );
    assert_eq!(ann.view().turn, turn, "refusals change nothing");

    // The gift.
    let events = act(
        &mut ann,
        ClientMsg::Act(Action::Give {
            item: pack,
            to: bob_id,
        }),
    )
    .await;
    assert!(
        lines(&events).contains(&"You give the Health Pack to Bob.".to_string()),
        "{events:?}"
    );
    assert!(ann.view().inventory.iter().all(|i| i.id != pack));
    let bob_events = bob.until_turn(turn + 1).await;
    assert!(bob.view().inventory.iter().any(|i| i.id == pack));
    assert!(
        lines(&bob_events).contains(&"Ann gives you a Health Pack.".to_string()),
        "{bob_events:?}"
    );
    for b in [&ann, &bob] {
        assert_no_leaks(&b.name, b.view());
    }
}

/// A server whose floors are strewn with Pipe Bombs and Health Packs (40 a floor), without
/// monsters, where a character has 5 HP: one bomb fells anyone it reaches.
fn bombs_and_packs() -> delve_server::net::ServerConfig {
    let mut config = strewn_with("pipe_bomb");
    let mut c = (*config.content).clone();
    for it in &mut c.items {
        it.loose = ["pipe_bomb", "health_pack"].contains(&&*it.key);
    }
    c.player.hp = 5;
    config.content = std::sync::Arc::new(c);
    config.turn_timeout = Duration::from_millis(300);
    config
}

/// Ann fetches a Pipe Bomb and a Health Pack, fells Bob with the bomb (from out of its blast)
/// and sees his remains: where they lie, and her Health Pack.
async fn ann_fells_bob(ann: &mut Bot, bob_id: u32) -> (delve_protocol::Pos, u32) {
    while ann.view().party.len() < 2 {
        ann.next_view().await;
    }
    let carried = |b: &Bot, what: ItemUse, key: &str| {
        (b.view().inventory.iter())
            .find(|i| i.use_ == what && &*i.key == key)
            .map(|i| i.id)
    };
    let mut n = 1;
    while carried(ann, ItemUse::Throw, "pipe_bomb").is_none()
        || carried(ann, ItemUse::Heal, "health_pack").is_none()
    {
        assert!(n < 12, "{:?}", ann.view().inventory);
        fetch_items(ann, n).await;
        n += 1;
    }
    let bomb = carried(ann, ItemUse::Throw, "pipe_bomb").unwrap();
    let pack = carried(ann, ItemUse::Heal, "health_pack").unwrap();

    // Ann goes to where she sees Bob from two or three steps off, out of the blast, and
    // throws the bomb at him (Bob, idle, is away by now: her turns do not wait for him).
    let bob_at = |a: &Bot| (a.view().friend_pos(bob_id)).expect("Bob's place, on Ann's floor");
    for _ in 0..200 {
        let (me, at) = (ann.view().me.pos, bob_at(ann));
        let d = me.chebyshev(at);
        if (2..=3).contains(&d) && ann.view().is_visible(at) {
            break;
        }
        let dir = step_towards(ann.view(), false, |p| p.chebyshev(at) == 2).expect("a way to Bob");
        act(ann, ClientMsg::Act(Action::Move { dir })).await;
    }
    let at = bob_at(ann);
    let events = act(ann, ClientMsg::Act(Action::Throw { item: bomb, at })).await;
    let told = lines(&events);
    assert!(
        told.iter().any(|l| l.starts_with(
            "Bob has fallen on floor 1! A friend with a Health Pack can bring them back within"
        )),
        "{told:?}"
    );
    let remains = ann.view().entity(bob_id).expect("Ann sees Bob's remains");
    assert_eq!((remains.kind, remains.pos), (EntityKind::Remains, at));
    (at, pack)
}

/// Ann walks next to Bob's remains at `at` and uses her Health Pack on them: her events.
async fn ann_brings_bob_back(
    ann: &mut Bot,
    bob_id: u32,
    at: delve_protocol::Pos,
    pack: u32,
) -> Vec<Event> {
    for _ in 0..50 {
        if ann.view().me.pos.chebyshev(at) <= 1 {
            break;
        }
        let dir = step_towards(ann.view(), false, |p| p.chebyshev(at) <= 1)
            .expect("a way to the remains");
        act(ann, ClientMsg::Act(Action::Move { dir })).await;
    }
    let events = act(
        ann,
        ClientMsg::Act(Action::UseOn {
            item: pack,
            on: bob_id,
        }),
    )
    .await;
    assert!(
        lines(&events).contains(&"You bring Bob back!".to_string()),
        "{events:?}"
    );
    let standing = ann.view().entity(bob_id).expect("Bob stands beside Ann");
    assert_eq!(standing.kind, EntityKind::Player);
    events
}

#[tokio::test]
async fn a_friend_fallen_to_a_bomb_is_brought_back_with_a_health_pack() {
    let server = TestServer::start(bombs_and_packs()).await;
    let mut ann = Bot::join(&server.url, "Ann", "rescue").await;
    let mut bob = Bot::join(&server.url, "Bob", "rescue").await;
    let bob_id = bob.id();
    let (at, pack) = ann_fells_bob(&mut ann, bob_id).await;
    let turn = ann.view().turn;
    bob.until_turn(turn).await;
    assert!(!bob.view().me.alive);
    let left = bob.view().me.revive_turns.expect("Bob can be brought back");
    assert!(left > 0, "{left}");
    assert!(
        (bob.model.log.iter()).any(|l| l.text.starts_with("A friend can still bring you back")),
        "Bob is told help can come"
    );
    // A dead friend takes no gifts.
    let to_bob = Action::Give {
        item: pack,
        to: bob_id,
    };
    ann.send(ClientMsg::Act(to_bob)).await;
    let reason = ann.next_reason().await;
    assert!(
        matches!(reason, Some(Reason::FriendFallen | Reason::NotNextTo)),
        "{reason:?}"
    );

    // Ann walks to the remains and uses her Health Pack on them.
    ann_brings_bob_back(&mut ann, bob_id, at, pack).await;
    let turn = ann.view().turn;
    let bob_events = bob.until_turn(turn).await;
    assert!(
        lines(&bob_events).contains(&"Ann brings you back! You live again, weakened.".to_string()),
        "{bob_events:?}"
    );
    let me = &bob.view().me;
    assert!(me.alive && me.cause.is_none() && me.revive_turns.is_none());
    assert_eq!(me.hp, (me.max_hp / 4).max(1));
    // And he plays on.
    bob.send(ClientMsg::Act(Action::Wait)).await;
    act(&mut ann, ClientMsg::Act(Action::Wait)).await;
    bob.until_turn(turn + 1).await;
    for b in [&ann, &bob] {
        assert_no_leaks(&b.name, b.view());
    }
}

#[tokio::test]
async fn a_fallen_friend_whose_player_left_keeps_its_name_and_once_back_is_lifted_out() {
    let mut config = bombs_and_packs();
    config.grace = Duration::from_millis(300);
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "rescue").await;
    let bob = Bot::join(&server.url, "Bob", "rescue").await;
    let (bob_id, bob_token) = (bob.id(), bob.model.token.clone().expect("a token"));
    // Bob never plays a turn: brought back, he is still lifted out, not forgotten as a
    // character made and never played.
    let (at, pack) = ann_fells_bob(&mut ann, bob_id).await;
    // Bob's player leaves while he lies fallen.
    drop(bob);
    let gone = |a: &Bot| (a.view().party.iter()).any(|m| m.id == bob_id && !m.connected);
    while !gone(&ann) {
        within(ann.next_view()).await;
    }
    // Nobody new may take his name while Ann can still bring him back.
    match within(Session::join(&server.url, "bob", "rescue", None)).await {
        Ok((_, ServerMsg::Error { code, .. })) => assert_eq!(code, ErrorCode::NameTaken),
        other => panic!("a second Bob could join: {other:?}"),
    }
    // Ann brings him back: he stands, his player gone, and waits out the grace period like
    // anyone who lost the connection; then he is lifted out of the floor.
    ann_brings_bob_back(&mut ann, bob_id, at, pack).await;
    while ann.view().entity(bob_id).is_some() {
        within(ann.next_view()).await;
    }
    let member = (ann.view().party.iter())
        .find(|m| m.id == bob_id)
        .expect("Bob is still in the party");
    assert!(member.alive && !member.connected, "{member:?}");
    // His player comes back to him with the token, alive.
    let bob = Bot::join_with(&server.url, "Bob", "rescue", Some(bob_token)).await;
    assert_eq!(bob.id(), bob_id);
    assert!(bob.view().me.alive);
    for b in [&ann, &bob] {
        assert_no_leaks(&b.name, b.view());
    }
}

#[tokio::test]
async fn the_time_to_bring_a_friend_back_runs_while_friends_play_on_another_floor() {
    let mut config = bombs_and_packs();
    let mut c = (*config.content).clone();
    // Long enough for Ann to find the way down first.
    c.party.revive_turns = 3000;
    config.content = std::sync::Arc::new(c);
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "apart").await;
    let mut bob = Bot::join(&server.url, "Bob", "apart").await;
    let bob_id = bob.id();
    ann_fells_bob(&mut ann, bob_id).await;
    // Ann finds the way down and takes it: nobody is left on floor 1.
    for _ in 0..1500 {
        let v = ann.view();
        if v.map.get(v.me.pos) == Tile::StairsDown {
            break;
        }
        let known = v.map.cells().contains(&Tile::StairsDown);
        let dir = match known {
            true => step_towards(v, true, |p| v.map.get(p) == Tile::StairsDown),
            false => step_towards(v, true, |p| frontier(v, p)),
        }
        .expect("a way on");
        act(&mut ann, ClientMsg::Act(Action::Move { dir })).await;
    }
    ann.send(ClientMsg::Act(Action::Descend)).await;
    while ann.view().me.depth != 2 {
        within(ann.next_view()).await;
    }
    let bob_left = |a: &Bot| {
        (a.view().party.iter())
            .find(|m| m.id == bob_id)
            .and_then(|m| m.revive_turns)
            .expect("Bob can still be brought back")
    };
    // Every turn Ann plays on floor 2 counts down Bob's wait, in her party panel and his own.
    let before = bob_left(&ann);
    for _ in 0..5 {
        act(&mut ann, ClientMsg::Act(Action::Wait)).await;
    }
    let after = bob_left(&ann);
    assert_eq!(after, before - 5);
    while bob.view().me.revive_turns != Some(after) {
        let seen = bob.view().me.revive_turns;
        assert!(seen.is_none_or(|t| t > after), "Bob saw {seen:?}");
        within(bob.next_view()).await;
    }
    for b in [&ann, &bob] {
        assert_no_leaks(&b.name, b.view());
    }
}

#[tokio::test]
async fn a_marked_spot_reaches_a_friend_on_the_floor_at_once() {
    let (_server, mut ann, mut bob) = ann_and_bob_among_health_packs("look").await;
    // A cell Ann has never seen is refused, and changes nothing.
    ann.send(ClientMsg::Mark {
        at: delve_protocol::Pos::new(0, 0),
    })
    .await;
    assert_eq!(ann.next_reason().await, Some(Reason::UnknownCell));
    // One she sees reaches Bob at once, with no turn taken.
    let at = ann.view().me.pos;
    let turn = ann.view().turn;
    ann.send(ClientMsg::Mark { at }).await;
    let events = bob.next_view().await;
    assert!(
        lines(&events).contains(&"Ann marks a spot: look here.".to_string()),
        "{events:?}"
    );
    let marks = &bob.view().marks;
    assert_eq!(marks.len(), 1, "{marks:?}");
    assert_eq!(
        (marks[0].by, &*marks[0].name, marks[0].pos),
        (ann.id(), "Ann", at)
    );
    assert_eq!(bob.view().turn, turn, "marking takes no turn");
    ann.next_view().await;
    assert_eq!(ann.view().marks.len(), 1);
    for b in [&ann, &bob] {
        assert_no_leaks(&b.name, b.view());
    }
}
