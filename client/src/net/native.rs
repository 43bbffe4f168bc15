//! The native network half: an async WebSocket session speaking the protocol (tokio-tungstenite),
//! and a thread that runs it beside the UI so rendering never waits on the network.

use std::sync::mpsc as std_mpsc;
use std::thread;
use std::time::Duration;

use delve_protocol::{ClientMsg, DecodeError, MAX_SERVER_FRAME, ServerMsg, decode_server, encode};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::{GameState, Link, NetError, NetEvent, backoff, fatal_close, hello};

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
    fn ws_config() -> WebSocketConfig {
        WebSocketConfig::default()
            .read_buffer_size(16 * 1024)
            .write_buffer_size(0)
            .max_message_size(Some(MAX_SERVER_FRAME))
            .max_frame_size(Some(MAX_SERVER_FRAME))
    }

    /// Opens a WebSocket to `url` (`ws://host:port`). No message is sent yet.
    pub async fn connect(url: &str) -> Result<Session, NetError> {
        let (ws, _) =
            tokio_tungstenite::connect_async_with_config(url, Some(Self::ws_config()), true)
                .await
                .map_err(|e| NetError::Connect {
                    url: url.to_owned(),
                    reason: e.to_string(),
                })?;
        Ok(Session { ws })
    }

    /// Like [`Session::connect`], but from the local address `from` (on loopback, any of
    /// 127.0.0.0/8), so one machine can stand in for players at different addresses.
    pub async fn connect_from(url: &str, from: std::net::IpAddr) -> Result<Session, NetError> {
        let failed = |reason: String| NetError::Connect {
            url: url.to_owned(),
            reason,
        };
        let authority = url.strip_prefix("ws://").ok_or_else(|| {
            failed("only ws:// addresses can be dialled from a chosen address".into())
        })?;
        let target = tokio::net::lookup_host(authority.trim_end_matches('/'))
            .await
            .map_err(|e| failed(e.to_string()))?
            .find(|a| a.is_ipv4() == from.is_ipv4())
            .ok_or_else(|| failed("no address of the same family".into()))?;
        let socket = if from.is_ipv4() {
            tokio::net::TcpSocket::new_v4()
        } else {
            tokio::net::TcpSocket::new_v6()
        }
        .map_err(|e| failed(e.to_string()))?;
        socket
            .bind(std::net::SocketAddr::new(from, 0))
            .map_err(|e| failed(e.to_string()))?;
        let stream = socket
            .connect(target)
            .await
            .map_err(|e| failed(e.to_string()))?;
        let _ = stream.set_nodelay(true);
        let (ws, _) = tokio_tungstenite::client_async_with_config(
            url,
            tokio_tungstenite::MaybeTlsStream::Plain(stream),
            Some(Self::ws_config()),
        )
        .await
        .map_err(|e| failed(e.to_string()))?;
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
    /// A message of a type this client does not know (a later server's) is passed over, as
    /// PROTOCOL.md asks.
    pub async fn recv(&mut self) -> Result<ServerMsg, NetError> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(t))) => match decode_server(t.as_str()) {
                    Err(DecodeError::UnknownType(_)) => continue,
                    decoded => return Ok(decoded?),
                },
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

/// The UI's end of a network thread.
#[derive(Debug)]
pub struct NetThread {
    to_server: mpsc::UnboundedSender<ClientMsg>,
    from_server: std_mpsc::Receiver<NetEvent>,
}

/// How one connection ended.
enum Outcome {
    /// Worth trying again (the network failed, the server restarted, ...).
    Lost(String),
    /// Trying again cannot help (another protocol version, replaced, refused).
    Fatal(String),
    /// The UI has gone away.
    Quit,
}

impl NetThread {
    /// Starts the thread of a game session: it connects to `url`, says `hello`, and relays
    /// messages both ways. When the connection drops it reconnects by itself, with backoff,
    /// resuming with the token of the last welcome; it stops for good when retrying cannot help.
    pub fn spawn(url: String, hello: ClientMsg) -> std::io::Result<NetThread> {
        Self::start("delve-net", move |mut outbox, inbox| async move {
            let mut hello = hello;
            let mut attempt = 0u32;
            loop {
                match game_session(&url, &mut hello, &mut outbox, &inbox, &mut attempt).await {
                    Outcome::Quit => return,
                    Outcome::Fatal(reason) => {
                        let _ = inbox.send(NetEvent::Ended(reason));
                        return;
                    }
                    Outcome::Lost(reason) => {
                        attempt += 1;
                        let wait = backoff(attempt);
                        if inbox
                            .send(NetEvent::Reconnecting {
                                attempt,
                                wait,
                                reason,
                            })
                            .is_err()
                        {
                            return;
                        }
                        tokio::time::sleep(wait).await;
                        // Intents typed while away belong to a game state that has moved on.
                        while outbox.try_recv().is_ok() {}
                    }
                }
            }
        })
    }

