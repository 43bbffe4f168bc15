//! The group's home on the web (issue 28), through a real server with a real database: a game
//! played to a death by a scripted player is published — its dump sent to its player, listed on
//! `/scores` and `/api/games`, shown on `/games/ID` with what it wore and carried — and replayed
//! over the WebSocket showing at each turn exactly the view the player was sent. A private
//! dungeon's games are shown to nobody without its password or the game's key.

use delve_client::model::Model;
use delve_client::net::Session;
use delve_protocol::{ClientMsg, ErrorCode, ServerMsg, view_digest};
use delve_tests::finished::{Finished, deadly_config, play_to_death};
use delve_tests::http::{get, get_text, header};
use delve_tests::{Bot, TestServer, within};
use serde_json::Value;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Opens a replay of `game` on a connection of its own: the model once its welcome is in, or
/// the server's refusal.
async fn open_replay(
    url: &str,
    game: u64,
    key: Option<&str>,
    password: Option<&str>,
) -> Result<(Session, Model), (ErrorCode, String)> {
    let mut s = within(Session::connect(url)).await.unwrap();
    within(s.send(&ClientMsg::Replay {
        game,
        key: key.map(str::to_string),
        password: password.map(str::to_string),
    }))
    .await
    .unwrap();
    let mut model = Model::new();
    loop {
        match within(s.recv()).await.unwrap() {
            ServerMsg::Error { code, message, .. } => return Err((code, message)),
            msg @ ServerMsg::Welcome { .. } => {
                model.handle(msg).unwrap();
                return Ok((s, model));
            }
            msg => {
                model.handle(msg).unwrap();
            }
        }
    }
}

/// Asks the replay for turn `turn` and applies the answer.
async fn seek(s: &mut Session, model: &mut Model, turn: u64) -> ServerMsg {
    within(s.send(&ClientMsg::Seek { turn })).await.unwrap();
    let msg = within(s.recv()).await.unwrap();
    model.handle(msg.clone()).unwrap();
    msg
}

/// The key in a link (`...?key=K`).
fn key_of(link: &str) -> Option<&str> {
    link.split_once("?key=").map(|(_, k)| k)
}

