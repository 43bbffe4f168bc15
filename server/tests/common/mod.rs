//! Helpers for the tests that run the real server: the `delve-server` process, and a bare
//! WebSocket client that builds its view from the welcome and the updates.

#![allow(dead_code, clippy::unwrap_used)] // each test file uses some; a broken helper should stop the test

use delve_protocol::Action;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use delve_protocol::{ClientMsg, Dir, ServerMsg, View, decode_server, encode};
use futures_util::{SinkExt, StreamExt};
use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub const WAIT: Duration = Duration::from_secs(20);

/// A port nothing is bound to now, for a server process to listen on. Chosen below the range
/// the system takes the local ports of outgoing connections from: a test that kills its server
/// and starts it again on the same port (crash_recovery does so 20 times) must find the port
/// still free, and any connection another test opens meanwhile may be given a port of that
/// range as its own.
pub fn free_port() -> u16 {
    let outgoing = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32_768);
    const LOWEST: u16 = 20_000;
    if outgoing > LOWEST {
        let mut rng = rand::rng();
        for _ in 0..1_000 {
            let port = rng.random_range(LOWEST..outgoing);
            if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
                return port;
            }
        }
    }
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The real server process and its log lines.
pub struct Proc {
    pub child: Child,
    pub log: Receiver<String>,
}

impl Proc {
    /// Starts the server on `port` with a data directory and content file, plus `extra`
    /// arguments, and waits until it listens.
    pub fn start(port: u16, data: &Path, content: &Path, extra: &[&str]) -> Proc {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_delve-server"));
        cmd.args(["--bind", &format!("127.0.0.1:{port}"), "--data-dir"])
            .arg(data)
            .arg("--content")
            .arg(content)
            .args([
                "--seed",
                "7",
                "--turn-timeout",
                "0",
                "--grace",
                "600",
                "--rate",
                "100000",
                "--burst",
                "100000",
                // Every test connects from 127.0.0.1: the budget has its own test.
                "--new-dungeons-per-address",
                "1000",
            ])
            .args(extra)
            .env("RUST_LOG", "info");
        let p = Proc::spawn(cmd);
        // "listening" alone would also match the error that says where it failed to listen.
        let line = p.wait_for(" listening ");
        assert!(
            !line.contains("cannot start"),
            "the server did not start: {line}"
        );
        p
    }

    /// Runs `cmd` (the server, configured), reading its log from its stderr; stdout is dropped.
    pub fn spawn(mut cmd: Command) -> Proc {
        let mut child = cmd
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("server starts");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, log) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Proc { child, log }
    }

    /// Waits for a log line containing `what`, and returns it. Gives up after a minute of other
    /// lines, or `WAIT` without any.
    pub fn wait_for(&self, what: &str) -> String {
        let give_up = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let line = self
                .log
                .recv_timeout(WAIT)
                .unwrap_or_else(|_| panic!("the server never logged {what:?}"));
            if line.contains(what) {
                return line;
            }
            assert!(
                std::time::Instant::now() < give_up,
                "the server logged other things for a minute, never {what:?}; the last: {line}"
            );
        }
    }
}

/// A server a test is done with is killed, so no test leaves one running.
impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A bare client: the view it built from the welcome and every update since.
pub struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub name: String,
    pub token: String,
    pub view: View,
    pub seq: u64,
}

pub async fn next_msg(ws: &mut WebSocketStream<MaybeTlsStream<TcpStream>>) -> ServerMsg {
    loop {
        let frame = tokio::time::timeout(WAIT, ws.next())
            .await
            .expect("a frame in time")
            .expect("the socket is open")
            .expect("a good frame");
        if let Message::Text(t) = frame {
            return decode_server(&t).expect("a message we know");
        }
    }
}

impl Client {
    pub async fn join(port: u16, name: &str, token: Option<String>) -> Client {
        match Client::try_join(port, name, token).await {
            Ok(c) => c,
            Err((code, message)) => panic!("{name}: {code:?} {message}"),
        }
    }

    /// Joins, or returns the error the server answered the hello with.
    pub async fn try_join(
        port: u16,
        name: &str,
        token: Option<String>,
    ) -> Result<Client, (delve_protocol::ErrorCode, String)> {
        Client::try_join_in(port, "crypt", name, token).await
    }

    /// Joins `dungeon`, or returns the error the server answered the hello with.
    pub async fn try_join_in(
        port: u16,
        dungeon: &str,
        name: &str,
        token: Option<String>,
    ) -> Result<Client, (delve_protocol::ErrorCode, String)> {
        Client::try_join_from(port, [127, 0, 0, 1].into(), dungeon, name, token).await
    }

