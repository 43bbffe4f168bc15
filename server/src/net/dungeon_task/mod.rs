//! One task per live dungeon. It owns the engine, decides when each floor's turn resolves (all
//! connected players chose, or the floor's timer ran out), lifts out characters whose players
//! have been away too long, relays chat, and sends every connection its own view diffs.
//!
//! It never waits on a socket: it writes each connection's frames onto its socket as far as the
//! socket takes them, and leaves the rest, up to a bound, for the connection's task to write
//! (see [`crate::net::link`]). A connection past that bound has fallen behind; its frames are
//! dropped until there is room again, and then it gets a fresh snapshot instead of the diffs
//! it missed. Each connection keeps its own baseline (the last view it was sent), so a
//! snapshot for one never disturbs another's diffs.
//!
//! With a data directory, every input the world takes is journaled before anyone hears of its
//! outcome (see [`World`]); a dungeon nobody is connected to is saved and unloaded after a while,
//! and every dungeon is saved when its task ends.
//!
//! A connection may drive a character, watch one, or both (a dead player following a friend).
//! Whatever it watches, it is sent exactly the view and events of that character: a watcher
//! never learns more than the one it watches.
//!
//! The task itself holds the scheduling (turn deadlines, grace periods, unloading); everything
//! else is split by what it is about:
//! - `command`: what a connection asks of the task, and what others read of it without asking;
//! - `handle`: each command in turn (acting, levelling up, chat, following, leaving);
//! - `turns`: when a floor's turn resolves, resting at a pace, the turn's fan-out, whom a floor
//!   waits for (`turn_status`);
//! - `fanout`: what each connection is sent (its view as a diff, snapshots, welcome, errors);
//! - `outbox`: each connection's outlet, baseline, sequence numbers and falling behind;
//! - `roster`: the resume tokens; `joining`: joining, takeover, leaving, starting again;
//! - `room`: making room in a full dungeon; `watchers`: following another character's view;
//! - `games`: the record of the games a turn ended, their dumps written off the task;
//! - the party panel, watcher list and turn status are built in [`crate::view`].
//!
//! Where new behaviour goes: a new kind of request is a `Command` variant and an arm in
//! `handle`; what happens when a turn resolves (or a timer fires) is in `turns`; anything about
//! a player's presence (joining, away, coming back, being lifted out) is in `joining`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use delve_protocol::ErrorCode;
use tokio::sync::{Semaphore, mpsc};
use tokio::time::{Instant, sleep_until};
use tracing::{error, info};

mod command;
mod fanout;
mod games;
mod handle;
mod joining;
mod outbox;
mod room;
mod roster;
mod turns;
mod watchers;

use command::Refusal;
pub use command::{Command, ConnId, DungeonStats};
pub(crate) use fanout::level_up_gains;
use outbox::Session;
pub use outbox::{Outgoing, Outlet};
use room::Whereabouts;
pub use roster::Kept;
use roster::Roster;

use super::config::ServerConfig;
use super::limits::AddressBudget;
use super::ops::Ops;
use super::world::World;
use crate::game::EntityId;

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
    /// Floors whose deadline is a rest's pace rather than the turn timer (see `turns`).
    paced: BTreeSet<u8>,
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
    /// Character dumps being written (replaying a game takes a moment: off the task).
    dumps: games::Writing,
    /// A hash of what the lobby's live list was last built from (see `refresh_live`).
    live_seen: Option<u64>,
}

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
            paced: BTreeSet::new(),
            lifts,
            unplayed,
            new_characters,
            statuses_owed: BTreeSet::new(),
            status_due: None,
            unloads,
            whereabouts,
            ops,
            dumps: games::Writing::new(),
            live_seen: None,
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
                    self.finish_dumps().await;
                    let saved = self.save().await;
                    drop(permit);
                    while let Ok(cmd) = rx.try_recv() {
                        self.refuse_late(cmd);
                    }
                    return saved;
                }
                Some(done) = self.dumps.join_next(), if !self.dumps.is_empty() => {
                    if let Ok(Some(written)) = done {
                        self.dump_written(written);
                    }
                    None
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
            self.refresh_live();
            self.empty_since = match (self.sessions.is_empty(), self.empty_since) {
                (true, None) => Some(Instant::now()),
                (true, since) => since,
                (false, _) => None,
            };
        }
        self.finish_dumps().await;
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
}

#[cfg(test)]
mod tests;
