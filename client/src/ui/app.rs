//! The game's state between frames and the frame loop: drain the network, read the keys, draw.

use delve_protocol::Action;
use std::collections::HashMap;
use std::path::PathBuf;

use delve_protocol::{ClientMsg, Dir, MAX_CHAT_CHARS, PROTOCOL_VERSION, Pos, ServerMsg, Tile};
use macroquad::prelude::*;

use super::anim::Anims;
use super::hud::{self, BG, Layout};
use super::input::{Command, Input};
use super::inventory::{self, InvLayout, InventoryState};
use super::lobby::{Choice, Lobby, Step};
use super::render::{self, Camera};
use super::scores as table;
use super::screens;
use super::screenshot;
use super::sprites::Sprites;
use super::text_input::{TextInput, typed};
use crate::model::Model;
use crate::net::{Link, NetEvent, Platform};
use crate::pack::{self, PackKey, PackOutcome};
use crate::scores::{self, Mine, ScoreBoard};
#[cfg(not(target_arch = "wasm32"))]
use crate::solo::SoloServer;
use crate::tokens::TokenStore;

/// What the game was started with.
#[derive(Debug)]
pub struct Options {
    pub url: String,
    pub name: String,
    /// `None` opens the lobby first.
    pub dungeon: Option<String>,
    /// A dungeon a shared link asked for (the web page's `?dungeon=`): the lobby opens it as
    /// soon as it knows whether a password is needed.
    pub linked: Option<String>,
    /// Print frame-time statistics to standard error every few seconds (for benchmarks).
    pub frame_stats: bool,
    pub password: Option<String>,
    /// Watch this player instead of playing.
    pub watch: Option<String>,
    /// Save a PNG after this many frames (of play, or of the lobby), then exit.
    pub screenshot: Option<(PathBuf, u32)>,
    /// The in-process server of `--solo`, kept alive as long as the game runs.
    #[cfg(not(target_arch = "wasm32"))]
    pub solo: Option<SoloServer>,
    /// Where resume tokens are remembered; `None` remembers nothing.
    pub tokens: Option<TokenStore>,
    /// The server name tokens are kept under: its URL, or "solo" for the solo server (whose
    /// port changes every time).
    pub token_server: String,
}

enum Connection {
    Connecting,
    Joined,
    /// Lost; the network thread tries again at `at` (game time).
    Reconnecting {
        attempt: u32,
        at: f64,
        reason: String,
    },
    Ended(String),
}

/// A screen over the game, taking the keys while it is open.
#[derive(Clone, Debug)]
enum Screen {
    Game,
    Character,
    LevelUp {
        selected: usize,
    },
    Messages {
        scroll: usize,
    },
    Chat(TextInput),
    Inventory(InventoryState),
    /// The high-score table (Tab; `h` once the game is over).
    Scores(ScoreBoard),
}

struct App {
    net: Platform,
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
    /// Where to remember the token of (server, dungeon).
    tokens: Option<(TokenStore, String, String)>,
    /// The death or victory summary was put away (Esc) to watch the floor.
    end_hidden: bool,
    /// Our own game that ended (death or victory), to pick out in the high scores; kept while
    /// the ghost follows a friend, forgotten when a new character starts.
    ended: Option<Mine>,
    /// The server is the in-process one of `--solo`, which keeps no scores.
    solo: bool,
    /// The name we play (or watch) under, to pick out our games in the high scores.
    name: String,
}

impl App {
    fn pump_network(&mut self, now: f64) {
        while let Some(ev) = self.net.try_recv() {
            match ev {
                NetEvent::Connected => {}
                NetEvent::Msg(msg) => self.on_message(*msg, now),
                NetEvent::Reconnecting {
                    attempt,
                    wait,
                    reason,
                } => {
                    self.connection = Connection::Reconnecting {
                        attempt,
                        at: now + wait.as_secs_f64(),
                        reason,
                    };
                }
                NetEvent::Ended(reason) => self.connection = Connection::Ended(reason),
            }
        }
    }

