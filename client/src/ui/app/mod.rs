//! The game's state between frames and the frame loop: drain the network, read the keys, draw.
//! Its parts: `keys` (what each command does on each screen), `clicks` (what a click on a
//! control does), `mouse` (hover, click to travel or attack on the map, and the trip under
//! way), `draw` (one frame's drawing), `ended` (the dump of a game of ours that ended, the
//! server's in place of our own), `resume` (the log kept for taking a character back),
//! `replay` (a finished game watched again: its controls and bar),
//! `script` (`--script`), `bench` (`--bench-frames`: the cost of applying an update against
//! drawing alone, natively).

#[cfg(not(target_arch = "wasm32"))]
mod bench;
mod clicks;
mod draw;
mod ended;
mod fingers;
mod keys;
mod mouse;
mod replay;
mod resume;
mod script;
mod status;

use std::collections::HashMap;
use std::path::PathBuf;

use delve_protocol::{ClientMsg, Dir, MAX_CHAT_CHARS, PROTOCOL_VERSION, Pos, ServerMsg, Tile};
use macroquad::prelude::*;

use super::anim::Anims;
use super::audio::Audio;
use super::input::Input;
use super::inventory::{self, InventoryState};
use super::layout::{self, Layout, Space};
use super::lobby::{Choice, Lobby, Step};
use super::render::{self, Camera};
use super::scores as table;
use super::screens;
use super::screenshot;
use super::sprites::Sprites;
use super::text_input::{TextInput, typed};
use super::theme::BG;
use super::{banners, log, panel};
use crate::appearance::Appearance;
use crate::keymap::KeyMap;
use crate::model::Model;
use crate::net::{Link, NetEvent, Platform};
use crate::pack::{self, PackKey, PackOutcome};
use crate::scores::{self, Mine, ScoreBoard};
#[cfg(not(target_arch = "wasm32"))]
use crate::solo::SoloServer;
use crate::tokens::TokenStore;
use crate::travel::Trip;

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
    /// The keys in force (the defaults, or the player's key file).
    pub keys: KeyMap,
    /// Where the key file is, or what is wrong with it: shown on the help screen.
    pub keys_note: String,
    /// Steps to play instead of a hand on the keys (`--script`, for screenshot tests).
    pub script: Option<Vec<crate::script::Action>>,
    /// `--bench-frames N`: record a game, then measure N frames of each kind (see `bench`).
    #[cfg(not(target_arch = "wasm32"))]
    pub bench: Option<u32>,
    /// Play by touch from the start (`--touch`; a browser finds out by itself).
    pub touch: bool,
    /// Watch this finished game again instead of playing (the page `/replay/ID`).
    pub replay: Option<crate::link::ReplayLink>,
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
    /// Every key, from the key table (`?`).
    Help,
    /// Esc on the map: resume, help, sound, high scores, quit.
    Menu {
        selected: usize,
    },
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
    /// Where to remember the token of (server, dungeon, name).
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
    /// A walk under way (a click, `>`/`<` away from stairs, `x`), one move a turn.
    trip: Option<Trip>,
    /// A throw or a shot being aimed (`f`; `t` in the pack).
    aim: Option<crate::aim::Aim>,
    /// The monster explore was last refused for: said once, not at every press.
    refused_for: Option<u32>,
    /// The friend last walked to (`"`): pressed again, the next one.
    friend_last: Option<u32>,
    /// Where the map was drawn last frame, to find the cell under the mouse.
    camera: Option<Camera>,
    /// Where the key file is, or why it could not be read, for the help screen.
    keys_note: String,
    /// Where a script points the mouse, and a click it made (`--script`).
    pointed: Option<Vec2>,
    click: bool,
    /// A right click a script made (`mark DX,DY`).
    right_click: bool,
    script: Option<script::Player>,
    /// Where this game's character dump was saved, once it ended (as the end screen says it).
    dump: Option<String>,
    /// Where it was saved (a path, or a browser's storage key), and the server's game whose
    /// dump was put there (see `ended`).
    dump_at: Option<String>,
    dump_game: Option<u64>,
    /// The server's address, for the links to a finished game's page.
    url: String,
    /// The connection has been up once: a later failure is "lost", not "cannot reach".
    ever_joined: bool,
    /// The sound effects, and their volume.
    audio: Audio,
    /// Every message from the server, in order, while the bench records its game.
    recorder: Option<Vec<ServerMsg>>,
    /// Whether a game of ours that ends is kept (its dump, a solo score): not the bench's
    /// throwaway character, whose death must not land in the player's files.
    keep_ends: bool,
    /// The in-process server of `--solo`, kept alive as long as the game runs (a new game
    /// after the end asks it for a fresh dungeon).
    #[cfg(not(target_arch = "wasm32"))]
    solo_server: Option<SoloServer>,
    /// The interface's size and the map's look, as the player set them.
    appearance: Appearance,
    /// Where the pointer was last frame (a line follows the pointer only when it moves).
    last_pointer: Option<Vec2>,
    /// The pack line clicked last and when (two clicks on one line choose it).
    last_row_click: Option<(usize, f64)>,
    /// When our own game ended, while the keys and clicks of the moment are still ignored.
    end_guard: Option<f64>,
    /// The hover box is put away: the player plays by keys, and the pointer has not moved
    /// since.
    hover_off: bool,
    /// Where the pointer was at the start of the last frame.
    pointer_was: Option<Vec2>,
    /// The log's last lines are kept under this name (see [`crate::recent`]); `None` for a
    /// watcher, or where nothing is kept.
    recent_key: Option<String>,
    /// The token this game took its character back with, until the welcome: if the welcome
    /// names it, the character's kept lines come back (a refused token brings a new one).
    resuming: Option<String>,
    /// The log as last kept (its length and newest line) and when.
    recent_kept: (usize, Option<(String, u32)>, f64),
    /// The fingers on a touch screen, and whether play is by touch.
    fingers: super::touch::Fingers,
    /// Where a finger tapped this frame (a click there).
    tapped: Option<Vec2>,
    /// Where a finger holds (or held) to have the cell described, and until when.
    held: Option<(Vec2, f64)>,
    /// How much larger than its fit the map is drawn (pinch, zoom buttons, the wheel).
    map_zoom: f32,
    /// The page's text field is open for the chat line (a touch screen's keyboard).
    #[cfg(target_arch = "wasm32")]
    field_open: bool,
    /// The controls of the finished game this connection replays, if it replays one.
    replay: Option<crate::replay::Controls>,
}

