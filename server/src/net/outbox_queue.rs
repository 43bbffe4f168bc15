//! The queue from a dungeon task to one connection's socket task: bounded, never waited on by
//! the sender (a full queue means the client fell behind), read by one receiver. A connection's
//! frames go straight to its socket ([`super::link`]); this queue carries the dungeon's close,
//! which the connection's task writes after them (and, in the dungeon task's own tests, which
//! have no sockets, the frames too).
//!
//! Written here rather than taken from `tokio::sync::mpsc` for its size: every signed-in
//! connection keeps one for its whole life, and tokio's bounded channel allocates a block of 32
//! slots and a cache-padded shared state up front (1.5 KB, a fifth of what an idle connection
//! cost). This one holds a lock, a waker and a `VecDeque` that grows only as frames wait in it.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};

pub use tokio::sync::mpsc::error::{TryRecvError, TrySendError};

/// A queue holding at most `cap` items.
pub fn queue<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        cap,
        state: Mutex::new(State {
            items: VecDeque::new(),
            waker: None,
            senders: 1,
            receiver_gone: false,
        }),
    });
    (
        Sender {
            shared: Arc::clone(&shared),
        },
        Receiver { shared },
    )
}

struct Shared<T> {
    cap: usize,
    state: Mutex<State<T>>,
}

struct State<T> {
    items: VecDeque<T>,
    /// The receiver's task, waiting for an item or for the senders to go.
    waker: Option<Waker>,
    /// Senders alive; none left means nothing more will come.
    senders: usize,
    receiver_gone: bool,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // Nothing panics while holding the lock; if something did, the queue is still whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The dungeon's end. Dropping the last one tells the receiver that nothing more will come.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.shared.lock();
        f.debug_struct("Sender")
            .field("queued", &st.items.len())
            .field("cap", &self.shared.cap)
            .finish()
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.lock().senders += 1;
        Sender {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T> Sender<T> {
    /// Queues `item` unless the queue is full or the receiver is gone; never waits.
    pub fn try_send(&self, item: T) -> Result<(), TrySendError<T>> {
        let waker = {
            let mut st = self.shared.lock();
            if st.receiver_gone {
                return Err(TrySendError::Closed(item));
            }
            if st.items.len() >= self.shared.cap {
                return Err(TrySendError::Full(item));
            }
            st.items.push_back(item);
            st.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
        Ok(())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut st = self.shared.lock();
            st.senders -= 1;
            if st.senders > 0 {
                return;
            }
            st.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// The connection's end. Dropping it makes every later send fail as `Closed`.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Receiver<T> {
    /// The next item; `None` once the queue is empty and the sender gone. Cancel-safe: an
    /// item is taken only when this returns it.
    pub async fn recv(&mut self) -> Option<T> {
        poll_fn(|cx| {
            let mut st = self.shared.lock();
            if let Some(item) = st.items.pop_front() {
                return Poll::Ready(Some(item));
            }
            if st.senders == 0 {
                return Poll::Ready(None);
            }
            match &mut st.waker {
                Some(w) if w.will_wake(cx.waker()) => {}
                slot => *slot = Some(cx.waker().clone()),
            }
            Poll::Pending
        })
        .await
    }

    /// The next item if one is queued now.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let mut st = self.shared.lock();
        match st.items.pop_front() {
            Some(item) => {
                // Let go of a burst's room (a welcome and its updates) once it is drained.
                if st.items.is_empty() && st.items.capacity() > 8 {
                    st.items = VecDeque::new();
                }
                Ok(item)
            }
            None if st.senders == 0 => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut st = self.shared.lock();
        st.receiver_gone = true;
        // What is still queued will never be read.
        st.items = VecDeque::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn items_come_out_in_order_and_a_full_queue_refuses_without_waiting() {
        let (tx, mut rx) = queue(2);
        tx.try_send(1).unwrap();
        tx.try_send(2).unwrap();
        assert!(matches!(tx.try_send(3), Err(TrySendError::Full(3))));
        assert_eq!(rx.try_recv(), Ok(1));
        tx.try_send(4).unwrap();
        assert_eq!(rx.try_recv(), Ok(2));
        assert_eq!(rx.try_recv(), Ok(4));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    }

    #[test]
    fn a_gone_receiver_makes_sends_fail_as_closed() {
        let (tx, rx) = queue(4);
        tx.try_send(1).unwrap();
        drop(rx);
        assert!(matches!(tx.try_send(2), Err(TrySendError::Closed(2))));
    }

    #[tokio::test]
    async fn a_waiting_receiver_wakes_for_an_item_and_ends_when_the_sender_goes() {
        let (tx, mut rx) = queue(4);
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            while let Some(x) = rx.recv().await {
                got.push(x);
            }
            got
        });
        // The reader is parked on an empty queue before each send.
        tokio::task::yield_now().await;
        tx.try_send(7).unwrap();
        tokio::task::yield_now().await;
        tx.try_send(8).unwrap();
        tx.try_send(9).unwrap();
        drop(tx);
        let got = tokio::time::timeout(Duration::from_secs(10), reader)
            .await
            .expect("the reader ends once the sender is gone")
            .unwrap();
        assert_eq!(got, [7, 8, 9]);
    }

    #[tokio::test]
    async fn items_sent_before_the_senders_went_are_still_read() {
        let (tx, mut rx) = queue(4);
        let other = tx.clone();
        tx.try_send(1).unwrap();
        drop(tx);
        other.try_send(2).unwrap();
        assert_eq!(rx.recv().await, Some(1));
        drop(other);
        assert_eq!(rx.recv().await, Some(2));
        assert_eq!(rx.recv().await, None);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    }
}
