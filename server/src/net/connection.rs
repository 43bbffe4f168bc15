//! One task per WebSocket connection: the handshake, then forwarding intents to the dungeon and
//! frames from the dungeon to the socket.
//!
//! Everything a client sends is checked here before it reaches a dungeon: frame size (by the
//! WebSocket config), rate, JSON shape, message type, names. Each problem gets an error frame
//! with a stable code; only a version mismatch, an oversized message, a sustained flood or a
//! broken rule of the WebSocket protocol (closed with RFC 6455's code: 1002, or 1007 for text
//! that is not UTF-8) closes the connection.
//!
//! A joined connection is pinged every `ping_interval`; one that has sent nothing at all, not
//! even the pong, for two intervals is a dead link (Wi-Fi gone, a NAT that forgot it, a laptop
//! lid shut) and is dropped, so its character's grace period starts within about half a minute
//! instead of whenever the operating system gives up on the socket.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use delve_protocol::{
    ClientMsg, ErrorCode, MAX_PASSWORD_CHARS, PROTOCOL_VERSION, ServerMsg, decode_client,
};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::{Instant, timeout, timeout_at};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tracing::{debug, info, trace};

use crate::net::link::{LinkWriter, Refused};
use crate::net::outbox_queue;

use super::Shared;
use super::admission::{Slot, SlotRefused};
use super::dungeon_task::{Command, ConnId, Outgoing, Outlet};
use super::limits::RateLimiter;
use super::ops::Cut;
use super::registry::OpenError;
use super::validate::{check_dungeon, check_name, strip_invisible};
use super::wire::{
    SEND_DEADLINE, Ws, close, close_and_drain, close_gracefully, error, send, send_text,
    violation_code,
};

/// What a connection that had not joined yet is told when it gives its place to a newcomer on
/// a full server.
const GAVE_WAY: &str = "The server is full, and this connection had not joined a dungeon yet: it gave its place to a newcomer. Try again later.";

/// Dropped messages within [`FLOOD_WINDOW`] after which a connection is closed as a flood.
const FLOOD_LIMIT: u32 = 200;
const FLOOD_WINDOW: Duration = Duration::from_secs(10);

/// Serves one WebSocket (upgraded by [`super::web`]) until it closes or the server shuts down.
/// `deadline` is when a good hello must have arrived (counted from the TCP accept).
///
/// The future every connection holds for its whole life is kept small: the connection is made
/// here, before the future, and the future only borrows it (an `async fn` would keep its
/// arguments and the connection made from them, each a copy of the 300-byte socket); the
/// handshake's state is boxed and let go of once the player has joined.
pub fn serve(
    ws: Ws,
    peer: SocketAddr,
    shared: Arc<Shared>,
    slot: Result<Slot, SlotRefused>,
    shutdown: watch::Receiver<bool>,
    deadline: Instant,
) -> impl Future<Output = ()> + Send {
    let config = &shared.config;
    let mut c = match slot {
        Ok(slot) => Ok(Connection {
            ws,
            peer,
            conn: shared.next_conn.fetch_add(1, Ordering::Relaxed),
            shared: Arc::clone(&shared),
            limiter: RateLimiter::new(config.msgs_per_sec, config.msg_burst),
            dropped: 0,
            window_start: Instant::now(),
            last_rate_error: None,
            shutdown,
            slot,
            last_heard: Instant::now(),
            in_game: None,
        }),
        Err(why) => Err((ws, why)),
    };
    async move {
        let c = match &mut c {
            Ok(c) => c,
            Err((ws, why)) => return refuse(ws, *why).await,
        };
        debug!(%peer, conn = c.conn, "connection open");
        // (Boxed apart from its await: see `send`.)
        let handshake = Box::pin(c.handshake(deadline));
        if let Some(joined) = handshake.await {
            c.session(joined).await;
        }
        debug!(%peer, conn = c.conn, "connection closed");
    }
}

