//! The baseline: a plain tokio-tungstenite echo server with the game server's WebSocket settings
//! ([`delve_server::net::ws_config`]), run as a process of its own like the server.

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

/// Echoes every text or binary message back on the socket it came from, one task per
/// connection, until the process is killed.
pub async fn serve(listener: TcpListener) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        tokio::spawn(async move {
            let _ = stream.set_nodelay(true);
            let config = delve_server::net::ws_config();
            let Ok(mut ws) =
                tokio_tungstenite::accept_async_with_config(stream, Some(config)).await
            else {
                return;
            };
            while let Some(Ok(msg)) = ws.next().await {
                let back = match msg {
                    Message::Text(_) | Message::Binary(_) => msg,
                    Message::Close(_) => break,
                    _ => continue,
                };
                if ws.send(back).await.is_err() {
                    break;
                }
            }
        });
    }
}
