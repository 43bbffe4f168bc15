//! The networking shell: accept loop, one task per connection, one task per live dungeon.
//!
//! - `admission`: the connection slots, and who gives way when the server is full;
//! - `web`: the front door of every TCP connection (HTTP, the page, `/metrics`, the upgrade);
//! - `connection`: one WebSocket from its handshake to its end, pings included; `wire`: the
//!   frames it writes;
//! - `registry`: the loaded dungeons; `dungeon_task/`: one dungeon's task; `world`: its
//!   journaled engine;
//! - `link`: a connection's socket, written by its own task and its dungeon's; `outbox_queue`:
//!   the channel from the dungeon to each connection (its closes); `limits`: rate limits and
//!   per-address budgets; `validate`: names and text; `password`: private dungeons' hashes;
//! - `ops/`: what an operator sees (metrics and summary log lines); `stall_watch`: the event
//!   loop's health; `config`: every setting;
//! - the record of finished games: `archive` (who sees which game, dumps left unwritten,
//!   expired replays), `pages/` (`/scores`, `/games/ID`, `/api/games`, `/replay/ID`) and
//!   `replay_session` (a connection that plays a game back instead of joining one).

pub mod admission;
pub mod archive;
pub mod config;
pub mod connection;
pub mod dungeon_task;
pub mod limits;
pub mod link;
pub mod ops;
pub mod outbox_queue;
pub mod pages;
pub mod password;
pub mod registry;
pub mod replay_session;
pub mod stall_watch;
pub mod validate;
pub mod web;
pub mod wire;
pub mod world;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tracing::{error, info, warn};

use admission::{Admission, SlotRefused};
pub use config::ServerConfig;
use limits::PasswordGuard;
use ops::{Cut, Ops};
use registry::Registry;

use crate::store::{Store, StoreOptions, Synchronous};

/// State every connection task shares.
#[derive(Debug)]
pub struct Shared {
    pub config: Arc<ServerConfig>,
    pub registry: Registry,
    pub admission: Arc<Admission>,
    pub next_conn: AtomicU64,
    pub hasher: password::Hasher,
    pub password_guard: PasswordGuard,
    /// The database, when the server has a data directory.
    pub store: Option<Store>,
    /// Metrics and the summary lines of the log.
    pub ops: Arc<Ops>,
    /// Places for replays open at once (`replay_session`).
    pub replays: Arc<tokio::sync::Semaphore>,
}

impl Shared {
    /// The best `limit` games of the high-score table (20 if not given, at most
    /// `MAX_SCORES`): those of public dungeons, and of the private dungeon called `private_ok`
    /// (the one the asker plays in); empty when the server keeps no data.
    pub fn scores(
        &self,
        limit: Option<u32>,
        private_ok: Option<String>,
    ) -> Vec<delve_protocol::ScoreEntry> {
        let limit = limit.unwrap_or(20).min(delve_protocol::MAX_SCORES) as usize;
        let Some(store) = &self.store else {
            return Vec::new();
        };
        let query = crate::store::GameQuery {
            limit,
            order: crate::store::Order::Best,
            private_ok,
            ..Default::default()
        };
        match store.games(&query) {
            Ok(rows) => rows
                .into_iter()
                .map(|g| {
                    let r = g.score;
                    delve_protocol::ScoreEntry {
                        victory: g.victory,
                        name: r.name,
                        score: u32::try_from(r.score).unwrap_or(u32::MAX),
                        level: r.level,
                        deepest: u8::try_from(r.deepest).unwrap_or(u8::MAX),
                        kills: r.kills,
                        turns: r.turns,
                        outcome: r.outcome,
                        dungeon: r.dungeon,
                        ended: u64::try_from(r.ended_at).unwrap_or(0),
                        game: u64::try_from(g.id).ok(),
                    }
                })
                .collect(),
            Err(e) => {
                warn!(error = %e, "cannot read the high scores");
                Vec::new()
            }
        }
    }

    /// The lobby's list of dungeons, read on the blocking pool: it may read the database.
    pub async fn dungeon_list(self: &Arc<Self>) -> Vec<delve_protocol::DungeonInfo> {
        let shared = Arc::clone(self);
        tokio::task::spawn_blocking(move || shared.registry.list(shared.store.as_ref()))
            .await
            .unwrap_or_default()
    }

    /// The best `limit` games, read on the blocking pool.
    pub async fn top_scores(
        self: &Arc<Self>,
        limit: Option<u32>,
        private_ok: Option<String>,
    ) -> Vec<delve_protocol::ScoreEntry> {
        let shared = Arc::clone(self);
        tokio::task::spawn_blocking(move || shared.scores(limit, private_ok))
            .await
            .unwrap_or_default()
    }

