//! The client's network half, behind one small interface ([`Link`]) the UI drives every frame:
//! queue a message, take the next event. Two transports implement it:
//! - native ([`native`]): tokio-tungstenite on a thread of its own, talking to the UI through
//!   channels, so rendering never waits on the network;
//! - browser ([`web`]): the browser's own WebSocket through our JS plugin, polled each frame
//!   (a page gives wasm no threads).
//!
//! What a game connection does with the server's answers (keep the token, start afresh when it
//! is stale, give up when retrying cannot help) and how long it waits before reconnecting are
//! decided here, once, for both.

use std::time::Duration;

use delve_protocol::{ClientMsg, DecodeError, ErrorCode, PROTOCOL_VERSION, ServerMsg};

#[cfg(not(target_arch = "wasm32"))]
pub mod native;
#[cfg(target_arch = "wasm32")]
pub mod web;

#[cfg(not(target_arch = "wasm32"))]
pub use native::{NetThread, Session};

/// The transport this build uses.
#[cfg(not(target_arch = "wasm32"))]
pub type Platform = native::NetThread;
#[cfg(target_arch = "wasm32")]
pub type Platform = web::WebLink;

/// A connection to a server as the UI sees it. Neither method ever blocks.
pub trait Link: Sized {
    /// Starts a game session: connects to `url`, says `hello`, relays messages both ways, and
    /// reconnects by itself with backoff, resuming with the token of the last welcome.
    fn game(url: String, hello: ClientMsg) -> std::io::Result<Self>;
    /// Starts the lobby: lists the server's dungeons every two seconds, reconnecting quietly.
    fn lobby(url: String) -> std::io::Result<Self>;
    /// Queues a message for the server.
    fn send(&mut self, msg: ClientMsg);
    /// The next event if one is waiting.
    fn try_recv(&mut self) -> Option<NetEvent>;
}

/// Why the session failed or ended.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("cannot connect to {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("the server closed the connection ({code}): {reason}")]
    Closed { code: u16, reason: String },
    #[error("the connection dropped")]
    Dropped,
    #[error("the server sent something this client does not understand: {0}")]
    Decode(#[from] DecodeError),
    #[error("network error: {0}")]
    Ws(String),
}

/// The `hello` this client sends to play (or resume, with `token`).
pub fn hello(name: &str, dungeon: &str, token: Option<String>) -> ClientMsg {
    ClientMsg::Hello {
        version: PROTOCOL_VERSION,
        name: name.to_owned(),
        dungeon: dungeon.to_owned(),
        token,
        password: None,
        watch: None,
    }
}

/// What the network tells the UI.
#[derive(Debug)]
pub enum NetEvent {
    /// The socket is open and the hello was sent.
    Connected,
    Msg(Box<ServerMsg>),
    /// The connection was lost; the link tries again after `wait` (attempt `attempt`).
    Reconnecting {
        attempt: u32,
        wait: Duration,
        reason: String,
    },
    /// The session is over for good, with a sentence for the player.
    Ended(String),
}

/// The wait before reconnection attempt `attempt` (1, 2, ...): 0.5 s doubling to 10 s.
pub fn backoff(attempt: u32) -> Duration {
    let ms = 500u64.saturating_mul(1 << attempt.saturating_sub(1).min(10));
    Duration::from_millis(ms.min(10_000))
}

/// Whether an error answering our hello means retrying is pointless.
fn fatal_refusal(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::BadVersion
            | ErrorCode::BadName
            | ErrorCode::BadDungeon
            | ErrorCode::BadPassword
            | ErrorCode::NameTaken
            | ErrorCode::NoSuchPlayer
            | ErrorCode::Replaced
            | ErrorCode::NoSuchGame
            | ErrorCode::NoReplay
    )
}

/// Whether a close code means retrying is pointless (replaced by a newer connection, another
/// protocol version).
pub(crate) fn fatal_close(code: u16) -> bool {
    delve_protocol::close::is_final(code)
}

/// One connection of a game session: the hello it (re)sends and whether it has joined.
pub(crate) struct GameState<'a> {
    pub hello: &'a mut ClientMsg,
    attempt: &'a mut u32,
    /// The server welcomed this connection (refusals after that are not about the hello).
    pub joined: bool,
}

/// What to do about one message from the server (which goes on to the UI in any case).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Reaction {
    /// Send the (updated) hello again on this connection.
    pub resend_hello: bool,
    /// The session is over for good, for this reason.
    pub fatal: Option<String>,
}

impl<'a> GameState<'a> {
    pub fn new(hello: &'a mut ClientMsg, attempt: &'a mut u32) -> Self {
        GameState {
            hello,
            attempt,
            joined: false,
        }
    }

    /// Keeps the hello's token current, so a reconnection resumes the character.
    pub fn react(&mut self, m: &ServerMsg) -> Reaction {
        let mut r = Reaction::default();
        match m {
            ServerMsg::Welcome { token, .. } => {
                self.joined = true;
                *self.attempt = 0;
                if let (Some(t), ClientMsg::Hello { token: ours, .. }) = (token, &mut *self.hello) {
                    *ours = Some(t.clone());
                }
            }
            // The character of our token is gone (a server restart, say): start afresh under
            // the same name, on this same connection.
            ServerMsg::Error {
                code: ErrorCode::BadToken,
                ..
            } if !self.joined => {
                if let ClientMsg::Hello { token, .. } = &mut *self.hello {
                    *token = None;
                }
                r.resend_hello = true;
            }
            ServerMsg::Error { code, message, .. }
                if fatal_refusal(*code) && (!self.joined || *code == ErrorCode::Replaced) =>
            {
                r.fatal = Some(message.clone());
            }
            _ => {}
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_welcome_keeps_the_token_and_a_stale_one_is_dropped() {
        let mut h = hello("Ann", "crypt", Some("old".into()));
        let mut attempt = 3;
        let mut s = GameState::new(&mut h, &mut attempt);
        let stale = ServerMsg::Error {
            code: ErrorCode::BadToken,
            message: "no such character".into(),
            reason: None,
        };
        assert!(s.react(&stale).resend_hello);
        assert!(matches!(&*s.hello, ClientMsg::Hello { token: None, .. }));
        let refused = ServerMsg::Error {
            code: ErrorCode::BadPassword,
            message: "wrong password".into(),
            reason: None,
        };
        assert_eq!(s.react(&refused).fatal.as_deref(), Some("wrong password"));
    }

    #[test]
    fn backoff_doubles_to_ten_seconds() {
        assert_eq!(backoff(1), Duration::from_millis(500));
        assert_eq!(backoff(2), Duration::from_secs(1));
        assert_eq!(backoff(9), Duration::from_secs(10));
    }
}
