//! Storage that fails under the real `delve-server` process: a database locked by another
//! program, and saved dungeons damaged on disk. Each test checks that every turn a client saw is
//! there after a restart, or that the refusal is clean and leaves the damaged dungeon untouched.

#![cfg(unix)]
#![allow(clippy::unwrap_used)] // a test that cannot go on should stop right there

mod common;

use std::path::Path;
use std::process::Command;

use common::{Client, Proc, free_port, next_msg, replay, stop, tough_content, world_part};
use delve_protocol::{Action, ClientMsg, ServerMsg, encode};
use delve_server::store::db_path;
use futures_util::SinkExt;
use rusqlite::Connection;
use tokio_tungstenite::tungstenite::Message;

/// Ann waits `turns` turns alone (a lone player's turn resolves as soon as she chooses).
async fn wait_turns(ann: &mut Client, turns: u64) {
    for _ in 0..turns {
        let turn = ann.view.turn + 1;
        ann.send(&ClientMsg::Act(Action::Wait)).await;
        ann.until_turn(turn).await;
    }
}

/// Reads until the dungeon says it goes on again and the held turn `turn` has arrived.
async fn until_resumed_with_turn(ann: &mut Client, turn: u64) {
    let (mut resumed, mut shown) = (false, false);
    while !(resumed && shown) {
        match next_msg(&mut ann.ws).await {
            ServerMsg::Pause { paused: false, .. } => resumed = true,
            ServerMsg::Update {
                seq, turn: t, diff, ..
            } => {
                assert_eq!(seq, ann.seq + 1);
                ann.view.apply(t, &diff).unwrap();
                ann.seq = seq;
                shown |= t >= turn;
            }
            _ => {}
        }
    }
}

#[tokio::test]
async fn a_locked_database_pauses_the_dungeon_and_play_goes_on_once_it_is_released() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content = tough_content(dir.path());
    let port = free_port();
    let mut server = Proc::start(port, &data, &content, &[]);
    let mut ann = Client::join(port, "Ann", None).await;
    wait_turns(&mut ann, 3).await;
    let before = ann.view.turn;

    // Another program takes the database's write lock and keeps it.
    let other = Connection::open(db_path(&data)).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();

    ann.send(&ClientMsg::Act(Action::Wait)).await;
    // The turn resolves in memory, but nobody is shown it: Ann is told the game is paused.
    loop {
        match next_msg(&mut ann.ws).await {
            ServerMsg::Pause { paused: true, .. } => break,
            ServerMsg::Update { turn, .. } => {
                panic!("turn {turn} was shown while its journal entry could not be stored")
            }
            _ => {}
        }
    }
    // The write fails once the database's busy wait runs out, and is tried again.
    let line = server.wait_for("(try 1)");
    assert!(line.contains("cannot store the journal"), "{line}");

    // A connection that waits on nothing stored is answered while the lock is still held: the
    // lobby lists the dungeons (their saved rows are read off the async threads, and a reader
    // is not held up by the writer's lock).
    let (mut lobby, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}"))
        .await
        .unwrap();
    lobby
        .send(Message::text(encode(&ClientMsg::ListDungeons)))
        .await
        .unwrap();
    match next_msg(&mut lobby).await {
        ServerMsg::Dungeons { dungeons } => {
            assert!(dungeons.iter().any(|d| d.name == "crypt"), "{dungeons:?}")
        }
        other => panic!("the lobby got {other:?}"),
    }
    // (The lock is released only now.)
    other.execute_batch("COMMIT").unwrap();
    drop(other);
    // Storage works again: play goes on by itself, and the held turn arrives.
    until_resumed_with_turn(&mut ann, before + 1).await;
    server.wait_for("journal stored again");
    wait_turns(&mut ann, 2).await;

    // Killed now, the server comes back with every turn Ann saw.
    let seen = ann.view.clone();
    let token = ann.token.clone();
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    drop(ann);
    let _server = Proc::start(port, &data, &content, &[]);
    let ann = Client::join(port, "Ann", Some(token)).await;
    assert_eq!(world_part(&ann.view), world_part(&seen));
}

/// Ways a saved dungeon can be damaged on disk.
#[derive(Debug, Clone, Copy)]
enum Damage {
    FlippedBitInSnapshot,
    SnapshotDeleted,
    JournalEntryDeleted,
}

