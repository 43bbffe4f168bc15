//! The game's state between frames and the frame loop: drain the network, read the keys, draw.

use std::collections::HashMap;
use std::path::PathBuf;

use delve_protocol::{ClientMsg, Dir, Pos, ServerMsg, Tile};
use macroquad::prelude::*;

use super::anim::Anims;
use super::hud::{self, BG, Layout};
use super::input::{Command, Input};
use super::render::{self, Camera};
use super::screens;
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

/// A screen over the game, taking the keys while it is open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Screen {
    Game,
    Character,
    LevelUp { selected: usize },
    Messages { scroll: usize },
}

struct App {
    net: NetThread,
    model: Model,
    sprites: Sprites,
    anims: Anims,
    input: Input,
    connection: Connection,
    screen: Screen,
    /// The turn our last intent was for, until an update for it arrives.
    awaiting: Option<u64>,
    /// When the last turn status arrived, for its countdown.
    status_at: f64,
    /// Stat points seen last frame: a new one opens the level-up dialog.
    points_seen: u32,
    /// How far the log is scrolled back, in lines.
    log_scroll: usize,
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
        // Where entities stood before this message, for effects on those it removes (a kill).
        let before: HashMap<u32, Pos> = self
            .model
            .view
            .as_ref()
            .map(|v| v.entities.iter().map(|e| (e.id, e.pos)).collect())
            .unwrap_or_default();
        match self.model.handle(msg) {
            Ok(h) => {
                if h.snapshot {
                    self.anims.reset();
                    self.awaiting = None;
                }
                if let Some(view) = &self.model.view {
                    let pos_of = |id| {
                        view.entity(id)
                            .map(|e| e.pos)
                            .or_else(|| before.get(&id).copied())
                    };
                    self.anims.on_events(&h.events, view.me.id, pos_of, now);
                    if self.awaiting.is_some_and(|t| view.turn >= t) {
                        self.awaiting = None;
                    }
                }
                if h.error.is_some() {
                    // A refused intent leaves nothing pending.
                    self.awaiting = None;
                }
                if !h.events.is_empty() {
                    self.log_scroll = 0;
                }
            }
            // Out of step with the server: ask for the whole view again.
            Err(_) => self.net.send(ClientMsg::Resync),
        }
    }

    fn handle_input(&mut self, now: f64) {
        if !matches!(self.connection, Connection::Joined) {
            return;
        }
        let Some(view) = &self.model.view else {
            return;
        };
        let me = view.me.clone();
        let turn = view.turn;
        // Which neighbouring cells are known walls.
        let wall = Dir::ALL.map(|d| view.map.get(me.pos.step(d)) == Tile::Wall);
        // A new stat point opens the level-up dialog once.
        if me.points > self.points_seen && me.alive && self.screen == Screen::Game {
            self.screen = Screen::LevelUp { selected: 0 };
        }
        self.points_seen = me.points;
        if me.points == 0 && matches!(self.screen, Screen::LevelUp { .. }) {
            self.screen = Screen::Game;
        }
        let modal = self.screen != Screen::Game || !me.alive;
        let can_repeat = self.awaiting.is_none() && !self.anims.busy(now);
        let commands = self.input.poll(now, can_repeat, modal);
        self.scroll_keys();
        for cmd in commands {
            if !me.alive {
                if cmd == Command::Confirm {
                    self.net.send(ClientMsg::NewCharacter);
                }
                continue;
            }
            match (self.screen, cmd) {
                (Screen::Character, Command::Character | Command::Cancel) => {
                    self.screen = Screen::Game
                }
                (Screen::Messages { .. }, Command::Messages | Command::Cancel) => {
                    self.screen = Screen::Game
                }
                (Screen::LevelUp { .. }, Command::Cancel) => self.screen = Screen::Game,
                (Screen::LevelUp { selected }, Command::Confirm) => self.spend(selected),
                (Screen::LevelUp { .. }, Command::Choose(n)) => self.spend(usize::from(n) - 1),
                (Screen::Game, Command::Character) => self.screen = Screen::Character,
                (Screen::Game, Command::Messages) => self.screen = Screen::Messages { scroll: 0 },
                (Screen::Game, Command::LevelUp) if me.points > 0 => {
                    self.screen = Screen::LevelUp { selected: 0 }
                }
                (Screen::Game, Command::Move(dir)) => {
                    // Walking into a wall you can see is a no-op, as in most roguelikes: don't
                    // spend a round trip to be told so.
                    let k = Dir::ALL.iter().position(|d| *d == dir).unwrap_or(0);
                    if !wall[k] {
                        self.act(ClientMsg::Move { dir }, turn);
                    }
                }
                (Screen::Game, Command::Wait) => self.act(ClientMsg::Wait, turn),
                (Screen::Game, Command::Descend) => self.act(ClientMsg::Descend, turn),
                (Screen::Game, Command::Ascend) => self.act(ClientMsg::Ascend, turn),
                _ => {}
            }
        }
    }

    fn act(&mut self, msg: ClientMsg, turn: u64) {
        self.net.send(msg);
        self.awaiting = Some(turn + 1);
    }

    fn spend(&mut self, choice: usize) {
        if let Some(&stat) = screens::level_up_choices(&self.model).get(choice) {
            self.net.send(ClientMsg::LevelUp { stat });
            // One point at a time; the dialog stays open while points remain.
            self.screen = Screen::LevelUp { selected: choice };
        }
    }

    /// Arrow keys and the mouse wheel move selections and scroll lists.
    fn scroll_keys(&mut self) {
        let wheel = mouse_wheel().1;
        let (up, down) = (is_key_pressed(KeyCode::Up), is_key_pressed(KeyCode::Down));
        let options = self.model.level_up.len().max(1);
        match &mut self.screen {
            Screen::LevelUp { selected } => {
                if up {
                    *selected = (*selected + options - 1) % options;
                }
                if down {
                    *selected = (*selected + 1) % options;
                }
            }
            Screen::Messages { scroll } => {
                if up || wheel > 0.0 {
                    *scroll += 3;
                }
                if (down || wheel < 0.0) && *scroll > 0 {
                    *scroll = scroll.saturating_sub(3);
                }
            }
            Screen::Game | Screen::Character => {
                let over_log = Layout::new().log.contains(mouse_position().into());
                if over_log && wheel > 0.0 {
                    self.log_scroll += 2;
                } else if over_log && wheel < 0.0 {
                    self.log_scroll = self.log_scroll.saturating_sub(2);
                }
            }
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
        hud::draw_log(layout.log, &self.model, self.log_scroll);
        let mut turn = hud::turn_line(&self.model, now - self.status_at, self.awaiting.is_some());
        if !matches!(self.connection, Connection::Joined)
            || self.model.view.as_ref().is_some_and(|v| !v.me.alive)
        {
            turn.text.clear();
        }
        hud::draw_panel(layout.panel, &self.model, &turn, &connection);
        if let Some(view) = &self.model.view {
            let me = &view.me;
            if !me.alive {
                screens::death(me);
            } else {
                match self.screen {
                    Screen::Game => {}
                    Screen::Character => screens::character(me),
                    Screen::LevelUp { selected } => screens::level_up(&self.model, me, selected),
                    Screen::Messages { scroll } => screens::messages(&self.model, scroll),
                }
            }
        }
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
        screen: Screen::Game,
        awaiting: None,
        status_at: 0.0,
        points_seen: 0,
        log_scroll: 0,
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
