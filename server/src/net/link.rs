//! A game connection's socket, written from two tasks: its connection task (through
//! tungstenite: pongs, closes, and before the game its answers; during the game its answers,
//! errors and pings as whole frames through the [`LinkWriter`], so they do not wait for the
//! socket either) and its dungeon task (the game's frames, written straight onto the socket as
//! they are made, so an update costs no wake-up of the connection's task — the way an echo
//! server writes from the task that read).
//!
//! Both write through one ordered buffer under one lock, so frames never interleave:
//! - a write from tungstenite is always taken whole (copied into the buffer if the socket
//!   cannot take it now), so tungstenite never holds half a frame that another write could
//!   overtake;
//! - a frame through the writer goes straight to the socket when nothing waits before it, and
//!   otherwise behind what waits;
//! - what the socket could not take waits in the buffer for the connection's task, which is
//!   woken to write it (bounded in time: a client that stops reading is dropped, as before).

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

use super::wire::{KEEP_OUT_BYTES, text_frame_header};

/// Bytes that may wait for a slow client before the dungeon's frames are refused (the
/// connection then counts as fallen behind, and gets a snapshot once it catches up) and
/// tungstenite's writes wait. About fifty updates, or ten snapshots.
pub const MAX_WAITING_BYTES: usize = 64 * 1024;

/// How far the connection's own answers to its player (the lobby's list, the scores, errors,
/// pings) may go past [`MAX_WAITING_BYTES`]: they are few and asked for, and the send deadline
/// drops a client that stops reading within seconds, so this bounds what one can hold.
pub const ANSWER_ROOM: usize = 64 * 1024;

/// The stream tungstenite speaks over.
pub struct Link {
    read: OwnedReadHalf,
    shared: Arc<Shared>,
}

/// The socket's write side as the dungeon task and the connection's own loop hold it.
#[derive(Clone)]
pub struct LinkWriter {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for LinkWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkWriter")
            .field("waiting", &self.shared.lock().waiting())
            .finish()
    }
}

/// Why a frame was not taken.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// The client is not reading fast enough: too much waits for it already.
    Full,
    /// The connection is over, or closing.
    Closed,
}

struct Shared {
    state: Mutex<State>,
}

struct State {
    /// `None` once the connection's task let go of the link: the socket is closed.
    half: Option<OwnedWriteHalf>,
    /// Bytes taken for the socket but not on it yet, in order; the first `written` of them
    /// are on it already.
    waiting: Vec<u8>,
    written: usize,
    /// The connection's task, waiting for bytes to write.
    drainer: Option<Waker>,
    /// The dungeon asked for a close: it writes no more frames.
    shut: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding the lock; if something did, the bytes are still whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    fn waiting(&self) -> usize {
        self.waiting.len() - self.written
    }

    /// Queues what `parts` hold past their first `skip` bytes.
    fn queue(&mut self, parts: &[&[u8]], mut skip: usize) {
        for part in parts {
            if skip >= part.len() {
                skip -= part.len();
                continue;
            }
            self.waiting.extend_from_slice(&part[skip..]);
            skip = 0;
        }
    }

    /// Writes what waits, as far as the socket takes it; ready when nothing waits.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.waiting() > 0 {
            let Some(half) = self.half.as_mut() else {
                return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
            };
            match ready!(Pin::new(half).poll_write(cx, &self.waiting[self.written..])) {
                Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Ok(n) => self.written += n,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        self.waiting.clear();
        self.written = 0;
        if self.waiting.capacity() > KEEP_OUT_BYTES {
            // A snapshot that waited made it big: an idle connection does not keep that.
            self.waiting = Vec::new();
        }
        Poll::Ready(Ok(()))
    }
}

impl Link {
    pub fn new(stream: TcpStream) -> Link {
        let (read, half) = stream.into_split();
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                half: Some(half),
                waiting: Vec::new(),
                written: 0,
                drainer: None,
                shut: false,
            }),
        });
        Link { read, shared }
    }

    /// The write side, for the dungeon task and the connection's loop.
    pub fn writer(&self) -> LinkWriter {
        LinkWriter {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        // The connection is over: close the socket now rather than when the dungeon lets go
        // of its writer, and refuse its frames from here on.
        let mut st = self.shared.lock();
        st.half = None;
        st.shut = true;
    }
}

impl AsyncRead for Link {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.read).poll_read(cx, buf)
    }
}

