//! What the window tests share beyond a display: a real server on a loopback port, the client
//! binary playing a script against it, and the content files the scripted games need. Each test
//! file uses its own part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use delve_server::game::content::Content;
use delve_server::net::{Server, ServerConfig};

use super::common::Xvfb;

/// How long a client may take to play its script.
pub const CLIENT_PATIENCE: Duration = Duration::from_secs(120);

/// A real server on a loopback port, in a runtime of its own.
pub struct TestServer {
    rt: tokio::runtime::Runtime,
    server: Option<Server>,
    config: ServerConfig,
}

impl TestServer {
    pub fn start(content: &str, data: &Path) -> TestServer {
        TestServer::with_timer(content, data, Duration::ZERO)
    }

    /// A server whose floors wait `turn_timeout` after a turn's first choice (zero: for every
    /// connected player).
    pub fn with_timer(content: &str, data: &Path, turn_timeout: Duration) -> TestServer {
        let content = Content::parse(content, "test content").expect("content parses");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("test files and runtime");
        let config = ServerConfig {
            bind: ([127, 0, 0, 1], 0).into(),
            turn_timeout,
            // A scripted client draws every animation finished, so its walks go as fast as the
            // frames: past the 20 messages a second a player is allowed, and a dropped step
            // leaves the walk waiting for a turn that never comes (the server says so only
            // once a second). The limits have tests of their own.
            msgs_per_sec: 10_000,
            msg_burst: 10_000,
            seed: Some(7),
            data_dir: Some(data.to_owned()),
            web: false,
            content: Arc::new(content),
            ..ServerConfig::default()
        };
        let server = rt
            .block_on(Server::start(config.clone()))
            .expect("server starts");
        let mut config = config;
        // Come back on the same port when restarted.
        config.bind = server.local_addr();
        TestServer {
            rt,
            server: Some(server),
            config,
        }
    }

    pub fn url(&self) -> String {
        format!("ws://{}", self.config.bind)
    }

    pub fn stop(&mut self) {
        if let Some(s) = self.server.take() {
            self.rt
                .block_on(s.shutdown())
                .expect("every dungeon is saved");
        }
    }

    pub fn restart(&mut self) {
        self.stop();
        let s = self
            .rt
            .block_on(Server::start(self.config.clone()))
            .expect("server restarts");
        self.server = Some(s);
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Runs the client with a script; `on_shot` hears of each picture saved, as it is saved.
pub fn play(
    x: &Xvfb,
    size: &str,
    args: &[&str],
    script: &str,
    home: &Path,
    mut on_shot: impl FnMut(&str),
) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_delve"))
        .args(args)
        .args(["--name", "Ann", "--size", size, "--script", script])
        .env("DISPLAY", &x.display)
        .env("DELVE_CONFIG_DIR", home.join("config"))
        .env("DELVE_DATA_DIR", home.join("data"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the client starts");
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + CLIENT_PATIENCE;
    loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => {
                if let Some(path) = line.strip_prefix("saved ") {
                    on_shot(path);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                panic!("the client did not finish its script in {CLIENT_PATIENCE:?}");
            }
        }
    }
    let out = child.wait_with_output().expect("the client ends");
    assert!(
        out.status.success(),
        "the client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The built-in content with the Micro Mouse changed by `edit` (to make a game end, or level
/// up, within a few scripted turns).
pub fn content_with(edit: impl Fn(&str) -> String) -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/content/delve.toml"),
    )
    .expect("the content file");
    let start = text.find("key = \"micro_mouse\"").expect("a micro mouse");
    let end = start + text[start..].find("[[monster]]").expect("another monster");
    format!(
        "{}{}{}",
        &text[..start],
        edit(&text[start..end]),
        &text[end..]
    )
}

/// A floor 1 strewn with Darts (the only loose things), and Micro Mice too tough to die in
/// the few blows the test strikes and too weak to kill.
pub fn darts() -> String {
    let dart = "thrown = { damage = [2, 5], range = 6, lands = true }";
    let text = content_with(|m| {
        m.replace("hp = [1, 4]", "hp = [40, 40]")
            .replace("attack = [1, 3]", "attack = [1, 1]")
    })
    .replace("loose = [0, 2]", "loose = [30, 30]")
    .replace("\nloose = true", "")
    .replace(dart, &format!("{dart}\nloose = true"));
    assert!(text.contains("loose = [30, 30]") && text.contains("range = 6, lands = true }\nloose"));
    text
}

pub fn builtin() -> String {
    content_with(str::to_string)
}

/// The first eight kinds of item, which the pictures of the pack were made with.
const FIRST_ITEMS: [&str; 8] = [
    "health_pack",
    "key",
    "antivenom",
    "crowbar",
    "stun_baton",
    "biker_jacket",
    "bulletproof_vest",
    "microchip",
];

/// The built-in content with a floor strewn with things: every kind of item of the first eight
/// may lie loose, and many do (the later kinds are not found at all, so the pack's picture
/// stays the same game); no monsters come to interrupt the gathering.
pub fn strewn() -> String {
    let text = builtin();
    let (head, items) = text.split_at(text.find("[[item]]").expect("items"));
    let items: String = items
        .split("[[item]]")
        .filter(|b| !b.trim().is_empty())
        .map(|b| {
            let first = FIRST_ITEMS
                .iter()
                .any(|k| b.contains(&format!("key = \"{k}\"")));
            if !first {
                let unfound: Vec<String> = (b.lines())
                    .map(|l| match l.split_once(" = ") {
                        Some(("weight" | "vault_weight", _)) => {
                            format!("{} = 0", l.split(' ').next().unwrap_or(""))
                        }
                        _ => l.to_string(),
                    })
                    .collect();
                format!("[[item]]{}\n\n", unfound.join("\n").trim_end())
            } else if b.contains("loose = true") {
                format!("[[item]]{b}")
            } else {
                format!("[[item]]{}\nloose = true\n\n", b.trim_end())
            }
        })
        .collect();
    let head = head
        .replace("loose = [0, 2]", "loose = [24, 24]")
        .replace("\ncount = 10\n", "\ncount = 0\n")
        .replace("\ncount_per_floor = 2\n", "\ncount_per_floor = 0\n");
    assert!(head.contains("loose = [24, 24]") && head.contains("\ncount = 0\n"));
    head + &items
}
