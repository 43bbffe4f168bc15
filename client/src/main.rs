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

    /// Play alone: start a private server inside the game (the default without --server).
    #[arg(long)]
    solo: bool,

    /// Save a PNG of the window to this path after --frames frames of play, then exit.
    #[arg(long, requires = "frames")]
    screenshot: Option<PathBuf>,

    /// Frames to run before the screenshot.
    #[arg(long, requires = "screenshot")]
    frames: Option<u32>,

    /// Print frame-time statistics to standard error every 5 seconds (for benchmarks).
    #[arg(long)]
    frame_stats: bool,
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

fn conf() -> Conf {
    Conf {
        window_title: "Delve".to_owned(),
        window_width: 1280,
        window_height: 800,
        high_dpi: false,
        window_resizable: true,
        ..Default::default()
    }
}

/// In the browser: the server is the one that served the page; `?dungeon=` and `?name=` come
/// from the link; a name asked before is remembered.
#[cfg(target_arch = "wasm32")]
fn main() {
    use delve_client::link::PageLink;
    use delve_web_js::{Page, page};
    let link = PageLink::parse(&page(Page::Query));
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
    };
    macroquad::Window::from_config(conf(), run(options));
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let args = Args::parse();
    let name = args.name.clone().unwrap_or_else(default_name);
    let (url, dungeon, solo) = match args.server {
        Some(url) => (url, args.dungeon, None),
        None => match SoloServer::start(&name, delve_client::tokens::solo_data_dir()) {
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
    };
    macroquad::Window::from_config(conf(), run(options));
}