    /// Joins `dungeon` from the local address `from` (any of 127.0.0.0/8), or returns the
    /// error the server answered the hello with.
    pub async fn try_join_from(
        port: u16,
        from: std::net::IpAddr,
        dungeon: &str,
        name: &str,
        token: Option<String>,
    ) -> Result<Client, (delve_protocol::ErrorCode, String)> {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(std::net::SocketAddr::new(from, 0)).unwrap();
        let stream = socket
            .connect(([127, 0, 0, 1], port).into())
            .await
            .expect("connects");
        let (mut ws, _) = tokio_tungstenite::client_async(
            format!("ws://127.0.0.1:{port}"),
            MaybeTlsStream::Plain(stream),
        )
        .await
        .expect("upgrades");
        let hello = ClientMsg::Hello {
            version: delve_protocol::PROTOCOL_VERSION,
            name: name.into(),
            dungeon: dungeon.into(),
            token,
            password: None,
            watch: None,
        };
        ws.send(Message::text(encode(&hello))).await.unwrap();
        loop {
            match next_msg(&mut ws).await {
                ServerMsg::Welcome {
                    token, seq, view, ..
                } => {
                    return Ok(Client {
                        ws,
                        name: name.into(),
                        token: token.expect("a player gets a token"),
                        view,
                        seq,
                    });
                }
                ServerMsg::Error { code, message, .. } => return Err((code, message)),
                _ => {}
            }
        }
    }

    pub async fn send(&mut self, msg: &ClientMsg) {
        self.ws.send(Message::text(encode(msg))).await.unwrap();
    }

    /// Reads until the view reaches floor turn `turn`.
    pub async fn until_turn(&mut self, turn: u64) {
        while self.view.turn < turn {
            match next_msg(&mut self.ws).await {
                ServerMsg::Update {
                    seq, turn: t, diff, ..
                } => {
                    assert_eq!(seq, self.seq + 1, "{}: updates in order", self.name);
                    self.view.apply(t, &diff).expect("the diff applies");
                    self.seq = seq;
                }
                ServerMsg::Snapshot { seq, view } => {
                    self.view = view;
                    self.seq = seq;
                }
                ServerMsg::Error { code, message, .. } => {
                    panic!("{}: {code:?} {message}", self.name)
                }
                _ => {}
            }
        }
    }

    /// A random step its own view allows, or a wait.
    pub fn intent(&self, rng: &mut ChaCha8Rng) -> ClientMsg {
        let v = &self.view;
        let open: Vec<Dir> = Dir::ALL
            .into_iter()
            .filter(|&d| {
                let to = v.me.pos.step(d);
                v.map.get(to).is_walkable() && v.entities.iter().all(|e| e.pos != to)
            })
            .collect();
        match open.choose(rng) {
            Some(&dir) if rng.random_ratio(9, 10) => ClientMsg::Act(Action::Move { dir }),
            _ => ClientMsg::Act(Action::Wait),
        }
    }
}

/// Both play `turns` turns on floor 1 (the floor waits for both).
pub async fn play(ann: &mut Client, bob: &mut Client, turns: u64, rng: &mut ChaCha8Rng) {
    for _ in 0..turns {
        let turn = ann.view.turn + 1;
        let (a, b) = (ann.intent(rng), bob.intent(rng));
        ann.send(&a).await;
        bob.send(&b).await;
        ann.until_turn(turn).await;
        bob.until_turn(turn).await;
    }
}

/// The parts of a view that belong to the world (not the party panel, which says who is
/// connected right now).
pub fn world_part(v: &View) -> impl PartialEq + std::fmt::Debug {
    (
        v.turn,
        v.depth,
        v.map.clone(),
        v.visible.clone(),
        v.entities.clone(),
        v.me.clone(),
        v.inventory.clone(),
    )
}

/// A content file in `dir` with characters too tough to die, so a long walk never ends in
/// death; monsters still roam and fight.
pub fn tough_content(dir: &Path) -> std::path::PathBuf {
    let builtin = delve_server::game::content::BUILTIN;
    let path = dir.join("content.toml");
    let text = builtin.replacen("hp = 25\n", "hp = 100000\n", 1);
    assert_ne!(text, builtin);
    std::fs::write(&path, text).unwrap();
    path
}

/// Stops the server with SIGTERM, as an operator would, and returns how it exited.
pub fn stop(server: &mut Proc) -> std::process::ExitStatus {
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    server.child.wait().unwrap()
}

/// Runs `delve-server replay` on the dungeon `crypt` of `data`.
pub fn replay(data: &Path, content: &Path, from_start: bool) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_delve-server"));
    cmd.args(["replay", "--dungeon", "crypt", "--data-dir"])
        .arg(data)
        .arg("--content")
        .arg(content);
    if from_start {
        cmd.arg("--from-start");
    }
    cmd.output().unwrap()
}
