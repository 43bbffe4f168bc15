//! The record of finished games in a real browser (issue 28). A player of the browser client
//! who dies keeps the server's own character dump, the one its page shows. And a finished game
//! is watched again: a scripted player dies on a real
//! server keeping its games; its replay link, opened in headless Chromium, plays by itself,
//! pauses, jumps to a typed turn, steps back and forth, and at every turn it stops on shows
//! exactly the view the server sent the player at that turn (the digest the page publishes
//! against the digest of the player's own view).
//!
//! With `DELVE_RECORD_SHOTS=DIR` it also saves the pages of the evening (`/scores`,
//! `/games/ID`, the replay) as a phone (390×844) and a laptop (1280×800) show them.

use std::time::Duration;

use delve_tests::browser::{Browser, can_run, png_colours};
use delve_tests::finished::{Finished, deadly_config, play_to_death};
use delve_tests::http::get_text;
use delve_tests::{Bot, TestServer};
use serde_json::Value;

const PATIENCE: Duration = Duration::from_secs(30);

/// The turn the page shows, and whether it plays.
fn shown(st: &Value) -> Option<(u64, bool)> {
    Some((st["replay"][0].as_u64()?, st["replay"][2].as_bool()?))
}

/// Waits until the page at `path` has loaded.
async fn loaded(browser: &mut Browser, path: &str) {
    let deadline = std::time::Instant::now() + PATIENCE;
    let probe = format!(
        "document.readyState === 'complete' && location.pathname + location.search === {path:?}"
    );
    while browser.eval(&probe).await.unwrap() != Value::Bool(true) {
        assert!(std::time::Instant::now() < deadline, "{path} never loaded");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Waits for the page to show turn `t`, paused, and checks it is the view the player had.
async fn expect_turn(browser: &mut Browser, f: &Finished, t: u64, how: &str) {
    let st = browser
        .wait_status(&format!("turn {t} shown ({how})"), PATIENCE, |st| {
            shown(st) == Some((t, false))
        })
        .await
        .unwrap();
    assert_eq!(
        st["view"].as_str(),
        Some(&*f.digest(t as usize)),
        "{how}: the page shows at turn {t} the view Ann was sent at her turn {t}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_in_the_browser_shows_at_each_turn_the_view_the_player_had() {
    if !can_run() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(deadly_config(dir.path())).await;
    let ann = Bot::join(&server.url, "Ann", "crypt").await;
    let f = play_to_death(ann, 4).await;
    let last = (f.views.len() - 1) as u64;
    assert!(
        last >= 10,
        "a game long enough to move through ({last} turns)"
    );
    let web = server.url.replace("ws://", "http://");
    let link = f.over.replay.clone().expect("the server keeps replays");
    let mut browser = Browser::launch(1280, 800).await.expect("chromium starts");
    browser.navigate(&format!("{web}{link}")).await.unwrap();

    // It plays by itself from the start, asking nobody's name.
    let st = browser
        .wait_status("the replay playing past turn 2", PATIENCE, |st| {
            st["map"] == true && shown(st).is_some_and(|(t, playing)| t >= 2 && playing)
        })
        .await
        .expect("the replay opens and plays");
    assert_eq!(st["replay"][1].as_u64(), Some(last), "its length");
    // Space pauses it.
    browser.type_text(" ").await.unwrap();
    browser
        .wait_status("the replay paused", PATIENCE, |st| {
            shown(st).is_some_and(|(_, playing)| !playing)
        })
        .await
        .expect("Space pauses");

    // A turn typed and Enter jumps there; the arrows step back and forth.
    let mid = last / 2;
    browser.type_text(&mid.to_string()).await.unwrap();
    browser.press("Enter").await.unwrap();
    expect_turn(&mut browser, &f, mid, "a jump").await;
    browser.press("ArrowLeft").await.unwrap();
    expect_turn(&mut browser, &f, mid - 1, "a step back").await;
    browser.press("ArrowRight").await.unwrap();
    expect_turn(&mut browser, &f, mid, "a step forward").await;
    browser.press("ArrowRight").await.unwrap();
    expect_turn(&mut browser, &f, mid + 1, "another step forward").await;
    browser.press("End").await.unwrap();
    expect_turn(&mut browser, &f, last, "the end: her death").await;
    browser.press("Home").await.unwrap();
    expect_turn(&mut browser, &f, 0, "the start").await;

    // Played from there it goes on to its end and stops.
    browser.type_text(&(last - 3).to_string()).await.unwrap();
    browser.press("Enter").await.unwrap();
    expect_turn(&mut browser, &f, last - 3, "a jump near the end").await;
    browser.type_text(" ").await.unwrap();
    expect_turn(&mut browser, &f, last, "played to the end").await;

    let shot = browser.screenshot().await.unwrap();
    let (_, _, colours) = png_colours(&shot).unwrap();
    assert!(colours >= 16, "a drawn replay ({colours} colours)");
    if let Some(out) = std::env::var_os("DELVE_RECORD_SHOTS") {
        let out = std::path::PathBuf::from(out);
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("replay-1280.png"), &shot).unwrap();
        let id = f.over.game;
        for (w, h) in [(1280, 800), (390, 844)] {
            if w < 500 {
                browser.phone(w, h).await.unwrap();
            } else {
                browser.resize(w, h).await.unwrap();
            }
            for (name, path) in [
                ("scores", "/scores".to_string()),
                ("game", format!("/games/{id}")),
                ("replay", link.clone()),
            ] {
                browser.navigate(&format!("{web}{path}")).await.unwrap();
                loaded(&mut browser, &path).await;
                if name == "replay" {
                    browser
                        .wait_status("the replay drawn", PATIENCE, |st| st["map"] == true)
                        .await
                        .unwrap();
                }
                let png = browser.screenshot().await.unwrap();
                std::fs::write(out.join(format!("{name}-{w}.png")), png).unwrap();
            }
        }
    }
    drop(browser);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_player_who_dies_keeps_the_servers_own_dump() {
    if !can_run() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(deadly_config(dir.path())).await;
    let web = server.url.replace("ws://", "http://");
    let mut browser = Browser::launch(1280, 800).await.expect("chromium starts");
    browser
        .navigate(&format!("{web}/?dungeon=crypt&name=Cleo"))
        .await
        .unwrap();
    browser
        .wait_status("Cleo in the dungeon", PATIENCE, |st| st["map"] == true)
        .await
        .expect("the browser client joins");
    // She waits for the mice.
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let st = browser.status().await.unwrap();
        if st["hp"][0].as_i64().is_some_and(|hp| hp <= 0) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the mice never came: {st}"
        );
        browser.type_text(".").await.unwrap();
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    // The server's dump of her game, as its page gives it.
    let list = loop {
        let (_, list) = get_text(&server.url, "/api/games?name=Cleo").await;
        let list: Value = serde_json::from_str(&list).unwrap();
        if list["games"][0]["id"].is_u64() {
            break list;
        }
        assert!(std::time::Instant::now() < deadline, "no game recorded");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let id = list["games"][0]["id"].as_u64().unwrap();
    let text = loop {
        let (status, text) = get_text(&server.url, &format!("/games/{id}.txt")).await;
        if status == 200 && !text.contains("being written") {
            break text;
        }
        assert!(std::time::Instant::now() < deadline, "the dump never came");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(text.contains("Delve character dump: Cleo"), "{text}");
    // The browser keeps that very text (in its storage, a browser's files), not one of its own.
    let kept = "Object.keys(localStorage).filter(k => k.startsWith('delve.morgue '))\
                .map(k => localStorage.getItem(k))";
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        let dumps = browser.eval(kept).await.unwrap();
        if dumps
            .as_array()
            .is_some_and(|d| d.len() == 1 && d[0].as_str() == Some(&*text))
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the browser keeps the server's dump; it has {dumps}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if let Some(out) = std::env::var_os("DELVE_RECORD_SHOTS") {
        let png = browser.screenshot().await.unwrap();
        std::fs::write(std::path::Path::new(&out).join("death-1280.png"), png).unwrap();
    }
    drop(browser);
    server.stop().await;
}

/// The lobby lists who plays where, and `w` then Enter watches them: no name to know.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_lists_who_plays_and_a_key_watches_them() {
    if !can_run() {
        return;
    }
    let server = TestServer::start(delve_tests::test_config()).await;
    let ann = Bot::join(&server.url, "Ann", "crypt").await;
    let at = ann.view().me.pos;
    let web = server.url.replace("ws://", "http://");
    let mut browser = Browser::launch(1280, 800).await.expect("chromium starts");
    browser.navigate(&format!("{web}/?name=Zed")).await.unwrap();
    browser
        .wait_status("the lobby", PATIENCE, |st| st["screen"] == "lobby")
        .await
        .expect("the lobby opens");
    // Once the list is drawn (Ann plays in its one dungeon), w offers her and Enter watches.
    browser
        .wait_status("the dungeon listed", PATIENCE, |st| {
            (st["buttons"].as_array().into_iter().flatten()).any(|b| b[0] == "row 0")
        })
        .await
        .expect("the lobby lists crypt");
    browser.type_text("w").await.unwrap();
    browser
        .wait_status("the watch prompt", PATIENCE, |st| st["screen"] == "watch")
        .await
        .expect("w asks whom to watch");
    browser.press("Enter").await.unwrap();
    browser
        .wait_status("Ann's view shown", PATIENCE, |st| {
            st["map"] == true && st["me"] == serde_json::json!([at.x, at.y])
        })
        .await
        .expect("Zed watches Ann without typing her name");
    // The lobby now says so too.
    let mut s = delve_client::net::Session::connect(&server.url)
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        s.send(&delve_protocol::ClientMsg::ListDungeons)
            .await
            .unwrap();
        if let delve_protocol::ServerMsg::Dungeons { dungeons } = s.recv().await.unwrap() {
            let watchers = dungeons
                .iter()
                .find(|d| d.name == "crypt")
                .and_then(|d| d.players.first())
                .map(|p| p.watchers.clone());
            if watchers == Some(vec!["Zed".to_string()]) {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{dungeons:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop((browser, ann));
    server.stop().await;
}
