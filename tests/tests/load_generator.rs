//! The load generator, run for real on a small load: it starts the real `delve-server` binary
//! and its echo baseline, plays, and prints its rows. A generator that no longer runs, or whose
//! bots no longer get their answers, fails here rather than in the next benchmark.

use std::process::Command;

/// The server binary cargo built beside `delve-load` (every binary of the workspace lands in the
/// same directory when the workspace's tests are built).
fn server_bin() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_BIN_EXE_delve-load")).with_file_name("delve-server")
}

/// The cells of the table row for `target` (`echo` or `server`).
fn row<'a>(out: &'a str, clients: u32, target: &str) -> Vec<&'a str> {
    let start = format!("| {clients} | {target} |");
    let line = out
        .lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("no {target} row in:\n{out}"));
    line.split('|').map(str::trim).collect()
}

#[test]
fn a_small_load_runs_against_the_real_server_and_every_message_is_answered() {
    let server = server_bin();
    if !server.exists() {
        // Built by `cargo test --workspace` / `cargo nextest run --workspace`, as CI does.
        panic!(
            "{} is missing: build the workspace's binaries first",
            server.display()
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_delve-load"))
        .args(["--clients", "8", "--seconds", "1", "--warmup", "0.5"])
        .args(["--idle", "8", "--server-bin"])
        .arg(&server)
        .output()
        .expect("delve-load runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("memory per idle connection (8 connections)"),
        "{stdout}"
    );
    for target in ["echo", "server"] {
        // | clients | target | p50 | p99 | p99.9 | max | sent | updates | frames | rejected | errors |
        let cells = row(&stdout, 8, target);
        let num = |i: usize| -> u64 {
            cells[i]
                .parse()
                .unwrap_or_else(|_| panic!("{target}: cell {i} {:?}", cells[i]))
        };
        let (sent, updates, rejected, errors) = (num(7), num(8), num(10), num(11));
        assert!(sent >= 8, "{target} sent {sent}: {stdout}");
        // The answers to the last messages may land just past the window, uncounted.
        assert!(
            updates * 10 >= sent * 9,
            "{target}: {updates} updates for {sent} sent"
        );
        assert_eq!((rejected, errors), (0, 0), "{target}: {stdout}\n{stderr}");
    }
}
