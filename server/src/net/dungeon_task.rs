//! One task per live dungeon. It owns the engine, decides when each floor's turn resolves (all
//! connected players chose, or the floor's timer ran out), and sends every connection its own
//! view diffs.
//!
//! It never waits on a socket: frames go into each connection's bounded outbox with `try_send`.
//! A connection whose outbox is full has fallen behind; its frames are dropped until there is
//! room again, and then it gets a fresh snapshot instead of the diffs it missed. Each connection
//! keeps its own baseline (the last view it was sent), so a snapshot for one never disturbs
//! another's diffs.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use delve_protocol::{ErrorCode, Event as ProtoEvent, MessageKind, ServerMsg, View, encode};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};
use tracing::{debug, info};

use super::config::ServerConfig;
use super::validate::{new_token, token_eq};
use crate::game::{Action, ActionError, Dungeon, EntityId, Event, JoinError};
use crate::view::{events_for, view_of};
use delve_protocol::{Stat, StatGain};

/// The error code for a refused action.
fn error_code(e: &ActionError) -> ErrorCode {
    match e {
        ActionError::NotPresent | ActionError::Dead => ErrorCode::CannotAct,
        ActionError::Wall
        | ActionError::OffMap
        | ActionError::NoStairs
        | ActionError::NoWayUp
        | ActionError::NoPoints => ErrorCode::Rejected,
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

/// What a connection asks of its dungeon. After joining, commands name only the connection:
/// the character it drives can change (a new one after a death), and the dungeon knows which.
#[derive(Debug)]
pub enum Command {
    Join {
        name: String,
        token: Option<String>,
        conn: ConnId,
        out: mpsc::Sender<Outgoing>,
        reply: oneshot::Sender<Result<EntityId, (ErrorCode, String)>>,
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
    Disconnect {
        conn: ConnId,
    },
}

/// What the registry and lobby can read about a running dungeon without asking its task.
#[derive(Debug, Default)]
pub struct DungeonStats {
    pub online: AtomicUsize,
}

/// A connection attached to a character.
struct Session {
    conn: ConnId,
    out: mpsc::Sender<Outgoing>,
    /// The last view this connection was sent: diffs are computed against it.
    baseline: Option<View>,
    /// Sequence number of the last view message sent.
    seq: u64,
    /// Frames were dropped because the outbox was full; send a snapshot when there is room.
    behind: bool,
    /// The welcome of a new character could not be queued: send it instead of the next
    /// snapshot, so the client learns its new id.
    needs_welcome: bool,
}

pub struct DungeonTask {
    name: String,
    dungeon: Dungeon,
    config: Arc<ServerConfig>,
    stats: Arc<DungeonStats>,
    sessions: HashMap<EntityId, Session>,
    tokens: HashMap<EntityId, String>,
    /// When each floor with pending choices resolves anyway.
    deadlines: BTreeMap<u8, Instant>,
}

impl DungeonTask {
    pub fn new(
        name: String,
        seed: u64,
        config: Arc<ServerConfig>,
        stats: Arc<DungeonStats>,
    ) -> Self {
        info!(dungeon = %name, seed, "dungeon created");
        DungeonTask {
            name,
            dungeon: Dungeon::new(seed, Arc::clone(&config.content)),
            config,
            stats,
            sessions: HashMap::new(),
            tokens: HashMap::new(),
            deadlines: BTreeMap::new(),
        }
    }

    /// Runs until every sender of `rx` is gone.
    pub async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        loop {
            let next_deadline = self.deadlines.values().min().copied();
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd),
                    None => break,
                },
                () = sleep_until(next_deadline.unwrap_or_else(Instant::now)), if next_deadline.is_some() => {
                    let now = Instant::now();
                    let due: Vec<u8> = self.deadlines.iter().filter(|(_, t)| **t <= now).map(|(d, _)| *d).collect();
                    for depth in due {
                        debug!(dungeon = %self.name, depth, "turn timer ran out");
                        self.resolve(depth);
                    }
                }
            }
        }
        info!(dungeon = %self.name, "dungeon task stopped");
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
            Command::Act { conn, action } => {
                let Some(player) = self.player_of(conn) else {
                    return;
                };
                match self.dungeon.submit(player, action) {
                    Ok(()) => self.after_choice(player),
                    Err(e) => self.send_error(player, error_code(&e), e.to_string()),
                }
            }
            Command::LevelUp { conn, stat } => {
                let Some(player) = self.player_of(conn) else {
                    return;
                };
                match self.dungeon.spend_point(player, stat) {
                    Ok(events) => {
                        // Others on the floor may see the new max HP.
                        let depth = self.dungeon.player(player).map_or(1, |p| p.depth);
                        self.send_views(depth, depth, &events, false);
                    }
                    Err(e) => self.send_error(player, error_code(&e), e.to_string()),
                }
            }
            Command::NewCharacter { conn } => {
                if let Some(player) = self.player_of(conn) {
                    self.new_character(player);
                }
            }
            Command::Resync { conn } => {
                if let Some(player) = self.player_of(conn) {
                    self.send_snapshot(player);
                }
            }
            Command::Disconnect { conn } => {
                // A connection replaced by a newer one has no character any more: nothing to do.
                let Some(player) = self.player_of(conn) else {
                    return;
                };
                self.sessions.remove(&player);
                self.stats
                    .online
                    .store(self.sessions.len(), Ordering::Relaxed);
                self.dungeon.set_connected(player, false);
                info!(dungeon = %self.name, player, "player disconnected; character waits");
                let (name, alive) = self
                    .dungeon
                    .player(player)
                    .map_or((String::new(), false), |p| (p.name.clone(), p.alive));
                let line = if alive {
                    format!("{name} lost the connection; their character waits.")
                } else {
                    format!("{name} has left.")
                };
                self.announce(player, &line);
                // The floor may have been waiting only for this player.
                if let Some(depth) = self.dungeon.player(player).map(|p| p.depth) {
                    self.check_floor(depth);
                }
            }
        }
    }

    /// The welcome for a session on character `player`: who it is, how to come back, the rules
    /// the client needs, and the first view.
    fn welcome(&self, player: EntityId, token: String, view: View) -> ServerMsg {
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
            seq: 0,
            view,
        }
    }

    /// The character connection `conn` drives now, if any.
    fn player_of(&self, conn: ConnId) -> Option<EntityId> {
        self.sessions
            .iter()
            .find(|(_, s)| s.conn == conn)
            .map(|(id, _)| *id)
    }

    fn join(
        &mut self,
        name: String,
        token: Option<String>,
        conn: ConnId,
        out: mpsc::Sender<Outgoing>,
    ) -> Result<EntityId, (ErrorCode, String)> {
        let resumed = token.is_some();
        // Taking over a live session is not a return: nobody left, so nobody is told.
        let mut took_over = false;
        let (player, token, events) = match token {
            Some(t) => {
                // Compare against every stored token without stopping early.
                let found = self.tokens.iter().fold(None, |hit, (id, stored)| {
                    if token_eq(stored, &t) { Some(*id) } else { hit }
                });
                let Some(player) = found else {
                    return Err((
                        ErrorCode::BadToken,
                        "That resume token matches no character in this dungeon.".into(),
                    ));
                };
                if let Some(old) = self.sessions.remove(&player) {
                    took_over = true;
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
                (player, t, Vec::new())
            }
            None => {
                if self.sessions.len() >= self.config.max_players_per_dungeon {
                    return Err((
                        ErrorCode::DungeonFull,
                        format!(
                            "Dungeon {} already has {} players online.",
                            self.name, self.config.max_players_per_dungeon
                        ),
                    ));
                }
                while self.dungeon.character_count() >= self.config.max_characters_per_dungeon
                    && self.dungeon.evict_dead()
                {}
                if self.dungeon.character_count() >= self.config.max_characters_per_dungeon {
                    return Err((
                        ErrorCode::DungeonFull,
                        format!("Dungeon {} has no room for another character.", self.name),
                    ));
                }
                let (player, events) = self.dungeon.join(&name).map_err(|e| match e {
                    JoinError::NameTaken(_) => (ErrorCode::NameTaken, e.to_string()),
                    JoinError::NoRoom => (ErrorCode::DungeonFull, e.to_string()),
                    JoinError::StillAlive | JoinError::Unknown => {
                        (ErrorCode::Internal, e.to_string())
                    }
                })?;
                let token = new_token();
                self.tokens.insert(player, token.clone());
                (player, token, events)
            }
        };
        if self.sessions.len() >= self.config.max_players_per_dungeon {
            return Err((ErrorCode::DungeonFull, "The dungeon is full.".into()));
        }
        let Some(view) = view_of(&self.dungeon, player) else {
            return Err((ErrorCode::Internal, "The character has no view.".into()));
        };
        let welcome = self.welcome(player, token, view.clone());
        if out.try_send(Outgoing::Frame(encode(&welcome))).is_err() {
            // The character stays, disconnected, and can be resumed with its token.
            self.dungeon.set_connected(player, false);
            return Err((
                ErrorCode::Internal,
                "The connection closed while joining.".into(),
            ));
        }
        self.dungeon.set_connected(player, true);
        self.sessions.insert(
            player,
            Session {
                conn,
                out,
                baseline: Some(view),
                seq: 0,
                behind: false,
                needs_welcome: false,
            },
        );
        self.stats
            .online
            .store(self.sessions.len(), Ordering::Relaxed);
        let name = self
            .dungeon
            .player(player)
            .map(|p| p.name.clone())
            .unwrap_or_default();
        info!(dungeon = %self.name, player, %name, resumed, "player joined");

        // The joiner gets its arrival messages; everyone else hears who came, and may now see
        // the newcomer.
        let depth = self.dungeon.player(player).map_or(1, |p| p.depth);
        let mine = events_for(&self.dungeon, player, depth, &events);
        self.push_view(player, mine, false);
        if !took_over {
            let line = if resumed {
                format!("{name} is back.")
            } else {
                format!("{name} enters the dungeon.")
            };
            self.announce(player, &line);
        }
        self.send_turn_status(depth);
        Ok(player)
    }

    /// A player chose: resolve if the floor is ready, otherwise start its timer and tell the floor
    /// whom it is waiting for.
    fn after_choice(&mut self, player: EntityId) {
        let Some(depth) = self.dungeon.player(player).map(|p| p.depth) else {
            return;
        };
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
        debug!(dungeon = %self.name, depth, turn = report.turn, actions = report.actions.len(), "turn resolved");
        // Everyone on the resolved floor gets its turn; those on a floor someone arrived on by
        // the stairs get the news (and, if that floor's turn is being chosen, a new status).
        for &floor in &report.floors {
            self.send_views(floor, depth, &report.events, floor == depth);
            if floor != depth {
                self.send_turn_status(floor);
            }
        }
    }

    /// Sends every connected player on floor `floor` its update for `events`, which happened
    /// on floor `depth`. `force` for a resolved turn: one update each, even if nothing changed.
    fn send_views(&mut self, floor: u8, depth: u8, events: &[Event], force: bool) {
        let ids: Vec<EntityId> = self
            .dungeon
            .players_on(floor)
            .map(|p| p.id)
            .filter(|id| self.sessions.contains_key(id))
            .collect();
        for id in ids {
            let events = events_for(&self.dungeon, id, depth, events);
            self.push_view(id, events, force);
        }
    }

    /// A dead character's player starts a new one: same connection, same name, new id and
    /// token, and a welcome with its first view.
    fn new_character(&mut self, old: EntityId) {
        let (id, events) = match self.dungeon.new_character(old) {
            Ok(r) => r,
            Err(e) => {
                let code = match e {
                    JoinError::NameTaken(_) => ErrorCode::NameTaken,
                    JoinError::NoRoom => ErrorCode::DungeonFull,
                    JoinError::StillAlive | JoinError::Unknown => ErrorCode::CannotAct,
                };
                self.send_error(old, code, e.to_string());
                return;
            }
        };
        let Some(session) = self.sessions.remove(&old) else {
            return;
        };
        // The token belongs to the player, not the character: it now resumes the new one.
        let token = self.tokens.remove(&old).unwrap_or_else(new_token);
        self.tokens.insert(id, token.clone());
        let Some(view) = view_of(&self.dungeon, id) else {
            return;
        };
        let welcome = self.welcome(id, token, view.clone());
        let delivered = session
            .out
            .try_send(Outgoing::Frame(encode(&welcome)))
            .is_ok();
        self.sessions.insert(
            id,
            Session {
                conn: session.conn,
                out: session.out,
                baseline: Some(view),
                seq: 0,
                behind: !delivered,
                needs_welcome: !delivered,
            },
        );
        let name = self
            .dungeon
            .player(id)
            .map(|p| p.name.clone())
            .unwrap_or_default();
        info!(dungeon = %self.name, player = id, %name, "new character after a death");
        let mine = events_for(&self.dungeon, id, 1, &events);
        self.push_view(id, mine, false);
        self.announce(id, &format!("{name} enters the dungeon again."));
        self.send_turn_status(1);
    }

    /// Tells every connected player but `except` a line of news about another player.
    fn announce(&mut self, except: EntityId, text: &str) {
        let ids: Vec<EntityId> = self
            .sessions
            .keys()
            .copied()
            .filter(|&id| id != except)
            .collect();
        for id in ids {
            let line = ProtoEvent::message(MessageKind::Normal, text);
            self.push_view(id, vec![line], false);
        }
    }

    /// Sends player `id` an update: its view's diff against that connection's baseline, plus
    /// `events`. A resolved turn always sends one (`force`: the turn number moves); news between
    /// turns only when there is something in it. A connection that fell behind gets a snapshot.
    fn push_view(&mut self, id: EntityId, events: Vec<ProtoEvent>, force: bool) {
        let Some(view) = view_of(&self.dungeon, id) else {
            return;
        };
        let welcome = match self.sessions.get(&id) {
            Some(s) if s.needs_welcome => self
                .tokens
                .get(&id)
                .map(|t| self.welcome(id, t.clone(), view.clone())),
            _ => None,
        };
        let Some(s) = self.sessions.get_mut(&id) else {
            return;
        };
        let diff = match (&s.baseline, s.behind) {
            (Some(base), false) => base.diff(&view),
            _ => None,
        };
        if !force && events.is_empty() && diff.as_ref().is_some_and(|d| d.is_empty()) {
            return;
        }
        // A view that cannot be a diff (another floor, or the connection fell behind) goes whole;
        // the events then follow in an update of their own, so no log line is lost. Each frame
        // is kept with its sequence number.
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
                        debug!(dungeon = %self.name, player = id, "connection fell behind; will resend a snapshot");
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

    /// A whole view for `player` (a resync), by the same path as a connection that fell behind:
    /// a snapshot, or the welcome it still owes.
    fn send_snapshot(&mut self, player: EntityId) {
        if let Some(s) = self.sessions.get_mut(&player) {
            s.behind = true;
        }
        self.push_view(player, Vec::new(), true);
    }

    /// Tells every connected player on floor `depth` whom the turn is waiting for.
    fn send_turn_status(&mut self, depth: u8) {
        let Some(floor) = self.dungeon.floor(depth) else {
            return;
        };
        if !floor.has_choices() {
            return;
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
        let frame = encode(&ServerMsg::TurnStatus {
            turn: floor.turn + 1,
            waiting_for,
            timeout_ms,
        });
        for p in self.dungeon.players_on(depth) {
            if let Some(s) = self.sessions.get(&p.id) {
                // Status is advisory: if the outbox is full, the next update supersedes it.
                let _ = s.out.try_send(Outgoing::Frame(frame.clone()));
            }
        }
    }

    fn send_error(&self, player: EntityId, code: ErrorCode, message: String) {
        if let Some(s) = self.sessions.get(&player) {
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
        let task = DungeonTask::new(
            "crypt".into(),
            42,
            config(50),
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
