//! The commands of connections, one by one: acting, levelling up, chatting, following, leaving;
//! and the small lookups between connections and characters that they share.

use std::sync::atomic::Ordering;

use delve_protocol::{ErrorCode, Event as ProtoEvent, LivePlayer, MAX_CHAT_CHARS, View};
use tracing::debug;

use super::outbox::{Everyone, Session};
use super::{Command, ConnId, DungeonTask, Outlet};
use crate::game::{EntityId, Input, Refusal as EngineRefusal};
use crate::net::limits::RateLimiter;
use crate::view::input_refusal;

impl DungeonTask {
    pub(super) async fn handle(&mut self, cmd: Command) {
        // Anything a player sends (but a resync, which clients ask for by themselves) brings
        // them back if they were away.
        match &cmd {
            Command::Act { conn, .. }
            | Command::LevelUp { conn, .. }
            | Command::Mark { conn, .. }
            | Command::NewCharacter { conn }
            | Command::Chat { conn, .. }
            | Command::Follow { conn, .. } => self.heard_from(*conn).await,
            _ => {}
        }
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
                // Others on the floor may see the new max HP.
                self.step_now(conn, |id| Input::SpendPoint { id, stat })
                    .await;
            }
            Command::Mark { conn, at } => {
                // The floor's friends see the mark at once.
                self.step_now(conn, |id| Input::Mark { id, at }).await;
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
    pub(super) async fn set_connected(&mut self, id: EntityId, connected: bool) {
        let _ = self
            .dungeon
            .step(
                Input::Connected { id, connected },
                &mut Everyone(&self.sessions),
            )
            .await;
    }

    /// Tells `conn` why the engine refused what it asked.
    pub(super) fn refuse(&self, conn: ConnId, why: &EngineRefusal) {
        let (code, reason) = match why {
            EngineRefusal::Action(e) => (e.code(), Some(e.reason())),
            EngineRefusal::Join(e) => (ErrorCode::CannotAct, Some(e.reason())),
            EngineRefusal::Unchanged => (ErrorCode::CannotAct, None),
        };
        self.send(conn, code, input_refusal(why), reason);
    }

    pub(super) fn player_of(&self, conn: ConnId) -> Option<EntityId> {
        self.sessions.get(&conn)?.player
    }

    /// Carries out at once (not as the turn's choice) what `input` makes of the character
    /// `conn` plays, and shows the outcome to everyone on its floor; a refusal goes back to
    /// `conn`.
    async fn step_now(&mut self, conn: ConnId, input: impl FnOnce(EntityId) -> Input) {
        let Some(player) = self.player_or_refuse(conn) else {
            return;
        };
        match self
            .dungeon
            .step(input(player), &mut Everyone(&self.sessions))
            .await
        {
            Ok(done) => {
                let depth = self.depth_of(player);
                self.send_views(depth, depth, &done.events, false);
            }
            Err(e) => self.refuse(conn, &e),
        }
    }

    /// The character connection `conn` plays; a watcher is told it has none.
    pub(super) fn player_or_refuse(&self, conn: ConnId) -> Option<EntityId> {
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
    pub(super) fn conn_of(&self, id: EntityId) -> Option<ConnId> {
        self.sessions
            .iter()
            .find(|(_, s)| s.player == Some(id))
            .map(|(c, _)| *c)
    }

    pub(super) fn depth_of(&self, id: EntityId) -> u8 {
        self.dungeon.player(id).map_or(1, |p| p.depth())
    }

    pub(super) fn refresh_online(&self) {
        let online = self
            .sessions
            .values()
            .filter(|s| s.player.is_some())
            .count();
        self.stats.online.store(online, Ordering::Relaxed);
    }

    /// Updates the lobby's list of who plays here and who watches them (a public dungeon's,
    /// when the server lists live games).
    ///
    /// It runs after every batch of commands, mostly single intents that change nothing it
    /// shows: so it first hashes what it shows (allocating nothing) and builds the list only
    /// when that changed. Building it every time (names copied, watchers gathered, sorted by
    /// a lowercased name) was 2.6% of the server's CPU in a load run's profile.
    pub(super) fn refresh_live(&mut self) {
        const FX: u64 = 0x517c_c1b7_2722_0a95;
        if !self.config.live_games || self.stats.private {
            return;
        }
        // Names never change (a session's is its hello's, a character's its own), so ids
        // stand for them: a few words a session, mixed as rustc's Fx hash does, rather than
        // every name through SipHash (that was 1.4% of the server's CPU in a load run).
        let mut seen = 0u64;
        let mut mix = |word: u64| seen = (seen.rotate_left(5) ^ word).wrapping_mul(FX);
        for (&conn, s) in &self.sessions {
            mix(conn);
            mix(s.player.map_or(0, |id| u64::from(id) + 1));
            mix(s.watching.map_or(0, |id| u64::from(id) + 1));
            if let Some(p) = s.player.and_then(|id| self.dungeon.player(id)) {
                let flags = u64::from(p.alive()) | u64::from(p.victory()) << 1;
                mix(u64::from(p.depth()) | u64::from(p.level()) << 8 | flags << 40);
            }
        }
        if self.live_seen == Some(seen) {
            return;
        }
        self.live_seen = Some(seen);
        let mut live: Vec<LivePlayer> = self
            .sessions
            .values()
            .filter_map(|s| {
                let id = s.player?;
                let p = self.dungeon.player(id)?;
                let mut watchers: Vec<String> = (self.sessions.values())
                    .filter(|w| w.watching == Some(id) && w.player != Some(id))
                    .map(|w| w.name.clone())
                    .collect();
                watchers.sort();
                Some(LivePlayer {
                    name: p.name().to_owned(),
                    depth: p.depth(),
                    level: p.level(),
                    alive: p.alive() && !p.victory(),
                    watchers,
                })
            })
            .collect();
        live.sort_by_key(|p| p.name.to_lowercase());
        if let Ok(mut kept) = self.stats.live.lock()
            && *kept != live
        {
            *kept = live;
        }
    }

    pub(super) fn new_session(
        &self,
        out: Outlet,
        player: Option<EntityId>,
        watching: Option<EntityId>,
        name: String,
        view: View,
    ) -> Session {
        let chat = RateLimiter::new(self.config.chat_per_sec, self.config.chat_burst);
        Session::new(out, player, watching, name, view, chat)
    }

    /// Relays a chat line to everyone in the dungeon, the sender included.
    pub(super) fn chat(&mut self, conn: ConnId, text: &str) {
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
}
