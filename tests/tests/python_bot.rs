//! The Python bot a stranger is told to run (`examples/bot.py`, docs/PROTOCOL.md) plays against a
//! real server over a real socket, and a native watcher then checks from the outside that the bot
//! really joined and played the turns it says it did.
//!
//! Needs `python3` on the PATH. Without it the test fails when `CI=true` and is skipped (with the
//! reason printed) otherwise.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use delve_tests::{Bot, TestServer, sturdy_config};

/// Turns the bot is asked to play: enough for a fight or two and several resync checks.
const TURNS: u64 = 60;
/// The bot paces itself at 0.1 s a turn; this leaves ample room on a busy machine.
const BOT_LIMIT: Duration = Duration::from_secs(120);

fn python_available() -> bool {
    Command::new("python3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The number in `line` just before `word` ("60 turns" -> 60 for "turns").
fn number_before(line: &str, word: &str) -> u64 {
    let words: Vec<&str> = line
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let at = words
        .iter()
        .position(|w| *w == word)
        .unwrap_or_else(|| panic!("no {word:?} in the bot's summary {line:?}"));
    words[at - 1]
        .parse()
        .unwrap_or_else(|_| panic!("no number before {word:?} in {line:?}"))
}

/// The number in `line` just after `word` ("level 2" -> 2 for "level").
fn number_after(line: &str, word: &str) -> u64 {
    let rest = line
        .split_once(&format!("{word} "))
        .unwrap_or_else(|| panic!("no {word:?} in the bot's summary {line:?}"))
        .1;
    rest.split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after {word:?} in {line:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_bot_joins_a_real_server_and_plays_its_turns() {
    if !python_available() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("python3 is not on the PATH, and CI must run examples/bot.py");
        }
        eprintln!("SKIPPED: python3 is not on the PATH, so examples/bot.py cannot be run");
        return;
    }
    // The real game's monsters, but players too tough to die: every turn the bot plays is a
    // turn its one character lives through, which the watcher can then count.
    let server = TestServer::start(sturdy_config()).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/bot.py");
    let mut child = Command::new("python3")
        .arg(script)
        .arg(&server.url)
        .arg("pybot")
        .arg("Robo")
        .arg(TURNS.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");

    // Read the bot's output on threads; the end of its stdout is the end of the bot.
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let mut out = String::new();
        let read = stdout.read_to_string(&mut out);
        let _ = done_tx.send(read.map(|_| out));
    });
    let errors = std::thread::spawn(move || {
        let mut err = String::new();
        let _ = stderr.read_to_string(&mut err);
        err
    });
    let out = match tokio::time::timeout(BOT_LIMIT, done_rx).await {
        Ok(Ok(read)) => read.expect("the bot's output is UTF-8"),
        Ok(Err(_)) => panic!("the thread reading the bot's output died"),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("examples/bot.py did not finish {TURNS} turns within {BOT_LIMIT:?}");
        }
    };
    let status = child.wait().expect("the bot's exit status");
    let err = errors.join().unwrap_or_default();
    let summary = out
        .lines()
        .rev()
        .find(|l| l.starts_with("played "))
        .unwrap_or_else(|| panic!("the bot printed no summary.\nstdout:\n{out}\nstderr:\n{err}"));
    assert!(
        status.success(),
        "the bot exited with {status}: {summary}\nstdout:\n{out}\nstderr:\n{err}"
    );
    assert!(
        out.lines()
            .next()
            .is_some_and(|l| l.starts_with("joined pybot as player ")),
        "the bot's first line should say it joined:\n{out}"
    );
    assert_eq!(number_before(summary, "turns"), TURNS, "{summary}");
    assert_eq!(number_before(summary, "deaths"), 0, "{summary}");
    assert_eq!(number_before(summary, "mismatches"), 0, "{summary}");
    assert!(number_before(summary, "checks") >= 3, "{summary}");

    // From the outside: a native watcher follows Robo, now away, and sees the character the
    // bot played, as the server keeps it.
    let watcher = Bot::watch(&server.url, "Wes", "pybot", "Robo").await;
    let me = &watcher.view().me;
    assert_eq!(&*me.name, "Robo");
    assert!(me.alive, "{me:?}");
    assert_eq!(me.turns, TURNS, "the server counted the turns Robo lived");
    assert_eq!(u64::from(me.level), number_after(summary, "level"));
    assert_eq!(u64::from(me.depth), number_after(summary, "floor"));
    assert_eq!(u64::from(me.kills), number_before(summary, "kills"));
    assert_eq!(u64::from(me.score), number_after(summary, "score"));
    assert_eq!(
        watcher.view().inventory.len() as u64,
        number_before(summary, "items")
    );
    let robo = watcher
        .view()
        .party
        .iter()
        .find(|p| &*p.name == "Robo")
        .expect("Robo is in the party");
    assert!(!robo.connected, "the bot has left: {robo:?}");
    server.stop().await;
}
