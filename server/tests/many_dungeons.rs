//! A server that runs for months makes and unloads many more dungeons than it holds at once.
//! Through the real `delve-server` process: the cap on loaded dungeons counts the loaded ones
//! only, so dungeons made, played and unloaded give their places back for good.

#![cfg(unix)]
#![allow(clippy::unwrap_used)] // a test that cannot go on should stop right there

mod common;

use common::{Client, Proc, free_port};
use delve_protocol::{Action, ClientMsg, ErrorCode};
use delve_server::game::content::BUILTIN;

/// Joins `dungeon` as a new character, plays one turn and returns the token.
async fn play_once(port: u16, dungeon: &str, name: &str) -> (Client, String) {
    let mut c = Client::try_join_in(port, dungeon, name, None)
        .await
        .unwrap_or_else(|(code, message)| panic!("{dungeon}: {code:?} {message}"));
    let turn = c.view.turn + 1;
    c.send(&ClientMsg::Act(Action::Wait)).await;
    c.until_turn(turn).await;
    let token = c.token.clone();
    (c, token)
}

#[tokio::test]
async fn dungeons_made_played_and_unloaded_give_their_places_back() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content = dir.path().join("content.toml");
    std::fs::write(&content, BUILTIN).unwrap();
    let port = free_port();
    let server = Proc::start(
        port,
        &data,
        &content,
        &["--max-dungeons", "3", "--unload-after", "0.3"],
    );

    // Three loaded dungeons fill the server: a fourth is refused while they are played.
    let mut first = Vec::new();
    for i in 0..3 {
        first.push(play_once(port, &format!("d{i}"), &format!("Ann{i}")).await);
    }
    let refused = Client::try_join_in(port, "d3", "Bea", None).await;
    assert_eq!(
        refused.err().map(|(code, _)| code),
        Some(ErrorCode::ServerFull),
        "the cap still holds while three dungeons are played"
    );
    let token0 = first[0].1.clone();
    drop(first);
    for _ in 0..3 {
        server.wait_for("dungeon saved");
    }

    // Then dungeon after dungeon is made, played and unloaded, twice the cap over: each one
    // is made (a server that counted every dungeon it ever loaded refused the fourth for good).
    for i in 3..9 {
        let (c, _) = play_once(port, &format!("d{i}"), &format!("Ann{i}")).await;
        drop(c);
        server.wait_for("dungeon saved");
    }
    // And a resume loads its saved dungeon again.
    let back = Client::try_join_in(port, "d0", "Ann0", Some(token0))
        .await
        .unwrap_or_else(|(code, message)| panic!("resuming d0: {code:?} {message}"));
    assert_eq!(&*back.view.me.name, "Ann0");
    assert_eq!(back.view.turn, 1, "the world d0 was saved with");
}
