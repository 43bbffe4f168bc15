//! The browser transport: the page's own WebSocket (through `delve-web-js`), polled every frame
//! from [`Link::try_recv`]. The browser gives wasm no threads, so where the native link has a
//! task and timers, this has a small state machine driven by the frame loop's clock.

use std::collections::VecDeque;

use delve_protocol::{ClientMsg, ServerMsg, decode_server, encode};
use delve_web_js::{WebSocket, WsEvent};

use super::{GameState, Link, NetEvent, backoff, fatal_close};

/// Seconds between two lobby refreshes, as the native lobby.
const LOBBY_REFRESH: f64 = 2.0;

enum Kind {
    /// A game session and the hello it (re)sends.
    Game { hello: ClientMsg, joined: bool },
    /// The lobby; the next list is asked for at `next_list`.
    Lobby { next_list: f64 },
}

/// The UI's end of a browser WebSocket session (game or lobby).
pub struct WebLink {
    url: String,
    kind: Kind,
    socket: Option<WebSocket>,
    /// The socket is open (the hello went out).
    open: bool,
    attempt: u32,
    /// While disconnected: when to try again.
    retry_at: f64,
    ended: bool,
    /// Messages the UI queued before the socket opened.
    outbox: Vec<ClientMsg>,
    events: VecDeque<NetEvent>,
}

impl std::fmt::Debug for WebLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebLink")
    }
}

/// Seconds on the page's clock (the same clock macroquad's `get_time` reads).
fn now() -> f64 {
    macroquad::miniquad::date::now()
}

impl WebLink {
    fn start(url: String, kind: Kind) -> WebLink {
        let mut link = WebLink {
            socket: Some(WebSocket::open(&url)),
            url,
            kind,
            open: false,
            attempt: 0,
            retry_at: 0.0,
            ended: false,
            outbox: Vec::new(),
            events: VecDeque::new(),
        };
        link.pump();
        link
    }

    fn send_now(&self, msg: &ClientMsg) {
        if let Some(s) = &self.socket {
            s.send(&encode(msg));
        }
    }

    /// The connection is gone: try again after the backoff, or end for good.
    fn lost(&mut self, reason: String, fatal: bool) {
        self.socket = None;
        self.open = false;
        if fatal {
            self.ended = true;
            self.events.push_back(NetEvent::Ended(reason));
            return;
        }
        self.attempt += 1;
        let wait = backoff(self.attempt);
        self.retry_at = now() + wait.as_secs_f64();
        // Intents typed while away belong to a game state that has moved on.
        self.outbox.clear();
        self.events.push_back(NetEvent::Reconnecting {
            attempt: self.attempt,
            wait,
            reason,
        });
    }

    /// Moves whatever the browser has for us into events, reconnects when it is time, and asks
    /// the lobby's list when due.
    fn pump(&mut self) {
        if self.ended {
            return;
        }
        if self.socket.is_none() {
            if now() < self.retry_at {
                return;
            }
            self.socket = Some(WebSocket::open(&self.url));
        }
        while let Some(ev) = self.socket.as_ref().and_then(WebSocket::next) {
            match ev {
                WsEvent::Open => {
                    self.open = true;
                    match &mut self.kind {
                        Kind::Game { hello, joined } => {
                            *joined = false;
                            let hello = hello.clone();
                            self.send_now(&hello);
                        }
                        Kind::Lobby { next_list } => {
                            self.attempt = 0;
                            *next_list = 0.0;
                        }
                    }
                    for msg in std::mem::take(&mut self.outbox) {
                        self.send_now(&msg);
                    }
                    self.events.push_back(NetEvent::Connected);
                }
                WsEvent::Text(text) => match decode_server(&text) {
                    Ok(m) => self.on_message(m),
                    // A later server's message: passed over, as PROTOCOL.md asks.
                    Err(delve_protocol::DecodeError::UnknownType(_)) => {}
                    Err(e) => {
                        let reason = format!(
                            "the server sent something this client does not understand: {e}"
                        );
                        self.lost(reason, false);
                    }
                },
                WsEvent::Close { code, reason } => {
                    let fatal = fatal_close(code) && matches!(self.kind, Kind::Game { .. });
                    let text = if self.open {
                        format!("the server closed the connection ({code}): {reason}")
                    } else {
                        format!("cannot connect to {}", self.url)
                    };
                    self.lost(text, fatal);
                }
            }
        }
        if let (true, Kind::Lobby { next_list }) = (self.open, &mut self.kind) {
            let t = now();
            if t >= *next_list {
                *next_list = t + LOBBY_REFRESH;
                self.send_now(&ClientMsg::ListDungeons);
            }
        }
    }

    fn on_message(&mut self, m: ServerMsg) {
        let mut fatal = None;
        if let Kind::Game { hello, joined } = &mut self.kind {
            let mut state = GameState::new(hello, &mut self.attempt);
            state.joined = *joined;
            let reaction = state.react(&m);
            *joined = state.joined;
            if reaction.resend_hello {
                let hello = hello.clone();
                self.send_now(&hello);
            }
            fatal = reaction.fatal;
        }
        self.events.push_back(NetEvent::Msg(Box::new(m)));
        if let Some(reason) = fatal {
            self.lost(reason, true);
        }
    }
}

impl Link for WebLink {
    fn game(url: String, hello: ClientMsg) -> std::io::Result<Self> {
        Ok(WebLink::start(
            url,
            Kind::Game {
                hello,
                joined: false,
            },
        ))
    }

    fn lobby(url: String) -> std::io::Result<Self> {
        Ok(WebLink::start(url, Kind::Lobby { next_list: 0.0 }))
    }

    fn send(&mut self, msg: ClientMsg) {
        if self.open {
            self.send_now(&msg);
        } else if !self.ended {
            self.outbox.push(msg);
        }
    }

    fn try_recv(&mut self) -> Option<NetEvent> {
        if self.events.is_empty() {
            self.pump();
        }
        self.events.pop_front()
    }
}
