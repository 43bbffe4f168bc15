//! Screenshot tests: the real client binary, in a real window on a virtual display (Xvfb), plays
//! scripted games (`--script`) against a real server on a loopback port, and each screen it
//! shoots is compared with the picture committed under `client/tests/screens/`.
//!
//! The pictures are still: in a scripted run the client draws every animation finished and every
//! flicker at one fixed phase, and a shot waits until nothing is under way. What may still
//! differ is allowed for: a pixel counts as changed only past a small difference per channel
//! (rasterizers round differently), and a screen may have a few changed pixels (the date in the
//! high-score table). A broken screen changes far more.
//!
//! After a change to what the screens look like, look at the new pictures, then refresh them:
//! `DELVE_UPDATE_SCREENS=1 cargo test -p delve-client --test screens`. Without Xvfb the test
//! says so and passes, except under CI (`CI` set), where it fails.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use delve_server::game::content::Content;
use delve_server::net::{Server, ServerConfig};

mod common;
use common::Xvfb;

/// A channel differing by more than this makes a pixel "changed".
const CHANNEL_TOLERANCE: u8 = 40;
/// The share of changed pixels a screen may have.
const PIXEL_SHARE: f64 = 0.004;
/// How long a client may take to play its script.
const CLIENT_PATIENCE: Duration = Duration::from_secs(120);

fn refs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/screens")
}

/// A real server on a loopback port, in a runtime of its own.
struct TestServer {
    rt: tokio::runtime::Runtime,
    server: Option<Server>,
    config: ServerConfig,
}