impl Damage {
    fn apply(self, db: &Connection) {
        match self {
            Damage::FlippedBitInSnapshot => {
                let (seq, mut data): (i64, Vec<u8>) = db
                    .query_row("SELECT seq, data FROM snapshots", [], |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })
                    .unwrap();
                let at = data.len() / 2;
                data[at] ^= 0x10;
                db.execute(
                    "UPDATE snapshots SET data = ?1 WHERE seq = ?2",
                    rusqlite::params![data, seq],
                )
                .unwrap();
            }
            Damage::SnapshotDeleted => {
                assert_eq!(db.execute("DELETE FROM snapshots", []).unwrap(), 1);
            }
            Damage::JournalEntryDeleted => {
                // The second entry after the newest snapshot (those before it are kept for
                // Ann's replay, and loading does not read them).
                let gone = db
                    .execute(
                        "DELETE FROM journal WHERE seq = (SELECT MIN(seq) + 1 FROM journal
                             WHERE seq > (SELECT MAX(seq) FROM snapshots))",
                        [],
                    )
                    .unwrap();
                assert_eq!(gone, 1);
            }
        }
    }

    /// What the refusal must say.
    fn said(self) -> &'static str {
        match self {
            Damage::FlippedBitInSnapshot => "is damaged",
            Damage::SnapshotDeleted => "is missing",
            Damage::JournalEntryDeleted => "jumps from entry",
        }
    }
}

#[tokio::test]
async fn a_damaged_dungeon_is_refused_with_its_reason_and_left_untouched() {
    for damage in [
        Damage::FlippedBitInSnapshot,
        Damage::SnapshotDeleted,
        Damage::JournalEntryDeleted,
    ] {
        let (what, said) = (format!("{damage:?}"), damage.said());
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let content = tough_content(dir.path());
        let port = free_port();
        // A snapshot every 5 entries, so there is one with journal entries after it.
        let args = ["--snapshot-every", "5"];
        let mut server = Proc::start(port, &data, &content, &args);
        let mut ann = Client::join(port, "Ann", None).await;
        wait_turns(&mut ann, 12).await;
        let token = ann.token.clone();
        // Killed, not stopped: a clean stop would snapshot everything and leave no journal.
        server.child.kill().unwrap();
        server.child.wait().unwrap();
        drop(ann);

        let db = Connection::open(db_path(&data)).unwrap();
        let blob = "SELECT coalesce((SELECT group_concat(hex(data)) FROM snapshots), '')
            || '|' || coalesce((SELECT group_concat(seq || hex(entry)) FROM journal), '')
            || '|' || (SELECT group_concat(name || seed || saved_seq) FROM dungeons)";
        damage.apply(&db);
        let damaged: String = db.query_row(blob, [], |r| r.get(0)).unwrap();
        drop(db);

        let mut server = Proc::start(port, &data, &content, &args);
        for (name, token) in [("Ann", Some(token.clone())), ("Bob", None)] {
            let Err((_, message)) = Client::try_join(port, name, token).await else {
                panic!("{what}: {name} was let into a dungeon that cannot be rebuilt");
            };
            assert!(
                message.contains("cannot be loaded") && message.contains(said),
                "{what}: {message}"
            );
        }
        let line = server.wait_for("cannot load dungeon");
        assert!(line.contains(said), "{what}: {line}");
        assert!(stop(&mut server).success(), "{what}: a clean stop");

        // Nothing was rebuilt from the seed or saved over it.
        let db = Connection::open(db_path(&data)).unwrap();
        let after: String = db.query_row(blob, [], |r| r.get(0)).unwrap();
        assert_eq!(after, damaged, "{what}: the dungeon is left as it was");
    }
}

