//! A client spraying random junk (and some valid intents) at the server, in the same dungeon as
//! two players: the server answers the junk with errors, the junk never reaches the other
//! players, and their game goes on with exact views.

use delve_protocol::Action;
use std::time::Duration;

use delve_protocol::{ClientMsg, ServerMsg};
use delve_tests::{Bot, TestServer, sturdy_config, within};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio_tungstenite::tungstenite::Message;

fn junk(rng: &mut ChaCha8Rng) -> Message {
    let types = [
        "hello", "move", "wait", "resync", "chat", "", "MOVE", "dance", "error", "welcome",
    ];
    let values = [
        "null",
        "true",
        "-1",
        "0",
        "1e999",
        "18446744073709551616",
        "\"n\"",
        "\"\"",
        "\"ne\"",
        "[]",
        "{}",
        "\"\\u0000\"",
        "\"ü\"",
        "-0.5",
        "[\"n\"]",
        "{\"dir\":\"n\"}",
    ];
    let keys = [
        "type", "dir", "version", "name", "dungeon", "token", "x", "",
    ];
    match rng.random_range(0..9) {
        0 => {
            let n = rng.random_range(0..300);
            Message::text(
                (0..n)
                    .map(|_| rng.random_range(' '..='~'))
                    .collect::<String>(),
            )
        }
        1 => {
            let mut fields: Vec<String> = (0..rng.random_range(0..5))
                .map(|_| {
                    format!(
                        "\"{}\":{}",
                        keys.choose(rng).unwrap(),
                        values.choose(rng).unwrap()
                    )
                })
                .collect();
            fields.push(format!("\"type\":\"{}\"", types.choose(rng).unwrap()));
            if rng.random_bool(0.5) {
                fields.reverse();
            }
            Message::text(format!("{{{}}}", fields.join(",")))
        }
        2 => {
            let depth = rng.random_range(100..1000);
            Message::text(format!("{}{}", "[".repeat(depth), "]".repeat(depth)))
        }
        3 => Message::text(format!(
            "{{\"type\":\"move\",\"dir\":{}}}",
            values.choose(rng).unwrap()
        )),
        4 => Message::binary(
            (0..rng.random_range(0..64))
                .map(|_| rng.random::<u8>())
                .collect::<Vec<u8>>(),
        ),
        5 => Message::text(format!(
            "{{\"type\":\"hello\",\"version\":{},\"name\":{},\"dungeon\":\"crypt\"}}",
            values.choose(rng).unwrap(),
            values.choose(rng).unwrap()
        )),
        6 => Message::text(format!(
            "{{\"type\":\"wait\",\"pad\":\"{}\"}}",
            "x".repeat(rng.random_range(0..1900))
        )),
        7 => Message::text("{\"type\":\"resync\"}"),
        _ => Message::text(format!(
            "{{\"type\":\"move\",\"dir\":\"{}\"}}",
            ["n", "ne", "e", "se", "s", "sw", "w", "nw"]
                .choose(rng)
                .unwrap()
        )),
    }
}

#[tokio::test]
async fn junk_from_one_client_disturbs_nobody_else() {
    let seed = 31337u64;
    println!("junk seed {seed}");
    let mut config = sturdy_config();
    config.turn_timeout = Duration::from_millis(30);
    config.msgs_per_sec = 100_000;
    config.msg_burst = 100_000;
    let server = TestServer::start(config).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let mut zed = Bot::join(&server.url, "Zed", "crypt").await;

    let spray = tokio::spawn(async move {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut errors = 0usize;
        for k in 0..1500 {
            let frame = junk(&mut rng);
            within(zed.session.send_raw(frame))
                .await
                .unwrap_or_else(|e| panic!("seed {seed}, frame {k}: {e}"));
            // Read whatever has arrived, without waiting, so Zed's outbox never fills.
            while let Ok(Ok(m)) =
                tokio::time::timeout(Duration::from_millis(0), zed.session.recv()).await
            {
                if matches!(m, ServerMsg::Error { .. }) {
                    errors += 1;
                }
            }
        }
        // Still connected and still served: a resync brings a snapshot.
        zed.send(ClientMsg::Resync).await;
        loop {
            match zed
                .recv()
                .await
                .unwrap_or_else(|e| panic!("seed {seed}: Zed was cut off: {e}"))
            {
                ServerMsg::Snapshot { .. } => break,
                ServerMsg::Error { .. } => errors += 1,
                _ => {}
            }
        }
        (errors, zed)
    });

    // Meanwhile Ann and Bob play; their views stay exact and leak nothing.
    for _ in 0..40 {
        let t = ann.view().turn;
        ann.send(ClientMsg::Act(Action::Wait)).await;
        bob.send(ClientMsg::Act(Action::Wait)).await;
        while ann.view().turn <= t {
            ann.next_view().await;
        }
        while bob.view().turn < ann.view().turn {
            bob.next_view().await;
        }
    }
    let (errors, _zed) = spray.await.unwrap();
    assert!(
        errors > 500,
        "seed {seed}: only {errors} errors for 1500 junk frames"
    );
    // Turns go on resolving (Zed's valid moves start the timer), so updates may be queued
    // ahead of the snapshot: apply them, then the copy must equal the snapshot exactly.
    for bot in [&mut ann, &mut bob] {
        bot.send(ClientMsg::Resync).await;
        loop {
            match bot.recv().await.unwrap() {
                ServerMsg::Snapshot { view, .. } => {
                    assert_eq!(bot.view(), &view, "seed {seed}: {} drifted", bot.name);
                    break;
                }
                other => {
                    bot.model.handle(other).unwrap();
                }
            }
        }
    }
    assert_eq!(server.connections(), 3);
    server.stop().await;
}