impl TestServer {
    fn start(content: &str, data: &Path) -> TestServer {
        let content = Content::parse(content, "test content").expect("content parses");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("test files and runtime");
        let config = ServerConfig {
            bind: ([127, 0, 0, 1], 0).into(),
            turn_timeout: Duration::ZERO,
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

    fn url(&self) -> String {
        format!("ws://{}", self.config.bind)
    }

    fn stop(&mut self) {
        if let Some(s) = self.server.take() {
            self.rt
                .block_on(s.shutdown())
                .expect("every dungeon is saved");
        }
    }

    fn restart(&mut self) {
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
fn play(
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

fn decode(path: &Path) -> (u32, u32, Vec<u8>) {
    let mut d = png::Decoder::new(BufReader::new(
        std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    ));
    d.set_transformations(png::Transformations::EXPAND);
    let mut r = d.read_info().expect("a PNG");
    let mut buf = vec![0; r.output_buffer_size().expect("a size")];
    let info = r.next_frame(&mut buf).expect("a frame");
    let px = info.color_type.samples();
    let rgb: Vec<u8> = buf[..info.buffer_size()]
        .chunks_exact(px)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, rgb)
}

/// Compares a shot with its committed picture (or, when refreshing, replaces the picture).
/// Returns a complaint, or `None` when they match.
fn compare(name: &str, shot: &Path) -> Option<String> {
    let want = refs().join(format!("{name}.png"));
    if std::env::var_os("DELVE_UPDATE_SCREENS").is_some() {
        std::fs::create_dir_all(refs()).expect("test files and runtime");
        std::fs::copy(shot, &want).expect("test files and runtime");
        return None;
    }
    if !want.exists() {
        return Some(format!(
            "{name}: no committed picture {} (refresh with DELVE_UPDATE_SCREENS=1)",
            want.display()
        ));
    }
    let (w1, h1, a) = decode(&want);
    let (w2, h2, b) = decode(shot);
    if (w1, h1) != (w2, h2) {
        return Some(format!("{name}: {w2}x{h2}, but the picture is {w1}x{h1}"));
    }
    let changed = a
        .chunks_exact(3)
        .zip(b.chunks_exact(3))
        .filter(|(p, q)| {
            p.iter()
                .zip(*q)
                .any(|(x, y)| x.abs_diff(*y) > CHANNEL_TOLERANCE)
        })
        .count();
    let share = changed as f64 / f64::from(w1 * h1);
    (share > PIXEL_SHARE).then(|| {
        format!(
            "{name}: {changed} pixels ({:.2}%) differ from {} (see {})",
            share * 100.0,
            want.display(),
            shot.display()
        )
    })
}

/// The built-in content with the Micro Mouse changed by `edit` (to make a game end, or level
/// up, within a few scripted turns).
fn content_with(edit: impl Fn(&str) -> String) -> String {
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

fn builtin() -> String {
    content_with(str::to_string)
}

struct Run {
    dir: PathBuf,
    problems: Vec<String>,
}

impl Run {
    fn new() -> Run {
        let dir = std::env::temp_dir().join("delve-screens");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("test files and runtime");
        Run {
            dir,
            problems: Vec::new(),
        }
    }

    fn home(&self, name: &str) -> PathBuf {
        let h = self.dir.join(name);
        std::fs::create_dir_all(&h).expect("test files and runtime");
        h
    }

    fn shot(&self, name: &str) -> String {
        self.dir.join(format!("{name}.png")).display().to_string()
    }

    fn check(&mut self, path: &str) {
        let p = Path::new(path);
        let name = p
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        if let Some(problem) = compare(&name, p) {
            self.problems.push(problem);
        }
    }
}

#[test]
fn every_screen_looks_as_committed() {
    let Some(x) = Xvfb::start(1920, 1080) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "Xvfb is needed for the screenshot tests (apt-get install xvfb)"
        );
        eprintln!("skipped: no Xvfb here (apt-get install xvfb)");
        return;
    };
    let mut run = Run::new();

    // The game, the hover box, the pack, the character sheet, help and menu, then the server
    // goes away (Esc still opens the menu; the reconnect banner) and comes back.
    {
        let home = run.home("play");
        let mut server = TestServer::start(&builtin(), &home.join("server"));
        let script = format!(
            "idle; key x; idle; key x; idle; shot {game}; hover monster; idle; shot {hover}; \
             key i; frames 2; shot {pack}; key Escape; frames 2; key c; frames 2; \
             shot {sheet}; key Escape; frames 2; key ?; frames 2; shot {help}; key Escape; \
             frames 2; key Escape; frames 2; shot {menu}; key Escape; frames 2; \
             shot {mark}; wait lost; key Escape; frames 2; shot {lost_menu}; key Escape; \
             frames 2; shot {lost}; wait back; idle; shot {back}",
            mark = run.shot("_server-may-go"),
            game = run.shot("game"),
            hover = run.shot("hover"),
            pack = run.shot("pack"),
            sheet = run.shot("character"),
            help = run.shot("help"),
            menu = run.shot("menu"),
            lost_menu = run.shot("menu-offline"),
            lost = run.shot("reconnecting"),
            back = run.shot("reconnected"),
        );
        let url = server.url();
        let mut shots = Vec::new();
        play(
            &x,
            "1280x800",
            &["--server", &url, "--dungeon", "crypt"],
            &script,
            &home,
            |path| {
                shots.push(path.to_string());
                if path.ends_with("_server-may-go.png") {
                    server.stop();
                } else if path.ends_with("reconnecting.png") {
                    server.restart();
                }
            },
        );
        assert_eq!(shots.len(), 10, "{shots:?}");
        // The marker only tells the test when to stop the server.
        for s in shots.iter().filter(|s| !s.contains("/_")) {
            run.check(s);
        }
    }

    // The smallest window the panel stands beside the map in, a large one, and one below it
    // (the panel folds into a bar over the map; help and the other screens shrink to fit).
    for (size, name) in [
        ("800x600", "game-800x600"),
        ("1920x1080", "game-1920x1080"),
        ("640x480", "game-640x480"),
    ] {
        let home = run.home(name);
        let server = TestServer::start(&builtin(), &home.join("server"));
        let script = format!(
            "idle; key x; idle; key x; idle; hover monster; idle; shot {}; key ?; frames 2; \
             shot {}",
            run.shot(name),
            run.shot(&format!("help-{}", &name[5..])),
        );
        let mut shots = Vec::new();
        play(
            &x,
            size,
            &["--server", &server.url(), "--dungeon", "crypt"],
            &script,
            &home,
            |p| shots.push(p.to_string()),
        );
        for s in &shots {
            run.check(s);
        }
    }

    // Death, with its character dump, then the high scores.
    {
        let home = run.home("death");
        let deadly = content_with(|m| {
            m.replace("hp = [1, 4]", "hp = [60, 60]")
                .replace("attack = [1, 3]", "attack = [40, 40]")
        });
        let server = TestServer::start(&deadly, &home.join("server"));
        let script = format!(
            "idle; key x; idle; key x; idle; click monster; idle; click monster; idle; \
             click monster; idle; wait dead; idle; shot {}; key Tab; wait scores; frames 2; \
             shot {}",
            run.shot("death"),
            run.shot("scores"),
        );
        let mut shots = Vec::new();
        play(
            &x,
            "1280x800",
            &["--server", &server.url(), "--dungeon", "crypt"],
            &script,
            &home,
            |p| shots.push(p.to_string()),
        );
        for s in &shots {
            run.check(s);
        }
        let morgue: Vec<_> = std::fs::read_dir(home.join("data/morgue"))
            .expect("a morgue folder")
            .filter_map(Result::ok)
            .collect();
        assert_eq!(morgue.len(), 1, "one dump");
        let dump = std::fs::read_to_string(morgue[0].path()).expect("test files and runtime");
        assert!(
            dump.contains("Killed by a Micro Mouse on floor 1."),
            "{dump}"
        );
        assert!(dump.contains("The Micro Mouse hits you for 40."), "{dump}");
    }

    // A level gained: the level-up dialog opens by itself.
    {
        let home = run.home("level-up");
        let generous = content_with(|m| {
            m.replace("hp = [1, 4]", "hp = [1, 1]")
                .replace("attack = [1, 3]", "attack = [1, 1]")
                .replace("xp = 10 ", "xp = 150 ")
        });
        let server = TestServer::start(&generous, &home.join("server"));
        let script = format!(
            "idle; key x; idle; key x; idle; click monster; idle; click monster; idle; \
             frames 2; shot {}",
            run.shot("level-up"),
        );
        let mut shots = Vec::new();
        play(
            &x,
            "1280x800",
            &["--server", &server.url(), "--dungeon", "crypt"],
            &script,
            &home,
            |p| shots.push(p.to_string()),
        );
        for s in &shots {
            run.check(s);
        }
    }

    // The lobby (no dungeon given), shot by --screenshot once it has the server's list.
    {
        let home = run.home("lobby");
        let server = TestServer::start(&builtin(), &home.join("server"));
        let out = Command::new(env!("CARGO_BIN_EXE_delve"))
            .args([
                "--server",
                &server.url(),
                "--name",
                "Ann",
                "--size",
                "1280x800",
            ])
            .args(["--screenshot", &run.shot("lobby"), "--frames", "10"])
            .env("DISPLAY", &x.display)
            .env("DELVE_CONFIG_DIR", home.join("config"))
            .env("DELVE_DATA_DIR", home.join("data"))
            .output()
            .expect("the client runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let shot = run.shot("lobby");
        run.check(&shot);
    }

    assert!(run.problems.is_empty(), "{}", run.problems.join("\n"));
}
