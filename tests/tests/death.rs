//! Death through the real server: a fragile character dies to monsters, its player sees how,
//! watches from where it fell, and starts a new character that plays on.

use delve_protocol::Action;
use std::sync::Arc;

use delve_protocol::{ClientMsg, ErrorCode, ServerMsg};
use delve_server::game::Content;
use delve_tests::{Bot, TestServer, test_config};

#[tokio::test]
async fn a_dead_player_sees_how_and_starts_a_new_character_that_plays_on() {
    let mut content = Content::builtin();
    content.player.hp = 2;
    content.spawn.count = 24;
    content.spawn.safe_distance = 2;
    let mut config = test_config();
    config.content = Arc::new(content);
    config.msgs_per_sec = 100_000;
    config.msg_burst = 100_000;
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let first_id = ann.id();

    // Wait for the mice to come.
    let mut turns = 0;
    while ann.view().me.alive {
        assert!(turns < 500, "nothing came to kill Ann");
        ann.send(ClientMsg::Act(Action::Wait)).await;
        ann.next_view().await;
        turns += 1;
    }
    let me = ann.view().me.clone();
    let cause = me.cause.clone().expect("a cause of death");
    assert!(
        cause.starts_with("killed by a") && cause.ends_with("on floor 1"),
        "{cause}"
    );
    assert_eq!((me.hp, me.depth), (0, 1));
    assert!(
        ann.view().entity(first_id).is_none(),
        "the dead are not on the map"
    );
    assert!(
        ann.model
            .log
            .iter()
            .any(|l| l.text.starts_with("You die..."))
    );

    // The dead cannot act.
    ann.send(ClientMsg::Act(Action::Wait)).await;
    let (code, _) = ann.next_error().await;
    assert_eq!(code, ErrorCode::CannotAct);

    // A new character: same connection, same name, a new id and token, a fresh view.
    let old_token = ann.model.token.clone();
    ann.send(ClientMsg::NewCharacter).await;
    let welcome = loop {
        match ann.recv().await.unwrap() {
            msg @ ServerMsg::Welcome { .. } => break msg,
            other => {
                ann.model.handle(other).unwrap();
            }
        }
    };
    ann.model.handle(welcome).unwrap();
    assert_ne!(ann.id(), first_id);
    assert_eq!(
        ann.model.token, old_token,
        "the token belongs to the player, not the character"
    );
    let me = ann.view().me.clone();
    assert!(me.alive && &*me.name == "Ann" && me.level == 1 && me.hp == me.max_hp);
    let turn = ann.view().turn;

    // And it plays: its next intent resolves a turn (the connection drives the new character).
    ann.send(ClientMsg::Act(Action::Wait)).await;
    loop {
        ann.next_view().await;
        if ann.view().turn > turn {
            break;
        }
    }
    // The token now resumes the new character, not the dead one.
    let new_id = ann.id();
    ann.session.close().await;
    let again = Bot::join_with(&server.url, "Ann", "crypt", old_token).await;
    assert_eq!(again.id(), new_id);
    server.stop().await;
}
