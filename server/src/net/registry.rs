//! The dungeons this server has loaded, by name. A dungeon's task is started on first join: a
//! new dungeon is created (and, with a data directory, written to the database), a saved one is
//! loaded from its newest snapshot and the journal after it.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use delve_protocol::DungeonInfo;
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;
use tracing::{error, info, warn};

use super::config::ServerConfig;
use super::dungeon_task::{Command, DungeonStats, DungeonTask, Kept};
use super::limits::{AddressBudget, in_words};
use super::ops::Ops;
use super::password::PasswordHash;
use super::world::{Journal, World};
use crate::game::Dungeon;
use crate::game::input::Input;
use crate::game::save::hash_of_save;
use crate::store::Store;

/// How to reach a running dungeon.
#[derive(Clone, Debug)]
pub struct DungeonHandle {
    pub name: String,
    pub tx: mpsc::Sender<Command>,
    pub stats: Arc<DungeonStats>,
    /// Set when the dungeon is made, for a private dungeon.
    pub password: Option<PasswordHash>,
}

impl DungeonHandle {
    /// How the lobby shows it: a private dungeon shows only its name.
    pub fn info(&self) -> DungeonInfo {
        let private = self.password.is_some();
        DungeonInfo {
            name: self.name.clone(),
            private,
            online: (!private).then(|| self.stats.online.load(Ordering::Relaxed) as u32),
            deepest: (!private).then(|| self.stats.deepest.load(Ordering::Relaxed).max(1)),
            players: if private {
                Vec::new()
            } else {
                self.stats
                    .live
                    .lock()
                    .map(|l| l.clone())
                    .unwrap_or_default()
            },
        }
    }
}

#[derive(Debug)]
pub struct Registry {
    /// Keyed by lower-cased name, so "Crypt" and "crypt" are one dungeon.
    dungeons: Mutex<HashMap<String, DungeonHandle>>,
    /// Every dungeon task started, so shutdown can wait for them to save.
    tasks: Mutex<Vec<JoinHandle<()>>>,
    /// Dungeon tasks that ended without saving their world (the server's exit code says so).
    unsaved: Arc<AtomicUsize>,
    /// One idle dungeon saves and unloads at a time (see `DungeonTask::run`).
    unloads: Arc<Semaphore>,
    /// New dungeons per address; taken under the lock of `dungeons`, once a dungeon is made.
    creations: AddressBudget,
    ops: Arc<Ops>,
    /// The newest saved dungeons as the lobby lists them, read once and kept until a dungeon is
    /// made or unloaded (`changes` moves on), so a flood of `list_dungeons` reads the database
    /// once however many saved dungeons there are. Its lock is held while reading, so lobbies
    /// asking at once wait for one read; the lock of `dungeons` never is.
    saved: Mutex<Option<(u64, Vec<DungeonInfo>)>>,
    /// Moves on whenever what `saved` holds may have changed.
    changes: AtomicU64,
    /// The most dungeons loaded at once (`--max-dungeons`).
    max_dungeons: usize,
}

impl Registry {
    pub fn new(config: &ServerConfig, ops: Arc<Ops>) -> Registry {
        Registry {
            dungeons: Mutex::default(),
            tasks: Mutex::default(),
            unsaved: Arc::default(),
            unloads: Arc::new(Semaphore::new(1)),
            creations: AddressBudget::new(
                config.new_dungeons_per_address,
                config.new_dungeon_refill,
            ),
            ops,
            saved: Mutex::default(),
            changes: AtomicU64::new(0),
            max_dungeons: config.max_dungeons,
        }
    }
}

/// Why a dungeon could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("The server holds as many dungeons as it allows; join an existing one.")]
    Full,
    #[error("Dungeon {0} could not be loaded; the server's log says why.")]
    Broken(String),
    /// What is saved of the dungeon cannot rebuild it exactly, for the reason given.
    #[error(
        "Dungeon {name} cannot be loaded: {why}. It is kept as it was, for the server's operator."
    )]
    Damaged { name: String, why: String },
    #[error("Dungeon {0} could not be stored; the server's log says why.")]
    Storage(String),
    /// The address has made as many new dungeons as it may for now.
    #[error(
        "Too many new dungeons from your address; the next one can be made in {}. Join an existing one meanwhile.",
        in_words(*.0)
    )]
    TooMany(Duration),
}

