//! `delve`: the Delve game client. Natively it reads its command line; in a browser (the same
//! code built for wasm32, served by delve-server) it reads the page's address instead.

#[cfg(not(target_arch = "wasm32"))]
use std::path::PathBuf;

#[cfg(not(target_arch = "wasm32"))]
use clap::Parser;
#[cfg(not(target_arch = "wasm32"))]
use delve_client::solo::SoloServer;
use delve_client::tokens::TokenStore;
use delve_client::ui::{Options, run};
use macroquad::window::Conf;

#[cfg(not(target_arch = "wasm32"))]
/// Delve: a multiplayer roguelike. Without --server, starts a private local game (--solo).
#[derive(Debug, Parser)]
#[command(name = "delve", version)]
struct Args {
    /// Server to join, as ws://HOST:PORT.
    #[arg(long, conflicts_with = "solo")]
    server: Option<String>,

    /// Your character's name (defaults to your login name).
    #[arg(long)]
    name: Option<String>,

    /// Dungeon to join on the server; friends who give the same name play together. Without it,
    /// the lobby lists the server's dungeons.
    #[arg(long, requires = "server")]
    dungeon: Option<String>,

    /// Password of a private dungeon (or, for a new dungeon, the password that makes it private).
    #[arg(long, requires = "dungeon")]
    password: Option<String>,

    /// Watch this player's game instead of playing.
    #[arg(long, requires = "dungeon")]
    watch: Option<String>,

    /// Watch finished game GAME of the server again (its id, as in /games/GAME), instead of
    /// playing: Space plays or pauses, arrows step and change the speed, a typed turn and
    /// Enter jumps there.
    #[arg(long, value_name = "GAME", requires = "server", conflicts_with_all = ["dungeon", "watch"])]
    replay: Option<u64>,

    /// The key of a private dungeon's game to replay (the `key=` of its link).
    #[arg(long, requires = "replay")]
    replay_key: Option<String>,

    /// Play alone: start a private server inside the game (the default without --server).
    #[arg(long)]
    solo: bool,

    /// Save a PNG of the window to this path after --frames frames of play, then exit.
    #[arg(long, requires = "frames")]
    screenshot: Option<PathBuf>,

    /// Frames to run before the screenshot.
    #[arg(long, requires = "screenshot")]
    frames: Option<u32>,

    /// Play these steps instead of a hand on the keys, e.g. "key x; idle; shot a.png" (for
    /// screenshot tests; the steps are listed in the client's src/script.rs).
    #[arg(long)]
    script: Option<String>,

    /// The window's size at start, as WIDTHxHEIGHT (default 1280x800; it can be resized).
    #[arg(long, value_parser = parse_size)]
    size: Option<(i32, i32)>,

    /// Print frame-time statistics to standard error every 5 seconds (for benchmarks).
    #[arg(long)]
    frame_stats: bool,

    /// Benchmark (docs/BENCHMARKS.md): record a game on a solo server of its own, then draw N
    /// frames of it alone and N applying its next update, print a table and exit.
    #[arg(long, hide = true, value_name = "N", conflicts_with_all = ["server", "script", "screenshot"])]
    bench_frames: Option<u32>,

    /// Lay the game out for a touch screen, as on a phone (large buttons beside the map, no
    /// hover), as the browser does by itself on a phone or tablet.
    #[arg(long)]
    touch: bool,
}

#[cfg(not(target_arch = "wasm32"))]
fn parse_size(s: &str) -> Result<(i32, i32), String> {
    let (w, h) = s
        .split_once('x')
        .ok_or("expected WIDTHxHEIGHT, as 800x600")?;
    let n = |v: &str| v.trim().parse::<i32>().map_err(|e| format!("{v:?}: {e}"));
    let (w, h) = (n(w)?, n(h)?);
    if w < 320 || h < 240 {
        return Err("the window needs at least 320x240".into());
    }
    Ok((w, h))
}

#[cfg(not(target_arch = "wasm32"))]
fn default_name() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_default();
    let clean: String = user
        .chars()
        .filter(|c| c.is_alphanumeric())
        .take(20)
        .collect();
    let mut chars = clean.chars();
    match chars.next() {
        Some(first) if clean != "root" => first.to_uppercase().chain(chars).collect(),
        _ => "Adventurer".to_string(),
    }
}

/// The window: 1280×800 unless asked otherwise, and resizable (the layout follows).
fn conf(size: Option<(i32, i32)>) -> Conf {
    let (w, h) = size.unwrap_or((1280, 800));
    Conf {
        window_title: "Delve".to_owned(),
        window_width: w,
        window_height: h,
        // In a browser, draw at the display's own density (a phone's devicePixelRatio of 3):
        // macroquad keeps its units in CSS pixels and rasterizes text and the map's pixels
        // sharp. Natively X11 reports no density of its own, and the window's size alone sets
        // the interface's scale (ui::layout).
        high_dpi: cfg!(target_arch = "wasm32"),
        window_resizable: true,
        // X11's WM_CLASS, by which desktops group windows and find the window's icon.
        platform: macroquad::miniquad::conf::Platform {
            linux_wm_class: "delve",
            ..Default::default()
        },
        ..Default::default()
    }
}

