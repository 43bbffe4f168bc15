//! A connection that plays a finished game back instead of joining a dungeon: it sends
//! `replay` (the game's id, and its key or dungeon password for a private dungeon's) where a
//! `hello` would go, and then moves through the game with `seek`.
//!
//! The server answers with the same messages a player gets — a `welcome` with the character's
//! view at turn 0, an `update` (the diff and the turn's events) when the turn after the one
//! shown is asked for, a `snapshot` for any other — so the real client shows a replay with the
//! code it plays with. What is shown is [`Replayer::show`]'s: the character's own view at that
//! turn, never more. Replaying is CPU work, done on the blocking pool; a replay holds one of
//! [`MAX_OPEN_REPLAYS`] places while it is open.

use std::sync::Arc;
use std::time::Duration;

use delve_protocol::{ClientMsg, ErrorCode, ServerMsg, View};
use futures_util::StreamExt;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;
use tracing::{debug, info};

use super::connection::{Connection, Incoming};
use super::wire::{error, send};
use crate::record::{GameFacts, Replayer, Shown};
use crate::store::GameRow;

/// Replays open at once on one server (each holds the game's journal and a saved world every
/// 250 turns: about 1–2 MB for a 5,000-turn game).
pub const MAX_OPEN_REPLAYS: usize = 32;

/// An open replay: the game, its replayer, and what the client was last sent.
pub(super) struct OpenReplay {
    game: GameRow,
    replayer: Option<Replayer>,
    /// The view the client holds, for diffs, and its sequence number.
    shown: Option<View>,
    seq: u64,
    _place: OwnedSemaphorePermit,
}

type Refusal = (ErrorCode, String);

impl Connection {
    /// Checks that game `id` may be replayed to this connection and replays it once (see
    /// [`Replayer::open`]).
    pub(super) async fn open_replay(
        &mut self,
        id: u64,
        key: Option<String>,
        password: Option<String>,
    ) -> Result<OpenReplay, Refusal> {
        let shared = Arc::clone(&self.shared);
        let id = i64::try_from(id).unwrap_or(i64::MAX);
        let no_game = |sentence: String| (ErrorCode::NoSuchGame, sentence);
        let game = shared
            .visible_game(id, key.as_deref(), password.as_deref(), self.peer.ip())
            .await
            .map_err(|d| match d {
                super::archive::Denied::WrongPassword(_) => {
                    (ErrorCode::BadPassword, d.sentence(Some(id)))
                }
                super::archive::Denied::ShutOut => (ErrorCode::RateLimited, d.sentence(Some(id))),
                d => no_game(d.sentence(Some(id))),
            })?;
        if !shared.config.replays {
            return Err((
                ErrorCode::NoReplay,
                "This server does not keep replays.".to_string(),
            ));
        }
        let place = Arc::clone(&shared.replays)
            .try_acquire_owned()
            .map_err(|_| {
                (
                    ErrorCode::ServerFull,
                    "As many replays as the server allows are being watched; try again later."
                        .to_string(),
                )
            })?;
        let (Some(store), content) = (shared.store.clone(), Arc::clone(&shared.config.content))
        else {
            return Err(no_game("This server keeps no games.".to_string()));
        };
        let facts = GameFacts {
            player: game.player_id.unwrap_or(0),
            start_seq: game.start_seq.unwrap_or(0),
            end_hash: game.end_hash.clone().unwrap_or_default(),
            engine: game.engine.clone().unwrap_or_default(),
            content_hash: String::new(),
        };
        let started = Instant::now();
        let opened = tokio::task::spawn_blocking(move || {
            let slice = store.replay(id).map_err(|e| {
                (
                    ErrorCode::Internal,
                    format!("The replay cannot be read: {e}"),
                )
            })?;
            let Some(slice) = slice else {
                return Err((
                    ErrorCode::NoReplay,
                    format!("The replay of game {id} is no longer kept; its dump is."),
                ));
            };
            Replayer::open(&slice, content, &facts)
                .map(|(r, _, _)| r)
                .map_err(|e| (ErrorCode::NoReplay, e.to_string()))
        })
        .await
        .map_err(|_| (ErrorCode::Internal, "The replay failed.".to_string()))??;
        info!(peer = %self.peer, game = id, turns = opened.last_turn(), ms = started.elapsed().as_millis() as u64, "replay opened");
        Ok(OpenReplay {
            game,
            replayer: Some(opened),
            shown: None,
            seq: 0,
            _place: place,
        })
    }

