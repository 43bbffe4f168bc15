//! One task per live dungeon. It owns the engine, decides when each floor's turn resolves (all
//! connected players chose, or the floor's timer ran out), lifts out characters whose players
//! have been away too long, relays chat, and sends every connection its own view diffs.
//!
//! It never waits on a socket: frames go into each connection's bounded outbox with `try_send`.
//! A connection whose outbox is full has fallen behind; its frames are dropped until there is
//! room again, and then it gets a fresh snapshot instead of the diffs it missed. Each connection
//! keeps its own baseline (the last view it was sent), so a snapshot for one never disturbs
//! another's diffs.
//!
//! With a data directory, every input the world takes is journaled before anyone hears of its
//! outcome (see [`World`]); a dungeon nobody is connected to is saved and unloaded after a while,
//! and every dungeon is saved when its task ends.
//!
//! A connection may drive a character, watch one, or both (a dead player following a friend).
//! Whatever it watches, it is sent exactly the view and events of that character: a watcher
//! never learns more than the one it watches.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use delve_protocol::{
    ErrorCode, Event as ProtoEvent, MAX_CHAT_CHARS, MessageKind, PartyMember, ServerMsg, Stat,
    StatGain, View, Watcher, encode,
};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};
use tracing::{debug, error, info};

use super::config::ServerConfig;
use super::limits::RateLimiter;
use super::validate::new_token;
use super::world::World;
use crate::game::score::score;
use crate::game::{
    Action, ActionError, Dungeon, EntityId, Event, Input, JoinError, Outcome,
    Refusal as EngineRefusal,
};
use crate::store::{ScoreRow, token_hash, token_matches};
use crate::view::{events_for, view_of};

/// The error code for a refused action.
fn error_code(e: &ActionError) -> ErrorCode {
    match e {
        ActionError::NotPresent
        | ActionError::Dead
        | ActionError::Won
        | ActionError::StunnedPack
        | ActionError::ConfusedPack => ErrorCode::CannotAct,
        ActionError::NotCarried => ErrorCode::NoSuchItem,
        ActionError::PackFull => ErrorCode::PackFull,
        ActionError::Wall
        | ActionError::OffMap
        | ActionError::NoStairs
        | ActionError::NoWayUp
        | ActionError::NoPoints
        | ActionError::Locked
        | ActionError::NothingHere
        | ActionError::NotWearable(_)
        | ActionError::NotWorn(_)
        | ActionError::AlreadyWorn(_)
        | ActionError::NotUsable(_)
        | ActionError::KeyNotUsable
        | ActionError::FullHealth
        | ActionError::NotPoisoned
        | ActionError::StairsBlocked => ErrorCode::Rejected,
    }
}

/// Identifies one WebSocket connection for the server's lifetime.
pub type ConnId = u64;

/// What the dungeon task hands a connection to write.
#[derive(Debug)]
pub enum Outgoing {
    /// An encoded JSON text frame.
    Frame(String),
    /// Close the socket with this code and reason.
    Close { code: u16, reason: String },
}

type Refusal = (ErrorCode, String);

/// What a connection asks of its dungeon. After joining, commands name only the connection:
/// the character it drives can change (a new one after a death), and the dungeon knows which.
#[derive(Debug)]
pub enum Command {
    Join {
        name: String,
        token: Option<String>,
        conn: ConnId,
        out: mpsc::Sender<Outgoing>,
        reply: oneshot::Sender<Result<EntityId, Refusal>>,
    },
    /// Join as a watcher of the player called `target`, with no character of one's own.
    JoinWatching {
        name: String,
        target: String,
        conn: ConnId,
        out: mpsc::Sender<Outgoing>,
        reply: oneshot::Sender<Result<EntityId, Refusal>>,
    },
    Act {
        conn: ConnId,
        action: Action,
    },
    Resync {
        conn: ConnId,
    },
    /// Spend a stat point (takes no turn).
    LevelUp {
        conn: ConnId,
        stat: Stat,
    },
    /// Start a new character after this one died.
    NewCharacter {
        conn: ConnId,
    },
    Chat {
        conn: ConnId,
        text: String,
    },
    /// Follow the view of the player called `name`, or one's own (`None`).
    Follow {
        conn: ConnId,
        name: Option<String>,
    },
    Disconnect {
        conn: ConnId,
    },
}

/// What the registry and lobby can read about a running dungeon without asking its task.
#[derive(Debug, Default)]
pub struct DungeonStats {
    /// Players online (watchers not counted).
    pub online: AtomicUsize,
    /// The deepest floor any character has reached.
    pub deepest: AtomicU8,
}

/// One connection in the dungeon.
struct Session {
    out: mpsc::Sender<Outgoing>,
    /// The character this connection plays; `None` for a watcher.
    player: Option<EntityId>,
    /// The character whose view it follows instead of its own, if any.
    watching: Option<EntityId>,
    /// Shown in chat and in the watcher list.
    name: String,
    /// The last view this connection was sent: diffs are computed against it.
    baseline: Option<View>,
    /// Sequence number of the last view message sent.
    seq: u64,
    /// Frames were dropped because the outbox was full; send a snapshot when there is room.
    behind: bool,
    /// The welcome of a new character could not be queued: send it instead of the next
    /// snapshot, so the client learns its new id.
    needs_welcome: bool,
    chat: RateLimiter,
}

impl Session {
    /// The character whose view this connection is sent.
    fn subject(&self) -> Option<EntityId> {
        self.watching.or(self.player)
    }
}

pub struct DungeonTask {
    name: String,
    dungeon: World,
    config: Arc<ServerConfig>,
    stats: Arc<DungeonStats>,
    sessions: HashMap<ConnId, Session>,
    /// SHA-256 of each character's resume token: all a saved dungeon knows of them.
    tokens: HashMap<EntityId, [u8; 32]>,
    /// The tokens themselves, for the characters whose token this process issued or was shown
    /// (a welcome repeats it).
    plain_tokens: HashMap<EntityId, String>,
    /// Since when nobody has been connected, for unloading.
    empty_since: Option<Instant>,
    /// When each floor with pending choices resolves anyway.
    deadlines: BTreeMap<u8, Instant>,
    /// When each disconnected character is lifted out of its floor.
    lifts: HashMap<EntityId, Instant>,
}

