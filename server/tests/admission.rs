//! Fair admission under a slowloris flood, through the real `delve-server` process: 640
//! connections from 20 addresses trickle HTTP headers and hold every connection slot the server
//! has (512), reconnecting whenever one is cut. A newcomer from a fresh address still gets in
//! (the unfinished handshakes give way), a player who joined before plays on, and the log says
//! what happened in summary lines, not silence and not a line per connection.

#![cfg(unix)]
#![allow(clippy::unwrap_used)] // a test that cannot go on should stop right there

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{Client, Proc, free_port};
use delve_protocol::{Action, ClientMsg};
use delve_server::game::content::BUILTIN;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

/// Addresses the flood comes from, and connections from each (the per-address limit).
const ADDRESSES: u8 = 20;
const PER_ADDRESS: usize = 32;

/// One slowloris connection from `from`, again and again until `stop`: it sends a request line
/// and then one header line a second, never ending the headers.
async fn slowloris(from: [u8; 4], server: SocketAddr, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::from((from, 0))).unwrap();
        let Ok(mut stream) = socket.connect(server).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        if stream
            .write_all(b"GET / HTTP/1.1\r\nHost: delve\r\n")
            .await
            .is_err()
        {
            continue;
        }
        let mut buf = [0u8; 512];
        while !stop.load(Ordering::Relaxed) {
            tokio::select! {
                // Cut off (or answered): connect again.
                r = stream.read(&mut buf) => if matches!(r, Ok(0) | Err(_)) { break },
                () = tokio::time::sleep(Duration::from_secs(1)) => {
                    if stream.write_all(b"X-Trickle: a\r\n").await.is_err() {
                        break;
                    }
                }
            }
        }
    }
}

/// Scrapes `/metrics` on `at` (the `--metrics-bind` listener: no game slot needed).
async fn scrape(at: SocketAddr) -> String {
    let Ok(mut s) = tokio::net::TcpStream::connect(at).await else {
        return String::new();
    };
    let ask = b"GET /metrics HTTP/1.1\r\nHost: delve\r\nConnection: close\r\n\r\n";
    if s.write_all(ask).await.is_err() {
        return String::new();
    }
    let mut text = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_string(&mut text)).await;
    text
}

fn value(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newcomer_gets_in_while_slowloris_holds_every_slot() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content = dir.path().join("content.toml");
    std::fs::write(&content, BUILTIN).unwrap();
    let port = free_port();
    let metrics_port = free_port();
    let metrics: SocketAddr = ([127, 0, 0, 1], metrics_port).into();
    // The default limits (512 connections, 32 an address); headers cut off after 2 s rather
    // than 10, so the log's summary comes sooner; pings rare, as Ann reads only now and then.
    let server = Proc::start(
        port,
        &data,
        &content,
        &[
            "--handshake-timeout",
            "2",
            "--ping-interval",
            "600",
            "--metrics-bind",
            &metrics.to_string(),
        ],
    );
    let mut ann = Client::join(port, "Ann", None).await;

    let stop = Arc::new(AtomicBool::new(false));
    let target: SocketAddr = ([127, 0, 0, 1], port).into();
    let mut flood = Vec::new();
    for a in 0..ADDRESSES {
        for _ in 0..PER_ADDRESS {
            flood.push(tokio::spawn(slowloris(
                [127, 0, 0, 2 + a],
                target,
                Arc::clone(&stop),
            )));
        }
    }
    // Wait until the flood holds every slot but Ann's.
    loop {
        let text = scrape(metrics).await;
        if value(&text, "delve_connections{state=\"handshake\"}") >= 511.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // A newcomer from a fresh address joins: an unfinished handshake gives way to it.
    let bea = Client::try_join_from(port, [127, 0, 0, 100].into(), "crypt", "Bea", None)
        .await
        .unwrap_or_else(|(code, message)| panic!("Bea was refused: {code:?} {message}"));
    assert_eq!(&*bea.view.me.name, "Bea");
    // Ann, who joined before the flood, plays on (with Bea, the turn waits for both).
    let mut bea = bea;
    let turn = ann.view.turn + 1;
    ann.send(&ClientMsg::Act(Action::Wait)).await;
    bea.send(&ClientMsg::Act(Action::Wait)).await;
    ann.until_turn(turn).await;

    // The log tells the operator, in one line per kind: the handshakes cut off, and those
    // that made room for newcomers, with how many addresses they came from.
    let cut_off = server.wait_for("unfinished handshakes cut off in the last 10 s");
    assert!(cut_off.contains("from 20 addresses"), "{cut_off}");
    let text = scrape(metrics).await;
    assert!(
        value(&text, "delve_refusals_total{reason=\"handshake_gave_way\"}") >= 1.0,
        "{text}"
    );
    stop.store(true, Ordering::Relaxed);
    for f in flood {
        f.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_flooding_address_cannot_silence_the_refusals_of_others() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let content = dir.path().join("content.toml");
    std::fs::write(&content, BUILTIN).unwrap();
    let port = free_port();
    let server = Proc::start(
        port,
        &data,
        &content,
        &["--max-connections", "3", "--ping-interval", "600"],
    );
    // Three players fill the server.
    let mut players = Vec::new();
    for name in ["Ann", "Bob", "Cy"] {
        players.push(Client::join(port, name, None).await);
    }
    // One address opens 40 connections that say nothing: each is a refusal to explain, which
    // waits for a request that never comes. Only a few are explained; the rest are closed at
    // once.
    let target: SocketAddr = ([127, 0, 0, 1], port).into();
    let mut silent = Vec::new();
    for _ in 0..40 {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::from(([127, 0, 0, 50], 0))).unwrap();
        silent.push(socket.connect(target).await.unwrap());
    }
    // A newcomer from another address is still told why it cannot come in.
    let refused = Client::try_join_from(port, [127, 0, 0, 60].into(), "crypt", "Dee", None).await;
    let Err((code, message)) = refused else {
        panic!("Dee got in to a full server");
    };
    assert_eq!(code, delve_protocol::ErrorCode::ServerFull, "{message}");
    let line = server.wait_for("refused connections closed unanswered");
    assert!(line.contains("from 1 address"), "{line}");
    drop((players, silent));
}
