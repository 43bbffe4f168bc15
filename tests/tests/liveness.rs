//! A player whose link dies without a word (Wi-Fi gone, a NAT that forgot the connection, a
//! laptop lid shut) is noticed by the server's pings: the party panel says so, the floor stops
//! waiting for them, and the grace period runs as README says, ending with the character lifted
//! out. Through the real server over real sockets; the dead link is a TCP proxy that stops
//! forwarding anything, in either direction, without closing.

use std::time::Duration;

use delve_client::net::{NetEvent, NetThread};
use delve_protocol::{Action, ClientMsg, Dir, Event, Pos, ServerMsg};
use delve_tests::proxy::Proxy;
use delve_tests::{Bot, TestServer, hello_with, test_config, within};

/// Reads Ann's views until `seen` holds for one; returns every event on the way.
async fn until(ann: &mut Bot, seen: impl Fn(&Bot) -> bool) -> Vec<Event> {
    let mut events = Vec::new();
    while !seen(ann) {
        events.extend(ann.next_view().await);
    }
    events
}

fn said(events: &[Event], text: &str) -> bool {
    events
        .iter()
        .any(|e| matches!(e, Event::Message { text: t, .. } if t == text))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_dead_link_is_noticed_and_the_grace_period_runs() {
    // No turn timer: a turn waits for every connected player, so Ann's turn can only resolve
    // once the server knows Bob is gone. Short pings and grace keep the test quick; not so
    // short that a busy machine's late pong (two intervals, 1 s, are allowed) drops Cy.
    let server = TestServer::start(delve_server::net::ServerConfig {
        ping_interval: Duration::from_millis(500),
        grace: Duration::from_millis(500),
        ..test_config()
    })
    .await;
    let proxy = Proxy::start(server.addr()).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&proxy.url(), "Bob", "crypt").await;
    let bob_id = bob.id();
    // Both play a turn, so Bob's character is lifted out later rather than forgotten.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    bob.send(ClientMsg::Act(Action::Wait)).await;
    within(ann.until_turn(1)).await;
    within(bob.until_turn(1)).await;

    assert!(
        ann.view().entity(bob_id).is_some(),
        "Ann sees Bob beside her at the stair"
    );
    // Cy watches Ann through the game's own network thread, which reads all the time, as the
    // game does, and so answers every ping; he does nothing else for the rest of the test.
    let cy = NetThread::spawn(
        server.url.clone(),
        hello_with("Cy", "crypt", None, None, Some("Ann")),
    )
    .expect("a network thread");

    // Bob's link dies. Ann chooses; the turn waits for Bob until the server notices.
    proxy.cut();
    ann.send(ClientMsg::Act(Action::Wait)).await;
    let member = |ann: &Bot, connected: bool| {
        ann.view()
            .party
            .iter()
            .any(|m| m.id == bob_id && m.connected == connected)
    };
    let mut events = within(until(&mut ann, |a| a.view().turn == 2 && member(a, false))).await;
    assert!(
        said(&events, "Bob lost the connection; their character waits."),
        "{events:?}"
    );
    // Then the grace period runs out and Bob is lifted out of the floor (still in the party,
    // away), so nothing can kill him while his player is gone.
    while !said(&events, "Bob fades away until their player returns.") {
        events.extend(within(ann.next_view()).await);
    }
    assert!(ann.view().entity(bob_id).is_none() && member(&ann, false));
    assert_eq!(
        server.metric("delve_refusals_total{reason=\"dead_link\"}"),
        1.0,
        "one dead link, Bob's; none of Ann's quiet seconds counted"
    );
    // Ann, who answered every ping, plays on alone, and Cy, silent but for his pongs, is still
    // there after four more pings.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    within(ann.until_turn(3)).await;
    // (Ann keeps reading meanwhile, which is what answers pings: a bot that stops reading
    // would be taken for a dead link too.)
    let quiet = tokio::time::timeout(Duration::from_secs(2), ann.recv()).await;
    assert!(quiet.is_err(), "nothing happens meanwhile: {quiet:?}");
    let mut welcomed = false;
    while let Some(event) = cy.try_recv() {
        match event {
            NetEvent::Msg(m) => welcomed |= matches!(*m, ServerMsg::Welcome { .. }),
            NetEvent::Connected => {}
            other => panic!("Cy's quiet link was dropped: {other:?}"),
        }
    }
    assert!(welcomed, "Cy was let in to watch");
    assert_eq!(
        server.metric("delve_refusals_total{reason=\"dead_link\"}"),
        1.0
    );
    // And Bob's player, back on a working link, takes his character back.
    let token = bob.model.token.clone().expect("a token");
    drop(bob);
    let back = Bot::join_with(&server.url, "Bob", "crypt", Some(token)).await;
    assert_eq!(back.id(), bob_id);
    drop((ann, back, proxy, cy));
    server.stop().await;
}

