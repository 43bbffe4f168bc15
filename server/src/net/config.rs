//! Server settings. Every bound a client could push on has a limit here, with a safe default.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::game::Content;

#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Address to listen on. Loopback unless told otherwise.
    pub bind: SocketAddr,
    /// Where the server keeps its database (`delve.sqlite3`): dungeons, their journals and
    /// snapshots, characters' token hashes and the high scores. `None` keeps nothing: every
    /// dungeon lives in memory only and is gone when the server stops (solo play, tests).
    pub data_dir: Option<PathBuf>,
    /// Journal entries between two snapshots of a dungeon (the journal before a snapshot is
    /// compacted away). 0 snapshots only when a dungeon is unloaded or the server stops.
    pub snapshot_every: u64,
    /// Keep every journal entry even after snapshots, so a dungeon can be replayed from its
    /// seed (`delve-server replay --from-start`). The database grows with every turn.
    pub keep_journal: bool,
    /// How long a dungeon with nobody connected stays loaded before it is saved and unloaded
    /// (joining it later loads it again). Only with a data directory.
    pub unload_after: Duration,
    /// fsync every commit (survives power loss) instead of only writing it (survives the
    /// process being killed).
    pub sync_full: bool,
    /// How long a floor waits after its first choice before resolving anyway. Zero waits for
    /// every connected player.
    pub turn_timeout: Duration,
    /// Seed for every new dungeon instead of a random one (tests, reproducing a bug).
    pub seed: Option<u64>,
    /// Open connections, all addresses together. When they are all taken, a connection that
    /// has not finished its handshake gives its place to a newcomer (see `admission`).
    pub max_connections: usize,
    /// Open connections from one IP address.
    pub max_connections_per_ip: usize,
    /// Players online in one dungeon at once.
    pub max_players_per_dungeon: usize,
    /// Characters (online or not) one dungeon keeps.
    pub max_characters_per_dungeon: usize,
    /// Dungeons loaded at once.
    pub max_dungeons: usize,
    /// New dungeons one address may make in a row; it earns one back every
    /// `new_dungeon_refill`.
    pub new_dungeons_per_address: u32,
    pub new_dungeon_refill: Duration,
    /// When a dungeon is full, the characters of an address holding more than this many are
    /// the first to give way to a newcomer (those whose players are away, the one away longest
    /// first).
    pub characters_per_address: usize,
    /// When a dungeon is full, a character whose player has been away this long gives way to a
    /// newcomer.
    pub retire_after: Duration,
    /// Messages a connection may send per second, sustained.
    pub msgs_per_sec: u32,
    /// Messages a connection may send in a burst above the sustained rate.
    pub msg_burst: u32,
    /// Serve the browser client over HTTP on the game port (`--no-web` turns it off; the
    /// WebSocket is served either way).
    pub web: bool,
    /// Time allowed from TCP accept to a successful `hello`.
    pub handshake_timeout: Duration,
    /// How often a joined connection is sent a WebSocket ping. One that has sent nothing (not
    /// even the pong) for two intervals is taken for a dead link and dropped: its character's
    /// grace period starts then.
    pub ping_interval: Duration,
    /// Serve `GET /metrics` on this address instead of the game port (`None`: on the game
    /// port).
    pub metrics_bind: Option<SocketAddr>,
    /// How long a disconnected character stays on its floor before it is lifted out (it never
    /// holds up a turn meanwhile). Zero lifts it at once.
    pub grace: Duration,
    /// Chat lines one connection may send per second, sustained, and in a burst.
    pub chat_per_sec: u32,
    pub chat_burst: u32,
    /// Wrong passwords one address may try in a row before it is shut out; it earns one try
    /// back every `password_refill`.
    pub password_tries: u32,
    pub password_refill: Duration,
    /// New characters one address (an IPv6 /64 counts as one) may make in one dungeon in a
    /// row; it earns one back every `new_character_refill`. Resuming never counts.
    pub new_characters_per_address: u32,
    pub new_character_refill: Duration,
    /// Serve the record of finished games on the game port: `/scores`, `/games/ID` (and
    /// `.txt`) and `/api/games` (`--no-game-pages` turns them off). Games are recorded either
    /// way, and each player is still sent their own dump.
    pub game_pages: bool,
    /// Keep what each finished game needs to be replayed, and serve `/replay/ID`
    /// (`--no-replays` turns both off; the journal is then compacted as soon as no living
    /// character needs it).
    pub replays: bool,
    /// How long a game's replay is kept after it ended (`--replay-days`).
    pub replay_days: u32,
    /// The most bytes all kept replays may take together; past it the oldest go first
    /// (`--replay-budget-mb`).
    pub replay_budget: u64,
    /// List in the lobby who is playing in each public dungeon and who watches them
    /// (`--no-live-games` turns it off).
    pub live_games: bool,
    /// Monsters and tuning numbers (the built-in content file unless `--content` says).
    pub content: Arc<Content>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 7777)),
            data_dir: None,
            snapshot_every: 500,
            keep_journal: false,
            unload_after: Duration::from_secs(120),
            sync_full: false,
            turn_timeout: Duration::from_secs(3),
            seed: None,
            max_connections: 512,
            max_connections_per_ip: 32,
            max_players_per_dungeon: 8,
            max_characters_per_dungeon: 32,
            max_dungeons: 128,
            new_dungeons_per_address: 4,
            new_dungeon_refill: Duration::from_secs(600),
            characters_per_address: 4,
            retire_after: Duration::from_secs(30 * 24 * 3600),
            msgs_per_sec: 20,
            msg_burst: 40,
            web: true,
            handshake_timeout: Duration::from_secs(10),
            ping_interval: Duration::from_secs(10),
            metrics_bind: None,
            grace: Duration::from_secs(10),
            game_pages: true,
            replays: true,
            replay_days: 90,
            replay_budget: 1 << 30,
            live_games: true,
            chat_per_sec: 1,
            chat_burst: 5,
            password_tries: 5,
            password_refill: Duration::from_secs(12),
            new_characters_per_address: 6,
            new_character_refill: Duration::from_secs(600),
            content: Arc::new(Content::builtin()),
        }
    }
}