    /// Starts the thread of the lobby: it lists the server's dungeons every two seconds until
    /// dropped, reconnecting quietly if the connection drops.
    pub fn lobby(url: String) -> std::io::Result<NetThread> {
        Self::start("delve-lobby", move |mut outbox, inbox| async move {
            let mut attempt = 0u32;
            loop {
                let ended = match Session::connect(&url).await {
                    Ok(mut s) => {
                        attempt = 0;
                        let _ = inbox.send(NetEvent::Connected);
                        let mut tick = tokio::time::interval(Duration::from_secs(2));
                        loop {
                            tokio::select! {
                                _ = tick.tick() => if s.send(&ClientMsg::ListDungeons).await.is_err() { break None },
                                msg = s.recv() => match msg {
                                    Ok(m) => if inbox.send(NetEvent::Msg(Box::new(m))).is_err() { return },
                                    Err(e) => break Some(e.to_string()),
                                },
                                out = outbox.recv() => match out {
                                    Some(m) => if s.send(&m).await.is_err() { break None },
                                    None => return,
                                },
                            }
                        }
                    }
                    Err(e) => Some(e.to_string()),
                };
                attempt += 1;
                let wait = backoff(attempt);
                let reason = ended.unwrap_or_else(|| "the connection dropped".into());
                if inbox
                    .send(NetEvent::Reconnecting {
                        attempt,
                        wait,
                        reason,
                    })
                    .is_err()
                {
                    return;
                }
                tokio::time::sleep(wait).await;
            }
        })
    }

    fn start<F, Fut>(name: &str, body: F) -> std::io::Result<NetThread>
    where
        F: FnOnce(mpsc::UnboundedReceiver<ClientMsg>, std_mpsc::Sender<NetEvent>) -> Fut
            + Send
            + 'static,
        Fut: std::future::Future<Output = ()>,
    {
        let (to_server, outbox) = mpsc::unbounded_channel::<ClientMsg>();
        let (inbox, from_server) = std_mpsc::channel();
        thread::Builder::new().name(name.into()).spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = inbox.send(NetEvent::Ended(format!("cannot start networking: {e}")));
                    return;
                }
            };
            rt.block_on(body(outbox, inbox));
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

    /// The next event, waiting at most `wait` (for tests and tools without a frame loop).
    pub fn recv_timeout(&self, wait: Duration) -> Option<NetEvent> {
        self.from_server.recv_timeout(wait).ok()
    }

    /// Waits up to `wait` for the thread to finish (it does after `Ended`), skipping events;
    /// `true` once it has.
    pub fn finished(&self, wait: Duration) -> bool {
        let until = std::time::Instant::now() + wait;
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            match self.from_server.recv_timeout(left) {
                Ok(_) => continue,
                Err(std_mpsc::RecvTimeoutError::Disconnected) => return true,
                Err(std_mpsc::RecvTimeoutError::Timeout) => return false,
            }
        }
    }
}

/// One connection of a game session, until it ends. Keeps `hello`'s token current, so a
/// reconnection resumes the character.
async fn game_session(
    url: &str,
    hello: &mut ClientMsg,
    outbox: &mut mpsc::UnboundedReceiver<ClientMsg>,
    inbox: &std_mpsc::Sender<NetEvent>,
    attempt: &mut u32,
) -> Outcome {
    let mut session = match Session::connect(url).await {
        Ok(s) => s,
        Err(e) => return Outcome::Lost(e.to_string()),
    };
    if let Err(e) = session.send(hello).await {
        return Outcome::Lost(e.to_string());
    }
    if inbox.send(NetEvent::Connected).is_err() {
        return Outcome::Quit;
    }
    let mut state = GameState::new(hello, attempt);
    loop {
        tokio::select! {
            msg = session.recv() => match msg {
                Ok(m) => {
                    let reaction = state.react(&m);
                    if reaction.resend_hello && session.send(&*state.hello).await.is_err() {
                        return Outcome::Lost("the connection dropped".into());
                    }
                    if inbox.send(NetEvent::Msg(Box::new(m))).is_err() {
                        return Outcome::Quit;
                    }
                    if let Some(reason) = reaction.fatal {
                        return Outcome::Fatal(reason);
                    }
                }
                Err(NetError::Closed { code, reason }) if fatal_close(code) => {
                    return Outcome::Fatal(format!("the server closed the connection ({code}): {reason}"));
                }
                Err(e) => return Outcome::Lost(e.to_string()),
            },
            out = outbox.recv() => match out {
                Some(m) => if let Err(e) = session.send(&m).await {
                    return Outcome::Lost(e.to_string());
                },
                // The UI is gone: close politely, but don't hang on it.
                None => {
                    let _ = tokio::time::timeout(Duration::from_secs(1), session.close()).await;
                    return Outcome::Quit;
                }
            },
        }
    }
}

impl Link for NetThread {
    fn game(url: String, hello: ClientMsg) -> std::io::Result<Self> {
        NetThread::spawn(url, hello)
    }

    fn lobby(url: String) -> std::io::Result<Self> {
        NetThread::lobby(url)
    }

    fn send(&mut self, msg: ClientMsg) {
        NetThread::send(self, msg);
    }

    fn try_recv(&mut self) -> Option<NetEvent> {
        NetThread::try_recv(self)
    }
}
