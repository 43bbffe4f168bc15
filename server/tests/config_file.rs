//! `delve-server --config FILE`: the real binary reads its options from a TOML file, the command
//! line overrides them, and a key it does not know stops it with the key named.

#![allow(clippy::unwrap_used)] // a test that cannot go on should stop right there

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

mod common;
use common::free_port;

/// Starts the server with `args` and returns it with its "ready" log line (or the line that
/// said why it could not start).
fn start(args: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_delve-server"))
        .args(args)
        .env("RUST_LOG", "info")
        .env("DELVE_SKIP_WEB", "1")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let line = BufReader::new(stderr)
        .lines()
        .map_while(Result::ok)
        .find(|l| l.contains("server ready") || l.contains("error") || l.contains("cannot"))
        .unwrap_or_default();
    (child, line)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn the_file_sets_options_and_the_command_line_overrides_them() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let file = write(
        dir.path(),
        "server.toml",
        &format!(
            "bind = \"127.0.0.1:{port}\"\nmemory_only = true\nturn_timeout = 0.5\nno_web = true\n"
        ),
    );
    let (mut child, line) = start(&["--config", &file]);
    assert!(line.contains("server ready"), "{line}");
    assert!(line.contains(&format!("127.0.0.1:{port}")), "{line}");
    assert!(line.contains("turn_timeout_s=0.5"), "{line}");
    assert!(line.contains("(memory only)"), "{line}");
    std::net::TcpStream::connect(("127.0.0.1", port)).expect("it listens where the file says");
    child.kill().unwrap();
    child.wait().unwrap();

    let (mut child, line) = start(&["--config", &file, "--turn-timeout", "2"]);
    assert!(
        line.contains("turn_timeout_s=2"),
        "the command line wins: {line}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn the_example_file_names_only_real_options() {
    let dir = tempfile::tempdir().unwrap();
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/delve-server.example.toml");
    let port = free_port().to_string();
    let bind = format!("127.0.0.1:{port}");
    let data = dir.path().join("data");
    let (mut child, line) = start(&[
        "--config",
        example,
        "--bind",
        &bind,
        "--data-dir",
        data.to_str().unwrap(),
    ]);
    assert!(line.contains("server ready"), "{line}");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn an_unknown_key_stops_the_server_and_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "server.toml", "turn_timout = 5\n");
    let out = Command::new(env!("CARGO_BIN_EXE_delve-server"))
        .args(["--config", &file])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(said.contains("unknown option `turn_timout`"), "{said}");
}