/// Saved dungeons that are not loaded, listed in the lobby at most.
const MAX_LISTED_SAVED: usize = 100;

/// Commands queued for one dungeon before its connections feel back-pressure.
const DUNGEON_QUEUE: usize = 1024;

impl Registry {
    /// The dungeon called `name`, made now (private if `password` is given) unless it is
    /// running or saved. The flag tells whether this call made it.
    pub fn get_or_create(
        &self,
        name: &str,
        config: &Arc<ServerConfig>,
        store: Option<&Store>,
        password: Option<PasswordHash>,
        from: IpAddr,
    ) -> Result<(DungeonHandle, bool), OpenError> {
        if let Some(h) = self.get(name) {
            return Ok((h, false));
        }
        if let Some(h) = self.load(name, config, store)? {
            return Ok((h, false));
        }
        let key = name.to_lowercase();
        let mut map = self.dungeons.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = map.get(&key).filter(|h| !h.tx.is_closed()) {
            return Ok((h.clone(), false));
        }
        if self.loaded(&mut map) >= config.max_dungeons {
            return Err(OpenError::Full);
        }
        // The last refusal, so nothing else spends the address's budget. (A dungeon that then
        // cannot be stored has spent it: that is the operator's trouble, and rare.)
        self.creations.take(from).map_err(OpenError::TooMany)?;
        let seed = config.seed.unwrap_or_else(rand::random);
        let journal = match store {
            Some(store) => {
                let settings = serde_json::json!({ "created_by": env!("CARGO_PKG_VERSION") });
                let stored = password.as_ref().map(PasswordHash::to_stored);
                let row = store
                    .create_dungeon(
                        name,
                        seed,
                        stored.as_deref(),
                        &settings.to_string(),
                        &config.content.source_hash,
                    )
                    .map_err(|e| {
                        warn!(dungeon = %name, error = %e, "cannot store a new dungeon");
                        OpenError::Storage(name.to_owned())
                    })?;
                Some(
                    Journal::new(
                        store.clone(),
                        row.id,
                        0,
                        config.snapshot_every,
                        config.keep_journal,
                    )
                    .timed(self.ops.metrics.journal_write.clone()),
                )
            }
            None => None,
        };
        info!(dungeon = %name, seed, "dungeon created");
        self.changes.fetch_add(1, Ordering::Relaxed);
        let world = World::new(Dungeon::new(seed, Arc::clone(&config.content)), journal);
        let handle = self.spawn(name, world, HashMap::new(), config, password);
        map.insert(key, handle.clone());
        Ok((handle, true))
    }

    /// Loads the saved dungeon called `name` and starts its task, unless it is running already
    /// or was never saved (`None`). Reading and replaying happen outside the registry's lock
    /// (call this off the async threads: it reads the database); if another joiner loaded the
    /// same dungeon meanwhile, that one is kept and this load is dropped unused.
    pub fn load(
        &self,
        name: &str,
        config: &Arc<ServerConfig>,
        store: Option<&Store>,
    ) -> Result<Option<DungeonHandle>, OpenError> {
        let Some(store) = store else {
            return Ok(None);
        };
        if let Some(h) = self.get(name) {
            return Ok(Some(h));
        }
        if self.len() >= config.max_dungeons {
            return Err(OpenError::Full);
        }
        let Some(saved) = read_saved(name, config, store, &self.ops)? else {
            return Ok(None);
        };
        let key = name.to_lowercase();
        let mut map = self.dungeons.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = map.get(&key).filter(|h| !h.tx.is_closed()) {
            return Ok(Some(h.clone()));
        }
        if self.loaded(&mut map) >= config.max_dungeons {
            return Err(OpenError::Full);
        }
        let Saved {
            name,
            world,
            kept,
            password,
        } = saved;
        let handle = self.spawn(&name, world, kept, config, password);
        map.insert(key, handle.clone());
        Ok(Some(handle))
    }

