//! The game's state between frames and the frame loop: drain the network, read the keys, draw.

use std::path::PathBuf;

use delve_protocol::{ClientMsg, ServerMsg, Tile};
use macroquad::prelude::*;

use super::anim::Anims;
use super::hud::{self, BG, Layout};
use super::input::{Command, Input};
use super::render::{self, Camera};
use super::screenshot;
use super::sprites::Sprites;
use crate::model::Model;
use crate::net::{NetEvent, NetThread};
use crate::solo::SoloServer;

/// What the game was started with.
#[derive(Debug)]
pub struct Options {
    pub url: String,
    pub name: String,
    pub dungeon: String,
    /// Save a PNG after this many frames of play, then exit.
    pub screenshot: Option<(PathBuf, u32)>,
    /// The in-process server of `--solo`, kept alive as long as the game runs.
    pub solo: Option<SoloServer>,
}

enum Connection {
    Connecting,
    Joined,
    Ended(String),
}

struct App {
    net: NetThread,
    model: Model,
    sprites: Sprites,
    anims: Anims,
    input: Input,
    connection: Connection,
    /// The turn our last intent was for, until an update for it arrives.
    awaiting: Option<u64>,
    /// When the last turn status arrived, for its countdown.
    status_at: f64,
}

impl App {
    fn pump_network(&mut self, now: f64) {
        while let Some(ev) = self.net.try_recv() {
            match ev {
                NetEvent::Connected => {}
                NetEvent::Msg(msg) => self.on_message(*msg, now),
                NetEvent::Ended(reason) => self.connection = Connection::Ended(reason),
            }
        }
    }

    fn on_message(&mut self, msg: ServerMsg, now: f64) {
        if matches!(msg, ServerMsg::Welcome { .. }) {
            self.connection = Connection::Joined;
        }
        if matches!(msg, ServerMsg::TurnStatus { .. }) {
            self.status_at = now;
        }
        match self.model.handle(msg) {
            Ok(h) => {
                if h.snapshot {
                    self.anims.reset();
                    self.awaiting = None;
                }
                self.anims.on_events(&h.events, now);
                if let (Some(turn), Some(view)) = (self.awaiting, &self.model.view)
                    && view.turn >= turn
                {
                    self.awaiting = None;
                }
                if h.error.is_some() {
                    // A refused intent leaves nothing pending.
                    self.awaiting = None;
                }
            }
            // Out of step with the server: ask for the whole view again.
            Err(_) => self.net.send(ClientMsg::Resync),
        }
    }

    fn handle_input(&mut self, now: f64) {
        let Some(view) = &self.model.view else {
            return;
        };
        if !matches!(self.connection, Connection::Joined) {
            return;
        }
        let next_turn = view.turn + 1;
        let can_repeat = self.awaiting.is_none() && !self.anims.busy(now);
        if let Some(cmd) = self.input.poll(now, can_repeat) {
            let msg = match cmd {
                // Walking into a wall you can see is a no-op, as in most roguelikes: don't
                // spend a round trip to be told so.
                Command::Move(dir) if view.map.get(view.me.pos.step(dir)) == Tile::Wall => return,
                Command::Move(dir) => ClientMsg::Move { dir },
                Command::Wait => ClientMsg::Wait,
            };
            self.net.send(msg);
            self.awaiting = Some(next_turn);
        }
    }

    fn draw(&mut self, now: f64) {
        clear_background(BG);
        let layout = Layout::new();
        let connection = match &self.connection {
            Connection::Connecting => "Connecting...".to_string(),
            Connection::Joined => String::new(),
            Connection::Ended(_) => "Disconnected".to_string(),
        };
        if let Some(view) = &self.model.view {
            self.anims.prune(view, now);
            let (focus, _) = self.anims.position(view.me.id, view.me.pos, now);
            let cam = Camera::new(layout.map, focus, view.map.width(), view.map.height());
            render::draw_map(view, &cam, &self.sprites);
            render::draw_entities(view, &cam, &self.sprites, &self.anims, now);
        }
        hud::draw_log(layout.log, &self.model);
        let mut turn = hud::turn_line(&self.model, now - self.status_at, self.awaiting.is_some());
        if !matches!(self.connection, Connection::Joined) {
            turn.text.clear();
        }
        hud::draw_panel(layout.panel, &self.model, &turn, &connection);
        match &self.connection {
            Connection::Connecting if self.model.view.is_none() => {
                hud::draw_notice("Connecting", "Opening the way into the dungeon...")
            }
            Connection::Ended(reason) => hud::draw_notice("Connection lost", reason),
            _ => {}
        }
    }
}

/// Frames to wait for a first view in screenshot mode before saving whatever is on screen.
const SCREENSHOT_PATIENCE: u32 = 600;

/// Runs the game until the window closes (or the screenshot is taken).
pub async fn run(options: Options) {
    let hello = crate::net::hello(&options.name, &options.dungeon, None);
    let net = match NetThread::spawn(options.url.clone(), hello) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("delve: cannot start the network thread: {e}");
            std::process::exit(1);
        }
    };
    let mut app = App {
        net,
        model: Model::new(),
        sprites: Sprites::new(),
        anims: Anims::default(),
        input: Input::default(),
        connection: Connection::Connecting,
        awaiting: None,
        status_at: 0.0,
    };
    let _solo = options.solo;
    let (mut frames, mut waited) = (0u32, 0u32);
    loop {
        let now = get_time();
        app.pump_network(now);
        app.handle_input(now);
        app.draw(now);
        if let Some((path, after)) = &options.screenshot {
            if app.model.view.is_some() {
                frames += 1;
            } else {
                waited += 1;
            }
            if frames >= *after || waited >= SCREENSHOT_PATIENCE {
                let ok = app.model.view.is_some();
                match screenshot::save(path) {
                    Ok(()) => println!("saved {}", path.display()),
                    Err(e) => {
                        eprintln!("delve: {e:#}");
                        std::process::exit(1);
                    }
                }
                if !ok {
                    eprintln!("delve: no game view arrived; the screenshot shows why");
                }
                std::process::exit(if ok { 0 } else { 1 });
            }
        }
        next_frame().await;
    }
}
