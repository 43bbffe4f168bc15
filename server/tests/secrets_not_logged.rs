//! The real `delve-server` process at `RUST_LOG=trace`, the most it can log: a private dungeon
//! made with a password, a friend joining with it, a resume with the token, a wrong password.
//! None of the passwords or tokens appears anywhere in what the server printed.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};

use common::{WAIT, free_port, next_msg};
use delve_protocol::{ClientMsg, ErrorCode, PROTOCOL_VERSION, ServerMsg, encode};
use futures_util::SinkExt;
use tokio_tungstenite::tungstenite::Message;

/// A secret no log line could hold by chance.
fn secret(what: &str) -> String {
    format!("{what}-{}", delve_server::net::validate::new_token())
}

/// Says hello to dungeon `vault` and returns the token of the welcome, or the error's code.
async fn hello(
    port: u16,
    name: &str,
    password: &str,
    token: Option<String>,
) -> Result<String, ErrorCode> {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}"))
        .await
        .expect("connects");
    let hello = ClientMsg::Hello {
        version: PROTOCOL_VERSION,
        name: name.into(),
        dungeon: "vault".into(),
        token,
        password: Some(password.into()),
        watch: None,
    };
    ws.send(Message::text(encode(&hello))).await.expect("sends");
    let answer = loop {
        match next_msg(&mut ws).await {
            ServerMsg::Welcome { token, .. } => break Ok(token.expect("a player's token")),
            ServerMsg::Error { code, .. } => break Err(code),
            _ => {}
        }
    };
    let _ = ws.close(None).await;
    answer
}

#[cfg(unix)]
#[tokio::test]
async fn no_password_or_token_reaches_the_log_even_at_trace() {
    let port = free_port();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut child = Command::new(env!("CARGO_BIN_EXE_delve-server"))
        .args(["--bind", &format!("127.0.0.1:{port}"), "--data-dir"])
        .arg(dir.path().join("data"))
        .args(["--no-web", "--turn-timeout", "0"])
        .env("RUST_LOG", "trace")
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("server starts");
    let mut stdout = child.stdout.take().expect("stdout");
    let out_reader = std::thread::spawn(move || {
        let mut all = String::new();
        let _ = stdout.read_to_string(&mut all);
        all
    });
    // The log, line by line until "listening", then the rest kept whole.
    let stderr = child.stderr.take().expect("stderr");
    let (tx, lines) = std::sync::mpsc::channel();
    let err_reader = std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let mut log = Vec::new();
    loop {
        let line = lines
            .recv_timeout(WAIT)
            .expect("the server says it listens");
        let ready = line.contains("listening");
        log.push(line);
        if ready {
            break;
        }
    }

    let password = secret("pw");
    let wrong = secret("wrong");
    let ann = hello(port, "Ann", &password, None)
        .await
        .expect("Ann makes the vault");
    let bob = hello(port, "Bob", &password, None)
        .await
        .expect("Bob joins with the password");
    let again = hello(port, "Ann", &password, Some(ann.clone())).await;
    assert!(again.is_ok(), "Ann resumes with her token: {again:?}");
    assert_eq!(
        hello(port, "Carl", &wrong, None).await,
        Err(ErrorCode::BadPassword)
    );

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    child.wait().expect("the server exits");
    err_reader.join().expect("stderr read");
    log.extend(lines.try_iter());
    let all = format!(
        "{}\n{}",
        log.join("\n"),
        out_reader.join().expect("stdout read")
    );

    // Trace really was on, so this is the most the server prints: the connection logs each
    // text frame's length at trace (never its text).
    let traced = log
        .iter()
        .filter(|l| l.contains("TRACE") && l.contains("text frame"))
        .count();
    assert!(traced >= 4, "no trace line at RUST_LOG=trace:\n{all}");
    assert!(all.contains("wrong dungeon password"), "{all}");
    for (what, s) in [
        ("the password", &password),
        ("the wrong password", &wrong),
        ("Ann's token", &ann),
        ("Bob's token", &bob),
    ] {
        assert!(
            !all.contains(s.as_str()),
            "{what} ({s}) is in the server's output:\n{}",
            all.lines()
                .filter(|l| l.contains(s.as_str()))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
