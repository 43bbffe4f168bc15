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

use common::{Client, Proc, free_port, play, replay, tough_content, world_part};
use delve_protocol::{EntityKind, EntityView, View};
use delve_server::game::content::BUILTIN;
use delve_server::game::input::Input;
use delve_server::game::{Content, Dungeon};
use delve_server::store::{Store, StoreOptions};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Snapshots every 40 entries, and the whole journal kept for the reference run.
const CRASH_ARGS: &[&str] = &["--snapshot-every", "40", "--keep-journal"];

/// Runs `delve-server replay` and returns what it printed.
fn replay_cli(data: &Path, content: &Path, from_start: bool) -> String {
    let out = replay(data, content, from_start);
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

/// Checks that every turn `name` was shown before kill `round` is in the world it resumes
/// into: exactly the world it saw (`true`), or further on (`false`). Further is allowed: turns
/// stored but not yet sent when the server died, or sent but lost with the reset a killed
/// process leaves (a client may not get to read what was still in its socket). Fewer turns
/// than it saw, or another world at the same turn, fails.
///
/// At the same turn, further on can only be another floor's turn: a friend who came down or up
/// the stairs into sight. Everything else is exactly as it was seen.
fn still_there(seen: &View, now: &View, name: &str, round: usize) -> bool {
    let (a, b) = (seen.me.turns, now.me.turns);
    if a == b {
        let (rest_seen, rest_now) = (without_entities(seen), without_entities(now));
        let arrived: Vec<&EntityView> = (now.entities.iter())
            .filter(|e| !seen.entities.contains(e))
            .collect();
        let same = seen.entities.iter().all(|e| now.entities.contains(e))
            && arrived
                .iter()
                .all(|e| e.kind == EntityKind::Player && e.id != now.me.id)
            && world_part(&rest_seen) == world_part(&rest_now);
        assert!(
            same,
            "after kill {round}: {name}'s world differs from the one it saw at its turn {a} \
             (saw floor {} turn {} at {:?}; now floor {} turn {} at {:?}; came into sight \
             since: {arrived:?})",
            seen.depth, seen.turn, seen.me.pos, now.depth, now.turn, now.me.pos
        );
        return arrived.is_empty();
    }
    assert!(
        b > a,
        "after kill {round}: {name} lived {a} turns by what it saw, only {b} by the saved world"
    );
    // What it saw of the map is still known.
    if seen.depth == now.depth {
        for y in 0..seen.map.height() as i32 {
            for x in 0..seen.map.width() as i32 {
                let p = delve_protocol::Pos::new(x, y);
                if seen.map.get(p) != delve_protocol::Tile::Unknown {
                    assert_ne!(
                        now.map.get(p),
                        delve_protocol::Tile::Unknown,
                        "{name} forgot {p:?}"
                    );
                }
            }
        }
    }
    false
}

/// The next step towards the nearest known down-stair, or while none is known towards the
/// nearest edge of what the view knows (to find one).
fn towards_stairs(v: &View) -> Option<delve_protocol::Dir> {
    use delve_protocol::Tile;
    step_towards(v, |p| v.map.get(p) == Tile::StairsDown).or_else(|| {
        step_towards(v, |p| {
            v.map.get(p).is_walkable()
                && delve_protocol::Dir::ALL
                    .iter()
                    .any(|d| v.map.get(p.step(*d)) == Tile::Unknown)
        })
    })
}

/// The first step of a shortest walk over known tiles to a cell where `goal` holds.
fn step_towards(
    v: &View,
    goal: impl Fn(delve_protocol::Pos) -> bool,
) -> Option<delve_protocol::Dir> {
    use delve_protocol::{Dir, Pos, Tile};
    use std::collections::{HashMap, VecDeque};
    let from = v.me.pos;
    let mut came: HashMap<Pos, (Pos, Dir)> = HashMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(p) = queue.pop_front() {
        if p != from && goal(p) {
            let mut at = p;
            while let Some(&(prev, dir)) = came.get(&at) {
                if prev == from {
                    return Some(dir);
                }
                at = prev;
            }
            return None;
        }
        for dir in Dir::ALL {
            let next = p.step(dir);
            let tile = v.map.get(next);
            let open = tile.is_walkable() || tile == Tile::DoorClosed;
            if open && next != from && !came.contains_key(&next) {
                came.insert(next, (p, dir));
                queue.push_back(next);
            }
        }
    }
    None
}

/// One client's play until the server dies under it: a step towards the known down-stair (or
/// a random one), `descend` on it, and the view built from everything the server sent, read
/// to the end of the socket.
async fn play_until_the_server_dies(mut c: Client, seed: u64) -> (String, View) {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut chosen = false;
    loop {
        if !chosen {
            let on_stairs = c.view.map.get(c.view.me.pos) == delve_protocol::Tile::StairsDown;
            let msg = if on_stairs {
                delve_protocol::ClientMsg::Act(delve_protocol::Action::Descend)
            } else if let Some(dir) = towards_stairs(&c.view).filter(|_| rng.random_ratio(3, 4)) {
                delve_protocol::ClientMsg::Act(delve_protocol::Action::Move { dir })
            } else {
                c.intent(&mut rng)
            };
            let text = Message::text(delve_protocol::encode(&msg));
            // If the server is gone, the read below finds out.
            let _ = futures_util::SinkExt::send(&mut c.ws, text).await;
            chosen = true;
        }
        let frame = match tokio::time::timeout(common::WAIT, c.ws.next()).await {
            Ok(Some(Ok(frame))) => frame,
            // The socket ended (or broke): the server is dead.
            Ok(_) => return (c.token, c.view),
            Err(_) => panic!("{}: the server neither answered nor died", c.name),
        };
        let Message::Text(t) = frame else { continue };
        match delve_protocol::decode_server(&t).expect("a message we know") {
            delve_protocol::ServerMsg::Update {
                seq, turn, diff, ..
            } => {
                assert_eq!(seq, c.seq + 1, "{}: updates in order", c.name);
                c.view.apply(turn, &diff).expect("the diff applies");
                c.seq = seq;
                chosen = false;
            }
            delve_protocol::ServerMsg::Snapshot { seq, view } => {
                c.view = view;
                c.seq = seq;
                chosen = false;
            }
            _ => {}
        }
    }
}

#[tokio::test]
async fn kills_at_random_moments_with_turns_in_flight_lose_nothing_anyone_saw() {
    const KILLS: usize = 20;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content_file = tough_content(dir.path());
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let names = ["Ann", "Bob", "Cy"];
    let mut tokens: Vec<Option<String>> = vec![None; names.len()];
    let mut last: Vec<Option<View>> = vec![None; names.len()];
    let port = free_port();
    let args = ["--snapshot-every", "25"];
    let (mut deepest, mut hurt, mut in_flight) = (1u8, false, 0usize);
    for round in 0..=KILLS {
        let mut server = Proc::start(port, &data, &content_file, &args);
        let mut playing = Vec::new();
        for (k, name) in names.iter().enumerate() {
            let c = Client::join(port, name, tokens[k].clone()).await;
            if let Some(seen) = &last[k] {
                in_flight += usize::from(!still_there(seen, &c.view, name, round));
            }
            playing.push(c);
        }
        if round == KILLS {
            break;
        }
        let tasks: Vec<_> = playing
            .into_iter()
            .map(|c| tokio::spawn(play_until_the_server_dies(c, rng.random::<u64>())))
            .collect();
        // Let them play, then kill the server wherever it is: turns chosen, resolving, writing.
        let ms = rng.random_range(150..900);
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        server.child.kill().unwrap();
        server.child.wait().unwrap();
        for (k, t) in tasks.into_iter().enumerate() {
            let (token, view) = t.await.unwrap();
            deepest = deepest.max(view.depth);
            hurt |= view.me.hp < view.me.max_hp;
            tokens[k] = Some(token);
            last[k] = Some(view);
        }
    }
    println!(
        "{KILLS} kills; deepest floor {deepest}; someone was hurt: {hurt}; \
         resumed past what was read: {in_flight} times"
    );
    assert!(deepest >= 2, "the stairs were taken");
    assert!(hurt, "there were fights");
}

/// `v` with nobody in sight, to compare the rest of its world.
fn without_entities(v: &View) -> View {
    let mut v = v.clone();
    v.entities.clear();
    v
}