/// Tells a connection the server had no place for why, and closes it.
async fn refuse(ws: &mut Ws, why: SlotRefused) {
    let message = match why {
        SlotRefused::ServerFull => {
            "The server has as many connections as it allows. Try again later."
        }
        SlotRefused::AddressFull => {
            "Too many connections from your address. Close some and try again."
        }
    };
    let _ = send(ws, error(ErrorCode::ServerFull, message)).await;
    close_gracefully(ws, close::TRY_LATER, "server full").await;
}

/// A joined session: the dungeon it is in and the outbox the dungeon writes to. Which character
/// it drives is the dungeon's business (it changes when a dead player starts again).
struct Joined {
    dungeon: mpsc::Sender<Command>,
    outbox: outbox_queue::Receiver<Outgoing>,
    /// The dungeon's name: its games are in this connection's high-score table even when it
    /// is private.
    name: String,
}

pub(super) struct Connection {
    pub(super) ws: Ws,
    pub(super) peer: SocketAddr,
    conn: ConnId,
    pub(super) shared: Arc<Shared>,
    limiter: RateLimiter,
    dropped: u32,
    window_start: Instant,
    last_rate_error: Option<Instant>,
    pub(super) shutdown: watch::Receiver<bool>,
    /// Its place on the server: it gives way to a newcomer on a full server until it has
    /// joined (see `admission`).
    pub(super) slot: Slot,
    /// When the client last sent anything (a message, a pong, ...), for telling a dead link.
    last_heard: Instant,
    /// While it plays (its session's loop, which writes what waits for the socket): the link
    /// its answers and pings go through without waiting for the socket (see [`Self::reply`]).
    in_game: Option<LinkWriter>,
}

/// The fields of a `hello`.
struct Hello {
    version: u32,
    name: String,
    dungeon: String,
    token: Option<String>,
    password: Option<String>,
    watch: Option<String>,
}

/// What to do with one frame read from the socket.
pub(super) enum Incoming {
    Msg(ClientMsg),
    /// Handled here (an error was sent, or it was a ping/pong): read on.
    Skip,
    /// The connection is over.
    Stop,
}

impl Connection {
    /// Waits for a good `hello` and joins its dungeon. `None` if the connection ended first.
    /// Before that, `list_dungeons` may be asked any number of times (the lobby); each one
    /// grants another `handshake_timeout`, so a lobby screen that refreshes stays connected while
    /// a connection that says nothing is still dropped. The connection limits bound how many
    /// lobbies one address can hold open.
    async fn handshake(&mut self, mut deadline: Instant) -> Option<Joined> {
        loop {
            let next = tokio::select! {
                r = timeout_at(deadline, self.ws.next()) => r,
                _ = self.shutdown.changed() => {
                    self.shutting_down().await;
                    return None;
                }
                () = self.slot.evicted() => {
                    debug!(peer = %self.peer, "gave way to a newcomer before joining");
                    let _ = send(&mut self.ws, error(ErrorCode::ServerFull, GAVE_WAY)).await;
                    close_gracefully(&mut self.ws, close::TRY_LATER, "server full").await;
                    return None;
                }
            };
            let Ok(frame) = next else {
                self.shared
                    .ops
                    .cut(Cut::HandshakeTimeout, Some(self.peer.ip()));
                let _ = send(
                    &mut self.ws,
                    error(ErrorCode::BadHandshake, "No hello arrived in time."),
                )
                .await;
                close_gracefully(&mut self.ws, close::POLICY, "handshake timeout").await;
                return None;
            };
            let msg = match self.read(frame).await {
                Incoming::Msg(m) => m,
                Incoming::Skip => continue,
                Incoming::Stop => return None,
            };
            let hello = match msg {
                ClientMsg::ListDungeons => {
                    deadline = Instant::now() + self.shared.config.handshake_timeout;
                    let _ = send(
                        &mut self.ws,
                        ServerMsg::Dungeons {
                            dungeons: self.shared.dungeon_list().await,
                        },
                    )
                    .await;
                    continue;
                }
                ClientMsg::Scores { limit } => {
                    deadline = Instant::now() + self.shared.config.handshake_timeout;
                    let entries = self.shared.top_scores(limit, None).await;
                    let _ = send(&mut self.ws, ServerMsg::Scores { entries }).await;
                    continue;
                }
                ClientMsg::Replay {
                    game,
                    key,
                    password,
                } => {
                    deadline = Instant::now() + self.shared.config.handshake_timeout;
                    // Boxed, both: a replay's state (a replayer, the view shown) would otherwise
                    // be laid out in every connection's future, replaying or not.
                    match Box::pin(self.open_replay(game, key, password)).await {
                        Ok(replay) => {
                            // A replay is a connection like a joined one: it does not give way.
                            self.slot.established();
                            Box::pin(self.replay(replay)).await;
                            return None;
                        }
                        Err((code, message)) => {
                            let _ = send(&mut self.ws, error(code, &message)).await;
                            continue;
                        }
                    }
                }
                ClientMsg::Hello {
                    version,
                    name,
                    dungeon,
                    token,
                    password,
                    watch,
                } => Hello {
                    version,
                    name,
                    dungeon,
                    token,
                    // An empty password is no password: a client leaving the field blank
                    // must not make its dungeon private by accident.
                    password: password.filter(|p| !p.is_empty()),
                    watch,
                },
                _ => {
                    let _ = send(
                        &mut self.ws,
                        error(ErrorCode::BadHandshake, "Send a hello message first."),
                    )
                    .await;
                    continue;
                }
            };
            match self.try_join(hello).await {
                Ok(joined) => {
                    self.slot.established();
                    return Some(joined);
                }
                Err(Some((code, message))) => {
                    let _ = send(&mut self.ws, error(code, &message)).await;
                }
                Err(None) => return None,
            }
        }
    }

