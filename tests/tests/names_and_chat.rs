//! Names cannot imitate another with letters of a second script or with invisible characters,
//! and chat reaches others without bidirectional overrides or invisible characters: checked
//! through a real server, with Ann already in the dungeon.

use delve_client::net::{Session, hello};
use delve_protocol::{ClientMsg, ErrorCode, Event, ServerMsg};
use delve_tests::{Bot, TestServer, test_config, within};

#[tokio::test]
async fn look_alike_and_invisible_names_are_refused() {
    let server = TestServer::start(test_config()).await;
    let _ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    for name in [
        "\u{0410}nn",          // a Cyrillic А, then Latin: looks like Ann
        "\u{0391}nn",          // a Greek Α
        "An\u{200B}n",         // a zero-width space
        "Ann\u{202E}",         // a right-to-left override
        "\u{2066}Ann\u{2069}", // a bidirectional isolate
        "Ann\u{FEFF}",         // a byte order mark
        "Ann\u{3164}",         // the Hangul filler, a letter that shows nothing
    ] {
        s.send(&hello(name, "crypt", None)).await.unwrap();
        match within(s.recv()).await.unwrap() {
            ServerMsg::Error { code, message, .. } => {
                assert_eq!(code, ErrorCode::BadName, "{name:?}: {message}");
            }
            other => panic!("{name:?} was let in: {other:?}"),
        }
    }
    // One script, letters beyond ASCII included, is fine; the same connection joins.
    s.send(&hello("Зоя", "crypt", None)).await.unwrap();
    assert!(matches!(
        within(s.recv()).await.unwrap(),
        ServerMsg::Welcome { .. }
    ));
    server.stop().await;
}

#[tokio::test]
async fn chat_reaches_others_without_overrides_or_invisible_characters() {
    let server = TestServer::start(test_config()).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let _ = ann.next_view().await;

    bob.send(ClientMsg::Chat {
        text: "gg \u{202E}lol\u{202C} \u{200B}é\u{2067}!\u{2069}\u{FEFF}".into(),
    })
    .await;
    let heard = loop {
        let line = ann.next_view().await.into_iter().find_map(|e| match e {
            Event::Chat { from, text } => Some((from, text)),
            _ => None,
        });
        if let Some(line) = line {
            break line;
        }
    };
    assert_eq!(heard, ("Bob".to_string(), "gg lol é!".to_string()));

    // Nothing but invisible characters is an empty line: refused, sent to nobody.
    bob.send(ClientMsg::Chat {
        text: "\u{202E}\u{200B}".into(),
    })
    .await;
    let (code, message) = bob.next_error().await;
    assert_eq!(code, ErrorCode::Rejected, "{message}");
    server.stop().await;
}