/// Server pings counted over `span` on `ws`, sending a ping of our own every 100 ms if `talk`
/// (any frame shows the link is alive) and only answering the server's otherwise.
async fn pings_over(
    ws: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    talk: bool,
    span: Duration,
) -> usize {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let end = tokio::time::Instant::now() + span;
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    let mut pings = 0;
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(end) => return pings,
            _ = tick.tick(), if talk => ws.send(Message::Ping(Default::default())).await.expect("the link is up"),
            msg = ws.next() => match msg {
                // tungstenite queues the pong and sends it with the next write or flush.
                Some(Ok(Message::Ping(_))) => {
                    pings += 1;
                    ws.flush().await.expect("the pong goes out");
                }
                Some(Ok(_)) => {}
                other => panic!("the server dropped a live link: {other:?}"),
            },
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_heard_from_is_not_pinged_and_a_quiet_one_is() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let server = TestServer::start(delve_server::net::ServerConfig {
        ping_interval: Duration::from_millis(400),
        ..test_config()
    })
    .await;
    let (mut ws, _) = within(tokio_tungstenite::connect_async(server.url.as_str()))
        .await
        .expect("connects");
    let hello = serde_json::to_string(&hello_with("Ann", "crypt", None, None, None)).unwrap();
    ws.send(Message::text(hello)).await.expect("sends");
    loop {
        let msg = within(ws.next())
            .await
            .expect("a message")
            .expect("no error");
        if let Message::Text(text) = msg
            && matches!(
                delve_protocol::codec::decode_server(&text),
                Ok(ServerMsg::Welcome { .. })
            )
        {
            break;
        }
    }
    // Five ticks of the server's ping while Ann keeps talking: not one ping.
    let talking = within(pings_over(&mut ws, true, Duration::from_secs(2))).await;
    assert_eq!(talking, 0, "a client heard from is not pinged");
    // Five more while she only answers: pinged (at every tick once she has been quiet half an
    // interval), and her pongs keep her link.
    let quiet = within(pings_over(&mut ws, false, Duration::from_secs(2))).await;
    assert!(quiet >= 3, "a quiet client is pinged: {quiet}");
    let after = within(pings_over(&mut ws, false, Duration::from_secs(1))).await;
    assert!(after >= 1, "and still is, its link kept: {after}");
    drop(ws);
    server.stop().await;
}