    /// Closes a connection whose address has run out of password tries for now.
    async fn shut_out(&mut self) -> Result<Joined, Option<(ErrorCode, String)>> {
        let cfg = &self.shared.config;
        let text = format!(
            "Too many wrong passwords from your address; you get a new try every {} s.",
            cfg.password_refill.as_secs().max(1)
        );
        self.shared
            .ops
            .cut(Cut::PasswordShutOut, Some(self.peer.ip()));
        let _ = send(&mut self.ws, error(ErrorCode::BadPassword, &text)).await;
        close_gracefully(&mut self.ws, close::POLICY, "too many wrong passwords").await;
        Err(None)
    }

    /// Checks a hello and joins its dungeon. `Err(Some(..))` is a refusal to send (the
    /// connection may try again); `Err(None)` means the connection was closed.
    async fn try_join(&mut self, h: Hello) -> Result<Joined, Option<(ErrorCode, String)>> {
        let refuse = |code, message: String| Err(Some((code, message)));
        if h.version != PROTOCOL_VERSION {
            let text = format!(
                "This client speaks protocol version {}, but this server speaks version {PROTOCOL_VERSION}. Update the one that is older.",
                h.version
            );
            info!(peer = %self.peer, version = h.version, "refused: protocol version mismatch");
            let _ = send(&mut self.ws, error(ErrorCode::BadVersion, &text)).await;
            close_gracefully(&mut self.ws, close::VERSION, "protocol version mismatch").await;
            return Err(None);
        }
        // A resuming client's name is ignored (the character keeps its own), so only a new
        // character's or a watcher's name is checked. A watcher's token means nothing.
        let resuming = h.token.is_some() && h.watch.is_none();
        if let (false, Err(why)) = (resuming, check_name(&h.name)) {
            return refuse(ErrorCode::BadName, why);
        }
        if let Err(why) = check_dungeon(&h.dungeon) {
            return refuse(ErrorCode::BadDungeon, why);
        }
        if h.password
            .as_ref()
            .is_some_and(|p| p.chars().count() > MAX_PASSWORD_CHARS)
        {
            return refuse(
                ErrorCode::BadPassword,
                format!("A password can be at most {MAX_PASSWORD_CHARS} characters."),
            );
        }
        let existing = match self.shared.registry.get(&h.dungeon) {
            Some(handle) => Some(handle),
            // Saved but not loaded: load it now.
            None => match self.shared.load_dungeon(&h.dungeon).await {
                Ok(found) => found,
                Err(e @ OpenError::Full) => {
                    self.shared.ops.cut(Cut::DungeonCap, Some(self.peer.ip()));
                    return refuse(ErrorCode::ServerFull, e.to_string());
                }
                Err(e) => return refuse(ErrorCode::Internal, e.to_string()),
            },
        };
        let (handle, made_here) = match existing {
            Some(handle) => (handle, false),
            // Resuming or watching never creates a dungeon.
            None if resuming => {
                return refuse(
                    ErrorCode::BadToken,
                    "That resume token matches no character in this dungeon.".into(),
                );
            }
            None if h.watch.is_some() => {
                return refuse(
                    ErrorCode::BadDungeon,
                    format!("No dungeon called {} is running.", h.dungeon),
                );
            }
            // Checked before hashing too, so a full server spends nothing on a password.
            None if self.shared.registry.len() >= self.shared.config.max_dungeons => {
                self.shared.ops.cut(Cut::DungeonCap, Some(self.peer.ip()));
                return refuse(ErrorCode::ServerFull, OpenError::Full.to_string());
            }
            None => {
                if let Err(wait) = self.shared.registry.may_create(self.peer.ip()) {
                    self.shared
                        .ops
                        .cut(Cut::NewDungeonLimit, Some(self.peer.ip()));
                    return refuse(ErrorCode::RateLimited, OpenError::TooMany(wait).to_string());
                }
                let hash = match &h.password {
                    Some(p) => match self.shared.hasher.hash(p.clone()).await {
                        Some(hash) => Some(hash),
                        None => {
                            return refuse(
                                ErrorCode::Internal,
                                "The password could not be stored.".into(),
                            );
                        }
                    },
                    None => None,
                };
                match self
                    .shared
                    .open_dungeon(&h.dungeon, hash, self.peer.ip())
                    .await
                {
                    Ok(made) => made,
                    Err(e @ OpenError::Full) => {
                        self.shared.ops.cut(Cut::DungeonCap, Some(self.peer.ip()));
                        return refuse(ErrorCode::ServerFull, e.to_string());
                    }
                    Err(e @ OpenError::TooMany(_)) => {
                        self.shared
                            .ops
                            .cut(Cut::NewDungeonLimit, Some(self.peer.ip()));
                        return refuse(ErrorCode::RateLimited, e.to_string());
                    }
                    Err(e) => return refuse(ErrorCode::Internal, e.to_string()),
                }
            }
        };
        // A private dungeon checks its password before anyone joins. Resuming skips it: the
        // dungeon itself then checks the token, so only a real one gets in. Watching never does.
        if let Some(stored) = handle.password.clone().filter(|_| !made_here && !resuming) {
            let Some(given) = h.password.clone() else {
                return refuse(
                    ErrorCode::BadPassword,
                    format!("Dungeon {} is private: give its password.", handle.name),
                );
            };
            let ip = self.peer.ip();
            let guard = &self.shared.password_guard;
            if !guard.reserve(ip) {
                debug!(peer = %self.peer, dungeon = %handle.name, "refused: too many wrong passwords lately");
                return self.shut_out().await;
            }
            if !self.shared.hasher.verify(stored, given).await {
                info!(peer = %self.peer, dungeon = %handle.name, "wrong dungeon password");
                if !guard.has_tries(ip) {
                    return self.shut_out().await;
                }
                return refuse(
                    ErrorCode::BadPassword,
                    format!("Wrong password for dungeon {}.", handle.name),
                );
            }
        }
        // The outbox carries the dungeon's close; its frames go straight to the socket (a
        // client that falls behind is bounded there, by `link::MAX_WAITING_BYTES`).
        let (queue, outbox) = outbox_queue::queue(1);
        let out = Outlet::new(queue, Some(self.ws.get_ref().writer()));
        let (reply, answer) = oneshot::channel();
        let conn = self.conn;
        let cmd = match h.watch {
            Some(target) => Command::JoinWatching {
                name: h.name,
                target,
                conn,
                out,
                reply,
            },
            None => Command::Join {
                name: h.name,
                token: h.token,
                from: self.peer.ip(),
                conn,
                out,
                reply,
            },
        };
        if handle.tx.send(cmd).await.is_err() {
            return refuse(
                ErrorCode::Internal,
                "That dungeon is not running; try again.".into(),
            );
        }
        match answer.await {
            Ok(Ok(player)) => {
                info!(peer = %self.peer, conn, dungeon = %handle.name, player, "joined");
                Ok(Joined {
                    dungeon: handle.tx,
                    outbox,
                    name: handle.name,
                })
            }
            Ok(Err(refusal)) => Err(Some(refusal)),
            Err(_) => refuse(
                ErrorCode::Internal,
                "The dungeon stopped while joining.".into(),
            ),
        }
    }

