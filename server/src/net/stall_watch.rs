//! Watches the event loop for stalls. A timer set every [`TICK`] that fires [`STALL`] or more
//! late means every socket, dungeon and timer on the runtime waited that long too: a task held
//! the thread, or so many were ready at once that the timer's turn came late. The server logs
//! each stall with its length, so an operator can tell a slow server from a slow network or a
//! slow client, and the load generator counts them (see `delve-load`).
//!
//! It costs ten wakeups a second.

use std::time::Duration;

use tokio::time::{Instant, sleep_until};

/// How often the watch looks.
pub const TICK: Duration = Duration::from_millis(100);

/// How late a tick must be to count as a stall: well above a loaded runtime's usual few
/// milliseconds, well below what a player feels.
pub const STALL: Duration = Duration::from_millis(50);

/// Sets a timer every `tick` and calls `on_stall` with how late it fired whenever that is
/// `stall` or more. Runs until its task is dropped.
pub async fn watch(tick: Duration, stall: Duration, mut on_stall: impl FnMut(Duration)) {
    let mut next = Instant::now() + tick;
    loop {
        sleep_until(next).await;
        let now = Instant::now();
        let late = now.saturating_duration_since(next);
        if late >= stall {
            on_stall(late);
        }
        // From now, not from when it was due: one stall is reported once, not as a burst of
        // ticks catching up.
        next = now + tick;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn a_held_event_loop_is_reported_with_how_long_it_was_held() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(watch(
            Duration::from_millis(20),
            Duration::from_millis(50),
            move |late| {
                let _ = tx.send(late);
            },
        ));
        // The watch runs once (on this thread, the only one) and sets its first timer.
        tokio::task::yield_now().await;
        // Hold the thread as a task that never yields would.
        std::thread::sleep(Duration::from_millis(300));
        // A busy machine may add stalls of its own; the one made here is among the reports.
        let held = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                let late = rx.recv().await.expect("the watch stopped");
                if late >= Duration::from_millis(250) {
                    return late;
                }
            }
        })
        .await
        .expect("no stall of 250 ms or more was reported");
        assert!(held < Duration::from_secs(10), "{held:?}");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_loop_that_keeps_up_reports_nothing() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let watch = tokio::spawn(watch(
            Duration::from_millis(100),
            Duration::from_millis(50),
            move |late| {
                let _ = tx.send(late);
            },
        ));
        // A minute of ticks on the runtime's clock, each on time.
        tokio::time::sleep(Duration::from_secs(60)).await;
        watch.abort();
        assert_eq!(rx.recv().await, None, "a stall was reported");
    }
}
