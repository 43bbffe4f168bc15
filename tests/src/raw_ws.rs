//! A WebSocket client written by hand on a plain TCP socket, for the frames no library will
//! send: reserved bits, unknown opcodes, unmasked client frames, text that is not UTF-8,
//! oversized messages cut into fragments. Every read waits at most [`crate::WAIT`].

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::within;

/// Opcodes (RFC 6455 §5.2).
pub const CONTINUATION: u8 = 0x0;
pub const TEXT: u8 = 0x1;
pub const CLOSE: u8 = 0x8;
/// The FIN bit of the first byte: the last frame of a message.
pub const FIN: u8 = 0x80;
/// RSV1, meaningful only with an extension this server never agrees to.
pub const RSV1: u8 = 0x40;

/// What the server said before the connection ended.
#[derive(Debug, Default)]
pub struct Ending {
    /// The text frames, in order.
    pub texts: Vec<String>,
    /// The close frame's code, if a close frame came.
    pub close_code: Option<u16>,
    /// How the socket ended after that: `None` for a clean end of stream, else the error.
    pub error: Option<String>,
}

pub struct RawWs {
    socket: TcpStream,
}

impl RawWs {
    /// Opens a TCP connection to `url` (`ws://host:port`) and does the HTTP upgrade.
    pub async fn connect(url: &str) -> RawWs {
        let host = url.trim_start_matches("ws://").trim_end_matches('/');
        let mut socket = within(TcpStream::connect(host)).await.expect("connects");
        let request = format!(
            "GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        socket.write_all(request.as_bytes()).await.expect("writes");
        // The response ends at the first blank line; read it a byte at a time so no frame
        // after it is swallowed.
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let b = within(socket.read_u8()).await.expect("an upgrade response");
            head.push(b);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        RawWs { socket }
    }

    /// Sends one frame: `first` is FIN, the RSV bits and the opcode; the payload is masked
    /// (as RFC 6455 requires of clients) unless `masked` is false.
    pub async fn send_frame(&mut self, first: u8, payload: &[u8], masked: bool) {
        let frame = frame(first, payload, masked);
        self.socket.write_all(&frame).await.expect("writes");
    }

    /// Sends bytes as they are (several frames at once, say), all of them before anything is
    /// read, as a simple client would. Panics if the server cuts the connection first.
    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        let sent = within(self.socket.write_all(bytes)).await;
        sent.expect("the server takes every byte sent");
    }

    /// Reads one frame from the server: its opcode and payload. `Err` when the socket ends.
    pub async fn read_frame(&mut self) -> Result<(u8, Vec<u8>), String> {
        read_frame(&mut self.socket).await
    }

    /// Reads the text frame of the welcome (or the first error), skipping anything else.
    pub async fn next_text(&mut self) -> String {
        loop {
            let (op, payload) = self.read_frame().await.expect("a frame");
            if op == TEXT {
                return String::from_utf8(payload).expect("the server sends UTF-8");
            }
        }
    }

    /// Reads everything until the server's close frame and the end of the stream.
    pub async fn until_closed(mut self) -> Ending {
        let mut ending = Ending::default();
        loop {
            match self.read_frame().await {
                Ok((TEXT, payload)) => ending
                    .texts
                    .push(String::from_utf8_lossy(&payload).into_owned()),
                Ok((CLOSE, payload)) => {
                    ending.close_code = payload
                        .get(..2)
                        .map(|code| u16::from_be_bytes([code[0], code[1]]));
                    // Answer it, as a client should, then wait for the end of the stream.
                    let reply = frame(FIN | CLOSE, &payload[..payload.len().min(2)], true);
                    let _ = self.socket.write_all(&reply).await;
                    let mut rest = Vec::new();
                    let end = within(self.socket.read_to_end(&mut rest)).await;
                    ending.error = end.err().map(|e| e.to_string());
                    return ending;
                }
                Ok(_) => {}
                Err(e) => {
                    ending.error = Some(e);
                    return ending;
                }
            }
        }
    }
}

/// Reads one frame from the server: its opcode and payload. `Err` when the socket ends.
async fn read_frame(socket: &mut (impl AsyncRead + Unpin)) -> Result<(u8, Vec<u8>), String> {
    within(async {
        let mut head = [0u8; 2];
        socket
            .read_exact(&mut head)
            .await
            .map_err(|e| e.to_string())?;
        let len = match head[1] & 0x7f {
            126 => u64::from(socket.read_u16().await.map_err(|e| e.to_string())?),
            127 => socket.read_u64().await.map_err(|e| e.to_string())?,
            n => u64::from(n),
        };
        let mut payload = vec![0u8; usize::try_from(len).map_err(|e| e.to_string())?];
        socket
            .read_exact(&mut payload)
            .await
            .map_err(|e| e.to_string())?;
        Ok((head[0] & 0x0f, payload))
    })
    .await
}

/// One client frame's bytes.
pub fn frame(first: u8, payload: &[u8], masked: bool) -> Vec<u8> {
    let mut out = vec![first];
    let mask_bit = if masked { 0x80 } else { 0 };
    match payload.len() {
        n if n < 126 => out.push(mask_bit | n as u8),
        n if n <= usize::from(u16::MAX) => {
            out.push(mask_bit | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(mask_bit | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    if masked {
        let key = [0x37, 0xfa, 0x21, 0x3d];
        out.extend_from_slice(&key);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    } else {
        out.extend_from_slice(payload);
    }
    out
}
