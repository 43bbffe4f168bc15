//! The real `delve-server` process runs its heap on large pages unless told otherwise: started
//! without `MIMALLOC_ALLOW_LARGE_OS_PAGES`, it runs itself again with the option set (the same
//! process), and says so in the log; an operator's own setting is left as it is. (Built with
//! `--no-default-features`, the server has the system's allocator and none of this.)
#![cfg(feature = "mimalloc")]

mod common;

use std::process::Command;

use common::{Proc, free_port};

const VAR: &str = "MIMALLOC_ALLOW_LARGE_OS_PAGES";

/// Starts the server with `var` as mimalloc's option (or without it), and returns the process
/// and its first log line about the heap.
fn start(var: Option<&str>) -> (Proc, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_delve-server"));
    cmd.args(["--memory-only", "--no-web", "--bind"])
        .arg(format!("127.0.0.1:{}", free_port()))
        .env("RUST_LOG", "info")
        .env_remove(VAR);
    if let Some(v) = var {
        cmd.env(VAR, v);
    }
    // Killed and waited for when dropped.
    let server = Proc::spawn(cmd);
    let line = server.wait_for("heap:");
    (server, line)
}

/// mimalloc's option as the process with id `pid` has it in its environment.
fn option_of(pid: u32) -> Option<String> {
    let env = std::fs::read(format!("/proc/{pid}/environ")).expect("the process's environment");
    env.split(|&b| b == 0)
        .filter_map(|kv| std::str::from_utf8(kv).ok())
        .find_map(|kv| kv.strip_prefix(&format!("{VAR}=")).map(str::to_owned))
}

#[test]
fn started_without_the_option_the_server_runs_again_with_large_pages() {
    let (server, line) = start(None);
    assert!(
        line.contains("large pages allowed"),
        "the log says large pages: {line}"
    );
    // The process that was started is the one that runs with the option: it ran itself again
    // in place, rather than starting another.
    assert_eq!(option_of(server.child.id()).as_deref(), Some("1"));
}

#[test]
fn an_operators_own_setting_is_kept() {
    let (server, line) = start(Some("0"));
    assert!(
        line.contains(&format!("{VAR}=0")),
        "the log says the operator's 0: {line}"
    );
    assert!(!line.contains("allowed"), "{line}");
    assert_eq!(option_of(server.child.id()).as_deref(), Some("0"));
}
