//! Bad input gets a clear error and changes nothing: wrong versions, junk frames, unknown types,
//! oversized frames, impossible moves. The connection (where it should) and the dungeon go on.

use delve_client::net::{NetError, Session};
use delve_protocol::Action;
use delve_protocol::{ClientMsg, Dir, ErrorCode, PROTOCOL_VERSION, ServerMsg};
use delve_tests::{Bot, TestServer, test_config, within};
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn a_wrong_protocol_version_gets_an_error_naming_both_versions_then_a_close() {
    let server = TestServer::start(test_config()).await;
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    let theirs = PROTOCOL_VERSION + 41;
    s.send(&ClientMsg::Hello {
        version: theirs,
        name: "Old".into(),
        dungeon: "crypt".into(),
        token: None,
        password: None,
        watch: None,
    })
    .await
    .unwrap();
    match within(s.recv()).await.unwrap() {
        ServerMsg::Error { code, message, .. } => {
            assert_eq!(code, ErrorCode::BadVersion);
            assert!(message.contains(&theirs.to_string()), "{message}");
            assert!(message.contains(&PROTOCOL_VERSION.to_string()), "{message}");
        }
        other => panic!("expected an error, got {other:?}"),
    }
    match within(s.recv()).await {
        Err(NetError::Closed { code, .. }) => assert_eq!(code, delve_protocol::close::VERSION),
        other => panic!("expected a close, got {other:?}"),
    }
    server.stop().await;
}

