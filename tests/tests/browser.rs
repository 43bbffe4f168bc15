//! The browser client end to end: a real server serves the page; headless Chromium loads it
//! from a shared link (`?dungeon=..&name=Ann`), the wasm client joins and moves on keys sent
//! over the DevTools protocol; a scripted native player in the same dungeon sees Ann arrive and
//! move and hears her chat; a reload resumes Ann's character from the token the page kept in localStorage; and a
//! screenshot of the page shows a drawn game, not a blank canvas.
//!
//! Without Chromium the test fails under CI (CI=true) and is skipped with a reason elsewhere.

use delve_protocol::Action;
use std::time::Duration;

use delve_protocol::{ClientMsg, Dir, Pos, ServerMsg, View};
use delve_tests::browser::{Browser, can_run, png_colours};
use delve_tests::{Bot, TestServer, test_config};
use tokio::sync::watch;

/// The DOM key code of the numpad key that moves in `d`.
fn numpad(d: Dir) -> &'static str {
    match d {
        Dir::N => "Numpad8",
        Dir::Ne => "Numpad9",
        Dir::E => "Numpad6",
        Dir::Se => "Numpad3",
        Dir::S => "Numpad2",
        Dir::Sw => "Numpad1",
        Dir::W => "Numpad4",
        Dir::Nw => "Numpad7",
    }
}

/// Bob plays natively: he answers the turn clock with `wait` whenever the floor waits for him,
/// and publishes every view he gets.
fn spawn_bob(bob: Bot) -> (watch::Receiver<Option<View>>, tokio::task::JoinHandle<()>) {
    spawn_listener(bob, None)
}

/// Like [`spawn_bob`], and every chat line Bob hears goes to `chat` as (from, text).
fn spawn_listener(
    mut bob: Bot,
    chat: Option<tokio::sync::mpsc::UnboundedSender<(String, String)>>,
) -> (watch::Receiver<Option<View>>, tokio::task::JoinHandle<()>) {
    let (tx, rx) = watch::channel(None);
    let task = tokio::spawn(async move {
        while let Ok(msg) = bob.session.recv().await {
            let mine = matches!(&msg, ServerMsg::TurnStatus { waiting_for, .. }
                if waiting_for.iter().any(|n| n == "Bob"));
            let handled = bob.model.handle(msg);
            if let (Ok(h), Some(chat)) = (&handled, &chat) {
                for e in &h.events {
                    if let delve_protocol::Event::Chat { from, text } = e {
                        let _ = chat.send((from.clone(), text.clone()));
                    }
                }
            }
            if handled.is_err() {
                bob.session
                    .send(&ClientMsg::Resync)
                    .await
                    .unwrap_or_else(|e| panic!("Bob cannot resync: {e}"));
            }
            if mine {
                bob.session
                    .send(&ClientMsg::Act(Action::Wait))
                    .await
                    .unwrap_or_else(|e| panic!("Bob cannot wait: {e}"));
            }
            let _ = tx.send(bob.model.view.clone());
        }
    });
    (rx, task)
}

/// Waits until Bob's view satisfies `ok`, returning what `ok` found.
async fn bob_sees<T>(
    rx: &mut watch::Receiver<Option<View>>,
    what: &str,
    ok: impl Fn(&View) -> Option<T>,
) -> T {
    let found = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let Some(t) = rx.borrow_and_update().as_ref().and_then(&ok) {
                return t;
            }
            if rx.changed().await.is_err() {
                panic!("Bob's connection ended while waiting for {what}");
            }
        }
    })
    .await;
    found.unwrap_or_else(|_| panic!("Bob did not see {what} within 20 s"))
}

