//! A finished game watched again in a real browser (issue 28): a scripted player dies on a real
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
