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
use std::time::{Duration, Instant};

mod common;
mod window;
use common::Xvfb;
use window::{CLIENT_PATIENCE, TestServer, builtin, content_with, darts, play, strewn};

/// A channel differing by more than this makes a pixel "changed".
const CHANNEL_TOLERANCE: u8 = 40;
/// The share of changed pixels a screen may have.
const PIXEL_SHARE: f64 = 0.004;

fn refs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/screens")
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
        self.play_and_check_with(x, size, &[], url, script, home);
    }

    /// The same, with more arguments for the client (`--touch`).
    fn play_and_check_with(
        &mut self,
        x: &Xvfb,
        size: &str,
        more: &[&str],
        url: &str,
        script: &str,
        home: &Path,
    ) {
        let mut shots = Vec::new();
        let mut args = vec!["--server", url, "--dungeon", "crypt"];
        args.extend_from_slice(more);
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
    let Some(x) = Xvfb::for_test(2560, 1440, "the screenshot tests") else {
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
    // them up): things put on by their place in the pack (today a Bulletproof Vest is worn),
    // more gathered, and the Biker Jacket chosen (Up from the first slot wraps to the last)
    // and compared with the vest it would replace.
    {
        let home = run.home("pack");
        let server = TestServer::start(&strewn(), &home.join("server"));
        let explore = |n: usize| "key x; idle; ".repeat(n);
        let script = format!(
            "idle; {}key i; key Down; key e; key Enter; idle; \
             key i; key Down; key Down; key Down; key e; key Enter; idle; {}\
             key i; {}key e; frames 2; shot {}",
            explore(12),
            explore(10),
            "key Up; ".repeat(9),
            run.shot("pack"),
        );
        run.play_and_check(&x, "1280x800", &server.url(), &script, &home);
    }

    // A full pack, its comparison open, in the smallest window the panel stands beside the map
    // in (the pack takes the whole window rather than squeeze beside the panel) and in a large
    // one (the interface scaled up: the pack fills its box with text as readable as at
    // 1280x800). Exploring the strewn first floor picks up 22 things, the second the rest.
    for size in ["800x600", "2560x1440"] {
        let home = run.home(&format!("pack-{size}"));
        let server = TestServer::start(&strewn(), &home.join("server"));
        let script = format!(
            "idle; {}key >; idle; wait floor 2; {}key i; key Up; key Up; key e; frames 2; shot {}",
            "key x; idle; ".repeat(40),
            "key x; idle; ".repeat(8),
            run.shot(&format!("pack-{size}")),
        );
        run.play_and_check(&x, size, &server.url(), &script, &home);
    }

    // The map in glyphs (the menu's Map line, kept in appearance.toml): the same game, the hover
    // box on a monster's letter, then the pack, which is the same in both.
    {
        let home = run.home("glyphs");
        std::fs::create_dir_all(home.join("config")).expect("test files and runtime");
        std::fs::write(
            home.join("config/appearance.toml"),
            "scale = 100\nglyphs = true\n",
        )
        .expect("test files and runtime");
        let server = TestServer::start(&builtin(), &home.join("server"));
        let script = format!(
            "idle; key x; idle; key x; idle; hover monster; idle; shot {}; key Escape; frames 2; \
             tap row 4; frames 2; shot {}",
            run.shot("glyphs"),
            run.shot("glyphs-menu-tiles"),
        );
        run.play_and_check(&x, "1280x800", &server.url(), &script, &home);
    }

    // A phone's layout (--touch, as a browser on a phone lays itself out): upright, the status
    // bar, the map, a short log and three rows of large buttons, and the pack with its detail
    // under the list; on its side, the buttons down the right. Played by the buttons.
    for size in ["390x844", "844x390"] {
        let home = run.home(&format!("touch-{size}"));
        let server = TestServer::start(&strewn(), &home.join("server"));
        let script = format!(
            "idle; {}shot {}; tap inventory; frames 2; tap row 2; frames 2; shot {}",
            "tap explore; idle; ".repeat(8),
            run.shot(&format!("touch-{size}")),
            run.shot(&format!("touch-pack-{size}")),
        );
        run.play_and_check_with(&x, size, &["--touch"], &server.url(), &script, &home);
    }

    // The glyph mode on a phone (its letters as large as the tiles fingers need), and the
    // phone's help (what a tap, a held finger and each button do), opened from the menu.
    {
        let home = run.home("glyphs-390x844");
        std::fs::create_dir_all(home.join("config")).expect("test files and runtime");
        std::fs::write(
            home.join("config/appearance.toml"),
            "scale = 100\nglyphs = true\n",
        )
        .expect("test files and runtime");
        let server = TestServer::start(&builtin(), &home.join("server"));
        let script = format!(
            "idle; tap explore; idle; tap explore; idle; shot {}; tap menu; tap row 1; \
             frames 2; shot {}",
            run.shot("glyphs-390x844"),
            run.shot("help-390x844"),
        );
        run.play_and_check_with(&x, "390x844", &["--touch"], &server.url(), &script, &home);
    }

    // Aiming a Dart (picked up on the way) at a mouse: on a phone, and by mouse in a large
    // window: the line, the cell aimed at, and the bar with its buttons, off the target.
    for (size, more) in [("390x844", &["--touch"][..]), ("1920x1080", &[][..])] {
        let home = run.home(&format!("aim-{size}"));
        let server = TestServer::start(&darts(), &home.join("server"));
        let script = format!(
            "idle; {}tap fire; frames 2; shot {}",
            "tap explore; idle; ".repeat(12),
            run.shot(&format!("aim-{size}")),
        );
        run.play_and_check_with(&x, size, more, &server.url(), &script, &home);
    }

    // The smallest window the panel stands beside the map in, large ones (the interface grows
    // with them), and one below it (the panel folds into a bar over the map; help and the
    // other screens shrink to fit).
    for (size, name) in [
        ("800x600", "game-800x600"),
        ("1920x1080", "game-1920x1080"),
        ("2560x1440", "game-2560x1440"),
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

    // Death, with its character dump, then the high scores. Keys pressed as the blow lands
    // (h: high scores, n: a new character) are ignored: the summary stays.
    {
        let home = run.home("death");
        let deadly = content_with(|m| {
            m.replace("hp = [1, 4]", "hp = [60, 60]")
                .replace("attack = [1, 3]", "attack = [40, 40]")
        });
        let server = TestServer::start(&deadly, &home.join("server"));
        let script = format!(
            "idle; key x; idle; key x; idle; click monster; wait dead; rush h; rush n; frames 3; \
             idle; shot {}; key Tab; \
             wait scores; frames 2; \
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

    // A character taken back by a later game (the client started again): the log opens with
    // the lines kept from last time, then where the character stands.
    {
        let home = run.home("resume");
        let server = TestServer::start(&builtin(), &home.join("server"));
        let first = "idle; key x; idle; key x; idle; quit";
        run.play_and_check(&x, "1280x800", &server.url(), first, &home);
        let again = format!(
            "idle; wait log Welcome back; frames 2; shot {}",
            run.shot("resumed")
        );
        run.play_and_check(&x, "1280x800", &server.url(), &again, &home);
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
/// Bob's turn timer until he counts as away (both panels then say so). Played twice, with the
/// two windows at 800x600 and 1920x1080 and then the other way round; both windows' last
/// pictures are compared with the committed `together-*.png` (the panel with a party in a
/// short window, the name over a friend, the same colours on both screens).
#[test]
fn a_far_click_is_watched_from_a_second_client() {
    let Some(x) = Xvfb::for_test(1920, 1080, "the window tests") else {
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
                "idle; watch Ann; wait Ann {dx},{dy}; marked Ann; idle; frames 2; shot {}; quit",
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
                "idle; wait Bob; click {dx},{dy}; idle; frames 2; shot {}; mark 0,0; wait lost; quit",
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
        // Bob takes his picture, and leaves, once Ann has hers: she marks her cell to tell him
        // so (her mark is in his picture, never in hers; his leaving would be in her log). Ann
        // stays until Bob has his (hers would be in his), then the server goes and her script
        // ends when she sees it gone.
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

/// Friends mark spots for each other: Ann marks the cell east of her by a right click, then
/// the one south of her with the mark key over it (a new mark replaces the old), and Bob, on
/// the same floor, sees each where she marked it. Both windows' last pictures are saved to
/// look at (the ring and its tag on the map, the ring on the minimap, Bob on Ann's minimap).
#[test]
fn a_friend_sees_the_spots_marked_by_right_click_and_by_key() {
    let Some(x) = Xvfb::for_test(1280, 800, "the window tests") else {
        return;
    };
    let dir = std::env::temp_dir().join("delve-marks");
    let _ = std::fs::remove_dir_all(&dir);
    let server =
        TestServer::with_timer(&builtin(), &dir.join("server"), Duration::from_millis(300));
    let deadline = Instant::now() + CLIENT_PATIENCE;
    let shot = |who: &str| dir.join(format!("marks-{who}.png")).display().to_string();
    let mut bob = Client::start(
        &x,
        "Bob",
        "1280x800",
        &server.url(),
        &format!(
            "idle; wait Ann; marked Ann; marked Ann; frames 2; shot {}; quit",
            shot("bob")
        ),
        &dir.join("bob"),
    );
    let mut ann = Client::start(
        &x,
        "Ann",
        "1280x800",
        &server.url(),
        &format!(
            "idle; wait Bob; mark 1,0; marked Ann; key .; idle; hover 0,1; key '; marked Ann; \
             frames 2; shot {}; quit",
            shot("ann")
        ),
        &dir.join("ann"),
    );
    let right = ann.expect("mark ", deadline);
    let (to, from) = right.split_once(" from ").expect("mark X,Y from X,Y");
    let (to, from) = (cell(to), cell(from));
    assert_eq!((to.0 - from.0, to.1 - from.1), (1, 0), "{right}");
    let first = cell(&bob.expect("marked Ann ", deadline));
    assert_eq!(
        first, to,
        "Bob sees the right-clicked spot where Ann marked it"
    );
    let second = cell(&bob.expect("marked Ann ", deadline));
    assert_eq!(
        second,
        (from.0, from.1 + 1),
        "the key marks the cell under the mouse"
    );
    ann.finish(deadline);
    bob.finish(deadline);
}