    /// Loads the saved dungeon called `name` (see [`Registry::load`]) on the blocking pool.
    pub async fn load_dungeon(
        self: &Arc<Self>,
        name: &str,
    ) -> Result<Option<registry::DungeonHandle>, registry::OpenError> {
        let (shared, name) = (Arc::clone(self), name.to_owned());
        tokio::task::spawn_blocking(move || {
            shared
                .registry
                .load(&name, &shared.config, shared.store.as_ref())
        })
        .await
        .unwrap_or_else(|e| Err(registry::OpenError::Broken(format!("{e}"))))
    }

    /// The dungeon called `name`, loaded or made now (see [`Registry::get_or_create`]), on the
    /// blocking pool: making one writes to the database.
    pub async fn open_dungeon(
        self: &Arc<Self>,
        name: &str,
        password: Option<password::PasswordHash>,
        from: std::net::IpAddr,
    ) -> Result<(registry::DungeonHandle, bool), registry::OpenError> {
        let (shared, name) = (Arc::clone(self), name.to_owned());
        tokio::task::spawn_blocking(move || {
            let store = shared.store.as_ref();
            shared
                .registry
                .get_or_create(&name, &shared.config, store, password, from)
        })
        .await
        .unwrap_or_else(|e| Err(registry::OpenError::Broken(format!("{e}"))))
    }

    /// The WebSocket settings of every game socket (see [`ws_config`]).
    pub fn ws_config(&self) -> WebSocketConfig {
        ws_config()
    }

    /// What `GET /metrics` answers now.
    pub fn metrics_text(&self) -> String {
        self.ops.metrics.render(ops::metrics::Now {
            players_online: self.registry.online(),
            dungeons_loaded: self.registry.len(),
            connections: self.admission.total(),
            handshaking: self.admission.pending(),
        })
    }
}

/// Small buffers and tight limits on every socket: the default 128 KiB read buffer costs
/// ~138 KB per idle client, and client frames are tiny intents. Public so the load generator's
/// echo baseline runs with exactly these settings.
pub fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0)
        .max_write_buffer_size(1 << 20)
        .max_message_size(Some(delve_protocol::MAX_CLIENT_FRAME))
        .max_frame_size(Some(delve_protocol::MAX_CLIENT_FRAME))
}

/// A running server. Dropping it does not stop it; call [`Server::shutdown`].
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    accept: tokio::task::JoinHandle<()>,
    /// The event loop's stall watch (see [`stall_watch`]), the summary lines of the log and the
    /// metrics listener, if any: stopped with the server.
    watches: Vec<tokio::task::JoinHandle<()>>,
    shared: Arc<Shared>,
}

