//! Nothing acknowledged is lost: the real `delve-server` process, on a data directory in a temp
//! dir, plays a few hundred turns with two clients, is killed with SIGKILL, and is started again
//! on the same directory. Both clients resume with their tokens and find their characters
//! exactly as the last update they received left them; they play on; the server stops cleanly.
//! Then the world the server saved must hash the same as an uninterrupted engine run fed the
//! dungeon's seed and every journaled input from the start, and `delve-server replay` must
//! print that same hash.

#![cfg(unix)]
#![allow(clippy::unwrap_used)] // a test that cannot go on should stop right there

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use common::{Client, Proc, free_port, play};
use delve_protocol::View;
use delve_server::game::content::BUILTIN;
use delve_server::game::input::Input;
use delve_server::game::{Content, Dungeon};
use delve_server::store::{Store, StoreOptions};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Snapshots every 40 entries, and the whole journal kept for the reference run.
const CRASH_ARGS: &[&str] = &["--snapshot-every", "40", "--keep-journal"];

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
    let mut server = Proc::start(port, &data, &content_file, CRASH_ARGS);
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
    let mut server = Proc::start(port, &data, &content_file, CRASH_ARGS);
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
    let turns = reference.floor(1).unwrap().turn();
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
