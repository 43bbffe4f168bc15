//! Storage through the real `delve-server` process: an idle dungeon is saved and unloaded and
//! comes back on the next join; a clean restart keeps characters and tokens; finished games enter
//! the high-score table (the `scores` message and `delve-server scores`); and a data directory
//! the server cannot use stops it at start with a clear error, leaving every byte as it was.

#![cfg(unix)]
#![allow(clippy::unwrap_used)] // a test that cannot go on should stop right there

mod common;

use delve_protocol::Action;
use std::path::Path;
use std::process::Command;

use common::{Client, Proc, WAIT, free_port, next_msg};
use delve_protocol::{ClientMsg, ServerMsg};
use delve_server::game::content::BUILTIN;
use futures_util::SinkExt;
use tokio_tungstenite::tungstenite::Message;

fn content_file(dir: &Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("content.toml");
    std::fs::write(&path, text).expect("content written");
    path
}

fn stop(mut server: Proc) {
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill runs")
            .success()
    );
    assert!(server.child.wait().expect("it exits").success());
}

#[tokio::test]
async fn an_idle_dungeon_is_unloaded_and_comes_back_on_the_next_join() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content = content_file(dir.path(), BUILTIN);
    let port = free_port();
    let server = Proc::start(port, &data, &content, &["--unload-after", "0.5"]);
    let mut ann = Client::join(port, "Ann", None).await;
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(3);
    for _ in 0..10 {
        let turn = ann.view.turn + 1;
        let intent = ann.intent(&mut rng);
        ann.send(&intent).await;
        ann.until_turn(turn).await;
    }
    let before = ann.view.clone();
    let token = ann.token.clone();
    drop(ann);
    // Nobody is left: after half a second the dungeon is saved and unloaded.
    server.wait_for("saving and unloading");
    server.wait_for("dungeon saved");
    // The lobby still lists it, with nobody online.
    let (mut lobby, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}"))
        .await
        .unwrap();
    let ask = serde_json::json!({"type": "list_dungeons"}).to_string();
    lobby.send(Message::text(ask)).await.unwrap();
    match next_msg(&mut lobby).await {
        ServerMsg::Dungeons { dungeons } => {
            let crypt = dungeons.iter().find(|d| d.name == "crypt").expect("listed");
            assert_eq!(
                (crypt.private, crypt.online, crypt.deepest),
                (false, Some(0), Some(1))
            );
        }
        other => panic!("{other:?}"),
    }
    // Resuming loads it again, with Ann where she was.
    let ann = Client::join(port, "Ann", Some(token)).await;
    server.wait_for("dungeon loaded");
    assert_eq!(ann.view.me, before.me);
    assert_eq!(ann.view.turn, before.turn);
    assert_eq!(ann.view.map, before.map);
    drop(ann);
    stop(server);
}

#[tokio::test]
async fn dungeons_left_at_the_same_moment_unload_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content = content_file(dir.path(), BUILTIN);
    let port = free_port();
    let server = Proc::start(port, &data, &content, &["--unload-after", "0.5"]);
    // Six players in six dungeons, who all leave together.
    let mut players = Vec::new();
    for i in 0..6 {
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}"))
            .await
            .unwrap();
        let hello = ClientMsg::Hello {
            version: delve_protocol::PROTOCOL_VERSION,
            name: format!("Ann{i}"),
            dungeon: format!("crypt{i}"),
            token: None,
            password: None,
            watch: None,
        };
        ws.send(Message::text(delve_protocol::encode(&hello)))
            .await
            .unwrap();
        while !matches!(next_msg(&mut ws).await, ServerMsg::Welcome { .. }) {}
        players.push(ws);
    }
    drop(players);
    // Their dungeons fall idle within a millisecond of each other. Each holds the one turn to
    // unload from its first log line to its last: never two saves at once.
    let mut order = String::new();
    while order.matches('S').count() < 6 {
        let line = server.wait_for("dungeon");
        if line.contains("saving and unloading") {
            order.push('U');
        } else if line.contains("dungeon saved") {
            order.push('S');
        }
    }
    assert_eq!(order, "USUSUSUSUSUS");
    stop(server);
}

