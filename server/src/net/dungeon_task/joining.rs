//! Players coming and going: joining (new, resumed by token, or taking over from an older
//! connection), disconnecting, the grace period's end, and starting again after a death. The
//! tokens themselves are the [`Roster`](super::roster::Roster)'s.

use delve_protocol::{ErrorCode, Event as ProtoEvent, encode};
use std::net::IpAddr;

use tokio::time::Instant;
use tracing::{debug, error, info};

use super::outbox::Everyone;
use super::{ConnId, DungeonTask, Outgoing, Outlet, Refusal};
use crate::game::{EntityId, Event, Input, JoinError, Outcome, Refusal as EngineRefusal};
use crate::net::limits::in_words;
use crate::net::ops::Cut;
use crate::net::validate::new_token;
use crate::view::{events_for, input_refusal};

impl DungeonTask {
    /// Keeps `token` as the resume token of character `id`, and in the database (waiting for
    /// the write: the player is about to be told the token).
    pub(super) async fn remember_token(&mut self, id: EntityId, token: String) {
        let hash = self.roster.keep(id, token);
        let origin = self
            .whereabouts
            .get(&id)
            .and_then(|w| w.origin)
            .map(|ip| ip.to_string());
        if let (Some(j), Some(p)) = (self.dungeon.journal(), self.dungeon.player(id)) {
            // Called right after the entry that made the character: its journal is kept from
            // there until its game is recorded.
            let ack = j.store.put_new_character(
                j.dungeon,
                id,
                p.name().to_owned(),
                hash,
                origin,
                Some(j.seq),
            );
            if let Err(e) = ack.await {
                error!(dungeon = %self.name, player = id, error = %e, "cannot store a character");
            }
        }
    }

    /// Forgets a character's row in the database (its player goes on as a new one).
    pub(super) fn forget_character(&self, id: EntityId) {
        if let Some(j) = self.dungeon.journal() {
            drop(j.store.delete_character(j.dungeon, id));
        }
    }

