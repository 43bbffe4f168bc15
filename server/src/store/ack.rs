//! [`Pending`] and [`Ack`]: the answer to a command sent to the writer thread, which async code
//! awaits and synchronous code (the CLI, benchmarks, `create_dungeon`) waits on.

use std::fmt;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use tokio::sync::oneshot;

use super::error::StoreError;

/// The outcome of a write, to come. It resolves once the writer thread has committed the
/// transaction holding the write (`Ok`: the write is in the database) or has given up on it.
///
/// Dropping it does not cancel the write; it only gives up knowing how it went.
#[must_use = "the write happens anyway; await it or call wait() to know that it was committed"]
pub struct Pending<T> {
    rx: oneshot::Receiver<Result<T, StoreError>>,
    path: Arc<Path>,
}

/// A write's acknowledgement: `Ok(())` once the write is committed.
pub type Ack = Pending<()>;

impl<T> Pending<T> {
    pub(crate) fn new(rx: oneshot::Receiver<Result<T, StoreError>>, path: Arc<Path>) -> Self {
        Pending { rx, path }
    }

    /// Blocks the calling thread until the outcome is known. Safe to call anywhere, including
    /// inside a tokio runtime (it parks the thread rather than using tokio's `blocking_recv`,
    /// which would panic there) — but from async code prefer `.await`.
    pub fn wait(self) -> Result<T, StoreError> {
        block_on(self)
    }
}

impl<T> Future for Pending<T> {
    type Output = Result<T, StoreError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        match Pin::new(&mut this.rx).poll(cx) {
            Poll::Ready(Ok(outcome)) => Poll::Ready(outcome),
            // The writer dropped the command without answering: it is gone.
            Poll::Ready(Err(_)) => Poll::Ready(Err(StoreError::Closed {
                path: this.path.to_path_buf(),
            })),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T> fmt::Debug for Pending<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pending").field("path", &self.path).finish()
    }
}

/// Wakes a parked thread.
struct Unparker(Thread);

impl Wake for Unparker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs one future to completion on this thread, parking between polls.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Unparker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            // A spurious wake-up only costs another poll.
            Poll::Pending => thread::park(),
        }
    }
}
