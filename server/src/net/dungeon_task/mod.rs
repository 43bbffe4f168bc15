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
//!
//! The task itself holds the scheduling (turn deadlines, grace periods, unloading) and the
//! turn's fan-out; its state is split by what it is about:
//! - `outbox`: each connection's channel, baseline, sequence numbers and falling behind;
//! - `roster`: the resume tokens; `joining`: joining, takeover, leaving, starting again;
//! - `watchers`: following another character's view;
//! - `scores`: high-score entries for the games a turn ended;
//! - the party panel, watcher list and turn status are built in [`crate::view`].

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use delve_protocol::{
    ErrorCode, Event as ProtoEvent, MAX_CHAT_CHARS, MessageKind, PartyMember, Reason, ServerMsg,
    Stat, StatGain, View, encode,
};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::time::{Instant, sleep_until};
use tracing::{debug, error, info};

mod joining;
mod outbox;
mod room;
mod roster;
mod scores;
mod watchers;

pub use outbox::Outgoing;
use outbox::{Everyone, Session};
use room::Whereabouts;
pub use roster::Kept;
use roster::Roster;

use super::config::ServerConfig;
use super::limits::{AddressBudget, RateLimiter};
use super::ops::Ops;
use super::outbox_queue;
use super::world::World;
use crate::game::{Action, EntityId, Event, Input, Refusal as EngineRefusal};
use crate::view::{self, events_for, input_refusal, view_of};

/// Identifies one WebSocket connection for the server's lifetime.
pub type ConnId = u64;

type Refusal = (ErrorCode, String);

