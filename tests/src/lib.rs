//! Harness for end-to-end tests, the load generator and benchmarks: a real server on a free
//! loopback port, and bots that speak to it over real WebSockets using the client's own
//! [`Session`] and [`Model`] (so the tests exercise the code the game runs).
//!
//! Every wait has a timeout and fails loudly: nothing here sleeps and hopes.
//!
//! The crate's parts:
//!
//! - this library: [`TestServer`], [`Bot`] (a scripted player) and the configurations tests
//!   start servers with; [`docs`]: the string literals of the sources, for the doc tests;
//!   [`raw_ws`]: a hand-written WebSocket client for frames that break the protocol; [`walk`]:
//!   walking a bot about by its own view (to an item, to the unknown); [`proxy`]: a TCP proxy
//!   that can go silent, for links that die without a word; [`http`]: GETs of the pages;
//!   [`finished`]: games played to a death by a scripted player, for the record's tests;
//! - `src/bin/delve-load.rs`: the load generator; `src/bin/png-check.rs`: CI's screenshot check;
//! - `benches/`: the engine's hot paths and the cost of storage (docs/BENCHMARKS.md);
//! - `tests/`: one file per story told through a real server: `bad_input`, `death`,
//!   `protocol_violations`, `names_and_chat`,
//!   `fight_and_descend`, `items`, `rest`, `throw`, `junk_flood`, `reconnect`, `together` and `two_players` play
//!   the game; `docs_json` decodes every JSON example of the docs, `docs_rules` holds
//!   docs/RULES.md to the content file, and `python_bot` runs `examples/bot.py` against a server.

pub mod docs;

pub mod browser;
pub mod finished;
pub mod http;
pub mod load;
pub mod proxy;
pub mod raw_ws;
pub mod walk;

use delve_protocol::Action;
use std::sync::Arc;
use std::time::Duration;

use delve_client::model::Model;
use delve_client::net::{NetError, Session};
use delve_protocol::{ClientMsg, Dir, ErrorCode, Event, Pos, ServerMsg, View};
use delve_server::game::Content;
use delve_server::net::{Server, ServerConfig};

/// Longest any single wait in a test may take before it fails.
pub const WAIT: Duration = Duration::from_secs(10);

/// A server configuration for tests of connections and turn rules: a free port, a fixed seed,
/// no turn timer, and no monsters to disturb them.
pub fn test_config() -> ServerConfig {
    ServerConfig {
        bind: ([127, 0, 0, 1], 0).into(),
        data_dir: None,
        seed: Some(42),
        turn_timeout: Duration::ZERO,
        content: Arc::new(Content::builtin_without_monsters()),
        // Every test connects from 127.0.0.1; the budgets have their own tests (hello_flood.rs).
        new_characters_per_address: 1_000,
        new_dungeons_per_address: 1_000,
        ..ServerConfig::default()
    }
}

/// Like [`test_config`] but with the monsters of the real game, and players too tough to die:
/// for long random games whose views must stay exact while monsters roam, fight and die.
pub fn sturdy_config() -> ServerConfig {
    let mut content = Content::builtin();
    content.player.hp = 1_000_000;
    ServerConfig {
        content: Arc::new(content),
        ..test_config()
    }
}

/// A real server for one test.
pub struct TestServer {
    server: Server,
    pub url: String,
}

impl TestServer {
    pub async fn start(config: ServerConfig) -> TestServer {
        let server = Server::start(config).await.expect("server starts");
        let url = server.url();
        TestServer { server, url }
    }

    /// Shuts the server down; every dungeon it keeps on disk must be saved.
    pub async fn stop(self) {
        self.server
            .shutdown()
            .await
            .expect("every dungeon is saved at shutdown");
    }

    pub fn connections(&self) -> usize {
        self.server.connections()
    }

    pub fn dungeons(&self) -> usize {
        self.server.dungeons()
    }

    /// What the server's database has done so far (`None` without a data directory).
    pub fn store_stats(&self) -> Option<delve_server::store::StoreStats> {
        self.server.store_stats()
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        self.server.local_addr()
    }

    /// What `GET /metrics` would answer now.
    pub fn metrics(&self) -> String {
        self.server.metrics()
    }

    /// One number of [`TestServer::metrics`]: the value on the line that starts with `series`
    /// and a space (`delve_refusals_total{reason="dead_link"}`), 0 if there is none.
    pub fn metric(&self, series: &str) -> f64 {
        metric(&self.metrics(), series)
    }
}

