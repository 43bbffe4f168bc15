//! The server's side of the record of finished games (see [`crate::record`] and
//! [`crate::store::games`]): who may see which game, the dumps a stopped server left
//! unwritten, and the replays that have expired.
//!
//! # Who sees what
//! A game of a public dungeon is anyone's to see. A game of a private dungeon (one with a
//! password) is not listed and not shown to anyone who does not give either the dungeon's
//! password or the game's own key (which its player gets in `game_over`, in the links to its
//! page and replay). A game that is not shown is answered exactly like one that does not exist.
//! Passwords are checked as a `hello`'s are, with the same tries per address.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use tracing::{info, warn};

use super::Shared;
use super::password::PasswordHash;
use crate::record::{self, GameFacts};
use crate::store::{GameId, GameRow, Store};

/// Why a game (or a private dungeon's list) is not shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// No such game, or not shown without its key or password (told the same way).
    NotFound,
    /// The password given for a private dungeon is wrong.
    WrongPassword(String),
    /// The address has run out of password tries for now.
    ShutOut,
    /// The server keeps no games (no data directory), or does not publish them.
    NotKept,
}

impl Denied {
    /// The sentence a visitor is shown.
    pub fn sentence(&self, id: Option<GameId>) -> String {
        match (self, id) {
            // One line, as PROTOCOL.md's transcripts quote it.
            (Denied::NotFound, Some(id)) => format!(
                "No game {id} is kept on this server, or it was played in a private dungeon: open it with the link its player was given, or give the dungeon's password."
            ),
            (Denied::NotFound, None) => "No such dungeon is kept on this server.".to_string(),
            (Denied::WrongPassword(dungeon), _) => {
                format!("Wrong password for dungeon {dungeon}.")
            }
            (Denied::ShutOut, _) => {
                "Too many wrong passwords from your address; try again later.".to_string()
            }
            (Denied::NotKept, _) => "This server does not publish its finished games.".to_string(),
        }
    }
}

/// How often kept replays are checked against their age and the byte budget.
const EXPIRE_EVERY: Duration = Duration::from_secs(3600);

impl Shared {
    /// The store, if this server keeps and publishes games.
    fn archive(&self) -> Result<&Store, Denied> {
        match &self.store {
            Some(store) if self.config.game_pages => Ok(store),
            _ => Err(Denied::NotKept),
        }
    }

    /// Game `id` if it is kept and may be shown to someone from `ip` who gives `key` (the
    /// game's own) or `password` (its dungeon's).
    pub async fn visible_game(
        self: &Arc<Self>,
        id: GameId,
        key: Option<&str>,
        password: Option<&str>,
        ip: IpAddr,
    ) -> Result<GameRow, Denied> {
        let store = self.archive()?.clone();
        let row = tokio::task::spawn_blocking(move || store.game(id))
            .await
            .ok()
            .and_then(Result::ok)
            .flatten()
            .ok_or(Denied::NotFound)?;
        if !row.private {
            return Ok(row);
        }
        let key_opens = match (key, row.view_key.as_deref()) {
            (Some(given), Some(kept)) => super::validate::token_eq(given, kept),
            _ => false,
        };
        if key_opens {
            return Ok(row);
        }
        match password {
            Some(p) => match self.opens_dungeon(&row.score.dungeon, p, ip).await {
                Ok(true) => Ok(row),
                Ok(false) => Err(Denied::NotFound),
                Err(e) => Err(e),
            },
            None => Err(Denied::NotFound),
        }
    }