impl DungeonTask {
    pub fn new(
        name: String,
        mut dungeon: World,
        tokens: HashMap<EntityId, [u8; 32]>,
        config: Arc<ServerConfig>,
        stats: Arc<DungeonStats>,
    ) -> Self {
        // A loaded world may hold characters whose connections died with the last server:
        // they wait out the grace period like anyone who lost the connection.
        let now = Instant::now();
        let away: Vec<EntityId> = dungeon.players().map(|p| p.id).collect();
        let mut lifts = HashMap::new();
        for id in away {
            let _ = dungeon.step(Input::Connected {
                id,
                connected: false,
            });
            if dungeon.player(id).is_some_and(|p| p.alive && p.present) {
                lifts.insert(id, now + config.grace);
            }
        }
        let deepest = dungeon.players().map(|p| p.deepest).max().unwrap_or(1);
        stats.deepest.fetch_max(deepest, Ordering::Relaxed);
        DungeonTask {
            name,
            dungeon,
            config,
            stats,
            sessions: HashMap::new(),
            tokens,
            plain_tokens: HashMap::new(),
            empty_since: Some(now),
            deadlines: BTreeMap::new(),
            lifts,
        }
    }

    /// Runs until every sender of `rx` is gone, or nobody has been connected for the unload
    /// time (with a data directory); then saves the world.
    pub async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        let unloads = self.dungeon.journal().is_some();
        loop {
            let unload_at = self
                .empty_since
                .filter(|_| unloads)
                .map(|t| t + self.config.unload_after);
            let next = self
                .deadlines
                .values()
                .chain(self.lifts.values())
                .chain(unload_at.iter())
                .min()
                .copied();
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd),
                    None => break,
                },
                () = sleep_until(next.unwrap_or_else(Instant::now)), if next.is_some() => {
                    if unload_at.is_some_and(|t| t <= Instant::now()) && self.sessions.is_empty() {
                        info!(dungeon = %self.name, "nobody here for a while: saving and unloading");
                        // New joiners now load the dungeon afresh, from what is saved below.
                        rx.close();
                        self.save();
                        while let Ok(cmd) = rx.try_recv() {
                            self.refuse_late(cmd);
                        }
                        return;
                    }
                    self.on_timers();
                }
            }
            // Whatever happened may have taken someone's subject out of the party.
            self.retarget_watchers();
            self.empty_since = match (self.sessions.is_empty(), self.empty_since) {
                (true, None) => Some(Instant::now()),
                (true, since) => since,
                (false, _) => None,
            };
        }
        self.save();
        info!(dungeon = %self.name, "dungeon task stopped");
    }

    /// Saves the whole world and waits until it is on disk.
    fn save(&mut self) {
        if let Some((ack, hash)) = self.dungeon.snapshot() {
            match ack.wait() {
                Ok(()) => info!(dungeon = %self.name, %hash, "dungeon saved"),
                Err(e) => error!(dungeon = %self.name, error = %e, "cannot save the dungeon"),
            }
        }
    }

    /// A command that arrived while the dungeon was being unloaded.
    fn refuse_late(&self, cmd: Command) {
        let refusal = (
            ErrorCode::Internal,
            "The dungeon was just put away; join again to load it.".to_string(),
        );
        match cmd {
            Command::Join { reply, .. } | Command::JoinWatching { reply, .. } => {
                let _ = reply.send(Err(refusal));
            }
            _ => {}
        }
    }

    /// Resolves the floors whose timers ran out and lifts out the characters whose grace ended.
    fn on_timers(&mut self) {
        let now = Instant::now();
        let due: Vec<u8> = self
            .deadlines
            .iter()
            .filter(|(_, t)| **t <= now)
            .map(|(d, _)| *d)
            .collect();
        for depth in due {
            debug!(dungeon = %self.name, depth, "turn timer ran out");
            self.resolve(depth);
        }
        let gone: Vec<EntityId> = self
            .lifts
            .iter()
            .filter(|(_, t)| **t <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in gone {
            self.lifts.remove(&id);
            self.lift(id);
        }
    }

    fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Join {
                name,
                token,
                conn,
                out,
                reply,
            } => {
                let result = self.join(name, token, conn, out);
                let _ = reply.send(result);
            }
            Command::JoinWatching {
                name,
                target,
                conn,
                out,
                reply,
            } => {
                let result = self.join_watching(name, &target, conn, out);
                let _ = reply.send(result);
            }
            Command::Act { conn, action } => {
                let Some(player) = self.player_or_refuse(conn) else {
                    return;
                };
                match self.dungeon.step(Input::Choose { id: player, action }) {
                    Ok(_) => self.after_choice(player),
                    Err(e) => self.refuse(conn, &e),
                }
            }
            Command::LevelUp { conn, stat } => {
                let Some(player) = self.player_or_refuse(conn) else {
                    return;
                };
                match self.dungeon.step(Input::SpendPoint { id: player, stat }) {
                    Ok(done) => {
                        // Others on the floor may see the new max HP.
                        let depth = self.depth_of(player);
                        self.send_views(depth, depth, &done.events, false);
                    }
                    Err(e) => self.refuse(conn, &e),
                }
            }
            Command::NewCharacter { conn } => {
                if let Some(player) = self.player_or_refuse(conn) {
                    self.new_character(conn, player);
                }
            }
            Command::Resync { conn } => self.send_snapshot(conn),
            Command::Chat { conn, text } => self.chat(conn, &text),
            Command::Follow { conn, name } => self.follow(conn, name.as_deref()),
            Command::Disconnect { conn } => self.disconnect(conn),
        }
    }

    /// Keeps `token` as the resume token of character `id`, and in the database (waiting for
    /// the write: the player is about to be told the token).
    fn remember_token(&mut self, id: EntityId, token: String) {
        let hash = token_hash(&token);
        self.tokens.insert(id, hash);
        self.plain_tokens.insert(id, token);
        if let (Some(j), Some(p)) = (self.dungeon.journal(), self.dungeon.player(id)) {
            let ack = j.store.put_character(j.dungeon, id, p.name.clone(), hash);
            if let Err(e) = ack.wait() {
                error!(dungeon = %self.name, player = id, error = %e, "cannot store a character");
            }
        }
    }

    /// Forgets a character's row in the database (its player goes on as a new one).
    fn forget_character(&self, id: EntityId) {
        if let Some(j) = self.dungeon.journal() {
            drop(j.store.delete_character(j.dungeon, id));
        }
    }

    /// Adds a high-score entry for every game that `events` ended: a death, or the victory.
    fn record_scores(&self, events: &[Event]) {
        let Some(j) = self.dungeon.journal() else {
            return;
        };
        let ended: Vec<EntityId> = events
            .iter()
            .flat_map(|e| match e {
                Event::Died { victim, .. } if victim.player => vec![victim.id],
                Event::Victory { winners, .. } => winners.clone(),
                _ => Vec::new(),
            })
            .collect();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        for id in ended {
            let Some(p) = self.dungeon.player(id) else {
                continue;
            };
            let outcome = match (&p.death, p.victory) {
                (_, true) => "won".to_string(),
                (Some(d), _) => d.cause.clone(),
                (None, false) => continue,
            };
            info!(dungeon = %self.name, player = id, name = %p.name, %outcome, "game over");
            // Waited for like the journal: the player is about to see the death or victory,
            // and a replay of the journal would not bring a lost entry back.
            let ack = j.store.add_score(ScoreRow {
                name: p.name.clone(),
                score: u64::from(score(p, self.dungeon.content())),
                level: p.level,
                deepest: u32::from(p.deepest),
                kills: p.kills,
                turns: p.turns,
                outcome,
                dungeon: self.name.clone(),
                ended_at: now,
            });
            if let Err(e) = ack.wait() {
                error!(dungeon = %self.name, player = id, error = %e, "cannot record a score");
            }
        }
    }

    /// The character connection `conn` plays, if any.
    /// Whether a connection drives `id` now (journaled when it changes).
    fn set_connected(&mut self, id: EntityId, connected: bool) {
        let _ = self.dungeon.step(Input::Connected { id, connected });
    }

    /// Tells `conn` why the engine refused what it asked.
    fn refuse(&self, conn: ConnId, why: &EngineRefusal) {
        let code = match why {
            EngineRefusal::Action(e) => error_code(e),
            EngineRefusal::Join(_) | EngineRefusal::Unchanged => ErrorCode::CannotAct,
        };
        self.send_error(conn, code, why.to_string());
    }

    fn player_of(&self, conn: ConnId) -> Option<EntityId> {
        self.sessions.get(&conn)?.player
    }

    /// The character connection `conn` plays; a watcher is told it has none.
    fn player_or_refuse(&self, conn: ConnId) -> Option<EntityId> {
        let player = self.player_of(conn);
        if player.is_none() {
            self.send_error(
                conn,
                ErrorCode::CannotAct,
                "Watchers have no character to act with.".into(),
            );
        }
        player
    }

    /// The connection playing character `id`, if any.
    fn conn_of(&self, id: EntityId) -> Option<ConnId> {
        self.sessions
            .iter()
            .find(|(_, s)| s.player == Some(id))
            .map(|(c, _)| *c)
    }

    fn depth_of(&self, id: EntityId) -> u8 {
        self.dungeon.player(id).map_or(1, |p| p.depth)
    }

    /// The character called `name` (ignoring case), the living first.
    /// The character called `name` among those in the party (the living, and the dead whose
    /// players are still here): only they can be watched.
    fn find_player(&self, name: &str) -> Option<EntityId> {
        let name = name.to_lowercase();
        let mut found: Vec<_> = self
            .dungeon
            .players()
            .filter(|p| p.in_party() && p.name.to_lowercase() == name)
            .collect();
        found.sort_by_key(|p| (!p.alive, p.id));
        found.first().map(|p| p.id)
    }

    fn refresh_online(&self) {
        let online = self
            .sessions
            .values()
            .filter(|s| s.player.is_some())
            .count();
        self.stats.online.store(online, Ordering::Relaxed);
    }

    /// The welcome for a session on character `player`: who it is, how to come back, the rules
    /// the client needs, and the first view.
    fn welcome(
        &self,
        player: EntityId,
        token: Option<String>,
        watching: Option<String>,
        view: View,
    ) -> ServerMsg {
        let u = &self.dungeon.content().level_up;
        ServerMsg::Welcome {
            protocol_version: delve_protocol::PROTOCOL_VERSION,
            player_id: player,
            token,
            dungeon: self.name.clone(),
            turn_timeout_ms: self.config.turn_timeout.as_millis() as u64,
            level_up: [
                (Stat::MaxHp, u.max_hp),
                (Stat::Attack, u.attack),
                (Stat::Defence, u.defence),
                (Stat::Sight, u.sight),
                (Stat::Save, u.save),
            ]
            .map(|(stat, amount)| StatGain { stat, amount })
            .to_vec(),
            watching,
            seq: 0,
            view,
        }
    }

    fn new_session(
        &self,
        out: mpsc::Sender<Outgoing>,
        player: Option<EntityId>,
        watching: Option<EntityId>,
        name: String,
        view: View,
    ) -> Session {
        Session {
            out,
            player,
            watching,
            name,
            baseline: Some(view),
            seq: 0,
            behind: false,
            needs_welcome: false,
            chat: RateLimiter::new(self.config.chat_per_sec, self.config.chat_burst),
        }
    }

    fn join(
        &mut self,
        name: String,
        token: Option<String>,
        conn: ConnId,
        out: mpsc::Sender<Outgoing>,
    ) -> Result<EntityId, Refusal> {
        let online = self
            .sessions
            .values()
            .filter(|s| s.player.is_some())
            .count();
        let full = || (ErrorCode::DungeonFull, "The dungeon is full.".to_string());
        let (player, token, events, resumed, took_over) = match token {
            Some(t) => {
                // Compare against every stored token without stopping early.
                let found = self.tokens.iter().fold(None, |hit, (id, stored)| {
                    if token_matches(&t, stored) {
                        Some(*id)
                    } else {
                        hit
                    }
                });
                let Some(player) = found else {
                    return Err((
                        ErrorCode::BadToken,
                        "That resume token matches no character in this dungeon.".into(),
                    ));
                };
                let old = self.conn_of(player);
                if old.is_none() && online >= self.config.max_players_per_dungeon {
                    return Err(full());
                }
                if let Some(old) = old.and_then(|c| self.sessions.remove(&c)) {
                    info!(dungeon = %self.name, player, "newer connection replaces the old one");
                    let _ = old.out.try_send(Outgoing::Frame(encode(&ServerMsg::Error {
                        code: ErrorCode::Replaced,
                        message: "This character was taken over by a newer connection.".into(),
                    })));
                    let _ = old.out.try_send(Outgoing::Close {
                        code: 4000,
                        reason: "replaced by a newer connection".into(),
                    });
                }
                // Back in time, or lifted out and now returning.
                self.lifts.remove(&player);
                let events = self
                    .dungeon
                    .step(Input::Return { id: player })
                    .map(|done| done.events)
                    .unwrap_or_default();
                self.plain_tokens.insert(player, t.clone());
                (player, t, events, true, old.is_some())
            }
            None => {
                if online >= self.config.max_players_per_dungeon {
                    return Err((
                        ErrorCode::DungeonFull,
                        format!(
                            "Dungeon {} already has {} players online.",
                            self.name, self.config.max_players_per_dungeon
                        ),
                    ));
                }
                // Nor may a new player pass for a watcher (in chat, in the watcher list).
                let lower = name.to_lowercase();
                if self
                    .sessions
                    .values()
                    .any(|s| s.player.is_none() && s.name.to_lowercase() == lower)
                {
                    return Err((
                        ErrorCode::NameTaken,
                        format!("Someone in dungeon {} is already called {name}.", self.name),
                    ));
                }
                while self.dungeon.character_count() >= self.config.max_characters_per_dungeon
                    && self.dungeon.step(Input::EvictDead).is_ok()
                {}
                if self.dungeon.character_count() >= self.config.max_characters_per_dungeon {
                    return Err((
                        ErrorCode::DungeonFull,
                        format!("Dungeon {} has no room for another character.", self.name),
                    ));
                }
                let done = self
                    .dungeon
                    .step(Input::Join { name: name.clone() })
                    .map_err(|e| match &e {
                        EngineRefusal::Join(JoinError::NameTaken(_)) => {
                            (ErrorCode::NameTaken, e.to_string())
                        }
                        EngineRefusal::Join(JoinError::NoRoom) => {
                            (ErrorCode::DungeonFull, e.to_string())
                        }
                        _ => (ErrorCode::Internal, e.to_string()),
                    })?;
                let Some(player) = done.character else {
                    return Err((ErrorCode::Internal, "No character was made.".into()));
                };
                let events = done.events;
                let token = new_token();
                self.remember_token(player, token.clone());
                (player, token, events, false, false)
            }
        };
        // Connected before its first view is made, so its own party entry says so.
        self.set_connected(player, true);
        let Some(view) = self.view_for(player) else {
            self.set_connected(player, false);
            return Err((ErrorCode::Internal, "The character has no view.".into()));
        };
        if out
            .try_send(Outgoing::Frame(encode(&self.welcome(
                player,
                Some(token),
                None,
                view.clone(),
            ))))
            .is_err()
        {
            // The character stays, disconnected, and can be resumed with its token.
            self.set_connected(player, false);
            return Err((
                ErrorCode::Internal,
                "The connection closed while joining.".into(),
            ));
        }
        let name = self
            .dungeon
            .player(player)
            .map(|p| p.name.clone())
            .unwrap_or_default();
        self.sessions.insert(
            conn,
            self.new_session(out, Some(player), None, name.clone(), view),
        );
        self.refresh_online();
        info!(dungeon = %self.name, player, %name, resumed, "player joined");

        // The joiner gets its arrival messages; everyone else hears who came, and may now see
        // the newcomer (and its party entry).
        let depth = self.depth_of(player);
        let mine = events_for(&self.dungeon, player, depth, &events);
        self.push_view(conn, mine, false);
        if !took_over {
            let line = if resumed {
                format!("{name} is back.")
            } else {
                format!("{name} enters the dungeon.")
            };
            let others: Vec<ProtoEvent> = Vec::new();
            self.announce(Some(conn), &line, depth, &events, others);
        }
        self.send_turn_status(depth);
        Ok(player)
    }

    fn join_watching(
        &mut self,
        name: String,
        target: &str,
        conn: ConnId,
        out: mpsc::Sender<Outgoing>,
    ) -> Result<EntityId, Refusal> {
        let Some(subject) = self.find_player(target) else {
            return Err((
                ErrorCode::NoSuchPlayer,
                format!("Nobody called {target} is in dungeon {}.", self.name),
            ));
        };
        // A watcher may not pass for a player (in chat, in the watcher list).
        let lower = name.to_lowercase();
        if self.find_player(&name).is_some()
            || self
                .sessions
                .values()
                .any(|s| s.name.to_lowercase() == lower)
        {
            return Err((
                ErrorCode::NameTaken,
                format!("Someone in dungeon {} is already called {name}.", self.name),
            ));
        }
        let watched = self
            .dungeon
            .player(subject)
            .map(|p| p.name.clone())
            .unwrap_or_default();
        let Some(first) = self.view_for(subject) else {
            return Err((ErrorCode::Internal, "That character has no view.".into()));
        };
        // In the session list before its first view is made, so that view lists it watching.
        let session = self.new_session(out.clone(), None, Some(subject), name.clone(), first);
        self.sessions.insert(conn, session);
        let Some(view) = self.view_for(subject) else {
            self.sessions.remove(&conn);
            return Err((ErrorCode::Internal, "That character has no view.".into()));
        };
        let welcome = self.welcome(subject, None, Some(watched.clone()), view.clone());
        if out.try_send(Outgoing::Frame(encode(&welcome))).is_err() {
            self.sessions.remove(&conn);
            return Err((
                ErrorCode::Internal,
                "The connection closed while joining.".into(),
            ));
        }
        if let Some(s) = self.sessions.get_mut(&conn) {
            s.baseline = Some(view);
        }
        self.send_turn_status_to(conn);
        info!(dungeon = %self.name, watcher = %name, %watched, "watcher joined");
        self.announce(
            Some(conn),
            &format!("{name} is watching {watched}."),
            0,
            &[],
            Vec::new(),
        );
        Ok(subject)
    }

    fn disconnect(&mut self, conn: ConnId) {
        // A connection replaced by a newer one is already gone: nothing to do.
        let Some(s) = self.sessions.remove(&conn) else {
            return;
        };
        self.refresh_online();
        let Some(player) = s.player else {
            info!(dungeon = %self.name, watcher = %s.name, "watcher left");
            self.announce(
                None,
                &format!("{} stopped watching.", s.name),
                0,
                &[],
                Vec::new(),
            );
            return;
        };
        self.set_connected(player, false);
        let alive = self
            .dungeon
            .player(player)
            .is_some_and(|p| p.alive && !p.victory);
        info!(dungeon = %self.name, player, alive, "player disconnected");
        let line = if alive {
            // It waits, never holding up a turn, until the grace period ends.
            self.lifts
                .insert(player, Instant::now() + self.config.grace);
            format!("{} lost the connection; their character waits.", s.name)
        } else {
            format!("{} has left.", s.name)
        };
        self.announce(None, &line, 0, &[], Vec::new());
        // The floor may have been waiting only for this player.
        self.check_floor(self.depth_of(player));
    }

    /// The grace period of a disconnected character ended: it leaves its floor until its player
    /// comes back.
    fn lift(&mut self, id: EntityId) {
        if self.conn_of(id).is_some() {
            return;
        }
        let Ok(done) = self.dungeon.step(Input::Lift { id }) else {
            return;
        };
        let events = done.events;
        let depth = self.depth_of(id);
        info!(dungeon = %self.name, player = id, "character lifted out after the grace period");
        self.send_views(depth, depth, &events, false);
        self.check_floor(depth);
    }

    /// A dead character's player starts a new one: same connection, same name and token, a new
    /// id, and a welcome with its first view.
    fn new_character(&mut self, conn: ConnId, old: EntityId) {
        let (id, events) = match self.dungeon.step(Input::NewCharacter { old }) {
            Ok(Outcome {
                character: Some(id),
                events,
                ..
            }) => (id, events),
            Ok(_) => return,
            Err(e) => {
                let code = match e {
                    EngineRefusal::Join(JoinError::NameTaken(_)) => ErrorCode::NameTaken,
                    EngineRefusal::Join(JoinError::NoRoom) => ErrorCode::DungeonFull,
                    _ => ErrorCode::CannotAct,
                };
                self.send_error(conn, code, e.to_string());
                return;
            }
        };
        // The token belongs to the player, not the character: it now resumes the new one.
        let token = self.plain_tokens.remove(&old).unwrap_or_else(new_token);
        self.tokens.remove(&old);
        self.forget_character(old);
        self.remember_token(id, token.clone());
        // Whoever watched the old character follows the new one.
        for s in self.sessions.values_mut() {
            if s.watching == Some(old) {
                s.watching = Some(id);
                s.behind = true;
            }
        }
        let Some(view) = self.view_for(id) else {
            return;
        };
        let welcome = self.welcome(id, Some(token), None, view.clone());
        let Some(s) = self.sessions.get_mut(&conn) else {
            return;
        };
        let delivered = s.out.try_send(Outgoing::Frame(encode(&welcome))).is_ok();
        s.player = Some(id);
        s.watching = None;
        s.baseline = Some(view);
        s.seq = 0;
        s.behind = !delivered;
        s.needs_welcome = !delivered;
        let name = s.name.clone();
        info!(dungeon = %self.name, player = id, %name, "new character after a death");
        let mine = events_for(&self.dungeon, id, 1, &events);
        self.push_view(conn, mine, false);
        self.announce(
            Some(conn),
            &format!("{name} enters the dungeon again."),
            1,
            &events,
            Vec::new(),
        );
        self.send_turn_status(1);
    }

    /// Follows the view of the player called `name`, or one's own again. For the dead and for
    /// watchers only: the living play.
    fn follow(&mut self, conn: ConnId, name: Option<&str>) {
        let Some(s) = self.sessions.get(&conn) else {
            return;
        };
        let own = s.player;
        if own.is_some_and(|id| {
            self.dungeon
                .player(id)
                .is_some_and(|p| p.alive && !p.victory)
        }) {
            self.send_error(
                conn,
                ErrorCode::CannotAct,
                "Only the dead, the winners and watchers can follow another player.".into(),
            );
            return;
        }
        let target = match name {
            Some(n) => match self.find_player(n) {
                Some(id) => Some(id),
                None => {
                    self.send_error(
                        conn,
                        ErrorCode::NoSuchPlayer,
                        format!("Nobody called {n} is in dungeon {}.", self.name),
                    );
                    return;
                }
            },
            None if own.is_none() => {
                self.send_error(
                    conn,
                    ErrorCode::CannotAct,
                    "A watcher has no view of its own: name a player.".into(),
                );
                return;
            }
            None => None,
        };
        let target = target.filter(|t| Some(*t) != own);
        let shown = target
            .and_then(|t| self.dungeon.player(t))
            .map(|p| p.name.clone());
        if let Some(s) = self.sessions.get_mut(&conn) {
            s.watching = target;
            let _ = s.out.try_send(Outgoing::Frame(encode(&ServerMsg::Watching {
                name: shown,
            })));
        }
        self.send_snapshot(conn);
        self.send_turn_status_to(conn);
        // The watcher list changed.
        self.announce(None, "", 0, &[], Vec::new());
    }

    /// Sessions whose subject left the party (its player left after it died, or it died while
    /// its player was away) follow someone else: a dead player its own ghost again, a watcher
    /// the first living player. A watcher with nobody left to watch is told so and closed.
    fn retarget_watchers(&mut self) {
        let in_party = |d: &Dungeon, id: EntityId| d.player(id).is_some_and(|p| p.in_party());
        let stale: Vec<ConnId> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.watching.is_some_and(|t| !in_party(&self.dungeon, t)))
            .map(|(c, _)| *c)
            .collect();
        if stale.is_empty() {
            return;
        }
        let mut people: Vec<_> = self
            .dungeon
            .players()
            .filter(|p| p.in_party())
            // Those still playing first.
            .map(|p| (!p.alive || p.victory, p.id, p.name.clone()))
            .collect();
        people.sort();
        let next = people.first().map(|(_, id, name)| (*id, name.clone()));
        for conn in stale {
            let Some(s) = self.sessions.get_mut(&conn) else {
                continue;
            };
            let gone = s
                .watching
                .and_then(|t| self.dungeon.player(t))
                .map(|p| p.name.clone())
                .unwrap_or_default();
            let (target, shown) = match (s.player, &next) {
                (Some(_), _) => (None, None),
                (None, Some((id, name))) => (Some(*id), Some(name.clone())),
                (None, None) => {
                    info!(dungeon = %self.name, watcher = %s.name, "nobody left to watch");
                    let _ = s.out.try_send(Outgoing::Frame(encode(&ServerMsg::Error {
                        code: ErrorCode::NoSuchPlayer,
                        message: format!("{gone} has left, and nobody is left to watch."),
                    })));
                    let _ = s.out.try_send(Outgoing::Close {
                        code: 1000,
                        reason: "nobody left to watch".into(),
                    });
                    self.sessions.remove(&conn);
                    continue;
                }
            };
            s.watching = target;
            let _ = s.out.try_send(Outgoing::Frame(encode(&ServerMsg::Watching {
                name: shown,
            })));
            self.send_snapshot(conn);
            self.send_turn_status_to(conn);
        }
        // The watcher list changed.
        self.announce(None, "", 0, &[], Vec::new());
    }

    /// Relays a chat line to everyone in the dungeon, the sender included.
    fn chat(&mut self, conn: ConnId, text: &str) {
        let Some(s) = self.sessions.get_mut(&conn) else {
            return;
        };
        // Control characters would let a line rewrite the others' screens.
        let clean: String = text.chars().filter(|c| !c.is_control()).collect();
        let clean = clean.trim();
        let refusal = if clean.is_empty() {
            Some((
                ErrorCode::Rejected,
                "An empty chat line was not sent.".to_string(),
            ))
        } else if clean.chars().count() > MAX_CHAT_CHARS {
            Some((
                ErrorCode::Rejected,
                format!("A chat line can be at most {MAX_CHAT_CHARS} characters."),
            ))
        } else if !s.chat.allow() {
            // Every refused line is answered, so the sender knows which lines never went out;
            // the message rate limit above already bounds how many answers a flood can draw.
            Some((
                ErrorCode::RateLimited,
                "You are chatting too fast; that line was not sent.".to_string(),
            ))
        } else {
            None
        };
        if let Some((code, message)) = refusal {
            self.send_error(conn, code, message);
            return;
        }
        let line = ProtoEvent::Chat {
            from: s.name.clone(),
            text: clean.to_string(),
        };
        debug!(dungeon = %self.name, from = %s.name, "chat");
        let conns: Vec<ConnId> = self.sessions.keys().copied().collect();
        for c in conns {
            self.push_view(c, vec![line.clone()], false);
        }
    }

    /// A player chose: resolve if the floor is ready, otherwise start its timer and tell the floor
    /// whom it is waiting for.
    fn after_choice(&mut self, player: EntityId) {
        let depth = self.depth_of(player);
        if !self.config.turn_timeout.is_zero() {
            let timeout = self.config.turn_timeout;
            self.deadlines
                .entry(depth)
                .or_insert_with(|| Instant::now() + timeout);
        }
        self.check_floor(depth);
    }

    fn check_floor(&mut self, depth: u8) {
        if self.dungeon.is_ready(depth) {
            self.resolve(depth);
        } else {
            if self.dungeon.floor(depth).is_some_and(|f| !f.has_choices()) {
                self.deadlines.remove(&depth);
            }
            self.send_turn_status(depth);
        }
    }

    fn resolve(&mut self, depth: u8) {
        self.deadlines.remove(&depth);
        let report = self.dungeon.resolve_turn(depth);
        self.record_scores(&report.events);
        debug!(dungeon = %self.name, depth, turn = report.turn, events = report.events.len(), "turn resolved");
        // Everyone following a character on the resolved floor gets its turn; those on a floor
        // someone arrived on by the stairs get the news (and, if that floor's turn is being
        // chosen, a new status).
        for &floor in &report.floors {
            self.send_views(floor, depth, &report.events, floor == depth);
            if floor != depth {
                self.send_turn_status(floor);
            }
        }
        // Everyone else only if their party panel changed, or the turn had news for them
        // (the Mouse King's fall reaches every floor).
        let elsewhere: Vec<(ConnId, Option<EntityId>)> = self
            .sessions
            .iter()
            .map(|(c, s)| (*c, s.subject()))
            .filter(|(_, subject)| {
                subject.is_none_or(|id| !report.floors.contains(&self.depth_of(id)))
            })
            .collect();
        for (c, subject) in elsewhere {
            let news = subject.map_or_else(Vec::new, |id| {
                events_for(&self.dungeon, id, depth, &report.events)
            });
            self.push_view(c, news, false);
        }
        let deepest = self.dungeon.players().map(|p| p.deepest).max().unwrap_or(1);
        let before = self.stats.deepest.fetch_max(deepest, Ordering::Relaxed);
        if deepest > before
            && let Some(j) = self.dungeon.journal()
        {
            // For the lobby's list of saved dungeons; nobody waits for it.
            drop(j.store.set_deepest(j.dungeon, u32::from(deepest)));
        }
    }

    /// Sends every connection following a character on floor `floor` its update for `events`,
    /// which happened on floor `depth`. `force` for a resolved turn: one update each, even if
    /// nothing changed.
    fn send_views(&mut self, floor: u8, depth: u8, events: &[Event], force: bool) {
        let conns: Vec<(ConnId, EntityId)> = self
            .sessions
            .iter()
            .filter_map(|(c, s)| s.subject().map(|id| (*c, id)))
            .filter(|(_, id)| self.depth_of(*id) == floor)
            .collect();
        for (conn, subject) in conns {
            let events = events_for(&self.dungeon, subject, depth, events);
            self.push_view(conn, events, force);
        }
    }

    /// Tells every connection but `except` a line of news about another player, with whatever
    /// of `events` (on floor `depth`) each can see, and any change to its view or party panel.
    /// An empty line only refreshes views.
    fn announce(
        &mut self,
        except: Option<ConnId>,
        text: &str,
        depth: u8,
        events: &[Event],
        extra: Vec<ProtoEvent>,
    ) {
        let conns: Vec<(ConnId, Option<EntityId>)> = self
            .sessions
            .iter()
            .filter(|(c, _)| Some(**c) != except)
            .map(|(c, s)| (*c, s.subject()))
            .collect();
        for (conn, subject) in conns {
            let mut lines =
                subject.map_or_else(Vec::new, |id| events_for(&self.dungeon, id, depth, events));
            lines.extend(extra.iter().cloned());
            if !text.is_empty() {
                lines.push(ProtoEvent::message(MessageKind::Normal, text));
            }
            self.push_view(conn, lines, false);
        }
    }

    /// The view of `id`, with the party panel and the watchers added.
    fn view_for(&self, id: EntityId) -> Option<View> {
        let mut view = view_of(&self.dungeon, id)?;
        // Everyone playing: the living, and the dead whose players are still here.
        view.party = self
            .dungeon
            .players()
            .filter(|p| p.in_party())
            .map(|p| PartyMember {
                id: p.id,
                name: p.name.clone(),
                level: p.level,
                hp: p.hp,
                max_hp: p.stats(self.dungeon.content()).max_hp,
                depth: p.depth,
                alive: p.alive,
                connected: p.connected,
            })
            .collect();
        // Watchers, and dead players following a friend.
        let mut watchers: Vec<Watcher> = self
            .sessions
            .values()
            .filter_map(|s| {
                let watched = self.dungeon.player(s.watching?)?;
                Some(Watcher {
                    name: s.name.clone(),
                    watching: watched.name.clone(),
                })
            })
            .collect();
        watchers.sort_by(|a, b| (&a.watching, &a.name).cmp(&(&b.watching, &b.name)));
        view.watchers = watchers;
        Some(view)
    }

    /// Sends connection `conn` an update: its view's diff against that connection's baseline,
    /// plus `events`. A resolved turn always sends one (`force`: the turn number moves); news
    /// between turns only when there is something in it. A connection that fell behind gets a
    /// snapshot (or the welcome it still owes).
    fn push_view(&mut self, conn: ConnId, events: Vec<ProtoEvent>, force: bool) {
        let Some(s) = self.sessions.get(&conn) else {
            return;
        };
        let Some(subject) = s.subject() else { return };
        let Some(view) = self.view_for(subject) else {
            return;
        };
        let welcome = match s.player {
            Some(id) if s.needs_welcome => self
                .plain_tokens
                .get(&id)
                .map(|t| self.welcome(id, Some(t.clone()), None, view.clone())),
            _ => None,
        };
        let name = self.name.clone();
        let Some(s) = self.sessions.get_mut(&conn) else {
            return;
        };
        let diff = match (&s.baseline, s.behind) {
            (Some(base), false) => base.diff(&view),
            _ => None,
        };
        if !force && events.is_empty() && diff.as_ref().is_some_and(|d| d.is_empty()) {
            return;
        }
        // A view that cannot be a diff (another floor, another subject, or the connection fell
        // behind) goes whole; the events then follow in an update of their own, so no log line
        // is lost. Each frame is kept with its sequence number.
        let mut frames: Vec<(u64, ServerMsg)> = Vec::new();
        match diff {
            Some(diff) => {
                let seq = s.seq + 1;
                frames.push((
                    seq,
                    ServerMsg::Update {
                        seq,
                        turn: view.turn,
                        diff,
                        events,
                    },
                ));
            }
            None => {
                let seq = match welcome {
                    // A welcome restarts the numbering at 0.
                    Some(w) => {
                        frames.push((0, w));
                        0
                    }
                    None => {
                        let seq = s.seq + 1;
                        frames.push((
                            seq,
                            ServerMsg::Snapshot {
                                seq,
                                view: view.clone(),
                            },
                        ));
                        seq
                    }
                };
                if !events.is_empty() {
                    let seq = seq + 1;
                    let diff = Default::default();
                    frames.push((
                        seq,
                        ServerMsg::Update {
                            seq,
                            turn: view.turn,
                            diff,
                            events,
                        },
                    ));
                }
            }
        }
        let mut last_sent = None;
        for (seq, f) in &frames {
            match s.out.try_send(Outgoing::Frame(encode(f))) {
                Ok(()) => last_sent = Some(*seq),
                Err(mpsc::error::TrySendError::Full(_)) => {
                    if !s.behind {
                        debug!(dungeon = %name, conn, "connection fell behind; will resend a snapshot");
                    }
                    s.behind = true;
                    break;
                }
                // The connection is closing; its Disconnect is on the way.
                Err(mpsc::error::TrySendError::Closed(_)) => break,
            }
        }
        if let Some(seq) = last_sent {
            // The first frame carries the new view; a lost second frame only loses log lines.
            s.seq = seq;
            s.baseline = Some(view);
            s.needs_welcome = false;
            if frames.last().is_some_and(|(last, _)| *last == seq) {
                s.behind = false;
            }
        }
    }

    /// A whole view for connection `conn` (a resync), by the same path as a connection that
    /// fell behind: a snapshot, or the welcome it still owes.
    fn send_snapshot(&mut self, conn: ConnId) {
        if let Some(s) = self.sessions.get_mut(&conn) {
            s.behind = true;
        }
        self.push_view(conn, Vec::new(), true);
    }

    /// Tells every connection following a living character on floor `depth` whom the turn is
    /// waiting for.
    fn send_turn_status(&mut self, depth: u8) {
        let Some(frame) = self.turn_status_frame(depth) else {
            return;
        };
        for s in self.sessions.values() {
            if s.subject().is_some_and(|id| self.depth_of(id) == depth) {
                // Status is advisory: if the outbox is full, the next update supersedes it.
                let _ = s.out.try_send(Outgoing::Frame(frame.clone()));
            }
        }
    }

    /// Tells one connection whom its subject's floor is waiting for, if anyone chose yet (for a
    /// connection that just started following that floor).
    fn send_turn_status_to(&self, conn: ConnId) {
        let Some(s) = self.sessions.get(&conn) else {
            return;
        };
        let Some(frame) = s
            .subject()
            .and_then(|id| self.turn_status_frame(self.depth_of(id)))
        else {
            return;
        };
        let _ = s.out.try_send(Outgoing::Frame(frame));
    }

    /// The `turn_status` of floor `depth`: `None` while nobody there has chosen.
    fn turn_status_frame(&self, depth: u8) -> Option<String> {
        let floor = self.dungeon.floor(depth)?;
        if !floor.has_choices() {
            return None;
        }
        let waiting_for: Vec<String> = self
            .dungeon
            .waiting_for(depth)
            .into_iter()
            .filter_map(|id| self.dungeon.player(id).map(|p| p.name.clone()))
            .collect();
        let timeout_ms = self
            .deadlines
            .get(&depth)
            .map(|t| t.saturating_duration_since(Instant::now()).as_millis() as u64);
        Some(encode(&ServerMsg::TurnStatus {
            turn: floor.turn + 1,
            waiting_for,
            timeout_ms,
        }))
    }

    fn send_error(&self, conn: ConnId, code: ErrorCode, message: String) {
        if let Some(s) = self.sessions.get(&conn) {
            let _ = s
                .out
                .try_send(Outgoing::Frame(encode(&ServerMsg::Error { code, message })));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use delve_protocol::decode_server;
    use std::time::Duration;

    /// No monsters: these tests are about connections, and idle players must not be killed.
    fn config(turn_timeout_ms: u64) -> Arc<ServerConfig> {
        Arc::new(ServerConfig {
            turn_timeout: Duration::from_millis(turn_timeout_ms),
            content: Arc::new(crate::game::Content::builtin_without_monsters()),
            ..ServerConfig::default()
        })
    }

    async fn join(
        tx: &mpsc::Sender<Command>,
        name: &str,
        conn: ConnId,
        outbox: usize,
    ) -> (EntityId, mpsc::Receiver<Outgoing>) {
        let (out, rx) = mpsc::channel(outbox);
        let (reply, answer) = oneshot::channel();
        tx.send(Command::Join {
            name: name.into(),
            token: None,
            conn,
            out,
            reply,
        })
        .await
        .unwrap();
        (answer.await.unwrap().unwrap(), rx)
    }

    fn frames(rx: &mut mpsc::Receiver<Outgoing>) -> Vec<ServerMsg> {
        let mut out = Vec::new();
        while let Ok(o) = rx.try_recv() {
            if let Outgoing::Frame(text) = o {
                out.push(decode_server(&text).unwrap());
            }
        }
        out
    }

    fn view_seq(m: &ServerMsg) -> Option<u64> {
        match m {
            ServerMsg::Welcome { seq, .. }
            | ServerMsg::Snapshot { seq, .. }
            | ServerMsg::Update { seq, .. } => Some(*seq),
            _ => None,
        }
    }

    /// Runs the task until `n` updates have reached Bob, acting for him each turn. Time is
    /// paused, so the turn timer fires as soon as the task is idle.
    async fn play_turns(
        tx: &mpsc::Sender<Command>,
        bob_rx: &mut mpsc::Receiver<Outgoing>,
        n: usize,
    ) {
        for _ in 0..n {
            tx.send(Command::Act {
                conn: 2,
                action: Action::Wait,
            })
            .await
            .unwrap();
            loop {
                let next = tokio::time::timeout(Duration::from_secs(60), bob_rx.recv()).await;
                match next
                    .expect("an update within a minute of game time")
                    .unwrap()
                {
                    Outgoing::Frame(t) if t.contains(r#""type":"update""#) => break,
                    _ => {}
                }
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_that_stops_reading_never_stalls_the_dungeon_and_gets_a_snapshot_after() {
        let (tx, rx) = mpsc::channel(64);
        let config = config(50);
        let world = World::new(
            crate::game::Dungeon::new(42, Arc::clone(&config.content)),
            None,
        );
        let task = DungeonTask::new(
            "crypt".into(),
            world,
            HashMap::new(),
            config,
            Arc::new(DungeonStats::default()),
        );
        tokio::spawn(task.run(rx));
        // Ann's outbox holds 4 frames and nobody reads it.
        let (_ann, mut ann_rx) = join(&tx, "Ann", 1, 4).await;
        let (_bob, mut bob_rx) = join(&tx, "Bob", 2, 64).await;
        let _ = frames(&mut bob_rx); // welcome and "Entering floor #1"

        // Bob plays 30 turns; each resolves on the timer because Ann never chooses. The dungeon
        // goes on although Ann's outbox is full.
        play_turns(&tx, &mut bob_rx, 30).await;

        let first = frames(&mut ann_rx);
        assert_eq!(first.len(), 4, "the outbox kept only what fit");
        let seqs: Vec<u64> = first.iter().filter_map(view_seq).collect();
        assert_eq!(
            seqs,
            (0..seqs.len() as u64).collect::<Vec<_>>(),
            "no gap in what was kept"
        );

        // Ann drains; the next turn brings her a whole snapshot, continuing the sequence.
        play_turns(&tx, &mut bob_rx, 1).await;
        let next = frames(&mut ann_rx);
        let snap = next
            .iter()
            .find(|m| view_seq(m).is_some())
            .expect("a view message");
        match snap {
            ServerMsg::Snapshot { seq, view } => {
                assert_eq!(*seq, seqs.last().unwrap() + 1);
                assert_eq!(view.turn, 31);
            }
            other => panic!("expected a snapshot after falling behind, got {other:?}"),
        }
        // And updates resume after it.
        play_turns(&tx, &mut bob_rx, 1).await;
        let after = frames(&mut ann_rx);
        assert!(
            matches!(
                after.iter().find(|m| view_seq(m).is_some()),
                Some(ServerMsg::Update { turn: 32, .. })
            ),
            "{after:?}"
        );
    }
}
