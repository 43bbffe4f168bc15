//! The lobby stays cheap however many dungeons a server has kept: with 10,112 saved, a flood
//! of `list_dungeons` from twenty lobbies reads the database once, not once a request, and
//! each answer still lists the newest 100 saved dungeons by name (and a new dungeon as soon as
//! it is made). Through the real server, over real WebSockets.

use delve_client::net::Session;
use delve_protocol::{ClientMsg, ServerMsg};
use delve_server::net::ServerConfig;
use delve_server::store::{Store, StoreOptions};
use delve_tests::{Bot, TestServer, test_config, within};

const SAVED: usize = 10_112;
const LOBBIES: usize = 20;
/// Each lobby asks this many times in a row (within the message burst).
const ASKS: usize = 20;

/// Every lobby asks `ASKS` times; returns every answer's names.
async fn flood(lobbies: &mut [Session]) -> Vec<Vec<String>> {
    for lobby in lobbies.iter_mut() {
        for _ in 0..ASKS {
            within(lobby.send(&ClientMsg::ListDungeons))
                .await
                .expect("sends");
        }
    }
    let mut answers = Vec::new();
    for lobby in lobbies.iter_mut() {
        for _ in 0..ASKS {
            match within(lobby.recv()).await.expect("an answer") {
                ServerMsg::Dungeons { dungeons } => {
                    answers.push(dungeons.into_iter().map(|d| d.name).collect());
                }
                other => panic!("not a lobby answer: {other:?}"),
            }
        }
    }
    answers
}

fn reads(server: &TestServer) -> u64 {
    server.store_stats().expect("a database").reads
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lobby_flood_over_ten_thousand_saved_dungeons_reads_the_database_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // The server's own schema, then ten thousand dungeons in one transaction (through the
    // server they would take a commit each).
    drop(Store::open(dir.path(), StoreOptions::default()).expect("a database"));
    let mut db = rusqlite::Connection::open(delve_server::store::db_path(dir.path()))
        .expect("the database opens");
    let tx = db.transaction().expect("a transaction");
    for n in 0..SAVED {
        let name = format!("old{n:05}");
        tx.execute(
            "INSERT INTO dungeons (key, name, seed, settings, content_hash, created_at)
             VALUES (?1, ?1, ?2, '{}', 'test', 0)",
            rusqlite::params![name, n as i64],
        )
        .expect("a dungeon row");
    }
    tx.commit().expect("committed");
    drop(db);
    let server = TestServer::start(ServerConfig {
        data_dir: Some(dir.path().to_path_buf()),
        ..test_config()
    })
    .await;
    let mut lobbies = Vec::new();
    for _ in 0..LOBBIES {
        lobbies.push(
            within(Session::connect(&server.url))
                .await
                .expect("connects"),
        );
    }
    // The newest 100 saved dungeons, sorted by name.
    let newest: Vec<String> = (SAVED - 100..SAVED).map(|n| format!("old{n:05}")).collect();

    let before = reads(&server);
    let answers = flood(&mut lobbies).await;
    assert_eq!(answers.len(), LOBBIES * ASKS);
    assert!(answers.iter().all(|a| *a == newest), "{:?}", answers[0]);
    let read = reads(&server) - before;
    assert!(
        read <= 1,
        "{} lobby answers read the database {read} times",
        answers.len()
    );

    // A fresh player makes a dungeon meanwhile: the lobbies see it at once, still for one read.
    let ann = Bot::join(&server.url, "Ann", "fresh").await;
    let before = reads(&server);
    let answers = flood(&mut lobbies).await;
    let read = reads(&server) - before;
    assert!(
        answers
            .iter()
            .all(|a| a.len() == 101 && a.contains(&"fresh".to_owned()))
    );
    assert!(
        read <= 1,
        "{} lobby answers read the database {read} times",
        answers.len()
    );
    drop((ann, lobbies));
    server.stop().await;
}