    fn spawn(
        &self,
        name: &str,
        world: World,
        kept: HashMap<u32, Kept>,
        config: &Arc<ServerConfig>,
        password: Option<PasswordHash>,
    ) -> DungeonHandle {
        let (tx, rx) = mpsc::channel(DUNGEON_QUEUE);
        let stats = Arc::new(DungeonStats {
            private: password.is_some(),
            ..DungeonStats::default()
        });
        let task = DungeonTask::new(
            name.to_owned(),
            world,
            kept,
            Arc::clone(config),
            Arc::clone(&stats),
            Arc::clone(&self.unloads),
            Arc::clone(&self.ops),
        );
        let unsaved = Arc::clone(&self.unsaved);
        let join = tokio::spawn(async move {
            if !task.run(rx).await {
                unsaved.fetch_add(1, Ordering::Relaxed);
            }
        });
        let mut tasks = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        tasks.retain(|t| !t.is_finished());
        tasks.push(join);
        DungeonHandle {
            name: name.to_owned(),
            tx,
            stats,
            password,
        }
    }

    /// Waits for every dungeon task to end (each saves its world on the way out). The number
    /// of dungeons that ended, then or before, without their world saved.
    pub async fn wait_for_tasks(&self) -> usize {
        let tasks: Vec<JoinHandle<()>> =
            std::mem::take(&mut *self.tasks.lock().unwrap_or_else(|e| e.into_inner()));
        let mut crashed = 0;
        for t in tasks {
            if t.await.is_err() {
                crashed += 1;
            }
        }
        crashed + self.unsaved.load(Ordering::Relaxed)
    }