/// The value of `series` in a Prometheus text answer, 0 if it is not there.
pub fn metric(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

/// A scripted player: a session plus the client model it keeps up to date.
pub struct Bot {
    pub name: String,
    pub session: Session,
    pub model: Model,
}

impl Bot {
    /// Connects and joins `dungeon` as a new character called `name`, panicking with the
    /// server's reason on refusal. Returns once the arrival update ("Entering floor #1") is in.
    pub async fn join(url: &str, name: &str, dungeon: &str) -> Bot {
        let mut bot = Bot::join_with(url, name, dungeon, None).await;
        let events = bot.next_view().await;
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Message { text, .. } if text == "Entering floor #1")),
            "{name}: no arrival message in {events:?}"
        );
        bot
    }

    /// Connects and sends `hello` (any hello: with a password, a watch, ...), panicking with the
    /// server's reason on refusal. Returns as soon as the welcome is in.
    pub async fn hello(url: &str, name: &str, hello: ClientMsg) -> Bot {
        let mut session = within(Session::connect(url))
            .await
            .unwrap_or_else(|e| panic!("{name} cannot connect: {e}"));
        within(session.send(&hello))
            .await
            .unwrap_or_else(|e| panic!("{name} cannot send hello: {e}"));
        let first = within(session.recv())
            .await
            .unwrap_or_else(|e| panic!("{name} got no answer to hello: {e}"));
        let mut bot = Bot {
            name: name.to_owned(),
            session,
            model: Model::new(),
        };
        match first {
            msg @ ServerMsg::Welcome { .. } => {
                bot.model.handle(msg).expect("welcome applies");
            }
            other => panic!("{name} expected a welcome, got {other:?}"),
        }
        bot
    }

    /// Joins (or creates) the private dungeon `dungeon` with `password` as a new character.
    /// Returns once the arrival update is in, like [`Bot::join`].
    pub async fn join_private(url: &str, name: &str, dungeon: &str, password: &str) -> Bot {
        let msg = hello_with(name, dungeon, None, Some(password), None);
        let mut bot = Bot::hello(url, name, msg).await;
        let events = bot.next_view().await;
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Message { text, .. } if text == "Entering floor #1")),
            "{name}: no arrival message in {events:?}"
        );
        bot
    }

    /// Joins `dungeon` as a watcher called `name` following the player `target`. Returns as soon
    /// as the welcome is in.
    pub async fn watch(url: &str, name: &str, dungeon: &str, target: &str) -> Bot {
        Bot::hello(
            url,
            name,
            hello_with(name, dungeon, None, None, Some(target)),
        )
        .await
    }

    /// Connects from the local address `from` (any of 127.0.0.0/8), so one test stands in for
    /// players at different addresses, and says `hello`: the bot once welcomed, or the
    /// server's refusal.
    pub async fn hello_from(
        url: &str,
        from: std::net::IpAddr,
        name: &str,
        hello: ClientMsg,
    ) -> Result<Bot, (ErrorCode, String)> {
        let mut session = within(Session::connect_from(url, from))
            .await
            .unwrap_or_else(|e| panic!("{name} cannot connect from {from}: {e}"));
        within(session.send(&hello))
            .await
            .unwrap_or_else(|e| panic!("{name} cannot send hello: {e}"));
        let first = within(session.recv())
            .await
            .unwrap_or_else(|e| panic!("{name} got no answer to hello: {e}"));
        let mut bot = Bot {
            name: name.to_owned(),
            session,
            model: Model::new(),
        };
        match first {
            msg @ ServerMsg::Welcome { .. } => {
                bot.model.handle(msg).expect("welcome applies");
                Ok(bot)
            }
            ServerMsg::Error { code, message, .. } => Err((code, message)),
            other => panic!("{name} expected a welcome or an error, got {other:?}"),
        }
    }

    /// Connects and says hello, returning as soon as the welcome is in (a resumed character gets
    /// nothing more until its floor's next turn).
    pub async fn join_with(url: &str, name: &str, dungeon: &str, token: Option<String>) -> Bot {
        let (session, first) = within(Session::join(url, name, dungeon, token))
            .await
            .unwrap_or_else(|e| panic!("{name} cannot join: {e}"));
        let mut bot = Bot {
            name: name.to_owned(),
            session,
            model: Model::new(),
        };
        match first {
            msg @ ServerMsg::Welcome { .. } => {
                bot.model.handle(msg).expect("welcome applies");
            }
            other => panic!("{name} expected a welcome, got {other:?}"),
        }
        bot
    }

    pub fn id(&self) -> u32 {
        self.model.player_id.expect("joined")
    }

    pub fn view(&self) -> &View {
        self.model.view.as_ref().expect("has a view")
    }

    pub fn pos(&self) -> Pos {
        self.view().me.pos
    }

    pub async fn send(&mut self, msg: ClientMsg) {
        within(self.session.send(&msg))
            .await
            .unwrap_or_else(|e| panic!("{} cannot send: {e}", self.name));
    }

    pub async fn step(&mut self, dir: Dir) {
        self.send(ClientMsg::Act(Action::Move { dir })).await;
    }

    /// The next message from the server, whatever it is (not applied to the model).
    pub async fn recv(&mut self) -> Result<ServerMsg, NetError> {
        match tokio::time::timeout(WAIT, self.session.recv()).await {
            Ok(r) => r,
            Err(_) => panic!("{}: nothing from the server within {WAIT:?}", self.name),
        }
    }

    /// Reads until the next view message (update or snapshot), applying everything to the
    /// model. Returns the events of that update. Panics on an unexpected error frame.
    pub async fn next_view(&mut self) -> Vec<Event> {
        loop {
            let msg = self
                .recv()
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", self.name));
            let is_view = matches!(msg, ServerMsg::Update { .. } | ServerMsg::Snapshot { .. });
            if let ServerMsg::Error { code, message, .. } = &msg {
                panic!("{}: unexpected error {code:?}: {message}", self.name);
            }
            let handled = self
                .model
                .handle(msg)
                .unwrap_or_else(|e| panic!("{}: {e}", self.name));
            if is_view {
                return handled.events;
            }
        }
    }

    /// Reads until an error frame arrives and returns the rule that refused, if one did.
    pub async fn next_reason(&mut self) -> Option<delve_protocol::Reason> {
        loop {
            match self
                .recv()
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", self.name))
            {
                ServerMsg::Error { reason, .. } => return reason,
                other => {
                    self.model
                        .handle(other)
                        .unwrap_or_else(|e| panic!("{}: {e}", self.name));
                }
            }
        }
    }

    /// Reads until an error frame arrives and returns it; view messages on the way are applied.
    pub async fn next_error(&mut self) -> (ErrorCode, String) {
        loop {
            match self
                .recv()
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", self.name))
            {
                ServerMsg::Error { code, message, .. } => return (code, message),
                other => {
                    self.model
                        .handle(other)
                        .unwrap_or_else(|e| panic!("{}: {e}", self.name));
                }
            }
        }
    }

    /// Reads views until the view's turn is `turn` (panicking if it goes past), returning the
    /// events of every update on the way.
    pub async fn until_turn(&mut self, turn: u64) -> Vec<Event> {
        let mut events = Vec::new();
        while self.view().turn < turn {
            events.extend(self.next_view().await);
        }
        assert_eq!(self.view().turn, turn, "{}: the turn went past", self.name);
        events
    }

    /// Asks for a snapshot and applies everything up to it; returns the other messages that
    /// arrived before it (updates, turn status, ...). Panics if the snapshot differs from the
    /// view the bot built.
    pub async fn resync(&mut self) -> Vec<ServerMsg> {
        self.send(ClientMsg::Resync).await;
        let mut before = Vec::new();
        loop {
            let msg = self
                .recv()
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", self.name));
            if let ServerMsg::Snapshot { view, .. } = &msg {
                assert_eq!(self.view(), view, "{}: the view drifted", self.name);
                self.model
                    .handle(msg)
                    .unwrap_or_else(|e| panic!("{}: {e}", self.name));
                return before;
            }
            self.model
                .handle(msg.clone())
                .unwrap_or_else(|e| panic!("{}: {e}", self.name));
            before.push(msg);
        }
    }

    /// Directions this bot could step in according to its own view (floor, not a wall).
    pub fn open_dirs(&self) -> Vec<Dir> {
        let v = self.view();
        Dir::ALL
            .into_iter()
            .filter(|&d| v.map.get(v.me.pos.step(d)).is_walkable())
            .collect()
    }
}