    /// Forwards intents to the dungeon and the dungeon's frames to the socket.
    async fn session(&mut self, mut joined: Joined) {
        let conn = self.conn;
        // One wait for the shutdown for the whole session, rather than one made and dropped at
        // every turn of the loop (each is an entry in a list every connection shares).
        let mut shutdown = self.shutdown.clone();
        let stopping = shutdown.changed();
        tokio::pin!(stopping);
        let ping_every = self.shared.config.ping_interval;
        let ping = tokio::time::sleep(ping_every);
        tokio::pin!(ping);
        // What the dungeon wrote and the socket could not take at once waits here.
        let link = self.ws.get_ref().writer();
        self.in_game = Some(link.clone());
        // While bytes wait, they are written as the socket takes them and the client's messages
        // are still read (a player whose link is slow for a moment still acts); the send
        // deadline runs from when they began to wait until nothing does.
        let stuck = tokio::time::sleep(SEND_DEADLINE);
        tokio::pin!(stuck);
        let mut draining = false;
        loop {
            let waiting = link.is_waiting();
            if waiting && !draining {
                stuck.as_mut().reset(Instant::now() + SEND_DEADLINE);
            }
            draining = waiting;
            tokio::select! {
                // Wakes the loop when bytes begin to wait.
                () = link.has_waiting(), if !draining => {}
                drained = link.drain(), if draining => {
                    if drained.is_err() {
                        break;
                    }
                }
                () = &mut stuck, if draining => {
                    info!(peer = %self.peer, "the client stopped reading; dropping its connection");
                    break;
                }
                () = &mut ping => {
                    if !self.keep_alive(ping_every).await {
                        break;
                    }
                    ping.as_mut().reset(Instant::now() + ping_every);
                }
                frame = self.ws.next() => {
                    let msg = match self.read(frame).await {
                        Incoming::Msg(m) => m,
                        Incoming::Skip => continue,
                        Incoming::Stop => break,
                    };
                    let cmd = match msg {
                        ClientMsg::Act(action) => Command::Act { conn, action },
                        ClientMsg::LevelUp { stat } => Command::LevelUp { conn, stat },
                        ClientMsg::NewCharacter => Command::NewCharacter { conn },
                        ClientMsg::Chat { text } => {
                            // No bidirectional overrides or invisible characters reach other players.
                            Command::Chat { conn, text: strip_invisible(&text) }
                        }
                        ClientMsg::Watch { name } => Command::Follow { conn, name },
                        ClientMsg::ListDungeons => {
                            let dungeons = self.shared.dungeon_list().await;
                            self.reply(ServerMsg::Dungeons { dungeons }).await;
                            continue;
                        }
                        ClientMsg::Scores { limit } => {
                            let entries = self.shared.top_scores(limit, Some(joined.name.clone())).await;
                            self.reply(ServerMsg::Scores { entries }).await;
                            continue;
                        }
                        ClientMsg::Resync => Command::Resync { conn },
                        ClientMsg::Mark { at } => Command::Mark { conn, at },
                        ClientMsg::Hello { .. } => {
                            self.reply(error(ErrorCode::BadHandshake, "Already joined; hello is only sent once per connection.")).await;
                            continue;
                        }
                        ClientMsg::Replay { .. } => {
                            self.reply(error(ErrorCode::BadHandshake, "Already joined; a replay is asked for instead of a hello, on a connection of its own.")).await;
                            continue;
                        }
                        ClientMsg::Seek { .. } => {
                            self.reply(error(ErrorCode::BadHandshake, "Seek is for replays: this connection plays a game.")).await;
                            continue;
                        }
                    };
                    // Straight into the queue when it has room, as it nearly always has; a
                    // busy dungeon's wait for room is boxed (it would widen every idle
                    // connection's future by the command and the wait's state).
                    let sent = match joined.dungeon.try_send(cmd) {
                        Ok(()) => true,
                        Err(mpsc::error::TrySendError::Full(cmd)) => {
                            let send = Box::pin(joined.dungeon.send(cmd));
                            send.await.is_ok()
                        }
                        Err(mpsc::error::TrySendError::Closed(_)) => false,
                    };
                    if !sent {
                        close_gracefully(&mut self.ws, close::INTERNAL, "dungeon stopped").await;
                        break;
                    }
                }
                out = joined.outbox.recv() => match out {
                    Some(out) => {
                        if !self.write_outbox(out, &link).await {
                            break;
                        }
                    }
                    // The dungeon dropped this session without a word: its task ended.
                    None => {
                        close_gracefully(&mut self.ws, close::INTERNAL, "dungeon stopped").await;
                        break;
                    }
                },
                _ = &mut stopping => {
                    self.shutting_down().await;
                    break;
                }
            }
        }
        // Nothing drains what waits from here on: writes wait for the socket again.
        self.in_game = None;
        // Bounded too: a dungeon waiting for storage takes no commands meanwhile.
        // Boxed, as the session's other rare waits are.
        let disconnect = Box::pin(timeout(
            SEND_DEADLINE,
            joined.dungeon.send(Command::Disconnect { conn }),
        ));
        let _ = disconnect.await;
    }