    /// Serves an open replay until the connection ends: its `replaying` and `welcome`, then a view
    /// for every `seek`.
    pub(super) async fn replay(&mut self, mut r: OpenReplay) {
        let g = &r.game;
        let turns = r.replayer.as_ref().map_or(0, Replayer::last_turn);
        let info = ServerMsg::Replaying {
            game: u64::try_from(g.id).unwrap_or(0),
            name: g.score.name.clone(),
            dungeon: g.score.dungeon.clone(),
            turns,
            outcome: g.score.outcome.clone(),
            victory: g.victory,
            score: u32::try_from(g.score.score).unwrap_or(u32::MAX),
            ended: u64::try_from(g.score.ended_at).unwrap_or(0),
        };
        if send(&mut self.ws, info).await.is_err() {
            return;
        }
        let Some(first) = self.show(&mut r, 0).await else {
            return;
        };
        let content = &self.shared.config.content;
        let welcome = ServerMsg::Welcome {
            protocol_version: delve_protocol::PROTOCOL_VERSION,
            player_id: first.view.me.id,
            token: None,
            dungeon: r.game.score.dungeon.clone(),
            turn_timeout_ms: 0,
            level_up: super::dungeon_task::level_up_gains(content),
            watching: Some(r.game.score.name.clone()),
            seq: 0,
            view: first.view.clone(),
            descriptions: content.descriptions(),
        };
        r.shown = Some(first.view);
        if send(&mut self.ws, welcome).await.is_err() {
            return;
        }
        let mut shutdown = self.shutdown.clone();
        let ping_every = self.shared.config.ping_interval;
        let ping = tokio::time::sleep(ping_every);
        tokio::pin!(ping);
        loop {
            let frame = tokio::select! {
                frame = self.ws.next() => frame,
                () = &mut ping => {
                    if !self.keep_alive(ping_every).await {
                        return;
                    }
                    ping.as_mut().reset(Instant::now() + ping_every);
                    continue;
                }
                _ = shutdown.changed() => {
                    self.shutting_down().await;
                    return;
                }
            };
            let msg = match self.read(frame).await {
                Incoming::Msg(m) => m,
                Incoming::Skip => continue,
                Incoming::Stop => return,
            };
            let answer = match msg {
                ClientMsg::Seek { turn } => match self.show(&mut r, turn).await {
                    Some(shown) => Some(frame_for(&mut r, shown)),
                    None => return,
                },
                ClientMsg::Resync => {
                    let turn = r.shown.as_ref().map_or(0, |v| v.me.turns);
                    r.shown = None;
                    match self.show(&mut r, turn).await {
                        Some(shown) => Some(frame_for(&mut r, shown)),
                        None => return,
                    }
                }
                ClientMsg::Scores { limit } => Some(ServerMsg::Scores {
                    entries: self.shared.top_scores(limit, None).await,
                }),
                ClientMsg::ListDungeons => Some(ServerMsg::Dungeons {
                    dungeons: self.shared.dungeon_list().await,
                }),
                other => Some(ServerMsg::Error {
                    code: ErrorCode::BadHandshake,
                    message: format!(
                        "This connection replays a game: {} means nothing here; send seek.",
                        other.type_name()
                    ),
                    reason: None,
                }),
            };
            if let Some(msg) = answer
                && send(&mut self.ws, msg).await.is_err()
            {
                return;
            }
        }
    }

    /// Turn `turn` of the replay, made on the blocking pool. `None` if the replay failed.
    async fn show(&mut self, r: &mut OpenReplay, turn: u64) -> Option<Shown> {
        let mut replayer = r.replayer.take()?;
        let started = Instant::now();
        let (replayer, shown) = tokio::task::spawn_blocking(move || {
            let shown = replayer.show(turn);
            (replayer, shown)
        })
        .await
        .ok()?;
        r.replayer = Some(replayer);
        let took = started.elapsed();
        if took > Duration::from_millis(200) {
            debug!(peer = %self.peer, turn, ms = took.as_millis() as u64, "a slow seek");
        }
        if shown.is_none() {
            let _ = send(
                &mut self.ws,
                error(ErrorCode::Internal, "The replay cannot show that turn."),
            )
            .await;
        }
        shown
    }
}

/// The message that shows `shown` to a client holding `r.shown`: an update for the next turn
/// (its diff and events), a snapshot otherwise.
fn frame_for(r: &mut OpenReplay, shown: Shown) -> ServerMsg {
    r.seq += 1;
    let seq = r.seq;
    let diff = match (&r.shown, shown.step) {
        (Some(base), true) => base.diff(&shown.view),
        _ => None,
    };
    let turn = shown.view.turn;
    let msg = match diff {
        Some(diff) => {
            let mut events = shown.events;
            delve_protocol::event::trim_moves(&mut events, &shown.view);
            ServerMsg::Update {
                seq,
                turn,
                diff,
                events,
            }
        }
        None => ServerMsg::Snapshot {
            seq,
            view: shown.view.clone(),
        },
    };
    r.shown = Some(shown.view);
    msg
}
