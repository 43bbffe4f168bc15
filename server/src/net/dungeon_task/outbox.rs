//! Each connection's outlet and everything about what it was sent: the way to its socket
//! (written straight, see [`crate::net::link`]), the baseline its diffs are computed against,
//! the sequence numbers, and whether it fell behind. The dungeon task decides *what* a
//! connection should see; this module decides how it gets there (a diff, or a snapshot when
//! the baseline cannot be trusted) without ever waiting on a socket.

use std::collections::HashMap;

use crate::net::outbox_queue::{self, TrySendError};
use delve_protocol::{ErrorCode, Event as ProtoEvent, Reason, ServerMsg, View, encode};
use tracing::debug;

use super::ConnId;
use crate::game::EntityId;
use crate::net::limits::RateLimiter;
use crate::net::link::{LinkWriter, Refused};
use crate::net::world::Stalls;

/// What the dungeon task hands a connection to write.
#[derive(Debug)]
pub enum Outgoing {
    /// An encoded JSON text frame.
    Frame(String),
    /// Close the socket with this code and reason (a `Box<str>`: this enum is the size of every
    /// slot of every connection's outbox).
    Close { code: u16, reason: Box<str> },
}

/// Where a connection's frames go: straight onto its socket, written by the dungeon task as
/// they are made (see [`crate::net::link`]); its closes go through its outbox, so that the
/// connection's task writes the close after every frame and then ends.
#[derive(Debug, Clone)]
pub struct Outlet {
    queue: outbox_queue::Sender<Outgoing>,
    /// `None` for a session with no socket (the dungeon task's own tests): its frames go
    /// through the outbox too.
    link: Option<LinkWriter>,
}

impl Outlet {
    pub fn new(queue: outbox_queue::Sender<Outgoing>, link: Option<LinkWriter>) -> Outlet {
        Outlet { queue, link }
    }

    /// Hands over `item` without waiting: `Full` when the client is not keeping up, `Closed`
    /// when the connection is over or closing.
    pub fn try_send(&self, item: Outgoing) -> Result<(), TrySendError<Outgoing>> {
        let Some(link) = &self.link else {
            return self.queue.try_send(item);
        };
        match item {
            Outgoing::Frame(text) => link.write_text(text.as_bytes()).map_err(|why| {
                let item = Outgoing::Frame(text);
                match why {
                    Refused::Full => TrySendError::Full(item),
                    Refused::Closed => TrySendError::Closed(item),
                }
            }),
            close @ Outgoing::Close { .. } => {
                // No frame may follow the close.
                link.shut();
                self.queue.try_send(close)
            }
        }
    }
}

/// What [`Session::push`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Pushed {
    /// View messages queued.
    pub queued: u64,
    /// The connection's backlog was full for this update, and was not for the one before.
    pub fell_behind: bool,
}

/// One connection in the dungeon.
pub(super) struct Session {
    out: Outlet,
    /// The character this connection plays; `None` for a watcher.
    pub player: Option<EntityId>,
    /// The character whose view it follows instead of its own, if any.
    pub watching: Option<EntityId>,
    /// Shown in chat and in the watcher list.
    pub name: String,
    /// The last view this connection was sent: diffs are computed against it. Kept trimmed and
    /// boxed (see [`Session::keep`]), so an idle connection holds what its client was shown and
    /// no spare capacity; its map shares the character's memory until either changes.
    baseline: Option<Box<View>>,
    /// Sequence number of the last view message sent.
    seq: u64,
    /// Frames were dropped because the outbox was full, or the next update must be whole for
    /// another reason (see `resend_whole`); send a snapshot when there is room.
    behind: bool,
    /// The last view frame offered was refused for a full backlog. Apart from `behind`, which
    /// a resync sets too, so that a backlog filling just after one is still told
    /// (`delve_fell_behind_total`, the log).
    backlog_full: bool,
    /// The welcome of a new character could not be queued: send it instead of the next
    /// snapshot, so the client learns its new id.
    needs_welcome: bool,
    chat: RateLimiter,
}

impl Session {
    /// A session whose client was just sent `view` (in its welcome).
    pub fn new(
        out: Outlet,
        player: Option<EntityId>,
        watching: Option<EntityId>,
        name: String,
        view: View,
        chat: RateLimiter,
    ) -> Session {
        let mut session = Session {
            out,
            player,
            watching,
            name,
            baseline: None,
            seq: 0,
            behind: false,
            backlog_full: false,
            needs_welcome: false,
            chat,
        };
        session.keep(view);
        session
    }

    /// The character whose view this connection is sent.
    pub fn subject(&self) -> Option<EntityId> {
        self.watching.or(self.player)
    }

    /// Whether the session owes its client a welcome (for the character it plays now).
    pub fn needs_welcome(&self) -> bool {
        self.needs_welcome
    }

    /// The next update must be a whole view (its subject changed, or the client asked).
    pub fn resend_whole(&mut self) {
        self.behind = true;
    }

    /// The client was sent `view` by other means (a welcome): diffs continue from it.
    pub fn set_baseline(&mut self, view: View) {
        self.keep(view);
    }

    /// Queues a frame; `false` if the outbox is full or closed. Advisory frames (turn status,
    /// `watching`) may be lost this way: the next update supersedes them.
    pub fn send(&self, msg: &ServerMsg) -> bool {
        self.out.try_send(Outgoing::Frame(encode(msg))).is_ok()
    }

    /// Queues an encoded frame, as [`Session::send`].
    pub fn send_encoded(&self, frame: String) -> bool {
        self.out.try_send(Outgoing::Frame(frame)).is_ok()
    }

