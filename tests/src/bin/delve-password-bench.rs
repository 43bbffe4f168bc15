//! Memory of the password checks: how much the process grows over N wrong passwords checked
//! through the server's [`Hasher`], against a baseline in the same run that checks them the way
//! the server did before (each on tokio's blocking pool, four at a time).
//!
//! `cargo run --release -p delve-tests --bin delve-password-bench -- 5000`

use std::sync::Arc;

use delve_server::net::password::{Hasher, PasswordHash};
use tokio::sync::Semaphore;

/// Resident memory of this process, in bytes (Linux).
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let tries: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(5000);
    let stored = PasswordHash::new("the right one").expect("hashes");

    // The server's pool: every wrong password from a crowd of 32 askers at once.
    let start = rss();
    let hasher = Hasher::default();
    let crowd = Arc::new(Semaphore::new(32));
    let mut asks = Vec::with_capacity(tries);
    for n in 0..tries {
        let (hasher, stored, crowd) = (hasher.clone(), stored.clone(), Arc::clone(&crowd));
        asks.push(tokio::spawn(async move {
            let _one = crowd.acquire().await;
            hasher.verify(stored, format!("wrong {n}")).await
        }));
    }
    for a in asks {
        assert!(!a.await.expect("ask"), "a wrong password passed");
    }
    let pool = rss().saturating_sub(start);

    // The baseline: the same on tokio's blocking pool, four at a time.
    let start = rss();
    let slots = Arc::new(Semaphore::new(4));
    let mut asks = Vec::with_capacity(tries);
    for n in 0..tries {
        let (stored, slots) = (stored.clone(), Arc::clone(&slots));
        asks.push(tokio::spawn(async move {
            let _slot = slots.acquire().await;
            tokio::task::spawn_blocking(move || stored.verify(&format!("wrong {n}")))
                .await
                .unwrap_or(false)
        }));
    }
    for a in asks {
        assert!(!a.await.expect("ask"));
    }
    let blocking = rss().saturating_sub(start);

    println!("{tries} wrong passwords, growth of resident memory:");
    println!("  server's hashing pool:        {:>8.1} MB", mb(pool));
    println!("  baseline (tokio blocking pool): {:>6.1} MB", mb(blocking));
    if blocking > 0 {
        println!("  pool / baseline: {:.2}", pool as f64 / blocking as f64);
    }
}