/// A `hello` for this protocol version with any of its optional fields.
pub fn hello_with(
    name: &str,
    dungeon: &str,
    token: Option<String>,
    password: Option<&str>,
    watch: Option<&str>,
) -> ClientMsg {
    ClientMsg::Hello {
        version: delve_protocol::PROTOCOL_VERSION,
        name: name.to_owned(),
        dungeon: dungeon.to_owned(),
        token,
        password: password.map(str::to_owned),
        watch: watch.map(str::to_owned),
    }
}

/// Runs a future with the test timeout, panicking if it takes longer.
pub async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(WAIT, f)
        .await
        .unwrap_or_else(|_| panic!("timed out after {WAIT:?}"))
}

/// Every entity in `view` stands on a cell the view marks visible, and the party tells the
/// place only of friends on this floor out of sight: the view leaks nothing.
pub fn assert_no_leaks(who: &str, view: &View) {
    for e in &view.entities {
        assert!(
            e.id == view.me.id || view.is_visible(e.pos),
            "{who} knows of entity {} at {:?}, which it cannot see",
            e.id,
            e.pos
        );
    }
    for (i, t) in view.map.cells().iter().enumerate() {
        if view.visible.contains(i) {
            assert_ne!(
                *t,
                delve_protocol::Tile::Unknown,
                "{who}: visible cell {i} is unknown"
            );
        }
    }
    // Friends' places are told only for those on this floor and out of sight (the rest are
    // entities of the view, or nowhere the player may know).
    for m in view.party.iter().filter(|m| m.pos.is_some()) {
        assert!(
            m.depth == view.depth && view.entity(m.id).is_none(),
            "{who} is told where {} stands, on floor {} (in sight: {})",
            m.name,
            m.depth,
            view.entity(m.id).is_some()
        );
    }
}