#[tokio::test]
async fn a_game_played_to_a_death_is_published_with_its_dump_and_its_replay() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(deadly_config(dir.path())).await;
    let ann = Bot::join(&server.url, "Ann", "crypt").await;
    let f: Finished = play_to_death(ann, 4).await;
    let id = f.over.game;
    let before = &f.before_death;
    let worn: Vec<&str> = (before.inventory.iter())
        .filter(|i| i.equipped)
        .map(|i| &*i.name)
        .collect();
    let carried: Vec<&str> = (before.inventory.iter())
        .filter(|i| !i.equipped)
        .map(|i| &*i.name)
        .collect();
    assert!(
        !worn.is_empty(),
        "Ann wielded something: {:?}",
        before.inventory
    );
    assert!(!carried.is_empty(), "Ann carried something");
    println!(
        "Ann died on turn {} wearing {worn:?} and carrying {carried:?}",
        f.bot.view().me.turns
    );

    // Her client was told where the game is kept, and given the dump the server wrote.
    assert_eq!(f.over.page, format!("/games/{id}"));
    assert_eq!(f.over.replay.as_deref(), Some(&*format!("/replay/{id}")));
    assert!(f.over.file.starts_with("ann-crypt-"), "{}", f.over.file);
    let dump = &f.over.dump;
    let cause = f.bot.view().me.cause.clone().unwrap();
    assert!(dump.contains(&cause[1..]), "{dump}");
    let equipment = dump.split("\nEquipment\n").nth(1).unwrap();
    let (equipment, pack) = equipment.split_once("\nPack\n").unwrap();
    for w in &worn {
        assert!(equipment.contains(w), "{w} is worn in the dump: {dump}");
    }
    for c in &carried {
        assert!(pack.contains(c), "{c} is carried in the dump: {dump}");
    }
    let me = &f.bot.view().me;
    assert!(
        dump.contains(&format!("{} kills   {} turns", me.kills, me.turns)),
        "{dump}"
    );

    // /scores lists it, and links to its page.
    let (status, scores) = get_text(&server.url, "/scores").await;
    assert_eq!(status, 200);
    assert!(
        scores.contains(&format!("<a href=\"/games/{id}\">Ann</a>")),
        "{scores}"
    );
    assert!(!scores.contains("<script"), "no script on the page");
    let (status, crypt) = get_text(&server.url, "/scores?dungeon=CRYPT").await;
    assert_eq!(status, 200);
    assert!(crypt.contains("High scores in CRYPT") && crypt.contains("Ann"));
    let (_, elsewhere) = get_text(&server.url, "/scores?dungeon=cellar").await;
    assert!(!elsewhere.contains("/games/"), "{elsewhere}");

    // Its page shows what she wore and carried before the death.
    let (head, body) = get(&server.url, &format!("/games/{id}"), &[]).await;
    assert_eq!(head.status(), 200);
    assert_eq!(header(&head, "content-type"), "text/html; charset=utf-8");
    assert!(header(&head, "content-security-policy").contains("default-src 'none'"));
    let page = String::from_utf8(body).unwrap();
    let (_, rest) = page
        .split_once("<h2>Equipment</h2>")
        .expect("an equipment list");
    let (page_worn, rest) = rest.split_once("<h2>Pack</h2>").expect("a pack list");
    for w in &worn {
        assert!(page_worn.contains(w), "{w} under Equipment: {page}");
    }
    for c in &carried {
        assert!(rest.contains(c), "{c} under Pack: {page}");
    }
    assert!(page.contains(&format!("href=\"/replay/{id}\"")), "{page}");
    let (status, text) = get_text(&server.url, &format!("/games/{id}.txt")).await;
    assert_eq!((status, text.as_str()), (200, dump.as_str()));
    let (status, _) = get_text(&server.url, &format!("/games/{}", id + 100)).await;
    assert_eq!(status, 404);

    // The API: newest first, filtered, paged; each game with its links.
    let (status, list) = get_text(&server.url, "/api/games").await;
    assert_eq!(status, 200);
    let list = json(&list);
    let g = &list["games"][0];
    assert_eq!(g["id"], id);
    assert_eq!(
        (g["name"].as_str(), g["dungeon"].as_str()),
        (Some("Ann"), Some("crypt"))
    );
    assert_eq!(g["turns"], me.turns);
    assert_eq!(g["replay"], format!("/replay/{id}"));
    // README's example of a game has exactly the keys the server sends.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let example = readme
        .split_once("```json api\n")
        .and_then(|(_, rest)| rest.split_once("\n```"))
        .map(|(block, _)| json(block))
        .expect("README shows an /api/games game");
    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&example), keys(g), "README's /api/games example");
    assert_eq!(list["next"], Value::Null);
    for (query, n) in [
        ("?name=ann", 1),
        ("?name=bob", 0),
        ("?dungeon=crypt", 1),
        ("?dungeon=cellar", 0),
        ("?order=best&limit=5", 1),
    ] {
        let (_, answer) = get_text(&server.url, &format!("/api/games{query}")).await;
        let games = json(&answer)["games"].as_array().unwrap().len();
        assert_eq!(games, n, "/api/games{query}: {answer}");
    }
    let (status, bad) = get_text(&server.url, "/api/games?order=worst").await;
    assert_eq!(status, 400);
    assert!(json(&bad)["error"].as_str().unwrap().contains("order"));
    let (_, one) = get_text(&server.url, &format!("/api/games/{id}")).await;
    let one = json(&one);
    let kills: u64 = (one["dump"]["kills_by_kind"].as_array().unwrap().iter())
        .map(|k| k["count"].as_u64().unwrap())
        .sum();
    assert_eq!(
        kills,
        u64::from(me.kills),
        "every kill of her life, by kind"
    );

    // The replay shows, at every turn asked for, exactly the view she was sent then.
    let (mut s, mut model) = open_replay(&server.url, id, None, None).await.unwrap();
    let info = model.replay.clone().expect("the replay's game");
    assert_eq!((info.game, info.turns), (id, me.turns));
    assert_eq!(view_digest(model.view.as_ref().unwrap()), f.digest(0));
    let last = f.views.len() - 1;
    let mid = last / 2;
    for t in [mid, mid + 1, mid + 2, 1, last, last - 1, 3] {
        let msg = seek(&mut s, &mut model, t as u64).await;
        let stepped = matches!(msg, ServerMsg::Update { .. });
        assert_eq!(
            stepped,
            [mid + 1, mid + 2].contains(&t),
            "turn {t}: {msg:?}"
        );
        let shown = model.view.as_ref().unwrap();
        assert_eq!(shown.me.turns, t as u64);
        assert_eq!(view_digest(shown), f.digest(t), "the view at turn {t}");
    }
    // Asked of a replay, a game's action means nothing.
    within(s.send(&ClientMsg::Act(delve_protocol::Action::Wait)))
        .await
        .unwrap();
    match within(s.recv()).await.unwrap() {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::BadHandshake),
        other => panic!("expected an error, got {other:?}"),
    }
    // Unknown games are refused like hidden ones.
    let refused = open_replay(&server.url, id + 7, None, None)
        .await
        .unwrap_err();
    assert_eq!(refused.0, ErrorCode::NoSuchGame);
    server.stop().await;
}