/// A client whose socket takes almost nothing and who never reads, while asking for snapshot
/// after snapshot: the server's writes to it soon block.
async fn stuck_client(
    port: u16,
    name: &str,
) -> tokio_tungstenite::WebSocketStream<tokio::net::TcpStream> {
    use futures_util::SinkExt;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(1024).unwrap();
    let stream = socket
        .connect(format!("127.0.0.1:{port}").parse().unwrap())
        .await
        .unwrap();
    let (mut ws, _) = tokio_tungstenite::client_async(format!("ws://127.0.0.1:{port}"), stream)
        .await
        .unwrap();
    let hello = ClientMsg::Hello {
        version: delve_protocol::PROTOCOL_VERSION,
        name: name.into(),
        dungeon: "crypt".into(),
        token: None,
        password: None,
        watch: None,
    };
    let text =
        |m: &ClientMsg| tokio_tungstenite::tungstenite::Message::text(delve_protocol::encode(m));
    ws.send(text(&hello)).await.unwrap();
    for _ in 0..3000 {
        if ws.send(text(&ClientMsg::Resync)).await.is_err() {
            break;
        }
    }
    ws
}

#[tokio::test]
async fn a_client_that_never_reads_cannot_keep_its_dungeon_from_being_saved_at_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content = tough_content(dir.path());
    let port = free_port();
    let mut server = Proc::start(port, &data, &content, &[]);
    let mut ann = Client::join(port, "Ann", None).await;
    let _bob = stuck_client(port, "Bob").await;
    // Bob's connection gives up on him once a write to him has waited long enough.
    server.wait_for("the client stopped reading");
    // Ann plays on meanwhile (the floor waits for Bob's choice only until he is gone).
    let token = ann.token.clone();
    for _ in 0..3 {
        let turn = ann.view.turn + 1;
        ann.send(&ClientMsg::Act(Action::Wait)).await;
        ann.until_turn(turn).await;
    }
    let seen = ann.view.clone();

    assert!(stop(&mut server).success(), "a clean stop exits 0");
    // Everything is in the snapshot the stop saved: nothing is left to replay.
    let db = Connection::open(db_path(&data)).unwrap();
    let (saved_seq, snapshot_seq, after): (i64, i64, i64) = db
        .query_row(
            "SELECT saved_seq, (SELECT max(seq) FROM snapshots),
                    (SELECT count(*) FROM journal WHERE seq > saved_seq) FROM dungeons",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((snapshot_seq, after), (saved_seq, 0));
    drop((db, ann));
    let _server = Proc::start(port, &data, &content, &[]);
    let ann = Client::join(port, "Ann", Some(token)).await;
    assert_eq!(world_part(&ann.view), world_part(&seen));
}

#[tokio::test]
async fn a_save_that_fails_at_shutdown_makes_the_exit_code_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content = tough_content(dir.path());
    let port = free_port();
    let mut server = Proc::start(port, &data, &content, &[]);
    let mut ann = Client::join(port, "Ann", None).await;
    wait_turns(&mut ann, 2).await;
    drop(ann);
    let other = Connection::open(db_path(&data)).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let status = stop(&mut server);
    // Depending on when the lock came, the last save fails or the dungeon is still waiting to
    // store Ann's leaving when the shutdown's deadline runs out: either way it is said.
    server.wait_for("shut down without saving everything");
    assert!(!status.success(), "the exit code tells that a save failed");
    other.execute_batch("COMMIT").unwrap();
}

#[test]
fn removing_the_lock_file_does_not_let_a_second_server_in() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content = tough_content(dir.path());
    let mut first = Proc::start(free_port(), &data, &content, &[]);
    std::fs::remove_file(data.join("delve.lock")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_delve-server"))
        .args([
            "--bind",
            &format!("127.0.0.1:{}", free_port()),
            "--data-dir",
        ])
        .arg(&data)
        .arg("--content")
        .arg(&content)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a second server started: {said}");
    assert!(
        said.contains("another Delve server is using the data directory"),
        "{said}"
    );
    first.child.kill().unwrap();
    first.child.wait().unwrap();
}

