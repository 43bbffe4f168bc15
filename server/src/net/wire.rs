//! What a game connection writes: error frames, the text frames the dungeon task writes past
//! tungstenite (framed here), and the closes (RFC 6455), each bounded in time so that a client
//! that stops reading cannot hold its connection's task.

use std::time::Duration;

use delve_protocol::{ErrorCode, ServerMsg, encode};
use futures_util::{SinkExt, StreamExt};
use tokio::time::timeout;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

pub use delve_protocol::close;

use super::link::Link;

/// The socket: hyper answered the HTTP upgrade, then handed back the TCP stream, over which
/// tungstenite speaks WebSocket (through a [`Link`], which the dungeon task writes its frames
/// to as well).
pub type Ws = WebSocketStream<Link>;

pub fn error(code: ErrorCode, message: &str) -> ServerMsg {
    ServerMsg::Error {
        code,
        message: message.to_owned(),
        reason: None,
    }
}

/// How long one frame (or one batch of them) may take to go out before its client counts as
/// gone.
pub const SEND_DEADLINE: Duration = Duration::from_secs(5);

/// A connection's buffer of frames waiting for its socket is kept up to this capacity: a
/// turn's frames (an update and a few turn statuses, about 1.3 KB) fit, a snapshot or a
/// welcome (5–7 KB) is let go.
pub const KEEP_OUT_BYTES: usize = 4096;

/// The header of one final, unmasked text frame of `len` bytes (RFC 6455 §5.2: a server never
/// masks), and how many of its bytes are used.
pub fn text_frame_header(len: usize) -> ([u8; 10], usize) {
    const FIN_TEXT: u8 = 0x80 | 0x1;
    let mut head = [0u8; 10];
    head[0] = FIN_TEXT;
    if len < 126 {
        head[1] = len as u8;
        (head, 2)
    } else if let Ok(n) = u16::try_from(len) {
        head[1] = 126;
        head[2..4].copy_from_slice(&n.to_be_bytes());
        (head, 4)
    } else {
        head[1] = 127;
        head[2..10].copy_from_slice(&(len as u64).to_be_bytes());
        (head, 10)
    }
}

/// Sends one message through tungstenite: the lobby's answers and errors, not the game's frames
/// (the dungeon task writes those, see [`super::link`]).
///
/// This and the two closes below box their work: rustc lays out every future a connection may
/// await inside the connection's own future, so a rare path kept inline costs every idle
/// connection its size for as long as it lives. For the same reason the message is taken by
/// value and encoded before the future is made: a `&error(..)` argument would be a temporary
/// kept in the caller's future across the await, and a [`ServerMsg`] is hundreds of bytes.
///
/// Where such a future is boxed, the box is made in a statement of its own and awaited in the
/// next: built in the statement that awaits it, the future is still given room in the caller's.
pub fn send(ws: &mut Ws, msg: ServerMsg) -> impl Future<Output = Result<(), WsError>> + Send + '_ {
    send_text(ws, encode(&msg))
}

/// [`send`] for a message already encoded.
pub fn send_text(
    ws: &mut Ws,
    text: String,
) -> impl Future<Output = Result<(), WsError>> + Send + '_ {
    Box::pin(async move {
        // A client that stops reading must not hold this task forever.
        match timeout(SEND_DEADLINE, ws.send(Message::text(text))).await {
            Ok(r) => r,
            Err(_) => Err(WsError::ConnectionClosed),
        }
    })
}

/// The close code RFC 6455 gives a read error that is the client's fault: 1007 for a text
/// message that is not UTF-8 (§8.1), 1002 for any other broken rule of the protocol (reserved
/// bits, unknown opcodes, unmasked or fragmented control frames, ...). `None` for errors of the
/// connection itself (a reset, an IO error), where there is nobody to tell.
pub fn violation_code(e: &WsError) -> Option<u16> {
    use tokio_tungstenite::tungstenite::error::ProtocolError;
    match e {
        WsError::Utf8(_) => Some(close::INVALID_PAYLOAD),
        WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => None,
        WsError::Protocol(_) => Some(close::PROTOCOL_ERROR),
        _ => None,
    }
}

/// Closes with `code` after a read error, then reads and drops whatever the client still sends
/// (up to a bound, for a short while). Closing a socket with unread data makes the kernel send
/// a reset, and a reset can destroy the error and close frame before the client reads them
/// (a message sent in fragments used to end in a broken pipe instead of `too_large`).
pub async fn close_and_drain(ws: &mut Ws, code: u16, reason: &str) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // Enough for any message a client library would send in one go; the time bounds it too.
    const DRAIN_BYTES: usize = 16 << 20;
    const DRAIN_TIME: Duration = Duration::from_secs(2);
    let frame = CloseFrame {
        code: CloseCode::from(code),
        reason: reason.to_owned().into(),
    };
    let _ = Box::pin(timeout(DRAIN_TIME, async {
        // After a read error the frames that follow cannot be trusted, so the rest is read as
        // bytes below the WebSocket layer.
        if ws.close(Some(frame)).await.is_err() {
            return;
        }
        // Our side is done: the end of stream after the close frame tells the client to
        // close its side, which ends the drain at once.
        let socket = ws.get_mut();
        let _ = socket.shutdown().await;
        // On the heap: a buffer on the stack of an async fn lives in the connection's future,
        // and would be held by every connection for its whole life, not only while draining.
        let mut buf = vec![0u8; 4096];
        let mut drained = 0;
        while drained < DRAIN_BYTES {
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => drained += n,
            }
        }
    }))
    .await;
}

/// Sends a close frame and waits briefly for the peer's, so the close is clean on both sides.
pub async fn close_gracefully(ws: &mut Ws, code: u16, reason: &str) {
    let frame = CloseFrame {
        code: CloseCode::from(code),
        reason: reason.to_owned().into(),
    };
    let _ = Box::pin(timeout(Duration::from_secs(2), async {
        if ws.close(Some(frame)).await.is_err() {
            return;
        }
        while let Some(Ok(_)) = ws.next().await {}
    }))
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

    /// What tungstenite itself would put on the wire for a text message of `len` bytes.
    fn tungstenite_frame(payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        Frame::message(payload.to_vec(), OpCode::Data(Data::Text), true)
            .format(&mut out)
            .expect("a Vec takes any frame");
        out
    }

    #[test]
    fn text_frames_match_tungstenites_at_every_length_boundary() {
        for len in [0, 1, 125, 126, 127, 1300, 65_535, 65_536, 300_000] {
            let payload: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let (head, head_len) = text_frame_header(payload.len());
            let mut ours = head[..head_len].to_vec();
            ours.extend_from_slice(&payload);
            assert_eq!(ours, tungstenite_frame(&payload), "payload of {len} bytes");
        }
    }
}
