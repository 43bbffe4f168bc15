//! Nothing acknowledged is lost: the real `delve-server` process, on a data directory in a temp
//! dir, plays a few hundred turns with two clients, is killed with SIGKILL, and is started again
//! on the same directory. Both clients resume with their tokens and find their characters
//! exactly as the last update they received left them; they play on; the server stops cleanly.
//! Then the world the server saved must hash the same as an uninterrupted engine run fed the
//! dungeon's seed and every journaled input from the start, and `delve-server replay` must
//! print that same hash.

#![cfg(unix)]
#![allow(clippy::unwrap_used)] // a test that cannot go on should stop right there

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::Duration;

use delve_protocol::{ClientMsg, Dir, ServerMsg, View, decode_server, encode};
use delve_server::game::content::BUILTIN;
use delve_server::game::input::Input;
use delve_server::game::{Content, Dungeon};
use delve_server::store::{Store, StoreOptions};
use futures_util::{SinkExt, StreamExt};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

const WAIT: Duration = Duration::from_secs(20);

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The real server process and its log lines.
struct Proc {
    child: Child,
    log: Receiver<String>,
}

impl Proc {
    fn start(port: u16, data: &Path, content: &Path) -> Proc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_delve-server"))
            .args(["--bind", &format!("127.0.0.1:{port}"), "--data-dir"])
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
                "--snapshot-every",
                "40",
                "--keep-journal",
                "--rate",
                "100000",
                "--burst",
                "100000",
            ])
            .env("RUST_LOG", "info")
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
        let p = Proc { child, log };
        p.wait_for("listening");
        p
    }

    /// Waits for a log line containing `what`, and returns it.
    fn wait_for(&self, what: &str) -> String {
        loop {
            let line = self
                .log
                .recv_timeout(WAIT)
                .unwrap_or_else(|_| panic!("the server never logged {what:?}"));
            if line.contains(what) {
                return line;
            }
        }
    }
}

/// A bare client: the view it built from the welcome and every update since.
struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    name: String,
    token: String,
    view: View,
    seq: u64,
}

async fn next_msg(ws: &mut WebSocketStream<MaybeTlsStream<TcpStream>>) -> ServerMsg {
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
    async fn join(port: u16, name: &str, token: Option<String>) -> Client {
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}"))
            .await
            .expect("connects");
        let hello = ClientMsg::Hello {
            version: delve_protocol::PROTOCOL_VERSION,
            name: name.into(),
            dungeon: "crypt".into(),
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
                    return Client {
                        ws,
                        name: name.into(),
                        token: token.expect("a player gets a token"),
                        view,
                        seq,
                    };
                }
                ServerMsg::Error { code, message } => panic!("{name}: {code:?} {message}"),
                _ => {}
            }
        }
    }

    async fn send(&mut self, msg: &ClientMsg) {
        self.ws.send(Message::text(encode(msg))).await.unwrap();
    }

    /// Reads until the view reaches floor turn `turn`.
    async fn until_turn(&mut self, turn: u64) {
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
                ServerMsg::Error { code, message } => {
                    panic!("{}: {code:?} {message}", self.name)
                }
                _ => {}
            }
        }
    }

    /// A random step its own view allows, or a wait.
    fn intent(&self, rng: &mut ChaCha8Rng) -> ClientMsg {
        let v = &self.view;
        let open: Vec<Dir> = Dir::ALL
            .into_iter()
            .filter(|&d| {
                let to = v.me.pos.step(d);
                v.map.get(to).is_walkable() && v.entities.iter().all(|e| e.pos != to)
            })
            .collect();
        match open.choose(rng) {
            Some(&dir) if rng.random_ratio(9, 10) => ClientMsg::Move { dir },
            _ => ClientMsg::Wait,
        }
    }
}

