//! What each connection is sent: its subject's view (with the party panel and watchers) as a
//! diff against that connection's own baseline, a snapshot when it fell behind, the welcome, news
//! announced to everyone, and error frames.

use delve_protocol::{
    ErrorCode, Event as ProtoEvent, MessageKind, PartyMember, Reason, ServerMsg, Stat, StatGain,
    View,
};

use super::{ConnId, DungeonTask};
use crate::game::{Content, EntityId, Event};
use crate::view::{self, Spare, events_for};

thread_local! {
    /// The lists of the last view a session gave back on this thread, emptied: every player's
    /// view after every turn is built in them (see [`Spare`]).
    static SPARE: std::cell::Cell<Spare> = std::cell::Cell::default();
}

impl DungeonTask {
    /// Sends every connection following a character on floor `floor` its update for `events`,
    /// which happened on floor `depth`. `force` for a resolved turn: one update each, even if
    /// nothing changed.
    pub(super) fn send_views(&mut self, floor: u8, depth: u8, events: &[Event], force: bool) {
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
    pub(super) fn announce(
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
    pub(super) fn view_for(&self, id: EntityId) -> Option<View> {
        self.view_with(id, &view::party(&self.dungeon))
    }

    /// The view of `id`, with `party` (the dungeon's party panel, made once for all) and the
    /// watchers added.
    pub(super) fn view_with(&self, id: EntityId, party: &[PartyMember]) -> Option<View> {
        self.view_in(id, party, Spare::default())
    }

    /// [`Self::view_with`], built in the lists of `spare`.
    fn view_in(&self, id: EntityId, party: &[PartyMember], spare: Spare) -> Option<View> {
        let mut view = view::view_in(&self.dungeon, id, spare)?;
        view::set_party(party, &mut view);
        // Watchers, and dead players following a friend.
        let following = self
            .sessions
            .values()
            .filter_map(|s| Some((s.name.as_str(), s.watching?)));
        view::set_watchers(&self.dungeon, following, &mut view.watchers);
        Some(view)
    }

    /// Sends connection `conn` an update: its view's diff against that connection's baseline,
    /// plus `events`. A resolved turn always sends one (`force`: the turn number moves); news
    /// between turns only when there is something in it. A connection that fell behind gets a
    /// snapshot (or the welcome it still owes).
    pub(super) fn push_view(&mut self, conn: ConnId, events: Vec<ProtoEvent>, force: bool) {
        let party = view::party(&self.dungeon);
        self.push_view_with(conn, events, force, &party);
    }

    /// [`Self::push_view`] with the party panel made already.
    pub(super) fn push_view_with(
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
        // Built in the lists of a view this thread has no more use for; the session keeps it
        // and gives back the one it kept before, whose lists the next view is built in.
        let Some(view) = self.view_in(subject, party, SPARE.take()) else {
            return;
        };
        let welcome = match s.player {
            Some(id) if s.needs_welcome() => self
                .roster
                .token(id)
                .map(|t| self.welcome(id, Some(t.clone()), None, view.clone())),
            _ => None,
        };
        let Some(s) = self.sessions.get_mut(&conn) else {
            return;
        };
        let (pushed, spent) = s.push(conn, view, events, force, welcome);
        self.ops.metrics.updates.inc_by(pushed.queued);
        if pushed.fell_behind {
            self.ops.metrics.fell_behind.inc();
        }
        if let Some(spent) = spent {
            SPARE.set(Spare::from_view(spent));
        }
    }

    /// A whole view for connection `conn` (a resync), by the same path as a connection that
    /// fell behind: a snapshot, or the welcome it still owes.
    pub(super) fn send_snapshot(&mut self, conn: ConnId) {
        if let Some(s) = self.sessions.get_mut(&conn) {
            s.resend_whole();
        }
        self.push_view(conn, Vec::new(), true);
    }

    /// The welcome for a session on character `player`: who it is, how to come back, the rules
    /// the client needs, and the first view.
    pub(super) fn welcome(
        &self,
        player: EntityId,
        token: Option<String>,
        watching: Option<String>,
        view: View,
    ) -> ServerMsg {
        ServerMsg::Welcome {
            protocol_version: delve_protocol::PROTOCOL_VERSION,
            player_id: player,
            token,
            dungeon: self.name.clone(),
            turn_timeout_ms: self.config.turn_timeout.as_millis() as u64,
            level_up: level_up_gains(self.dungeon.content()),
            watching,
            seq: 0,
            view,
            descriptions: self.dungeon.content().descriptions(),
        }
    }

    pub(super) fn send_error(&self, conn: ConnId, code: ErrorCode, message: String) {
        self.send(conn, code, message, None);
    }

    /// An error frame for `conn`, with the rule that refused, if one did.
    pub(super) fn send(
        &self,
        conn: ConnId,
        code: ErrorCode,
        message: String,
        reason: Option<Reason>,
    ) {
        if let Some(s) = self.sessions.get(&conn) {
            s.error(code, message, reason);
        }
    }
}

/// What one stat point adds to each stat, for a welcome's level-up dialog.
pub(crate) fn level_up_gains(content: &Content) -> Vec<StatGain> {
    let u = &content.level_up;
    [
        (Stat::MaxHp, u.max_hp),
        (Stat::Attack, u.attack),
        (Stat::Defence, u.defence),
        (Stat::Sight, u.sight),
        (Stat::Save, u.save),
    ]
    .map(|(stat, amount)| StatGain { stat, amount })
    .to_vec()
}