/// What a connection asks of its dungeon. After joining, commands name only the connection:
/// the character it drives can change (a new one after a death), and the dungeon knows which.
#[derive(Debug)]
pub enum Command {
    Join {
        name: String,
        token: Option<String>,
        /// Where the connection comes from, for the budget of new characters per address.
        from: IpAddr,
        conn: ConnId,
        out: outbox_queue::Sender<Outgoing>,
        reply: oneshot::Sender<Result<EntityId, Refusal>>,
    },
    /// Join as a watcher of the player called `target`, with no character of one's own.
    JoinWatching {
        name: String,
        target: String,
        conn: ConnId,
        out: outbox_queue::Sender<Outgoing>,
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

pub struct DungeonTask {
    name: String,
    dungeon: World,
    config: Arc<ServerConfig>,
    stats: Arc<DungeonStats>,
    sessions: HashMap<ConnId, Session>,
    /// The characters' resume tokens.
    roster: Roster,
    /// Since when nobody has been connected, for unloading.
    empty_since: Option<Instant>,
    /// When each floor with pending choices resolves anyway.
    deadlines: BTreeMap<u8, Instant>,
    /// When each disconnected character is lifted out of its floor.
    lifts: HashMap<EntityId, Instant>,
    /// Characters made and not yet played (no choice accepted): one whose player leaves is
    /// forgotten at the end of its grace period instead of lifted out, so hellos alone cannot
    /// fill the dungeon. A loaded world's characters that never lived a turn count too.
    unplayed: HashSet<EntityId>,
    /// New characters per address in this dungeon.
    new_characters: AddressBudget,
    /// Where each character was made from and when its player was last here, for making room
    /// in a full dungeon (see `room`).
    whereabouts: HashMap<EntityId, Whereabouts>,
    /// The server's metrics and summary log lines.
    ops: Arc<Ops>,
    /// Floors whose players are owed a `turn_status`, and when they are sent (`STATUS_DELAY`
    /// after the first choice owed one), unless the turn resolves first.
    statuses_owed: BTreeSet<u8>,
    status_due: Option<Instant>,
    /// Shared by every dungeon of the server: an idle dungeon holds its one permit while it
    /// saves and unloads. Players leave together (the last bus home, a network cut), and their
    /// dungeons fall idle together: saved all at once, hundreds of snapshots would take the
    /// cores from the dungeons still played for as long as they take.
    unloads: Arc<Semaphore>,
}

/// How long a `turn_status` waits for the turn to complete before it goes out. Friends choose
/// within moments of each other: most turns then complete within it, and their update says
/// all a status would have (one frame per player instead of up to four). A tenth of a second
/// is below what a player notices of a "waiting for Bob" line.
const STATUS_DELAY: std::time::Duration = std::time::Duration::from_millis(100);

/// How long each turn of rest takes when nobody on the floor has anything else to do: a
/// rest of a hundred turns takes two and a half seconds, fast enough not to bore, slow enough
/// to watch the HP come back and to stop it with a key.
const REST_PACE: std::time::Duration = std::time::Duration::from_millis(25);

/// At most this many queued commands are handled before the owed turn statuses go out and the
/// timers are looked at again.
const COMMAND_BATCH: usize = 64;

impl DungeonTask {
    pub fn new(
        name: String,
        dungeon: World,
        kept: HashMap<EntityId, Kept>,
        config: Arc<ServerConfig>,
        stats: Arc<DungeonStats>,
        unloads: Arc<Semaphore>,
        ops: Arc<Ops>,
    ) -> Self {
        // A loaded world may hold characters whose connections died with the last server:
        // they wait out the grace period like anyone who lost the connection.
        let now = Instant::now();
        // (They are marked disconnected in the journal when the task starts: see `run`.)
        let mut lifts = HashMap::new();
        for p in dungeon.players().filter(|p| p.alive() && p.present()) {
            lifts.insert(p.id(), now + config.grace);
        }
        let unplayed = dungeon
            .players()
            .filter(|p| p.alive() && p.turns() == 0)
            .map(|p| p.id())
            .collect();
        let new_characters = AddressBudget::new(
            config.new_characters_per_address,
            config.new_character_refill,
        );
        let deepest = dungeon.players().map(|p| p.deepest()).max().unwrap_or(1);
        stats.deepest.fetch_max(deepest, Ordering::Relaxed);
        let whereabouts = room::whereabouts(&kept);
        let tokens = kept.into_iter().map(|(id, k)| (id, k.token_hash)).collect();
        DungeonTask {
            name,
            dungeon,
            config,
            stats,
            sessions: HashMap::new(),
            roster: Roster::new(tokens),
            empty_since: Some(now),
            deadlines: BTreeMap::new(),
            lifts,
            unplayed,
            new_characters,
            statuses_owed: BTreeSet::new(),
            status_due: None,
            unloads,
            whereabouts,
            ops,
        }
    }

    /// Runs until every sender of `rx` is gone, or nobody has been connected for the unload
    /// time (with a data directory); then saves the world. Whether the save (if any) worked.
    pub async fn run(mut self, mut rx: mpsc::Receiver<Command>) -> bool {
        let away: Vec<EntityId> = self.dungeon.players().map(|p| p.id()).collect();
        for id in away {
            self.set_connected(id, false).await;
        }
        let unloads = self.dungeon.journal().is_some();
        loop {
            let now = Instant::now();
            let unload_at = self
                .empty_since
                .filter(|_| unloads)
                .map(|t| t + self.config.unload_after);
            // Due to unload: the task waits for its turn (the permit) instead of that timer,
            // still serving whoever joins meanwhile.
            let unload_due = unload_at.is_some_and(|t| t <= now) && self.sessions.is_empty();
            let next = self
                .deadlines
                .values()
                .chain(self.lifts.values())
                .chain(unload_at.iter().filter(|_| !unload_due))
                .chain(self.status_due.iter())
                .min()
                .copied();
            let first = tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => Some(cmd),
                    None => break,
                },
                permit = Arc::clone(&self.unloads).acquire_owned(), if unload_due => {
                    info!(dungeon = %self.name, "nobody here for a while: saving and unloading");
                    // New joiners now load the dungeon afresh, from what is saved below.
                    rx.close();
                    let saved = self.save().await;
                    drop(permit);
                    while let Ok(cmd) = rx.try_recv() {
                        self.refuse_late(cmd);
                    }
                    return saved;
                }
                () = sleep_until(next.unwrap_or(now)), if next.is_some() => {
                    self.on_timers().await;
                    // Whatever happened may have taken someone's subject out of the party.
                    self.retarget_watchers();
                    None
                }
            };
            // The command, and those queued behind it already (up to a batch). It used to yield
            // first, so that the other intents of the same moment queued behind it and shared
            // one `turn_status`; statuses now wait a tenth of a second for the turn to complete
            // (`STATUS_DELAY`), which does that whatever the order. Without the yield: still one
            // frame per update under load, and no more CPU (docs/BENCHMARKS.md).
            let mut cmd = first;
            let mut handled = 0;
            while let Some(c) = cmd.take() {
                self.handle(c).await;
                // Whatever happened may have taken someone's subject out of the party.
                self.retarget_watchers();
                handled += 1;
                if handled < COMMAND_BATCH {
                    cmd = rx.try_recv().ok();
                }
            }
            self.send_turn_statuses_when_due();
            self.empty_since = match (self.sessions.is_empty(), self.empty_since) {
                (true, None) => Some(Instant::now()),
                (true, since) => since,
                (false, _) => None,
            };
        }
        let saved = self.save().await;
        info!(dungeon = %self.name, "dungeon task stopped");
        saved
    }