#[tokio::test]
async fn finished_games_enter_the_high_score_table() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // One HP and a crowd of mice right by the stairs: a character that only waits dies soon.
    let text = BUILTIN
        .replacen("hp = 25\n", "hp = 1\n", 1)
        .replacen("count = 6\n", "count = 40\n", 1)
        .replacen("safe_distance = 10\n", "safe_distance = 2\n", 1);
    let content = content_file(dir.path(), &text);
    let port = free_port();
    let server = Proc::start(port, &data, &content, &[]);

    // Before any game ended, the table is empty (asked before joining, as the lobby does).
    let (mut lobby, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}"))
        .await
        .unwrap();
    let ask = serde_json::json!({"type": "scores"}).to_string();
    lobby.send(Message::text(ask.clone())).await.unwrap();
    match next_msg(&mut lobby).await {
        ServerMsg::Scores { entries } => assert!(entries.is_empty()),
        other => panic!("{other:?}"),
    }

    let mut ann = Client::join(port, "Ann", None).await;
    let started = std::time::Instant::now();
    while ann.view.me.alive {
        assert!(started.elapsed() < WAIT, "Ann outlived the mice");
        let turn = ann.view.turn + 1;
        ann.send(&ClientMsg::Act(Action::Wait)).await;
        ann.until_turn(turn).await;
    }
    let cause = ann.view.me.cause.clone().expect("a cause of death");
    let (turns, score) = (ann.view.me.turns, ann.view.me.score);
    server.wait_for("game over");

    // Asked after joining, on the game's own connection.
    ann.send(&ClientMsg::Scores { limit: Some(5) }).await;
    let entries = loop {
        if let ServerMsg::Scores { entries } = next_msg(&mut ann.ws).await {
            break entries;
        }
    };
    assert_eq!(entries.len(), 1, "{entries:?}");
    let e = &entries[0];
    assert_eq!(
        (
            e.name.as_str(),
            e.outcome.as_str(),
            e.dungeon.as_str(),
            e.victory
        ),
        ("Ann", cause.as_str(), "crypt", false)
    );
    assert_eq!((e.turns, e.score, e.deepest, e.level), (turns, score, 1, 1));
    assert!(e.ended > 1_700_000_000, "a real date");
    drop(ann);
    drop(lobby);
    stop(server);

    // The table outlives the server, and the CLI prints it.
    let out = Command::new(env!("CARGO_BIN_EXE_delve-server"))
        .args(["scores", "--data-dir"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text
        .lines()
        .find(|l| l.contains("Ann"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        row.contains(&score.to_string()) && row.contains(&cause),
        "{row}"
    );
}

/// Starts the server on `data` and expects it to refuse: a non-zero exit and an error that
/// names the database and says what is wrong.
fn refused(data: &Path, why: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_delve-server"))
        .args([
            "--bind",
            &format!("127.0.0.1:{}", free_port()),
            "--data-dir",
        ])
        .arg(data)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(!out.status.success(), "{why}: the server started anyway");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.contains(&data.display().to_string()),
        "{why}: the error names the place: {err}"
    );
    err
}

#[test]
fn a_data_dir_that_cannot_be_used_stops_the_server_and_is_left_untouched() {
    let dir = tempfile::tempdir().unwrap();

    // Not a database at all.
    let junk = dir.path().join("junk");
    std::fs::create_dir_all(&junk).unwrap();
    let db = junk.join("delve.sqlite3");
    let bytes: Vec<u8> = (0..8192u32).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(&db, &bytes).unwrap();
    let err = refused(&junk, "a file of junk");
    assert!(err.to_lowercase().contains("database"), "{err}");
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "the junk is untouched");
    assert_eq!(
        std::fs::read_dir(&junk).unwrap().count(),
        1,
        "nothing was added beside it"
    );

    // A database from a newer server.
    let newer = dir.path().join("newer");
    std::fs::create_dir_all(&newer).unwrap();
    let db = newer.join("delve.sqlite3");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(&format!(
            "PRAGMA application_id = {}; CREATE TABLE future (x); PRAGMA user_version = 99;",
            delve_server::store::schema::APPLICATION_ID
        ))
        .unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    let err = refused(&newer, "a newer schema");
    assert!(err.contains("99"), "{err}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the newer database is untouched"
    );

    // A data directory that cannot be made: its parent is a file.
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"hello").unwrap();
    let under = file.join("data");
    refused(&under, "a directory under a file");
    assert_eq!(std::fs::read(&file).unwrap(), b"hello");
}