/// Where the chat line is typed, in interface units: along the foot of the map.
fn chat_line(layout: &Layout) -> Rect {
    let m = layout.map;
    Rect::new(m.x + 10.0, m.y + m.h - 44.0, m.w - 20.0, 36.0)
}

impl App {
    fn pump_network(&mut self, now: f64) {
        while let Some(ev) = self.net.try_recv() {
            match ev {
                NetEvent::Connected => {}
                NetEvent::Msg(msg) => {
                    if let Some(recorder) = &mut self.recorder {
                        recorder.push((*msg).clone());
                    }
                    self.on_message(*msg, now)
                }
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
        if matches!(
            msg,
            ServerMsg::Welcome { .. } | ServerMsg::Update { .. } | ServerMsg::Snapshot { .. }
        ) {
            self.replay_shown();
        }
        if let ServerMsg::Welcome { token, .. } = &msg {
            if self.ever_joined && matches!(self.connection, Connection::Reconnecting { .. }) {
                let turn = self.model.view.as_ref().map_or(0, |v| v.turn);
                self.model.push_log(
                    delve_protocol::MessageKind::Good,
                    "The connection is back: the game goes on.".into(),
                    turn,
                );
            }
            self.ever_joined = true;
            self.connection = Connection::Joined;
            if let (Some(t), Some((store, server, dungeon))) = (token, &mut self.tokens)
                && let Err(e) = store.put(server, dungeon, &self.name, t)
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
        // What the sounds compare with. A welcome (a join, a reconnect) is not something that
        // happened in the game: it makes no sound.
        let glance = self
            .model
            .view
            .as_ref()
            .filter(|_| !welcome)
            .map(crate::sound::Glance::of);
        // Our own character playing before this message: if it ends now, its game is kept.
        let playing_before = !self.spectating() && self.model.view.is_some();
        match self.model.handle(msg) {
            Ok(h) => {
                self.note_end();
                self.take_server_dump();
                if playing_before && self.ended.is_some() {
                    // Keys held to fight on, or pressed as the blow lands, must not sweep the
                    // summary away: input waits a moment (see `end_guard_holds`).
                    self.end_guard = Some(now);
                    if self.keep_ends {
                        self.keep_end();
                    }
                }
                if let Screen::Scores(board) = &mut self.screen {
                    if let Some((_, message)) = &h.error {
                        board.refused(message.clone());
                    }
                    // A question asked before the connection dropped is asked again.
                    if welcome && !board.loaded() && !self.solo {
                        self.net.send(scores::request());
                    }
                }
                if h.snapshot {
                    self.anims.reset();
                    self.awaiting = None;
                }
                if welcome
                    && let Some(sent) = self.resuming.take()
                    && self.model.token.as_deref() == Some(sent.as_str())
                {
                    self.welcome_back();
                }
                if let (Some(view), Some(script)) = (&self.model.view, &mut self.script) {
                    script.on_view(view);
                }
                if let Some(view) = &self.model.view {
                    self.audio
                        .play(&crate::sound::cues(glance.as_ref(), view, &h.events));
                    let pos_of = |id| {
                        view.entity(id)
                            .map(|e| e.pos)
                            .or_else(|| before.get(&id).copied())
                    };
                    self.anims.on_events(&h.events, view.me.id, pos_of, now);
                    if let Some(trip) = &mut self.trip {
                        trip.on_events(&h.events, view.me.id);
                    }
                    if self.awaiting.is_some_and(|t| view.turn >= t) {
                        self.awaiting = None;
                    }
                }
                if h.error.is_some() {
                    // A refused intent leaves nothing pending, and ends a walk: trying the
                    // same step again would only be refused again (and spend the rate limit).
                    self.awaiting = None;
                    self.trip = None;
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
            name: me.name.to_string(),
            dungeon: dungeon.clone(),
            turns: me.turns,
            score: me.score,
        });
    }

    /// Opens the high-score table and asks the server for it (a solo game reads its own).
    fn open_scores(&mut self) {
        let mine = self.ended.clone();
        self.screen = Screen::Scores(ScoreBoard::open(self.model.scores_received, mine));
        self.ask_scores();
    }

    fn ask_scores(&mut self) {
        if self.solo {
            self.model.scores = crate::keep::solo_scores();
            self.model.scores_received += 1;
        } else {
            self.net.send(scores::request());
        }
    }

    /// Takes in the table's answer and asks again when our game should be in it but is not yet.
    fn scores_tick(&mut self, now: f64) {
        if let Screen::Scores(board) = &mut self.screen
            && board.poll(&self.model.scores, self.model.scores_received, now)
        {
            self.ask_scores();
        }
    }

    /// Whether this connection has no character of its own (it only watches).
    fn watcher_only(&self) -> bool {
        self.model.token.is_none() && self.model.watching.is_some()
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

    /// A new game after the end of a solo one: a fresh dungeon with a new seed (the old one
    /// has lost its monsters and its loot), joined on a new connection with a model of its own.
    /// A shared dungeon keeps its world: there `new_character` starts again in it.
    #[cfg(not(target_arch = "wasm32"))]
    fn new_solo_game(&mut self) {
        let Some(solo) = &mut self.solo_server else {
            return;
        };
        let dungeon = solo.next_dungeon();
        let hello = crate::net::hello(&self.name, &dungeon, None);
        match <Platform as Link>::game(solo.url.clone(), hello) {
            Ok(net) => {
                self.net = net;
                self.model = Model::new();
                self.connection = Connection::Connecting;
                self.screen = Screen::Game;
                self.anims.reset();
                (self.awaiting, self.trip, self.ended, self.dump) = (None, None, None, None);
                self.dump_at = None;
                (self.end_hidden, self.points_seen) = (false, 0);
                if let Some((_, _, d)) = &mut self.tokens {
                    *d = dungeon;
                }
                self.note("A new game, in a fresh dungeon.");
            }
            Err(e) => self.note(&format!("A new game could not start: {e}")),
        }
    }

    fn open_inventory(&mut self) {
        self.screen = Screen::Inventory(InventoryState::default());
    }

    fn open_chat(&mut self) {
        self.screen = Screen::Chat(TextInput::new(MAX_CHAT_CHARS, false));
        // On a touch screen the page's own text field takes the typing, so the phone's
        // keyboard comes up; it lies where the chat line is drawn.
        #[cfg(target_arch = "wasm32")]
        if self.fingers.touch {
            let r = Space::Ui.rect_to(Space::Window, chat_line(&Layout::new()));
            delve_web_js::field_open(r.x, r.y, r.w, r.h, false, MAX_CHAT_CHARS, "Say...");
            self.field_open = true;
        }
    }

    /// Closes the chat line (and the page's text field, if it took the typing).
    fn close_chat(&mut self) {
        self.screen = Screen::Game;
        #[cfg(target_arch = "wasm32")]
        if std::mem::take(&mut self.field_open) {
            delve_web_js::field_close();
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
    appearance: &mut Appearance,
    fingers: &mut super::touch::Fingers,
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
        if let Some(r) = super::input::resize_pressed() {
            resize(appearance, r);
        }
        let tapped = fingers.poll(get_time()).into_iter().find_map(|g| match g {
            super::touch::Gesture::Tap(p) => Some(p),
            _ => None,
        });
        start_frame(appearance, fingers.touch);
        let pointer = (!fingers.touch).then(|| mouse_position().into());
        super::widgets::new_frame(pointer);
        match lobby.frame(&typed(), tapped, fingers.touch) {
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
            touch: fingers.touch,
            buttons: super::widgets::drawn_names(),
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

/// Works out this frame's scales (the window may have changed) and readies the text sizes
/// they need.
fn start_frame(appearance: &Appearance, touch: bool) {
    if layout::set_frame(appearance.scale, touch) {
        super::text::warm(layout::scales());
    }
}

/// Makes the interface larger, smaller or its own size again, and keeps the setting. Returns
/// what to tell the player.
fn resize(appearance: &mut Appearance, r: super::input::Resize) -> String {
    match r {
        super::input::Resize::Larger => appearance.step_scale(true),
        super::input::Resize::Smaller => appearance.step_scale(false),
        super::input::Resize::Reset => appearance.scale = 100,
    }
    match appearance.save() {
        Ok(()) => format!("Interface size {}%.", appearance.scale),
        Err(e) => format!("Interface size {}% (not kept: {e}).", appearance.scale),
    }
}

/// Runs the game until the window closes (or the screenshot is taken).
pub async fn run(mut options: Options) {
    let mut appearance = Appearance::load();
    // A phone or a tablet is played by touch from the start; elsewhere, from the first touch.
    #[cfg(target_arch = "wasm32")]
    let touch_screen = delve_web_js::touch_screen();
    #[cfg(not(target_arch = "wasm32"))]
    let touch_screen = options.touch;
    let mut fingers = super::touch::Fingers::new(touch_screen);
    super::text::warm(layout::scales());
    start_frame(&appearance, fingers.touch);
    // The page asks a new player's name once; their tokens are kept per name.
    // (A replay asks nothing: nobody plays.)
    #[cfg(target_arch = "wasm32")]
    if options.replay.is_none() && options.name.is_empty() {
        options.name = super::web::ask_name(appearance.scale).await;
    }
    let replay = options.replay.take();
    let choice = match options.dungeon.take() {
        // A replay names its game, not a dungeon: the lobby is not shown.
        _ if replay.is_some() => Choice {
            dungeon: String::new(),
            password: None,
            watch: None,
        },
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
                &mut appearance,
                &mut fingers,
            )
            .await
        }
    };
    // Resume our character in this dungeon if we have played it from here before.
    let token = match (&choice.watch, &options.tokens) {
        _ if replay.is_some() => None,
        (None, Some(store)) => store.get(&options.token_server, &choice.dungeon, &options.name),
        _ => None,
    };
    let token_sent = token.clone();
    let hello = match &replay {
        Some(r) => ClientMsg::Replay {
            game: r.game,
            key: r.key.clone(),
            password: None,
        },
        None => ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            name: options.name.clone(),
            dungeon: choice.dungeon.clone(),
            token,
            password: choice.password.clone(),
            watch: choice.watch.clone(),
        },
    };
    if replay.is_some() {
        // Nothing of a replay is kept: it is not our character.
        options.tokens = None;
    }
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
        input: Input::new(options.keys.clone()),
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
        trip: None,
        aim: None,
        refused_for: None,
        friend_last: None,
        camera: None,
        keys_note: options.keys_note.clone(),
        pointed: None,
        click: false,
        right_click: false,
        script: options.script.take().map(script::Player::new),
        dump: None,
        dump_at: None,
        dump_game: None,
        url: options.url.clone(),
        ever_joined: false,
        audio: Audio::start(),
        recorder: None,
        keep_ends: true,
        appearance,
        last_pointer: None,
        last_row_click: None,
        end_guard: None,
        hover_off: false,
        pointer_was: None,
        recent_key: options
            .tokens
            .as_ref()
            .filter(|_| choice.watch.is_none())
            .map(|_| crate::recent::key(&options.token_server, &choice.dungeon, &options.name)),
        resuming: token_sent,
        recent_kept: (0, None, 0.0),
        fingers,
        tapped: None,
        held: None,
        map_zoom: 1.0,
        #[cfg(target_arch = "wasm32")]
        field_open: false,
        replay: replay.as_ref().map(|_| replay::controls()),
        tokens: options
            .tokens
            .take()
            .map(|t| (t, options.token_server.clone(), choice.dungeon.clone())),
        #[cfg(not(target_arch = "wasm32"))]
        solo_server: options.solo.take(),
    };
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(frames) = options.bench {
        std::process::exit(bench::run(&mut app, frames).await);
    }
    let (mut frames, started) = (0u32, get_time());
    let mut stats = super::frames::FrameStats::default();
    #[cfg(not(target_arch = "wasm32"))]
    let mut title = super::title::WindowTitle::default();
    let mut stats_at = started;
    loop {
        let work = super::frames::clock_ms();
        let now = get_time();
        app.touch_input(now);
        start_frame(&app.appearance, app.fingers.touch);
        // Nothing hovers on a touch screen: a finger that lifted points at nothing.
        super::widgets::new_frame((!app.fingers.touch).then(|| app.pointer()));
        app.note_pointer();
        app.pump_network(now);
        app.replay_tick(now);
        app.keep_recent(now);
        app.scores_tick(now);
        let mut chars = typed();
        chars.extend(app.input.injected_chars());
        app.handle_input(now, &chars);
        app.trip_tick(now);
        app.draw(now);
        app.script_tick(now);
        stats.push(
            f64::from(get_frame_time()) * 1000.0,
            super::frames::clock_ms() - work,
        );
        #[cfg(target_arch = "wasm32")]
        app.publish(&stats);
        #[cfg(not(target_arch = "wasm32"))]
        title.show(app.your_move());
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
