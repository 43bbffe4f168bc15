//! A public dungeon cannot be filled by `hello`s: a character made and never played is forgotten
//! when its grace period ends, and one address may make only so many new characters in a
//! dungeon. Through the real server, over real WebSockets.

use std::time::Duration;

use delve_client::net::Session;
use delve_protocol::{Dir, ErrorCode, ServerMsg};
use delve_tests::{Bot, TestServer, test_config, within};

/// Says hello and returns the first answer (a welcome or an error).
async fn hello_answer(url: &str, name: &str, dungeon: &str, token: Option<String>) -> ServerMsg {
    let (_session, first) = within(Session::join(url, name, dungeon, token))
        .await
        .unwrap_or_else(|e| panic!("{name} cannot say hello: {e}"));
    first
}

/// Reads `bot`'s views until the party panel names exactly `names` (in any order).
async fn until_party_is(bot: &mut Bot, names: &[&str]) {
    let mut want: Vec<&str> = names.to_vec();
    want.sort_unstable();
    loop {
        let mut now: Vec<String> = bot
            .view()
            .party
            .iter()
            .map(|m| m.name.to_string())
            .collect();
        now.sort_unstable();
        if now == want {
            return;
        }
        bot.next_view().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn characters_made_and_never_played_are_forgotten_after_the_grace_period() {
    let server = TestServer::start(config(4, 100)).await;
    let url = server.url.clone();
    // Ann plays and stays to watch the party panel.
    let mut ann = Bot::join(&url, "Ann", "hall").await;
    let dir = ann.open_dirs()[0];
    ann.step(dir).await;
    ann.next_view().await;
    // Bob plays one step and leaves: he is lifted out, not forgotten.
    let mut bob = Bot::join(&url, "Bob", "hall").await;
    let bob_token = bob.model.token.clone().expect("a token");
    let dir = bob.open_dirs().first().copied().unwrap_or(Dir::N);
    bob.step(dir).await;
    // Both chose, so the turn resolves and Bob's choice was accepted.
    ann.step(ann.open_dirs()[0]).await;
    bob.next_view().await;
    drop(bob);
    // Two hellos that never play fill the dungeon (4 characters).
    let cy = Bot::join(&url, "Cy", "hall").await;
    let cy_token = cy.model.token.clone().expect("a token");
    let di = Bot::join(&url, "Di", "hall").await;
    match hello_answer(&url, "Eve", "hall", None).await {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::DungeonFull),
        other => panic!("the dungeon is full, yet Eve got {other:?}"),
    }
    within(until_party_is(&mut ann, &["Ann", "Bob", "Cy", "Di"])).await;
    drop((cy, di));

    // Their grace ends: Cy and Di vanish from the party; Bob stays.
    within(until_party_is(&mut ann, &["Ann", "Bob"])).await;
    // The room is free again, and so is Cy's name; Cy's old token resumes nothing.
    let eve = Bot::join(&url, "Eve", "hall").await;
    match hello_answer(&url, "Cy", "hall", Some(cy_token)).await {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::BadToken),
        other => panic!("a forgotten character was resumed: {other:?}"),
    }
    // Bob, who played, comes back to his own character.
    let bob = Bot::join_with(&url, "Bob", "hall", Some(bob_token)).await;
    assert_eq!(&*bob.view().me.name, "Bob");
    assert!(
        bob.view().me.turns > 0,
        "Bob's character is the one that played"
    );
    drop((eve, bob));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_makes_only_so_many_new_characters_in_a_dungeon() {
    let server = TestServer::start(config(32, 2)).await;
    let url = server.url.clone();
    let ann = Bot::join(&url, "Ann", "hall").await;
    let ann_token = ann.model.token.clone().expect("a token");
    let bob = Bot::join(&url, "Bob", "hall").await;
    // The third new character from this address is refused, and says when it can be made.
    let answer = hello_answer(&url, "Cy", "hall", None).await;
    let ServerMsg::Error { code, message, .. } = answer else {
        panic!("a third new character was made: {answer:?}");
    };
    assert_eq!(code, ErrorCode::RateLimited);
    assert!(
        message.starts_with("Too many new characters from your address in dungeon hall;")
            && message.contains("10 min"),
        "{message}"
    );
    // Another dungeon has its own budget.
    let other = Bot::join(&url, "Cy", "cellar").await;
    // Resuming is never counted.
    drop(ann);
    let ann = Bot::join_with(&url, "Ann", "hall", Some(ann_token)).await;
    assert_eq!(&*ann.view().me.name, "Ann");
    // Nor is watching.
    let mut watcher = Session::connect(&url).await.expect("connects");
    watcher
        .send(&delve_tests::hello_with(
            "Di",
            "hall",
            None,
            None,
            Some("Ann"),
        ))
        .await
        .expect("sends");
    let first = within(watcher.recv()).await.expect("an answer");
    assert!(
        matches!(first, ServerMsg::Welcome { .. }),
        "a watcher was refused: {first:?}"
    );
    drop((ann, bob, other, watcher));
    server.stop().await;
}

/// No monsters, no turn timer; `characters` per dungeon, `new_per_address` new characters per
/// address (one more every 10 minutes), and a short grace period.
fn config(characters: usize, new_per_address: u32) -> delve_server::net::ServerConfig {
    delve_server::net::ServerConfig {
        max_characters_per_dungeon: characters,
        new_characters_per_address: new_per_address,
        new_character_refill: Duration::from_secs(600),
        grace: Duration::from_millis(300),
        ..test_config()
    }
}