    /// Saves the whole world and waits until it is on disk: whether it is (true when nothing
    /// is kept on disk).
    async fn save(&mut self) -> bool {
        let Some((ack, hash)) = self.dungeon.snapshot() else {
            return true;
        };
        match ack.await {
            Ok(()) => {
                info!(dungeon = %self.name, %hash, "dungeon saved");
                true
            }
            Err(e) => {
                // Its journal still holds every stored turn: nothing seen is lost, but the next
                // load replays more.
                error!(dungeon = %self.name, error = %e, "cannot save the dungeon");
                false
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
    async fn on_timers(&mut self) {
        let now = Instant::now();
        let due: Vec<u8> = self
            .deadlines
            .iter()
            .filter(|(_, t)| **t <= now)
            .map(|(d, _)| *d)
            .collect();
        for depth in due {
            // The choices that set the timer may be gone since (a rester who left).
            if !self.dungeon.floor(depth).is_some_and(|f| f.has_choices()) {
                self.deadlines.remove(&depth);
                continue;
            }
            debug!(dungeon = %self.name, depth, "turn timer ran out");
            self.resolve(depth).await;
        }
        let gone: Vec<EntityId> = self
            .lifts
            .iter()
            .filter(|(_, t)| **t <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in gone {
            self.lifts.remove(&id);
            self.lift(id).await;
        }
    }

    async fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Join {
                name,
                token,
                from,
                conn,
                out,
                reply,
            } => {
                let result = self.join(name, token, from, conn, out).await;
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
                match self
                    .dungeon
                    .step(
                        Input::Choose { id: player, action },
                        &mut Everyone(&self.sessions),
                    )
                    .await
                {
                    Ok(_) => {
                        self.unplayed.remove(&player);
                        self.after_choice(player).await;
                    }
                    Err(e) => self.refuse(conn, &e),
                }
            }
            Command::LevelUp { conn, stat } => {
                let Some(player) = self.player_or_refuse(conn) else {
                    return;
                };
                match self
                    .dungeon
                    .step(
                        Input::SpendPoint { id: player, stat },
                        &mut Everyone(&self.sessions),
                    )
                    .await
                {
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
                    self.new_character(conn, player).await;
                }
            }
            Command::Resync { conn } => self.send_snapshot(conn),
            Command::Chat { conn, text } => self.chat(conn, &text),
            Command::Follow { conn, name } => self.follow(conn, name.as_deref()),
            Command::Disconnect { conn } => self.disconnect(conn).await,
        }
    }

    /// Whether a connection drives `id` now (journaled when it changes).
    async fn set_connected(&mut self, id: EntityId, connected: bool) {
        let _ = self
            .dungeon
            .step(
                Input::Connected { id, connected },
                &mut Everyone(&self.sessions),
            )
            .await;
    }

    /// Tells `conn` why the engine refused what it asked.
    fn refuse(&self, conn: ConnId, why: &EngineRefusal) {
        let (code, reason) = match why {
            EngineRefusal::Action(e) => (e.code(), Some(e.reason())),
            EngineRefusal::Join(e) => (ErrorCode::CannotAct, Some(e.reason())),
            EngineRefusal::Unchanged => (ErrorCode::CannotAct, None),
        };
        self.send(conn, code, input_refusal(why), reason);
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
        self.dungeon.player(id).map_or(1, |p| p.depth())
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
            descriptions: self.dungeon.content().descriptions(),
        }
    }

    fn new_session(
        &self,
        out: outbox_queue::Sender<Outgoing>,
        player: Option<EntityId>,
        watching: Option<EntityId>,
        name: String,
        view: View,
    ) -> Session {
        let chat = RateLimiter::new(self.config.chat_per_sec, self.config.chat_burst);
        Session::new(out, player, watching, name, view, chat)
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
        } else if !s.may_chat() {
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
    async fn after_choice(&mut self, player: EntityId) {
        let depth = self.depth_of(player);
        if !self.config.turn_timeout.is_zero() {
            let timeout = self.config.turn_timeout;
            self.deadlines
                .entry(depth)
                .or_insert_with(|| Instant::now() + timeout);
        }
        self.check_floor(depth).await;
    }

    async fn check_floor(&mut self, depth: u8) {
        if self.dungeon.is_ready(depth) {
            self.resolve(depth).await;
        } else {
            if self.dungeon.floor(depth).is_some_and(|f| !f.has_choices()) {
                self.deadlines.remove(&depth);
            }
            self.send_turn_status(depth);
        }
    }

    async fn resolve(&mut self, depth: u8) {
        self.deadlines.remove(&depth);
        // The turn's update supersedes a status not sent yet.
        self.statuses_owed.remove(&depth);
        let report = self
            .dungeon
            .resolve_turn(depth, &mut Everyone(&self.sessions))
            .await;
        self.ops.metrics.turns.inc();
        self.record_scores(&report.events).await;
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
        // The party panel is the same for everyone: made once, not per player.
        let party = view::party(&self.dungeon);
        for (c, subject) in elsewhere {
            let news = subject.map_or_else(Vec::new, |id| {
                events_for(&self.dungeon, id, depth, &report.events)
            });
            self.push_view_with(c, news, false, &party);
        }
        let deepest = self
            .dungeon
            .players()
            .map(|p| p.deepest())
            .max()
            .unwrap_or(1);
        let before = self.stats.deepest.fetch_max(deepest, Ordering::Relaxed);
        if deepest > before
            && let Some(j) = self.dungeon.journal()
        {
            // For the lobby's list of saved dungeons; nobody waits for it.
            drop(j.store.set_deepest(j.dungeon, u32::from(deepest)));
        }
        self.after_turn(depth);
    }

    /// After floor `depth`'s turn: those who rest have chosen the next turn already (the engine
    /// chose it for them). A floor where every connected player rests goes on by itself, a turn
    /// every [`REST_PACE`]; one where others must still choose starts its timer, as it would for
    /// any choice, and says whom it waits for.
    fn after_turn(&mut self, depth: u8) {
        if !self.dungeon.floor(depth).is_some_and(|f| f.has_choices()) {
            return;
        }
        if self.dungeon.is_ready(depth) {
            self.deadlines.insert(depth, Instant::now() + REST_PACE);
            return;
        }
        if !self.config.turn_timeout.is_zero() {
            let timeout = self.config.turn_timeout;
            self.deadlines.insert(depth, Instant::now() + timeout);
        }
        self.send_turn_status(depth);
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
        // The party panel is the same for everyone: made once, not per player.
        let party = view::party(&self.dungeon);
        for (conn, subject) in conns {
            let events = events_for(&self.dungeon, subject, depth, events);
            self.push_view_with(conn, events, force, &party);
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
        self.view_with(id, &view::party(&self.dungeon))
    }

    /// The view of `id`, with `party` (the dungeon's party panel, made once for all) and the
    /// watchers added.
    fn view_with(&self, id: EntityId, party: &[PartyMember]) -> Option<View> {
        let mut view = view_of(&self.dungeon, id)?;
        view.party = party.to_vec();
        // Watchers, and dead players following a friend.
        let following = self
            .sessions
            .values()
            .filter_map(|s| Some((s.name.as_str(), s.watching?)));
        view.watchers = view::watchers(&self.dungeon, following);
        Some(view)
    }

    /// Sends connection `conn` an update: its view's diff against that connection's baseline,
    /// plus `events`. A resolved turn always sends one (`force`: the turn number moves); news
    /// between turns only when there is something in it. A connection that fell behind gets a
    /// snapshot (or the welcome it still owes).
    fn push_view(&mut self, conn: ConnId, events: Vec<ProtoEvent>, force: bool) {
        let party = view::party(&self.dungeon);
        self.push_view_with(conn, events, force, &party);
    }

    /// [`Self::push_view`] with the party panel made already.
    fn push_view_with(
        &mut self,
        conn: ConnId,
        events: Vec<ProtoEvent>,
        force: bool,
        party: &[PartyMember],
    ) {
        let Some(s) = self.sessions.get(&conn) else {
            return;
        };
        let Some(subject) = s.subject() else { return };
        let Some(view) = self.view_with(subject, party) else {
            return;
        };
        let welcome = match s.player {
            Some(id) if s.needs_welcome() => self
                .roster
                .token(id)
                .map(|t| self.welcome(id, Some(t.clone()), None, view.clone())),
            _ => None,
        };
        if let Some(s) = self.sessions.get_mut(&conn) {
            let queued = s.push(conn, view, events, force, welcome);
            self.ops.metrics.updates.inc_by(queued);
        }
    }

    /// A whole view for connection `conn` (a resync), by the same path as a connection that
    /// fell behind: a snapshot, or the welcome it still owes.
    fn send_snapshot(&mut self, conn: ConnId) {
        if let Some(s) = self.sessions.get_mut(&conn) {
            s.resend_whole();
        }
        self.push_view(conn, Vec::new(), true);
    }

    /// Owes every connection following a character on floor `depth` word of whom the turn is
    /// waiting for: sent `STATUS_DELAY` later (see `run`), unless the turn resolves first and
    /// its update says it instead.
    fn send_turn_status(&mut self, depth: u8) {
        self.statuses_owed.insert(depth);
    }

    /// Sends the turn statuses owed once they are due, or sets when they will be; forgets
    /// the time when the turns they were about resolved meanwhile.
    fn send_turn_statuses_when_due(&mut self) {
        let now = Instant::now();
        self.status_due = match self.status_due {
            _ if self.statuses_owed.is_empty() => None,
            Some(due) if due <= now => {
                self.send_owed_turn_statuses();
                None
            }
            Some(due) => Some(due),
            None => Some(now + STATUS_DELAY),
        };
    }

    /// Sends the turn statuses owed, each as things stand now.
    fn send_owed_turn_statuses(&mut self) {
        for depth in std::mem::take(&mut self.statuses_owed) {
            let Some(frame) = self.turn_status_frame(depth) else {
                continue;
            };
            for s in self.sessions.values() {
                if s.subject().is_some_and(|id| self.depth_of(id) == depth) {
                    // Status is advisory: if the outbox is full, the next update supersedes it.
                    s.send_encoded(frame.clone());
                }
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
        s.send_encoded(frame);
    }

    /// The encoded `turn_status` of floor `depth`: `None` while nobody there has chosen.
    fn turn_status_frame(&self, depth: u8) -> Option<String> {
        let timeout_ms = self
            .deadlines
            .get(&depth)
            .map(|t| t.saturating_duration_since(Instant::now()).as_millis() as u64);
        view::turn_status(&self.dungeon, depth, timeout_ms).map(|m| encode(&m))
    }

    fn send_error(&self, conn: ConnId, code: ErrorCode, message: String) {
        self.send(conn, code, message, None);
    }

    /// An error frame for `conn`, with the rule that refused, if one did.
    fn send(&self, conn: ConnId, code: ErrorCode, message: String, reason: Option<Reason>) {
        if let Some(s) = self.sessions.get(&conn) {
            s.error(code, message, reason);
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
    ) -> (EntityId, outbox_queue::Receiver<Outgoing>) {
        let (out, rx) = outbox_queue::queue(outbox);
        let (reply, answer) = oneshot::channel();
        tx.send(Command::Join {
            name: name.into(),
            token: None,
            from: std::net::Ipv4Addr::LOCALHOST.into(),
            conn,
            out,
            reply,
        })
        .await
        .unwrap();
        (answer.await.unwrap().unwrap(), rx)
    }

    fn frames(rx: &mut outbox_queue::Receiver<Outgoing>) -> Vec<ServerMsg> {
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
        bob_rx: &mut outbox_queue::Receiver<Outgoing>,
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
            Arc::new(Semaphore::new(1)),
            Arc::default(),
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