    /// Whether `password` opens dungeon `name`: `Ok(false)` when the dungeon is not kept or is
    /// not private, `Err` for a wrong password (counted against `ip`'s tries).
    pub async fn opens_dungeon(
        self: &Arc<Self>,
        name: &str,
        password: &str,
        ip: IpAddr,
    ) -> Result<bool, Denied> {
        let store = self.archive()?.clone();
        let key = name.to_owned();
        let row = tokio::task::spawn_blocking(move || store.find_dungeon(&key))
            .await
            .ok()
            .and_then(Result::ok)
            .flatten();
        let Some(row) = row else {
            return Ok(false);
        };
        let Some(stored) = row
            .password_hash
            .as_deref()
            .and_then(PasswordHash::from_stored)
        else {
            return Ok(false);
        };
        let guard = &self.password_guard;
        if !guard.reserve(ip) {
            return Err(Denied::ShutOut);
        }
        if self.hasher.verify(stored, password.to_owned()).await {
            Ok(true)
        } else {
            info!(%ip, dungeon = %row.name, "wrong dungeon password for its games");
            Err(Denied::WrongPassword(row.name))
        }
    }
}

/// The games that ended while a server stopped before writing their dumps (those with a replay
/// and no dump). Listed as the server starts, before it serves anyone: one read of the
/// database, so the reads that follow are all answers to somebody.
pub async fn missing_dumps(shared: &Shared) -> Vec<GameId> {
    let Some(store) = shared.store.clone() else {
        return Vec::new();
    };
    match tokio::task::spawn_blocking(move || store.games_without_dump()).await {
        Ok(Ok(ids)) => ids,
        Ok(Err(e)) => {
            warn!(error = %e, "cannot list the games without a dump");
            Vec::new()
        }
        Err(_) => Vec::new(),
    }
}

/// Keeps the record tidy for as long as the server runs: first writes the dumps of `missing`
/// ([`missing_dumps`]), then deletes expired replays now and every hour
/// ([`ServerConfig::replay_days`](super::ServerConfig), `replay_budget`).
pub async fn keep(shared: Arc<Shared>, missing: Vec<GameId>) {
    let Some(store) = shared.store.clone() else {
        return;
    };
    let content = Arc::clone(&shared.config.content);
    let sweep = {
        let store = store.clone();
        tokio::task::spawn_blocking(move || write_missing_dumps(&store, &content, missing))
    };
    let _ = sweep.await;
    loop {
        let days = u64::from(shared.config.replay_days);
        let cutoff =
            crate::store::now() - i64::try_from(days.saturating_mul(86_400)).unwrap_or(i64::MAX);
        let (cutoff, budget) = if shared.config.replays {
            (cutoff, shared.config.replay_budget)
        } else {
            // Replays turned off: those kept from before go too.
            (i64::MAX, 0)
        };
        match store.expire_replays(cutoff, budget).await {
            Ok(0) => {}
            Ok(n) => info!(replays = n, "expired replays deleted"),
            Err(e) => warn!(error = %e, "cannot delete expired replays"),
        }
        tokio::time::sleep(EXPIRE_EVERY).await;
    }
}

/// Writes the dump of each of `ids`, games that have a replay and no dump yet.
fn write_missing_dumps(store: &Store, content: &Arc<crate::game::Content>, ids: Vec<GameId>) {
    for id in ids {
        let (Ok(Some(row)), Ok(Some(slice))) = (store.game(id), store.replay(id)) else {
            continue;
        };
        let facts = GameFacts {
            player: row.player_id.unwrap_or(0),
            start_seq: row.start_seq.unwrap_or(0),
            end_hash: row.end_hash.clone().unwrap_or_default(),
            engine: row.engine.clone().unwrap_or_default(),
            content_hash: String::new(),
        };
        match record::dump_of(&slice, Arc::clone(content), &facts, &row.score.dungeon) {
            Ok((mut dump, _)) => {
                dump.started = row.started_at;
                dump.ended = row.score.ended_at;
                let json = serde_json::to_string(&dump).unwrap_or_default();
                if let Err(e) = store.set_dump(id, json).wait() {
                    warn!(game = id, error = %e, "cannot store a dump");
                } else {
                    info!(
                        game = id,
                        "dump written for a game a stopped server had not"
                    );
                }
            }
            Err(e) => warn!(game = id, error = %e, "cannot replay a game for its dump"),
        }
    }
}
