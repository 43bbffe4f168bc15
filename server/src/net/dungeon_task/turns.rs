//! When a floor's turn resolves and what follows it: the floors' timers (a turn waits for every
//! connected player there, or its timeout), the grace periods' ends, resting at a pace, the turn's
//! fan-out to every connection, and the `turn_status` lines saying whom a floor waits for.

use std::sync::atomic::Ordering;

use delve_protocol::encode;
use tokio::time::Instant;
use tracing::{debug, info};

use super::outbox::Everyone;
use super::{ConnId, DungeonTask};
use crate::game::EntityId;
use crate::view::{self, events_for};

/// How long a `turn_status` waits for the turn to complete before it goes out. Friends choose
/// within moments of each other: most turns then complete within it, and their update says
/// all a status would have (one frame per player instead of up to four). A tenth of a second
/// is below what a player notices of a "waiting for Bob" line.
const STATUS_DELAY: std::time::Duration = std::time::Duration::from_millis(100);

/// How long each turn of rest takes when nobody on the floor has anything else to do: a
/// rest of a hundred turns takes two and a half seconds, fast enough not to bore, slow enough
/// to watch the HP come back and to stop it with a key.
const REST_PACE: std::time::Duration = std::time::Duration::from_millis(25);

impl DungeonTask {
    /// Resolves the floors whose timers ran out and lifts out the characters whose grace ended.
    pub(super) async fn on_timers(&mut self) {
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
            // A rest's pace is no timeout: if someone arrived who must choose, the turn now
            // waits for them as for any choice (and they did not let a timer run out).
            if self.paced.remove(&depth) && !self.dungeon.is_ready(depth) {
                self.start_timer(depth);
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

    /// Characters brought back in `events` whose players have left stand up as any character
    /// whose player lost the connection: they wait, holding up no turn, and are lifted out of
    /// their floor when the grace period ends (their players left while they lay fallen, when
    /// no grace period starts: there was nothing to lift).
    fn grace_for_the_revived(&mut self, events: &[crate::game::Event]) {
        let until = Instant::now() + self.config.grace;
        for e in events {
            if let crate::game::Event::Revived { id, .. } = e
                && self.conn_of(*id).is_none()
            {
                info!(dungeon = %self.name, player = *id, "brought back while its player is gone; lifted out after the grace period");
                self.lifts.insert(*id, until);
                // A friend spent a Health Pack on it: it is lifted out, never forgotten as a
                // character made and never played.
                self.unplayed.remove(id);
            }
        }
    }

    /// A player chose: resolve if the floor is ready, otherwise start its timer and tell the floor
    /// whom it is waiting for.
    pub(super) async fn after_choice(&mut self, player: EntityId) {
        let depth = self.depth_of(player);
        if !self.config.turn_timeout.is_zero() {
            let timeout = self.config.turn_timeout;
            self.deadlines
                .entry(depth)
                .or_insert_with(|| Instant::now() + timeout);
        }
        self.check_floor(depth).await;
    }

    pub(super) async fn check_floor(&mut self, depth: u8) {
        if self.dungeon.is_ready(depth) {
            self.resolve(depth).await;
        } else {
            if self.dungeon.floor(depth).is_some_and(|f| !f.has_choices()) {
                self.deadlines.remove(&depth);
                self.paced.remove(&depth);
            }
            self.send_turn_status(depth);
        }
    }

    pub(super) async fn resolve(&mut self, depth: u8) {
        self.deadlines.remove(&depth);
        self.paced.remove(&depth);
        // The turn's update supersedes a status not sent yet.
        self.statuses_owed.remove(&depth);
        let report = self
            .dungeon
            .resolve_turn(depth, &mut Everyone(&self.sessions))
            .await;
        self.ops.metrics.turns.inc();
        self.record_games(&report.events).await;
        self.own_view_again(&report.events);
        self.grace_for_the_revived(&report.events);
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
    pub(super) fn after_turn(&mut self, depth: u8) {
        if !self.dungeon.floor(depth).is_some_and(|f| f.has_choices()) {
            return;
        }
        if self.dungeon.is_ready(depth) {
            self.deadlines.insert(depth, Instant::now() + REST_PACE);
            self.paced.insert(depth);
            return;
        }
        self.start_timer(depth);
    }

    /// Floor `depth` has choices and waits for others: its turn timer starts now (if the
    /// server has one), and its players hear whom it waits for.
    fn start_timer(&mut self, depth: u8) {
        self.paced.remove(&depth);
        if self.config.turn_timeout.is_zero() {
            self.deadlines.remove(&depth);
        } else {
            let timeout = self.config.turn_timeout;
            self.deadlines.insert(depth, Instant::now() + timeout);
        }
        self.send_turn_status(depth);
    }

    /// Owes every connection following a character on floor `depth` word of whom the turn is
    /// waiting for: sent `STATUS_DELAY` later (see `run`), unless the turn resolves first and
    /// its update says it instead.
    pub(super) fn send_turn_status(&mut self, depth: u8) {
        self.statuses_owed.insert(depth);
    }

    /// Sends the turn statuses owed once they are due, or sets when they will be; forgets
    /// the time when the turns they were about resolved meanwhile.
    pub(super) fn send_turn_statuses_when_due(&mut self) {
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
    pub(super) fn send_owed_turn_statuses(&mut self) {
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
    pub(super) fn send_turn_status_to(&self, conn: ConnId) {
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
    pub(super) fn turn_status_frame(&self, depth: u8) -> Option<String> {
        let timeout_ms = self
            .deadlines
            .get(&depth)
            .map(|t| t.saturating_duration_since(Instant::now()).as_millis() as u64);
        view::turn_status(&self.dungeon, depth, timeout_ms).map(|m| encode(&m))
    }
}