/// A player whose game stops reading its socket (a frozen tab, a client stuck in a loop) while
/// its link stays up: the server writes what the socket takes and keeps a bounded backlog, the
/// dungeon never waits for it, and after a few seconds with the socket still full the
/// connection is dropped and the others play on. Until then what the client sends is still
/// read: a link slow for a moment does not stop its player acting. Zed's socket has a small
/// receive buffer and is never read after the welcome; Zed keeps stepping to and fro beside
/// Ann, so every turn sends Zed an update, and Ann sees whether his steps still arrive. Once
/// his backlog is full he also asks for the lobby's list and says hello again, whose answers
/// must not hold his steps up either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_dropped_and_the_game_goes_on() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let server = TestServer::start(delve_server::net::ServerConfig {
        msgs_per_sec: 1_000_000,
        msg_burst: 1_000_000,
        ..test_config()
    })
    .await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(server.addr()).await.unwrap();
    let (mut zed, _) = tokio_tungstenite::client_async(server.url.as_str(), stream)
        .await
        .expect("Zed's handshake");
    let hello = delve_protocol::encode(&hello_with("Zed", "crypt", None, None, None));
    zed.send(Message::text(hello)).await.unwrap();
    let welcome = within(zed.next())
        .await
        .unwrap()
        .unwrap()
        .into_text()
        .unwrap();
    assert!(welcome.contains(r#""type":"welcome""#), "{welcome}");
    let zed_connected = |ann: &Bot| {
        ann.view()
            .party
            .iter()
            .find(|m| &*m.name == "Zed")
            .map(|m| m.connected)
    };
    let zed_at = |ann: &Bot| {
        (ann.view().entities.iter())
            .find(|e| &*e.name == "Zed")
            .map(|e| e.pos)
    };
    within(until(&mut ann, |a| {
        zed_connected(a) == Some(true) && zed_at(a).is_some()
    }))
    .await;
    // Zed steps to a free cell beside him and back, again and again.
    let (view, from) = (ann.view(), zed_at(&ann).unwrap());
    let free = |p: Pos| view.map.get(p).is_walkable() && p != view.me.pos;
    let there = [Dir::N, Dir::E, Dir::S, Dir::W]
        .into_iter()
        .find(|&d| free(from.step(d)))
        .expect("a free cell beside Zed");
    let back = [Dir::N, Dir::E, Dir::S, Dir::W]
        .into_iter()
        .find(|&d| from.step(there).step(d) == from)
        .unwrap();
    let steps =
        [there, back].map(|dir| delve_protocol::encode(&ClientMsg::Act(Action::Move { dir })));
    let fell_behind = || async {
        let (_, metrics) = delve_tests::http::get_text(&server.url, "/metrics").await;
        let line = (metrics.lines()).find(|l| l.starts_with("delve_fell_behind_total "));
        line.and_then(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .expect("delve_fell_behind_total")
    };
    // The server gives a full socket a few seconds (its send deadline) before it drops it.
    let start = std::time::Instant::now();
    let mut turns = 0;
    // The turn at which the server's backlog for Zed was full, and how often Ann saw him step
    // after it.
    let (mut full_at, mut steps_after) = (None, 0);
    while zed_connected(&ann) == Some(true) {
        let was = zed_at(&ann);
        // Once the server is done with Zed this write fails; the game goes on without him.
        let _ = zed.send(Message::text(steps[turns % 2].clone())).await;
        ann.send(ClientMsg::Act(Action::Wait)).await;
        let turn = ann.view().turn + 1;
        within(ann.until_turn(turn)).await;
        turns += 1;
        if full_at.is_some() && zed_connected(&ann) == Some(true) && zed_at(&ann) != was {
            steps_after += 1;
        }
        if full_at.is_none() && turns % 50 == 0 && fell_behind().await > 0 {
            full_at = Some(turn);
            // Answers the server gives outside the game (the lobby's list, an error) go behind
            // the frames waiting for Zed, without holding up his steps either.
            let ask = delve_protocol::encode(&ClientMsg::ListDungeons);
            let _ = zed.send(Message::text(ask)).await;
            let again = delve_protocol::encode(&hello_with("Zed", "crypt", None, None, None));
            let _ = zed.send(Message::text(again)).await;
        }
        let waited = start.elapsed();
        assert!(
            waited < Duration::from_secs(60),
            "Zed still connected after {waited:?}"
        );
    }
    // His steps were still read once his socket had long stopped taking updates: turns went
    // on until his backlog filled, and he stepped in the turns after that.
    let full_at = full_at.expect("Zed's backlog never filled: his steps stopped being read");
    assert!(
        steps_after >= 50,
        "Zed stepped {steps_after} times after his backlog filled at turn {full_at}"
    );
    // Ann plays on alone: no turn waits for Zed.
    for _ in 0..3 {
        ann.send(ClientMsg::Act(Action::Wait)).await;
        let turn = ann.view().turn + 1;
        within(ann.until_turn(turn)).await;
    }
    // The server closed Zed's socket: what reached it ends, and it is not every update of
    // every turn (his socket and the server's took only so many; the rest were dropped).
    let mut read = 0usize;
    let ended = loop {
        match tokio::time::timeout(Duration::from_secs(10), zed.next()).await {
            Ok(Some(Ok(_))) => read += 1,
            Ok(_) => break true,
            Err(_) => break false,
        }
    };
    assert!(ended, "Zed's socket was left open after {read} frames");
    assert!(read < turns, "Zed got all {read} of {turns} updates");
    server.stop().await;
}