/// Ann as Bob sees her: entity id and position.
fn ann(v: &View) -> Option<(u32, Pos)> {
    v.entities
        .iter()
        .find(|e| &*e.name == "Ann")
        .map(|e| (e.id, e.pos))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_player_joins_moves_and_resumes_after_a_reload() {
    if !can_run() {
        return;
    }
    let server = TestServer::start(test_config()).await;
    let page = format!(
        "{}/?dungeon=webtest&name=Ann",
        server.url.replace("ws://", "http://")
    );
    let bob = Bot::join(&server.url, "Bob", "webtest").await;
    let (chat_tx, mut chat_rx) = tokio::sync::mpsc::unbounded_channel();
    let (mut bob_view, bob_task) = spawn_listener(bob, Some(chat_tx));

    let mut browser = Browser::launch(1280, 800).await.expect("chromium starts");
    browser.navigate(&page).await.expect("the page loads");
    let st = browser
        .wait_status("the map drawn in the page", Duration::from_secs(30), |st| {
            st["map"] == true
        })
        .await
        .expect("the browser client joins");
    println!(
        "first map drawn {} ms after navigation",
        st["first_map_ms"].as_f64().unwrap_or(f64::NAN)
    );
    let (id, at) = bob_sees(&mut bob_view, "Ann arrive", ann).await;

    // Ann steps onto a floor tile next to her that Bob knows is free.
    let (dir, to) = bob_sees(&mut bob_view, "a free tile beside Ann", |v| {
        let bob = v.me.pos;
        Dir::ALL
            .into_iter()
            .map(|d| (d, at.step(d)))
            .find(|&(_, p)| v.map.get(p).is_walkable() && p != bob)
    })
    .await;
    browser
        .press(numpad(dir))
        .await
        .expect("a key reaches the page");
    bob_sees(&mut bob_view, "Ann move", |v| {
        ann(v).filter(|&(i, p)| i == id && p == to)
    })
    .await;
    browser
        .wait_status(
            "Ann's own view to show the step",
            Duration::from_secs(10),
            |st| st["me"] == serde_json::json!([to.x, to.y]),
        )
        .await
        .expect("the page follows its own move");

    // Ann chats: Enter opens the line, the typed text goes in, Enter sends it to everyone.
    browser.press("Enter").await.expect("Enter");
    browser
        .wait_status("the chat line open", Duration::from_secs(10), |st| {
            st["screen"] == "chat"
        })
        .await
        .expect("Enter opens the chat line");
    browser
        .type_text("hello from the web")
        .await
        .expect("typing");
    browser.press("Enter").await.expect("Enter");
    let heard = tokio::time::timeout(Duration::from_secs(20), chat_rx.recv())
        .await
        .expect("Bob hears Ann within 20 s")
        .expect("Bob is listening");
    assert_eq!(heard, ("Ann".to_owned(), "hello from the web".to_owned()));

    let shot = browser.screenshot().await.expect("a screenshot");
    let (w, h, colours) = png_colours(&shot).expect("the screenshot is a PNG");
    assert_eq!((w, h), (1280, 800), "the canvas fills the window");
    assert!(
        colours >= 16,
        "the page shows a drawn game, not a blank canvas ({colours} colours)"
    );
    if let Some(path) = std::env::var_os("DELVE_BROWSER_SCREENSHOT") {
        std::fs::write(&path, &shot).expect("the screenshot is saved");
    }

    // A reload starts the client afresh; its token, kept in localStorage, takes Ann back.
    browser.reload().await.expect("the page reloads");
    browser
        .wait_status(
            "the map drawn again, where Ann stood",
            Duration::from_secs(30),
            |st| st["map"] == true && st["me"] == serde_json::json!([to.x, to.y]),
        )
        .await
        .expect("the reloaded page resumes Ann");
    let (again, pos) = bob_sees(&mut bob_view, "Ann back", ann).await;
    assert_eq!(
        (again, pos),
        (id, to),
        "the same character, where she stood"
    );

    bob_task.abort();
    drop(browser);
    server.stop().await;
}

/// A link without a name asks it once (the browser remembers it); a private dungeon asks its
/// password first, even from a link.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_asks_the_name_once_and_a_private_dungeon_its_password() {
    if !can_run() {
        return;
    }
    let server = TestServer::start(test_config()).await;
    let page = format!("{}/?dungeon=vault", server.url.replace("ws://", "http://"));
    let carol = Bot::join_private(&server.url, "Carol", "vault", "sesame").await;
    let (mut carol_view, carol_task) = spawn_bob(carol);

    let mut browser = Browser::launch(800, 600).await.expect("chromium starts");
    browser.navigate(&page).await.expect("the page loads");
    let long = Duration::from_secs(30);
    browser
        .wait_status("the name asked", long, |st| st["screen"] == "name")
        .await
        .expect("a new browser asks the player's name");
    browser.type_text("Dan").await.expect("typing");
    browser.press("Enter").await.expect("Enter");
    browser
        .wait_status("the password asked", long, |st| st["screen"] == "password")
        .await
        .expect("a private dungeon asks its password, even from a link");
    browser.type_text("sesame").await.expect("typing");
    browser.press("Enter").await.expect("Enter");
    browser
        .wait_status("the map drawn", long, |st| st["map"] == true)
        .await
        .expect("the right password lets Dan in");
    bob_sees(&mut carol_view, "Dan arrive", |v| {
        v.entities.iter().find(|e| &*e.name == "Dan").map(|_| ())
    })
    .await;
    let shot = browser.screenshot().await.expect("a screenshot");
    let (w, h, colours) = png_colours(&shot).expect("a PNG");
    assert_eq!((w, h), (800, 600), "the canvas follows the window's size");
    assert!(colours >= 16, "a drawn game at 800x600 ({colours} colours)");
    if let Some(path) = std::env::var_os("DELVE_BROWSER_SCREENSHOT_SMALL") {
        std::fs::write(&path, &shot).expect("the screenshot is saved");
    }

    // The canvas follows the window when it is resized.
    browser.resize(1024, 700).await.expect("a resize");
    let deadline = std::time::Instant::now() + long;
    loop {
        let size = browser
            .eval("[canvas.width, canvas.height]")
            .await
            .expect("the canvas");
        if size == serde_json::json!([1024, 700]) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the canvas stayed {size} after the window became 1024x700"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }

    // The browser remembers the name: a reload goes straight to the password.
    browser.reload().await.expect("the page reloads");
    let st = browser
        .wait_status("the lobby after a reload", long, |st| {
            st["screen"] == "password" || st["screen"] == "name"
        })
        .await
        .expect("the reloaded page asks again");
    assert_eq!(st["screen"], "password", "the name is asked only once");

    carol_task.abort();
    drop(browser);
    server.stop().await;
}

/// The lobby works in the page (a new dungeon made there); the page's own connection reconnects
/// with backoff when the server goes away, and resumes the character from the server's database
/// when it is back on the same address.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_makes_a_dungeon_and_the_page_resumes_it_after_a_server_restart() {
    if !can_run() {
        return;
    }
    let data = tempfile::tempdir().expect("a data directory");
    let config = delve_server::net::ServerConfig {
        data_dir: Some(data.path().to_owned()),
        ..test_config()
    };
    let server = TestServer::start(config.clone()).await;
    let addr = server.url.trim_start_matches("ws://").to_owned();
    let mut browser = Browser::launch(1280, 800).await.expect("chromium starts");
    // Through the lobby, as in the native game: n, the new dungeon's name, Enter, no password.
    browser
        .navigate(&format!("http://{addr}/?name=Eve"))
        .await
        .expect("the page loads");
    let long = Duration::from_secs(30);
    browser
        .wait_status("the lobby", long, |st| st["screen"] == "lobby")
        .await
        .expect("a link without a dungeon opens the lobby");
    browser.type_text("n").await.expect("typing");
    browser
        .wait_status("the new dungeon's name asked", long, |st| {
            st["screen"] == "new-dungeon"
        })
        .await
        .expect("n asks for a new dungeon");
    browser.type_text("again").await.expect("typing");
    browser.press("Enter").await.expect("Enter");
    browser
        .wait_status("the password asked", long, |st| {
            st["screen"] == "new-password"
        })
        .await
        .expect("then the new dungeon's password");
    browser
        .press("Enter")
        .await
        .expect("Enter: a public dungeon");
    let st = browser
        .wait_status("Eve in the game", long, |st| st["online"] == true)
        .await
        .expect("the browser client joins");
    let me = st["me"].clone();
    assert!(me.is_array(), "Eve stands somewhere: {st}");

    server.stop().await;
    browser
        .wait_status("the page to notice", long, |st| st["online"] == false)
        .await
        .expect("the page sees its server go");
    let back = TestServer::start(delve_server::net::ServerConfig {
        bind: addr.parse().expect("the old address"),
        ..config
    })
    .await;
    browser
        .wait_status("Eve back where she stood", long, |st| {
            st["online"] == true && st["me"] == me
        })
        .await
        .expect("the page reconnects by itself and resumes Eve");
    drop(browser);
    back.stop().await;
}

