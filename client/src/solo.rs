//! `--solo`: the server library started inside the client, on a free loopback port, with a
//! dungeon of one's own.
//!
//! The solo server keeps its dungeons in a database of its own (see
//! [`crate::tokens::solo_data_dir`]), like a dedicated server: quitting saves the game, and the
//! next `--solo` with the same name resumes the same character in the same dungeon. If that
//! database cannot be used (another solo game holds it, say), the game is played in memory and a
//! warning says so.
//!
//! A new game after a death (or a victory) is played in a fresh dungeon, with a new seed: the
//! one the character died in has lost its monsters and its loot. Each name's games are
//! numbered, and the number of the one in play is kept beside the database
//! (`solo-games.json`), so the next `--solo` resumes the newest.

use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use delve_server::net::{Server, ServerConfig};
use tokio::sync::oneshot;

/// A server running on its own thread. Dropping it shuts the server down.
#[derive(Debug)]
pub struct SoloServer {
    pub url: String,
    pub dungeon: String,
    /// Whether the game is saved (a database was opened) or lives in memory only.
    pub saved: bool,
    /// Whose games these are, and where their numbers are kept (when saved).
    player: String,
    data: Option<PathBuf>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl SoloServer {
    /// Starts the server for `player`, keeping its dungeons in `data` (or in memory), and
    /// returns once it is listening. A database that cannot be used falls back to memory.
    pub fn start(player: &str, data: Option<PathBuf>) -> anyhow::Result<SoloServer> {
        match data {
            Some(dir) => match SoloServer::start_with(player, Some(dir.clone())) {
                Ok(s) => Ok(s),
                Err(e) => {
                    eprintln!(
                        "delve: cannot keep the solo game in {} ({e:#}); this game will not be saved",
                        dir.display()
                    );
                    SoloServer::start_with(player, None)
                }
            },
            None => SoloServer::start_with(player, None),
        }
    }

    /// The server `--bench-frames` records its game on: in memory (the bench's throwaway
    /// character must not become the player's saved solo game), one fixed seed so every run
    /// records the same dungeon, and the message rate limit raised: the recording walks as fast
    /// as the server answers, past the 20 intents a second a hand on the keys is allowed.
    pub fn for_bench(player: &str) -> anyhow::Result<SoloServer> {
        SoloServer::start_tuned(player, None, |config| {
            config.seed = Some(7);
            config.msgs_per_sec = 10_000;
            config.msg_burst = 10_000;
        })
    }

    fn start_with(player: &str, data: Option<PathBuf>) -> anyhow::Result<SoloServer> {
        SoloServer::start_tuned(player, data, |_| {})
    }

    /// Starts a new game in a fresh dungeon (after a death or a victory): its name, to join.
    /// A saved game remembers it, so the next `--solo` resumes the new one.
    pub fn next_dungeon(&mut self) -> String {
        self.dungeon = match &self.data {
            Some(dir) => {
                let next = generation(dir, &self.player) + 1;
                if let Err(e) = set_generation(dir, &self.player, next) {
                    eprintln!("delve: cannot remember the new solo game: {e}");
                }
                solo_dungeon_at(&self.player, next)
            }
            None => fresh_dungeon(),
        };
        self.dungeon.clone()
    }

    fn start_tuned(
        player: &str,
        data: Option<PathBuf>,
        tune: fn(&mut ServerConfig),
    ) -> anyhow::Result<SoloServer> {
        let saved = data.is_some();
        let kept = data.clone();
        let (ready_tx, ready_rx) = mpsc::channel();
        let (stop, stop_rx) = oneshot::channel::<()>();
        let thread = thread::Builder::new()
            .name("delve-solo-server".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(anyhow::anyhow!(
                            "cannot start the solo server runtime: {e}"
                        )));
                        return;
                    }
                };
                rt.block_on(async move {
                    let mut config = ServerConfig {
                        bind: ([127, 0, 0, 1], 0).into(),
                        // Alone, there is nobody to wait for: every turn resolves on your action.
                        turn_timeout: Duration::ZERO,
                        max_connections: 4,
                        max_connections_per_ip: 4,
                        data_dir: data,
                        // Loaded as long as the game runs; saved when it ends.
                        unload_after: Duration::from_secs(3600),
                        ..ServerConfig::default()
                    };
                    tune(&mut config);
                    match Server::start(config).await {
                        Ok(server) => {
                            let _ = ready_tx.send(Ok(server.url()));
                            let _ = stop_rx.await;
                            // The journal holds every turn played; a failed save only means
                            // the next start replays more.
                            if let Err(e) = server.shutdown().await {
                                eprintln!("the solo game was not saved on the way out: {e}");
                            }
                        }
                        Err(e) => {
                            let _ = ready_tx
                                .send(Err(anyhow::anyhow!("cannot start the solo server: {e}")));
                        }
                    }
                });
            })?;
        let url = ready_rx.recv_timeout(Duration::from_secs(10))??;
        let dungeon = match &kept {
            Some(dir) => solo_dungeon_at(player, generation(dir, player)),
            // Nothing to come back to: a fresh dungeon every time.
            None => fresh_dungeon(),
        };
        Ok(SoloServer {
            url,
            dungeon,
            saved,
            player: player.to_owned(),
            data: kept,
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for SoloServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The saved solo dungeon of `player`: one per name (ignoring case), so each player on a
/// machine has their own game. Dungeon names are short and plain, so the name is hashed.
pub fn solo_dungeon(player: &str) -> String {
    // FNV-1a: stable across versions and platforms, which is all this needs.
    let hash = player
        .to_lowercase()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    format!("solo-{hash:016x}")
}

/// The `generation`-th solo dungeon of `player`: the first is [`solo_dungeon`] (so games saved
/// before there were more keep resuming), the next ones add their number.
pub fn solo_dungeon_at(player: &str, generation: u32) -> String {
    match generation {
        0 => solo_dungeon(player),
        n => format!("{}-{n}", solo_dungeon(player)),
    }
}

/// A dungeon nobody has played, for a game kept in memory.
fn fresh_dungeon() -> String {
    let token = delve_server::net::validate::new_token();
    format!("solo-{}", token.get(..12).unwrap_or("x"))
}

/// The file that keeps the number of each name's solo game in play.
fn games_file(dir: &std::path::Path) -> PathBuf {
    dir.join("solo-games.json")
}

/// The number of `player`'s solo game in play (0 when none was ever started again).
fn generation(dir: &std::path::Path, player: &str) -> u32 {
    let games: std::collections::BTreeMap<String, u32> = std::fs::read_to_string(games_file(dir))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    games.get(&player.to_lowercase()).copied().unwrap_or(0)
}

fn set_generation(dir: &std::path::Path, player: &str, n: u32) -> Result<(), String> {
    let path = games_file(dir);
    let mut games: std::collections::BTreeMap<String, u32> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    games.insert(player.to_lowercase(), n);
    let text = serde_json::to_string_pretty(&games).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_has_its_own_stable_valid_solo_dungeon() {
        let a = solo_dungeon("Ann");
        assert_eq!(a, solo_dungeon("ann"), "case does not matter");
        assert_eq!(a, solo_dungeon("Ann"), "the same every time");
        assert_ne!(a, solo_dungeon("Bob"));
        assert!(
            delve_server::net::validate::check_dungeon(&a).is_ok(),
            "{a}"
        );
        assert!(delve_server::net::validate::check_dungeon(&solo_dungeon("Zoë O'Neil")).is_ok());
    }

    #[test]
    fn a_new_solo_game_gets_a_fresh_dungeon_and_the_next_start_resumes_it() {
        let dir = std::env::temp_dir().join(format!("delve-solo-gen-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let data = Some(dir.clone());
        let mut s = SoloServer::start("Ann", data.clone()).unwrap();
        assert_eq!(
            s.dungeon,
            solo_dungeon("Ann"),
            "the first game is the old name"
        );
        let next = s.next_dungeon();
        assert_ne!(next, solo_dungeon("Ann"));
        assert!(
            delve_server::net::validate::check_dungeon(&next).is_ok(),
            "{next}"
        );
        drop(s);
        // Bob's games are his own; Ann's next start resumes her newest game.
        let bob = SoloServer::start("Bob", data.clone()).unwrap();
        assert_eq!(bob.dungeon, solo_dungeon("Bob"));
        drop(bob);
        let again = SoloServer::start("ann", data).unwrap();
        assert_eq!(again.dungeon, next);
        drop(again);
        let _ = std::fs::remove_dir_all(&dir);
        // A game in memory starts afresh every time.
        let mut mem = SoloServer::start("Ann", None).unwrap();
        let first = mem.dungeon.clone();
        assert_ne!(mem.next_dungeon(), first);
    }
}
