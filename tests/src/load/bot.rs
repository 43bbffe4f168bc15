//! Bots: a WebSocket each, sending on an open-loop [`Schedule`] and timing every answer from
//! when its message was due. Two kinds share the loop: [`GamePlayer`] plays Delve, and
//! [`EchoPlayer`] talks to the echo baseline.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use delve_client::model::Model;
use delve_protocol::{
    Action, ClientMsg, Dir, EntityKind, ErrorCode, ServerMsg, View, decode_server, encode,
};
use futures_util::{SinkExt, StreamExt};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::net::TcpStream;
use tokio::sync::Barrier;
use tokio::time::{Instant, sleep_until, timeout};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::schedule::Schedule;

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How long a bot waits for the answer to one message before it counts as an error.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// Opens a WebSocket with the game client's settings (Nagle off).
pub async fn connect(url: &str) -> anyhow::Result<Ws> {
    let config = WebSocketConfig::default()
        .read_buffer_size(16 * 1024)
        .write_buffer_size(0);
    let (ws, _) = timeout(
        Duration::from_secs(30),
        tokio_tungstenite::connect_async_with_config(url, Some(config), true),
    )
    .await
    .context("connecting took over 30 s")?
    .with_context(|| format!("cannot connect to {url}"))?;
    Ok(ws)
}

/// What one frame from the server meant to a bot.
#[derive(Debug, PartialEq, Eq)]
pub enum Heard {
    /// The answer to the message it is waiting for. `sample`: time it (an update of the turn
    /// it chose); `update`: a view update, counted for bytes and CPU per update.
    Answer {
        sample: bool,
        update: bool,
    },
    /// Its message was refused in a way a player would just try again (a stale view).
    Rejected,
    /// Anything else (news between turns, a turn status).
    Other {
        update: bool,
    },
    Failed(String),
}

/// The kind of bot: what it sends and how it reads the answers.
pub trait Player {
    /// The next message, when it is due.
    fn next_msg(&mut self) -> String;
    /// Reads one text frame.
    fn heard(&mut self, text: &str) -> Heard;
    /// A message to send at once (a resync), if reading asked for one.
    fn extra(&mut self) -> Option<String> {
        None
    }
}

/// Talks to the echo server: sends a move intent, as a game bot does, and times its echo.
pub struct EchoPlayer;

/// The message an echo bot sends: a move, the size of the game's own intents.
pub const ECHO_MSG: &str = r#"{"type":"move","dir":"n"}"#;

impl Player for EchoPlayer {
    fn next_msg(&mut self) -> String {
        ECHO_MSG.to_owned()
    }

    fn heard(&mut self, _text: &str) -> Heard {
        Heard::Answer {
            sample: true,
            update: true,
        }
    }
}

/// A game bot's move, from the last view it was sent: it hits a monster next to it, else
/// steps at random; one turn in ten it waits (`benches/dungeons.rs` plays the same way).
pub fn choose(view: &View, rng: &mut ChaCha8Rng) -> Action {
    let me = view.me.pos;
    let foe = (view.entities.iter())
        .find(|e| e.kind == EntityKind::Monster && e.pos.chebyshev(me) == 1)
        .and_then(|e| Dir::from_delta(e.pos.x - me.x, e.pos.y - me.y));
    let open: Vec<Dir> = (Dir::ALL.into_iter())
        .filter(|&d| view.map.get(me.step(d)).is_walkable())
        .collect();
    match (foe, open.choose(rng)) {
        (Some(dir), _) => Action::Move { dir },
        (None, Some(&dir)) if rng.random_ratio(9, 10) => Action::Move { dir },
        _ => Action::Wait,
    }
}

/// What a game bot is waiting for.
enum Awaiting {
    Nothing,
    /// The update of this turn (or a later one).
    Turn(u64),
    /// The welcome of the new character it asked for (not timed).
    Welcome,
}

/// Plays Delve through the client's own model: hits a monster next to it, else steps at random
/// (one turn in ten it waits); dead, it starts a new character.
pub struct GamePlayer {
    model: Model,
    rng: ChaCha8Rng,
    awaiting: Awaiting,
    resync: bool,
}