/// Both play `turns` turns on floor 1 (the floor waits for both).
async fn play(ann: &mut Client, bob: &mut Client, turns: u64, rng: &mut ChaCha8Rng) {
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
fn world_part(v: &View) -> impl PartialEq + std::fmt::Debug {
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

/// Runs `delve-server replay` and returns what it printed.
fn replay_cli(data: &Path, content: &Path, from_start: bool) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_delve-server"));
    cmd.args(["replay", "--dungeon", "crypt", "--data-dir"])
        .arg(data)
        .arg("--content")
        .arg(content);
    if from_start {
        cmd.arg("--from-start");
    }
    let out = cmd.output().expect("replay runs");
    assert!(
        out.status.success(),
        "replay failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test]
async fn a_killed_server_loses_no_acknowledged_turn_and_replays_to_the_same_world() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // Characters too tough to die, so the walk lasts; monsters still roam and fight.
    let content_file = dir.path().join("content.toml");
    let text = BUILTIN.replacen("hp = 25\n", "hp = 100000\n", 1);
    assert_ne!(text, BUILTIN);
    std::fs::write(&content_file, &text).unwrap();
    let content = Arc::new(Content::parse(&text, "content.toml").unwrap());
    let mut rng = ChaCha8Rng::seed_from_u64(7);

    let port = free_port();
    let mut server = Proc::start(port, &data, &content_file);
    let mut ann = Client::join(port, "Ann", None).await;
    let mut bob = Client::join(port, "Bob", None).await;
    play(&mut ann, &mut bob, 300, &mut rng).await;
    // Both have the update of the last turn and have chosen nothing since, so the floor cannot
    // have moved on. Kill the server without warning.
    let (ann_before, bob_before) = (ann.view.clone(), bob.view.clone());
    let (ann_token, bob_token) = (ann.token.clone(), bob.token.clone());
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    drop((ann, bob));

    // The database holds a snapshot (one every 40 entries) and the journal after it, so
    // loading goes through both.
    let store = Store::open(&data, StoreOptions::default()).unwrap();
    let row = store
        .find_dungeon("crypt")
        .unwrap()
        .expect("the dungeon is saved");
    let saved = store.load(row.id).unwrap();
    assert!(saved.snapshot.is_some(), "a snapshot was taken");
    assert!(!saved.journal.is_empty(), "turns after it are journaled");
    drop(store);

    // Started again on the same directory, it loads the dungeon when the players come back.
    let mut server = Proc::start(port, &data, &content_file);
    let mut ann = Client::join(port, "Ann", Some(ann_token)).await;
    let line = server.wait_for("dungeon loaded");
    assert!(line.contains("crypt"), "{line}");
    let mut bob = Client::join(port, "Bob", Some(bob_token)).await;
    // Every turn they were told of is there, exactly.
    assert_eq!(
        world_part(&ann.view),
        world_part(&ann_before),
        "Ann's world"
    );
    assert_eq!(
        world_part(&bob.view),
        world_part(&bob_before),
        "Bob's world"
    );
    play(&mut ann, &mut bob, 60, &mut rng).await;

    // A clean stop saves the world; the log gives its hash.
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let saved_line = server.wait_for("dungeon saved");
    assert!(server.child.wait().unwrap().success());
    let live_hash = saved_line
        .split("hash=")
        .nth(1)
        .and_then(|h| h.split_whitespace().next())
        .expect("the log line carries the hash")
        .to_string();

    // An uninterrupted engine run: the dungeon's seed and every input ever journaled.
    let store = Store::open(&data, StoreOptions::default()).unwrap();
    let row = store.find_dungeon("crypt").unwrap().unwrap();
    let journal = store.journal(row.id).unwrap();
    assert_eq!(
        journal.first().map(|(s, _)| *s),
        Some(1),
        "the whole journal is kept"
    );
    let mut reference = Dungeon::new(row.seed, Arc::clone(&content));
    for (_, entry) in &journal {
        let input: Input = postcard::from_bytes(entry).unwrap();
        reference.replay(&input);
    }
    let turns = reference.floor(1).unwrap().turn;
    assert_eq!(turns, 360, "300 turns before the kill and 60 after");
    assert_eq!(
        reference.state_hash(),
        live_hash,
        "the recovered world is the same world"
    );
    let saved = store.load(row.id).unwrap();
    assert_eq!(saved.snapshot.map(|s| s.2), Some(live_hash.clone()));
    drop(store);

    // And the replay command prints it too, from the snapshot and from the seed.
    for from_start in [false, true] {
        let out = replay_cli(&data, &content_file, from_start);
        assert!(out.contains(&format!("state hash: {live_hash}")), "{out}");
    }
}