    /// Queues an error frame.
    pub fn error(&self, code: ErrorCode, message: String, reason: Option<Reason>) {
        self.send(&ServerMsg::Error {
            code,
            message,
            reason,
        });
    }

    /// Asks the connection to close its socket.
    pub fn close(&self, code: u16, reason: &str) {
        let reason = reason.into();
        let _ = self.out.try_send(Outgoing::Close { code, reason });
    }

    /// Starts over on a new character after `welcome` (carrying `view`): numbering restarts at
    /// 0, and a welcome that could not be queued is owed until there is room.
    pub fn restart(&mut self, player: EntityId, welcome: &ServerMsg, view: View) {
        let delivered = self.send(welcome);
        self.player = Some(player);
        self.watching = None;
        self.keep(view);
        self.seq = 0;
        self.behind = !delivered;
        self.needs_welcome = !delivered;
    }

    /// Sends the client `view` with `events`: a diff against its baseline, or a whole view when
    /// the baseline cannot be trusted (another floor, another subject, the connection fell
    /// behind); `welcome` stands in for that whole view when one is owed. A resolved turn
    /// always sends one (`force`: the turn number moves); news between turns only when there
    /// is something in it. Says how many view messages it queued, and whether the backlog
    /// filled up with this one (for the metrics); and gives back the view it has no more use
    /// for (the baseline `view` replaced, or `view` itself), whose lists the next view can be
    /// built in.
    pub fn push(
        &mut self,
        conn: ConnId,
        view: View,
        mut events: Vec<ProtoEvent>,
        force: bool,
        welcome: Option<ServerMsg>,
    ) -> (Pushed, Option<View>) {
        delve_protocol::event::trim_moves(&mut events, &view);
        let diff = match (&self.baseline, self.behind) {
            (Some(base), false) => base.diff(&view),
            _ => None,
        };
        if !force && events.is_empty() && diff.as_ref().is_some_and(|d| d.is_empty()) {
            return (Pushed::default(), Some(view));
        }
        // A whole view goes first; the events then follow in an update of their own, so no
        // log line is lost. Each frame is kept with its sequence number. (At most two frames:
        // held in place rather than in a list, as this runs for every player after every turn.)
        let turn = view.turn;
        let update = |seq, diff, events| {
            let msg = ServerMsg::Update {
                seq,
                turn,
                diff,
                events,
            };
            (seq, msg)
        };
        let (first, second) = match diff {
            Some(diff) => (update(self.seq + 1, diff, events), None),
            None => {
                let first = match welcome {
                    // A welcome restarts the numbering at 0.
                    Some(w) => (0, w),
                    None => {
                        let seq = self.seq + 1;
                        let view = view.clone();
                        (seq, ServerMsg::Snapshot { seq, view })
                    }
                };
                let second =
                    (!events.is_empty()).then(|| update(first.0 + 1, Default::default(), events));
                (first, second)
            }
        };
        let last = second.as_ref().map_or(first.0, |(seq, _)| *seq);
        let mut last_sent = None;
        let mut pushed = Pushed::default();
        for (seq, f) in std::iter::once(&first).chain(second.as_ref()) {
            match self.out.try_send(Outgoing::Frame(encode(f))) {
                Ok(()) => {
                    last_sent = Some(*seq);
                    pushed.queued += 1;
                    self.backlog_full = false;
                }
                Err(TrySendError::Full(_)) => {
                    if !self.backlog_full {
                        debug!(conn, "connection fell behind; will resend a snapshot");
                        pushed.fell_behind = true;
                    }
                    self.backlog_full = true;
                    self.behind = true;
                    break;
                }
                // The connection is closing; its Disconnect is on the way.
                Err(TrySendError::Closed(_)) => break,
            }
        }
        let Some(seq) = last_sent else {
            return (pushed, Some(view));
        };
        // The first frame carries the new view; a lost second frame only loses log lines.
        self.seq = seq;
        let spent = self.keep(view);
        self.needs_welcome = false;
        if seq == last {
            self.behind = false;
        }
        (pushed, spent)
    }

    /// Makes `view` the baseline (it is kept until the next update), in the box the last one
    /// was kept in, and gives back the last one. The first is trimmed of spare room: a session
    /// that is never sent an update keeps it as long as it lasts. Later ones keep the room
    /// their lists were built with, as they pass from session to session (see `Spare`).
    fn keep(&mut self, mut view: View) -> Option<View> {
        match &mut self.baseline {
            Some(kept) => Some(std::mem::replace(&mut **kept, view)),
            None => {
                view.shrink_to_fit();
                self.baseline = Some(Box::new(view));
                None
            }
        }
    }

    /// A chat line is allowed now by this session's chat budget.
    pub fn may_chat(&mut self) -> bool {
        self.chat.allow()
    }
}

/// Every session of a dungeon, told when the dungeon waits for storage and when it goes on.
pub(super) struct Everyone<'a>(pub &'a HashMap<ConnId, Session>);

impl Stalls for Everyone<'_> {
    fn paused(&mut self, why: &str) {
        self.tell(true, why);
    }

    fn resumed(&mut self) {
        self.tell(false, "The server can save again; the game goes on.");
    }
}

impl Everyone<'_> {
    fn tell(&self, paused: bool, message: &str) {
        let msg = ServerMsg::Pause {
            paused,
            message: message.to_owned(),
        };
        for s in self.0.values() {
            s.send(&msg);
        }
    }
}