#[tokio::test]
async fn junk_frames_get_errors_while_the_connection_and_the_dungeon_go_on() {
    let server = TestServer::start(test_config()).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    // Bob's arrival may be visible to Ann: settle that update first.
    let _ = ann.next_view().await;

    let cases: [(Message, ErrorCode); 6] = [
        (Message::text("this is not json"), ErrorCode::Malformed),
        (Message::text("[1,2,3]"), ErrorCode::Malformed),
        (
            Message::text(r#"{"type":"dance","style":"jig"}"#),
            ErrorCode::UnknownType,
        ),
        (
            Message::text(r#"{"type":"move","dir":"up"}"#),
            ErrorCode::BadFields,
        ),
        (
            Message::text(r#"{"type":"hello","version":3,"name":"Ann","dungeon":"crypt"}"#),
            ErrorCode::BadHandshake,
        ),
        (
            Message::binary(vec![0u8, 159, 146, 150]),
            ErrorCode::BinaryFrame,
        ),
    ];
    for (frame, want) in cases {
        let shown = format!("{frame:?}");
        within(ann.session.send_raw(frame)).await.unwrap();
        let (code, message) = ann.next_error().await;
        assert_eq!(code, want, "for {shown}: {message}");
        assert!(!message.is_empty());
    }
    let unknown = r#"{"type":"dance"}"#;
    within(ann.session.send_raw(Message::text(unknown)))
        .await
        .unwrap();
    let (_, message) = ann.next_error().await;
    assert!(
        message.contains("dance") && message.contains("move"),
        "{message}"
    );

    // Still connected, still in the dungeon: a turn resolves for both.
    let (a0, b0) = (ann.view().turn, bob.view().turn);
    ann.send(ClientMsg::Act(Action::Wait)).await;
    bob.send(ClientMsg::Act(Action::Wait)).await;
    ann.next_view().await;
    bob.next_view().await;
    assert_eq!(ann.view().turn, a0 + 1);
    assert_eq!(bob.view().turn, b0 + 1);
    server.stop().await;
}

#[tokio::test]
async fn an_oversized_frame_closes_that_connection_with_1009_and_nothing_else() {
    let server = TestServer::start(test_config()).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let _ = ann.next_view().await;

    let huge = format!(r#"{{"type":"wait","pad":"{}"}}"#, "x".repeat(64 * 1024));
    within(bob.session.send_raw(Message::text(huge)))
        .await
        .unwrap();
    let mut saw_error = false;
    let closed = loop {
        match bob.recv().await {
            Ok(ServerMsg::Error { code, .. }) => {
                assert_eq!(code, ErrorCode::TooLarge);
                saw_error = true;
            }
            Ok(_) => {}
            Err(NetError::Closed { code, .. }) => break code,
            Err(e) => panic!("expected a close frame, got {e}"),
        }
    };
    assert!(saw_error, "no too_large error before the close");
    assert_eq!(closed, delve_protocol::close::TOO_BIG);

    // Bob is gone (his character waits, disconnected); Ann's turns resolve without him.
    let t0 = ann.view().turn;
    ann.send(ClientMsg::Act(Action::Wait)).await;
    loop {
        ann.next_view().await;
        if ann.view().turn > t0 {
            break;
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn bad_names_are_refused_and_a_good_hello_on_the_same_connection_works() {
    let server = TestServer::start(test_config()).await;
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    let bad = [
        ("", "crypt", ErrorCode::BadName),
        ("a\u{1}b", "crypt", ErrorCode::BadName),
        ("Twenty-one characters", "crypt", ErrorCode::BadName),
        ("Ann", "../etc", ErrorCode::BadDungeon),
        ("Ann", "", ErrorCode::BadDungeon),
    ];
    for (name, dungeon, want) in bad {
        s.send(&delve_client::net::hello(name, dungeon, None))
            .await
            .unwrap();
        match within(s.recv()).await.unwrap() {
            ServerMsg::Error { code, .. } => assert_eq!(code, want, "{name:?} / {dungeon:?}"),
            other => panic!("expected an error for {name:?} / {dungeon:?}, got {other:?}"),
        }
    }
    s.send(&ClientMsg::Act(Action::Wait)).await.unwrap();
    match within(s.recv()).await.unwrap() {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::BadHandshake),
        other => panic!("expected an error, got {other:?}"),
    }
    s.send(&delve_client::net::hello("Ann", "crypt", None))
        .await
        .unwrap();
    assert!(matches!(
        within(s.recv()).await.unwrap(),
        ServerMsg::Welcome { .. }
    ));
    server.stop().await;
}

#[tokio::test]
async fn a_wrong_token_and_a_taken_name_are_refused() {
    let server = TestServer::start(test_config()).await;
    let _ann = Bot::join(&server.url, "Ann", "crypt").await;
    let (_, first) = within(Session::join(
        &server.url,
        "Zed",
        "crypt",
        Some("00".repeat(16)),
    ))
    .await
    .unwrap();
    assert!(
        matches!(
            first,
            ServerMsg::Error {
                code: ErrorCode::BadToken,
                ..
            }
        ),
        "{first:?}"
    );
    // A token never creates a dungeon: the name of a dungeon nobody made gets bad_token, and
    // the server still holds only one.
    let (_, first) = within(Session::join(
        &server.url,
        "Zed",
        "nowhere",
        Some("ab".repeat(16)),
    ))
    .await
    .unwrap();
    assert!(
        matches!(
            first,
            ServerMsg::Error {
                code: ErrorCode::BadToken,
                ..
            }
        ),
        "{first:?}"
    );
    assert_eq!(server.dungeons(), 1);
    let (_, first) = within(Session::join(&server.url, "ann", "crypt", None))
        .await
        .unwrap();
    assert!(
        matches!(
            first,
            ServerMsg::Error {
                code: ErrorCode::NameTaken,
                ..
            }
        ),
        "{first:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_name_that_looks_like_anothers_is_refused_and_a_different_one_is_not() {
    let server = TestServer::start(test_config()).await;
    let _pop = Bot::join(&server.url, "Pop", "crypt").await;
    // All Cyrillic (Р, о, р): one script, so the name itself is fine, but it reads as "Pop".
    let (_, first) = within(Session::join(
        &server.url,
        "\u{0420}\u{043E}\u{0440}",
        "crypt",
        None,
    ))
    .await
    .unwrap();
    match first {
        ServerMsg::Error {
            code: ErrorCode::NameTaken,
            message,
            ..
        } => assert!(message.contains("looks the same as Pop"), "{message}"),
        other => panic!("expected name_taken, got {other:?}"),
    }
    // A Cyrillic name that imitates nobody, and the same look-alike in another dungeon, join.
    let (_, first) = within(Session::join(
        &server.url,
        "\u{0417}\u{043E}\u{044F}",
        "crypt",
        None,
    ))
    .await
    .unwrap();
    assert!(matches!(first, ServerMsg::Welcome { .. }), "{first:?}");
    let (_, first) = within(Session::join(
        &server.url,
        "\u{0420}\u{043E}\u{0440}",
        "vault",
        None,
    ))
    .await
    .unwrap();
    assert!(matches!(first, ServerMsg::Welcome { .. }), "{first:?}");
    server.stop().await;
}

#[tokio::test]
async fn walking_into_a_wall_is_refused_and_changes_nothing() {
    let server = TestServer::start(test_config()).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    // Walk north until a wall is next.
    for _ in 0..50 {
        let v = ann.view();
        if !v.map.get(v.me.pos.step(Dir::N)).is_walkable() {
            break;
        }
        ann.step(Dir::N).await;
        ann.next_view().await;
    }
    let v = ann.view().clone();
    assert!(
        !v.map.get(v.me.pos.step(Dir::N)).is_walkable(),
        "no wall north within 50 steps"
    );
    ann.step(Dir::N).await;
    let (code, message) = ann.next_error().await;
    assert_eq!(code, ErrorCode::Rejected);
    assert!(message.contains("wall"), "{message}");
    // Nothing was queued: a wait now resolves turn 1 with Ann where she stood.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    ann.next_view().await;
    assert_eq!(ann.view().turn, v.turn + 1);
    assert_eq!(ann.pos(), v.me.pos);
    server.stop().await;
}

#[tokio::test]
async fn a_message_flood_is_limited_then_closed() {
    let mut config = test_config();
    config.msgs_per_sec = 5;
    config.msg_burst = 5;
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    // Far more than the burst, as fast as the socket takes them.
    for _ in 0..400 {
        if ann.session.send(&ClientMsg::Resync).await.is_err() {
            break;
        }
    }
    let mut rate_limited = false;
    let closed = loop {
        match ann.recv().await {
            Ok(ServerMsg::Error {
                code: ErrorCode::RateLimited,
                ..
            }) => rate_limited = true,
            Ok(_) => {}
            Err(NetError::Closed { code, .. }) => break Some(code),
            Err(_) => break None,
        }
    };
    assert!(rate_limited, "no rate_limited error before the close");
    assert_eq!(closed, Some(delve_protocol::close::POLICY));
    // The server is fine: someone else joins.
    let _bob = Bot::join(&server.url, "Bob", "crypt").await;
    server.stop().await;
}

#[tokio::test]
async fn a_silent_connection_is_dropped_but_a_lobby_that_keeps_asking_is_not() {
    let mut config = test_config();
    // Long beside the asking interval below, so a stalled machine cannot fail the test.
    config.handshake_timeout = std::time::Duration::from_millis(1000);
    let server = TestServer::start(config).await;

    // Says nothing: told why, then closed 1008.
    let mut silent = within(Session::connect(&server.url)).await.unwrap();
    match within(silent.recv()).await.unwrap() {
        ServerMsg::Error { code, message, .. } => {
            assert_eq!(code, ErrorCode::BadHandshake);
            assert!(message.contains("hello"), "{message}");
        }
        other => panic!("expected an error, got {other:?}"),
    }
    match within(silent.recv()).await {
        Err(NetError::Closed { code, .. }) => assert_eq!(code, delve_protocol::close::POLICY),
        other => panic!("expected a close, got {other:?}"),
    }

    // A lobby asks every 200 ms for three deadlines' worth: every ask is answered, so it was
    // never cut off; then it goes quiet and is dropped like any other.
    let mut lobby = within(Session::connect(&server.url)).await.unwrap();
    let started = std::time::Instant::now();
    let mut asked = 0;
    while started.elapsed() < 3 * std::time::Duration::from_millis(1000) {
        within(lobby.send(&ClientMsg::ListDungeons)).await.unwrap();
        match within(lobby.recv()).await.unwrap() {
            ServerMsg::Dungeons { .. } => asked += 1,
            other => panic!("ask {asked}: expected dungeons, got {other:?}"),
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert!(asked >= 10, "{asked}");
    match within(lobby.recv()).await.unwrap() {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::BadHandshake),
        other => panic!("expected an error, got {other:?}"),
    }
    match within(lobby.recv()).await {
        Err(NetError::Closed { code, .. }) => assert_eq!(code, delve_protocol::close::POLICY),
        other => panic!("expected a close, got {other:?}"),
    }
    server.stop().await;
}
