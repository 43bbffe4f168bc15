//! The client's network half: an async WebSocket session speaking the protocol, and a thread
//! that runs it beside the UI so rendering never waits on the network.

use std::sync::mpsc as std_mpsc;
use std::thread;
use std::time::Duration;

use delve_protocol::{
    ClientMsg, DecodeError, MAX_SERVER_FRAME, PROTOCOL_VERSION, ServerMsg, decode_server, encode,
};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

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

/// One WebSocket session with a Delve server.
pub struct Session {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Session")
    }
}

impl Session {
    /// Opens a WebSocket to `url` (`ws://host:port`). No message is sent yet.
    pub async fn connect(url: &str) -> Result<Session, NetError> {
        let config = WebSocketConfig::default()
            .read_buffer_size(16 * 1024)
            .write_buffer_size(0)
            .max_message_size(Some(MAX_SERVER_FRAME))
            .max_frame_size(Some(MAX_SERVER_FRAME));
        let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true)
            .await
            .map_err(|e| NetError::Connect {
                url: url.to_owned(),
                reason: e.to_string(),
            })?;
        Ok(Session { ws })
    }

    /// Connects and says hello; returns the session and the server's first answer (a welcome,
    /// or an error explaining the refusal).
    pub async fn join(
        url: &str,
        name: &str,
        dungeon: &str,
        token: Option<String>,
    ) -> Result<(Session, ServerMsg), NetError> {
        let mut s = Session::connect(url).await?;
        s.send(&hello(name, dungeon, token)).await?;
        let first = s.recv().await?;
        Ok((s, first))
    }

    pub async fn send(&mut self, msg: &ClientMsg) -> Result<(), NetError> {
        self.send_raw(Message::text(encode(msg))).await
    }

    /// Sends any frame, well-formed or not (for tests of the server's defences).
    pub async fn send_raw(&mut self, msg: Message) -> Result<(), NetError> {
        self.ws
            .send(msg)
            .await
            .map_err(|e| NetError::Ws(e.to_string()))
    }

    /// The next message from the server. A close becomes [`NetError::Closed`] with its reason.
    pub async fn recv(&mut self) -> Result<ServerMsg, NetError> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(t))) => return Ok(decode_server(t.as_str())?),
                Some(Ok(Message::Close(frame))) => {
                    let (code, reason) = frame.map_or((1005, String::new()), |f| {
                        (u16::from(f.code), f.reason.to_string())
                    });
                    return Err(NetError::Closed { code, reason });
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(NetError::Ws(e.to_string())),
                None => return Err(NetError::Dropped),
            }
        }
    }

    /// Closes the session politely.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
        while let Some(Ok(_)) = self.ws.next().await {}
    }
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

/// What the network thread tells the UI.
#[derive(Debug)]
pub enum NetEvent {
    /// The socket is open and the hello was sent.
    Connected,
    Msg(Box<ServerMsg>),
    /// The session is over, with a sentence for the player.
    Ended(String),
}

/// The UI's end of the network thread.
#[derive(Debug)]
pub struct NetThread {
    to_server: mpsc::UnboundedSender<ClientMsg>,
    from_server: std_mpsc::Receiver<NetEvent>,
}

impl NetThread {
    /// Starts a thread that connects to `url`, sends `hello`, and relays messages both ways.
    pub fn spawn(url: String, hello: ClientMsg) -> std::io::Result<NetThread> {
        let (to_server, mut outbox) = mpsc::unbounded_channel::<ClientMsg>();
        let (inbox, from_server) = std_mpsc::channel();
        thread::Builder::new().name("delve-net".into()).spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = inbox.send(NetEvent::Ended(format!("cannot start networking: {e}")));
                    return;
                }
            };
            rt.block_on(async move {
                let mut session = match Session::connect(&url).await {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = inbox.send(NetEvent::Ended(e.to_string()));
                        return;
                    }
                };
                if let Err(e) = session.send(&hello).await {
                    let _ = inbox.send(NetEvent::Ended(e.to_string()));
                    return;
                }
                let _ = inbox.send(NetEvent::Connected);
                loop {
                    tokio::select! {
                        msg = session.recv() => match msg {
                            Ok(m) => if inbox.send(NetEvent::Msg(Box::new(m))).is_err() { break },
                            Err(e) => {
                                let _ = inbox.send(NetEvent::Ended(e.to_string()));
                                break;
                            }
                        },
                        out = outbox.recv() => match out {
                            Some(m) => if let Err(e) = session.send(&m).await {
                                let _ = inbox.send(NetEvent::Ended(e.to_string()));
                                break;
                            },
                            // The UI is gone: close politely, but don't hang on it.
                            None => {
                                let _ = tokio::time::timeout(Duration::from_secs(1), session.close()).await;
                                break;
                            }
                        },
                    }
                }
            });
        })?;
        Ok(NetThread {
            to_server,
            from_server,
        })
    }

    /// Queues a message for the server; never blocks.
    pub fn send(&self, msg: ClientMsg) {
        let _ = self.to_server.send(msg);
    }

    /// The next event if one is waiting; never blocks.
    pub fn try_recv(&self) -> Option<NetEvent> {
        self.from_server.try_recv().ok()
    }
}