#[tokio::test]
async fn a_private_dungeons_game_is_shown_only_with_its_key_or_password() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(deadly_config(dir.path())).await;
    let bob = Bot::join_private(&server.url, "Bob", "vault", "swordfish").await;
    let f = play_to_death(bob, 1).await;
    let id = f.over.game;
    let key = key_of(&f.over.page).expect("a private game's link carries its key");
    assert_eq!(key_of(f.over.replay.as_deref().unwrap()), Some(key));

    // A stranger sees nothing of it: not listed, and its pages answer as for no game.
    let (_, scores) = get_text(&server.url, "/scores").await;
    assert!(!scores.contains("Bob"), "{scores}");
    let (_, vault) = get_text(&server.url, "/scores?dungeon=vault").await;
    assert!(
        !vault.contains("/games/") && vault.contains("is private"),
        "{vault}"
    );
    let (_, api) = get_text(&server.url, "/api/games?dungeon=vault&name=bob").await;
    assert_eq!(json(&api)["games"].as_array().unwrap().len(), 0, "{api}");
    for path in [
        format!("/games/{id}"),
        format!("/games/{id}.txt"),
        format!("/api/games/{id}"),
        format!("/games/{id}?key=0123"),
        format!("/replay/{id}"),
    ] {
        let (status, body) = get_text(&server.url, &path).await;
        assert_eq!(status, 404, "{path}: {body}");
        assert!(!body.contains("Bob"), "{path} names Bob: {body}");
    }
    let refused = open_replay(&server.url, id, None, None).await.unwrap_err();
    assert_eq!(refused.0, ErrorCode::NoSuchGame);
    let (status, _) = get_text(&server.url, "/scores?dungeon=vault&password=guess").await;
    assert_eq!(status, 403, "a wrong password is told as one");

    // The player's own link opens it; so does the dungeon's password, which also lists it.
    let (status, page) = get_text(&server.url, &format!("/games/{id}?key={key}")).await;
    assert_eq!(status, 200);
    assert!(page.contains("Bob") && page.contains(&format!("/replay/{id}?key={key}")));
    let (status, listed) = get_text(&server.url, "/scores?dungeon=vault&password=swordfish").await;
    assert_eq!(status, 200);
    assert!(
        listed.contains(&format!("/games/{id}?key={key}")),
        "{listed}"
    );
    let (_, api) = get_text(&server.url, "/api/games?dungeon=vault&password=swordfish").await;
    assert_eq!(json(&api)["games"][0]["name"], "Bob");
    let (s, model) = open_replay(&server.url, id, Some(key), None).await.unwrap();
    assert_eq!(view_digest(model.view.as_ref().unwrap()), f.digest(0));
    drop(s);
    let by_password = open_replay(&server.url, id, None, Some("swordfish")).await;
    assert!(by_password.is_ok());
    server.stop().await;
}

#[tokio::test]
async fn an_operator_can_turn_off_the_pages_and_the_replays() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = deadly_config(dir.path());
    config.game_pages = false;
    config.replays = false;
    let server = TestServer::start(config).await;
    let cy = Bot::join(&server.url, "Cy", "crypt").await;
    let f = play_to_death(cy, 1).await;
    // Cy still gets the dump of his game, but no replay of it.
    assert!(f.over.dump.contains("Delve character dump: Cy"));
    assert_eq!(f.over.replay, None);
    for path in ["/scores", "/games", "/api/games", "/games/1", "/replay/1"] {
        let (status, body) = get_text(&server.url, path).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    let refused = open_replay(&server.url, f.over.game, None, None)
        .await
        .unwrap_err();
    assert_eq!(refused.0, ErrorCode::NoSuchGame);
    // The game itself is recorded: the high-score table still has it.
    let mut s = within(Session::connect(&server.url)).await.unwrap();
    within(s.send(&ClientMsg::Scores { limit: None }))
        .await
        .unwrap();
    match within(s.recv()).await.unwrap() {
        ServerMsg::Scores { entries } => {
            assert_eq!(entries.len(), 1);
            assert_eq!(
                (entries[0].name.as_str(), entries[0].game),
                ("Cy", Some(f.over.game))
            );
        }
        other => panic!("expected scores, got {other:?}"),
    }
    server.stop().await;
}