    /// What the dungeon put in the outbox: its close, written after every frame it wrote.
    /// (Frames come this way only from an outlet without a link, which a connection never
    /// makes; one would be written behind the others all the same.) `false` when the
    /// connection is over.
    async fn write_outbox(&mut self, out: Outgoing, link: &LinkWriter) -> bool {
        match out {
            Outgoing::Frame(text) => match link.write_text(text.as_bytes()) {
                Ok(()) => true,
                Err(Refused::Closed) => false,
                // Dropped as the dungeon's own frames are when the client is this far behind.
                Err(Refused::Full) => true,
            },
            Outgoing::Close { code, reason } => {
                close_gracefully(&mut self.ws, code, &reason).await;
                false
            }
        }
    }

    /// Answers the client: an error, the lobby's list, the scores. In a game the answer goes
    /// behind the dungeon's frames without waiting for the socket: what the socket has not
    /// taken yet waits for the session loop's own drain, under its send deadline, so a player
    /// whose link is slow for a moment is still read meanwhile. Only a backlog past even the
    /// room answers have waits, bounded, as every write through tungstenite does.
    ///
    /// A plain function that encodes at once and returns the wait: see [`send`] for why the
    /// message is taken by value.
    pub(super) fn reply(&mut self, msg: ServerMsg) -> impl Future<Output = ()> + Send + '_ {
        let text = delve_protocol::encode(&msg);
        let queued = match self
            .in_game
            .as_ref()
            .map(|link| link.write_answer(text.as_bytes()))
        {
            // Closed: the dungeon closed the session, and its close is on the way.
            Some(Ok(()) | Err(Refused::Closed)) => true,
            Some(Err(Refused::Full)) | None => false,
        };
        async move {
            if !queued {
                let _ = send_text(&mut self.ws, text).await;
            }
        }
    }

    /// Pings the client, unless it has been silent for two pings already: then the link is
    /// dead and `false` ends the connection (no close handshake: nobody would answer it).
    /// A client heard from within the last half interval is not pinged: what it sent shows
    /// the link is alive (a player acting sends several messages a second, and a ping and its
    /// pong cost the server about what an update does). A quiet one is pinged at every tick,
    /// so its pongs keep it from ever being silent for two intervals. In a game the ping goes
    /// behind the dungeon's frames without waiting for the socket, as answers do.
    pub(super) async fn keep_alive(&mut self, ping_every: Duration) -> bool {
        let silent = self.last_heard.elapsed();
        if silent >= ping_every * 2 {
            debug!(peer = %self.peer, silent_ms = silent.as_millis() as u64, "dead link: no answer to pings");
            self.shared.ops.cut(Cut::DeadLink, Some(self.peer.ip()));
            return false;
        }
        if silent < ping_every / 2 {
            return true;
        }
        match self.in_game.as_ref().map(LinkWriter::write_ping) {
            // Closed: the dungeon's close is on its way through the outbox, or the socket is
            // gone and the next read says so; either ends the session properly.
            Some(Ok(()) | Err(Refused::Closed)) => return true,
            Some(Err(Refused::Full)) | None => {}
        }
        // Bounded like every write: a client that stops reading is gone too. Boxed: outside a
        // game's link this is rare, and inline it would widen every connection's future.
        matches!(
            Box::pin(timeout(
                SEND_DEADLINE,
                self.ws.send(Message::Ping(Default::default()))
            ))
            .await,
            Ok(Ok(()))
        )
    }

    /// Turns one read result into a message, answering problems on the spot.
    ///
    /// Only a text message within the rate is read inline. Everything else (a close, an error,
    /// a binary frame, a message over the rate) is rare and is handled in boxed futures: the
    /// waits of those paths would otherwise be laid out in every connection's future for its
    /// whole life (see [`send`]).
    pub(super) async fn read(&mut self, frame: Option<Result<Message, WsError>>) -> Incoming {
        if let Some(Ok(_)) = &frame {
            self.last_heard = Instant::now();
        }
        let text = match frame {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {
                return Incoming::Skip;
            }
            other => {
                let other = Box::pin(self.read_other(other));
                return other.await;
            }
        };
        // Its length only: the text may hold a password or a token, never logged.
        trace!(peer = %self.peer, len = text.len(), "text frame");
        if !self.limiter.allow() {
            let over = Box::pin(self.over_rate());
            return over.await;
        }
        // Only the answer's wait is kept across the await: the decoded result and the error
        // are let go of with this statement.
        let answer = match decode_client(text.as_str()) {
            Ok(m) => return Incoming::Msg(m),
            Err(e) => self.reply(error(e.code(), &e.sentence())),
        };
        answer.await;
        Incoming::Skip
    }

    /// [`Self::read`] for anything but a text message or a ping: the end of the connection,
    /// an error, or a binary frame.
    async fn read_other(&mut self, frame: Option<Result<Message, WsError>>) -> Incoming {
        match frame {
            Some(Ok(
                Message::Text(_) | Message::Ping(_) | Message::Pong(_) | Message::Frame(_),
            )) => Incoming::Skip,
            None | Some(Err(WsError::ConnectionClosed | WsError::AlreadyClosed)) => Incoming::Stop,
            Some(Err(WsError::Capacity(e))) => {
                // However the message came (one frame or many fragments), the client hears why
                // before the close, and the rest of what it sends is read and dropped so the
                // close is not lost to a reset.
                info!(peer = %self.peer, error = %e, "oversized message; closing (1009)");
                let _ = send(
                    &mut self.ws,
                    error(
                        ErrorCode::TooLarge,
                        &format!(
                            "Message too large ({e}); the limit is {} bytes.",
                            delve_protocol::MAX_CLIENT_FRAME
                        ),
                    ),
                )
                .await;
                close_and_drain(&mut self.ws, close::TOO_BIG, "message too large").await;
                Incoming::Stop
            }
            Some(Err(e)) => {
                if let Some(code) = violation_code(&e) {
                    // RFC 6455 §7.1.7: fail the connection with the code of the violation.
                    info!(peer = %self.peer, error = %e, code, "protocol violation; closing");
                    close_and_drain(&mut self.ws, code, "protocol violation").await;
                } else {
                    debug!(peer = %self.peer, error = %e, "read failed");
                }
                Incoming::Stop
            }
            Some(Ok(Message::Close(_))) => {
                // tungstenite answers the close frame itself; drain until the stream ends.
                Incoming::Stop
            }
            Some(Ok(Message::Binary(_))) => {
                if !self.limiter.allow() {
                    return self.over_rate().await;
                }
                self.reply(error(
                    ErrorCode::BinaryFrame,
                    "Binary frames are not part of the protocol; send JSON text frames.",
                ))
                .await;
                Incoming::Skip
            }
        }
    }

    /// A message came with no rate-limit token left: it is dropped, the client is told (at
    /// most once a second), and a sustained flood closes the connection.
    async fn over_rate(&mut self) -> Incoming {
        let now = Instant::now();
        if now.duration_since(self.window_start) > FLOOD_WINDOW {
            self.window_start = now;
            self.dropped = 0;
        }
        self.dropped += 1;
        if self
            .last_rate_error
            .is_none_or(|t| now.duration_since(t) >= Duration::from_secs(1))
        {
            self.last_rate_error = Some(now);
            let text = format!(
                "Too many messages: the limit is {} a second. Messages are being dropped.",
                self.shared.config.msgs_per_sec
            );
            self.reply(error(ErrorCode::RateLimited, &text)).await;
        }
        if self.dropped >= FLOOD_LIMIT {
            debug!(peer = %self.peer, "message flood; closing");
            self.shared.ops.cut(Cut::MessageFlood, Some(self.peer.ip()));
            close_gracefully(&mut self.ws, close::POLICY, "message flood").await;
            return Incoming::Stop;
        }
        Incoming::Skip
    }

    pub(super) async fn shutting_down(&mut self) {
        let _ = send(
            &mut self.ws,
            error(ErrorCode::ShuttingDown, "The server is shutting down."),
        )
        .await;
        close_gracefully(&mut self.ws, close::GOING_AWAY, "server shutting down").await;
    }
}

