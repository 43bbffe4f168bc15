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
        TestServer::with_timer(content, data, Duration::ZERO)
    }

    /// A server whose floors wait `turn_timeout` after a turn's first choice (zero: for every
    /// connected player).
    fn with_timer(content: &str, data: &Path, turn_timeout: Duration) -> TestServer {
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
fn strewn() -> String {
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

    /// Plays `script` in a `size` window against the server at `url`, and checks every picture
    /// it took against the committed one.
    fn play_and_check(&mut self, x: &Xvfb, size: &str, url: &str, script: &str, home: &Path) {
        let mut shots = Vec::new();
        let args = ["--server", url, "--dungeon", "crypt"];
        play(x, size, &args, script, home, |p| shots.push(p.to_string()));
        for s in &shots {
            self.check(s);
        }
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
             key i; frames 2; shot {empty_pack}; key Escape; frames 2; key c; frames 2; \
             shot {sheet}; key Escape; frames 2; key ?; frames 2; shot {help}; key Escape; \
             frames 2; key Escape; frames 2; shot {menu}; key Escape; frames 2; \
             shot {mark}; wait lost; key Escape; frames 2; shot {lost_menu}; key Escape; \
             frames 2; shot {lost}; wait back; idle; shot {back}",
            mark = run.shot("_server-may-go"),
            game = run.shot("game"),
            hover = run.shot("hover"),
            empty_pack = run.shot("pack-empty"),
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

    // A pack with things in it, gathered by exploring (x walks to the items in sight and picks
    // them up): a Stun Baton and a Biker Jacket put on, more gathered, and the Bulletproof Vest
    // chosen (Up from the first slot wraps to the last) and compared with the jacket it would
    // replace.
    {
        let home = run.home("pack");
        let server = TestServer::start(&strewn(), &home.join("server"));
        let explore = |n: usize| "key x; idle; ".repeat(n);
        let script = format!(
            "idle; {}key i; key Down; key e; key Enter; idle; \
             key i; key Down; key Down; key Down; key e; key Enter; idle; {}\
             key i; key Up; key Up; key Up; key Up; key e; frames 2; shot {}",
            explore(12),
            explore(10),
            run.shot("pack"),
        );
        run.play_and_check(&x, "1280x800", &server.url(), &script, &home);
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
        run.play_and_check(&x, size, &server.url(), &script, &home);
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
        run.play_and_check(&x, "1280x800", &server.url(), &script, &home);
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
        run.play_and_check(&x, "1280x800", &server.url(), &script, &home);
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

/// A client window playing a script, whose printed lines the test reads as they come.
struct Client {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    name: String,
}

impl Client {
    fn start(x: &Xvfb, name: &str, size: &str, url: &str, script: &str, home: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_delve"))
            .args(["--server", url, "--dungeon", "crypt"])
            .args(["--name", name, "--size", size, "--script", script])
            .env("DISPLAY", &x.display)
            .env("DELVE_CONFIG_DIR", home.join("config"))
            .env("DELVE_DATA_DIR", home.join("data"))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the client starts");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            lines,
            name: name.to_string(),
        }
    }

    /// The next line printed, by the deadline; `None` once the client has exited.
    fn line(&mut self, deadline: Instant) -> Option<String> {
        match self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(line) => Some(line),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => None,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                panic!("{}'s client printed nothing more in time", self.name);
            }
        }
    }

    /// Reads lines until one starts with `prefix`, and returns the rest of it.
    fn expect(&mut self, prefix: &str, deadline: Instant) -> String {
        loop {
            match self.line(deadline) {
                Some(l) if l.starts_with(prefix) => return l[prefix.len()..].to_string(),
                Some(_) => {}
                None => panic!("{} exited before printing {prefix:?}", self.name),
            }
        }
    }

    /// Waits for the client to end its script successfully.
    fn finish(mut self, deadline: Instant) {
        while self.line(deadline).is_some() {}
        let status = self.child.wait().expect("the client ends");
        assert!(status.success(), "{}'s client failed: {status}", self.name);
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `X,Y` as printed by a script.
fn cell(text: &str) -> (i32, i32) {
    let (x, y) = text.trim().split_once(',').expect("X,Y");
    (x.parse().expect("a number"), y.parse().expect("a number"))
}

/// Where Ann clicks, from where she stands when she arrives (beside Bob, by the up-stair in the
/// north-east corner of the first room): the room's south-west corner, five steps away, in
/// Bob's sight all the way.
const FAR: (i32, i32) = (-5, 4);

/// Two real clients in one dungeon, each in its own window: Ann left-clicks a cell several steps
/// away, and Bob, who does nothing, sees her walk there one cell a turn. The floor waits for
/// both, so each of Ann's steps resolves when the turn's timer runs out. Played twice, with the
/// two windows at 800x600 and 1920x1080 and then the other way round; both windows' last
/// pictures are compared with the committed `together-*.png` (the panel with a party in a
/// short window, the name over a friend, the same colours on both screens).
#[test]
fn a_far_click_is_watched_from_a_second_client() {
    let Some(x) = Xvfb::start(1920, 1080) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "Xvfb is needed for the window tests (apt-get install xvfb)"
        );
        eprintln!("skipped: no Xvfb here (apt-get install xvfb)");
        return;
    };
    let dir = std::env::temp_dir().join("delve-together");
    let _ = std::fs::remove_dir_all(&dir);
    let mut problems = Vec::new();
    for (ann_size, bob_size) in [("800x600", "1920x1080"), ("1920x1080", "800x600")] {
        let home = dir.join(format!("ann-{ann_size}"));
        let server =
            TestServer::with_timer(&builtin(), &home.join("server"), Duration::from_millis(300));
        let deadline = Instant::now() + CLIENT_PATIENCE;
        let shot = |who: &str, size: &str| {
            dir.join(format!("together-{who}-{size}.png"))
                .display()
                .to_string()
        };
        let (dx, dy) = FAR;
        // Bob first: he is watching for Ann before she arrives, so he sees where she starts.
        let mut bob = Client::start(
            &x,
            "Bob",
            bob_size,
            &server.url(),
            &format!(
                "idle; watch Ann; wait Ann {dx},{dy}; idle; frames 2; shot {}; quit",
                shot("bob", bob_size)
            ),
            &home.join("bob"),
        );
        bob.expect("watching Ann", deadline);
        let mut ann = Client::start(
            &x,
            "Ann",
            ann_size,
            &server.url(),
            &format!(
                "idle; wait Bob; click {dx},{dy}; idle; frames 2; shot {}; wait lost; quit",
                shot("ann", ann_size)
            ),
            &home.join("ann"),
        );
        let click = ann.expect("click ", deadline);
        let (to, from) = click.split_once(" from ").expect("click X,Y from X,Y");
        let (to, from) = (cell(to), cell(from));
        assert_eq!((to.0 - from.0, to.1 - from.1), FAR, "{click}");

        // Every cell Bob sees Ann on, with the floor's turn, until she stands where she clicked.
        let mut trail: Vec<((i32, i32), u64)> = Vec::new();
        while trail.last().is_none_or(|(p, _)| *p != to) {
            let seen = bob.expect("seen Ann ", deadline);
            let (at, turn) = seen.split_once(" turn ").expect("X,Y turn T");
            trail.push((cell(at), turn.parse().expect("a turn")));
        }
        let bob_shot = bob.expect("saved ", deadline);
        let ann_shot = ann.expect("saved ", deadline);
        bob.finish(deadline);
        // Ann stays until Bob has his picture (her leaving would be in his log), then the
        // server goes and her script ends when she sees it gone.
        drop(server);
        ann.finish(deadline);
        for shot in [&ann_shot, &bob_shot] {
            let p = Path::new(shot);
            let name = p.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
            problems.extend(compare(name, p));
        }

        println!("Ann ({ann_size}) clicked {to:?} from {from:?}; Bob ({bob_size}) saw {trail:?}");
        let cells: Vec<_> = trail.iter().map(|(p, _)| *p).collect();
        assert_eq!(
            cells[0], from,
            "Bob first sees Ann where she arrived: {trail:?}"
        );
        let far = (to.0 - from.0).abs().max((to.1 - from.1).abs());
        assert!(far >= 4, "the click is several steps away");
        assert!(
            trail.len() > far as usize,
            "Ann walked cell by cell, at least {far} steps: {trail:?}"
        );
        for pair in trail.windows(2) {
            let (((x0, y0), t0), ((x1, y1), t1)) = (pair[0], pair[1]);
            assert_eq!(
                (x1 - x0).abs().max((y1 - y0).abs()),
                1,
                "one cell at a time: {trail:?}"
            );
            assert_eq!(t1, t0 + 1, "one move a turn: {trail:?}");
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