    /// The character connection `conn` plays, if any.
    pub(super) async fn join(
        &mut self,
        name: String,
        token: Option<String>,
        from: IpAddr,
        conn: ConnId,
        out: Outlet,
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
                let found = self.roster.find(&t);
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
                    old.error(
                        ErrorCode::Replaced,
                        "This character was taken over by a newer connection.".into(),
                        None,
                    );
                    old.close(
                        delve_protocol::close::REPLACED,
                        "replaced by a newer connection",
                    );
                }
                // Back in time, or lifted out and now returning.
                self.lifts.remove(&player);
                let events = self
                    .dungeon
                    .step(Input::Return { id: player }, &mut Everyone(&self.sessions))
                    .await
                    .map(|done| done.events)
                    .unwrap_or_default();
                self.roster.shown(player, t.clone());
                (player, t, events, true, old.is_some())
            }
            None => {
                let (player, token, events) = self.make_character(name, from, online).await?;
                (player, token, events, false, false)
            }
        };
        // Connected before its first view is made, so its own party entry says so.
        self.set_connected(player, true).await;
        let Some(view) = self.view_for(player) else {
            self.set_connected(player, false).await;
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
            self.set_connected(player, false).await;
            return Err((
                ErrorCode::Internal,
                "The connection closed while joining.".into(),
            ));
        }
        let name = self
            .dungeon
            .player(player)
            .map(|p| p.name().to_owned())
            .unwrap_or_default();
        self.sessions.insert(
            conn,
            self.new_session(out, Some(player), None, name.clone(), view),
        );
        self.refresh_online();
        if resumed {
            self.seen(player);
        }
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

    /// Makes a new character called `name` for a player from `from`, if every rule allows it.
    /// Each check that can refuse comes before anything is spent: the address's budget is
    /// taken only once the character is made (five hellos with a taken name spend nothing), and
    /// room is made only for a character that may be made.
    async fn make_character(
        &mut self,
        name: String,
        from: IpAddr,
        online: usize,
    ) -> Result<(EntityId, String, Vec<crate::game::Event>), Refusal> {
        if online >= self.config.max_players_per_dungeon {
            self.ops.cut(Cut::DungeonFull, Some(from));
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
        self.refuse_look_alike(&name)?;
        // The engine would refuse it too, but only after the budget was spent.
        if (self.dungeon.players())
            .any(|p| self.dungeon.holds_name(p) && p.name().to_lowercase() == lower)
        {
            let taken = EngineRefusal::Join(JoinError::NameTaken(name));
            return Err((ErrorCode::NameTaken, input_refusal(&taken)));
        }
        if let Err(wait) = self.new_characters.wait(from) {
            debug!(dungeon = %self.name, "refused: too many new characters from one address");
            self.ops.cut(Cut::NewCharacterLimit, Some(from));
            return Err((
                ErrorCode::RateLimited,
                format!(
                    "Too many new characters from your address in dungeon {}; \
                     the next one can be made in {}. Resume yours with its token.",
                    self.name,
                    in_words(wait)
                ),
            ));
        }
        if !self.make_room().await {
            self.ops.cut(Cut::DungeonFull, Some(from));
            return Err((
                ErrorCode::DungeonFull,
                format!("Dungeon {} has no room for another character.", self.name),
            ));
        }
        let done = self
            .dungeon
            .step(
                Input::Join { name: name.clone() },
                &mut Everyone(&self.sessions),
            )
            .await
            .map_err(|e| match &e {
                EngineRefusal::Join(JoinError::NameTaken(_)) => {
                    (ErrorCode::NameTaken, input_refusal(&e))
                }
                EngineRefusal::Join(JoinError::NoRoom) => {
                    (ErrorCode::DungeonFull, input_refusal(&e))
                }
                _ => (ErrorCode::Internal, input_refusal(&e)),
            })?;
        let Some(player) = done.character else {
            return Err((ErrorCode::Internal, "No character was made.".into()));
        };
        // The one place the budget is spent: a character was made.
        let _ = self.new_characters.take(from);
        self.made_from(player, from);
        let token = new_token();
        self.remember_token(player, token.clone()).await;
        self.unplayed.insert(player);
        Ok((player, token, done.events))
    }

    pub(super) async fn disconnect(&mut self, conn: ConnId) {
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
        self.set_connected(player, false).await;
        self.seen(player);
        let alive = self
            .dungeon
            .player(player)
            .is_some_and(|p| p.alive() && !p.victory());
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
        self.check_floor(self.depth_of(player)).await;
    }

    /// The player of connection `conn` sent something: if it was away, it is back, and its
    /// floor waits for it again (journaled, so a replay comes back when this did).
    pub(super) async fn heard_from(&mut self, conn: ConnId) {
        let Some(id) = self.player_of(conn) else {
            return;
        };
        if !self.dungeon.party().is_away(id) {
            return;
        }
        let Ok(done) = self
            .dungeon
            .step(Input::Back { id }, &mut Everyone(&self.sessions))
            .await
        else {
            return;
        };
        debug!(dungeon = %self.name, player = id, "back from away");
        let depth = self.depth_of(id);
        self.send_views(depth, depth, &done.events, false);
        // Everyone else sees the party panel change.
        let others: Vec<ConnId> = (self.sessions.iter())
            .filter(|(_, s)| s.subject().is_none_or(|w| self.depth_of(w) != depth))
            .map(|(c, _)| *c)
            .collect();
        for c in others {
            self.push_view(c, Vec::new(), false);
        }
        self.send_turn_status(depth);
    }

    /// The grace period of a disconnected character ended: it leaves its floor until its player
    /// comes back, or, never played, it is forgotten.
    pub(super) async fn lift(&mut self, id: EntityId) {
        if self.conn_of(id).is_some() {
            return;
        }
        let depth = self.depth_of(id);
        if self.unplayed.remove(&id) {
            let forgotten = self
                .dungeon
                .step(Input::Forget { id }, &mut Everyone(&self.sessions))
                .await;
            if let Ok(done) = forgotten {
                self.roster.forget(id);
                self.forget_character(id);
                info!(dungeon = %self.name, player = id, "character never played; forgotten after the grace period");
                self.send_views(depth, depth, &done.events, false);
                self.check_floor(depth).await;
                return;
            }
        }
        let Ok(done) = self
            .dungeon
            .step(Input::Lift { id }, &mut Everyone(&self.sessions))
            .await
        else {
            return;
        };
        let events = done.events;
        info!(dungeon = %self.name, player = id, "character lifted out after the grace period");
        self.send_views(depth, depth, &events, false);
        self.check_floor(depth).await;
    }

    /// A dead character's player starts a new one: same connection, same name and token, a new
    /// id, and a welcome with its first view.
    pub(super) async fn new_character(&mut self, conn: ConnId, old: EntityId) {
        // A fallen character a friend could still have brought back: its game ends now.
        let owed = (self.dungeon.party().revivable_until(old).is_some())
            .then(|| self.ended_game(old))
            .flatten();
        let (id, events) = match self
            .dungeon
            .step(Input::NewCharacter { old }, &mut Everyone(&self.sessions))
            .await
        {
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
                let reason = match &e {
                    EngineRefusal::Join(j) => Some(j.reason()),
                    _ => None,
                };
                self.send(conn, code, input_refusal(&e), reason);
                return;
            }
        };
        if let Some(row) = owed.filter(|_| events.contains(&Event::BeyondHelp { id: old })) {
            self.record_game(old, row).await;
        }
        // The token belongs to the player, not the character: it now resumes the new one.
        let token = self.roster.hand_over(old);
        if let Some(w) = self.whereabouts.remove(&old) {
            self.whereabouts.insert(id, w);
        }
        self.forget_character(old);
        self.remember_token(id, token.clone()).await;
        // Whoever watched the old character follows the new one.
        for s in self.sessions.values_mut() {
            if s.watching == Some(old) {
                s.watching = Some(id);
                s.resend_whole();
            }
        }
        let Some(view) = self.view_for(id) else {
            return;
        };
        let welcome = self.welcome(id, Some(token), None, view.clone());
        let Some(s) = self.sessions.get_mut(&conn) else {
            return;
        };
        s.restart(id, &welcome, view);
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
}