impl GamePlayer {
    /// Says hello on `ws` and reads until the welcome.
    pub async fn join(ws: &mut Ws, name: &str, dungeon: &str, seed: u64) -> anyhow::Result<Self> {
        let hello = delve_client::net::hello(name, dungeon, None);
        ws.send(Message::text(encode(&hello))).await?;
        let mut model = Model::new();
        loop {
            let frame = timeout(ANSWER_TIMEOUT, ws.next())
                .await
                .context("no welcome within 30 s")?;
            let text = match frame {
                Some(Ok(Message::Text(t))) => t,
                Some(Ok(Message::Close(f))) => bail!("{name}: closed before the welcome: {f:?}"),
                Some(Ok(_)) => continue,
                Some(Err(e)) => bail!("{name}: {e}"),
                None => bail!("{name}: closed before the welcome"),
            };
            let msg = decode_server(text.as_str())?;
            let welcome = matches!(msg, ServerMsg::Welcome { .. });
            if let ServerMsg::Error { code, message, .. } = &msg {
                bail!("{name}: refused ({code:?}): {message}");
            }
            model.handle(msg)?;
            if welcome {
                break;
            }
        }
        Ok(GamePlayer {
            model,
            rng: ChaCha8Rng::seed_from_u64(seed),
            awaiting: Awaiting::Nothing,
            resync: false,
        })
    }
}

impl Player for GamePlayer {
    fn next_msg(&mut self) -> String {
        let Some(view) = self.model.view.as_ref() else {
            self.awaiting = Awaiting::Nothing;
            return encode(&ClientMsg::Resync);
        };
        if !view.me.alive {
            self.awaiting = Awaiting::Welcome;
            return encode(&ClientMsg::NewCharacter);
        }
        let action = choose(view, &mut self.rng);
        self.awaiting = Awaiting::Turn(view.turn + 1);
        encode(&ClientMsg::Act(action))
    }

    fn heard(&mut self, text: &str) -> Heard {
        let msg = match decode_server(text) {
            Ok(m) => m,
            Err(e) => return Heard::Failed(format!("undecodable frame: {e}")),
        };
        let turn = match &msg {
            ServerMsg::Update { turn, .. } => Some(*turn),
            ServerMsg::Snapshot { view, .. } => Some(view.turn),
            _ => None,
        };
        let welcome = matches!(msg, ServerMsg::Welcome { .. });
        if let ServerMsg::Error { code, message, .. } = &msg {
            return match code {
                ErrorCode::Rejected | ErrorCode::CannotAct => {
                    self.awaiting = Awaiting::Nothing;
                    Heard::Rejected
                }
                _ => Heard::Failed(format!("error {code:?}: {message}")),
            };
        }
        if self.model.handle(msg).is_err() {
            self.resync = true;
        }
        let update = turn.is_some();
        match (&self.awaiting, turn) {
            (Awaiting::Turn(t), Some(got)) if got >= *t => {
                self.awaiting = Awaiting::Nothing;
                Heard::Answer {
                    sample: true,
                    update,
                }
            }
            (Awaiting::Welcome, _) if welcome => {
                self.awaiting = Awaiting::Nothing;
                Heard::Answer {
                    sample: false,
                    update,
                }
            }
            _ => Heard::Other { update },
        }
    }

    fn extra(&mut self) -> Option<String> {
        std::mem::take(&mut self.resync).then(|| encode(&ClientMsg::Resync))
    }
}

/// The measured stretch of a run: bots send from `start` (each on its own schedule) until
/// `until`; only what falls in `[from, until)` is counted.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub start: Instant,
    pub from: Duration,
    pub until: Duration,
}

/// How long past the window the bots wait for each other before closing (see [`run`]).
const LAST_ANSWERS: Duration = Duration::from_secs(2);

/// An answer this late is listed in [`Report::slow`].
pub const SLOW: Duration = Duration::from_millis(50);

/// What one bot saw in the measured window.
#[derive(Debug, Default)]
pub struct Report {
    /// From when each message was due to its answer.
    pub latencies: Vec<Duration>,
    /// The answers that took [`SLOW`] or more: when their message was due (since the window's
    /// start) and how long they took, to tell a stall of everyone from a few slow dungeons.
    pub slow: Vec<(Duration, Duration)>,
    /// From when a message was due to when it was sent, for the messages that fell due while
    /// their bot waited for nothing: the generator's own lateness (its scheduler, its timers,
    /// its core), which every latency above includes too.
    pub own_lags: Vec<Duration>,
    pub updates: u64,
    /// Payload bytes of every text frame received.
    pub bytes: u64,
    /// Text frames received.
    pub frames: u64,
    pub sent: u64,
    pub rejected: u64,
    pub error: Option<String>,
}

