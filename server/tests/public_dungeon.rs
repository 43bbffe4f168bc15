//! A public dungeon stays open over months, across restarts: where each character was made from
//! and when its player was last there are kept in the database, so a full dungeon still knows,
//! after the server restarted, which address holds more than its share. Through the real
//! `delve-server` process.

#![cfg(unix)]
#![allow(clippy::unwrap_used)] // a test that cannot go on should stop right there

mod common;

use common::{Client, Proc, free_port, stop};
use delve_protocol::{Action, ClientMsg, ErrorCode};
use delve_server::game::content::BUILTIN;

/// Joins from `last` (127.0.0.`last`), plays a turn alone and leaves. The token.
async fn pass_by(port: u16, last: u8, name: &str) -> String {
    let mut c = Client::try_join_from(port, [127, 0, 0, last].into(), "hall", name, None)
        .await
        .unwrap_or_else(|(code, message)| panic!("{name}: {code:?} {message}"));
    let turn = c.view.turn + 1;
    c.send(&ClientMsg::Act(Action::Wait)).await;
    c.until_turn(turn).await;
    c.token.clone()
}

#[tokio::test]
async fn a_full_dungeon_still_makes_room_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content = dir.path().join("content.toml");
    std::fs::write(&content, BUILTIN).unwrap();
    let port = free_port();
    let args = [
        "--max-characters",
        "3",
        "--characters-per-address",
        "1",
        "--grace",
        "0",
    ];
    let mut server = Proc::start(port, &data, &content, &args);
    // Two passers-by from one address, one from another: the dungeon is full.
    let first = pass_by(port, 2, "Pat").await;
    let second = pass_by(port, 2, "Pip").await;
    let other = pass_by(port, 3, "Quin").await;
    assert!(stop(&mut server).success());

    let server = Proc::start(port, &data, &content, &args);
    // A newcomer: the address holding two (over its share of one) gives way, its character
    // away longest first; the server knew that from its database alone.
    let newcomer = Client::try_join_from(port, [127, 0, 0, 4].into(), "hall", "Ray", None)
        .await
        .unwrap_or_else(|(code, message)| panic!("Ray was kept out: {code:?} {message}"));
    let mut names: Vec<String> = newcomer
        .view
        .party
        .iter()
        .map(|m| m.name.to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["Pip", "Quin", "Ray"]);
    server.wait_for("character retired to make room");
    drop(newcomer);
    let gone = Client::try_join_from(port, [127, 0, 0, 2].into(), "hall", "Pat", Some(first)).await;
    assert_eq!(gone.err().map(|(code, _)| code), Some(ErrorCode::BadToken));
    for (last, token) in [(2, second), (3, other)] {
        Client::try_join_from(port, [127, 0, 0, last].into(), "hall", "x", Some(token))
            .await
            .unwrap_or_else(|(code, message)| panic!("a kept character: {code:?} {message}"));
    }
}
