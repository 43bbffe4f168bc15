//! A public dungeon cannot be filled by `hello`s, nor closed for good by passers-by: a character
//! made and never played is forgotten when its grace period ends, one address may make only so
//! many new characters in a dungeon (and a refused one spends nothing), and a full dungeon makes
//! room for a newcomer from the characters of an address holding more than its share, or from
//! those away too long. Through the real server, over real WebSockets.

use std::net::IpAddr;
use std::time::Duration;

use delve_client::net::Session;
use delve_protocol::{Action, ClientMsg, Dir, ErrorCode, ServerMsg};
use delve_tests::{Bot, TestServer, hello_with, test_config, within};

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retrying_a_taken_name_spends_nothing_of_the_address_s_allowance() {
    // The default allowance: six new characters per address in a row.
    let server = TestServer::start(config(32, 6)).await;
    let url = server.url.clone();
    let ann = Bot::join(&url, "Ann", "hall").await;
    // Six tries as ANN beside Ann: each is told the name is taken, the sixth too.
    for attempt in 1..=6 {
        match hello_answer(&url, "ANN", "hall", None).await {
            ServerMsg::Error { code, message, .. } => assert_eq!(
                (code, message.as_str()),
                (
                    ErrorCode::NameTaken,
                    "Someone in this dungeon is already called ANN."
                ),
                "try {attempt}"
            ),
            other => panic!("try {attempt}: {other:?}"),
        }
    }
    // None of them spent a thing: five more new names are made (Ann spent the sixth).
    let mut others = Vec::new();
    for name in ["Bob", "Cy", "Dee", "Eve", "Fay"] {
        others.push(Bot::join(&url, name, "hall").await);
    }
    // The seventh new character is the one the allowance refuses.
    match hello_answer(&url, "Gus", "hall", None).await {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::RateLimited),
        other => panic!("a seventh new character was made: {other:?}"),
    }
    drop((ann, others));
    server.stop().await;
}

/// Joins `dungeon` from `from` as a new character, takes one step (a wait, alone on the floor:
/// it resolves at once) and leaves. The token.
async fn pass_by(url: &str, from: IpAddr, name: &str, dungeon: &str) -> String {
    let mut bot = Bot::hello_from(url, from, name, hello_with(name, dungeon, None, None, None))
        .await
        .unwrap_or_else(|(code, message)| panic!("{name} from {from}: {code:?} {message}"));
    let token = bot.model.token.clone().expect("a token");
    let turn = bot.view().turn + 1;
    bot.send(ClientMsg::Act(Action::Wait)).await;
    within(bot.until_turn(turn)).await;
    token
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_dungeon_filled_by_passers_by_stays_open_to_newcomers() {
    // The defaults: 32 characters a dungeon, 6 new ones per address, and an address's
    // characters beyond 4 the first to give way when the dungeon is full.
    let server = TestServer::start(delve_server::net::ServerConfig {
        grace: Duration::ZERO,
        ..config(32, 6)
    })
    .await;
    let url = server.url.clone();
    // Six addresses make six characters each, every one moving once and leaving: 36
    // characters for 32 places.
    let mut first_token = None;
    for a in 0..6u8 {
        let from = IpAddr::from([127, 0, 0, 10 + a]);
        for c in 0..6 {
            let token = pass_by(&url, from, &format!("P{a}x{c}"), "hall").await;
            first_token.get_or_insert(token);
        }
    }
    // A newcomer from another address still gets in: the characters of the addresses holding
    // more than their share gave way, the ones away longest first.
    let fay = Bot::hello_from(
        &url,
        [127, 0, 0, 99].into(),
        "Fay",
        hello_with("Fay", "hall", None, None, None),
    )
    .await
    .unwrap_or_else(|(code, message)| panic!("Fay was kept out: {code:?} {message}"));
    let party = fay.view().party.len();
    assert!(party <= 32, "{party} characters in a dungeon of 32");
    assert_eq!(
        server.metric("delve_refusals_total{reason=\"character_retired\"}"),
        5.0,
        "four passers-by over the 32 places, and Fay"
    );
    // The first passer-by, away longest from the address holding the most, was retired: its
    // token takes nothing back.
    match hello_answer(&url, "P0x0", "hall", first_token).await {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::BadToken),
        other => panic!("a retired character came back: {other:?}"),
    }
    drop(fay);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_character_away_for_too_long_gives_way_when_its_dungeon_is_full() {
    // Three places, and any character away at all counts as away too long.
    let server = TestServer::start(delve_server::net::ServerConfig {
        retire_after: Duration::ZERO,
        grace: Duration::ZERO,
        ..config(3, 6)
    })
    .await;
    let url = server.url.clone();
    let ann = pass_by(&url, [127, 0, 0, 2].into(), "Ann", "hall").await;
    let bob = pass_by(&url, [127, 0, 0, 3].into(), "Bob", "hall").await;
    // Cy stays: a player who is here never gives way.
    let cy = Bot::hello_from(
        &url,
        [127, 0, 0, 4].into(),
        "Cy",
        hello_with("Cy", "hall", None, None, None),
    )
    .await
    .expect("Cy gets in");
    let dee = Bot::hello_from(
        &url,
        [127, 0, 0, 5].into(),
        "Dee",
        hello_with("Dee", "hall", None, None, None),
    )
    .await
    .unwrap_or_else(|(code, message)| panic!("Dee was kept out: {code:?} {message}"));
    // Ann, away longest, gave way; Bob is still there to come back to.
    let names: Vec<String> = dee
        .view()
        .party
        .iter()
        .map(|m| m.name.to_string())
        .collect();
    assert_eq!(names, ["Bob", "Cy", "Dee"]);
    match hello_answer(&url, "Ann", "hall", Some(ann)).await {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::BadToken),
        other => panic!("a retired character came back: {other:?}"),
    }
    let bob = Bot::join_with(&url, "Bob", "hall", Some(bob)).await;
    assert_eq!(&*bob.view().me.name, "Bob");
    drop((cy, dee, bob));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_makes_only_so_many_new_dungeons() {
    let server = TestServer::start(delve_server::net::ServerConfig {
        new_dungeons_per_address: 2,
        ..config(32, 6)
    })
    .await;
    let url = server.url.clone();
    let home: IpAddr = [127, 0, 0, 2].into();
    let hello = |name: &str, dungeon: &str| hello_with(name, dungeon, None, None, None);
    let a = Bot::hello_from(&url, home, "Ann", hello("Ann", "one")).await;
    let b = Bot::hello_from(&url, home, "Ann", hello("Ann", "two")).await;
    assert!(a.is_ok() && b.is_ok());
    // A third new dungeon from the same address is refused, and says when one can be made.
    let refused = Bot::hello_from(&url, home, "Ann", hello("Ann", "three")).await;
    let Err((code, message)) = refused else {
        panic!("a third new dungeon was made");
    };
    assert_eq!(code, ErrorCode::RateLimited);
    assert_eq!(
        message,
        "Too many new dungeons from your address; the next one can be made in 10 min. Join an existing one meanwhile."
    );
    // Joining one that exists is not making one; and another address has its own allowance.
    assert!(
        Bot::hello_from(&url, home, "Bob", hello("Bob", "one"))
            .await
            .is_ok()
    );
    let other = Bot::hello_from(&url, [127, 0, 0, 3].into(), "Cy", hello("Cy", "three")).await;
    assert!(other.is_ok(), "{:?}", other.err());
    assert_eq!(
        server.metric("delve_refusals_total{reason=\"new_dungeon_limit\"}"),
        1.0
    );
    drop((a, b, other));
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
