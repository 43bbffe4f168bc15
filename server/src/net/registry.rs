//! The dungeons this server has loaded, by name. A dungeon's task is started on first join.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use delve_protocol::DungeonInfo;
use tokio::sync::mpsc;

use super::config::ServerConfig;
use super::dungeon_task::{Command, DungeonStats, DungeonTask};
use super::password::PasswordHash;

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
        }
    }
}

#[derive(Debug, Default)]
pub struct Registry {
    /// Keyed by lower-cased name, so "Crypt" and "crypt" are one dungeon.
    dungeons: Mutex<HashMap<String, DungeonHandle>>,
}

/// Commands queued for one dungeon before its connections feel back-pressure.
const DUNGEON_QUEUE: usize = 1024;

impl Registry {
    /// The dungeon called `name`, started now (private if `password` is given) if it is not
    /// running. The flag tells whether this call made it. `None` when the server already holds as
    /// many dungeons as it allows.
    pub fn get_or_create(
        &self,
        name: &str,
        config: &Arc<ServerConfig>,
        password: Option<PasswordHash>,
    ) -> Option<(DungeonHandle, bool)> {
        let key = name.to_lowercase();
        let mut map = self.dungeons.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = map.get(&key) {
            if !h.tx.is_closed() {
                return Some((h.clone(), false));
            }
            // Its task ended (it can only panic on a bug); start afresh rather than refuse.
            map.remove(&key);
        }
        if map.len() >= config.max_dungeons {
            return None;
        }
        let seed = config.seed.unwrap_or_else(rand::random);
        let (tx, rx) = mpsc::channel(DUNGEON_QUEUE);
        let stats = Arc::new(DungeonStats::default());
        let task = DungeonTask::new(
            name.to_owned(),
            seed,
            Arc::clone(config),
            Arc::clone(&stats),
        );
        tokio::spawn(task.run(rx));
        let handle = DungeonHandle {
            name: name.to_owned(),
            tx,
            stats,
            password,
        };
        map.insert(key, handle.clone());
        Some((handle, true))
    }

    /// The dungeon called `name` if it is running.
    pub fn get(&self, name: &str) -> Option<DungeonHandle> {
        let map = self.dungeons.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&name.to_lowercase())
            .filter(|h| !h.tx.is_closed())
            .cloned()
    }

    /// Every running dungeon as the lobby shows it, by name.
    pub fn list(&self) -> Vec<DungeonInfo> {
        let map = self.dungeons.lock().unwrap_or_else(|e| e.into_inner());
        let mut all: Vec<DungeonInfo> = map
            .values()
            .filter(|h| !h.tx.is_closed())
            .map(DungeonHandle::info)
            .collect();
        all.sort_by_key(|d| d.name.to_lowercase());
        all
    }

    /// Drops every dungeon handle, so their tasks end once their connections are gone.
    pub fn clear(&self) {
        self.dungeons
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    pub fn len(&self) -> usize {
        self.dungeons
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