/// Runs one bot until the window ends (and its last answer arrives); then keeps playing,
/// unmeasured, until every bot of the run has got that far (`done`, shared by all) or
/// [`LAST_ANSWERS`] after the window, and closes its socket. A bot that failed closes at once:
/// its dungeon's turns would otherwise wait for it.
///
/// Closing as soon as each bot was done skewed the end of every run: the dungeons whose last
/// message falls due early in the last period closed thousands of sockets while the others
/// still waited for their last answers, and the server spent its time on the closes (a
/// 4,000-client run showed all its answers of 50 ms or more, and its maximum, in the window's
/// last 200 ms). Playing on rather than waiting idle keeps the turns of a dungeon whose other
/// bots are not done yet going (a bot a turn behind the rest needs their next choices).
pub async fn run<P: Player>(
    mut ws: Ws,
    mut player: P,
    mut schedule: Schedule,
    w: Window,
    done: Arc<Barrier>,
) -> Report {
    let mut r = Report::default();
    if let Err(e) = run_loop(&mut ws, &mut player, &mut schedule, w, &mut r).await {
        r.error = Some(format!("{e:#}"));
    }
    if r.error.is_none() {
        let end = w.until + LAST_ANSWERS;
        // Nothing in this stretch is counted: it starts where it ends.
        let after = Window {
            start: w.start,
            from: end,
            until: end,
        };
        let mut unmeasured = Report::default();
        tokio::select! {
            _ = done.wait() => {}
            _ = run_loop(&mut ws, &mut player, &mut schedule, after, &mut unmeasured) => {}
        }
    }
    let _ = timeout(Duration::from_secs(2), ws.close(None)).await;
    r
}

async fn run_loop<P: Player>(
    ws: &mut Ws,
    player: &mut P,
    schedule: &mut Schedule,
    w: Window,
    r: &mut Report,
) -> anyhow::Result<()> {
    let counted = |t: Duration| t >= w.from && t < w.until;
    // When the message being answered was due.
    let mut waiting: Option<Duration> = None;
    // Since when the bot has had no answer to wait for.
    let mut free_since = Duration::ZERO;
    loop {
        let now = w.start.elapsed();
        if waiting.is_none() {
            if schedule.next_due() >= w.until {
                return Ok(());
            }
            if let Some(due) = schedule.take(now) {
                ws.send(Message::text(player.next_msg())).await?;
                waiting = Some(due);
                if counted(due) {
                    r.sent += 1;
                    if free_since <= due {
                        r.own_lags.push(now.saturating_sub(due));
                    }
                }
                continue;
            }
        }
        let wake = match waiting {
            Some(due) => w.start + due + ANSWER_TIMEOUT,
            None => w.start + schedule.next_due(),
        };
        tokio::select! {
            _ = sleep_until(wake) => if waiting.is_some() {
                bail!("no answer within {ANSWER_TIMEOUT:?}");
            },
            frame = ws.next() => {
                let text = match frame {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Close(f))) => bail!("the server closed the socket: {f:?}"),
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => bail!("{e}"),
                    None => bail!("the connection dropped"),
                };
                let at = w.start.elapsed();
                if counted(at) {
                    r.bytes += text.len() as u64;
                    r.frames += 1;
                }
                let update = match player.heard(text.as_str()) {
                    Heard::Answer { sample, update } => {
                        if let Some(due) = waiting.take()
                            && sample
                            && counted(due)
                        {
                            let latency = at.saturating_sub(due);
                            r.latencies.push(latency);
                            if latency >= SLOW {
                                r.slow.push((due, latency));
                            }
                        }
                        free_since = at;
                        update
                    }
                    Heard::Rejected => {
                        waiting = None;
                        free_since = at;
                        if counted(at) {
                            r.rejected += 1;
                        }
                        false
                    }
                    Heard::Other { update } => update,
                    Heard::Failed(why) => bail!(why),
                };
                if update && counted(at) {
                    r.updates += 1;
                }
                if let Some(extra) = player.extra() {
                    ws.send(Message::text(extra)).await?;
                }
            }
        }
    }
}