    fn on_message(&mut self, msg: ServerMsg, now: f64) {
        if let ServerMsg::Welcome { token, .. } = &msg {
            self.connection = Connection::Joined;
            if let (Some(t), Some((store, server, dungeon))) = (token, &mut self.tokens)
                && let Err(e) = store.put(server, dungeon, t)
            {
                eprintln!("delve: cannot remember the resume token: {e}");
            }
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
        let welcome = matches!(msg, ServerMsg::Welcome { .. });
        match self.model.handle(msg) {
            Ok(h) => {
                self.note_end();
                if let Screen::Scores(board) = &mut self.screen {
                    if let Some((_, message)) = &h.error {
                        board.refused(message.clone());
                    }
                    // A question asked before the connection dropped is asked again.
                    if welcome && !board.loaded() {
                        self.net.send(scores::request());
                    }
                }
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

    /// Remembers how our own game ended, or forgets it once a new character plays.
    fn note_end(&mut self) {
        if self.watcher_only() || self.model.watching.is_some() {
            return;
        }
        let (Some(view), Some(dungeon)) = (&self.model.view, &self.model.dungeon) else {
            return;
        };
        let me = &view.me;
        self.ended = (!me.alive || me.victory).then(|| Mine {
            name: me.name.clone(),
            dungeon: dungeon.clone(),
            turns: me.turns,
            score: me.score,
        });
    }

    /// Opens the high-score table and asks the server for it.
    fn open_scores(&mut self) {
        self.net.send(scores::request());
        // The solo server keeps no table: there is nothing to look for.
        let mine = self.ended.clone().filter(|_| !self.solo);
        self.screen = Screen::Scores(ScoreBoard::open(self.model.scores_received, mine));
    }

    /// Takes in the table's answer and asks again when our game should be in it but is not yet.
    fn scores_tick(&mut self, now: f64) {
        if let Screen::Scores(board) = &mut self.screen
            && board.poll(&self.model.scores, self.model.scores_received, now)
        {
            self.net.send(scores::request());
        }
    }

    /// Whether this connection has no character of its own (it only watches).
    fn watcher_only(&self) -> bool {
        self.model.token.is_none() && self.model.watching.is_some()
    }

    fn handle_input(&mut self, now: f64, chars: &[char]) {
        // The high scores take every key while open, even while the connection is down.
        if let Screen::Scores(board) = &mut self.screen {
            self.input.reset();
            if table::keys(board, chars, self.model.scores.len()) {
                self.screen = Screen::Game;
            }
            return;
        }
        if !matches!(self.connection, Connection::Joined) {
            return;
        }
        let Some(view) = &self.model.view else { return };
        let me = view.me.clone();
        let turn = view.turn;
        // Which neighbouring cells are known walls.
        let wall = Dir::ALL.map(|d| view.map.get(me.pos.step(d)) == Tile::Wall);
        let party: Vec<(String, bool)> = view
            .party
            .iter()
            .map(|p| (p.name.clone(), p.alive))
            .collect();
        // Not driving a living character: the dead, the winners, those following a friend,
        // watchers.
        let spectating = self.spectating();
        if !spectating {
            self.end_hidden = false;
        }
        // A new stat point opens the level-up dialog once.
        if me.points > self.points_seen && !spectating && matches!(self.screen, Screen::Game) {
            self.screen = Screen::LevelUp { selected: 0 };
        }
        self.points_seen = if spectating {
            self.points_seen
        } else {
            me.points
        };
        if me.points == 0 && matches!(self.screen, Screen::LevelUp { .. }) {
            self.screen = Screen::Game;
        }
        // The chat line takes every key while it is open.
        if let Screen::Chat(line) = &mut self.screen {
            line.feed(chars);
            if is_key_pressed(KeyCode::Escape) {
                self.screen = Screen::Game;
            } else if is_key_pressed(KeyCode::Enter) || is_key_pressed(KeyCode::KpEnter) {
                let text = line.text.trim().to_string();
                if !text.is_empty() {
                    self.net.send(ClientMsg::Chat { text });
                }
                self.screen = Screen::Game;
            }
            return;
        }
        // So does the inventory: its letters are its own.
        if matches!(self.screen, Screen::Inventory(_)) {
            self.input.reset();
            self.inventory_input(chars, spectating);
            return;
        }
        let modal = !matches!(self.screen, Screen::Game) || spectating;
        let can_repeat = self.awaiting.is_none() && !self.anims.busy(now);
        let commands = self.input.poll(now, can_repeat, modal, chars);
        self.scroll_keys();
        for cmd in commands {
            if spectating {
                self.spectator_command(cmd, &me.name, me.alive, &party);
                continue;
            }
            match (&self.screen, cmd) {
                (Screen::Character, Command::Character | Command::Cancel) => {
                    self.screen = Screen::Game
                }
                (Screen::Messages { .. }, Command::Messages | Command::Cancel) => {
                    self.screen = Screen::Game
                }
                (Screen::LevelUp { .. }, Command::Cancel) => self.screen = Screen::Game,
                (Screen::LevelUp { selected }, Command::Confirm) => self.spend(*selected),
                (Screen::LevelUp { .. }, Command::Choose(n)) => self.spend(usize::from(n) - 1),
                (Screen::Game, Command::Character) => self.screen = Screen::Character,
                (Screen::Game, Command::Inventory) => self.open_inventory(),
                (Screen::Game, Command::Scores) => self.open_scores(),
                (Screen::Game, Command::PickUp) => self.act(ClientMsg::Act(Action::PickUp), turn),
                (Screen::Game, Command::Messages) => self.screen = Screen::Messages { scroll: 0 },
                (Screen::Game, Command::LevelUp) if me.points > 0 => {
                    self.screen = Screen::LevelUp { selected: 0 }
                }
                (Screen::Game, Command::Confirm | Command::Talk) => self.open_chat(),
                (Screen::Game, Command::Move(dir)) => {
                    // Walking into a wall you can see is a no-op, as in most roguelikes: don't
                    // spend a round trip to be told so.
                    let k = Dir::ALL.iter().position(|d| *d == dir).unwrap_or(0);
                    if !wall[k] {
                        self.act(ClientMsg::Act(Action::Move { dir }), turn);
                    }
                }
                (Screen::Game, Command::Wait) => self.act(ClientMsg::Act(Action::Wait), turn),
                (Screen::Game, Command::Descend) => self.act(ClientMsg::Act(Action::Descend), turn),
                (Screen::Game, Command::Ascend) => self.act(ClientMsg::Act(Action::Ascend), turn),
                _ => {}
            }
        }
    }

    /// Keys for those not driving a living character: follow another player, go back to one's
    /// own view, start again (the dead), chat, read the log.
    fn spectator_command(
        &mut self,
        cmd: Command,
        shown: &str,
        shown_alive: bool,
        party: &[(String, bool)],
    ) {
        let dead_player = !self.watcher_only();
        match (&self.screen, cmd) {
            (Screen::Messages { .. }, Command::Messages | Command::Cancel) => {
                self.screen = Screen::Game
            }
            (Screen::Character, Command::Character | Command::Cancel) => self.screen = Screen::Game,
            (Screen::Game, Command::Messages) => self.screen = Screen::Messages { scroll: 0 },
            (Screen::Game, Command::Character) if shown_alive => self.screen = Screen::Character,
            (Screen::Game, Command::Inventory) => self.open_inventory(),
            (Screen::Game, Command::Scores) => self.open_scores(),
            (Screen::Game, Command::Confirm | Command::Talk) => self.open_chat(),
            (Screen::Game, Command::NewCharacter) if dead_player => {
                self.net.send(ClientMsg::NewCharacter)
            }
            (Screen::Game, Command::Cancel) if dead_player && self.model.watching.is_some() => {
                self.net.send(ClientMsg::Watch { name: None });
            }
            // The summary of a finished game folds into a banner, to watch the floor, and back.
            (Screen::Game, Command::Cancel) if dead_player => self.end_hidden = !self.end_hidden,
            (Screen::Game, Command::Follow) => {
                // The next living player after the one shown, round the party.
                let living: Vec<&String> = party
                    .iter()
                    .filter(|(_, alive)| *alive)
                    .map(|(n, _)| n)
                    .collect();
                let at = living.iter().position(|n| n.as_str() == shown);
                let next = match at {
                    Some(k) => living.get((k + 1) % living.len().max(1)),
                    None => living.first(),
                };
                if let Some(name) = next.filter(|n| n.as_str() != shown) {
                    self.net.send(ClientMsg::Watch {
                        name: Some((*name).clone()),
                    });
                }
            }
            _ => {}
        }
    }

    /// Not driving a living character: a watcher, the dead, a winner, or someone following a
    /// friend's view.
    fn spectating(&self) -> bool {
        let over = self
            .model
            .view
            .as_ref()
            .is_some_and(|v| !v.me.alive || v.me.victory);
        self.watcher_only() || over || self.model.watching.is_some()
    }

    fn open_inventory(&mut self) {
        self.screen = Screen::Inventory(InventoryState::default());
    }

    /// The inventory screen's keys: select, act on the selected item, confirm or cancel an
    /// equip, close. Nothing is sent while the pack is read-only or locked; the banner says why.
    fn inventory_input(&mut self, chars: &[char], spectating: bool) {
        let Some(view) = &self.model.view else { return };
        let Screen::Inventory(st) = &mut self.screen else {
            return;
        };
        let inv = &view.inventory;
        let blocked = inventory::pack_blocked(view, spectating);
        let turn = view.turn;
        let enter = is_key_pressed(KeyCode::Enter) || is_key_pressed(KeyCode::KpEnter);
        let esc = is_key_pressed(KeyCode::Escape);
        st.selected = st.selected.min(inv.len().saturating_sub(1));
        // The pack changed under the comparison (a swap, a drop): close it.
        if st
            .compare
            .is_some_and(|id| inv.get(st.selected).is_none_or(|i| i.id != id))
        {
            st.compare = None;
        }
        let mut send = None;
        if let Some(id) = st.compare {
            if enter || chars.iter().any(|c| matches!(c, 'y' | 'Y')) {
                send = Some(ClientMsg::Act(Action::Equip { item: id }));
            } else if esc || chars.iter().any(|c| matches!(c, 'n' | 'N')) {
                st.compare = None;
            }
        } else {
            let mut keys: Vec<PackKey> = chars.iter().filter_map(|&c| pack::pack_key(c)).collect();
            if enter {
                keys.push(PackKey::Primary);
            }
            if esc {
                keys.push(PackKey::Close);
            }
            let len = inv.len();
            if len > 0 {
                if is_key_pressed(KeyCode::Up) {
                    st.selected = (st.selected + len - 1) % len;
                    st.note = None;
                }
                if is_key_pressed(KeyCode::Down) {
                    st.selected = (st.selected + 1) % len;
                    st.note = None;
                }
                if is_key_pressed(KeyCode::Home) || is_key_pressed(KeyCode::PageUp) {
                    st.selected = 0;
                }
                if is_key_pressed(KeyCode::End) || is_key_pressed(KeyCode::PageDown) {
                    st.selected = len - 1;
                }
            }
            if is_mouse_button_pressed(MouseButton::Left) {
                let lay = InvLayout::new(Layout::new().map, blocked.is_some());
                if let Some(k) = lay.slot_at(mouse_position().into()).filter(|&k| k < len) {
                    st.selected = k;
                    st.note = None;
                }
            }
            for key in keys {
                match key {
                    PackKey::Close => {
                        self.screen = Screen::Game;
                        return;
                    }
                    PackKey::Select(k) if k < len => {
                        st.selected = k;
                        st.note = None;
                    }
                    PackKey::Select(k) => {
                        let letter = pack::letter(k).unwrap_or('?');
                        st.note = Some(format!("Nothing in slot {letter}."));
                    }
                    key => {
                        // An empty pack already says so, and how to fill it.
                        let Some(item) = inv.get(st.selected) else {
                            continue;
                        };
                        if let Some(why) = &blocked {
                            st.note = Some(why.clone());
                            continue;
                        }
                        match pack::pack_outcome(key, item) {
                            Some(PackOutcome::Send(msg)) => send = Some(msg),
                            Some(PackOutcome::Compare) => {
                                st.compare = Some(item.id);
                                st.note = None;
                            }
                            Some(PackOutcome::Note(n)) => st.note = Some(n),
                            None => {}
                        }
                    }
                }
            }
        }
        if let Some(msg) = send {
            // Each pack action is the turn: back to the map to see what comes of it.
            self.screen = Screen::Game;
            self.act(msg, turn);
        }
    }

    fn open_chat(&mut self) {
        self.screen = Screen::Chat(TextInput::new(MAX_CHAT_CHARS, false));
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
            Screen::Game
            | Screen::Character
            | Screen::Chat(_)
            | Screen::Inventory(_)
            | Screen::Scores(_) => {
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
            Connection::Reconnecting { attempt, at, .. } => {
                format!(
                    "Reconnecting in {:.0} s (try {attempt})",
                    (at - now).max(0.0).ceil()
                )
            }
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
        let spectating = self.spectating();
        if !matches!(self.connection, Connection::Joined) || spectating {
            turn.text.clear();
        }
        // A finished game of one's own says how it ended instead.
        if let Some(me) = self.model.view.as_ref().map(|v| &v.me)
            && self.model.watching.is_none()
            && !self.watcher_only()
        {
            if me.victory {
                turn.text = "Your game is won".into();
                turn.color = Color::from_rgba(236, 196, 84, 255);
            } else if !me.alive {
                turn.text = "Your character is dead".into();
                turn.color = Color::from_rgba(255, 64, 64, 255);
            }
        }
        hud::draw_panel(layout.panel, &self.model, &self.sprites, &turn, &connection);
        if let Some(view) = &self.model.view {
            let me = &view.me;
            if let Some(whom) = &self.model.watching {
                let own_dead = !self.watcher_only();
                hud::draw_watching(layout.map, whom, me.alive, own_dead);
            } else if self.end_hidden && !self.watcher_only() && (!me.alive || me.victory) {
                let (title, color) = if me.victory {
                    (
                        "Victory! The Mouse King is dead.",
                        Color::from_rgba(236, 196, 84, 255),
                    )
                } else {
                    ("You died.", Color::from_rgba(255, 64, 64, 255))
                };
                hud::draw_end_banner(
                    layout.map,
                    &format!("{title}   Score {}", me.score),
                    color,
                    "n: new character   w: watch a friend   h: high scores   Esc: show the summary   \
                     Enter: chat",
                );
            } else if me.victory {
                screens::victory(me, &self.sprites, now);
            } else if !me.alive {
                screens::death(me);
            }
            match &self.screen {
                Screen::Game => {}
                Screen::Character => screens::character(view, &self.sprites),
                Screen::Inventory(st) => {
                    inventory::draw(layout.map, view, &self.sprites, st, spectating)
                }
                Screen::LevelUp { selected } => screens::level_up(&self.model, me, *selected),
                Screen::Messages { scroll } => screens::messages(&self.model, *scroll),
                Screen::Scores(board) => {
                    let ctx = table::Context {
                        status: &connection,
                        solo: self.solo,
                        you: Some(&self.name),
                    };
                    table::draw(board, &self.model.scores, &ctx);
                }
                Screen::Chat(line) => line.draw(
                    "Say: ",
                    layout.log.x + 10.0,
                    layout.log.y + layout.log.h - 12.0,
                    layout.log.w - 20.0,
                ),
            }
        }
        match &self.connection {
            Connection::Connecting if self.model.view.is_none() => {
                hud::draw_notice("Connecting", "Opening the way into the dungeon...")
            }
            Connection::Reconnecting { reason, .. } if self.model.view.is_none() => {
                hud::draw_notice(
                    "Cannot reach the server",
                    &format!("{reason}. {connection}."),
                )
            }
            Connection::Ended(reason) => hud::draw_notice("Connection lost", reason),
            _ => {}
        }
    }
}

/// Seconds to wait in screenshot mode for the game to get going before saving whatever is on
/// screen (a time, not a frame count: under Xvfb frames can come very fast).
const SCREENSHOT_PATIENCE: f64 = 20.0;

/// Saves the screenshot and exits: 0 if `ok`, else 1.
fn finish_screenshot(path: &std::path::Path, ok: bool) -> ! {
    match screenshot::save(path) {
        Ok(()) => println!("saved {}", path.display()),
        Err(e) => {
            eprintln!("delve: {e:#}");
            std::process::exit(1);
        }
    }
    if !ok {
        eprintln!("delve: the game did not get going; the screenshot shows why");
    }
    std::process::exit(if ok { 0 } else { 1 });
}

/// Runs the lobby until the player chooses; exits the process if they quit.
async fn lobby(
    url: &str,
    name: &str,
    linked: Option<&str>,
    screenshot: &Option<(PathBuf, u32)>,
) -> Choice {
    let started_lobby = match linked {
        Some(d) => Lobby::for_dungeon(url, name, d),
        None => Lobby::new(url, name),
    };
    let mut lobby = match started_lobby {
        Ok(l) => l,
        Err(e) => {
            eprintln!("delve: cannot start the network thread: {e}");
            std::process::exit(1);
        }
    };
    let (mut frames, started) = (0u32, get_time());
    loop {
        match lobby.frame(&typed()) {
            Step::Chosen(choice) => return choice,
            Step::Stay => {}
            // A page cannot quit: closing the tab does.
            #[cfg(not(target_arch = "wasm32"))]
            Step::Quit => std::process::exit(0),
            #[cfg(target_arch = "wasm32")]
            Step::Quit => {}
        }
        #[cfg(target_arch = "wasm32")]
        super::web::publish(&super::web::Status {
            screen: lobby.showing(),
            ..Default::default()
        });
        if let Some((path, after)) = screenshot {
            frames += 1;
            if (lobby.ready() && frames >= *after) || get_time() - started >= SCREENSHOT_PATIENCE {
                finish_screenshot(path, lobby.ready());
            }
        }
        next_frame().await;
    }
}

/// Runs the game until the window closes (or the screenshot is taken).
pub async fn run(mut options: Options) {
    // The page asks a new player's name once; their tokens are kept per name.
    #[cfg(target_arch = "wasm32")]
    {
        if options.name.is_empty() {
            options.name = super::web::ask_name().await;
        }
        options.token_server = format!("{} {}", options.token_server, options.name.to_lowercase());
    }
    let choice = match options.dungeon.take() {
        Some(dungeon) => Choice {
            dungeon,
            password: options.password.take(),
            watch: options.watch.take(),
        },
        None => {
            let linked = options.linked.take();
            lobby(
                &options.url,
                &options.name,
                linked.as_deref(),
                &options.screenshot,
            )
            .await
        }
    };
    // Resume our character in this dungeon if we have played it from here before.
    let token = match (&choice.watch, &options.tokens) {
        (None, Some(store)) => store.get(&options.token_server, &choice.dungeon),
        _ => None,
    };
    let hello = ClientMsg::Hello {
        version: PROTOCOL_VERSION,
        name: options.name.clone(),
        dungeon: choice.dungeon.clone(),
        token,
        password: choice.password.clone(),
        watch: choice.watch.clone(),
    };
    let net = match <Platform as Link>::game(options.url.clone(), hello) {
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
        end_hidden: false,
        ended: None,
        #[cfg(not(target_arch = "wasm32"))]
        solo: options.solo.is_some(),
        #[cfg(target_arch = "wasm32")]
        solo: false,
        name: options.name.clone(),
        tokens: options
            .tokens
            .take()
            .map(|t| (t, options.token_server.clone(), choice.dungeon.clone())),
    };
    #[cfg(not(target_arch = "wasm32"))]
    let _solo = options.solo;
    let (mut frames, started) = (0u32, get_time());
    let mut stats = super::frames::FrameStats::default();
    let mut stats_at = started;
    loop {
        let work = super::frames::clock_ms();
        let now = get_time();
        app.pump_network(now);
        app.scores_tick(now);
        app.handle_input(now, &typed());
        app.draw(now);
        stats.push(
            f64::from(get_frame_time()) * 1000.0,
            super::frames::clock_ms() - work,
        );
        #[cfg(target_arch = "wasm32")]
        super::web::publish(&super::web::Status {
            screen: match app.screen {
                Screen::Chat(_) => "chat",
                Screen::Inventory(_) => "pack",
                Screen::Scores(_) => "scores",
                _ => "game",
            },
            map: app.model.view.is_some(),
            online: matches!(app.connection, Connection::Joined),
            me: app.model.view.as_ref().map(|v| (v.me.pos.x, v.me.pos.y)),
            frames: stats.means(),
        });
        if options.frame_stats && now - stats_at >= 5.0 {
            stats_at = now;
            let (interval, work) = stats.means();
            eprintln!(
                "frames: {} mean interval {interval:.3} ms, mean work {work:.3} ms",
                stats.frames
            );
        }
        if let Some((path, after)) = &options.screenshot {
            if app.model.view.is_some() {
                frames += 1;
            }
            if frames >= *after || (frames == 0 && get_time() - started >= SCREENSHOT_PATIENCE) {
                finish_screenshot(path, app.model.view.is_some());
            }
        }
        next_frame().await;
    }
}
