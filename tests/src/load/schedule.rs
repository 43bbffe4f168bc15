//! The open-loop schedule: when each bot means to send, whatever the server does.
//!
//! Bot `b` sends its `k`-th message at `offset + k * period` after the run's start. A reply that
//! comes late does not move the schedule: the messages that fell due meanwhile are owed, sent
//! one after another as soon as the bot may send again, and each one's latency is counted from
//! the time it was *due*, not from when it finally left. A slow server therefore shows up as
//! long latencies instead of as fewer samples (the "coordinated omission" a closed loop hides).

use std::time::Duration;

/// One bot's sending times, relative to the run's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub offset: Duration,
    pub period: Duration,
    /// Messages already sent (the index of the next one).
    pub sent: u64,
}

impl Schedule {
    /// Every `period`, starting at `offset` (`period` must not be zero).
    pub fn new(offset: Duration, period: Duration) -> Schedule {
        assert!(!period.is_zero(), "a schedule needs a period");
        Schedule {
            offset,
            period,
            sent: 0,
        }
    }

    /// When message `k` is due.
    pub fn due(&self, k: u64) -> Duration {
        self.offset
            + self
                .period
                .saturating_mul(u32::try_from(k).unwrap_or(u32::MAX))
    }

    /// When the next message is due (it may be in the past: it is owed).
    pub fn next_due(&self) -> Duration {
        self.due(self.sent)
    }

    /// If a message is due by `now` (time since the start), takes it: returns when it was due.
    pub fn take(&mut self, now: Duration) -> Option<Duration> {
        let due = self.next_due();
        if due > now {
            return None;
        }
        self.sent += 1;
        Some(due)
    }

    /// Messages due by `now` and not sent yet.
    pub fn owed(&self, now: Duration) -> u64 {
        if now < self.offset {
            return 0;
        }
        let elapsed = (now - self.offset).as_nanos() / self.period.as_nanos();
        (elapsed as u64 + 1).saturating_sub(self.sent)
    }
}

/// The offset of group `g` of `groups` (a dungeon's bots share one): spread evenly over one
/// period, so the load is smooth rather than one burst per period.
pub fn group_offset(g: usize, groups: usize, period: Duration) -> Duration {
    if groups == 0 {
        return Duration::ZERO;
    }
    let nanos = period.as_nanos() * g as u128 / groups as u128;
    Duration::from_nanos(nanos as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn sends_on_the_period_from_the_offset() {
        let mut s = Schedule::new(30 * MS, 200 * MS);
        assert_eq!(s.take(29 * MS), None, "nothing before the offset");
        assert_eq!(s.take(30 * MS), Some(30 * MS));
        assert_eq!(s.take(100 * MS), None, "the next is due at 230 ms");
        assert_eq!(s.take(230 * MS), Some(230 * MS));
        assert_eq!(s.next_due(), 430 * MS);
    }

    #[test]
    fn a_late_reply_leaves_messages_owed_at_their_own_times() {
        // The bot could not send between 30 ms and 700 ms (its reply was late): the messages
        // due at 230, 430 and 630 ms are owed, each still timed from when it was due.
        let mut s = Schedule::new(30 * MS, 200 * MS);
        assert_eq!(s.take(30 * MS), Some(30 * MS));
        assert_eq!(s.owed(700 * MS), 3);
        assert_eq!(s.take(700 * MS), Some(230 * MS));
        assert_eq!(s.take(701 * MS), Some(430 * MS));
        assert_eq!(s.take(702 * MS), Some(630 * MS));
        assert_eq!(s.take(703 * MS), None, "caught up: 830 ms is still ahead");
        assert_eq!(s.owed(703 * MS), 0);
    }

    #[test]
    fn groups_spread_over_one_period() {
        let p = 200 * MS;
        assert_eq!(group_offset(0, 4, p), Duration::ZERO);
        assert_eq!(group_offset(1, 4, p), 50 * MS);
        assert_eq!(group_offset(3, 4, p), 150 * MS);
        assert_eq!(group_offset(5, 0, p), Duration::ZERO);
    }
}
