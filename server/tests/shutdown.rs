//! The real `delve-server` process: SIGTERM (and Ctrl-C, the same path) tells every client the
//! server is going away, closes their sockets with 1001, and exits 0.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

mod common;
use common::free_port;

#[cfg(unix)]
#[tokio::test]
async fn sigterm_closes_clients_cleanly_and_exits_zero() {
    let port = free_port();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut child = Command::new(env!("CARGO_BIN_EXE_delve-server"))
        .args(["--bind", &format!("127.0.0.1:{port}"), "--data-dir"])
        .arg(&data)
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("server starts");
    // Wait for the "listening" log line rather than sleeping.
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let ready = std::time::Instant::now();
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("server logs that it listens");
        if line.contains("listening") {
            break;
        }
        assert!(ready.elapsed() < Duration::from_secs(20));
    }

    let url = format!("ws://127.0.0.1:{port}");
    let (mut ws, _) = tokio_tungstenite::connect_async(&url)
        .await
        .expect("connects");
    let hello = r#"{"type":"hello","version":3,"name":"Ann","dungeon":"crypt"}"#;
    ws.send(Message::text(hello)).await.unwrap();
    let welcome = tokio::time::timeout(Duration::from_secs(10), ws.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(welcome.to_text().unwrap().contains(r#""type":"welcome""#));

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());

    // The client hears why, then gets a clean close frame with 1001.
    let mut told = false;
    let code = loop {
        match tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("close within 10 s")
        {
            Some(Ok(Message::Text(t))) if t.contains(r#""code":"shutting_down""#) => told = true,
            Some(Ok(Message::Close(frame))) => break frame.map(|f| u16::from(f.code)),
            Some(Ok(_)) => {}
            other => panic!("expected a close frame, got {other:?}"),
        }
    };
    assert!(told, "no shutting_down error before the close");
    assert_eq!(code, Some(delve_protocol::close::GOING_AWAY));

    let exit = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(exit.code(), Some(0), "exit status {exit:?}");
    let _ = std::fs::remove_dir_all(data);
}