#[tokio::test]
async fn replay_from_the_start_is_refused_without_the_whole_journal() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content = tough_content(dir.path());
    let port = free_port();
    // The journal is compacted into each snapshot (no --keep-journal), but for what a living
    // character's game still needs: Ann's, all of it. So Ann is made one the server kept no
    // game for (as a character made before it kept games is): her game pins nothing, and the
    // snapshots of her next turns compact the journal.
    let args = ["--snapshot-every", "4"];
    let mut server = Proc::start(port, &data, &content, &args);
    let mut ann = Client::join(port, "Ann", None).await;
    wait_turns(&mut ann, 6).await;
    let token = ann.token.clone();
    drop(ann);
    assert!(stop(&mut server).success());
    let db = Connection::open(db_path(&data)).unwrap();
    db.execute("UPDATE characters SET start_seq = NULL", [])
        .unwrap();
    drop(db);
    let mut server = Proc::start(port, &data, &content, &args);
    let mut ann = Client::join(port, "Ann", Some(token)).await;
    wait_turns(&mut ann, 6).await;
    drop(ann);
    assert!(stop(&mut server).success());

    // From the snapshot it works and prints the saved world's hash...
    let out = replay(&data, &content, false);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("state hash:"),
        "{text}"
    );
    // ...from the seed it cannot, and says so instead of printing another world's hash.
    let out = replay(&data, &content, true);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("does not go back to its start"), "{said}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("state hash"));
}

/// A small tmpfs mounted for one test, unmounted when dropped.
struct SmallDisk {
    at: std::path::PathBuf,
}

impl SmallDisk {
    /// Mounts `size` of tmpfs at `at`; `None` (with the reason printed) where this process may
    /// not mount (not root, or no permission in a container).
    fn mount(at: &Path, size: &str) -> Option<SmallDisk> {
        std::fs::create_dir_all(at).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .output();
        match out {
            Ok(o) if o.status.success() => Some(SmallDisk {
                at: at.to_path_buf(),
            }),
            Ok(o) => {
                println!(
                    "skipped: cannot mount a tmpfs here ({}); run as root to test a full disk",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
                None
            }
            Err(e) => {
                println!("skipped: no mount command ({e})");
                None
            }
        }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.at).status();
    }
}

/// Fills the disk under `dir` with files of 16 KiB until it takes no more; returns them.
fn fill(dir: &Path) -> Vec<std::path::PathBuf> {
    use std::io::Write;
    let mut files = Vec::new();
    for n in 0.. {
        let path = dir.join(format!("filler-{n}"));
        let Ok(mut f) = std::fs::File::create(&path) else {
            break;
        };
        files.push(path);
        if f.write_all(&[7u8; 16 * 1024])
            .and_then(|()| f.sync_all())
            .is_err()
        {
            break;
        }
    }
    files
}

#[tokio::test]
async fn a_full_disk_pauses_the_dungeon_and_freeing_space_lets_it_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let Some(disk) = SmallDisk::mount(&dir.path().join("disk"), "4m") else {
        return;
    };
    let data = disk.at.join("data");
    let content = tough_content(dir.path());
    let port = free_port();
    let mut server = Proc::start(port, &data, &content, &[]);
    let mut ann = Client::join(port, "Ann", None).await;
    wait_turns(&mut ann, 3).await;

    let filler = fill(&disk.at);
    assert!(!filler.is_empty());
    // Ann plays on until a turn cannot be stored: she is told, and shown nothing of it.
    let mut paused = false;
    for _ in 0..400 {
        ann.send(&ClientMsg::Act(Action::Wait)).await;
        match next_msg(&mut ann.ws).await {
            ServerMsg::Pause { paused: true, .. } => {
                paused = true;
                break;
            }
            ServerMsg::Update {
                seq, turn, diff, ..
            } => {
                assert_eq!(seq, ann.seq + 1);
                ann.view.apply(turn, &diff).unwrap();
                ann.seq = seq;
            }
            _ => {}
        }
    }
    assert!(paused, "the full disk never stopped a turn");
    server.wait_for("cannot store the journal");
    let held = ann.view.turn + 1;

    // Room again: the dungeon goes on by itself and the held turn arrives.
    for f in &filler {
        std::fs::remove_file(f).unwrap();
    }
    until_resumed_with_turn(&mut ann, held).await;
    wait_turns(&mut ann, 2).await;

    // Every turn she saw survives a kill.
    let (seen, token) = (ann.view.clone(), ann.token.clone());
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    drop(ann);
    let mut server = Proc::start(port, &data, &content, &[]);
    let ann = Client::join(port, "Ann", Some(token)).await;
    assert_eq!(world_part(&ann.view), world_part(&seen));
    drop(ann);
    assert!(stop(&mut server).success());
}
