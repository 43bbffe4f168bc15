//! Watching: connections that follow another character's view (watchers, and the dead
//! following a friend), joining as a watcher, choosing whom to follow, and moving on when the
//! one followed leaves the party. A watcher is sent exactly what the one it follows sees.

use delve_protocol::{ErrorCode, ServerMsg, encode};
use tracing::info;

use super::{ConnId, DungeonTask, Outgoing, Outlet, Refusal};
use crate::game::{Dungeon, EntityId};
use crate::net::validate;

impl DungeonTask {
    /// The character called `name` (ignoring case), the living first.
    /// The character called `name` among those in the party (the living, and the dead whose
    /// players are still here): only they can be watched.
    pub(super) fn find_player(&self, name: &str) -> Option<EntityId> {
        let name = name.to_lowercase();
        let mut found: Vec<_> = self
            .dungeon
            .players()
            .filter(|p| p.in_party() && p.name().to_lowercase() == name)
            .collect();
        found.sort_by_key(|p| (!p.alive(), p.id()));
        found.first().map(|p| p.id())
    }

    /// Refuses a new name that would pass for one in the dungeon without being it (see
    /// [`validate::looks_alike`]): a character's that holds its name (in the party, or fallen and
    /// still revivable), or anyone's connected.
    pub(super) fn refuse_look_alike(&self, name: &str) -> Result<(), Refusal> {
        let party = (self.dungeon.players())
            .filter(|p| self.dungeon.holds_name(p))
            .map(|p| p.name());
        let connected = self.sessions.values().map(|s| s.name.as_str());
        match party
            .chain(connected)
            .find(|other| validate::looks_alike(name, other))
        {
            Some(other) => Err((
                ErrorCode::NameTaken,
                format!(
                    "{name} looks the same as {other}, who is in dungeon {}; pick another name.",
                    self.name
                ),
            )),
            None => Ok(()),
        }
    }

    pub(super) fn join_watching(
        &mut self,
        name: String,
        target: &str,
        conn: ConnId,
        out: Outlet,
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
        self.refuse_look_alike(&name)?;
        let watched = self
            .dungeon
            .player(subject)
            .map(|p| p.name().to_owned())
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
            s.set_baseline(view);
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

    /// Follows the view of the player called `name`, or one's own again. For the dead and for
    /// watchers only: the living play.
    pub(super) fn follow(&mut self, conn: ConnId, name: Option<&str>) {
        let Some(s) = self.sessions.get(&conn) else {
            return;
        };
        let own = s.player;
        if own.is_some_and(|id| {
            self.dungeon
                .player(id)
                .is_some_and(|p| p.alive() && !p.victory())
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
            .map(|p| p.name().to_owned());
        if let Some(s) = self.sessions.get_mut(&conn) {
            s.watching = target;
            s.send(&ServerMsg::Watching { name: shown });
        }
        self.send_snapshot(conn);
        self.send_turn_status_to(conn);
        // The watcher list changed.
        self.announce(None, "", 0, &[], Vec::new());
    }

    /// Sessions whose subject left the party (its player left after it died, or it died while
    /// its player was away) follow someone else: a dead player its own ghost again, a watcher
    /// the first living player. A watcher with nobody left to watch is told so and closed.
    pub(super) fn retarget_watchers(&mut self) {
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
            .map(|p| (!p.alive() || p.victory(), p.id(), p.name().to_owned()))
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
                .map(|p| p.name().to_owned())
                .unwrap_or_default();
            let (target, shown) = match (s.player, &next) {
                (Some(_), _) => (None, None),
                (None, Some((id, name))) => (Some(*id), Some(name.clone())),
                (None, None) => {
                    info!(dungeon = %self.name, watcher = %s.name, "nobody left to watch");
                    s.error(
                        ErrorCode::NoSuchPlayer,
                        format!("{gone} has left, and nobody is left to watch."),
                        None,
                    );
                    s.close(delve_protocol::close::NORMAL, "nobody left to watch");
                    self.sessions.remove(&conn);
                    continue;
                }
            };
            s.watching = target;
            s.send(&ServerMsg::Watching { name: shown });
            self.send_snapshot(conn);
            self.send_turn_status_to(conn);
        }
        // The watcher list changed.
        self.announce(None, "", 0, &[], Vec::new());
    }
    /// The players brought back in `events` play again: whoever of them followed a friend's
    /// view while fallen gets its own back (a snapshot, before the turn's update).
    pub(super) fn own_view_again(&mut self, events: &[crate::game::Event]) {
        let revived = |id: EntityId| {
            (events.iter())
                .any(|e| matches!(e, crate::game::Event::Revived { id: r, .. } if *r == id))
        };
        let back: Vec<ConnId> = (self.sessions.iter())
            .filter(|(_, s)| s.watching.is_some() && s.player.is_some_and(revived))
            .map(|(c, _)| *c)
            .collect();
        for &conn in &back {
            if let Some(s) = self.sessions.get_mut(&conn) {
                s.watching = None;
                s.send(&ServerMsg::Watching { name: None });
            }
            self.send_snapshot(conn);
            self.send_turn_status_to(conn);
        }
        if !back.is_empty() {
            // The watcher list changed.
            self.announce(None, "", 0, &[], Vec::new());
        }
    }
}