    /// The dungeon called `name` if it is running.
    pub fn get(&self, name: &str) -> Option<DungeonHandle> {
        let map = self.dungeons.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&name.to_lowercase())
            .filter(|h| !h.tx.is_closed())
            .cloned()
    }

    /// Every dungeon as the lobby shows it, by name: the running ones, and the newest
    /// [`MAX_LISTED_SAVED`] of those saved in `store` but not loaded (nobody online). The saved
    /// ones come from [`Registry::saved`]: no database read while nothing changed.
    pub fn list(&self, store: Option<&Store>) -> Vec<DungeonInfo> {
        let (mut all, running): (Vec<DungeonInfo>, Vec<String>) = {
            let mut map = self.dungeons.lock().unwrap_or_else(|e| e.into_inner());
            self.loaded(&mut map);
            let infos = map.values().map(DungeonHandle::info).collect();
            (infos, map.keys().cloned().collect())
        };
        if let Some(store) = store {
            let saved = self.saved(store);
            all.extend(
                saved
                    .into_iter()
                    .filter(|d| !running.contains(&d.name.to_lowercase()))
                    .take(MAX_LISTED_SAVED),
            );
        }
        all.sort_by_key(|d| d.name.to_lowercase());
        all
    }

    /// The newest saved dungeons as the lobby shows a dungeon nobody is in, newest first: enough
    /// of them that [`MAX_LISTED_SAVED`] remain once the loaded ones are left out.
    fn saved(&self, store: &Store) -> Vec<DungeonInfo> {
        let mut kept = self.saved.lock().unwrap_or_else(|e| e.into_inner());
        let now = self.changes.load(Ordering::Relaxed);
        if let Some((seen, list)) = kept.as_ref()
            && *seen == now
        {
            return list.clone();
        }
        let most = MAX_LISTED_SAVED + self.len_limit();
        let list: Vec<DungeonInfo> = match store.newest_dungeons(most) {
            Ok(rows) => rows
                .into_iter()
                .map(|r| {
                    let private = r.password_hash.is_some();
                    DungeonInfo {
                        name: r.name,
                        private,
                        online: (!private).then_some(0),
                        deepest: (!private)
                            .then(|| u8::try_from(r.deepest).unwrap_or(u8::MAX).max(1)),
                        players: Vec::new(),
                    }
                })
                .collect(),
            Err(e) => {
                warn!(error = %e, "cannot list the saved dungeons");
                return Vec::new();
            }
        };
        *kept = Some((now, list.clone()));
        list
    }

    /// How many dungeons may be loaded at once (what the lobby's read must look past).
    fn len_limit(&self) -> usize {
        self.max_dungeons
    }

    /// Drops every dungeon handle, so their tasks end once their connections are gone.
    pub fn clear(&self) {
        self.dungeons
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// Whether `ip` may make a new dungeon now, or how long until it may (nothing is taken).
    pub fn may_create(&self, ip: IpAddr) -> Result<(), Duration> {
        self.creations.wait(ip)
    }

    /// Players online in all the loaded dungeons.
    pub fn online(&self) -> usize {
        let map = self.dungeons.lock().unwrap_or_else(|e| e.into_inner());
        map.values()
            .filter(|h| !h.tx.is_closed())
            .map(|h| h.stats.online.load(Ordering::Relaxed))
            .sum()
    }

    /// Dungeons loaded right now (those being saved and unloaded no longer count).
    pub fn len(&self) -> usize {
        self.loaded(&mut self.dungeons.lock().unwrap_or_else(|e| e.into_inner()))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Drops the entries of dungeons that were unloaded (their tasks closed their channels) and
/// counts the rest: the cap on loaded dungeons counts those alone. (It once counted every entry
/// ever made, so a server that had unloaded `--max-dungeons` dungeons refused every load and
/// every new dungeon from then on, with none loaded.)
fn loaded(map: &mut HashMap<String, DungeonHandle>) -> usize {
    map.retain(|_, h| !h.tx.is_closed());
    map.len()
}

impl Registry {
    /// [`loaded`], noting for the lobby's list when a dungeon was unloaded (its deepest floor,
    /// as saved, may be news).
    fn loaded(&self, map: &mut HashMap<String, DungeonHandle>) -> usize {
        let before = map.len();
        let now = loaded(map);
        if now != before {
            self.changes.fetch_add(1, Ordering::Relaxed);
        }
        now
    }
}

/// A saved dungeon read back, ready to run.
struct Saved {
    name: String,
    world: World,
    kept: HashMap<crate::game::EntityId, Kept>,
    password: Option<PasswordHash>,
}

/// Reads the saved dungeon called `name`: its newest snapshot, the journal after it replayed,
/// its characters' token hashes and its password. `None` if it was never saved.
fn read_saved(
    name: &str,
    config: &Arc<ServerConfig>,
    store: &Store,
    ops: &Ops,
) -> Result<Option<Saved>, OpenError> {
    let broken = |why: String| {
        error!(dungeon = %name, error = %why, "cannot load dungeon");
        OpenError::Broken(name.to_owned())
    };
    // Told to its players too: nothing in it is secret, and "try later" would not help.
    let damaged = |why: String| {
        error!(dungeon = %name, error = %why, "cannot load dungeon; it is left as it is on disk");
        OpenError::Damaged {
            name: name.to_owned(),
            why,
        }
    };
    let Some(row) = store
        .find_dungeon(name)
        .map_err(|e| broken(e.to_string()))?
    else {
        return Ok(None);
    };
    if row.content_hash != config.content.source_hash {
        warn!(dungeon = %row.name, "this dungeon was played with another content file; its world goes on with this one");
    }
    let saved = store.load(row.id).map_err(|e| broken(e.to_string()))?;
    // A world that cannot be rebuilt exactly is refused and left on disk as it is, for its
    // operator: never rebuilt from its seed, never saved over.
    saved.check().map_err(&damaged)?;
    let content = Arc::clone(&config.content);
    let (mut dungeon, mut seq) = match &saved.snapshot {
        Some((seq, data, hash)) => {
            let found = hash_of_save(data);
            if found != *hash {
                return Err(damaged(format!(
                    "its snapshot at entry {seq} is damaged: its state hash is {found}, {hash} was saved"
                )));
            }
            (
                Dungeon::load(data, content).map_err(|e| damaged(e.to_string()))?,
                *seq,
            )
        }
        None => (Dungeon::new(row.seed, content), 0),
    };
    for (s, entry) in &saved.journal {
        let input: Input = postcard::from_bytes(entry)
            .map_err(|e| damaged(format!("its journal entry {s} is damaged: {e}")))?;
        dungeon.replay(&input);
        seq = *s;
    }
    let kept = store
        .characters(row.id)
        .map_err(|e| broken(e.to_string()))?
        .into_iter()
        .filter(|c| dungeon.player(c.player_id).is_some())
        .map(|c| (c.player_id, Kept::from(c)))
        .collect();
    let password = match &row.password_hash {
        Some(stored) => Some(
            PasswordHash::from_stored(stored)
                .ok_or_else(|| broken("its password hash is not readable".into()))?,
        ),
        None => None,
    };
    info!(dungeon = %row.name, seq, replayed = saved.journal.len(), hash = %dungeon.state_hash(), "dungeon loaded");
    let journal = Journal::new(
        store.clone(),
        row.id,
        seq,
        config.snapshot_every,
        config.keep_journal,
    )
    .timed(ops.metrics.journal_write.clone());
    Ok(Some(Saved {
        name: row.name,
        world: World::new(dungeon, Some(journal)),
        kept,
        password,
    }))
}