impl AsyncWrite for Link {
    /// Takes all of `buf` unless too much waits already (then it waits for the socket first).
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let mut st = self.shared.lock();
        if st.waiting() >= MAX_WAITING_BYTES {
            ready!(st.poll_drain(cx))?;
        }
        st.queue(&[buf], 0);
        // Written now if the socket takes it; what it does not take waits for the flush
        // tungstenite always follows a write with.
        if let Poll::Ready(Err(e)) = st.poll_drain(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.shared.lock().poll_drain(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut st = self.shared.lock();
        ready!(st.poll_drain(cx))?;
        match st.half.as_mut() {
            Some(half) => Pin::new(half).poll_shutdown(cx),
            None => Poll::Ready(Ok(())),
        }
    }
}

impl LinkWriter {
    /// Writes `payload` as one text frame: onto the socket now if nothing waits before it and
    /// the socket takes it, else behind what waits (the connection's task is woken to write
    /// it). Never waits.
    pub fn write_text(&self, payload: &[u8]) -> Result<(), Refused> {
        let (head, head_len) = text_frame_header(payload.len());
        self.write_frame(&head[..head_len], payload, MAX_WAITING_BYTES)
    }

    /// Writes the connection's own answer to its player (a lobby list, an error) as
    /// [`Self::write_text`] writes the dungeon's frames, with [`ANSWER_ROOM`] more room: a
    /// player whose backlog of updates is full still gets what it asked for, and is still
    /// read meanwhile.
    pub fn write_answer(&self, payload: &[u8]) -> Result<(), Refused> {
        let (head, head_len) = text_frame_header(payload.len());
        self.write_frame(&head[..head_len], payload, MAX_WAITING_BYTES + ANSWER_ROOM)
    }

    /// Writes a ping (with no payload) the way [`Self::write_answer`] writes an answer: the
    /// connection's loop pings a player without waiting for bytes the socket has not taken.
    pub fn write_ping(&self) -> Result<(), Refused> {
        /// A final, unmasked ping frame with an empty payload (RFC 6455 §5.5.2).
        const PING: [u8; 2] = [0x80 | 0x9, 0];
        self.write_frame(&PING, &[], MAX_WAITING_BYTES + ANSWER_ROOM)
    }

    /// One frame, `head` then `payload`, onto the socket or behind what waits for it, unless
    /// that would make more than `limit` bytes wait.
    fn write_frame(&self, head: &[u8], payload: &[u8], limit: usize) -> Result<(), Refused> {
        let mut st = self.shared.lock();
        if st.shut {
            return Err(Refused::Closed);
        }
        let waiting = st.waiting();
        let skip = if waiting == 0 {
            let Some(half) = st.half.as_ref() else {
                return Err(Refused::Closed);
            };
            let n = match write_whole(half, head, payload) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => 0,
                // The connection's task learns of it by reading; the frame is lost with the
                // connection.
                Err(_) => return Err(Refused::Closed),
            };
            if n == head.len() + payload.len() {
                return Ok(());
            }
            n
        } else if waiting + head.len() + payload.len() > limit {
            return Err(Refused::Full);
        } else {
            0
        };
        st.queue(&[head, payload], skip);
        let drainer = st.drainer.take();
        drop(st);
        if let Some(w) = drainer {
            w.wake();
        }
        Ok(())
    }

    /// No more frames from the dungeon: a close is on its way through the outbox.
    pub fn shut(&self) {
        self.shared.lock().shut = true;
    }

    /// Whether bytes wait to be written now.
    pub fn is_waiting(&self) -> bool {
        self.shared.lock().waiting() > 0
    }

    /// Ready when bytes wait to be written (for the connection's loop).
    pub async fn has_waiting(&self) {
        poll_fn(|cx| {
            let mut st = self.shared.lock();
            if st.waiting() > 0 {
                return Poll::Ready(());
            }
            match &st.drainer {
                Some(w) if w.will_wake(cx.waker()) => {}
                _ => st.drainer = Some(cx.waker().clone()),
            }
            Poll::Pending
        })
        .await
    }

    /// Writes what waits, waiting for the socket as needed.
    pub async fn drain(&self) -> io::Result<()> {
        poll_fn(|cx| self.shared.lock().poll_drain(cx)).await
    }
}

/// Writes `head` then `payload` to the socket in one `send`, as far as it takes them.
///
/// Copied together first rather than handed over as two pieces (`writev`): the copy is a few
/// hundred bytes, and Linux takes a `writev` through its file layer (the file's permission
/// checks, its notifications) before the socket's, which measured more than the copy.
fn write_whole(half: &OwnedWriteHalf, head: &[u8], payload: &[u8]) -> io::Result<usize> {
    thread_local! {
        static FRAME: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    FRAME.with_borrow_mut(|frame| {
        frame.clear();
        frame.extend_from_slice(head);
        frame.extend_from_slice(payload);
        let n = half.try_write(frame);
        if frame.capacity() > KEEP_OUT_BYTES {
            *frame = Vec::new();
        }
        n
    })
}

#[cfg(test)]
mod tests;