/// Put into the page before its own scripts: counts the sound buffers Web Audio is asked to
/// start (past the one-sample buffer macroquad's loader plays to unlock audio), keeps the
/// AudioContexts made (the game's is the first), and keeps what the page logs as an error or a
/// warning.
const AUDIO_PROBE: &str = r#"
window.delveProbe = { starts: 0, contexts: [], console: [] };
(function () {
  const start = AudioBufferSourceNode.prototype.start;
  AudioBufferSourceNode.prototype.start = function (...args) {
    if (this.buffer && this.buffer.length > 1) window.delveProbe.starts += 1;
    return start.apply(this, args);
  };
  const Base = window.AudioContext;
  window.AudioContext = class extends Base {
    constructor(...args) {
      super(...args);
      window.delveProbe.contexts.push(this);
    }
  };
  for (const level of ["error", "warn"]) {
    const old = console[level];
    console[level] = function (...args) {
      window.delveProbe.console.push(level + ": " + args.map(String).join(" "));
      return old.apply(this, args);
    };
  }
})();
"#;

/// The browser client in play, looked at: the mouse on a monster says what it is, Esc opens
/// the menu, and the menu's sound line plays a sample through Web Audio: the page's own audio
/// context runs, a real buffer is started, and nothing about audio (nor a deleted texture) was
/// logged as an error or a warning. The pictures go
/// to `$DELVE_BROWSER_SHOTS/` (a folder) when it is set, to look at.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_client_points_at_a_monster_opens_its_menu_and_plays_a_sound() {
    if !can_run() {
        return;
    }
    let config = delve_server::net::ServerConfig {
        content: std::sync::Arc::new(delve_server::game::Content::builtin()),
        ..test_config()
    };
    let server = TestServer::start(config).await;
    let page = format!(
        "{}/?dungeon=sounds&name=Ann",
        server.url.replace("ws://", "http://")
    );
    let shots = std::env::var_os("DELVE_BROWSER_SHOTS").map(std::path::PathBuf::from);
    let keep = |name: &str, png: &[u8]| {
        if let Some(dir) = &shots {
            std::fs::create_dir_all(dir).expect("the screenshot folder");
            std::fs::write(dir.join(name), png).expect("the screenshot is saved");
        }
    };
    let long = Duration::from_secs(30);
    let mut browser = Browser::launch(1280, 800).await.expect("chromium starts");
    browser
        .before_each_page(AUDIO_PROBE)
        .await
        .expect("the probe goes in");
    browser.navigate(&page).await.expect("the page loads");
    browser
        .wait_status("the map drawn", long, |st| st["map"] == true)
        .await
        .expect("the browser client joins");

    // Explore (x) until a monster comes into view: each x walks until something happens.
    let mut seen = None;
    for _ in 0..20 {
        browser.type_text("x").await.expect("x");
        let settled = browser
            .wait_status("a monster in sight", Duration::from_secs(5), |st| {
                st["monster"].is_array()
            })
            .await;
        if let Ok(st) = settled {
            seen = Some(st);
            break;
        }
    }
    seen.expect("exploring brings a monster into view");
    // Point at it. The camera glides after the last step, so aim again from the latest status
    // until the game says the mouse is over the monster.
    let num = |v: &serde_json::Value| v.as_f64().expect("a number");
    let deadline = std::time::Instant::now() + long;
    loop {
        let st = browser.status().await.expect("the status");
        if st["monster"].is_array() && st["hover"] == st["monster"] {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the mouse never came over the monster: {st}"
        );
        let (cam, monster) = (&st["camera"], &st["monster"]);
        if cam.is_array() && monster.is_array() {
            let (ox, oy, tile) = (num(&cam[0]), num(&cam[1]), num(&cam[2]));
            let at = |i: usize, o: f64| o + (num(&monster[i]) + 0.5) * tile;
            browser
                .mouse_to(at(0, ox), at(1, oy))
                .await
                .expect("the mouse moves");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let hover = browser.screenshot().await.expect("a screenshot");
    keep("hover.png", &hover);
    let (_, _, colours) = png_colours(&hover).expect("a PNG");
    assert!(colours >= 16, "a drawn game ({colours} colours)");

    // Esc opens the menu; its third line is the sound, where Right plays a sample louder.
    browser.press("Escape").await.expect("Esc");
    browser
        .wait_status("the menu", long, |st| st["screen"] == "menu")
        .await
        .expect("Esc opens the menu");
    let before = browser
        .eval("window.delveProbe.starts")
        .await
        .expect("the probe");
    let asked = browser.status().await.expect("the status")["sounds"].clone();
    // One key a frame: the page reads the keys pressed since its last frame all at once.
    for line in 1..=2 {
        browser.press("ArrowDown").await.expect("Down");
        browser
            .wait_status("the next line of the menu", long, |st| st["menu"] == line)
            .await
            .expect("Down moves down the menu");
    }
    browser.press("ArrowRight").await.expect("Right");
    browser
        .wait_status("the sample asked for", long, |st| st["sounds"] != asked)
        .await
        .expect("Right on the sound line plays a sample");
    let deadline = std::time::Instant::now() + long;
    let probe = loop {
        let probe = browser
            .eval(
                "({ starts: window.delveProbe.starts, \
                    state: window.delveProbe.contexts.length \
                        ? window.delveProbe.contexts[0].state : 'none', \
                    console: window.delveProbe.console })",
            )
            .await
            .expect("the probe");
        if probe["starts"] != before || std::time::Instant::now() > deadline {
            break probe;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    let menu = browser.screenshot().await.expect("a screenshot");
    keep("menu.png", &menu);
    println!("the page's audio: {probe}");
    assert!(
        probe["starts"].as_u64() > before.as_u64(),
        "Web Audio started the sample: {probe}"
    );
    assert_eq!(
        probe["state"], "running",
        "the game's audio context runs: {probe}"
    );
    let troubles: Vec<&serde_json::Value> = probe["console"]
        .as_array()
        .expect("a list")
        .iter()
        .filter(|l| {
            // What macroquad's audio plugin says when it fails ("Failed to decode audio
            // buffer", "Error starting sound", ...), and what the page said while the font
            // atlas grew in the middle of a frame (see `warm_glyphs` in the client).
            let l = l.as_str().unwrap_or_default().to_lowercase();
            l.contains("audio") || l.contains("sound") || l.contains("deleted texture")
        })
        .collect();
    assert!(troubles.is_empty(), "the page logged: {troubles:?}");
    drop(browser);
    server.stop().await;
}

/// Evaluates `expr` in the page until `ok` holds, for at most 20 s; panics naming `what` and
/// the last value.
async fn page_until(
    browser: &mut Browser,
    what: &str,
    expr: &str,
    ok: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let v = browser.eval(expr).await.expect("the page answers");
        if ok(&v) {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "waited 20 s for {what}; {expr} is {v}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// "Your move, even in another tab": with Bob's choice made, the floor waits for Ann, and her
/// tab's title says so (and a tone is asked for, the page taken for not in front); her move
/// resolves the turn and the title is the page's own again. Bob, who has chosen, is not named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tab_title_says_your_move_while_the_floor_waits_for_you() {
    if !can_run() {
        return;
    }
    let server = TestServer::start(test_config()).await;
    let page = format!(
        "{}/?dungeon=yourmove&name=Ann",
        server.url.replace("ws://", "http://")
    );
    let mut bob = Bot::join(&server.url, "Bob", "yourmove").await;
    let mut browser = Browser::launch(1280, 800).await.expect("chromium starts");
    browser.navigate(&page).await.expect("the page loads");
    browser
        .wait_status("the map drawn", Duration::from_secs(30), |st| {
            st["map"] == true && st["online"] == true
        })
        .await
        .expect("the browser client joins");
    let title = "document.title";
    assert_eq!(browser.eval(title).await.expect("a title"), "Delve");
    // The page is taken for one in the background (another window in front).
    browser
        .eval("document.hasFocus = () => false; 0")
        .await
        .expect("focus faked");
    for round in 1..=2 {
        bob.send(ClientMsg::Act(Action::Wait)).await;
        page_until(
            &mut browser,
            "the title to say it is Ann's move",
            title,
            |v| v == "Your move \u{2013} Delve",
        )
        .await;
        let chimes = browser.eval("window.delveChimes").await.expect("a count");
        assert_eq!(
            chimes, round,
            "one tone for each wait, the page not in front"
        );
        browser.press("Numpad5").await.expect("Ann waits");
        page_until(&mut browser, "the title back once Ann chose", title, |v| {
            v == "Delve"
        })
        .await;
    }
    drop(browser);
    server.stop().await;
}
