//! A TCP proxy a test controls, for a network that dies without a word: it forwards both ways
//! until [`Proxy::cut`], then keeps both sockets open and forwards nothing, in either direction,
//! ever again. To the server the client's link looks exactly like a Wi-Fi gone or a NAT that
//! forgot it: no FIN, no reset, no answer.

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// Forwards every connection made to it to `target`, until cut.
pub struct Proxy {
    addr: SocketAddr,
    cut: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    pub async fn start(target: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let addr = listener.local_addr().expect("bound");
        let (cut, cut_rx) = watch::channel(false);
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(target).await else {
                    continue;
                };
                let (cr, cw) = client.into_split();
                let (sr, sw) = server.into_split();
                tokio::spawn(forward(cr, sw, cut_rx.clone()));
                tokio::spawn(forward(sr, cw, cut_rx.clone()));
            }
        });
        Proxy { addr, cut, task }
    }

    /// `ws://` address of the proxy.
    pub fn url(&self) -> String {
        format!("ws://{}", self.addr)
    }

    /// From now on nothing passes, and nothing is closed.
    pub fn cut(&self) {
        let _ = self.cut.send(true);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Copies `from` to `to` until the proxy is cut; then holds both, reading and writing nothing.
async fn forward(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut cut: watch::Receiver<bool>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        if *cut.borrow() {
            break;
        }
        let n = tokio::select! {
            r = from.read(&mut buf) => match r {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            },
            _ = cut.changed() => break,
        };
        if *cut.borrow() || to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    // Dead, not closed: both halves stay open until the test ends.
    let _held = (from, to);
    std::future::pending::<()>().await;
}