/// In the browser: the server is the one that served the page; `?dungeon=` and `?name=` come
/// from the link; a name asked before is remembered. On `/replay/ID` the page replays that
/// finished game instead.
#[cfg(target_arch = "wasm32")]
fn main() {
    use delve_client::link::{PageLink, ReplayLink};
    use delve_web_js::{Page, page};
    let link = PageLink::parse(&page(Page::Query));
    let replay = ReplayLink::parse(&page(Page::Path), &page(Page::Query));
    let name = match link.name {
        Some(n) => {
            delve_client::ui::web::remember_name(&n);
            n
        }
        // Empty: the game asks.
        None => delve_client::ui::web::remembered_name().unwrap_or_default(),
    };
    let url = page(Page::ServerUrl);
    let options = Options {
        token_server: url.clone(),
        url,
        name,
        dungeon: None,
        linked: link.dungeon,
        frame_stats: false,
        password: None,
        watch: None,
        tokens: Some(TokenStore::open()),
        screenshot: None,
        keys: Default::default(),
        keys_note: "The browser uses the default keys.".into(),
        script: None,
        touch: false,
        replay,
    };
    macroquad::Window::from_config(conf(None), run(options));
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let args = Args::parse();
    // Before anything is created (the solo game's folder, the key file): without a display
    // there is nothing to play on.
    if let Err(message) = delve_client::display::check() {
        eprintln!("{message}");
        std::process::exit(1);
    }
    let script = match args.script.as_deref().map(delve_client::script::parse) {
        None => None,
        Some(Ok(steps)) => Some(steps),
        Some(Err(e)) => {
            eprintln!("delve: {e}");
            std::process::exit(2);
        }
    };
    // The bench plays a throwaway character on a server of its own, kept in memory.
    let bench = args.bench_frames.is_some();
    let name = match args.name.clone() {
        _ if bench => "Bench".to_string(),
        Some(name) => name,
        None => default_name(),
    };
    let (keys, keys_note) =
        delve_client::keymap::load_key_file(delve_client::tokens::config_dir().as_deref());
    let started = |name: &str| match bench {
        true => SoloServer::for_bench(name),
        false => SoloServer::start(name, delve_client::tokens::solo_data_dir()),
    };
    let (url, dungeon, solo) = match args.server {
        Some(url) => (url, args.dungeon, None),
        None => match started(&name) {
            Ok(s) => (s.url.clone(), Some(s.dungeon.clone()), Some(s)),
            Err(e) => {
                eprintln!("delve: {e:#}");
                std::process::exit(1);
            }
        },
    };
    // A saved solo game resumes by its token like any other; one in memory has nothing to resume.
    let tokens = solo.as_ref().is_none_or(|s| s.saved).then(TokenStore::open);
    // Solo servers get a new port every time: their tokens are kept under one name.
    let token_server = if solo.is_some() {
        "solo".to_string()
    } else {
        url.clone()
    };
    let options = Options {
        url,
        name,
        dungeon,
        linked: None,
        frame_stats: args.frame_stats,
        password: args.password,
        watch: args.watch,
        tokens,
        token_server,
        screenshot: args.screenshot.zip(args.frames),
        solo,
        keys,
        keys_note,
        script,
        bench: args.bench_frames,
        touch: args.touch,
        replay: args.replay.map(|game| delve_client::link::ReplayLink {
            game,
            key: args.replay_key,
        }),
    };
    open_window(args.size, options);
}

/// Opens the window and runs the game. Opening an X display now and then fails at random on a
/// loaded machine (seen under Xvfb: miniquad panics "XOpenDisplay() failed!" before anything is
/// drawn), so a failure before the game's first frame is retried twice; any later panic is not.
#[cfg(not(target_arch = "wasm32"))]
fn open_window(size: Option<(i32, i32)>, options: Options) {
    use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
    use std::sync::{Arc, Mutex};
    let options = Arc::new(Mutex::new(Some(options)));
    for attempt in 1..=3 {
        let slot = Arc::clone(&options);
        let result = catch_unwind(AssertUnwindSafe(|| {
            macroquad::Window::from_config(conf(size), async move {
                let taken = slot.lock().ok().and_then(|mut o| o.take());
                if let Some(options) = taken {
                    run(options).await;
                }
            });
        }));
        match result {
            Ok(()) => return,
            // The game began (took its options): a panic from there on is a real one.
            Err(e) if attempt == 3 || options.lock().map_or(true, |o| o.is_none()) => {
                resume_unwind(e)
            }
            Err(_) => {
                eprintln!("delve: opening the window failed; trying again");
                std::thread::sleep(std::time::Duration::from_millis(300 * attempt));
            }
        }
    }
}