impl Server {
    /// Opens the database (with a data directory), binds `config.bind` and starts accepting
    /// connections. A database that cannot be used is an error, and is left untouched.
    pub async fn start(config: ServerConfig) -> io::Result<Server> {
        let store = match &config.data_dir {
            Some(dir) => {
                let options = StoreOptions {
                    synchronous: if config.sync_full {
                        Synchronous::Full
                    } else {
                        Synchronous::Normal
                    },
                    ..StoreOptions::default()
                };
                let store = Store::open(dir, options).map_err(io::Error::other)?;
                info!(path = %store.path().display(), "database open");
                Some(store)
            }
            None => None,
        };
        let listener = TcpListener::bind(config.bind).await?;
        let addr = listener.local_addr()?;
        let metrics_listener = match config.metrics_bind {
            Some(at) => Some(TcpListener::bind(at).await?),
            None => None,
        };
        let (shutdown, shutdown_rx) = watch::channel(false);
        let password_guard = PasswordGuard::new(config.password_tries, config.password_refill);
        let ops = Arc::new(Ops::default());
        let shared = Arc::new(Shared {
            registry: Registry::new(&config, Arc::clone(&ops)),
            config: Arc::new(config),
            admission: Arc::default(),
            next_conn: AtomicU64::new(1),
            hasher: password::Hasher::default(),
            password_guard,
            store,
            ops: Arc::clone(&ops),
            replays: Arc::new(tokio::sync::Semaphore::new(
                replay_session::MAX_OPEN_REPLAYS,
            )),
        });
        info!(%addr, "listening");
        let accept = tokio::spawn(accept_loop(listener, Arc::clone(&shared), shutdown_rx));
        let stalls = tokio::spawn(stall_watch::watch(
            stall_watch::TICK,
            stall_watch::STALL,
            move |late| {
                ops.metrics.loop_stalls.observe(late.as_secs_f64());
                let late_ms = late.as_millis() as u64;
                warn!(
                    late_ms,
                    "the event loop was held up: connections it serves waited as long"
                );
            },
        ));
        let missing = archive::missing_dumps(&shared).await;
        let mut watches = vec![
            stalls,
            tokio::spawn(Arc::clone(&shared.ops).report()),
            tokio::spawn(archive::keep(Arc::clone(&shared), missing)),
        ];
        if let Some(listener) = metrics_listener {
            let at = listener.local_addr()?;
            info!(%at, "metrics at http://{at}/metrics");
            watches.push(tokio::spawn(web::serve_metrics(
                listener,
                Arc::clone(&shared),
            )));
        }
        Ok(Server {
            addr,
            shutdown,
            accept,
            watches,
            shared,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `ws://` address clients connect to.
    pub fn url(&self) -> String {
        format!("ws://{}", self.addr)
    }

    /// Dungeons loaded right now.
    pub fn dungeons(&self) -> usize {
        self.shared.registry.len()
    }

    /// Open connections right now.
    pub fn connections(&self) -> usize {
        self.shared.admission.total()
    }

    /// What `GET /metrics` answers now.
    pub fn metrics(&self) -> String {
        self.shared.metrics_text()
    }

    /// What the writer thread of the database has done so far (`None` without one).
    pub fn store_stats(&self) -> Option<crate::store::StoreStats> {
        self.shared.store.as_ref().map(Store::stats)
    }

    /// Stops accepting, tells every client the server is going away, closes their sockets and
    /// waits (at most a few seconds) for the connection tasks to finish, then for every dungeon
    /// to save its world. Every wait has a deadline, so a client that never reads cannot hold
    /// the server up. `Err` names what was not saved.
    pub async fn shutdown(self) -> Result<(), NotSaved> {
        info!("shutting down");
        for w in &self.watches {
            w.abort();
        }
        self.shared.ops.write_summary();
        let _ = self.shutdown.send(true);
        if tokio::time::timeout(Duration::from_secs(10), self.accept)
            .await
            .is_err()
        {
            warn!("connections did not close in time");
        }
        // With their connections gone and their handles dropped, the dungeon tasks save their
        // worlds and end.
        self.shared.registry.clear();
        let unsaved = match tokio::time::timeout(
            Duration::from_secs(30),
            self.shared.registry.wait_for_tasks(),
        )
        .await
        {
            Ok(0) => {
                info!("shut down");
                return Ok(());
            }
            Ok(n) => NotSaved::Failed(n),
            Err(_) => NotSaved::TimedOut,
        };
        error!(error = %unsaved, "shut down without saving everything");
        Err(unsaved)
    }
}

/// Why a shutdown did not save every dungeon. Their journals still hold every turn a player
/// was shown, so nothing is lost; the next start replays more.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotSaved {
    #[error("{0} dungeon(s) could not be saved")]
    Failed(usize),
    #[error("the dungeons did not finish saving in time")]
    TimedOut,
}

async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut tasks = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => admit(stream, peer, &shared, &shutdown, &mut tasks),
                Err(e) => {
                    // Usually out of file descriptors: back off instead of spinning.
                    warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            _ = shutdown.changed() => break,
        }
    }
    drop(listener);
    while tasks.join_next().await.is_some() {}
}

/// Gives a new connection a slot (taking one from an unfinished handshake if the server is
/// full, see [`admission`]), or explains the refusal if its address has not been told enough
/// already, or closes it unanswered.
fn admit(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    shared: &Arc<Shared>,
    shutdown: &watch::Receiver<bool>,
    tasks: &mut JoinSet<()>,
) {
    let cfg = &shared.config;
    let ip = peer.ip();
    match shared
        .admission
        .admit(ip, cfg.max_connections, cfg.max_connections_per_ip)
    {
        Ok((slot, gave_way)) => {
            if let Some(g) = gave_way {
                shared.ops.cut(Cut::GaveWay, Some(g.from));
            }
            tasks.spawn(web::serve(
                stream,
                peer,
                Arc::clone(shared),
                Ok(slot),
                shutdown.clone(),
            ));
        }
        Err(why) => match shared.admission.explain(ip) {
            Some(explaining) => {
                let cut = match why {
                    SlotRefused::ServerFull => Cut::ServerFull,
                    SlotRefused::AddressFull => Cut::AddressFull,
                };
                shared.ops.cut(cut, Some(ip));
                let (shared, shutdown) = (Arc::clone(shared), shutdown.clone());
                tasks.spawn(async move {
                    // However the client behaves, a refusal is over within a few seconds.
                    let refusing = web::serve(stream, peer, shared, Err(why), shutdown);
                    let _ = tokio::time::timeout(web::REFUSAL_TIME, refusing).await;
                    drop(explaining);
                });
            }
            None => {
                shared.ops.cut(Cut::Unanswered, Some(ip));
                drop(stream);
            }
        },
    }
}