#[cfg(test)]
mod tests {
    use tokio::net::{TcpListener, TcpStream};
    use tokio_tungstenite::WebSocketStream;
    use tokio_tungstenite::tungstenite::protocol::Role;

    use super::*;
    use crate::net::config::ServerConfig;
    use crate::net::link::Link;

    /// The future a connection keeps for its whole life holds its socket and its session's
    /// loop, and nothing of its handshake or rare paths (see [`serve`]): 1,544 bytes when
    /// this was written, 4,416 before. An await laid out inline again (an unboxed handshake is
    /// 2.3 KB) costs every idle player that much; issue 27 holds idle memory to 2.5× an echo's.
    #[tokio::test]
    async fn a_connection_future_keeps_only_what_a_session_needs() {
        let server = super::super::Server::start(ServerConfig {
            bind: "127.0.0.1:0".parse().unwrap(),
            ..ServerConfig::default()
        })
        .await
        .unwrap();
        let shared = Arc::clone(&server.shared);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let _client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (stream, peer) = listener.accept().await.unwrap();
        let ws = WebSocketStream::from_raw_socket(Link::new(stream), Role::Server, None).await;
        let (_stop, shutdown) = watch::channel(false);
        // Not polled: its type, and so its size, is the same whatever the slot.
        let future = serve(
            ws,
            peer,
            shared,
            Err(SlotRefused::ServerFull),
            shutdown,
            Instant::now(),
        );
        let size = std::mem::size_of_val(&future);
        assert!(
            size <= 2048,
            "a connection's future is {size} bytes: something it awaits is laid out inline \
             (cargo +nightly rustc -p delve-server --lib --release -- -Zprint-type-sizes)"
        );
        drop(future);
        server.shutdown().await.unwrap();
    }
}
