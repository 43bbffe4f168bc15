//! The browser client on a phone, played with touches alone: headless Chromium emulates a phone
//! (its screen at a density of 2, touch events, no mouse) held upright (390x844) and on its side
//! (844x390), and the test's finger, from the page's own account of where each button is
//! (`window.delveStatus.buttons`), opens the shared link, explores, fights (the first fight by
//! the Fight button, the others by tapping the monsters), opens the pack and uses a Health Pack
//! once hurt, rests by the Rest button, chats through the page's text field (the one a phone's
//! keyboard types into), and takes the stairs to floor 2. Each step waits for the game's own
//! words that it happened (the log's lines).
//!
//! Without Chromium the test fails under CI (CI=true) and is skipped with a reason elsewhere.

use std::time::{Duration, Instant};

use delve_server::game::content::{BUILTIN, Content};
use delve_tests::browser::{Browser, can_run};
use delve_tests::{TestServer, test_config};
use serde_json::Value;

/// The seed of the test's dungeons: a floor 1 whose stairs down come into view early, so the
/// phone's walk to them is short (most of the test's time is the walk, at the frame rate of a
/// software-rendered canvas). Any seed plays the same steps; this one plays them sooner.
const SEED: u64 = 98;

/// The built-in content with more loose things on each floor (Health Packs among them), a
/// player of 40 HP who strikes for 1 or 2, Micro Mice of 3 HP that bite for 1 (so each fight
/// lasts two blows at least and the mouse bites back: the character is surely hurt, a little,
/// and not killed by floor 1's ten mice: with 25 HP, a game that fought its first mouse by the
/// Fight button died) and give no experience (a level gained would make the character whole again, with
/// nothing left to heal), and a Health Pack that heals 1 HP, so that a player healed by it is
/// still hurt and can rest.
fn content() -> Content {
    let text = BUILTIN
        .replace("loose = [0, 2]", "loose = [6, 6]")
        .replace("heal_percent = 50", "heal_percent = 1")
        .replace("\nattack_max = 4\n", "\nattack_max = 2\n")
        .replace("\nhp = 25\n", "\nhp = 40\n");
    assert!(
        text.contains("\nhp = 40\n"),
        "the player's HP are as expected"
    );
    assert!(
        text.contains("\nattack_max = 2\n"),
        "the player's numbers are as expected"
    );
    let start = text.find("key = \"micro_mouse\"").expect("a micro mouse");
    let end = start + text[start..].find("[[monster]]").expect("another monster");
    let mouse = text[start..end]
        .replace("hp = [1, 4]", "hp = [3, 3]")
        .replace("attack = [1, 3]", "attack = [1, 1]")
        .replace("xp = 10 ", "xp = 0 ");
    assert_ne!(
        mouse,
        text[start..end],
        "the mouse's numbers are as expected"
    );
    assert!(
        mouse.contains("xp = 0 "),
        "the mouse's experience is as expected"
    );
    assert!(
        text.contains("heal_percent = 1\n"),
        "the Health Pack's numbers are as expected"
    );
    let text = format!("{}{mouse}{}", &text[..start], &text[end..]);
    Content::parse(&text, "phone test content").expect("the content parses")
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// The centre of the control the page shows for `name`, if it shows one.
fn button(st: &Value, name: &str) -> Option<(f64, f64)> {
    st["buttons"]
        .as_array()?
        .iter()
        .find_map(|b| (b[0] == name).then(|| (num(&b[1][0]), num(&b[1][1]))))
}

/// The centre of map cell `cell` ([x, y]) on the page.
fn cell_centre(st: &Value, cell: &Value) -> (f64, f64) {
    let cam = &st["camera"];
    let tile = num(&cam[2]);
    (
        num(&cam[0]) + (num(&cell[0]) + 0.5) * tile,
        num(&cam[1]) + (num(&cell[1]) + 0.5) * tile,
    )
}

/// Taps the control `name`, waiting for it to be shown.
async fn tap_button(b: &mut Browser, name: &str) {
    let st = b
        .wait_status(&format!("a {name} button"), Duration::from_secs(20), |st| {
            button(st, name).is_some()
        })
        .await
        .expect("the button is shown");
    let (x, y) = button(&st, name).expect("shown");
    b.tap(x, y).await.expect("a tap reaches the page");
}

/// Whether one of the log's newest lines holds `text`.
fn logged(st: &Value, text: &str) -> bool {
    st["log"].as_array().is_some_and(|l| {
        l.iter()
            .any(|line| line.as_str().is_some_and(|s| s.contains(text)))
    })
}

/// Waits until the page has drawn two more frames, so input given so far has been seen (a
/// frame reads what came before it; the one drawing as the status was read may have missed it).
async fn seen(b: &mut Browser) {
    let drawn = num(&b.status().await.expect("the status")["frames"]);
    b.wait_status("two more frames", Duration::from_secs(20), |st| {
        num(&st["frames"]) >= drawn + 2.0
    })
    .await
    .expect("the page keeps drawing");
}

/// Waits until nothing is under way in the game.
async fn settle(b: &mut Browser) -> Value {
    b.wait_status("the game to settle", Duration::from_secs(20), |st| {
        st["busy"] == false && st["screen"] != Value::Null
    })
    .await
    .expect("the game settles")
}

/// Plays a phone `w`×`h` from the link to floor 2 by touches alone.
async fn play_phone(server: &TestServer, w: u32, h: u32) {
    let dungeon = format!("phone{w}");
    let page = format!(
        "{}/?dungeon={dungeon}&name=Ann",
        server.url.replace("ws://", "http://")
    );
    // The pictures go to `$DELVE_BROWSER_SHOTS/` (a folder) when it is set, to look at.
    let shots = std::env::var_os("DELVE_BROWSER_SHOTS").map(std::path::PathBuf::from);
    let keep = async |b: &mut Browser, what: &str| {
        if let Some(dir) = &shots {
            let png = b.screenshot().await.expect("a screenshot");
            std::fs::create_dir_all(dir).expect("the screenshot folder");
            std::fs::write(dir.join(format!("phone-{w}x{h}-{what}.png")), png).expect("saved");
        }
    };
    let mut browser = Browser::launch(w, h).await.expect("chromium starts");
    browser.phone(w, h).await.expect("a phone's screen");
    browser.navigate(&page).await.expect("the page loads");
    let st = browser
        .wait_status("the map drawn", Duration::from_secs(30), |st| {
            st["map"] == true
        })
        .await
        .expect("the browser client joins from the link");
    // A phone is played by touch from the start: the bar of buttons is there, no hover.
    assert_eq!(st["touch"], true, "{st}");

    let deadline = Instant::now() + Duration::from_secs(240);
    let (mut healed, mut rested, mut chatted) = (false, false, false);
    let mut taps = 0;
    // Where we and the monster stood when we last tapped it: a tap that changed nothing (no
    // known way to it) is followed by waiting for it to come.
    let mut last_fight: Option<(Value, Value)> = None;
    // Whether a blow was struck by the Fight button (the first fight is fought with it).
    let mut struck = false;
    loop {
        let st = settle(&mut browser).await;
        assert!(
            Instant::now() < deadline,
            "not on floor 2 in time (healed {healed}, rested {rested}, chatted {chatted}): {st}"
        );
        // A tap leaves no pointer behind, so nothing hovers.
        assert_eq!(st["hover"], Value::Null, "{st}");
        if num(&st["depth"]) >= 2.0 {
            break;
        }
        taps += 1;
        let (hp, max) = (num(&st["hp"][0]), num(&st["hp"][1]));
        let health_pack = st["pack"]
            .as_array()
            .and_then(|p| p.iter().position(|k| k == "health_pack"));
        if st["screen"] == "level-up" {
            tap_button(&mut browser, "row 0").await;
        } else if st["screen"] != "game" {
            panic!("an unexpected screen is open: {st}");
        } else if let (false, true, Some(k), false) =
            (healed, hp < max, health_pack, st["monster"].is_array())
        {
            // Hurt, with a Health Pack, and no monster in sight (none can act while the pack
            // is open, but the fight comes first): the pack, its line, Use. Each tap waits for
            // the page to show what it did before the next one.
            tap_button(&mut browser, "inventory").await;
            browser
                .wait_status("the pack open", Duration::from_secs(20), |st| {
                    st["screen"] == "pack"
                })
                .await
                .expect("the Pack button opens the pack");
            tap_button(&mut browser, &format!("row {k}")).await;
            browser
                .wait_status(
                    "the Health Pack chosen, with its Use button",
                    Duration::from_secs(20),
                    |st| st["pack_selected"] == k && button(st, "use").is_some(),
                )
                .await
                .expect("a tap on the Health Pack's line selects it and shows Use");
            keep(&mut browser, "pack").await;
            tap_button(&mut browser, "use").await;
            browser
                .wait_status("the Health Pack to heal", Duration::from_secs(20), |st| {
                    logged(st, "You use the Health Pack and heal")
                })
                .await
                .expect("using the Health Pack heals");
            healed = true;
        } else if let (true, false, true, false) =
            (healed, rested, hp < max, st["monster"].is_array())
        {
            // Still hurt, nothing in sight: the Rest button, which turns into Stop while the
            // character rests; the rest ends by itself, and the log says why.
            tap_button(&mut browser, "rest").await;
            let st = browser
                .wait_status("the rest to end", Duration::from_secs(60), |st| {
                    st["resting"] == false
                        && (logged(st, "You are fully rested.") || logged(st, "You stop resting"))
                })
                .await
                .expect("the Rest button rests");
            assert!(!logged(&st, "You cannot rest"), "{st}");
            rested = true;
        } else if !chatted {
            // The Chat button brings the page's text field, focused for the keyboard.
            tap_button(&mut browser, "chat").await;
            let deadline = Instant::now() + Duration::from_secs(10);
            while browser
                .eval("document.activeElement && document.activeElement.id")
                .await
                .expect("the page answers")
                != "delve-field"
            {
                if Instant::now() > deadline {
                    let field = browser
                        .eval("String(document.getElementById('delve-field'))")
                        .await
                        .expect("the page answers");
                    let st = browser.status().await.expect("the status");
                    panic!("no text field took the focus (field: {field}; status {st})");
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            browser
                .insert_text("hello from a phone")
                .await
                .expect("typing");
            keep(&mut browser, "chat").await;
            browser
                .press("Enter")
                .await
                .expect("the keyboard's send key");
            browser
                .wait_status("the chat line heard", Duration::from_secs(20), |st| {
                    st["chat"] == "Ann: hello from a phone"
                })
                .await
                .expect("the chat goes through the text field");
            let gone = browser
                .eval("document.getElementById('delve-field') === null")
                .await
                .expect("the page answers");
            assert_eq!(gone, true, "the text field goes once sent");
            chatted = true;
        } else if st["monster"].is_array() && !struck {
            // The first fight by the Fight button: a step towards the nearest monster in sight
            // a tap, or a blow once beside it, until the log tells of a blow. One that cannot
            // be reached (no known way) comes to a player who waits.
            let here = (st["me"].clone(), st["monster"].clone());
            if last_fight.as_ref() != Some(&here) {
                tap_button(&mut browser, "fight").await;
                last_fight = Some(here);
            } else {
                tap_button(&mut browser, "wait").await;
                last_fight = None;
            }
            seen(&mut browser).await;
            let st = settle(&mut browser).await;
            struck = ["You hit the ", "You miss the ", "You kill the "]
                .iter()
                .any(|blow| logged(&st, blow));
            if struck {
                keep(&mut browser, "fight").await;
            }
            continue;
        } else if st["monster"].is_array() {
            // Fight: a tap on the monster walks to it and fights it until it dies (or a bite
            // from another stops the walk). One in sight but off the screen (a phone shows
            // little of the map) comes to a player who waits.
            let (x, y) = cell_centre(&st, &st["monster"]);
            let a = &st["map_area"];
            let (ax, ay, aw, ah) = (num(&a[0]), num(&a[1]), num(&a[2]), num(&a[3]));
            let on_screen = x > ax && x < ax + aw && y > ay && y < ay + ah;
            let here = (st["me"].clone(), st["monster"].clone());
            if on_screen && last_fight.as_ref() != Some(&here) {
                browser.tap(x, y).await.expect("a tap on the map");
                last_fight = Some(here);
            } else {
                tap_button(&mut browser, "wait").await;
                last_fight = None;
            }
        } else if healed && rested && st["stairs"].is_array() {
            tap_button(&mut browser, "descend").await;
        } else {
            tap_button(&mut browser, "explore").await;
        }
        // The tap lands before the game is asked whether it has settled.
        seen(&mut browser).await;
    }
    assert!(struck, "a blow struck by the Fight button on the way");
    println!("{w}x{h}: floor 2 after {taps} moves by touch");
    keep(&mut browser, "floor-2").await;
}

/// The lobby on a phone: a new dungeon made by taps, its name typed in the page's text field
/// (the phone keyboard's), the password question left empty, and the game begins in it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_makes_a_dungeon_in_the_lobby_with_its_keyboard() {
    if !can_run() {
        return;
    }
    let server = TestServer::start(test_config()).await;
    let page = format!("{}/?name=Ann", server.url.replace("ws://", "http://"));
    let mut browser = Browser::launch(390, 844).await.expect("chromium starts");
    browser.phone(390, 844).await.expect("a phone's screen");
    browser.navigate(&page).await.expect("the page loads");
    browser
        .wait_status("the lobby", Duration::from_secs(30), |st| {
            st["screen"] == "lobby" && st["touch"] == true
        })
        .await
        .expect("the lobby opens, laid out for touch");
    tap_button(&mut browser, "n").await;
    for (question, text) in [("new-dungeon", "pocket"), ("new-password", "")] {
        browser
            .wait_status(question, Duration::from_secs(10), |st| {
                st["screen"] == question
            })
            .await
            .expect("the lobby asks");
        let deadline = Instant::now() + Duration::from_secs(10);
        while browser
            .eval("document.activeElement && document.activeElement.id")
            .await
            .expect("the page answers")
            != "delve-field"
        {
            assert!(Instant::now() < deadline, "no text field for {question}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if !text.is_empty() {
            browser.insert_text(text).await.expect("typing");
        }
        browser
            .press("Enter")
            .await
            .expect("the keyboard's send key");
    }
    browser
        .wait_status(
            "the game in the new dungeon",
            Duration::from_secs(30),
            |st| st["map"] == true,
        )
        .await
        .expect("the new dungeon is made and joined");
    let url = browser
        .eval("window.location.href")
        .await
        .expect("the page");
    let field_gone = browser
        .eval("document.getElementById('delve-field') === null")
        .await
        .expect("the page answers");
    assert_eq!(field_gone, true, "no text field left over the game ({url})");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_plays_to_floor_two_by_touch_upright_and_on_its_side() {
    if !can_run() {
        return;
    }
    let config = delve_server::net::ServerConfig {
        content: std::sync::Arc::new(content()),
        seed: Some(SEED),
        ..test_config()
    };
    let server = TestServer::start(config).await;
    play_phone(&server, 390, 844).await;
    play_phone(&server, 844, 390).await;
}
