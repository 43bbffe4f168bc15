//! `--solo`: the server library started inside the client, on a free loopback port, with a
//! private dungeon nobody else can reach.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use delve_server::net::{Server, ServerConfig};
use tokio::sync::oneshot;

/// A server running on its own thread. Dropping it shuts the server down.
#[derive(Debug)]
pub struct SoloServer {
    pub url: String,
    pub dungeon: String,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl SoloServer {
    /// Starts the server and returns once it is listening.
    pub fn start() -> anyhow::Result<SoloServer> {
        let (ready_tx, ready_rx) = mpsc::channel();
        let (stop, stop_rx) = oneshot::channel::<()>();
        let thread = thread::Builder::new()
            .name("delve-solo-server".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(anyhow::anyhow!(
                            "cannot start the solo server runtime: {e}"
                        )));
                        return;
                    }
                };
                rt.block_on(async move {
                    let config = ServerConfig {
                        bind: ([127, 0, 0, 1], 0).into(),
                        // Alone, there is nobody to wait for: every turn resolves on your action.
                        turn_timeout: Duration::ZERO,
                        max_connections: 4,
                        max_connections_per_ip: 4,
                        ..ServerConfig::default()
                    };
                    match Server::start(config).await {
                        Ok(server) => {
                            let _ = ready_tx.send(Ok(server.url()));
                            let _ = stop_rx.await;
                            server.shutdown().await;
                        }
                        Err(e) => {
                            let _ = ready_tx
                                .send(Err(anyhow::anyhow!("cannot start the solo server: {e}")));
                        }
                    }
                });
            })?;
        let url = ready_rx.recv_timeout(Duration::from_secs(10))??;
        // A name nobody could guess: the dungeon is private even on a shared machine.
        let dungeon = format!(
            "solo-{}",
            delve_server::net::validate::new_token()
                .get(..12)
                .unwrap_or("x")
        );
        Ok(SoloServer {
            url,
            dungeon,
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for SoloServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
